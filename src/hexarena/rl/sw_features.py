"""A Small World policy that ranks the legal moves by a learned linear score of move features.

Each legal move gets a feature vector ``phi(obs, move)`` read from the mover's own observation
(what the heuristic bot reads: the combo row, the conquest cost of every target, the map, the
hand, the turns left); the policy plays ``argmax_m w . phi(m)`` (or samples the softmax). The
features sit in one block per decision, so one weight vector :data:`FEATURES` long covers
them all:

* ``pick``: each affordable combo (tokens, coins on it, its price, the power's extra income,
  how many regions the race or power scores extra on);
* ``decline``: going into decline (expanding scores 0), from the spare tokens, the hand, the
  regions held, the turns left and the best combo on offer; ``STOUT_DECLINE`` shares it;
* ``conquest``: each target of a conquest, a final conquest, the Dragon, the Sorcerer, an
  abandon, and stopping (its cost, the tokens left after it, who holds it and with how many,
  its neighbours, its symbols, the bonus the race scores there, the die's shortfall);
* ``redeploy``: each redeployment (tokens on the regions next to an opponent).

Other placements (fortress, heroes, encampments, the Diplomat's ally) score 0 everywhere, so
the first listed option is played: the engine lists the even spread or a real choice first,
as the heuristic bot relies on. All weights start at 0; :mod:`.sw_es` learns them.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np

from hexarena.games.smallworld.bot import _STRONG, DECLINE_BELOW, _region_bonus
from hexarena.rl.ranking import MoveRanking, columns

BLOCKS = {
    "pick": ("tokens", "coins", "price", "strong", "tokens_x_turns_left", "bonus_regions"),
    "decline": (
        "bias",
        "spare",
        "hand",
        "held",
        "turns_left",
        "last_turn",
        "few_spare",
        "has_decline",
        "best_combo_tokens",
        "stout",
    ),
    "conquest": (
        "conquer",
        "final",
        "dragon",
        "sorcerer",
        "abandon",
        "skip",
        "skip_x_hand",
        "cost",
        "hand_after",
        "final_shortfall",
        "race_bonus",
        "enemy_active",
        "enemy_decline",
        "defenders",
        "lost_tribe",
        "empty",
        "own_neighbours",
        "enemy_neighbours",
        "border",
        "symbols",
        "turns_left",
        "enemy_x_turns_left",
    ),
    "redeploy": ("exposed_share", "exposed_min"),
}
OFFSET, _COL, FEATURES = columns(BLOCKS)
_CONQUEST_TYPES = {"CONQUER": "conquer", "FINAL_CONQUEST": "final", "USE_DRAGON": "dragon"}
_CONQUEST_TYPES |= {"USE_SORCERER": "sorcerer", "ABANDON": "abandon", "SKIP_CONQUEST": "skip"}


def move_features(obs: Mapping[str, Any]) -> np.ndarray:
    """``(len(obs["legal_actions"]), FEATURES)``: one row per legal move, in the listed order."""
    legal = obs["legal_actions"]
    phi = np.zeros((len(legal), FEATURES), np.float32)
    g, me = obs["game"], obs["self"]
    turns_left = g["max_turns"] - g["turn"]
    regions = obs["map"]["regions"]
    active = me["active"] or {}
    race, power = active.get("race", ""), active.get("power", "")
    hand = active.get("tokens_in_hand", 0)
    for i, move in enumerate(legal):
        kind = move["type"]
        if kind == "PICK_COMBO":
            _pick(phi[i], obs, move["index"], turns_left)
        elif kind == "DECLINE" or (kind == "STOUT_DECLINE" and move["decline"]):
            _decline(phi[i], obs, race, turns_left, stout=kind == "STOUT_DECLINE")
        elif kind in _CONQUEST_TYPES:
            _conquest(phi[i], obs, move, regions, race, power, hand, turns_left)
        elif kind == "REDEPLOY":
            _redeploy(phi[i], move, regions, g["you"])
    return phi


def _pick(row: np.ndarray, obs: Mapping[str, Any], index: int, turns_left: int) -> None:
    c = _COL["pick"]
    combo = obs["combo_row"][index]
    row[c["tokens"]] = combo["total_tokens"] / 10
    row[c["coins"]] = combo["coins"] / 5
    row[c["price"]] = index / 5
    row[c["strong"]] = _STRONG.get(combo["power"], 0) / 3
    row[c["tokens_x_turns_left"]] = combo["total_tokens"] * turns_left / 100
    bonus = sum(
        _region_bonus(obs, r, combo["race"], combo["power"]) > 0
        for r in obs["map"]["regions"]
        if r["terrain"] not in ("SEA", "LAKE")
    )
    row[c["bonus_regions"]] = bonus / 10


def _decline(row: np.ndarray, obs: Mapping[str, Any], race: str, turns_left: int, stout: bool) -> None:
    c = _COL["decline"]
    me = obs["self"]
    held = [r for r in obs["map"]["regions"] if r["race"] == race and r["owner"] == obs["game"]["you"]]
    hand = (me["active"] or {}).get("tokens_in_hand", 0)
    spare = sum(r["tokens"] - 1 for r in held) + hand
    affordable = [x["total_tokens"] for x in obs["combo_row"] if x["index"] <= me["coins"]]
    row[c["bias"]] = 1
    row[c["spare"]] = spare / 10
    row[c["hand"]] = hand / 10
    row[c["held"]] = len(held) / 10
    row[c["turns_left"]] = turns_left / 10
    row[c["last_turn"]] = turns_left < 1
    row[c["few_spare"]] = spare < DECLINE_BELOW
    row[c["has_decline"]] = me["decline"] is not None
    row[c["best_combo_tokens"]] = max(affordable, default=0) / 10
    row[c["stout"]] = stout


def _conquest(
    row: np.ndarray,
    obs: Mapping[str, Any],
    move: Mapping[str, Any],
    regions: list[Mapping[str, Any]],
    race: str,
    power: str,
    hand: int,
    turns_left: int,
) -> None:
    c = _COL["conquest"]
    row[c[_CONQUEST_TYPES[move["type"]]]] = 1
    row[c["turns_left"]] = turns_left / 10
    if move["type"] == "SKIP_CONQUEST":
        row[c["skip_x_hand"]] = hand / 10
        return
    rid = move["region_ids"][0] if move["type"] == "ABANDON" else move["region_id"]
    r = regions[rid]
    you = obs["game"]["you"]
    cost = int(obs.get("conquest_costs", {}).get(str(rid), 0))
    row[c["cost"]] = cost / 5
    row[c["hand_after"]] = (hand - cost) / 10
    if move["type"] == "FINAL_CONQUEST":
        row[c["final_shortfall"]] = max(cost - hand, 0) / 3
    row[c["race_bonus"]] = _region_bonus(obs, r, race, power)
    enemy = r["owner"] is not None and r["owner"] != you
    row[c["enemy_active"]] = enemy and not r["is_decline"]
    row[c["enemy_decline"]] = enemy and r["is_decline"]
    row[c["enemy_x_turns_left"]] = enemy * turns_left / 10
    row[c["defenders"]] = r["tokens"] / 5 if enemy else 0
    row[c["lost_tribe"]] = r["lost_tribe"]
    row[c["empty"]] = r["owner"] is None and not r["lost_tribe"]
    near = [regions[a] for a in r["adjacent"]]
    row[c["own_neighbours"]] = sum(n["owner"] == you for n in near) / 3
    row[c["enemy_neighbours"]] = sum(n["owner"] is not None and n["owner"] != you for n in near) / 3
    row[c["border"]] = "BORDER" in r["features"]
    row[c["symbols"]] = sum(f in r["features"] for f in ("MINE", "MAGIC_SOURCE", "CAVERN"))


def _redeploy(row: np.ndarray, move: Mapping[str, Any], regions: list[Mapping[str, Any]], you: int) -> None:
    c = _COL["redeploy"]
    placed = {int(k): v for k, v in move["placements"].items()}
    total = sum(placed.values()) or 1
    exposed = [
        v
        for rid, v in placed.items()
        if any(regions[a]["owner"] not in (None, you) for a in regions[rid]["adjacent"])
    ]
    row[c["exposed_share"]] = sum(exposed) / total
    row[c["exposed_min"]] = min(exposed, default=0) / 3


class RankingPolicy(MoveRanking):
    """``weights`` (length :data:`FEATURES`) over :func:`move_features`; :meth:`choose` picks a
    legal move of an observation whose ``legal_actions`` is not empty."""

    GAME, TITLE, BLOCKS, COLUMNS, FEATURES = "smallworld", "Small World", BLOCKS, _COL, FEATURES

    def choose(self, obs: Mapping[str, Any], rng: np.random.Generator | None = None) -> dict[str, Any]:
        """The best-scored legal move (the first on ties), or one drawn from the softmax."""
        legal = obs["legal_actions"]
        if len(legal) == 1:
            return legal[0]
        return self.pick(legal, move_features(obs), rng)
