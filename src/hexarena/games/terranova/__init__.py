"""Terra Nova: a Civilization-V-style 4X simulator for six players, written in JAX.

Stage 1: data tables, the map generator, the batched simulator with cities, units,
technologies, combat and fog of war, the spec's action and observation shapes, a streaming
recorder, a game-contract adapter and a heuristic bot.

Quick start (the spec's API)::

    import jax
    from hexarena.games.terranova import build_simulator, generate, random_actions

    step, games, obs_spaces, metrics, turn_ids, obs, mesh, sharding = build_simulator(
        [generate(seed) for seed in range(8)], "duplicate", jax.random.PRNGKey(0)
    )
    for _ in range(6):  # one round: every player moves once
        actions = random_actions(jax.random.PRNGKey(1), games.turn.shape)
        games, obs_spaces, metrics, turn_ids, obs, rewards, done, executed = step(
            games, actions, obs_spaces, metrics, turn_ids
        )

The package is in rooms, each importing only the rooms above it in this list:

* ``engine/``: the rules as pure JAX functions (everything that runs inside ``jit``): ``tables``,
  ``geometry``, ``mapgen`` (``python -m hexarena.games.terranova.engine.mapgen`` writes a map
  pool), ``state``, ``formulas``, ``world``, ``effects``, ``step``, ``observe``, ``spaces``,
  ``simulator``, and ``engine/rules/``, one module a topic (units, cities, policies, religion,
  beliefs, pressure, great people, trade, trade routes, city states and their relations,
  espionage, victory);
* ``contract/``: the game for people and models: ``moves``, ``orders`` (text orders), ``options``
  (what a player may do), ``compiled`` (the adapter's functions, traced once per machine) and
  ``contract/text/`` (the text view, the news, a section per topic);
* ``view/``: the replay viewer's ``recorder`` (the spec's ``GameStateRecorder``) and ``screens``;
* ``bots/``: the heuristic bot and its religion, caravan and trade helpers;
* and, at the top, ``adapter`` (``TerraNovaState``, the game contract) and ``pettingzoo_env``.

A new rule goes in ``engine/`` (a topic of its own in ``engine/rules/``), its text in
``contract/text/``, its screen in ``view/screens``. Using it as a player, an RL library or a
viewer: docs/terranova.md.

Stage 2 (issue 14), so far: all 148 buildings and wonders (``data/buildings.json``: costs, upkeep,
tech / building / resource / policy / site prerequisites as boolean matrices; flat, per-citizen and
percent yields, tile-class bonuses, city and empire modifier rows, one-time grants, free buildings,
specialist, great-work and great-person-point rows); the 54 social policies in 9 trees with their
finishers (``data/policies.json``; effects are rows in the buildings' columns, so tenets can reuse
them), the policy cost formula and the policy endpoint; culture and faith reserves, lifetime
culture, golden ages, free techs and policies; a world wonder built anywhere cancels it everywhere
else (production kept); happiness as the original (first city free, -2 % production and gold per
unhappy point); religion (``data/tenets.json``: all 91 tenets as effect rows in the same columns,
plus yields per count, per site and faith purchases): pantheons (10 + 5 per pantheon taken), great
prophets at 134 and 201 faith for founding (founder + two followers) and enhancing, reformation with
its policy, each tenet one player's; followers per city, religious pressure (range 15, holy city x
4.5: the original's 6 + 3.5 x 6 = 27, threshold 100) to every player's cities and to city states,
each city applying its majority religion's tenets; ``religious_tenets`` and ``religion_info`` live;
specialists, great person points (one threshold of 67 doubling at each birth), the six great people
and what they do in the original (a granted great prophet becomes faith), great works in their
slots, golden ages from great artists and happiness, tourism onto met rivals (``great_people``; its
text in ``great_people_text``), free units from wonders and policies.

Stage 3 (issue 15), trade: the four trade endpoints (``trade``: one offer a turn, accept/deny,
15-turn deals in a ledger of 10 per player; embassy, 5 gold per turn, peace, the 52 resources;
peace ends a war and binds the giver; a war cancels the deals) and caravans (``trade_routes``:
unit categories 16 and 17, routes to own, foreign and city-state cities within 15 tiles for 14
turns with the original's yields; ``trade_route_cs_influence`` and ``trade_route_pressure`` for
the city-state and religion stages); orders ``offer blue: 5 gold/turn for peace``, ``accept red``,
``unit 3 send 12,40``; the text view's trade section (``trade_text``).

Stage 3 (issue 15), city states, spies, Congress and victories (``data/citystates.json``): the 12
city states act once a round after the last player: types drawn per game, influence per player
with decay 1 a round (Philanthropy -25 %) and a resting floor (Patronage), friend (30) and ally (60,
one per city state) yields by type (friend in the capital, ally in every city; Scholasticism +50 %,
Cultural Diplomacy +25 % and the Patronage finisher x 1.5, as the original; Scholasticism adds 25 %
of them as science, Cultural Diplomacy +50 % happiness and doubles the militaristic help,
Philanthropy +25 % route influence: ``cs_relations``), militaristic city states strengthening one
unit a round, the 7 quests rotating every 30 rounds (+30 influence to the best player among those
who met the city state; the trade quest counts routes every round), borders growing 5 % a round;
trade-route influence and counts and city-state religion enter ``citystates.citystate_round`` as
parameters. Spies by era and the Intelligence Agency, one tech-steal roll a turn against the tech
leader, its defence averaged over all 10 city slots as the original.
The World Congress forms when someone knows Printing Press and has met everyone, meets every 30
rounds; delegates from the Forbidden Palace and Consulates. Science, domination, culture and
diplomatic victories end the game; ``GameState.victory`` names the kind and the adapter's outcome
says it ("blue won a culture victory"). The reward stays the score delta, as the original.

Stage 3 (issue 15), combat and fog as the original: a unit moves then attacks within its moves
(it strikes from the reachable tile that leaves it the most moves; an attack needs a move left
there; a melee unit only where it could step, so no land unit without Sailing strikes a boat; a
taken city keeps its followers and the pressure gathered on it); each unit carries a combat bonus
(its city's barracks, armory, military academy, Heroic Epic, Brandenburg Gate, Pentagon: +15 XP
each, x 1.15) times its empire's ``combat_pct``; kills
pay Honor's per-kill yields x (era + 1); strategic resources are counted per city (improved tiles
and the city's own tile), and a unit or building needing one needs it in the city that makes it;
movement is searched to convergence in the 469 tiles within 12 of a unit (exact for every unit of
up to 4 moves, roads included). The observation tracker remembers tile owners and cities (position,
capital, population, HP, defence), so tiles and cities out of sight show what was seen;
``have_met`` (6 players + 12 city states, 18 entries where the spec says 16) is sticky state; the
demographics fields rank the quantities they name; ``resources_owned`` is per city. The spec's quick
start runs as written (``mapgen --format gamestate``, docs/terranova.md).

Issue 24 brought the rules to the original's code where independent checks found them differing:
the policy cost rounded to the nearest 5; policies, pantheons and the next research chosen the turn
their reserve reaches them; a city growing on its stock and last turn's food, its new population
working at once; the border cost from the tiles a city owns; luxuries counted once per city, so a
deal can take the last; no growth penalty for unhappiness; every building's flat yields as the
original's effect functions; tourism x 1.25 onto a trading rival and onto one following our
religion. Where we still differ from the original's code, and why:

* a city owning 5 or fewer tiles besides its centre pays 0 culture for its next tile: the
  original's 6.87 x (owned - 5)^2.06 is NaN below 5, which no culture reaches (a bug);
* peace sends each unit inside the other's borders to the free tile of its own territory nearest
  its capital, not all of them onto the capital's tile, so one military and one civilian unit a
  tile still holds (a unit finding no such tile stays where it is);
* the first policy costs 15 (the formula's own value for no policy, as the original's comment
  says) where the original's stored threshold starts at 0, an unset initial value;
* the policy cost follows the live number of cities (Civ V) where the original recomputes it only
  when a policy is adopted, so that the cost the observation shows is what the next policy costs;
  Representation takes 33 % off the per-city increase (Civ V) where the original multiplies the
  whole cost by 0.67, and the cost modifiers add up (Cristo Redentor -10 %) where the original
  multiplies them;
* Aristocracy gives 0.1 happiness per citizen where the original gives round(pop / 10) per city
  (the same at every multiple of 10 citizens, without a per-policy special case);
* science per kill comes from Military Caste, whose function adds it, and Military Caste's
  courthouses give +2 happiness: the original's function then overwrites its culture record,
  losing the courthouse bonus, and the Honor finisher's function rewrites the per-kill yields with
  its own +1 science (both are overwrites, not rules);
* Meritocracy applies its docstring's effect (Civ V's: +1 happiness a city, +15 % connection gold,
  -5 % unhappiness from citizens): the original's function is empty, which would make it a dead
  pick;
* the holy city sends the holy city's pressure; the original gives it to the capital (the same
  city unless the capital moves);
* golden ages also come from happiness (Civ V), which the original leaves out (``great_people``).
* the policies' per-work yields (Flourishing of Arts +1 culture and +0.15 tourism, Artistic Genius
  +1.5 science a great work) go to the city whose slot holds the work: the original adds the
  empire's whole count of works times the yields to every one of its 10 city rows, empty ones too,
  and sums the tourism over all 10, so each work counts ten times over (a broadcast, not a rule).
  As in the original, every great-work slot of a building holds a work (its ``gw_slots``).

Issue 25 brought the move options to the original's move map: a unit's options include the tile
it stands on (a move there holds it: how a person, a model or a bot keeps a unit still) and the
tiles its own units of the same class hold (a move there is blocked and it stays, as the
original's ``step_unitsv2``); before, a unit that acted always stepped off, and armies by a pass
stepped to and fro (``rules.units.reachable_from``). The text view offers the stay on a unit's
Can line ("stay (move to its own tile R, C)"). It also brought the Apollo Program to the
original's rule: built in one city, it counts as built in every city of its player (the original
sets it in every city before the build masks), so there is one per player and the spaceship parts,
which need it, may be built in any city (each still needs aluminium in its own city or from a
deal); before, a part could only go up in a city that had built an Apollo Program of its own
(``building_empire_wide`` in the tables, ``rules.cities.build_mask``).

Simplifications kept from stage 1 (each a candidate for a later stage): cities do not shoot;
borders are closed to players at peace, and a melee unit entering them declares war (peace is a
trade item); units fight at full strength whatever their health; a unit finished
in a city whose tile holds a unit of the same class waits there until the tile is free; units
faster than 4 moves (tank, airship, helicopter) are searched up to 12 tiles away; roads cost a third
of a move as in Civilization V (the original: max(1, cost - 0.5), so never more tiles than moves).
"""

from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.simulator import build_simulator
from hexarena.games.terranova.engine.spaces import random_actions

__all__ = ["build_simulator", "generate", "random_actions"]
