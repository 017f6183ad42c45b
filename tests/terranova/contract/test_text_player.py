"""A scripted player that reads only ``render_text`` and answers text orders plays a whole game
without an invalid order: it founds cities, researches, builds, adopts policies and trades (answers
the offers its text shows, makes the offers its text suggests, sends caravans to the city states
and cities its text lists). The other five seats answer ``pass`` (every endpoint follows the
default, the heuristic bot's preferences)."""

from __future__ import annotations

import re

import numpy as np
import pytest

import hexarena
from hexarena.games.terranova.engine.tables import load_tables

UNIT = re.compile(r"^Unit (\d+) (\w+) at \((\d+), (\d+)\)")
CITY = re.compile(r"^City (\d+) \(")
PLACE = re.compile(r"\((\d+), (\d+)\)")
ADOPTABLE = re.compile(r"^  (\w+) \((\w+)\): ")
WANTED = ("monument", "settler", "caravan", "worker", "granary", "library", "warrior")
OFFER_FROM = re.compile(r"^Offer from (\w+): (.+) for your (.+) \(answer")
MAY_OFFER = re.compile(
    r"^You may offer a deal .*; to (\w+) you could give (.+) and ask (.+) \(e\.g\. '(.+)'\)\.$"
)
SEND_TO = re.compile(r"send a trade route to (.+?)(?:; relocate to |\.$)")
DESTINATION = re.compile(r"(city state #\d+|your city \d+|\w+ city) \((\d+), (\d+)\)")


def trade_orders(lines: list[str]) -> list[str]:
    """Answer every offer shown (deny those asking for gold, accept the rest); make an offer to the
    player the text suggests: an embassy for an embassy, else a resource for a resource, else the
    text's own example."""
    orders = []
    for line in lines:
        if m := OFFER_FROM.match(line):
            orders.append(f"{'deny' if 'gold' in m.group(3) else 'accept'} {m.group(1)}")
        elif m := MAY_OFFER.match(line):
            give, ask = m.group(2).split(", "), m.group(3).split(", ")
            goods = [
                [i for i in items if i not in ("peace", "5 gold/turn", "embassy")] for items in (give, ask)
            ]
            if "embassy" in give and "embassy" in ask:
                orders.append(f"offer {m.group(1)}: embassy for embassy")
            elif all(goods):
                orders.append(f"offer {m.group(1)}: {goods[0][0]} for {goods[1][0]}")
            else:
                orders.append(m.group(4))
    return orders


def caravan_order(slot: str, detail: str) -> str | None:
    """A caravan's route, from the destinations its "Can:" line lists: a city state first (the
    influence), else the first city listed."""
    m = SEND_TO.search(detail)
    if m is None:
        return None
    places = DESTINATION.findall(m.group(1))
    _name, row, col = next((p for p in places if p[0].startswith("city state")), places[0])
    return f"unit {slot} send {row},{col}"


def orders_from_text(text: str) -> str:
    """Orders for the player whose view ``text`` is (the script's whole knowledge of the game)."""
    lines = text.splitlines()
    orders = []
    if "not researching" in text:
        can = next(line for line in lines if line.startswith("Can research: "))
        orders.append("research " + can.removeprefix("Can research: ").split(" ")[0])
    if "Can adopt now (" in text:  # the last one listed: not the default's choice (Tradition first)
        start = next(i for i, line in enumerate(lines) if line.startswith("Can adopt now ("))
        listed = [m.group(1) for line in lines[start + 1 :] if (m := ADOPTABLE.match(line))]
        orders.append(f"policy {listed[-1].replace('_', ' ')}")
    n_cities = sum(1 for line in lines if CITY.match(line))
    for i, line in enumerate(lines):
        unit = UNIT.match(line)
        if unit:
            slot, kind = unit.group(1), unit.group(2)
            detail = lines[i + 1] if i + 1 < len(lines) else ""
            reach = lines[i + 2] if i + 2 < len(lines) and lines[i + 2].startswith("  Reach") else ""
            if detail.startswith("  Busy"):
                continue
            if kind == "caravan":  # it trades from the city it stands in: it never walks away
                send = caravan_order(slot, detail)
                orders += [send] if send else []
            elif "settle here" in detail and kind == "settler":
                orders.append(f"unit {slot} settle")
            elif kind == "worker" and "build " in detail:
                build = detail.split("build ", 1)[1].split(";")[0].split(",")[0].strip(" .")
                orders.append(f"unit {slot} build {build}")
            elif reach:
                row, col = PLACE.search(reach.split(":", 1)[1]).groups()
                orders.append(f"unit {slot} move {row},{col}")
        city = CITY.match(line)
        if city and any("Building nothing" in lines[j] for j in range(i + 1, min(i + 5, len(lines)))):
            offer = next(lines[j] for j in range(i + 1, len(lines)) if lines[j].startswith("  Can build"))
            items = [item.split(" ")[0] for item in offer.split(": ", 1)[1].split(", ")]
            wanted = [w for w in WANTED if w in items and (w != "settler" or n_cities < 4)]
            orders.append(f"city {city.group(1)} build {(wanted or items)[0]}")
    return "; ".join(orders + trade_orders(lines)) or "pass"


def play(rounds: int, seed: int = 5) -> tuple[hexarena.GameState, int, str]:
    """The finished game, red's number of moves and every report of what red's last move did and
    of the trade it was shown (deals agreed, caravans and their routes)."""
    state = hexarena.make("terranova", seed=seed, turn_cap=rounds)
    moves, did = 0, []
    while not state.is_over():
        role = state.roles[0]
        text = state.query_game(role).render_text(role) if role == "red" else "pass"
        answer = orders_from_text(text) if role == "red" else text
        reports = ("Your last move did:", "Caravans:", "Deals (")
        did += [line for line in text.splitlines() if line.startswith(reports) or "Deal agreed" in line]
        assert "Refused:" not in text, (
            f"round {state.rounds_played()}: an order built from the text was refused"
        )
        if role == "red" and re.search(r"\b(offer|accept) ", answer):
            did.append(f"Trade orders: {answer}")
        nxt = state.apply(state.parse_move(answer))
        assert nxt.message is None, f"round {state.rounds_played()}: {answer!r} rejected: {nxt.message}"
        moves += role == "red"
        state = nxt
    return state, moves, "\n".join(did)


def _check(state: hexarena.GameState, did: str, min_cities: int, min_techs: int) -> None:
    """The game's end, and the text's own reports of red's orders: a city founded, research
    started, a build started (what the script's orders asked for, executed)."""
    assert re.search(r"unit \d+ settle", did) and "started researching" in did
    assert re.search(r"city \d+ started (monument|settler|worker|granary|library|warrior)", did)
    final = state.environment.state
    assert int(final.cities.exists[0].sum()) >= min_cities
    assert int(final.players.techs[0].sum()) >= min_techs
    assert int(final.cities.buildings[0].sum()) >= 2  # the palace and at least one built
    adopted = {load_tables().policy_names[p] for p in np.flatnonzero(final.players.policies[0])}
    assert "piety_opener" in adopted  # ordered through the text: the default would take Tradition


def test_text_player_founds_researches_and_builds_over_25_rounds():
    state, moves, did = play(25)
    assert moves == 25
    assert "adopted piety_opener" in did  # the text reports the policy adopted on red's turn
    _check(state, did, min_cities=1, min_techs=3)


@pytest.mark.slow
def test_text_player_plays_100_rounds_without_an_invalid_order():
    state, moves, did = play(100)
    assert moves == 100
    _check(state, did, min_cities=3, min_techs=8)
    # it traded: a deal its orders made or accepted ran, and a caravan it sent opened a route
    assert "Trade orders: " in did and "Deal agreed with" in did and "Deals (" in did
    assert re.search(r"unit \d+ send", did) and re.search(r"routes: unit \d+ to city state #", did)
    assert re.search(r"Your last move did: offered \w+ ", did)  # the report names its own offers
    final = state.environment.state
    assert (np.asarray(final.trade.route_to_player[0]) >= 0).any()
