"""Arena configuration: the field of players, the games, the schedule, limits and ratings.

Checked against a schema like match configs (:mod:`hexarena.core.config`); on top of the schema,
:func:`check_arena` checks what only the games can tell (seats, player types) and what the
schedule needs, so every mistake is one line naming its key.
"""

from __future__ import annotations

import functools
import inspect
import json
from collections.abc import Mapping
from enum import StrEnum
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, ValidationError, model_validator

from hexarena.core.config import (
    ManagerConfig,
    PlayerConfig,
    as_written,
    expand_env,
    names_as_written,
    read_config_file,
)
from hexarena.core.errors import ConfigError, HexarenaError
from hexarena.core.player_factory import GENERIC_TYPES
from hexarena.core.registry import game_class

#: Game parameters that set the number of seats, looked for in each game's ``new()``.
SEAT_PARAMS = ("players", "n_players", "num_players")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Budget(_Strict):
    """Spending caps; a match that would start past a cap is left unplayed (rerun with more)."""

    tokens: int | None = Field(None, ge=0)
    cost_usd: float | None = Field(None, ge=0)


class ArenaPlayer(PlayerConfig):
    """A player of the field: any match player config, with a unique ``name``, plus the arena's
    bookkeeping for LLMs (which provider's limits apply, a budget). Its cost comes from the
    player's own ``price``, as in a match's result."""

    name: str = Field(min_length=1)
    provider: str | None = None
    budget: Budget = Field(default_factory=Budget)

    def player_config(self, exclude_defaults: bool = False) -> dict[str, Any]:
        """The match-level player entry (what the manager builds the player from)."""
        return self.model_dump(
            mode="json", exclude={"provider", "budget", "roles"}, exclude_defaults=exclude_defaults
        )


class ArenaGame(_Strict):
    """One game of the arena. ``seats`` sets the player count where the game has a parameter
    for it (``players`` / ``n_players``); ``players`` limits this game to part of the field."""

    name: str
    params: dict[str, Any] = Field(default_factory=dict)
    seats: int | None = Field(None, ge=1)
    players: list[str] | None = None
    label: str | None = None

    @property
    def key(self) -> str:
        return self.label or self.name


class ScheduleKind(StrEnum):
    ROUND_ROBIN = "round_robin"
    GAUNTLET = "gauntlet"
    SWISS = "swiss"


class Schedule(_Strict):
    kind: ScheduleKind = ScheduleKind.ROUND_ROBIN
    #: games per pairing and seating (each rotation of a pairing plays the same seeds)
    games_per_pairing: int = Field(1, ge=1)
    seed: int = 0
    #: gauntlet: the fixed opponents every other player meets
    anchors: list[str] = Field(default_factory=list)
    #: swiss: number of rounds
    rounds: int = Field(3, ge=1)


class ProviderLimits(_Strict):
    concurrency: int | None = Field(None, ge=1)
    requests_per_minute: float | None = Field(None, gt=0)
    budget: Budget = Field(default_factory=Budget)


class Ratings(_Strict):
    #: the player pinned at ``anchor_rating`` (default: the first player of type random)
    anchor: str | None = None
    anchor_rating: float = 1000.0
    bootstrap: int = Field(200, ge=0)
    confidence: float = Field(0.95, gt=0, lt=1)
    #: prior standard deviation of ratings, in rating points (keeps 100 % scores finite)
    prior_sd: float = Field(600.0, gt=0)
    seed: int = 0


class ArenaConfig(_Strict):
    name: str = "arena"
    players: list[ArenaPlayer] = Field(min_length=2)
    games: list[ArenaGame] = Field(min_length=1)
    schedule: Schedule = Field(default_factory=Schedule)
    manager: ManagerConfig = Field(default_factory=ManagerConfig)
    #: how often a match that ends in ``error`` (infrastructure) is tried before it is given up
    max_error_retries: int = Field(2, ge=0)
    providers: dict[str, ProviderLimits] = Field(default_factory=dict)
    ratings: Ratings = Field(default_factory=Ratings)
    frames: bool = True
    out: str | None = None
    #: each player's entry as the file has it (``${VAR}`` unexpanded), by name; set by parse_arena
    _written: dict[str, Any] = PrivateAttr(default_factory=dict)

    @model_validator(mode="after")
    def _unique_names(self) -> ArenaConfig:
        seen: set[str] = set()
        for i, p in enumerate(self.players):
            if p.name in seen:
                raise ValueError(f"players[{i}].name: duplicate player name {p.name!r}")
            seen.add(p.name)
        keys = [g.key for g in self.games]
        for i, key in enumerate(keys):
            if key in keys[:i]:
                raise ValueError(f"games[{i}]: game {key!r} listed twice (give one a distinct label)")
        return self

    def player(self, name: str) -> ArenaPlayer:
        return next(p for p in self.players if p.name == name)

    def written_player(self, name: str, exclude_defaults: bool = False) -> dict[str, Any]:
        """The match-level entry of a player with each ``${VAR}`` as written (for records and ids:
        they must not depend on what the environment holds)."""
        return as_written(self.player(name).player_config(exclude_defaults), self._written.get(name))

    def provider_of(self, name: str) -> str | None:
        """The provider whose limits apply to a player: its ``provider``, else an LLM's host."""
        p = self.player(name)
        if p.provider:
            return p.provider
        if p.type == "llm":
            from urllib.parse import urlparse

            return urlparse(p.base_url or "https://api.openai.com/v1").hostname or "llm"
        return None


def seat_params(game: ArenaGame, where: str) -> tuple[dict[str, Any], int]:
    """The game's params with the seat count applied, and the number of seats; errors name ``where``."""
    params = dict(game.params)
    if game.seats is not None:
        names = [p for p in SEAT_PARAMS if p in inspect.signature(game_class(game.name).new).parameters]
        if names:
            params.setdefault(names[0], game.seats)
    try:
        seats = _seat_count(game.name, json.dumps(params, sort_keys=True))
    except (TypeError, ValueError) as exc:
        key = f"{where}.seats" if game.seats is not None else f"{where}.params"
        raise ConfigError(f"{key}: {game.name} does not accept this: {exc}") from None
    if game.seats is not None and seats != game.seats:
        raise ConfigError(f"{where}.seats: {game.name} takes {seats} players, not {game.seats}")
    return params, seats


@functools.lru_cache(maxsize=64)
def _seat_count(name: str, params_json: str) -> int:
    """How many roles a game has with these params (made once: some games are slow to set up)."""
    return len(game_class(name).new(seed=0, **json.loads(params_json)).all_roles())


def check_arena(config: ArenaConfig) -> None:
    """Checks beyond the schema: games exist and take the seats, players are known, the schedule fits."""
    names = [p.name for p in config.players]
    for i, p in enumerate(config.players):
        if p.type == "human":
            raise ConfigError(f"players[{i}].type: an arena runs unattended; human players cannot take part")
        if p.roles:
            raise ConfigError(f"players[{i}].roles: the arena assigns seats; leave roles out")
    for where, name in [("schedule.anchors", a) for a in config.schedule.anchors] + (
        [("ratings.anchor", config.ratings.anchor)] if config.ratings.anchor else []
    ):
        if name not in names:
            raise ConfigError(f"{where}: unknown player {name!r} (the field: {', '.join(names)})")
    for gi, game in enumerate(config.games):
        where = f"games[{gi}]"
        try:
            cls = game_class(game.name)
        except HexarenaError as exc:
            raise ConfigError(f"{where}.name: {exc}") from None
        for name in game.players or []:
            if name not in names:
                raise ConfigError(f"{where}.players: unknown player {name!r} (the field: {', '.join(names)})")
        field = game_field(config, game)
        for name in field:
            p = config.player(name)
            if p.type not in GENERIC_TYPES and p.type not in cls.bots:
                i = names.index(name)
                known = ", ".join([t for t in GENERIC_TYPES if t != "human"] + sorted(cls.bots))
                raise ConfigError(
                    f"players[{i}].type: {game.name} has no player type {p.type!r} (known: {known})"
                )
        _, seats = seat_params(game, where)
        _check_schedule(config, where, game, field, seats)


def game_field(config: ArenaConfig, game: ArenaGame) -> list[str]:
    """The players that play ``game``, in field order."""
    wanted = set(game.players) if game.players is not None else None
    return [p.name for p in config.players if wanted is None or p.name in wanted]


def _check_schedule(config: ArenaConfig, where: str, game: ArenaGame, field: list[str], seats: int) -> None:
    sched = config.schedule
    if sched.kind is ScheduleKind.GAUNTLET:
        anchors = [a for a in sched.anchors if a in field]
        if not sched.anchors:
            raise ConfigError("schedule.anchors: a gauntlet needs at least one anchor player")
        if len(anchors) < seats - 1:
            raise ConfigError(
                f"schedule.anchors: {game.key} has {seats} seats, so each match needs {seats - 1} "
                f"anchors; {len(anchors)} of its players are anchors"
            )
        if len(field) == len(anchors):
            raise ConfigError(f"schedule.anchors: every player of {game.key} is an anchor; nobody to test")
    elif len(field) < seats:
        raise ConfigError(
            f"{where}: {game.key} has {seats} seats but the schedule has only {len(field)} players for it"
        )
    if sched.kind is ScheduleKind.SWISS and len(field) <= seats:
        raise ConfigError(f"schedule.kind: swiss on {game.key} needs more than {seats} players")


def parse_arena(raw: Mapping[str, Any], source: str = "arena config", expand: bool = True) -> ArenaConfig:
    """Validate a raw mapping (``${ENV}`` expanded unless ``expand`` is False: reading an arena's
    results needs no keys) and run :func:`check_arena`."""
    expanded = names_as_written(expand_env(dict(raw), source), raw) if expand else dict(raw)
    try:
        config = ArenaConfig.model_validate(expanded)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = ".".join(str(p) for p in err["loc"])
            msg = err["msg"].removeprefix("Value error, ")
            problems.append(f"{key}: {msg}" if key else msg)
        raise ConfigError(f"{source}: " + "; ".join(problems)) from None
    try:
        check_arena(config)
    except ConfigError as exc:
        raise ConfigError(f"{source}: {exc}") from None
    written = raw.get("players")
    if isinstance(written, list) and len(written) == len(config.players):
        config._written = {p.name: w for p, w in zip(config.players, written, strict=True)}
    return config


def load_arena(path: str | Path) -> tuple[ArenaConfig, dict[str, Any]]:
    """The checked config and its raw (unexpanded) mapping, which is safe to store."""
    raw = read_config_file(path)
    return parse_arena(raw, str(path)), raw
