"""Issue 26: orders judged one by one, a new city's orders in the turn that founds it, one meaning
of ``pass``, every reachable tile listed and accepted, a local map, and one notation (text orders,
``R,C``) for every move a person or a model reads."""

from __future__ import annotations

import re

import numpy as np
import pytest

import hexarena
from hexarena.games.terranova.contract.text.news import Facts, news
from hexarena.games.terranova.engine.geometry import COLS


@pytest.fixture(scope="module")
def game():
    return hexarena.make("terranova", seed=1, turn_cap=30)


def play(state, text):
    nxt = state.apply(state.parse_move(text))
    assert nxt.message is None, nxt.message
    return nxt


def red_view(state) -> str:
    return state.query_game("red").render_text("red")


def settled(game):
    """Red after settling and starting a warrior, then everyone else passing: red to move."""
    state = play(game, "unit 0 settle; city 0 build warrior")
    for _ in range(5):
        state = play(state, "pass")
    return state


def test_a_bad_order_is_refused_alone_and_reported_with_its_reason(game):
    state = play(game, "unit 0 settle; city 0 build warrior; research mining; accept purple; unit 9 move 3,3")
    text = red_view(state)
    did = next(line for line in text.splitlines() if line.startswith("Your last move did:"))
    assert "unit 0 settle" in did and "city 0 started warrior" in did and "started researching mining" in did
    assert "Refused: accept purple (purple has made you no offer); unit 9 move 3,3 (you have no unit 9" in did


def test_an_attempt_fails_only_when_no_order_can_be_carried_out(game):
    out = game.apply(game.parse_move("accept purple; city 4 build granary"))
    assert out.message.startswith(
        "no order could be carried out: accept purple (purple has made you no offer)"
    )
    assert "city 4 build granary (you have no city 4" in out.message
    # an unreadable order among readable ones is refused, not the whole text
    move = game.parse_move("research pottery; unit 0 setle")
    assert move["tech"] == ("pottery",) and move["unread"][0][0] == "unit 0 setle"
    assert "unit 0 setle (unknown unit action 'setle'" in red_view(
        play(game, "research pottery; unit 0 setle")
    )


def test_refusals_say_what_is_missing(game):
    state = settled(game)
    out = state.apply(state.parse_move("city 0 build granary"))
    assert "granary needs pottery" in out.message
    out = state.apply(state.parse_move("research agriculture"))
    assert "agriculture is known already" in out.message
    out = state.apply(state.parse_move("research philosophy"))
    assert re.search(r"philosophy needs [a-z_, ]+", out.message)


def test_a_city_founded_this_turn_takes_its_orders_and_the_view_names_the_defaults(game):
    text = red_view(game)
    defaults = next(line for line in text.splitlines() if line.startswith("Default orders"))
    assert "unit 0 settle" in defaults and "city 0 build settler (the city founded this turn" in defaults
    state = play(game, "unit 0 settle; city 0 build warrior")
    assert "city 0 started warrior" in red_view(state) and "default's choice" not in red_view(state)
    state = play(game, "unit 0 settle")  # no build order: the default's, said to be locked
    assert (
        "city 0 started settler (the default's choice: no build order of yours applied there; locked"
        in red_view(state)
    )


def test_pass_and_empty_json_are_one_move(game):
    a, b = play(game, "pass"), play(game, "{}")
    assert a.environment_to_json() == b.environment_to_json()
    assert game.apply({}).environment_to_json() == a.environment_to_json()
    assert "'pass' (or {})" in game.rules_summary


def test_every_reachable_tile_is_listed_and_accepted(game):
    """The Reach line lists every tile a unit may move on to; its own tile, where a move holds
    it (as the original's move map), is offered on its Can line as a stay."""
    view = game.query_game("red")
    text = view.render_text("red")
    opts = view.environment.options
    for slot in (0, 1):
        can, line = next(
            lines[i + 1 : i + 3]
            for lines in [text.splitlines()]
            for i, row in enumerate(lines)
            if row.startswith(f"Unit {slot} ")
        )
        listed = line.split("All, by direction:", 1)[1]
        tiles = {int(r) * COLS + int(c) for r, c in re.findall(r"\((\d+), (\d+)\)", listed)}
        row, col = (int(v) for v in view.environment.view["units"]["unit_rowcol"][0, slot])
        here = row * COLS + col
        assert tiles | {here} == set(np.flatnonzero(opts["reach"][slot]).tolist()) and here not in tiles
        assert f"stay (move to its own tile ({row}, {col}))" in can
        stay = game.apply(game.parse_move(f"unit {slot} move {row},{col}"))
        assert stay.message is None and int(stay.environment.state.units.pos[0, slot]) == here
        assert re.match(r"  Reach \(\d+ tiles, best first\): \(\d+, \d+\)", line)
        for tile in tiles:
            out = game.apply(game.parse_move(f"unit {slot} move {tile // COLS},{tile % COLS}"))
            assert out.message is None, out.message
        far = next(t for t in range(COLS * 10) if t not in tiles)
        out = game.apply(game.parse_move(f"unit {slot} move {far // COLS},{far % COLS}"))
        assert "is not one of its" in out.message and "its Reach line lists them" in out.message


def test_local_map_around_a_unit_a_city_or_a_place(game):
    view = game.query_game("red")
    row, col = (int(v) for v in view.environment.view["units"]["unit_rowcol"][0, 0])
    text = view.look("map unit 0")
    assert f"Map around ({row}, {col})" in text and "@" in text and text.count("\n") >= 12
    assert "Legend:" in text and f"({row}, {col}) your settler (unit 0)" in text
    assert view.look(f"map {row},{col}") == text
    assert view.look("map city 0") == "You have no city 0."
    assert view.look("map").startswith("Usage: map R,C")
    assert view.look("unit 0 settle") is None
    assert "god king: " in view.look("help beliefs") and "Can choose later" not in view.look("help beliefs")


def test_moves_read_as_orders_everywhere(game):
    moves = game.legal_moves()
    texts = [game.format_move(m) for m in moves]
    assert texts[0] == "pass" and not any("{" in t for t in texts)
    assert any(t.startswith("research ") for t in texts) and "unit 0 settle" in texts
    assert any(re.fullmatch(r"unit 1 move \d+,\d+", t) for t in texts)
    for move, text in zip(moves, texts, strict=True):
        assert game.parse_move(text) == move  # #n teaches an order the model can type
    for move in moves[:12]:
        out = game.apply(move)
        assert out.message is None and not out.query_game("red").environment.refused
    bot = {
        "tech": ["pottery", "mining", "archery", "sailing"],
        "units": {"1": {"categories": ["move"], "targets": [1533, 1534]}},
    }
    assert game.format_move(bot) == "research pottery, mining, archery (+1 more); unit 1 move 23,15 (+1 more)"


def test_news_says_who_declared_war():
    eye = np.zeros((6, 6), bool)
    before = Facts(np.ones((6, 18), bool), eye, np.full((6, 10), -1), np.zeros((6, 148), bool))
    war = eye.copy()
    war[0, 3] = war[3, 0] = True
    lines = news(before, before._replace(at_war=war), 0, np.ones(2772, bool))
    assert lines[0].startswith("War: yellow declared war on you on its turn")


def test_the_view_does_not_contradict_itself(game):
    state = settled(game)
    state = play(state, "research pottery")
    for _ in range(11):
        state = play(state, "pass")
    text = red_view(state)
    assert re.search(r"researching pottery (\d+)/35 \((\d+) turns? left\)", text)
    assert re.search(r"pottery 35 \(researching: \d+ done, \d+ turns? left\)", text)
    if "  Building " in text:
        assert "Can build after the " in text and "Can build next" not in text


def test_a_contact_made_on_ones_own_move_is_news_at_the_next_turn(game, monkeypatch):
    """Meeting a city state with one's own unit used to vanish: the facts were taken after the
    move. The engine's contact is simulated here (city state #0 met by red from its move on)."""
    from hexarena.games.terranova import adapter

    real = adapter.facts_of

    def met_by_red(state):
        facts = real(state)
        facts.met[0, 6] = True
        return facts

    monkeypatch.setattr(adapter, "facts_of", met_by_red)
    state = play(game, "unit 0 settle")
    for _ in range(5):
        state = play(state, "pass")
    assert "- You met city state #0." in red_view(state)


def test_a_city_without_production_says_why_and_the_header_names_the_turn_cap(game):
    from hexarena.games.terranova.contract.text.view import TextView
    from hexarena.games.terranova.engine.tables import PROD

    state = settled(game)
    assert "round 1; the game ends after round 30 (its turn cap) unless a victory comes first" in red_view(
        state
    )
    env = state.query_game("red").environment
    obs = {**env.view, "player_cities": dict(env.view["player_cities"])}
    obs["player_cities"]["yields"] = np.array(obs["player_cities"]["yields"])
    obs["player_cities"]["yields"][0, PROD] = 0.0  # a city working only a lake
    text = "\n".join(TextView(obs, env.options, 0).cities())
    assert "No production: every build waits until the city works a tile with production" in text
