"""Loads the race and power tables from ``assets/`` (read once, then cached)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from hexarena.games.smallworld.enums import PowerName, RaceName

ASSETS = Path(__file__).with_name("assets")


@dataclass(frozen=True, slots=True)
class RaceConfig:
    name: RaceName
    base_tokens: int
    max_tokens: int
    persists_in_decline: bool | str
    rules: str
    tags: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PowerConfig:
    name: PowerName
    bonus_tokens: int
    persists_in_decline: bool | str
    rules: str
    tags: tuple[str, ...]


def _read(path: Path) -> list[dict]:
    with path.open(encoding="utf-8") as fh:
        return json.load(fh)


def load_races(path: Path | None = None) -> dict[RaceName, RaceConfig]:
    rows = _read(path or ASSETS / "races.json")
    return {
        RaceName(r["name"]): RaceConfig(
            RaceName(r["name"]),
            int(r["base_tokens"]),
            int(r["max_tokens"]),
            r["persists_in_decline"],
            r["rules"],
            tuple(r["tags"]),
        )
        for r in rows
    }


def load_powers(path: Path | None = None) -> dict[PowerName, PowerConfig]:
    rows = _read(path or ASSETS / "powers.json")
    return {
        PowerName(p["name"]): PowerConfig(
            PowerName(p["name"]),
            int(p["bonus_tokens"]),
            p["persists_in_decline"],
            p["rules"],
            tuple(p["tags"]),
        )
        for p in rows
    }


@cache
def get_all_races() -> dict[RaceName, RaceConfig]:
    return load_races()


@cache
def get_all_powers() -> dict[PowerName, PowerConfig]:
    return load_powers()


def get_race_config(name: RaceName | str) -> RaceConfig:
    return get_all_races()[RaceName(name)]


def get_power_config(name: PowerName | str) -> PowerConfig:
    return get_all_powers()[PowerName(name)]
