"""Text for people and LLMs: an observation rendered as a readable board, and a compact move syntax.

Moves are written ``TYPE args``: ``PICK_COMBO 2``, ``EXPAND``, ``CONQUER 14``, ``ABANDON 3 7``,
``REDEPLOY 3:4 7:1`` (region:tokens), ``PLACE_HEROES 3 7``, ``PLACE_FORTRESS none``,
``CHOOSE_DIPLOMAT_ALLY 2``, ``STOUT_DECLINE yes``. JSON action dicts are accepted too.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from hexarena.games.smallworld.data_loader import (
    get_all_powers,
    get_all_races,
    get_power_config,
    get_race_config,
)
from hexarena.games.smallworld.enums import ActionType

_PLACEMENT_TYPES = {"REDEPLOY", "PLACE_BIVOUACS", "OPPONENT_REDEPLOY"}
_LIST_TYPES = {"ABANDON", "PLACE_HEROES"}
_ONE_ID = {
    "CONQUER": "region_id",
    "FINAL_CONQUEST": "region_id",
    "USE_DRAGON": "region_id",
    "USE_SORCERER": "region_id",
    "PLACE_FORTRESS": "region_id",
    "PICK_COMBO": "index",
    "CHOOSE_DIPLOMAT_ALLY": "target_player",
}
#: One move on one line: its type (any case), then its arguments.
_MOVE_RE = re.compile(r"([A-Za-z_]+)\b([^\n]*)")
#: Short names a person or a model may use for a move type.
_ALIASES = {"PICK": "PICK_COMBO", "COMBO": "PICK_COMBO"}


def format_action(action: Mapping[str, Any]) -> str:
    """The compact text of an action dict (inverse of :func:`parse_action`)."""
    kind = str(action.get("type", "")).upper()
    if kind in _PLACEMENT_TYPES:
        pairs = sorted((int(k), int(v)) for k, v in dict(action.get("placements", {})).items())
        return " ".join([kind, *(f"{k}:{v}" for k, v in pairs)])
    if kind in _LIST_TYPES:
        return " ".join([kind, *(str(r) for r in action.get("region_ids", ()))])
    if kind in _ONE_ID:
        value = action.get(_ONE_ID[kind])
        return f"{kind} {'none' if value is None else value}"
    if kind == "STOUT_DECLINE":
        return f"{kind} {'yes' if action.get('decline') else 'no'}"
    return kind


def parse_action(text: str) -> dict[str, Any] | None:
    """The action dict of ``text`` when the whole text is one move ``TYPE args`` on one line
    (``pick 4`` is ``PICK_COMBO 4``), else None: a move is never picked out of prose."""
    found = _MOVE_RE.fullmatch(text.strip().strip("`").strip())
    kind = _ALIASES.get(found.group(1).upper(), found.group(1).upper()) if found else ""
    if kind not in ActionType.__members__:
        return None
    rest = found.group(2)
    words = re.findall(r"-?\d+\s*:\s*-?\d+|-?\d+|none|null|yes|no|true|false", rest, re.IGNORECASE)
    # a number of more than 6 digits is no region id or count (and int() refuses huge ones)
    words = [w for w in words if max(map(len, re.findall(r"\d+", w)), default=0) <= 6]
    if kind in _PLACEMENT_TYPES:
        pairs = [w.replace(" ", "").split(":") for w in words if ":" in w]
        return {"type": kind, "placements": {int(k): int(v) for k, v in pairs}}
    if kind in _LIST_TYPES:
        return {"type": kind, "region_ids": [int(w) for w in words if w.lstrip("-").isdigit()]}
    if kind in _ONE_ID:
        first = words[0].lower() if words else "none"
        value = int(first) if first.lstrip("-").isdigit() else None
        return {"type": kind, _ONE_ID[kind]: value}
    if kind == "STOUT_DECLINE":
        first = words[0].lower() if words else "no"
        return {"type": kind, "decline": first in ("yes", "true")}
    return {"type": kind}


def abilities_text() -> str:
    """Every race's and every power's ability, one line each (``Ghouls (5): ...``; the number is
    the tokens it brings), for the rules summary a model reads and a person's ``help``."""
    races = [f"  {r.name.value} ({r.base_tokens}): {r.rules}" for r in get_all_races().values()]
    powers = [f"  {p.name.value} (+{p.bonus_tokens}): {p.rules}" for p in get_all_powers().values()]
    return "\n".join(["Races (tokens):", *races, "Powers (extra tokens):", *powers])


def _combo_line(c: Mapping[str, Any], abilities: bool) -> str:
    line = f"  {c['index']}: {c['race']} + {c['power']}, {c['total_tokens']} tokens, {c['coins']} coins"
    if abilities:  # what the pick would do, so a choice is never blind
        race, power = get_race_config(c["race"]), get_power_config(c["power"])
        line += f"\n       {c['race']}: {race.rules}\n       {c['power']}: {power.rules}"
    return line


def _region_line(r: Mapping[str, Any], roles: list[str]) -> str:
    feats = [f.lower() for f in r["features"]]
    head = f"{r['id']:>3} {r['terrain'].lower()}"
    if feats:
        head += " (" + ",".join(feats) + ")"
    if r["owner"] is not None:
        state = "declined " if r["is_decline"] else ""
        who = f"{roles[r['owner']]} {state}{r['race']} x{r['tokens']}"
    elif r["lost_tribe"]:
        who = "Lost Tribe"
    else:
        who = "empty"
    markers = [m.lower() for m in r["markers"]]
    extra = f" [{', '.join(markers)}]" if markers else ""
    adj = ",".join(str(a) for a in r["adjacent"])
    return f"{head}: {who}{extra}; adj {adj}"


def _tokens_text(r: Mapping[str, Any]) -> str:
    pending = f", {r['tokens_pending']} to redeploy" if r["tokens_pending"] else ""
    return (
        f"{r['tokens_on_map']} on the map, {r['tokens_in_hand']} in hand{pending}, "
        f"{r['tokens_in_box']} in the box"
    )


def _race_text(p: Mapping[str, Any]) -> str:
    parts = []
    if p["active"]:
        a = p["active"]
        parts.append(f"active {a['race']} + {a['power']} ({_tokens_text(a)})")
    for key in ("decline", "decline_spirit"):
        if p[key]:
            d = p[key]
            acting = [f"{d['race']} ability" if d["race_ability_acts"] else ""]
            acting.append(f"{d['power']} power" if d["power_acts"] else "")
            still = " and ".join(a for a in acting if a)
            parts.append(
                f"declined {d['race']} + {d['power']} ({_tokens_text(d)}; "
                + (f"still acting: {still})" if still else "no ability acts in decline)")
            )
    return "; ".join(parts) or "no race yet"


def _placements_text(placements: Mapping[str, int]) -> str:
    return " ".join(f"{rid}:{n}" for rid, n in placements.items()) or "nothing"


def format_event(e: Mapping[str, Any], roles: list[str]) -> str:
    """One line of the public event log, e.g. ``turn 3, blue: Orcs took region 7 (3 tokens) ...``."""
    who = roles[e["player"]] if e.get("player") is not None else "nobody"
    kind = e["event"]
    if kind == "conquest":
        how = "" if e["by"] == "conquest" else f" by {e['by']}"
        text = f"{e['race']} took region {e['region']} with {e['tokens']} tokens{how}"
        if e["defender"] is not None:
            text += (
                f" from {roles[e['defender']]}'s {e['defender_race']} "
                f"({e['defender_tokens']} tokens, {e['defender_lost']} lost)"
            )
        elif e["lost_tribe"]:
            text += " from the Lost Tribe"
    elif kind == "turn_start":
        text = "turn begins"
    elif kind == "pick_combo":
        text = f"picked {e['race']} + {e['power']} (row index {e['index']})"
    elif kind == "expand":
        text = f"{e['race']} readied their troops ({e['tokens_in_hand']} in hand)"
    elif kind == "reinforcement_die":
        text = f"{e['race']} rolled {e['roll']} for region {e['region']}: " + (
            "success" if e["success"] else "failed"
        )
    elif kind == "berserk_die":
        text = f"Berserk {e['race']} rolled {e['roll']}"
    elif kind == "abandon":
        text = f"{e['race']} abandoned {_placements_text(e['regions'])} (region:tokens)"
    elif kind in ("redeploy", "opponent_redeploy", "place_bivouacs"):
        text = f"{kind.replace('_', ' ')}: {_placements_text(e['placements'])} (region:tokens)"
    elif kind == "decline":
        text = f"{e['race']} went into decline"
    elif kind == "race_removed":
        text = f"declined {e['race']} left the map"
    elif kind == "score":
        text = f"scored {e['coins']} coins"
    elif kind == "place_fortress":
        text = f"fortress on region {e['region']}" if e["region"] is not None else "no fortress placed"
    elif kind == "place_heroes":
        text = "heroes on regions " + ", ".join(str(r) for r in e["regions"])
    elif kind == "diplomat_ally":
        target = e["target_player"]
        text = f"made peace with {roles[target]}" if target is not None else "made peace with nobody"
    else:
        text = kind
    return f"turn {e['turn']}, {who}: {text}"


def render_observation(obs: Mapping[str, Any], roles: list[str], rules_hint: str = "") -> str:
    """A board description that lets a reader play: map, races, combo row, coins, legal moves."""
    g = obs["game"]
    me = obs["self"]
    lines = [
        f"Small World, turn {g['turn']} of {g['max_turns']}, phase {g['phase']}. "
        f"You are {roles[g['you']]}; {roles[g['current_player']]} acts now.",
        f"Your coins: {me['coins']}. Your races: {_race_text(me)}; "
        f"{me['regions']} regions, {me['tokens_on_map']} tokens on the map.",
    ]
    if me["active"] and me["active"].get("berserk_die_result") is not None:
        lines.append(f"Berserk die for your next conquest: {me['active']['berserk_die_result']}.")
    for o in obs["opponents"]:
        lines.append(
            f"{roles[o['player_id']]}: coins {o['coins']}; {_race_text(o)}; "
            f"{o['regions']} regions, {o['tokens_on_map']} tokens."
        )
    picking = any(a.get("type") == "PICK_COMBO" for a in obs.get("legal_actions") or ())
    lines.append("Combo row (index: race + power, tokens, coins on it; index i costs i coins):")
    lines += [_combo_line(c, picking) for c in obs["combo_row"]]
    lines.append("Regions (id terrain (features): holder [markers]; adj: adjacent ids):")
    lines += [_region_line(r, roles) for r in obs["map"]["regions"]]
    events = obs.get("events") or []
    if events:  # last, next to the moves: the map above does not scroll them away
        lines.append("Since your last turn (oldest first):")
        lines += ["  " + format_event(e, roles) for e in events]
    costs = obs.get("conquest_costs") or {}
    if costs:
        lines.append("Conquest costs now: " + ", ".join(f"{k}:{v}" for k, v in costs.items()))
    if rules_hint:
        lines.append(rules_hint)
    return "\n".join(lines)
