"""Rule tests of the scalar engine: cards, specials, hex kinds, blockades, phases, players."""

from __future__ import annotations

import pytest

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import DISCARD, MOVE, PASS, PLAY, REMOVE, SHOP, SPECIAL, Phase
from hexarena.games.cityofgold.board import (
    COIN,
    FINISH,
    MACHETE,
    MOUNTAIN,
    NEIGHBORS,
    PADDLE,
    START,
)
from hexarena.games.cityofgold.board import (
    DISCARD as REQ_DISCARD,
)
from hexarena.games.cityofgold.board import (
    REMOVE as REQ_REMOVE,
)
from hexarena.games.cityofgold.engine import (
    ACTIVE,
    ARRIVED,
    DISCARD_PILE,
    DRAW_PILE,
    HAND,
    PLAYED,
    IllegalActionError,
    legal_mask,
    new_game,
    step,
)
from hexarena.games.cityofgold.invariants import check_invariants

from .cog_helpers import full_course_game, place_for, set_hand


def cid(name: str) -> int:
    return C.card_id(name)


def blockade_game(resource: bool = True):
    """A game and one gate (cell, direction, blockade) whose blockade is paid with resources or cards."""
    for seed in range(200):
        g = new_game(seed, n_players=4, n_pieces=3, difficulty="easy")
        for c, d, b in g.course.gates:
            if (g.course.blockades[b].kind <= COIN) == resource:
                return g, (c, d, b)
    raise AssertionError("no such blockade")


def test_starting_position():
    g = new_game(1, n_players=4)
    for p in range(4):
        zones = g.zones[p]
        assert [sum(zones[DRAW_PILE][k] + zones[HAND][k] for _ in [0]) for k in range(21)] == list(
            C.STARTER_DECK
        )
        assert sum(zones[HAND]) == 4 and sum(zones[DRAW_PILE]) == 4
    assert g.phase == Phase.MOVEMENT and g.player == 0
    assert [g.pawns[p][0] for p in range(4)] == list(g.course.starts)
    assert sum(g.market) == 6 and g.shop == [3] * 18
    check_invariants(g)


@pytest.mark.parametrize("card", range(C.N_CARDS))
def test_every_card_resources_or_special(card):
    g = full_course_game()
    set_hand(g, **{C.NAMES[card]: 1})
    mask = legal_mask(g)
    if C.SPECIAL[card] == C.SPECIAL_NONE:
        assert mask[PLAY + card] and not mask[SPECIAL + card]
        step(g, PLAY + card)
        assert tuple(g.res) == C.RESOURCES[card]
        assert g.zones[0][ACTIVE][card] == 1
    else:
        assert mask[SPECIAL + card] and not mask[PLAY + card]
        step(g, SPECIAL + card)
        gone = g.removed[card] if C.SINGLE_USE[card] else g.zones[0][PLAYED][card]
        assert gone == 1
    check_invariants(g)


@pytest.mark.parametrize(("kind", "card"), [(MACHETE, "Scout"), (PADDLE, "Captain"), (COIN, "Photographer")])
def test_resource_hexes_pay_and_leftover_carries_on(kind, card):
    g = full_course_game()
    set_hand(g, **{card: 1})
    cell, d = place_for(g, kind, 1)
    step(g, PLAY + cid(card))
    have = C.RESOURCES[cid(card)][kind - 1]
    step(g, MOVE + d)
    assert g.pawns[0][0] == NEIGHBORS[cell][d]
    assert g.res[kind - 1] == have - 1 and sum(g.res) == have - 1  # the other symbols are lost
    assert g.zones[0][PLAYED][cid(card)] == 1 and not any(g.zones[0][ACTIVE])
    check_invariants(g)


def test_card_played_after_a_move_gives_its_full_resources():
    g = full_course_game()
    set_hand(g, Explorer=1, Scout=1)
    _, d = place_for(g, MACHETE, 1)
    step(g, PLAY + cid("Explorer"))
    step(g, MOVE + d)
    step(g, PLAY + cid("Scout"))
    assert g.res == [2, 0, 0]


def test_new_card_replaces_an_unused_one_and_cards_never_combine():
    g = full_course_game()
    set_hand(g, Explorer=2)
    _, d = place_for(g, MACHETE, 2)
    step(g, PLAY + cid("Explorer"))
    step(g, PLAY + cid("Explorer"))
    assert g.res == [1, 0, 0] and g.zones[0][PLAYED][0] == 1 and g.zones[0][ACTIVE][0] == 1
    assert not legal_mask(g)[MOVE + d]
    with pytest.raises(IllegalActionError, match="needs 2 machete"):
        step(g, MOVE + d)


def test_joker_pays_any_symbol_then_only_that_one():
    g = full_course_game()
    set_hand(g, Adventurer=1)
    _, d = place_for(g, PADDLE, 1)
    step(g, PLAY + cid("Adventurer"))
    assert g.res == [2, 2, 2]
    step(g, MOVE + d)
    assert g.res == [0, 1, 0]


def test_rubble_discards_chosen_hand_cards():
    g = full_course_game()
    set_hand(g, Explorer=2, Traveler=2)
    cell, d = place_for(g, REQ_DISCARD)
    n = g.course.req_amount[NEIGHBORS[cell][d]]
    step(g, MOVE + d)
    assert g.phase == Phase.PAY_DISCARD and g.pending == n
    mask = legal_mask(g)
    assert not mask[PASS] and mask[DISCARD + cid("Traveler")] and not any(mask[PLAY : PLAY + 21])
    for _ in range(n):
        step(g, DISCARD + cid("Traveler"))
    assert g.phase == Phase.MOVEMENT and g.zones[0][DISCARD_PILE][cid("Traveler")] == n
    assert g.zones[0][HAND][cid("Explorer")] == 2
    check_invariants(g)


def test_rubble_needs_enough_hand_cards():
    g = full_course_game()
    set_hand(g)
    _, d = place_for(g, REQ_DISCARD)
    assert not legal_mask(g)[MOVE + d]


def test_basecamp_removes_chosen_cards_from_the_game():
    g = full_course_game()
    set_hand(g, Explorer=3, Traveler=1)
    cell, d = place_for(g, REQ_REMOVE)
    n = g.course.req_amount[NEIGHBORS[cell][d]]
    removed = g.removed[cid("Explorer")]
    step(g, MOVE + d)
    assert g.phase == Phase.PAY_REMOVE
    for _ in range(n):
        step(g, REMOVE + cid("Explorer"))
    assert g.removed[cid("Explorer")] == removed + n and g.phase == Phase.MOVEMENT
    check_invariants(g)


def test_mountains_start_hexes_and_occupied_hexes_cannot_be_entered():
    g = full_course_game()
    set_hand(g, Propeller_Plane=1)
    step(g, PLAY + cid("Propeller Plane"))
    occupied = g.occupied()
    for cell in g.course.cells():
        if not g.course.passable(cell) or cell in occupied:
            continue
        g.pawns[0][0] = cell
        mask = legal_mask(g)
        for d, n in enumerate(NEIGHBORS[cell]):
            blocked = g.course.terrain[n] in (MOUNTAIN, START, 0) or n in g.occupied()
            if blocked and cell * 6 + d not in g.gate:
                assert not mask[MOVE + d]


def test_arriving_at_el_dorado_finishes_the_round_and_wins():
    g = full_course_game()
    finish = g.course.finishes[0]
    cell = next(
        n for n in NEIGHBORS[finish] if n >= 0 and g.course.passable(n) and g.course.terrain[n] != FINISH
    )
    d = NEIGHBORS[cell].index(finish)
    g.player = 1
    g.pawns[1][0] = cell
    kind = g.course.req_kind[finish]
    set_hand(g, **{"Scout" if kind == MACHETE else "Captain": 1})
    step(g, PLAY + (1 if kind == MACHETE else 6))
    step(g, MOVE + d)
    assert g.pawns[1][0] == ARRIVED and g.ending and g.player == 2  # the arrival ends the turn
    for _ in range(2):  # seats 2 and 3 finish the round
        assert not g.done
        step(g, PASS)
        step(g, PASS)
    assert g.done and not g.truncated and g.winners == [1]
    assert g.rewards == [-1.0, 3.0, -1.0, -1.0]
    check_invariants(g)


def test_blockade_is_opened_kept_and_breaks_ties():
    g, (cell, d, b) = blockade_game()
    assert len(g.course.blockades) == 2
    blk = g.course.blockades[b]
    card = {MACHETE: "Trailblazer", PADDLE: "Captain", COIN: "Journalist"}[blk.kind]
    g.pawns[0][0] = cell
    set_hand(g, **{card: 1})
    step(g, PLAY + cid(card))
    step(g, MOVE + d)
    assert g.pawns[0][0] == cell and g.blockade_holder[b] == 0  # opened, the pawn stays
    assert g.res[blk.kind - 1] == C.RESOURCES[cid(card)][blk.kind - 1] - blk.amount
    # now crossing costs the hex itself
    target = NEIGHBORS[cell][d]
    assert g.course.req_kind[target] != 0
    # tie-break: two arrivers, the one with a blockade wins
    g.pawns[0][0] = ARRIVED
    g.pawns[2][0] = ARRIVED
    g.ending = True
    g.player = 3
    step(g, PASS)
    step(g, PASS)
    assert g.done and g.winners == [0] and g.rewards == [3.0, -1.0, -1.0, -1.0]


def test_gated_move_without_the_blockade_cost_is_refused():
    g, (cell, d, _) = blockade_game()
    g.pawns[0][0] = cell
    set_hand(g)
    assert not legal_mask(g)[MOVE + d]
    with pytest.raises(IllegalActionError, match="the blockade needs"):
        step(g, MOVE + d)


def test_card_blockade_is_paid_with_hand_cards():
    g, (cell, d, b) = blockade_game(resource=False)
    g.pawns[0][0] = cell
    set_hand(g, Explorer=2)
    step(g, MOVE + d)
    assert g.phase in (Phase.PAY_DISCARD, Phase.PAY_REMOVE) and g.blockade_holder[b] == 0
    base = DISCARD if g.phase == Phase.PAY_DISCARD else REMOVE
    step(g, base + cid("Explorer"))
    assert g.phase == Phase.MOVEMENT and g.pawns[0][0] == cell and sum(g.hand()) == 1
    check_invariants(g)


def test_native_moves_ignoring_cost_and_opens_a_blockade():
    g = full_course_game()
    set_hand(g, Native=2)
    cell, d = place_for(g, REQ_REMOVE)
    step(g, SPECIAL + cid("Native"))
    assert g.phase == Phase.NATIVE
    step(g, MOVE + d)
    assert g.pawns[0][0] == NEIGHBORS[cell][d] and g.phase == Phase.MOVEMENT
    g2 = new_game(3, n_players=4, n_pieces=3, difficulty="easy")
    cell, d, b = g2.course.gates[0]
    g2.pawns[0][0] = cell
    set_hand(g2, Native=1)
    step(g2, SPECIAL + cid("Native"))
    step(g2, MOVE + d)
    assert g2.blockade_holder[b] == 0 and g2.pawns[0][0] == cell


def test_transmitter_takes_any_card_free_and_is_removed():
    g = full_course_game()
    set_hand(g, Transmitter=1)
    s = C.SHOP_INDEX[cid("Native")]  # a reserve card
    step(g, SPECIAL + cid("Transmitter"))
    assert g.phase == Phase.TRANSMIT and legal_mask(g)[SHOP + s]
    step(g, SHOP + s)
    assert g.zones[0][DISCARD_PILE][cid("Native")] == 1 and g.shop[s] == 2
    assert not g.market[s] and g.removed[cid("Transmitter")] == 1 and g.phase == Phase.MOVEMENT
    check_invariants(g)


@pytest.mark.parametrize(("card", "draws", "removes"), [("Cartographer", 2, 0), ("Compass", 3, 0)])
def test_draw_cards(card, draws, removes):
    g = full_course_game()
    set_hand(g, **{card: 1})
    step(g, SPECIAL + cid(card))
    assert sum(g.hand()) == draws and g.phase == Phase.MOVEMENT
    assert (g.removed[cid(card)] == 1) == C.SINGLE_USE[cid(card)]


def test_scientist_and_travel_log_draw_then_may_remove():
    g = full_course_game()
    set_hand(g, Scientist=1, Travel_Log=1)
    step(g, SPECIAL + cid("Scientist"))
    assert g.phase == Phase.REMOVE and g.pending == 1 and sum(g.hand()) == 2
    k = next(k for k in range(21) if g.hand()[k])
    step(g, REMOVE + k)
    assert g.phase == Phase.MOVEMENT and sum(g.hand()) == 1
    step(g, SPECIAL + cid("Travel Log"))
    assert g.phase == Phase.REMOVE and g.pending == 2 and sum(g.hand()) == 2
    k = next(k for k in range(21) if g.hand()[k])
    step(g, REMOVE + k)
    step(g, PASS)  # skips the second removal only
    assert g.phase == Phase.MOVEMENT and sum(g.hand()) == 1 and g.removed[cid("Travel Log")] == 1
    check_invariants(g)


def test_buying_money_price_and_turn_end():
    g = full_course_game()
    set_hand(g, Traveler=1, Explorer=1, Photographer=1)
    step(g, PASS)
    assert g.phase == Phase.BUYING
    step(g, PLAY + cid("Traveler"))
    step(g, PLAY + cid("Explorer"))
    assert g.money2 == 3  # 1 + 1/2
    scout, trail = C.SHOP_INDEX[cid("Scout")], C.SHOP_INDEX[cid("Trailblazer")]
    mask = legal_mask(g)
    assert mask[SHOP + scout] and not mask[SHOP + trail]
    step(g, PLAY + cid("Photographer"))
    assert legal_mask(g)[SHOP + trail]  # money 3.5 >= price 3
    step(g, SHOP + trail)
    assert g.player == 1 and g.zones[0][DISCARD_PILE][cid("Trailblazer")] == 1 and g.shop[trail] == 2
    check_invariants(g)


def test_money_equal_to_price_buys():
    g = full_course_game()
    set_hand(g, Traveler=1)
    step(g, PASS)
    step(g, PLAY + cid("Traveler"))
    assert legal_mask(g)[SHOP + C.SHOP_INDEX[cid("Scout")]]


def test_single_use_money_is_removed():
    g = full_course_game()
    set_hand(g, Treasure_Chest=1)
    step(g, PASS)
    step(g, PLAY + cid("Treasure Chest"))
    assert g.money2 == 8 and g.removed[cid("Treasure Chest")] == 1


def test_single_use_card_is_removed_once_used():
    g = full_course_game()
    set_hand(g, Giant_Machete=1)
    _, d = place_for(g, MACHETE, 1)
    step(g, PLAY + cid("Giant Machete"))
    step(g, MOVE + d)
    assert g.removed[cid("Giant Machete")] == 1 and g.res[0] == 5


def test_reserve_opens_when_a_market_stack_is_empty():
    g = full_course_game()
    native, scout = C.SHOP_INDEX[cid("Native")], C.SHOP_INDEX[cid("Scout")]
    set_hand(g, Millionaire=2)
    step(g, PASS)
    step(g, PLAY + cid("Millionaire"))
    step(g, PLAY + cid("Millionaire"))
    assert not legal_mask(g)[SHOP + native]
    with pytest.raises(IllegalActionError, match="reserve"):
        step(g, SHOP + native)
    g.shop[scout] = 0
    g.market[scout] = False
    g.removed[cid("Scout")] += 3
    assert legal_mask(g)[SHOP + native]
    step(g, SHOP + native)
    assert g.market[native] and sum(g.market) == 6


def test_end_of_turn_keeps_hand_discards_on_request_and_draws_up_to_four():
    g = full_course_game()
    set_hand(g, Explorer=2, Traveler=2)
    step(g, PLAY + cid("Explorer"))
    step(g, PASS)
    step(g, DISCARD + cid("Traveler"))
    step(g, PASS)
    zones = g.zones[0]
    assert zones[HAND][cid("Explorer")] >= 1 and sum(zones[HAND]) == 4
    assert zones[DISCARD_PILE][cid("Traveler")] >= 1 and zones[DISCARD_PILE][cid("Explorer")] >= 1


def test_discard_pile_is_shuffled_in_only_when_the_draw_pile_is_empty():
    g = new_game(2, n_players=3)
    zones = g.zones[0]
    step(g, PASS)
    for k in range(21):
        while zones[HAND][k]:
            step(g, DISCARD + k)
    step(g, PASS)  # draw the remaining 4; discard pile untouched
    assert sum(zones[DRAW_PILE]) == 0 and sum(zones[DISCARD_PILE]) == 4 and sum(zones[HAND]) == 4
    for _ in range(2):
        step(g, PASS)
        step(g, PASS)
    step(g, PASS)
    for k in range(21):
        while zones[HAND][k]:
            step(g, DISCARD + k)
    step(g, PASS)
    assert sum(zones[HAND]) == 4 and sum(zones[DRAW_PILE]) == 4 and sum(zones[DISCARD_PILE]) == 0


@pytest.mark.parametrize("n_players", [2, 3, 4])
def test_player_counts_and_pawns(n_players):
    g = new_game(5, n_players=n_players)
    pawns = [c for ps in g.pawns for c in ps]
    assert len(pawns) == (4 if n_players == 2 else n_players) and len(set(pawns)) == len(pawns)
    for p in range(n_players):
        assert g.player == p
        step(g, PASS)
        step(g, PASS)
    assert g.player == 0 and g.turn == n_players


def test_two_player_game_needs_both_pawns_home():
    g = new_game(5, n_players=2)
    finish = g.course.finishes[0]
    cell = next(
        n for n in NEIGHBORS[finish] if n >= 0 and g.course.passable(n) and g.course.terrain[n] != FINISH
    )
    kind = g.course.req_kind[finish]
    card = "Scout" if kind == MACHETE else "Captain"
    g.pawns[0][1] = cell
    set_hand(g, **{card: 1})
    step(g, PLAY + cid(card))
    step(g, MOVE + 6 + NEIGHBORS[cell].index(finish))
    assert g.pawns[0][1] == ARRIVED and not g.ending and g.player == 0
    assert not any(legal_mask(g)[MOVE + 6 : MOVE + 12])


def test_truncation_after_max_turns():
    g = new_game(5, n_players=3, max_turns=4)
    for _ in range(4):
        step(g, PASS)
        step(g, PASS)
    assert g.done and g.truncated and g.rewards == [0.0, 0.0, 0.0] and g.phase == Phase.DONE
    assert not any(legal_mask(g))


def test_illegal_actions_raise_clear_errors_and_change_nothing():
    g = full_course_game()
    set_hand(g, Explorer=1)
    before = g.to_json()
    for action, text in [
        (PLAY + cid("Scout"), "no Scout in hand"),
        (SHOP + 0, "not allowed in the movement phase"),
        (DISCARD + cid("Explorer"), "not allowed in the movement phase"),
        (999, "action must be an int"),
        (MOVE + 6, "there is no pawn 1"),
    ]:
        with pytest.raises(IllegalActionError, match=text):
            step(g, action)
        assert g.to_json() == before


def test_caves_variant_gives_a_token_once_per_cave_per_turn():
    g = new_game(1, n_players=4, n_pieces=3, difficulty="medium", caves=True)
    assert g.course.caves and all(len(p) == 4 for p in g.cave_tokens)
    cave = g.course.caves[0]
    target = next(n for n in NEIGHBORS[cave] if n >= 0 and g.course.passable(n) and n not in g.occupied())
    cell, d = next(
        (c, NEIGHBORS[c].index(target))
        for c in NEIGHBORS[target]
        if c >= 0
        and g.course.passable(c)
        and c not in g.occupied()
        and c * 6 + NEIGHBORS[c].index(target) not in g.gate
    )
    g.pawns[0][0] = cell
    set_hand(g, Propeller_Plane=1)
    step(g, PLAY + cid("Propeller Plane"))
    token = g.cave_tokens[0][-1]
    hand = sum(g.hand())
    step(g, MOVE + d)
    assert len(g.cave_tokens[0]) == 3 and g.caves_used == [0]
    kind, amount = token
    if kind < 0:
        assert sum(g.hand()) == hand + amount
    else:
        assert g.res[kind - 1] == amount and sum(g.res) == amount
    check_invariants(g)
