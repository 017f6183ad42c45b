"""The text view (summary, places, options, news) and the compact text orders."""

from __future__ import annotations

import re

import numpy as np
import pytest

import hexarena
from hexarena.core.errors import MoveParseError
from hexarena.games.terranova.contract.orders import parse_orders
from hexarena.games.terranova.contract.text.news import Facts, news
from hexarena.games.terranova.engine.tables import load_tables


@pytest.fixture(scope="module")
def game():
    return hexarena.make("terranova", seed=1, turn_cap=30)


def test_first_turn_view_has_the_summary_then_places_and_options(game):
    text = game.query_game("red").render_text("red")
    heads = (
        "== Empire ==",
        "== Technologies ==",
        "== Social policies ==",
        "== Great people and tourism ==",
        "== Cities ==",
        "== Units ==",
    )
    sections = [text.index(s) for s in heads]
    assert sections == sorted(sections)
    assert "Treasury 0 gold" in text and "not researching: order one" in text
    assert "Can research: pottery 35" in text and "Known technologies (1): agriculture." in text
    assert re.search(r"Unit 0 settler at \(\d+, \d+\) ", text) and "Can: settle here" in text
    assert re.search(r"Reach \(\d+ tiles, best first\): \(\d+, \d+\) \w+", text)
    assert "Diplomacy: blue not met;" in text and "== Units ==" in text
    assert "Culture 0/15 toward the next policy (+0.0 per turn, never at this rate)" in text
    assert "Adopted (0): none yet." in text
    assert "Can adopt when culture allows (4; 'help policies' gives effects): tradition_opener," in text
    assert (
        "  tradition_opener (tradition): +3 culture in the capital; border cost pct -15."
        in game.query_game("red").look("help policies")
    )
    assert "Trees opening later: patronage (medieval era)," in text
    for absent in ("Golden age", "Free policies", "Trade:", "Great-person"):  # no live data yet
        assert absent not in text
    assert "No pantheon yet." in text and "Faith 0; next: a pantheon at 10 faith." in text
    assert "Specialists: none (their buildings give them)." in text
    assert "Great person points (next great person at 67): none yet." in text
    assert "unit N settle" in text and "policy P;" in text  # the orders help


def test_views_differ_by_role_and_the_full_state_renders_its_mover(game):
    red, blue = game.query_game("red").render_text("red"), game.query_game("blue").render_text("blue")
    assert "You are red" in red and "You are blue" in blue
    first = lambda t: re.search(r"Unit 0 settler at (\(\d+, \d+\))", t).group(1)  # noqa: E731
    assert first(red) != first(blue)
    assert game.render_text() == red


def test_orders_are_read_leniently():
    move = parse_orders(
        "Research Animal Husbandry, pott ;CITY 0 build Granary, great library\n"
        "unit 3 move to (12, 40); unit 4 settle; unit 5 chop forest; unit 6 build farm; city 1 work 3,4 5 6"
    )
    assert move["fill"] == "heuristic" and move["tech"] == ["animal_husbandry", "pottery"]
    assert move["build"] == {"0": ["granary", "great_library"]}
    assert move["units"] == {
        "3": {"category": "move", "target": [12, 40]},
        "4": {"category": "settle"},
        "5": {"category": "chop_forest"},
        "6": {"category": "farm"},
    }
    assert move["work_tiles"] == {"1": [[3, 4], [5, 6]]}


def test_two_orders_for_one_city_add_up_the_first_ranked_first():
    move = parse_orders(
        "city 0 build granary; city 0 build library, granary; city 0 work 3,4; city 0 work 5,6"
    )
    assert move["build"] == {"0": ["granary", "library"]}
    assert move["work_tiles"] == {"0": [[3, 4], [5, 6]]}


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("policy flying carpets", "unknown policy 'flying carpets'"),
        ("adopt", "adopt which policy?"),
        ("policy tradition_openr", "did you mean tradition_opener"),
        ("offer blue: 5 gold/turn for unicorns", "unknown trade item 'unicorns'"),
        ("tenet flying carpets", "unknown tenet 'flying carpets'"),
        ("religion", "which tenet?"),
        ("research flying carpets", "unknown technology 'flying carpets'"),
        ("research writting", "did you mean writing"),
        ("unit x move 1,2", "the unit must be a number"),
        ("unit 2 move 99,1", "off the map"),
        ("unit 2 move north", "expected a place as ROW,COL"),
        ("unit 2 wait", "a unit holds its tile by a move onto it"),
        ("city 0 dance", "a city can 'build' or 'work'"),
        ("build granary", "not understood"),
    ],
)
def test_bad_orders_name_the_order(text, says):
    with pytest.raises(MoveParseError, match=re.escape(says)) as err:
        parse_orders(text)
    assert f"order {text!r}" in str(err.value)
    if says == "not understood":  # no order at all: the whole text is no move (issue 27: no move from prose)
        with pytest.raises(MoveParseError, match="a move is orders only"):
            parse_orders(f"research pottery; {text}")
        return
    # beside a readable order it is kept as refused, with the same reason (issue 26)
    (order, why), *_ = parse_orders(f"research pottery; {text}")["unread"]
    assert order == text and says in why


def test_orders_through_the_contract_check_options_and_fill_the_rest(game):
    rejected = game.apply(game.parse_move("unit 1 move 0,0"))
    assert "unit 1 move 0,0 ((0, 0) is not one of its" in rejected.message
    assert rejected.environment is game.environment  # nothing changed
    assert "you have no unit 7" in game.apply(game.parse_move("unit 7 settle")).message
    assert "you have no city 0" in game.apply(game.parse_move("city 0 build monument")).message
    played = game.apply(game.parse_move("research mining; unit 0 settle"))
    assert played.message is None
    executed = played.environment.executed
    tb = load_tables()
    assert tb.tech_names[executed[3][0]] == "mining" and executed[4][0][0] == tb.category_names.index(
        "settle"
    )
    assert executed[4][0][1] >= 0  # the warrior was not mentioned: the default moved it
    assert game.apply(game.parse_move('{"tech": ["mining"]}')).message is None  # JSON still works
    later = played
    for _ in range(5):
        later = later.apply(later.parse_move("pass"))
    text = later.query_game("red").render_text("red")
    assert "Your last move did: started researching mining; unit 0 settle;" in text
    assert "Unit 0 " not in text and "City 0 (capital)" in text


def _facts(**changes):
    base = {
        "met": np.eye(6, 18, dtype=bool),
        "at_war": np.zeros((6, 6), bool),
        "city_pos": np.full((6, 10), -1),
        "wonders": np.zeros((6, 148), bool),
    }
    for key, (index, value) in changes.items():
        base[key] = base[key].copy()
        base[key][index] = value
    return Facts(**base)


def test_news_reports_contacts_wars_cities_and_wonders_only_as_known():
    seen = np.zeros(2772, bool)
    seen[100] = True
    before = _facts(city_pos=((0, 0), 500))
    now = Facts(
        met=before.met | np.eye(6, 18, k=1, dtype=bool) | np.eye(6, 18, k=8, dtype=bool),
        at_war=before.at_war.copy(),
        city_pos=before.city_pos.copy(),
        wonders=before.wonders.copy(),
    )
    now.at_war[0, 1] = now.at_war[1, 0] = True
    now.city_pos[2, 0] = 100  # green founds where red has looked
    now.city_pos[3, 0] = 200  # yellow founds out of red's sight
    now.city_pos[0, 0] = -1
    now.city_pos[1, 1] = 500  # blue took red's city
    now.wonders[4, 7] = True
    lines = news(before, now, 0, seen)
    assert "You met blue." in lines and "You met city state #2." in lines
    assert any(line.startswith("War: blue declared war on you on its turn") for line in lines)
    assert "Green founded a city at (1, 34)." in lines
    assert not any("yellow" in line.lower() for line in lines)
    assert "Blue took your city at (7, 38)." in lines
    assert any(line.startswith("Purple completed the world wonder") for line in lines)
    assert news(None, now, 0, seen) == []


def test_text_orders_through_the_manager_reject_a_bad_order_and_record_the_reason(tmp_path):
    import json

    from hexarena.core.config import parse_config
    from hexarena.core.manager import GameManager
    from hexarena.core.players import ScriptedPlayer

    roles = ("red", "blue", "green", "yellow", "purple", "orange")
    raw = {
        "game": {"name": "terranova", "seed": 1, "params": {"turn_cap": 1}},
        "players": [{"type": "random", "roles": [r], "seed": i} for i, r in enumerate(roles)],
        "output": {"dir": str(tmp_path)},
    }
    red = ScriptedPlayer(
        ["religion zen", "policy patronage", "policy liberty; research mining; unit 0 settle"], as_text=True
    )
    result = GameManager(parse_config(raw, "test"), raw_config=raw, players={"red": red}).start()
    assert result.invalid["red"] == 2 and result.outcome.kind == "win"
    events = [json.loads(line) for line in (tmp_path / "turns.jsonl").read_text().splitlines()]
    messages = [e.get("message") for e in events if e.get("role") == "red" and e.get("message")]
    assert "unknown tenet 'zen'" in messages[0] and "not adoptable now" in messages[1]
    accepted = next(e for e in events if e.get("event") == "move" and e.get("role") == "red")
    assert accepted["move"]["fill"] == "heuristic" and accepted["move"]["tech"] == ["mining"]
    assert accepted["move"]["policy"] == ["liberty_opener"]


def test_policy_orders_name_policies_leniently():
    from hexarena.games.terranova.contract import moves, orders

    move = orders.parse_orders("Policy Liberty, landed elite; research pottery")
    assert move["policy"] == ["liberty_opener", "landed_elite"]
    dense = moves.to_dense({"policy": move["policy"]})
    tb = load_tables()
    assert np.argmax(dense[1]) == tb.policy("liberty_opener") and dense[1][tb.policy("landed_elite")] > 0
    with pytest.raises(MoveParseError, match=r"unknown policy 'zen'.*\(adoptable now: a, b\)"):
        orders.parse_orders("adopt zen", lambda: ["a", "b"])


def test_policy_orders_through_the_contract_name_the_adoptable_policies(game):
    can = "adoptable now: tradition_opener, liberty_opener, honor_opener, piety_opener"
    locked = game.apply(game.parse_move("policy patronage"))
    assert "policy patronage_opener (not adoptable now" in locked.message and can in locked.message
    assert locked.environment is game.environment
    with pytest.raises(MoveParseError, match=re.escape(f"unknown policy 'zen' ({can})")):
        game.parse_move("policy zen")
    assert game.parse_move("policy zen; unit 0 settle")["unread"][0][1] == f"unknown policy 'zen' ({can})"
    played = game.apply(game.parse_move("policy piety; unit 0 settle"))
    assert played.message is None


def test_policy_section_mid_game_lists_adopted_by_tree_free_policies_and_golden_age(game):
    import dataclasses

    tb = load_tables()
    sim = game.environment.state
    chosen = np.array([tb.policy("tradition_opener"), tb.policy("legalism"), tb.policy("liberty_opener")])
    players = sim.players._replace(
        policies=sim.players.policies.at[0, chosen].set(True),
        free_policies=sim.players.free_policies.at[0].set(1),
        golden_age_turns=sim.players.golden_age_turns.at[0].set(3),
    )
    env = dataclasses.replace(game.environment, state=sim._replace(players=players))
    text = dataclasses.replace(game, environment=env).render_text("red")
    section = text[text.index("== Social policies ==") : text.index("== Cities ==")]
    assert "Adopted (3): tradition: tradition_opener, legalism; liberty: liberty_opener." in section
    assert "Free policies pending: 1" in section and "Golden age: 3 turns left." in section
    assert "  landed_elite (tradition): +2 food in the capital; +15% food in the capital." in section
    assert "  collective_rule" not in section  # needs republic first
    assert "tradition_opener (" not in section  # adopted: no longer offered


def test_the_move_report_names_answers_offers_and_caravan_routes():
    from hexarena.games.terranova.contract.text.view import describe_executed
    from hexarena.games.terranova.engine.rules.trade import EMBASSY, GOLD_PER_TURN

    cats, targets = [-1] * 30, [-1] * 30
    cats[8], targets[8] = load_tables().category_names.index("send_caravan"), 14 * 66 + 33
    executed = [
        [[-1, 1, 0, -1, -1, -1], GOLD_PER_TURN, EMBASSY, 1],  # answers, then (ask, offer, to)
        [-1, -1],
        [-1, -1, -1],
        [-1, -1],
        [cats, targets],
        [[-1] * 10, [-1] * 10],
    ]
    assert describe_executed(executed) == (
        "accepted blue's offer; denied green's offer; offered blue embassy for 5 gold/turn; "
        "unit 8 send (14, 33)"
    )
