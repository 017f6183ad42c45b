"""Terra Nova: a Civilization-V-style 4X simulator for six players, written in JAX.

Stage 1 (this package): data tables, the map generator, the batched simulator with cities, units,
technologies, combat and fog of war, the spec's action and observation shapes, a streaming
recorder and a game-contract adapter.
"""
