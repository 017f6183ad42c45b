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
player's numbers), ``policies`` (the policy endpoint), ``religion`` (the tenet endpoint, prophets,
faith purchases), ``beliefs`` (the tenets acting in each city), ``pressure`` (religious spread),
``great_people`` (specialists, great people, great works, golden ages, tourism),
``units`` / ``cities`` / ``step`` (the turn),
``observe`` (observations), ``spaces`` (action shapes), ``simulator`` (``build_simulator``),
``recorder`` (frames; the spec's ``GameStateRecorder``), ``moves`` / ``adapter`` (the game
contract), ``compiled`` (the adapter's functions, traced once per machine), ``options`` (what a
player may do this turn), ``text`` / ``news`` / ``orders`` / ``religion_text`` (the text view and
text orders), ``bot``, ``pettingzoo_env``. Using it as a player, an RL library or a viewer:
docs/terranova.md.

Stage 2 (issue 14), so far: all 148 buildings and wonders (``data/buildings.json``: costs, upkeep,
tech / building / resource / policy / site prerequisites as boolean matrices; flat, per-citizen
and percent yields, tile-class bonuses, city and empire modifier rows, one-time grants, free
buildings, specialist, great-work and great-person-point rows); the 54 social policies in 9 trees
with their finishers (``data/policies.json``; effects are rows in the buildings' columns, so tenets
can reuse them), the policy cost formula and the policy endpoint; culture and faith reserves,
lifetime culture, golden ages, free techs and policies; a world wonder built anywhere cancels it
everywhere else (production kept); happiness as the original (first city free, -2 % production
and gold per unhappy point); religion (``data/tenets.json``: all 91 tenets as effect rows in the
same columns, plus yields per count, per site and faith purchases): pantheons (10 + 5 per pantheon
taken), great prophets at 134 and 201 faith for founding (founder + two followers) and enhancing,
reformation with its policy, each tenet one player's; followers per city, religious pressure (range
15, holy city x 4.5, threshold 100) to every player's cities and to city states, each city applying
its majority religion's tenets; ``religious_tenets`` and ``religion_info`` live; specialists, great
person points (one threshold of 67 doubling at each birth), the six great people and what they do
in the original (a granted great prophet becomes faith), great works in their slots, golden ages
from great artists and happiness, tourism onto met rivals (``great_people``; its text in
``great_people_text``), free units from wonders and policies. Not yet: the modifier columns of city
states, trade, kills and XP (set by their buildings and policies, read when the systems land).

Stage-1 simplifications (each a candidate for a later stage): a unit acts once per turn (move,
found, build or attack; no move-then-attack); reach is 8 Bellman-Ford rounds in the 217 tiles
around a unit, so very long road trips are cut; any one improved source of a strategic resource
enables its units (no counts); cities do not shoot; borders are closed to players at peace, and a
melee unit entering them declares war (peace is a trade item of a later stage); city states are
sites with a ring of territory, which block movement and settling but do not act; units fight at
full strength whatever their health; a unit finished in a city whose tile holds a unit of the same
class waits there until the tile is free.
"""
