"""Observation and action-form defects found by an independent check (issue 13), via the public API."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from hexarena.core.hexgrid import DIRECTIONS
from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold import cog_env
from hexarena.games.cityofgold.actions import DISCARD, MOVE, PASS, SPECIAL, Phase, action_kind, heads_to_flat
from hexarena.games.cityofgold.board import DISCARD as REQ_DISCARD
from hexarena.games.cityofgold.board import GRID, NEIGHBORS
from hexarena.games.cityofgold.engine import IllegalActionError, legal_mask, new_game, step
from hexarena.games.cityofgold.observe import observe

from .cog_helpers import full_course_game, place_for, set_hand

#: 0.0.3's neighbour order (reference section 8): E, NE, NW, W, SW, SE as (dq, dr).
ORDER_0_0_3 = ((1, 0), (0, 1), (-1, 1), (-1, 0), (0, -1), (1, -1))


def head_offset(k: int) -> tuple[int, int]:
    """Where hexarena's five-head ``move`` value ``k`` (1-6) sends pawn 0, as (dq, dr)."""
    kind, arg = action_kind(heads_to_flat({"move": k}, Phase.MOVEMENT))
    assert kind == "move" and arg < 6
    return DIRECTIONS[arg].q, DIRECTIONS[arg].r


def test_the_five_head_move_walks_in_0_0_3s_direction_order():
    env = cog_env(7002, 4, 2, "easy", 60)
    g = env.game
    start = g.pawns[g.player][0]
    env.step({"play": 1})  # an Explorer: 1 machete
    mover = g.player
    heads = observe(g)["player_data"]["action_mask"][mover]["move"]
    flat = observe(g)["action_mask"]
    legal = [k for k in range(1, 7) if heads[k]]
    assert legal and all(flat[heads_to_flat({"move": k}, g.phase)] for k in legal)
    assert not any(heads[k] for k in range(1, 13) if not flat[heads_to_flat({"move": k}, g.phase)])
    k = legal[0]
    env.step({"move": k})
    (x0, y0), (x1, y1) = divmod(start, GRID), divmod(g.pawns[mover][0], GRID)
    assert (x1 - x0, y1 - y0) == ORDER_0_0_3[k - 1]
    assert [head_offset(k) for k in range(1, 7)] == list(ORDER_0_0_3)
    assert heads_to_flat({"move": 7}, Phase.MOVEMENT) == MOVE + 6  # pawn 1 east: same order


def _first_move_masks(city_of_gold, seed: int) -> tuple[np.ndarray, dict[int, np.ndarray]]:
    """0.0.3's map and, for each of 4 seats, its ``move`` mask right after playing an Explorer."""
    runner = city_of_gold.vec.get_runner(1)(1)
    runner.make_samplers(0)
    envs = runner.get_envs()
    envs.reset(seed, 4, 1, city_of_gold.Difficulty.EASY, 60, False)
    grid = envs.observations[0]["shared"]["map"].copy()
    actions, masks = runner.get_actions(), {}
    for _ in range(400):
        seat = int(envs.agent_selection[0])
        if len(masks) == 4:
            break
        obs = envs.observations[0]
        if (
            seat not in masks
            and obs["shared"]["phase"] in (0, 1)
            and obs["player_data"][seat]["obs"]["hand"][0]
        ):
            actions[0] = (1, 0, 0, 0, 0)  # play an Explorer (card 0)
            runner.step_seq()
            masks[seat] = envs.selected_action_masks[0]["move"].copy()
        actions[0] = (0, 0, 0, 0, 0)
        runner.step_seq()
    return grid, masks


def _cells_explaining(
    grid: np.ndarray, mask: np.ndarray, offsets: list[tuple[int, int]]
) -> set[tuple[int, int]]:
    """Empty cells (start hexes look empty in 0.0.3's map) from which exactly the masked heads
    lead onto a 1-machete jungle hex (all an Explorer allows)."""
    found = set()
    for x, y in itertools.product(range(1, GRID - 1), repeat=2):
        if grid[x, y].any():
            continue
        leads = [grid[x + dx, y + dy, 1] == 1 and not grid[x + dx, y + dy, 6] for dx, dy in offsets]
        if leads == [bool(m) for m in mask[1:7]]:
            found.add((x, y))
    return found


def test_the_five_head_move_matches_the_0_0_3_wheels_masks():
    city_of_gold = pytest.importorskip(
        "city_of_gold", reason="the 0.0.3 wheel (bench extra) is not installed"
    )
    offsets = [head_offset(k) for k in range(1, 7)]
    for seed in (0, 2):
        grid, masks = _first_move_masks(city_of_gold, seed)
        assert len(masks) == 4 and all(m[1:].any() for m in masks.values())
        options = [_cells_explaining(grid, m, offsets) for m in masks.values()]
        # The four pawns stand on four different start hexes: some distinct choice must exist.
        assert any(len(set(pick)) == 4 for pick in itertools.product(*options)), options


@pytest.mark.parametrize("kind", [np.int64, np.int32, np.uint8])
def test_engine_step_accepts_legal_actions_given_as_numpy_integers(kind):
    a, b = new_game(5, n_players=2), new_game(5, n_players=2)
    for _ in range(40):
        action = int(np.flatnonzero(legal_mask(a))[-1])
        step(a, kind(action))
        step(b, action)
        assert a.player == b.player and a.zones == b.zones and a.pawns == b.pawns
    with pytest.raises(IllegalActionError, match="action must be an int"):
        step(a, np.float64(3.0))
    illegal = int(np.flatnonzero(~np.array(legal_mask(a)))[0])
    with pytest.raises(IllegalActionError):
        step(a, np.int64(illegal))


def test_the_two_pawns_of_a_seat_are_told_apart_in_the_map():
    g = new_game(4, n_players=2)
    rec = observe(g)
    occupancy = rec["shared"]["map"][..., 0]
    mark = {(p, k): int(occupancy[divmod(c, GRID)]) for p in range(2) for k, c in enumerate(g.pawns[p])}
    assert mark == {(0, 0): 1, (0, 1): 5, (1, 0): 2, (1, 1): 6}  # seat relative to the mover, + 4 for pawn 1
    g.pawns[0].reverse()  # the same cells with the pawns swapped: a different position
    assert not np.array_equal(observe(g)["shared"]["map"], rec["shared"]["map"])


def test_the_blockade_map_marks_exactly_the_crossings_a_blockade_guards():
    g = new_game(3)
    bm = observe(g)["shared"]["blockade_map"]
    assert bm.shape == (GRID, GRID, 6)
    assert bm[10, 8, 0] == 1  # (10,8) -> (11,8) crosses blockade 0 ...
    assert bm[10, 8, 5] == 0  # ... (10,8) -> (10,9) runs along it
    gates = {(cell, d): b for cell, d, b in g.course.gates}
    for x, y, d in zip(*np.nonzero(bm), strict=True):
        assert gates[(x * GRID + y, d)] == bm[x, y, d] - 1
    assert len(gates) == np.count_nonzero(bm)


def test_owed_and_allowed_cards_and_the_turn_counter_and_cap_are_observed():
    g = full_course_game()
    assert (observe(g)["shared"]["turn"], observe(g)["shared"]["max_turns"]) == (0, g.max_turns)
    set_hand(g, Explorer=2, Traveler=2)
    cell, d = place_for(g, REQ_DISCARD)
    owed = g.course.req_amount[NEIGHBORS[cell][d]]
    step(g, MOVE + d)
    shared = observe(g)["shared"]
    assert shared["phase"] == Phase.PAY_DISCARD and shared["pending"] == owed >= 1
    step(g, DISCARD + C.card_id("Traveler"))
    assert observe(g)["shared"]["pending"] == owed - 1  # 0 once paid (then the phase is over)
    g2 = new_game(1, n_players=3, max_turns=2)
    step(g2, PASS)
    step(g2, PASS)
    shared = observe(g2)["shared"]
    assert (shared["turn"], shared["max_turns"], shared["pending"]) == (1, 2, 0)
    step(g2, PASS)
    step(g2, PASS)
    assert g2.truncated and observe(g2)["shared"]["turn"] == 2


def test_a_scientist_shows_how_many_cards_it_allows_to_remove():
    g = new_game(6, n_players=4)
    set_hand(g, Scientist=1, Explorer=3)
    step(g, SPECIAL + C.card_id("Scientist"))
    assert g.phase == Phase.REMOVE
    assert observe(g)["shared"]["pending"] == g.pending == C.REMOVE[C.card_id("Scientist")]
