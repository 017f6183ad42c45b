"""The arena's report: the leaderboard (ratings and statistics) and its four forms.

:func:`leaderboard` turns the stored matches into one JSON-safe dict; the rest writes it as
``leaderboard.json``, ``leaderboard.md``, ``matches.csv`` and a rich table. Everything in the
leaderboard is decided by the matches' results (no clock times except for LLM latency), so an
interrupted and resumed arena reports exactly what an uninterrupted one does.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from rich.table import Table

from hexarena.arena.config import ArenaConfig, game_field, seat_params
from hexarena.arena.ratings import Fit, Rated, Rating, bradley_terry, plackett_luce
from hexarena.core.untrusted import shown

ORDINALS = ("1st", "2nd", "3rd", "4th", "5th", "6th")
CSV_COLUMNS = (
    "match_id",
    "round",
    "game",
    "seed",
    "params",
    "seating",
    "status",
    "tries",
    "outcome",
    "reason",
    "places",
    "scores",
    "winner",
    "moves",
    "rounds",
    "invalid",
    "forfeit",
    "tokens",
    "cost_usd",
    "time_s",
    "record",
    "last_error",
)


def rated_matches(rows: Sequence[Mapping[str, Any]]) -> list[Rated]:
    """The finished matches' finishing orders, in schedule order (errors never count)."""
    out = []
    for r in rows:
        if r["status"] == "done" and r["seats"]:
            out.append(Rated(r["game"], tuple(r["seating"]), tuple(s["place"] for s in r["seats"])))
    return out


def default_anchor(config: ArenaConfig) -> str | None:
    if config.ratings.anchor:
        return config.ratings.anchor
    return next((p.name for p in config.players if p.type == "random"), None)


def _stats(
    config: ArenaConfig, rows: Sequence[Mapping[str, Any]], players: list[str]
) -> dict[str, dict[str, Any]]:
    """Per player: games, W/D/L by seat, invalid moves per 100, forfeits, errors, length, LLM costs."""
    stats: dict[str, dict[str, Any]] = {
        p: {
            "games": 0,
            "by_seat": {},
            "invalid": 0,
            "own_moves": 0,
            "forfeits": 0,
            "errors": 0,
            "length": 0,
            "latency_ms": 0.0,
            "tokens": 0,
            "cost_usd": 0.0,
        }
        for p in players
    }
    for r in rows:
        if r["status"] == "error":
            for p in r["seating"]:
                if p in stats:
                    stats[p]["errors"] += 1
        if r["status"] != "done":
            continue
        kind = r["result"]["kind"]
        for seat in r["seats"]:
            s = stats.get(seat["player"])
            if s is None:
                continue
            s["games"] += 1
            wdl = s["by_seat"].setdefault(seat["seat"], [0, 0, 0])
            wdl[1 if kind == "draw" else 0 if seat["place"] == 1 else 2] += 1
            s["invalid"] += seat["invalid"]
            s["own_moves"] += seat["moves"]
            s["forfeits"] += seat["forfeit"]
            s["length"] += r["result"]["moves"]
            s["latency_ms"] += seat["latency_ms"]
            s["tokens"] += seat["prompt_tokens"] + seat["completion_tokens"]
            s["cost_usd"] += seat["cost_usd"]
    out = {}
    for p, s in stats.items():
        llm = config.player(p).type == "llm"
        out[p] = {
            "games": s["games"],
            "wdl_by_seat": {
                ORDINALS[k]: {"w": v[0], "d": v[1], "l": v[2]} for k, v in sorted(s["by_seat"].items())
            },
            "invalid_per_100": round(100 * s["invalid"] / s["own_moves"], 2) if s["own_moves"] else 0.0,
            "forfeits": s["forfeits"],
            "errors": s["errors"],
            "avg_length": round(s["length"] / s["games"], 1) if s["games"] else None,
            "latency_ms_per_move": round(s["latency_ms"] / s["own_moves"], 1)
            if llm and s["own_moves"]
            else None,
            "tokens": s["tokens"] if llm else None,
            "cost_usd": round(s["cost_usd"], 4) if llm else None,
        }
    return out


def _rating_json(r: Rating) -> dict[str, float]:
    return {"rating": round(r.rating, 1), "low": round(r.low, 1), "high": round(r.high, 1)}


def _table(
    ratings: Mapping[str, Rating], stats: Mapping[str, dict[str, Any]], config: ArenaConfig
) -> list[dict]:
    order = sorted(ratings, key=lambda p: (-round(ratings[p].rating, 6), p))
    return [
        {"rank": n + 1, "player": p, "type": config.player(p).type, **_rating_json(ratings[p]), **stats[p]}
        for n, p in enumerate(order)
    ]


def leaderboard(config: ArenaConfig, rows: Sequence[Mapping[str, Any]], planned: int) -> dict[str, Any]:
    """The whole report as a JSON-safe dict (see the module docstring)."""
    rc = config.ratings
    anchor = default_anchor(config)
    rated = rated_matches(rows)
    opts = {"anchor": anchor, "anchor_rating": rc.anchor_rating}
    boot = {"bootstrap": rc.bootstrap, "confidence": rc.confidence, "prior_sd": rc.prior_sd, "seed": rc.seed}
    names = [p.name for p in config.players]
    combined = bradley_terry(rated, names, **opts, **boot)
    games = {}
    for gi, game in enumerate(config.games):
        field = game_field(config, game)
        _, seats = seat_params(game, f"games[{gi}]")
        mine = [m for m in rated if m.game == game.key]
        game_rows = [r for r in rows if r["game"] == game.key]
        fit: Fit = bradley_terry(mine, field, **opts, **boot)
        if seats > 2:
            ratings, model = (
                plackett_luce(mine, field, **opts, confidence=rc.confidence),
                "openskill plackett-luce",
            )
        else:
            ratings, model = fit.players, fit.model
        games[game.key] = {
            "game": game.name,
            "params": dict(game.params),
            "seats": seats,
            "model": model,
            "matches": len(mine),
            "first_seat_advantage": _rating_json(fit.first_seat.get(game.key, Rating(0.0, 0.0, 0.0))),
            "players": _table(ratings, _stats(config, game_rows, field), config),
        }
    status = [r["status"] for r in rows]
    return {
        "arena": config.name,
        "anchor": {"player": anchor, "rating": rc.anchor_rating},
        "confidence": rc.confidence,
        "matches": {
            "planned": planned,
            "done": status.count("done"),
            "errors": status.count("error"),
            "pending": planned - status.count("done") - status.count("error"),
        },
        "combined": {
            "model": combined.model,
            "first_seat_advantage": {g: _rating_json(r) for g, r in combined.first_seat.items()},
            "players": _table(combined.players, _stats(config, rows, names), config),
        },
        "games": games,
    }


# ------------------------------------------------------------------------------ writers ---
def _wdl(row: Mapping[str, Any]) -> str:
    return " · ".join(f"{v['w']}-{v['d']}-{v['l']}" for v in row["wdl_by_seat"].values())


#: (header, cell) of each column; the LLM-only ones are left out of tables without LLM players.
COLUMNS: tuple[tuple[str, Callable[[Mapping[str, Any]], str]], ...] = (
    ("#", lambda r: str(r["rank"])),
    ("player", lambda r: r["player"]),
    ("rating", lambda r: f"{r['rating']:.0f}"),
    ("interval", lambda r: f"{r['low']:.0f}–{r['high']:.0f}"),
    ("games", lambda r: str(r["games"])),
    ("W-D-L by seat", _wdl),
    ("inv/100", lambda r: f"{r['invalid_per_100']:.1f}"),
    ("forf", lambda r: str(r["forfeits"])),
    ("err", lambda r: str(r["errors"])),
    ("len", lambda r: "" if r["avg_length"] is None else f"{r['avg_length']:.0f}"),
    ("ms/mv", lambda r: "" if r["latency_ms_per_move"] is None else f"{r['latency_ms_per_move']:.0f}"),
    ("tokens", lambda r: "" if r["tokens"] is None else f"{r['tokens']:,}"),
    ("cost $", lambda r: "" if r["cost_usd"] is None else f"{r['cost_usd']:.2f}"),
)
LLM_ONLY = ("ms/mv", "tokens", "cost $")


def _columns(rows: Sequence[Mapping[str, Any]]) -> list[tuple[str, Callable[[Mapping[str, Any]], str]]]:
    llm = any(r["tokens"] is not None for r in rows)
    return [(h, f) for h, f in COLUMNS if llm or h not in LLM_ONLY]


def rich_table(board: Mapping[str, Any], section: Mapping[str, Any] | None = None, title: str = "") -> Table:
    section = section or board["combined"]
    pct = round(100 * board["confidence"])
    columns = _columns(section["players"])
    table = Table(title=shown(title or f"{board['arena']}: combined leaderboard ({pct} % intervals)"))
    for header, _ in columns:
        table.add_column(header, no_wrap=header in ("player", "interval"), min_width=len(header))
    for row in section["players"]:
        table.add_row(*(shown(f(row)) for _, f in columns))  # names are the config author's text
    return table


def first_seat_line(board: Mapping[str, Any]) -> str:
    parts = [
        f"{g} {v['rating']:+.0f} ({v['low']:+.0f} to {v['high']:+.0f})"
        for g, v in board["combined"]["first_seat_advantage"].items()
    ]
    return "first-seat advantage (rating points): " + "; ".join(parts)


LEGEND = (
    "W-D-L by seat: wins-draws-losses in the 1st · 2nd · ... seat; inv/100: invalid moves per 100 of "
    "the player's moves; forf: forfeits; err: matches given up as errors (not rated); len: average "
    "moves per match; ms/mv, tokens, cost $: LLM players' latency per move, tokens and cost."
)


def markdown(board: Mapping[str, Any]) -> str:
    m = board["matches"]
    pct = round(100 * board["confidence"])
    anchor = board["anchor"]
    lines = [
        f"# {board['arena']}: leaderboard",
        "",
        f"{m['done']} matches rated, {m['errors']} given up as errors, {m['pending']} not played "
        f"(of {m['planned']}). Ratings on the Elo scale, {anchor['player'] or 'the field mean'} = "
        f"{anchor['rating']:g}; {pct} % intervals.",
        "",
        LEGEND,
        "",
        f"## Combined ({board['combined']['model']})",
        "",
        *_md_table(board["combined"]["players"]),
        "",
        first_seat_line(board),
    ]
    for key, g in board["games"].items():
        fsa = g["first_seat_advantage"]
        lines += [
            "",
            f"## {key} ({g['seats']} seats, {g['model']}, {g['matches']} matches)",
            "",
            *_md_table(g["players"]),
            "",
            f"first-seat advantage: {fsa['rating']:+.0f} ({fsa['low']:+.0f} to {fsa['high']:+.0f})",
        ]
    return "\n".join(lines) + "\n"


def _md_table(rows: Sequence[Mapping[str, Any]]) -> list[str]:
    columns = _columns(rows)
    out = ["| " + " | ".join(h for h, _ in columns) + " |", "|" + "---|" * len(columns)]
    out += ["| " + " | ".join(f(r) for _, f in columns) + " |" for r in rows]
    return out


def matches_csv(rows: Sequence[Mapping[str, Any]], path: Path) -> None:
    with path.open("w", newline="", encoding="utf-8") as fh:
        out = csv.writer(fh)
        out.writerow(CSV_COLUMNS)
        for r in rows:
            res, seats = r["result"], r["seats"]
            by = {s["player"]: s for s in seats}
            out.writerow(
                [
                    r["id"],
                    r["round"],
                    r["game"],
                    r["seed"],
                    json.dumps(r["params"], sort_keys=True),
                    " | ".join(r["seating"]),
                    r["status"],
                    r["tries"],
                    res["kind"] if res else "",
                    res["reason"] if res else "",
                    " | ".join(f"{p}:{by[p]['place']}" for p in r["seating"]) if seats else "",
                    " | ".join(f"{p}:{by[p]['score']:g}" for p in r["seating"]) if seats else "",
                    " | ".join(s["player"] for s in seats if s["place"] == 1 and res["kind"] != "draw"),
                    res["moves"] if res else "",
                    res["rounds"] if res else "",
                    " | ".join(f"{p}:{by[p]['invalid']}" for p in r["seating"]) if seats else "",
                    next((s["player"] for s in seats if s["forfeit"]), ""),
                    sum(s["prompt_tokens"] + s["completion_tokens"] for s in seats),
                    round(sum(s["cost_usd"] for s in seats), 6),
                    res["time_s"] if res else "",
                    r["record_dir"] or "",
                    r["last_error"] or "",
                ]
            )


def write_reports(folder: Path, board: Mapping[str, Any], rows: Sequence[Mapping[str, Any]]) -> None:
    """leaderboard.json, leaderboard.md and matches.csv, each replaced whole (never half-written)."""
    for name, text in (
        ("leaderboard.json", json.dumps(board, indent=2) + "\n"),
        ("leaderboard.md", markdown(board)),
    ):
        tmp = folder / f".{name}.tmp"
        tmp.write_text(text, encoding="utf-8")
        tmp.replace(folder / name)
    tmp = folder / ".matches.csv.tmp"
    matches_csv(rows, tmp)
    tmp.replace(folder / "matches.csv")
