"""Terra Nova: a Civilization-V-style 4X simulator for six players, written in JAX.

Stage 1: data tables, the map generator, the batched simulator with cities, units,
technologies, combat and fog of war, the spec's action and observation shapes, a streaming
recorder, a game-contract adapter and a heuristic bot.

Quick start (the spec's API)::

    import jax
    from hexarena.games.terranova.mapgen import generate
    from hexarena.games.terranova.simulator import build_simulator
    from hexarena.games.terranova.spaces import random_actions

    step, games, obs_spaces, metrics, turn_ids, obs, mesh, sharding = build_simulator(
        [generate(seed) for seed in range(8)], "duplicate", jax.random.PRNGKey(0)
    )
    for _ in range(6):  # one round: every player moves once
        actions = random_actions(jax.random.PRNGKey(1), games.turn.shape)
        games, obs_spaces, metrics, turn_ids, obs, rewards, done, executed = step(
            games, actions, obs_spaces, metrics, turn_ids
        )

Modules: ``tables`` (JSON data -> dense arrays), ``geometry`` (the 42 x 66 cylinder), ``mapgen``
(maps; ``python -m hexarena.games.terranova.mapgen`` writes a pool), ``state`` (the pytree),
``formulas``, ``world`` (derived quantities), ``effects`` (building, policy and tenet rows -> a
player's numbers), ``policies`` (the policy endpoint), ``religion`` (pantheons, the tenet
endpoint), ``units`` / ``cities`` / ``step`` (the turn),
``observe`` (observations), ``spaces`` (action shapes), ``simulator`` (``build_simulator``),
``recorder`` (frames; the spec's ``GameStateRecorder``), ``moves`` / ``adapter`` (the game
contract), ``compiled`` (the adapter's functions, traced once per machine), ``options`` (what a
player may do this turn), ``text`` / ``news`` / ``orders`` (the text view and text orders),
``bot``, ``pettingzoo_env``. Using it as a player, an RL library or a viewer: docs/terranova.md.

Stage 2 (issue 14), so far: all 148 buildings and wonders (``data/buildings.json``: costs, upkeep,
tech / building / resource / policy / site prerequisites as boolean matrices; flat, per-citizen
and percent yields, tile-class bonuses, city and empire modifier rows, one-time grants, free
buildings, specialist, great-work and great-person-point rows); the 54 social policies in 9 trees
with their finishers (``data/policies.json``; effects are rows in the buildings' columns, so tenets
can reuse them), the policy cost formula and the policy endpoint; culture and faith reserves,
lifetime culture, golden ages, free techs and policies; a world wonder built anywhere cancels it
everywhere else (production kept); happiness as the original (first city free, -2 % production
and gold per unhappy point); pantheons (``data/tenets.json``: the 91 tenets, the 37 pantheon
beliefs with effect rows in the same columns; cost 10 + 5 per pantheon taken, each belief one
player's) through the tenet endpoint, with ``religious_tenets`` and ``religion_info`` live. Not
yet: great prophets, founding, enhancing, reformation and religious pressure, specialists and great
people (granted great people are counted, not used), great works, tourism, and the modifier
columns of those systems and of city states, trade, kills and XP (set by their buildings and
policies, read when the systems land); free units from wonders and policies.

Stage 3 (issue 15), combat and fog as the original: a unit moves then attacks within its moves
(it strikes from the reachable tile that leaves it the most moves; an attack needs a move left
there); each unit carries a combat bonus (its city's barracks, armory, military academy, Heroic
Epic, Brandenburg Gate, Pentagon: +15 XP each, x 1.15) times its empire's ``combat_pct``; kills
pay Honor's per-kill yields x (era + 1); strategic resources are counted per city (improved tiles
and the city's own tile), and a unit or building needing one needs it in the city that makes it;
movement is searched to convergence in the 331 tiles within 10 of a unit (exact for every unit of
up to 3 moves, roads included). The observation tracker remembers tile owners and cities (position,
capital, population, HP, defence), so tiles and cities out of sight show what was seen;
``have_met`` (6 players + 12 city states, 18 entries where the spec says 16) is sticky state; the
demographics fields rank the quantities they name; ``resources_owned`` is per city. The spec's quick
start runs as written (``mapgen --format gamestate``, docs/terranova.md).

Simplifications kept from stage 1 (each a candidate for a later stage): cities do not shoot;
borders are closed to players at peace, and a melee unit entering them declares war (peace is a
trade item of a later stage); city states are sites with a ring of territory, which block movement
and settling but do not act; units fight at full strength whatever their health; a unit finished
in a city whose tile holds a unit of the same class waits there until the tile is free; units
faster than 3 moves are searched up to 10 tiles away.
"""
