"""The text view's city-state and victory-progress section, from one player's observation.

City states the player has met: type, place, active quest with the player's progress and the
leader's, the player's influence and its change per round, the ally. Then how far the player is
toward each of the four victories (``victory.py``), with the numbers that decide them.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.engine.tables import ROLES, citystate_rules, load_tables

# The observation's tracker field of each quest (citystates.json "quests" order).
QUEST_TRACKERS = ("culture", "faith", "tech", "trade", "religion", "wonder", "resource")


def citystate_lines(obs: dict[str, Any], me: int) -> list[str]:
    """One line per city state ``me`` has met."""
    rules = citystate_rules()
    info = obs["citystate_info"]
    kinds, quests = np.asarray(info["cs_type"]), np.asarray(info["quest_type"])
    influence, change = np.asarray(info["influence_level"]), np.asarray(obs["cs_perturn_influence"])
    allies, sites = np.asarray(info["relationships"]), np.asarray(info["city_rowcols"])
    lines = []
    for k in np.flatnonzero(kinds >= 0):
        quest = rules["quests"][int(quests[k]) - 1]
        tracker = QUEST_TRACKERS[int(quests[k]) - 1]
        mine = np.asarray(info[f"{tracker}_tracker_mine"])
        mine = float(mine[k] if mine.ndim else mine)
        lead = float(info[f"{tracker}_tracker_lead"])
        ally = "you" if allies[k] == me else ROLES[allies[k]] if allies[k] >= 0 else "nobody"
        standing = (
            "ally"
            if allies[k] == me
            else "friend"
            if influence[k] >= rules["friend_influence"]
            else "neutral"
        )
        lines.append(
            f"City state #{k} ({rules['types'][kinds[k]]}) at ({sites[k][0]}, {sites[k][1]}): "
            f"your influence {influence[k]:.1f} ({change[k]:+.1f} a round, {standing}); "
            f"ally {ally}; quest {quest} (you {mine:g}, leader {lead:g})."
        )
    return lines


def vote_count(delegates: int, allies: int) -> str:
    """ "3 delegates + 1 allied city state = 4 of 12 votes": a player's diplomatic standing."""
    needed = citystate_rules()["diplomatic_votes"]
    return (
        f"{delegates} delegate{'s' * (delegates != 1)} + {allies} allied city state{'s' * (allies != 1)}"
        f" = {delegates + allies} of {needed} votes"
    )


def victory_lines(obs: dict[str, Any], me: int) -> list[str]:
    """Progress toward each victory, from what ``me`` can see."""
    rules, tb = citystate_rules(), load_tables()
    owned = np.asarray(obs["player_cities"]["buildings_owned"]).any(0)
    parts = sum(bool(owned[tb.building(name)]) for name in rules["spaceship_parts"])
    rivals = [q for q in range(len(ROLES)) if q != me]
    sacked = int(np.asarray(obs["has_sacked"])[me, rivals].clip(0).sum())
    tourism, lifetime = np.asarray(obs["tourism_total"])[me], np.asarray(obs["culture_total"])
    ahead = sum(bool(tourism[q] > lifetime[q]) for q in rivals)
    delegates = max(int(np.asarray(obs["num_delegates"])[me]), 0)
    allies = int((np.asarray(obs["citystate_info"]["relationships"]) == me).sum())
    return [
        f"Science: {parts} of {len(rules['spaceship_parts'])} spaceship parts built.",
        f"Domination: {sacked} of {len(rivals)} rival capitals sacked.",
        f"Culture: your tourism exceeds the lifetime culture of {ahead} of {len(rivals)} rivals.",
        f"Diplomatic: {vote_count(delegates, allies)}, counted when the World Congress meets (every "
        f"{rules['congress_rounds']} rounds, once someone knows Printing Press and has met everyone).",
    ]


def citystate_section(obs: dict[str, Any], me: int) -> list[str]:
    """The section's lines: city states met (or that none is), then victory progress."""
    met = citystate_lines(obs, me)
    return (met or ["No city state met yet."]) + victory_lines(obs, me)
