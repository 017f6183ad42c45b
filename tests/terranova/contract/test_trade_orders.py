"""Trade in words: the text orders (offer, accept, deny, caravans) with errors naming the bad order,
the checks against the player's options, the text view's trade section, the news of deals, and a
text offer played through the adapter."""

from __future__ import annotations

import re

import numpy as np
import pytest

from hexarena.core.errors import MoveParseError
from hexarena.games.terranova.contract.judge import judge
from hexarena.games.terranova.contract.orders import parse_orders
from hexarena.games.terranova.contract.text.news import Facts, trade_news
from hexarena.games.terranova.contract.text.trade import trade_section
from hexarena.games.terranova.engine.rules import trade
from hexarena.games.terranova.engine.tables import load_tables

from ..engine.test_trade_deals import game_where_all_have_met

TB = load_tables()
SILK = 3 + TB.resource("silk")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("offer blue: 5 gold/turn for peace", {"to": [1], "offer": ["gold_per_turn"], "ask": ["peace"]}),
        ("Offer 2 embassy for Silk", {"to": [2], "offer": ["embassy"], "ask": ["silk"]}),
        ("offer yellow: gold per turn for iron", {"to": [3], "offer": ["gold_per_turn"], "ask": ["iron"]}),
        ("accept red, green; deny yellow", {"accept": [0, 2], "deny": [3]}),
    ],
)
def test_trade_orders_parse(text, expected):
    assert parse_orders(text) == {"fill": "heuristic", "trade": expected}


def test_caravan_orders_parse():
    move = parse_orders("unit 3 send 12,40; unit 4 relocate 10,10")
    assert move["units"] == {
        "3": {"category": "send_caravan", "target": [12, 40]},
        "4": {"category": "move_caravan", "target": [10, 10]},
    }


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("offer blue: unicorns for peace", "unknown trade item 'unicorns'"),
        ("offer blue 5 gold", "write an offer as 'offer PLAYER: ITEM for ITEM'"),
        ("offer teal: peace for peace", "unknown player 'teal'"),
        ("accept", "accept whose offer?"),
    ],
)
def test_bad_trade_orders_name_the_order(text, message):
    with pytest.raises(MoveParseError, match=message) as err:
        parse_orders(text)
    assert "order '" in str(err.value)


def test_a_second_offer_in_a_turn_is_refused_alone():
    move = parse_orders("offer blue: peace for peace; offer red: peace for peace")
    assert move["trade"]["to"] == [1] and move["unread"] == [
        ["offer red: peace for peace", "one trade offer per turn"]
    ]


def _obs_opts(offers=None):
    obs = {
        "units": {"unit_type": np.zeros((6, 30), int)},
        "player_cities": {"city_ids": np.zeros((6, 10), int)},
        "trade_offers": np.full((6, 2), -1) if offers is None else offers,
        "have_met": np.array([1, 1, 0, 1, 1, 1] + [0] * 12),
        "trade_length_ledger": np.zeros(10, int),
    }
    opts = {
        "trade_partners": np.array([False, True, False, False, False, False]),
        "trade_offer": np.zeros((6, 56), bool),
        "trade_ask": np.zeros((6, 56), bool),
    }
    opts["trade_offer"][1, [trade.EMBASSY, trade.PEACE]] = True
    opts["trade_ask"][1, [trade.EMBASSY, SILK]] = True
    return obs, opts


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (
            "offer green: embassy for embassy",
            r"green cannot take an offer now: you have not met green yet",
        ),
        ("offer red: embassy for embassy", r"red cannot take an offer now: that is you"),
        ("offer yellow: embassy for embassy", "yellow has no free ledger slot or nothing it could give you"),
        ("offer blue: silk for embassy", "you cannot give silk now"),
        ("offer blue: embassy for peace", "blue cannot give peace now"),
        ("accept blue", "blue has made you no offer"),
    ],
)
def test_trade_orders_checked_against_the_options(text, message):
    obs, opts = _obs_opts()
    judged = judge(parse_orders(text), obs, opts, 0)
    assert "trade" not in judged.move and re.search(message, judged.refused[0])


def test_an_offer_with_a_full_ledger_says_so():
    obs, opts = _obs_opts()
    obs["trade_length_ledger"] = np.full(10, 3)
    judged = judge(parse_orders("offer yellow: embassy for embassy"), obs, opts, 0)
    assert "your ledger is full (10 running deals)" in judged.refused[0]


def test_legal_trade_orders_pass_the_check():
    offers = np.full((6, 2), -1)
    offers[1] = [SILK, trade.GOLD_PER_TURN]
    obs, opts = _obs_opts(offers)
    judged = judge(parse_orders("offer blue: embassy for silk; accept blue"), obs, opts, 0)
    assert not judged.refused and judged.move["trade"] == {
        "to": [1],
        "offer": ["embassy"],
        "ask": ["silk"],
        "accept": [1],
    }


def test_text_section_and_news():
    offers = np.full((6, 2), -1)
    offers[1] = [SILK, trade.GOLD_PER_TURN]  # blue asks silk, offers 5 gold a turn
    ledger = np.full((6, 10, 2), -1)
    ledger[2, 0] = [trade.EMBASSY, trade.PEACE]
    units = {
        "unit_type": np.zeros((6, 30), int),
        "trade_to_player_int": np.full(30, -1),
        "trade_to_city_int": np.full(30, -1),
        "trade_yields": np.zeros((30, 2, 10)),
    }
    units["unit_type"][0, 3] = TB.unit("caravan")
    units["trade_to_player_int"][3], units["trade_to_city_int"][3] = 1, 0
    units["trade_yields"][3, 0, 2] = 3.0
    obs = {
        "trade_offers": offers,
        "trade_ledger": ledger,
        "trade_length_ledger": np.array([12] + [0] * 9),
        "trade_gpt_adjustment": 0.0,
        "trade_resource_adjustment": np.zeros(52),
        "at_war": np.zeros((6, 6), int),
        "units": units,
        "num_trade_routes": 6,
    }
    _, opts = _obs_opts()
    text = "\n".join(trade_section(obs, opts, 0))
    assert "Offer from blue: 5 gold/turn for your silk (answer 'accept blue'" in text
    assert "with green you give embassy, get peace (12 turns left)" in text
    assert "'offer blue: embassy for embassy'" in text
    assert "Caravans: 1 of 6 allowed; routes: unit 3 to blue city 0 (+3.0 gold" in text
    blank = np.zeros((6, 6, 2), np.int8)
    before = Facts(*(np.zeros(1),) * 4, offers=blank, deals=np.zeros((6, 6), int))
    now_offers = blank.copy()
    now_offers[1, 0] = [trade.GOLD_PER_TURN, SILK]
    deals = np.zeros((6, 6), int)
    deals[0, 2] = 1
    now = Facts(*(np.zeros(1),) * 4, offers=now_offers, deals=deals)
    assert trade_news(before, now, 0) == [
        "Deal offered: blue offers 5 gold/turn for your silk ('accept blue' or 'deny blue').",
        "Deal agreed with green (15 turns; see Trade).",
    ]


def test_a_text_offer_through_the_adapter():
    game = game_where_all_have_met()
    assert "Trade" in game.render_text("red") or "offer a deal" in game.render_text("red")
    s = game.apply(game.parse_move("offer blue: embassy for embassy"))
    assert s.message is None and s.environment.executed[0][1:] == [trade.EMBASSY, trade.EMBASSY, 1]
    assert "Offer from red: embassy for your embassy" in s.render_text("blue")
    bad = s.apply(s.parse_move("offer red: silk for peace"))
    assert "you cannot give silk now" in bad.message
    s = s.apply(s.parse_move("accept red"))
    assert s.message is None and s.environment.executed[0][0][0] == 1


def test_the_bot_makes_peace_unless_clearly_winning():
    from hexarena.games.terranova.bots.trade import peace_plan

    kinds = np.zeros((6, 30), int)
    kinds[0, :2] = TB.unit("warrior")  # we have 2 soldiers
    kinds[1, :3] = TB.unit("warrior")  # blue shows 3
    kinds[2, :1] = TB.unit("warrior")  # green shows 1
    war = np.zeros((6, 6), int)
    war[0, [1, 2, 3]] = 1
    offers = np.full((6, 2), -1)
    offers[3] = [trade.PEACE, trade.PEACE]  # yellow offers peace
    offers[4] = [SILK, trade.GOLD_PER_TURN]
    obs = {"units": {"unit_type": kinds}, "at_war": war, "trade_offers": offers}
    plan = peace_plan(obs, 0)
    # 2 soldiers against green's 1 is winning (2 >= 2 x 1); against blue's 3 it is not.
    assert plan == {"accept": [3], "to": [1], "ask": ["peace"], "offer": ["peace"]}
    assert peace_plan({**obs, "at_war": np.zeros((6, 6), int), "trade_offers": np.full((6, 2), -1)}, 0) == {}
