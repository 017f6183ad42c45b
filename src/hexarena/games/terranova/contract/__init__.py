"""The game for people and models: moves, orders, what a player may do, and the text they read.

``moves`` (the sparse move <-> the engine's dense action tuple), ``orders`` (compact text orders,
parsed and checked), ``options`` (what a player may do this turn, computed by the engine's rules),
``compiled`` (the single-game functions the adapter runs, compiled once per machine) and ``text/``
(the text view, the news and one section per topic). Imports the engine only; no module here runs
inside the batched simulator, but ``compiled`` traces ``moves`` and ``options`` with the engine.
"""
