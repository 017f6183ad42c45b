"""Moves as the text orders people and models type (:mod:`.orders`), with places as ``R,C``.

One notation wherever a move is read: the viewer's move log and status line, the numbered legal
moves a model is shown, a refused order's report. An order-form move (``"fill"``, what
:func:`.orders.parse_orders` returns and the legal moves are) is written in full, so its text
reads back as the same move. A preference move (a bot's or a program's sparse JSON, ranking
many options per endpoint) is summarised: each endpoint's first choices, the rest counted.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hexarena.core.frozen import thaw
from hexarena.games.terranova.engine.geometry import COLS
from hexarena.games.terranova.engine.tables import ROLES, load_tables

SHOWN = 3  # ranked choices a preference move's summary shows per endpoint
VERBS = {"move": "move", "combat": "attack", "send_caravan": "send", "move_caravan": "relocate"}
PASS = "pass"


def place(target: Any) -> str:
    """A target tile (index or ``[row, col]``) as orders write it, ``R,C``."""
    if isinstance(target, Sequence) and not isinstance(target, str):
        row, col = (int(v) for v in target)
    else:
        row, col = divmod(int(target), COLS)
    return f"{row},{col}"


def _name(value: Any, names: Sequence[str]) -> str:
    return names[value] if isinstance(value, int) and 0 <= value < len(names) else str(value)


def _ranked(values: Sequence[Any], names: Sequence[str], full: bool) -> str:
    items = [_name(v, names) for v in values]
    if full or len(items) <= SHOWN:
        return ", ".join(items)
    return f"{', '.join(items[:SHOWN])} (+{len(items) - SHOWN} more)"


def _item(value: Any) -> str:
    from hexarena.games.terranova.contract.text.trade import item_text
    from hexarena.games.terranova.engine.rules.trade import item_names

    return item_text(item_names().index(value) if isinstance(value, str) else int(value))


def _player(value: Any) -> str:
    return ROLES[int(value)] if str(value).isdigit() else str(value)


def unit_text(slot: Any, order: Mapping[str, Any], full: bool = True) -> str:
    """One unit's order: ``unit 3 move 12,40``, ``unit 0 settle``, ``unit 5 build farm``; a
    ranked preference reads ``unit 0 settle or move 21,33 (+11 more)``."""
    tb = load_tables()
    cats = [order["category"]] if "category" in order else list(order.get("categories", ()))
    targets = [order["target"]] if "target" in order else list(order.get("targets", ()))
    parts = []
    for cat in cats[: None if full else SHOWN]:
        name = _name(cat, tb.category_names)
        if name in VERBS:
            where = f" {place(targets[0])}" if targets else ""
            more = f" (+{len(targets) - 1} more)" if len(targets) > 1 else ""
            parts.append(f"{VERBS[name]}{where}{more}")
        else:
            parts.append(name if name == "settle" else f"build {name}")
    return f"unit {slot} " + " or ".join(parts or ["(no order)"])


def _trade(trade: Mapping[str, Any]) -> list[str]:
    out = []
    if trade.get("to"):
        ask = trade.get("ask", [])
        if isinstance(ask, Mapping):  # per partner: the first partner's wishes
            ask = next(iter(ask.values()), [])
        give = f"{_item(trade['offer'][0])}" if trade.get("offer") else "?"
        want = f"{_item(ask[0])}" if ask else "?"
        out.append(f"offer {_player(trade['to'][0])}: {give} for {want}")
    for key in ("accept", "deny"):
        if trade.get(key):
            out.append(f"{key} {', '.join(_player(q) for q in trade[key])}")
    return out


def order_texts(move: Any) -> list[str]:
    """The orders of a sparse move, one text each (an empty list: the move passes)."""
    from hexarena.games.terranova.contract.moves import buildable_names

    tb = load_tables()
    move = thaw(move)
    if not isinstance(move, Mapping):
        return [f"a dense preference move ({type(move).__name__})"]
    full = "fill" in move
    out = []
    if "tech" in move:
        out.append(f"research {_ranked(move['tech'], tb.tech_names, full)}")
    if "policy" in move:
        out.append(f"policy {_ranked(move['policy'], tb.policy_names, full)}")
    if "tenet" in move:
        out.append(f"tenet {_ranked(move['tenet'], tb.tenet_names, full)}")
    out += _trade(move.get("trade", {}))
    for slot, order in move.get("units", {}).items():
        out.append(unit_text(slot, order, full))
    names = buildable_names()
    builds: dict[str, list[str]] = {}  # a preference's same ranking for many cities: said once
    for slot, items in move.get("build", {}).items():
        key = _ranked(items, names, full)
        builds.setdefault(key if not full else f"{slot}:{key}", []).append(str(slot))
    for key, slots in builds.items():
        out.append(f"city {', '.join(slots)} build {key.split(':', 1)[1] if full else key}")
    for slot, places in move.get("work_tiles", {}).items():
        out.append(f"city {slot} work {', '.join(place(p) for p in places)}")
    for slot, ranked in move.get("work", {}).items():
        out.append(f"city {slot} work its {len(ranked)} best tiles")
    out += [str(text) for text, _why in move.get("unread", ())]
    return out


def move_text(move: Any) -> str:
    """A move in the orders' notation (``pass`` when it gives no order)."""
    return "; ".join(order_texts(move)) or PASS
