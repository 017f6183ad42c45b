"""A greedy Small World bot that reads only its own observation.

It takes the combo with the most tokens for its price, conquers the cheapest regions first
(preferring ones its race or power scores extra on, and enemy regions at equal cost), spends
the Dragon on the dearest target, tries a final conquest only when at most one token short,
spreads its tokens evenly, and declines when its active race has too few spare tokens to grow.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from hexarena.core.frozen import thaw
from hexarena.core.players import Reply, SeededPlayer, legal_or_fail
from hexarena.core.rng import Rng
from hexarena.games.smallworld.engine import SmallWorldGame
from hexarena.games.smallworld.state import GameConfig

#: Powers and races whose coins come from holding many regions of any kind: worth a little more.
_STRONG = {"Alchemist": 3, "Wealthy": 3, "Merchant": 3, "Fortified": 1, "Pillaging": 2, "Commando": 2}
_TERRAIN_BONUS = {
    "Humans": ("terrain", "FARMLAND"),
    "Forest": ("terrain", "FOREST"),
    "Hill": ("terrain", "HILL"),
    "Swamp": ("terrain", "SWAMP"),
    "Dwarves": ("feature", "MINE"),
    "Wizards": ("feature", "MAGIC_SOURCE"),
}
#: Spare tokens below which an active race is worth declining rather than expanding.
DECLINE_BELOW = 4


def choose_action(obs: Mapping[str, Any], rng: Rng) -> dict[str, Any]:
    """The bot's action for an observation whose ``legal_actions`` is not empty."""
    legal = list(obs["legal_actions"])
    by_type: dict[str, list[dict[str, Any]]] = {}
    for a in legal:
        by_type.setdefault(a["type"], []).append(a)
    phase = obs["game"]["phase"]
    if phase == "PICK_COMBO":
        return max(by_type["PICK_COMBO"], key=lambda a: _combo_value(obs, a["index"]))
    if phase == "CHOOSE_EXPAND_OR_DECLINE":
        return {"type": "DECLINE"} if _should_decline(obs) else {"type": "EXPAND"}
    if phase == "STOUT_DECLINE":
        return {"type": "STOUT_DECLINE", "decline": _should_decline(obs, after_turn=True)}
    if phase in ("CONQUEST", "GHOUL_CONQUEST"):
        return _conquest(obs, by_type, rng)
    if phase == "FINAL_CONQUEST":
        return _final(obs, by_type) or {"type": "SKIP_CONQUEST"}
    # Redeployments list the even spread first; fortress, heroes and ally list a real choice first.
    return legal[0]


def _combo_value(obs: Mapping[str, Any], index: int) -> float:
    combo = obs["combo_row"][index]
    return combo["total_tokens"] + combo["coins"] - index + _STRONG.get(combo["power"], 0)


def _should_decline(obs: Mapping[str, Any], after_turn: bool = False) -> bool:
    me = obs["self"]
    active = me["active"]
    if active is None:
        return False
    g = obs["game"]
    turns_left = g["max_turns"] - g["turn"]
    if after_turn and turns_left < 1:
        return False
    if not after_turn and turns_left < 1:
        return False  # on the last turn conquering scores more than declining
    race = active["race"]
    held = [r for r in obs["map"]["regions"] if r["race"] == race]
    spare = sum(r["tokens"] - 1 for r in held) + active["tokens_in_hand"]
    return spare < DECLINE_BELOW + (2 if after_turn else 0)


def _region_bonus(obs: Mapping[str, Any], region: Mapping[str, Any], race: str, power: str) -> int:
    bonus = 0
    for name in (race, power):
        kind, value = _TERRAIN_BONUS.get(name, (None, None))
        if kind == "terrain" and region["terrain"] == value:
            bonus += 1
        if kind == "feature" and value in region["features"]:
            bonus += 1
    if region["owner"] is not None or region["lost_tribe"]:
        bonus += int(race == "Orcs" or power == "Pillaging")
    return bonus


def _conquest(
    obs: Mapping[str, Any], by_type: Mapping[str, list[dict[str, Any]]], rng: Rng
) -> dict[str, Any]:
    regions = obs["map"]["regions"]
    costs = {int(k): v for k, v in obs.get("conquest_costs", {}).items()}
    active = obs["self"]["active"] or {}
    race, power = active.get("race", ""), active.get("power", "")
    if "USE_SORCERER" in by_type:
        return by_type["USE_SORCERER"][0]
    if "USE_DRAGON" in by_type and not by_type.get("CONQUER"):
        return max(by_type["USE_DRAGON"], key=lambda a: costs.get(a["region_id"], 0))
    conquer = by_type.get("CONQUER", [])
    if conquer:

        def key(a: Mapping[str, Any]) -> tuple[float, ...]:
            r = regions[a["region_id"]]
            enemy = r["owner"] is not None and r["owner"] != obs["game"]["you"]
            return (
                costs.get(a["region_id"], 9) - _region_bonus(obs, r, race, power),
                -int(enemy),
                a["region_id"],
            )

        return min(conquer, key=key)
    return _final(obs, by_type) or {"type": "SKIP_CONQUEST"}


def _final(obs: Mapping[str, Any], by_type: Mapping[str, list[dict[str, Any]]]) -> dict[str, Any] | None:
    finals = by_type.get("FINAL_CONQUEST", [])
    if not finals:
        return None
    costs = {int(k): v for k, v in obs.get("conquest_costs", {}).items()}
    hand = (obs["self"]["active"] or {}).get("tokens_in_hand", 0)
    best = min(finals, key=lambda a: costs.get(a["region_id"], 99))
    return best if costs.get(best["region_id"], 99) - hand <= 1 else None


class HeuristicPlayer(SeededPlayer):
    """The greedy bot through the contract: reads ``view.environment.observation``."""

    kind = "heuristic"

    def act(self, view: Any) -> Reply:
        legal_or_fail(view)
        obs = thaw(view.environment.observation)
        action = choose_action(obs, self.rng)
        return Reply(move=action)


def play_vs_random(seeds: Sequence[int], players: int = 4) -> float:
    """Share of games the bot wins against random players (its seat rotates with the seed)."""
    wins = 0
    for seed in seeds:
        game = SmallWorldGame(GameConfig(players, seed))
        bot_seat, rng, rnd = seed % players, Rng(seed), Rng(seed + 1)
        while not game.is_game_over():
            pid = game.get_current_player()
            if pid == bot_seat:
                action = choose_action(game.get_observation(pid), rng)
            else:
                action = rnd.choice(game.get_legal_actions())
            game.submit_action(pid, action)
        wins += game.get_results()["winner"] == bot_seat
    return wins / len(seeds)
