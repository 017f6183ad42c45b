"""Great people in words, for the text view: specialists, great person points toward the shared
threshold, great works in their slots, tourism onto each rival against that rival's lifetime culture
(the culture victory's measure). Everything is read from the player's own observation.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from hexarena.games.terranova.engine.tables import GREAT_WORKS, ROLES, SPECIALISTS

DOES = {
    "artist": "a golden age",
    "musician": "5 turns' tourism",
    "writer": "5x this turn's culture",
    "engineer": "5x this turn's production",
    "merchant": "gold by era, +35 influence with a city state",
    "scientist": "5x this turn's science",
}


def _plural(n: int, word: str) -> str:
    return f"{n} {word}{'s' if n != 1 else ''}"


def great_people_lines(obs: dict[str, Any], me: int) -> list[str]:
    """The text view's great-people section for player ``me``."""
    pc = obs["player_cities"]
    mine = np.flatnonzero(np.asarray(pc["city_ids"])[me] > 0)
    spec = np.asarray(pc["specialist_slots"])[mine]
    rate = np.asarray(pc["great_person_points"])[mine].sum(0)
    points, need = np.asarray(obs["gpps"]), float(obs["gp_threshold"])
    lines = []
    staffed = [
        f"city {c}: " + ", ".join(_plural(int(n), k) for k, n in zip(SPECIALISTS, row, strict=True) if n)
        for c, row in zip(mine, spec, strict=True)
        if row.any()
    ]
    lines.append(
        "Specialists: " + ("; ".join(staffed) if staffed else "none (their buildings give them)") + "."
    )
    progress = []
    for k, have, per in zip(SPECIALISTS, points, rate, strict=True):
        if have > 0 or per > 0:
            eta = f", {int(np.ceil((need - have) / per))} turns" if per > 0 else ""
            progress.append(f"{k} {have:.0f} (+{per:.1f}{eta}; brings {DOES[k]})")
    lines.append(
        f"Great person points (next great person at {need:.0f}): " + ("; ".join(progress) or "none yet") + "."
    )
    gw = np.asarray(pc["gw_slots"])[mine]
    works = [f"{int(n)} {kind}" for kind, n in zip(GREAT_WORKS, gw[:, :4].sum(0), strict=True) if n]
    lines.append(
        f"Great works: {', '.join(works) or 'none'} in {_plural(int(gw[:, 4].sum()), 'slot')}"
        " (every great-work slot of a building holds a work: amphitheatres, opera houses, museums,"
        " broadcast towers, wonders)."
    )
    tourism, culture = np.asarray(obs["tourism_total"]), np.asarray(obs["culture_total"])
    rivals = [
        f"{ROLES[q]} {tourism[me, q]:.0f}/{culture[q]:.0f}"
        for q in range(len(ROLES))
        if q != me and tourism[q].min() >= 0
    ]
    if rivals:
        lines.append("Tourism onto rivals met / their lifetime culture: " + "; ".join(rivals) + ".")
    return lines
