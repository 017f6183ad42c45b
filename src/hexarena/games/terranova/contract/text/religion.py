"""Religion in words for the text view: a player's tenets, its next stage and its cost in faith, the
tenets it may name now (the ``tenet`` order) with their effects, and who its cities follow.

Read from the observation only (``religious_tenets``, ``faith_reserves``, ``policies`` and
``player_cities/religion_info``), so it shows exactly what the player may know.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from functools import cache
from importlib import resources
from typing import Any

import numpy as np

from hexarena.games.terranova.contract.text.policies import YIELDS, effect_line
from hexarena.games.terranova.engine.tables import TENET_KINDS, load_tables

STAGES = (("pantheon",), ("founder", "follower"), ("enhancer",), ("reformation",))
# What a tenet counts, in words: (one, several), per ``tables.TENET_COUNTS``.
COUNT_WORDS = {
    "followers": ("follower", "followers"),
    "following_cities": ("city following it", "cities following it"),
    "foreign_majority_cities": ("foreign city it leads", "foreign cities it leads"),
    "national_wonders": ("national wonder in the city", "national wonders in the city"),
    "world_wonders": ("world wonder in the city", "world wonders in the city"),
}


def _words(name: str) -> str:
    return name.replace("_", " ")


def next_stage(mine: np.ndarray, reformation_policy: bool) -> tuple[str, ...]:
    """The tenet kinds a player holding ``mine`` (91,) takes next when its faith allows (founding:
    a founder and two followers at once; reformation only with the Reformation policy)."""
    kind = load_tables().tenet_kind
    for stage in STAGES:
        if not mine[kind == TENET_KINDS.index(stage[0])].any():
            return () if stage == ("reformation",) and not reformation_policy else stage
    return ()


def tenet_choices(obs: Any, me: int) -> np.ndarray:
    """(91,) bool: tenets player ``me`` may name in a ``tenet`` order: nobody holds them and they
    belong to its next stage."""
    tb = load_tables()
    held = np.asarray(obs["religious_tenets"]) > 0
    reform = bool(np.asarray(obs["policies"])[tb.policy("reformation")])
    kinds = [TENET_KINDS.index(k) for k in next_stage(held[me], reform)]
    return ~held.any(0) & np.isin(tb.tenet_kind, kinds)


def stage_cost(obs: Any, me: int) -> float:
    """Faith the next stage costs ``me`` (pantheon 10 + 5 per pantheon taken; prophets 134, 201,
    less with ``prophet_faith_pct``: Messiah -25 %; reformation free)."""
    tb = load_tables()
    r = tb.rules
    held = np.asarray(obs["religious_tenets"]) > 0
    stage = next_stage(held[me], True)
    if stage == ("pantheon",):
        taken = int(held[:, tb.tenet_kind == 0].any(1).sum())
        return float(r["pantheon_cost_base"] + r["pantheon_cost_step"] * taken)
    civic = sum(tb.policy_tree_onehot.shape)  # tenet rows follow the policies and finishers
    pct = tb.policy_empire_mods[civic:][held[me], tb.modifier("prophet_faith_pct")].sum()
    prophet = {("founder", "follower"): 0, ("enhancer",): 1}.get(stage)
    return 0.0 if prophet is None else float(r["prophet_faith"][prophet] * (1 + pct / 100.0))


def _amounts(values: list[float], unit: str = "") -> str:
    return ", ".join(f"{v:+g}{unit} {YIELDS[i]}" for i, v in enumerate(values) if v)


def tenet_effect_line(effects: dict[str, Any]) -> str:
    """A tenet's effects in one short line (the policies' words, plus the tenets' own kinds)."""
    parts = [effect_line(effects)] if _policy_keys(effects) else []
    for entry in effects.get("count_yields", []):
        amounts = _amounts(entry["yields"]) if "yields" in entry else _amounts(entry["percent"], "%")
        one, several = COUNT_WORDS[entry["count"]]
        per = f"{entry['per']} {several}" if entry.get("per", 1) > 1 else one
        cap = f" (at most {entry['max']})" if "max" in entry else ""
        parts.append(f"{amounts} per {per}{cap}")
    for site, values in effects.get("site_yields", {}).items():
        parts.append(f"{_amounts(values)} in {site} cities")
    if "pop_yields" in effects:
        py = effects["pop_yields"]
        parts.append(f"{_amounts(py['yields'])} in cities of {py['min_pop']}+ citizens")
    for name, value in effects.get("city_modifiers", {}).items():
        parts.append(f"{_words(name)} {value:+g} where followed")
    if "faith_purchase" in effects:
        parts.append("buys " + ", ".join(_words(b) for b in effects["faith_purchase"]) + " with faith")
    return "; ".join(parts) or "no effect (as in the original)"


def _policy_keys(effects: dict[str, Any]) -> bool:
    own = {"count_yields", "site_yields", "pop_yields", "city_modifiers", "faith_purchase"}
    return any(k not in own for k in effects)


@cache
def tenet_effects() -> tuple[str, ...]:
    """The effect line of each of the 91 tenets, in table order."""
    doc = json.loads(resources.files("hexarena.games.terranova").joinpath("data", "tenets.json").read_text())
    return tuple(tenet_effect_line(t.get("effects", {})) for t in doc["tenets"])


def religion_lines(obs: Any, me: int, names: Sequence[str], limit: int = 12, full: bool = False) -> list[str]:
    """The text view's religion section for player ``me`` (``names``: what to call each player).
    The tenets' effects are shown once the faith for the next stage is there, or when ``full``
    (``help beliefs``)."""
    tb = load_tables()
    held = np.asarray(obs["religious_tenets"]) > 0
    mine = np.flatnonzero(held[me])
    faith = float(obs["faith_reserves"])
    if len(mine):
        named = ", ".join(f"{_words(tb.tenet_names[t])} ({TENET_KINDS[tb.tenet_kind[t]]})" for t in mine)
        lines = [f"Your tenets: {named}."]
    else:
        lines = ["No pantheon yet."]
    reform = bool(np.asarray(obs["policies"])[tb.policy("reformation")])
    stage = next_stage(held[me], reform)
    if stage:
        what = {"pantheon": "a pantheon", "founder": "founding a religion (a founder and two followers)"}.get(
            stage[0], f"an {stage[0]} tenet" if stage[0] == "enhancer" else "a reformation tenet"
        )
        lines.append(f"Faith {faith:.0f}; next: {what} at {stage_cost(obs, me):.0f} faith.")
        choices = np.flatnonzero(tenet_choices(obs, me))
        cost = stage_cost(obs, me)
        if faith < cost and not full:  # nothing to act on yet: names when near, effects on demand
            named = f": {', '.join(tb.tenet_names[t] for t in choices)}" if faith >= cost / 2 else ""
            lines.append(f"Can choose later ({len(choices)}; 'help beliefs' gives their effects){named}.")
            return lines + _followers(obs, me, names)
        lines.append(f"Can choose ({len(choices)}; the 'tenet' order ranks them):")
        lines += [f"  {_words(tb.tenet_names[t])}: {tenet_effects()[t]}" for t in choices[:limit]]
        if len(choices) > limit:
            lines.append(
                f"  ... and {len(choices) - limit} more: "
                + ", ".join(tb.tenet_names[t] for t in choices[limit:])
            )
    else:
        lines.append(
            f"Faith {faith:.0f}; no further tenet to take"
            + ("" if reform else " (reformation needs the Reformation policy)")
            + "."
        )
    return lines + _followers(obs, me, names)


def _followers(obs: Any, me: int, names: Sequence[str]) -> list[str]:
    info = obs["player_cities"]["religion_info"]
    followers = np.asarray(info["religious_population"])
    pops = np.asarray(obs["player_cities"]["population"])[me]
    exists = np.asarray(obs["player_cities"]["city_ids"])[me] > 0
    lines = []
    for c in np.flatnonzero(exists):
        parts = [f"{n} follow {names[r]}'s religion" for r, n in enumerate(followers[c]) if n > 0]
        if parts:
            lines.append(f"Followers in city {c} ({pops[c]} citizens): " + ", ".join(parts) + ".")
    return lines
