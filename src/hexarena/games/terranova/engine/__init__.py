"""The engine: Terra Nova's rules as pure JAX functions over one pytree, jitted and batched.

Everything under this room runs inside ``jit`` (``mapgen`` and ``tables`` run once, in numpy, to
build what the jitted code reads). It imports nothing from the other rooms of the package.

Foundations: ``tables`` (JSON data -> dense arrays, boolean prerequisite matrices), ``geometry``
(the 42 x 66 cylinder), ``mapgen`` (maps; ``python -m hexarena.games.terranova.engine.mapgen``
writes a pool), ``state`` (the pytree), ``formulas`` (the original's curves), ``world`` (derived
quantities), ``effects`` (building, policy and tenet rows -> a player's numbers).
The turn: ``rules/`` (one module a topic, below), ``step`` (a player's turn and the round),
``observe`` (observations and the fog tracker), ``spaces`` (action shapes) and ``simulator``
(``build_simulator``: batched, sharded over devices).
"""
