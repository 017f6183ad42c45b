"""Compact text orders: many endpoints in one move, the rest filled by the heuristic bot.

::

    research Writing; city 0 build Granary; unit 3 move 12,40; unit 4 settle; unit 5 build farm

Orders are separated by ``;`` or new lines (two for one city's build or tiles add up, the first
ranked first) and read leniently: any case and spacing, names with
spaces, hyphens or underscores (``Animal Husbandry``), a unique prefix of a name, numbers for
slots and places as ``12,40``, ``(12, 40)`` or ``12 40``. Verbs:

=====================================  =====================================================
``research T[, T...]``                 technologies, most wanted first (also ``tech``)
``city N build B[, B...]``             what city N starts when it is free (also ``produce``)
``city N work R,C[; R,C...]``          tiles its citizens work, best first (also ``tiles``)
``unit N move R,C`` (``go``, ``explore``)  move unit N
``unit N settle`` (``found``)          found a city on the unit's tile
``unit N attack R,C``                  attack there, moving into striking distance first if
                                       needed (entering closed borders declares war)
``unit N build I`` or ``unit N I``     a worker build: farm, mine, road, chop forest...
``policy P[, P...]`` (``adopt``)       social policies, most wanted first (``Tradition`` is
                                       the tree's opener); adopted when culture allows
``tenet T[, T...]`` (``religion``)     religious tenets, most wanted first: a pantheon, then a
                                       founder and two followers, an enhancer, a reformation
                                       tenet; taken when faith allows
``offer PLAYER: X for Y``              a trade offer: give X, receive Y (items: embassy,
                                       gold per turn (``5 gold/turn``), peace, a resource)
``accept PLAYER[, ...]`` / ``deny``    answer the offers made to you (unanswered: denied)
``unit N send R,C`` (``trade``)        a caravan opens a trade route to the city there
``unit N relocate R,C``                a caravan moves to another of your cities
=====================================  =====================================================

:func:`parse_orders` turns the text into the sparse JSON move of :mod:`.moves` with
``"fill": "heuristic"``. When it is played, each order is judged on its own (:mod:`.judge`): the
ones the player can carry out are kept, the others are refused with what they lack and reported
in the player's next view; every endpoint the move does not mention (the technology, a unit, a
city) gets the heuristic bot's preferences (:func:`~.bots.heuristic.default_orders`), so a player
gives only the orders it cares about, and ``pass`` (or ``{}``) leaves everything to the default.
A policy order must name a policy adoptable now (the text view's "Can adopt now"); it is kept as
the preference until the culture reserves reach the cost. A tenet order must name at least one
tenet of the player's next religious stage that nobody holds (the text view's religion section); it
is kept until the faith reaches the stage's cost. A trade offer must name a player you may offer to
and items each side can give now (the text view's "Trade" section).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from hexarena.core.contract import quote_reply
from hexarena.core.errors import MoveParseError
from hexarena.games.terranova.engine.geometry import COLS, ROWS
from hexarena.games.terranova.engine.state import MAX_CITIES, MAX_UNITS
from hexarena.games.terranova.engine.tables import load_tables

FILL = "heuristic"
POLICY_VERBS = ("policy", "policies", "adopt")
TENET_VERBS = ("tenet", "tenets", "religion", "pantheon", "belief", "beliefs")
TRADE_VERBS = ("offer", "accept", "deny", "reject")
ITEM_ALIASES = {"gold": "gold_per_turn", "gpt": "gold_per_turn", "gold_turn": "gold_per_turn"}
UNIT_VERBS = {
    "move": "move",
    "go": "move",
    "explore": "move",
    "moveto": "move",
    "settle": "settle",
    "found": "settle",
    "attack": "combat",
    "combat": "combat",
    "fight": "combat",
    "send": "send_caravan",
    "trade": "send_caravan",
    "relocate": "move_caravan",
    "rebase": "move_caravan",
}
_PLACE = re.compile(r"^\(?\s*(-?\d+)\s*[, ]\s*(-?\d+)\s*\)?$")


def norm(name: str) -> str:
    return re.sub(r"[\s\-]+", "_", name.strip().lower()).strip("_")


def lookup(name: str, names: Sequence[str], what: str, order: str) -> str:
    """The name in ``names`` meant by ``name``: exact (normalized) or a unique prefix."""
    key = norm(name)
    pool = [n for n in names if n and n != "none"]
    if key in pool:
        return key
    starts = [n for n in pool if n.startswith(key)] if key else []
    if len(starts) == 1:
        return starts[0]
    close = starts[:5] or difflib.get_close_matches(key, pool, n=4, cutoff=0.6)
    hint = f"; did you mean {', '.join(close)}?" if close else ""
    raise MoveParseError(f"order {quote_reply(order)}: unknown {what} {name.strip()!r}{hint}")


def place(text: str, order: str) -> list[int]:
    m = _PLACE.match(text.strip())
    if not m:
        raise MoveParseError(f"order {quote_reply(order)}: expected a place as ROW,COL, got {text.strip()!r}")
    row, col = int(m.group(1)), int(m.group(2))
    if not (0 <= row < ROWS and 0 <= col < COLS):
        raise MoveParseError(
            f"order {quote_reply(order)}: ({row}, {col}) is off the map "
            f"(rows 0-{ROWS - 1}, cols 0-{COLS - 1})"
        )
    return [row, col]


def _slot(text: str, size: int, what: str, order: str) -> str:
    if not text.isdigit() or not 0 <= int(text) < size:
        raise MoveParseError(
            f"order {quote_reply(order)}: {what} must be a number 0-{size - 1}, got {text!r}"
        )
    return str(int(text))


def _split_list(text: str) -> list[str]:
    return [t for t in (x.strip() for x in re.split(r",|\band\b", text)) if t]


def _places(text: str, order: str) -> list[list[int]]:
    chunks = re.findall(r"\(?\s*-?\d+\s*[, ]\s*-?\d+\s*\)?", text)
    if not chunks or re.sub(r"\(?\s*-?\d+\s*[, ]\s*-?\d+\s*\)?|[;,\s]|\band\b", "", text):
        raise MoveParseError(f"order {quote_reply(order)}: expected places as ROW,COL, got {text.strip()!r}")
    return [place(c, order) for c in chunks]


class NotAnOrder(MoveParseError):
    """A part of a text that starts with no order's word: prose, not an order with a mistake."""


def parse_orders(text: str, adoptable: Callable[[], Sequence[str]] | None = None) -> dict[str, Any]:
    """The sparse move (``"fill": "heuristic"``) of a text of orders; MoveParseError names a bad one
    (an unknown policy with the policies ``adoptable()`` now, when the caller can say). An order
    that cannot be read is kept with its reason under ``"unread"`` and reported as refused, as long
    as another order of the text could be read; when none could, the text is no move at all. So is
    a text with a part that is no order at all (prose, or the harness's own feedback echoed back
    with its example orders): a move is read from orders only, never from prose around them."""
    move: dict[str, Any] = {"fill": FILL}
    orders = [o.strip() for o in re.split(r"[;\n]", text) if o.strip()]
    if not orders:
        raise MoveParseError("no orders given (an empty move is '{}' or 'pass')")
    unread: list[list[str]] = []
    for order in orders:
        try:
            _read(order, move, adoptable)
        except NotAnOrder as err:
            raise MoveParseError(f"{err}; a move is orders only, with no other text") from None
        except MoveParseError as err:
            unread.append([order, str(err).removeprefix(f"order {quote_reply(order)}: ")])
    if unread and len(unread) == len(orders):
        raise MoveParseError("; ".join(f"order {quote_reply(o)}: {why}" for o, why in unread))
    if unread:
        move["unread"] = unread
    return move


def _read(order: str, move: dict[str, Any], adoptable: Callable[[], Sequence[str]] | None) -> None:
    """Add one order to ``move`` (MoveParseError names what could not be read)."""
    from hexarena.games.terranova.contract.moves import buildable_names

    tb = load_tables()
    words = order.replace(":", " ").split()
    verb = words[0].lower()
    if verb in ("pass", "end", "done", "default", "defaults"):
        return
    if verb in POLICY_VERBS:
        move["policy"] = _policies(words[1:], order, adoptable)
        return
    if verb in TENET_VERBS:
        names = _split_list(" ".join(words[1:]))
        if not names:
            raise MoveParseError(f"order {quote_reply(order)}: which tenet? (see the religion section)")
        move["tenet"] = [lookup(n, tb.tenet_names, "tenet", order) for n in names]
        return
    if verb in TRADE_VERBS:
        _trade_order(move.setdefault("trade", {}), verb, order)
        return
    if verb in ("research", "tech", "techs", "study"):
        names = _split_list(" ".join(words[1:]))
        if not names:
            raise MoveParseError(f"order {quote_reply(order)}: research what?")
        move["tech"] = [lookup(n, tb.tech_names, "technology", order) for n in names]
    elif verb == "city" and len(words) >= 3:
        slot = _slot(words[1], MAX_CITIES, "the city", order)
        action, rest = words[2].lower(), " ".join(words[3:])
        if action in ("build", "produce", "make", "train"):
            items = _split_list(rest)
            if not items:
                raise MoveParseError(f"order {quote_reply(order)}: build what?")
            # a second order for the city ranks after the first ("city 0 build granary; city 0 build
            # library" is "city 0 build granary, library"; it replaced the first unreported)
            ranked = move.setdefault("build", {}).setdefault(slot, [])
            named = [lookup(i, buildable_names(), "item", order) for i in items]
            ranked += [n for n in dict.fromkeys(named) if n not in ranked]
        elif action in ("work", "tiles", "works"):
            worked = move.setdefault("work_tiles", {}).setdefault(slot, [])
            worked += [t for t in _places(rest, order) if t not in worked]
        else:
            raise MoveParseError(f"order {quote_reply(order)}: a city can 'build' or 'work', not {action!r}")
    elif verb == "unit" and len(words) >= 3:
        slot = _slot(words[1], MAX_UNITS, "the unit", order)
        move.setdefault("units", {})[slot] = _unit_order(words[2:], order)
    else:
        raise NotAnOrder(
            f"order {quote_reply(order)} not understood: orders start with research, policy, tenet, "
            "offer, accept, deny, city N or unit N "
            "(e.g. 'research writing; city 0 build granary; unit 3 move 12,40')"
        )


def _policies(words: list[str], order: str, adoptable: Callable[[], Sequence[str]] | None) -> list[str]:
    names = _split_list(" ".join(words))
    can = f" (adoptable now: {', '.join(adoptable()) or 'none'})" if adoptable else ""
    if not names:
        raise MoveParseError(f"order {quote_reply(order)}: adopt which policy?{can}")
    try:
        return [lookup(n, load_tables().policy_names, "policy", order) for n in names]
    except MoveParseError as err:
        raise MoveParseError(f"{err}{can}") from None


def player_of(text: str, order: str) -> int:
    """A player named by its colour (``blue``) or number (``1``)."""
    from hexarena.games.terranova.engine.tables import ROLES

    key = norm(text)
    if key.isdigit() and int(key) < len(ROLES):
        return int(key)
    if key in ROLES:
        return ROLES.index(key)
    raise MoveParseError(
        f"order {quote_reply(order)}: unknown player {text.strip()!r} (players: {', '.join(ROLES)})"
    )


def trade_item(text: str, order: str) -> str:
    """A trade item: embassy, gold per turn (``5 gold/turn``, ``gold``), peace or a resource."""
    from hexarena.games.terranova.engine.rules.trade import item_names

    key = norm(re.sub(r"^\s*\d+\s*", "", text.replace("/", " per ")))
    key = ITEM_ALIASES.get(key.replace("_per_", "_"), key)
    return lookup(key, item_names(), "trade item", order)


def _trade_order(trade: dict[str, Any], verb: str, order: str) -> None:
    body = order.split(None, 1)[1] if len(order.split(None, 1)) > 1 else ""
    if verb == "offer":
        m = re.match(r"^\s*([\w-]+)\s*:?\s*(.+?)\s+for\s+(.+)$", body, re.IGNORECASE)
        if not m:
            raise MoveParseError(
                f"order {quote_reply(order)}: write an offer as 'offer PLAYER: ITEM for ITEM', "
                "e.g. 'offer blue: 5 gold/turn for peace'"
            )
        if "to" in trade:
            raise MoveParseError(f"order {quote_reply(order)}: one trade offer per turn")
        trade["to"] = [player_of(m.group(1), order)]
        trade["offer"] = [trade_item(m.group(2), order)]
        trade["ask"] = [trade_item(m.group(3), order)]
        return
    who = [player_of(w, order) for w in _split_list(body)]
    if not who:
        raise MoveParseError(f"order {quote_reply(order)}: {verb} whose offer? name the player")
    trade.setdefault("accept" if verb == "accept" else "deny", []).extend(who)


def _unit_order(words: list[str], order: str) -> dict[str, Any]:
    tb = load_tables()
    action = words[0].lower()
    rest = " ".join(words[1:])
    if action == "move" and rest.lower().startswith("to "):
        rest = rest[3:]
    if action in UNIT_VERBS:
        category = UNIT_VERBS[action]
        if category == "settle":
            return {"category": "settle"}
        if not rest:
            raise MoveParseError(f"order {quote_reply(order)}: {action} where? give ROW,COL")
        return {"category": category, "target": place(rest, order)}
    if action in ("build", "improve", "make"):
        action, rest = rest, ""
    if action.lower() in ("skip", "wait", "sleep", "fortify", "hold"):
        raise MoveParseError(
            f"order {quote_reply(order)}: a unit holds its tile by a move onto it "
            "('unit N move ROW,COL' with its own ROW,COL, as its Can line says); "
            "leave the unit out to let the default choose"
        )
    builds = [
        c for c in tb.category_names if c not in ("move", "settle", "combat", "move_caravan", "send_caravan")
    ]
    return {"category": lookup(f"{action} {rest}", builds, "unit action", order)}


# -- completing the orders ----------------------------------------------------------------------
def with_defaults(move: Mapping[str, Any], default: Mapping[str, Any]) -> dict[str, Any]:
    """The player's orders over the default's: endpoint by endpoint (tech, each unit, each city)."""
    out: dict[str, Any] = {"tech": move.get("tech", default.get("tech", []))}
    for key in ("policy", "tenet"):  # ranked endpoints: the player's ranking or the default's
        if key in move or key in default:
            out[key] = move.get(key, default.get(key, []))
    if "trade" in move or "trade" in default:
        out["trade"] = move.get("trade", default.get("trade", {}))
    for key in ("units", "work"):
        out[key] = {**default.get(key, {}), **move.get(key, {})}
    # a city's build: the player's items, then the default's ranking (what a city founded this
    # turn starts if none of the player's items can be built there after all)
    out["build"] = dict(default.get("build", {}))
    for slot, items in move.get("build", {}).items():
        out["build"][slot] = [*items, *(i for i in default.get("build", {}).get(slot, []) if i not in items)]
    return out
