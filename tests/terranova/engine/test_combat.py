"""Combat and units as the original plays them (issue 15): move then attack within a unit's
moves, per-unit combat bonus (barracks XP), per-kill yields from Honor, strategic resources
counted per city, and a movement search long enough for roads. Values are hand-computed."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from hexarena.games.terranova.engine.effects import kill_yields
from hexarena.games.terranova.engine.geometry import distance_np, neighbors
from hexarena.games.terranova.engine.observe import combat_accel
from hexarena.games.terranova.engine.rules.cities import city_resources, fixed_build_mask, production_phase
from hexarena.games.terranova.engine.rules.units import found_city, reachable, unit_phase
from hexarena.games.terranova.engine.tables import BUILDING_SLOTS, N_BUILDABLES, load_tables
from hexarena.games.terranova.engine.world import occupancy

from ..tn_helpers import attack_scores, grassland_start, place_unit

TB = load_tables()
P0 = jnp.int32(0)
phase = jax.jit(unit_phase)


@pytest.fixture(scope="module")
def field():
    """Player 0's start made bare grassland of radius 12, no units; (state, start tile)."""
    return grassland_start(seed=1, radius=12)


def east(tile: int, steps: int) -> list[int]:
    path = [tile]
    for _ in range(steps):
        path.append(int(neighbors()[path[-1]][0]))
    return path


def with_bonus(s, p: int, slot: int, bonus: float):
    return s._replace(units=s.units._replace(combat_bonus=s.units.combat_bonus.at[p, slot].set(bonus)))


def test_melee_unit_moves_then_attacks(field):
    s, centre = field
    target = east(centre, 2)[-1]  # two tiles away: out of reach of a standing attack
    s = place_unit(place_unit(s, 0, 0, "warrior", centre), 1, 0, "warrior", target)
    out, cats, tgts = phase(s, P0, *attack_scores(target))
    assert int(cats[0]) == 18 and int(tgts[0]) == target
    stand = int(out.units.pos[0, 0])
    assert distance_np(stand, centre) == 1 and distance_np(stand, target) == 1  # one move, then the blow
    # Equal strengths (8 vs 8): r = 1, ((1 + 3) / 4)^4 = 1, each side loses 0.3 x 2 / 2 = 0.3.
    assert float(out.units.hp[1, 0]) == pytest.approx(0.7, abs=1e-5)
    assert float(out.units.hp[0, 0]) == pytest.approx(0.7, abs=1e-5)
    assert float(out.units.moves[0, 0]) == 0.0 and bool(out.players.at_war[0, 1])


def test_an_attack_needs_a_move_left_at_the_striking_tile(field):
    s, centre = field
    target = east(centre, 3)[-1]  # a 2-move warrior reaches ring 2 with no move left: no attack
    s = place_unit(place_unit(s, 0, 0, "warrior", centre), 1, 0, "warrior", target)
    _, cats, _ = phase(s, P0, *attack_scores(target))
    assert int(cats[0]) != 18


def test_combat_bonus_raises_the_attacker(field):
    s, centre = field
    target = east(centre, 1)[-1]
    s = with_bonus(place_unit(place_unit(s, 0, 0, "warrior", centre), 1, 0, "warrior", target), 0, 0, 0.15)
    out, _, _ = phase(s, P0, *attack_scores(target))
    # r = 8 x 1.15 / 8 = 1.15, f = (4.15 / 4)^4 = 1.158650: defender -0.3 x 2.158650 / 2, attacker -0.6 / 2.158650
    assert float(out.units.hp[1, 0]) == pytest.approx(1 - 0.3237976, abs=1e-5)
    assert float(out.units.hp[0, 0]) == pytest.approx(1 - 0.2779514, abs=1e-5)
    assert int(out.units.pos[0, 0]) == centre  # already next to it: no move


def test_defender_bonus_adds_to_its_tile_bonus(field):
    s, centre = field
    target = east(centre, 1)[-1]
    s = s._replace(layers=s.layers._replace(elevation=s.layers.elevation.at[target].set(2)))  # hill +0.25
    s = with_bonus(place_unit(place_unit(s, 0, 0, "warrior", centre), 1, 0, "warrior", target), 1, 0, 0.15)
    out, _, _ = phase(s, P0, *attack_scores(target))
    # defence 8 x (1 + 0.15 + 0.25) = 11.2, r = 0.714286, f = 0.743466
    assert float(out.units.hp[1, 0]) == pytest.approx(1 - 0.2615199, abs=1e-5)
    assert float(out.units.hp[0, 0]) == pytest.approx(1 - 0.3441420, abs=1e-5)


def test_barracks_trains_units_with_a_bonus(field):
    s, centre = field
    s = found_city(s, P0, jnp.int32(centre))
    c = s.cities
    warrior = BUILDING_SLOTS + TB.unit("warrior") - 1
    s = s._replace(
        cities=c._replace(
            buildings=c.buildings.at[0, 0, TB.building("barracks")].set(True),
            prod=c.prod.at[0, 0].set(1000.0),
        )
    )
    scores = jnp.zeros((10, N_BUILDABLES)).at[:, warrior].set(1.0)
    out, chosen, _, _ = jax.jit(production_phase)(s, P0, scores, jnp.zeros(10), jnp.zeros(10))
    assert int(chosen[0]) == warrior
    slot = int(np.flatnonzero(np.asarray(out.units.kind[0]) == TB.unit("warrior"))[0])
    assert float(out.units.combat_bonus[0, slot]) == pytest.approx(0.15)  # +15 XP -> x 1.15
    accel = np.asarray(jax.jit(combat_accel)(out))
    assert accel[0, slot] == pytest.approx(1.15)
    worker = place_unit(out, 0, 5, "worker", centre)
    assert np.asarray(jax.jit(combat_accel)(worker))[0, 5] == 0.0  # civilians have none


def honor(s, names: tuple[str, ...], techs: tuple[str, ...] = ()):
    pl = s.players
    pol = pl.policies
    for n in names:
        pol = pol.at[0, TB.policy_names.index(n)].set(True)
    known = pl.techs
    for t in techs:
        known = known.at[0, TB.tech(t)].set(True)
    return s._replace(players=pl._replace(policies=pol, techs=known))


HONOR = (
    "honor_opener",
    "warrior_code",
    "professional_army",
    "military_caste",
    "military_tradition",
    "discipline",
)


def test_kill_yields_from_honor_scale_with_the_era(field):
    s, _ = field
    per_kill = np.asarray(jax.jit(kill_yields)(honor(s, HONOR[:4]), P0))
    # opener +1 culture, Warrior Code +1 gold, Military Caste +1 science; ancient era: x 1
    assert per_kill[0].tolist() == [0, 0, 1, 0, 1, 1, 0, 0] and not per_kill[1].any()
    full = np.asarray(jax.jit(kill_yields)(honor(s, HONOR, ("optics",)), P0))  # classical era: x 2
    assert full[0].tolist() == [0, 0, 2, 0, 2, 2, 0, 0]
    assert full[1].tolist() == [0, 0, 0, 0, 0, 2, 0, 0]  # the finisher's science per kill


def test_a_kill_pays_the_killer(field):
    s, centre = field
    target = east(centre, 1)[-1]
    s = honor(place_unit(place_unit(s, 0, 0, "warrior", centre), 1, 0, "warrior", target), HONOR[:4])
    s = s._replace(units=s.units._replace(hp=s.units.hp.at[1, 0].set(0.2)))
    pl = s.players
    out, _, _ = phase(s, P0, *attack_scores(target))
    assert int(out.units.kind[1, 0]) == 0 and int(out.units.pos[0, 0]) == target  # killed, moved in
    assert float(out.players.gold[0]) == pytest.approx(float(pl.gold[0]) + 1)
    assert float(out.players.culture[0]) == pytest.approx(float(pl.culture[0]) + 1)
    assert float(out.players.culture_total[0]) == pytest.approx(float(pl.culture_total[0]) + 1)
    assert float(out.players.science[0]) == pytest.approx(float(pl.science[0]) + 1)
    wounded = s._replace(units=s.units._replace(hp=s.units.hp.at[1, 0].set(1.0)))
    alive, _, _ = phase(wounded, P0, *attack_scores(target))
    assert float(alive.players.gold[0]) == float(pl.gold[0])  # no kill, no pay


def test_strategic_resources_count_per_city(field):
    s, centre = field
    far = east(centre, 6)[-1]
    s = honor(
        found_city(found_city(s, P0, jnp.int32(centre)), P0, jnp.int32(far)), (), ("mining", "iron_working")
    )
    iron, mine = TB.resource("iron"), TB.improvement_names.index("mine")
    near0, near1 = int(neighbors()[centre][3]), int(neighbors()[far][0])
    lay = s.layers._replace(resource=s.layers.resource.at[jnp.asarray([near0, near1])].set(iron))
    s = s._replace(layers=lay, tiles=s.tiles._replace(improvement=s.tiles.improvement.at[near0].set(mine)))
    counts = np.asarray(jax.jit(city_resources)(s, P0))
    assert counts[0, iron] == 1 and counts[1, iron] == 0  # city 1's iron has no mine yet
    swordsman = BUILDING_SLOTS + TB.unit("swordsman") - 1
    mask = np.asarray(jax.jit(fixed_build_mask)(s, P0))
    assert mask[0, swordsman] and not mask[1, swordsman]
    on_centre = s._replace(layers=s.layers._replace(resource=s.layers.resource.at[far].set(iron)))
    assert np.asarray(jax.jit(city_resources)(on_centre, P0))[1, iron] == 1  # a city's own tile counts
    two = s._replace(tiles=s.tiles._replace(improvement=s.tiles.improvement.at[near1].set(mine)))
    two = two._replace(tiles=two.tiles._replace(owner_city=two.tiles.owner_city.at[near1].set(0)))
    assert np.asarray(jax.jit(city_resources)(two, P0))[0, iron] == 2  # sources are counted


@jax.jit
def _reach(s):
    return reachable(s, P0, jnp.int32(0), occupancy(s))


def on_road(s, centre: int, unit: str, steps: int):
    s = place_unit(s, 0, 0, unit, centre)
    s = s._replace(
        units=s.units._replace(moves=s.units.moves.at[0, 0].set(float(TB.unit_moves[TB.unit(unit)])))
    )
    return s._replace(
        tiles=s.tiles._replace(road=s.tiles.road.at[jnp.asarray(east(centre, steps))].set(True))
    )


@pytest.mark.parametrize(("unit", "far"), [("warrior", 6), ("scout", 9)])
def test_roads_carry_a_unit_three_tiles_a_move(field, unit, far):
    s, centre = field
    reach = np.asarray(_reach(on_road(s, centre, unit, far + 1)))
    path = east(centre, far + 1)
    assert reach[path[far]]  # moves x 3 road steps: the scout's 9 lie beyond the old 8-tile cut
    assert not reach[path[far + 1]]


@pytest.mark.slow  # a compilation of the batched unit phase (40 s of the 12-minute make test)
def test_one_game_branching_gives_the_masked_batch_result(field):
    """``unit_phase`` (one game: each slot runs only its chosen action and its kind's checks, through
    ``lax.cond``) gives what the masked form under ``vmap`` gives (``unit_phase_games`` over two
    copies of the game), bit for bit, in turns where the units prefer to move, settle, build, trade
    and attack: rival warriors side by side, a settler, a worker, a caravan in one of two cities."""
    from hexarena.games.terranova.engine.rules.units import unit_phase_games

    s, centre = field
    ring = east(centre, 8)
    s = found_city(found_city(s, P0, jnp.int32(centre)), P0, jnp.int32(ring[8]))
    units = [("warrior", ring[1]), ("settler", ring[4]), ("worker", ring[2]), ("caravan", centre)]
    for slot, (kind, tile) in enumerate(units):
        s = place_unit(s, 0, slot, kind, tile)
    beside = [int(n) for n in neighbors()[ring[1]] if int(n) not in (centre, ring[2])]
    for slot, tile in enumerate(beside[:3]):
        s = place_unit(s, 1, slot, "warrior", tile)
    pl = s.players
    s = s._replace(
        players=pl._replace(
            at_war=pl.at_war.at[0, 1].set(True).at[1, 0].set(True), techs=pl.techs.at[0].set(True)
        )
    )
    batched = jax.jit(unit_phase_games)
    two = jax.tree_util.tree_map(lambda x: jnp.stack([x, x]), s)
    rng = np.random.default_rng(11)
    done = set()
    for favoured in (0, 1, 2, 16, 17, 18):
        types = jnp.asarray(rng.normal(size=(30, 19)), jnp.float32).at[:, favoured].add(10.0)
        targets = jnp.asarray(rng.normal(size=(30, 2772)), jnp.float32)
        one = phase(s, P0, types, targets)
        both = batched(two, jnp.stack([types, types]), jnp.stack([targets, targets]))
        for x, y in zip(jax.tree_util.tree_leaves(one), jax.tree_util.tree_leaves(both), strict=True):
            assert np.asarray(x).tobytes() == np.asarray(y)[0].tobytes()
        done |= set(np.asarray(one[1]).tolist())
    assert {0, 1, 16, 17, 18} <= done and done & set(range(2, 16)), sorted(done)  # 2-15: builds
