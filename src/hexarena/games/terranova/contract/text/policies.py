"""Social policies in words: one line per policy's effects, read from ``data/policies.json``.

The text view lists the policies a player may adopt with these lines, and the viewer's policy
screen shows them as tooltips, so a player can choose without reading the tables.
"""

from __future__ import annotations

import json
from functools import cache
from importlib import resources
from typing import Any

YIELDS = ("food", "production", "gold", "faith", "culture", "science", "happiness", "tourism")


def _words(name: str) -> str:
    return name.replace("_", " ")


def _yields(values: list[float], suffix: str = "") -> str:
    return ", ".join(f"{v:+g}{suffix} {YIELDS[i]}" for i, v in enumerate(values) if v)


def _targets(entry: dict[str, Any], plural: str = "s") -> str:
    kinds = entry.get("kinds", [])
    names = entry.get("buildings") or [f"{k}{plural}" if k != "all" else "everything" for k in kinds]
    return "/".join(_words(n) for n in names)


def effect_line(effects: dict[str, Any]) -> str:
    """A policy's (or a tree finisher's) effects as one short line."""
    parts = []
    places = {
        "capital_yields": "in the capital",
        "city_yields": "in every city",
        "coastal_city_yields": "in coastal cities",
        "capital_per_pop": "per citizen in the capital",
        "city_per_pop": "per citizen in every city",
    }
    for key, where in places.items():
        if key in effects:
            parts.append(f"{_yields(effects[key])} {where}")
    for key, where in (("capital_percent", "in the capital"), ("city_percent", "in every city")):
        if key in effects:
            parts.append(f"{_yields(effects[key], '%')} {where}")
    for entry in effects.get("production_pct", []):
        parts.append(f"{entry['pct']:+g}% production toward {_targets(entry)}")
    for entry in effects.get("building_yields", []):
        amounts = _yields(entry["yields"]) if "yields" in entry else _yields(entry["percent"], "%")
        parts.append(f"{amounts} from each {_targets(entry, plural='')}")
    for entry in effects.get("tile_yields", []):
        parts.append(f"{_yields(entry['yields'])} on {'/'.join(_words(t) for t in entry['tiles'])} tiles")
    if "free_buildings" in effects:
        free = effects["free_buildings"]
        names = ", ".join(_words(b) for b in free["buildings"])
        parts.append(f"free {names} in the first {free['cities']} cities")
    for name, value in effects.get("modifiers", {}).items():
        parts.append(f"{_words(name)} {value:+g}")
    grants = effects.get("on_adopt", {})
    for unit in grants.get("free_units", []):
        parts.append(f"a free {unit}")
    if "great_person" in grants:
        parts.append(f"a free great {grants['great_person']}")
    for person, n in grants.get("great_people", {}).items():
        parts.append(f"{n} free great {person}s")
    if grants.get("free_great_people"):
        parts.append(f"{grants['free_great_people']} great person of your choice")
    if grants.get("golden_age"):
        parts.append("starts a golden age")
    return "; ".join(parts) or "no direct effect"


@cache
def policy_effects() -> tuple[str, ...]:
    """The effect line of each of the 54 policies, in table order."""
    return tuple(effect_line(p["effects"]) for p in _doc()["policies"])


@cache
def finisher_effects() -> tuple[str, ...]:
    """What finishing each of the 9 trees (adopting all six of its policies) adds."""
    return tuple(effect_line(t["finisher"]) for t in _doc()["trees"])


@cache
def tree_eras() -> tuple[str, ...]:
    return tuple(t["era"] for t in _doc()["trees"])


@cache
def _doc() -> dict[str, Any]:
    return json.loads(
        resources.files("hexarena.games.terranova").joinpath("data", "policies.json").read_text()
    )
