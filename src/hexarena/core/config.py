"""Match configuration: a schema, loading from YAML/TOML/JSON, and ``${ENV}`` expansion.

Errors name the file, the key and what was expected. Values written as ``${NAME}`` are taken
from the environment at load time; the *unexpanded* text is what gets recorded, in every field
(:func:`as_written`), so secrets such as API keys or a URL's password never reach logs or records.
A player's ``name`` is never expanded: it is how records and tables name the player.
"""

from __future__ import annotations

import json
import os
import re
import tomllib
from collections.abc import Mapping
from datetime import date, time
from enum import StrEnum
from pathlib import Path
from typing import Any, Literal

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator, model_validator

from hexarena.core.errors import ConfigError
from hexarena.core.untrusted import is_secret_key, redact_urls

_ENV_RE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: The most values a config may hold once written out (its YAML aliases expanded): real configs
#: hold hundreds.
MAX_CONFIG_VALUES = 100_000
#: What stands in for a secret written literally in a config (records keep no copy of it).
REDACTED = "<redacted>"


class OnExhausted(StrEnum):
    """What happens when a player runs out of attempts (README: "When a player fails")."""

    #: it forfeits and leaves: with two seats or more still playing after it, its seat plays the
    #: game's leave move from then on and the others play on; otherwise the match ends
    LEAVE = "leave"
    #: it forfeits and the match ends for everyone, ranked by score with the forfeiter last
    FORFEIT = "forfeit"
    RANDOM_LEGAL = "random_legal"
    ABORT = "abort"


class Feedback(StrEnum):
    """How much a player is told after a rejected attempt."""

    NONE = "none"
    GENERIC = "generic"
    REASON = "reason"
    REASON_AND_LEGAL = "reason+legal"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class GameConfig(_Strict):
    name: str
    seed: int = 0
    params: dict[str, Any] = Field(default_factory=dict)


#: The one way to price a model, named in the error for any other spelling.
PRICE_HINT = "price: {prompt: USD per million prompt tokens, completion: USD per million completion tokens}"


class Price(_Strict):
    """USD per million tokens: the cost in records, summaries, the leaderboard and budgets."""

    prompt: float = Field(0.0, ge=0)
    completion: float = Field(0.0, ge=0)

    @model_validator(mode="before")
    @classmethod
    def _one_spelling(cls, v: Any) -> Any:
        if isinstance(v, Mapping) and not set(v) <= {"prompt", "completion"}:
            unknown = ", ".join(sorted(str(k) for k in set(v) - {"prompt", "completion"}))
            raise ValueError(f"unknown key(s) {unknown}; write {PRICE_HINT}")
        return v


class PlayerConfig(_Strict):
    """One player. ``type`` is random, scripted, replay, human, callable, llm, or a game's bot."""

    type: str
    name: str | None = None
    roles: list[str] = Field(default_factory=list)
    seed: int = 0
    moves: list[Any] | None = None  # scripted
    record: str | None = None  # replay: a match record directory
    function: str | None = None  # callable: "module:function"
    # llm
    model: str | None = None
    base_url: str | None = None
    api_key: str | None = None
    temperature: float = 0.0
    max_tokens: int = 512
    timeout_s: float = Field(60.0, gt=0)
    show_legal_moves: bool = True
    params: dict[str, Any] = Field(default_factory=dict)
    # llm: prompts (placeholders in hexarena.core.llm.PLACEHOLDERS), reply mode, price per 1M tokens
    system_prompt: str | None = None
    prompt_template: str | None = None
    reply_mode: Literal["tool", "json", "text"] = "tool"
    price: Price | None = None

    @model_validator(mode="before")
    @classmethod
    def _price_not_pricing(cls, v: Any) -> Any:
        if isinstance(v, Mapping) and "pricing" in v:
            raise ValueError(f"'pricing' is not a key; write {PRICE_HINT}")
        return v

    @field_validator("roles", mode="before")
    @classmethod
    def _one_role_is_a_list(cls, v: Any) -> Any:
        return [v] if isinstance(v, str) else v

    @field_validator("system_prompt", "prompt_template")
    @classmethod
    def _known_placeholders(cls, v: str | None) -> str | None:
        from hexarena.core.llm import check_template

        return v if v is None else check_template(v)


class ManagerConfig(_Strict):
    max_rounds: int = Field(1000, ge=1)
    max_attempts_per_turn: int = Field(3, ge=1)
    max_invalid_per_game: int = Field(20, ge=0)
    on_exhausted: OnExhausted = OnExhausted.LEAVE
    feedback: Feedback = Feedback.REASON
    per_move_timeout_s: float | None = Field(None, gt=0)
    per_player_time_budget_s: float | None = Field(None, gt=0)
    # Transport failures of remote players (see hexarena.core.manager): retried with exponential
    # backoff and jitter; the match ends as an error when a request fails transport_retries + 1
    # times in a row or the failed tries and waits of the whole match pass transport_budget_s.
    transport_retries: int = Field(6, ge=0)
    transport_budget_s: float = Field(120.0, ge=0)
    backoff_s: float = Field(0.5, ge=0)
    backoff_max_s: float = Field(20.0, ge=0)


class OutputConfig(_Strict):
    dir: str | None = None
    frames: bool = True


class MatchConfig(_Strict):
    game: GameConfig
    players: list[PlayerConfig] = Field(min_length=1)
    manager: ManagerConfig = Field(default_factory=ManagerConfig)
    output: OutputConfig = Field(default_factory=OutputConfig)


def expand_env(value: Any, where: str = "config") -> Any:
    """Replace ``${NAME}`` by the environment variable's value, recursively.

    A config that expands past :data:`MAX_CONFIG_VALUES` values (a YAML alias bomb: aliases of
    aliases, a few hundred bytes written out to billions of values) is refused, and so is a value
    no record can keep (a TOML or YAML date, binary data, a set).
    """
    count = 0

    def expand(value: Any, where: str) -> Any:
        nonlocal count
        count += 1
        if count > MAX_CONFIG_VALUES:
            raise ConfigError(
                f"{where}: the config expands past {MAX_CONFIG_VALUES:,} values "
                "(YAML aliases that repeat each other?); refused"
            )
        if isinstance(value, str):
            return _ENV_RE.sub(lambda m: _env(m.group(1), where), value)
        if isinstance(value, Mapping):
            return {k: expand(v, f"{where}.{k}") for k, v in value.items()}
        if isinstance(value, list):
            return [expand(v, f"{where}[{i}]") for i, v in enumerate(value)]
        if isinstance(value, date | time | bytes | set):
            kind, shown = type(value).__name__, str(value)[:40]
            raise ConfigError(
                f"{where}: {shown} is a {kind}, which a record cannot keep; write it as a string"
            )
        return value

    return expand(value, where)


def _env(name: str, where: str) -> str:
    if name not in os.environ:
        raise ConfigError(f"{where}: environment variable {name} is not set")
    return os.environ[name]


def redact_secrets(value: Any) -> Any:
    """A copy with every secret-looking key's value replaced and the credentials of every URL
    masked (for records and logs); ``${VAR}`` references stay as written."""
    if isinstance(value, Mapping):
        out = {}
        for k, v in value.items():
            secret = is_secret_key(k) and v is not None and not _is_reference(v)
            out[k] = REDACTED if secret else redact_secrets(v)
        return out
    if isinstance(value, list):
        return [redact_secrets(v) for v in value]
    if isinstance(value, str):
        return redact_urls(value)
    return value


def _is_reference(v: Any) -> bool:
    return isinstance(v, str) and bool(_ENV_RE.fullmatch(v))


def as_written(value: Any, written: Any) -> Any:
    """``value`` (a config read with ``${VAR}`` expanded, or part of one) with every string that
    was written with a ``${VAR}`` in ``written`` (the same part as the file has it) put back as
    written: what records, ids and tables show, whatever the environment holds."""
    if isinstance(written, str) and _ENV_RE.search(written):
        return written
    if isinstance(value, Mapping) and isinstance(written, Mapping):
        return {k: as_written(v, written.get(k)) for k, v in value.items()}
    if isinstance(value, list) and isinstance(written, list) and len(value) == len(written):
        return [as_written(v, w) for v, w in zip(value, written, strict=True)]
    return value


def names_as_written(expanded: Mapping[str, Any], raw: Mapping[str, Any]) -> dict[str, Any]:
    """``expanded`` with each player's ``name`` as ``raw`` has it (a name is never expanded)."""
    players, written = expanded.get("players"), raw.get("players")
    if not (isinstance(players, list) and isinstance(written, list) and len(players) == len(written)):
        return dict(expanded)
    named = [
        {**p, "name": w["name"]} if isinstance(p, Mapping) and isinstance(w, Mapping) and "name" in w else p
        for p, w in zip(players, written, strict=True)
    ]
    return {**expanded, "players": named}


def read_config_file(path: str | Path) -> dict[str, Any]:
    """The raw mapping in a YAML, TOML or JSON file (chosen by extension)."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"{path}: no such config file")
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise ConfigError(f"{path}: not UTF-8 text ({exc.reason} at byte {exc.start})") from None
    try:
        if path.suffix in (".yaml", ".yml"):
            data = yaml.safe_load(text)
        elif path.suffix == ".toml":
            data = tomllib.loads(text)
        elif path.suffix == ".json":
            data = json.loads(text)
        else:
            raise ConfigError(f"{path}: unknown config format {path.suffix!r} (use .yaml, .toml or .json)")
    except (yaml.YAMLError, tomllib.TOMLDecodeError, json.JSONDecodeError) as exc:
        raise ConfigError(f"{path}: not valid {path.suffix[1:].upper()}: {exc}") from exc
    except RecursionError:
        raise ConfigError(f"{path}: nested too deeply to read") from None
    if not isinstance(data, dict):
        raise ConfigError(f"{path}: the top level must be a mapping, got {type(data).__name__}")
    return data


def parse_config(raw: Mapping[str, Any], source: str = "config") -> MatchConfig:
    """Validate a raw mapping (``${ENV}`` expanded first); errors name the key and expectation."""
    expanded = names_as_written(expand_env(dict(raw), source), raw)
    try:
        return MatchConfig.model_validate(expanded)
    except ValidationError as exc:
        problems = []
        for err in exc.errors():
            key = ".".join(str(p) for p in err["loc"]) or "(top level)"
            problems.append(f"{source}: {key}: {err['msg'].removeprefix('Value error, ')}")
        raise ConfigError("; ".join(problems)) from None


def load_config(path: str | Path) -> tuple[MatchConfig, dict[str, Any]]:
    """The validated config and its raw (unexpanded) mapping, which is safe to record."""
    raw = read_config_file(path)
    return parse_config(raw, str(path)), raw
