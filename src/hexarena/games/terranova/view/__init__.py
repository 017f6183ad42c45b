"""What the replay viewer shows: ``recorder`` (frames of a game, streamed to a record; the spec's
``GameStateRecorder``) and ``screens`` (the 4X screens and the per-city panels). Reads the engine's
state and the contract's text helpers.
"""
