"""Which games exist and how to make them.

Built-in games are listed here; other packages add theirs through the ``hexarena.games`` entry
point group, each entry pointing at a :class:`~hexarena.core.contract.GameState` subclass::

    [project.entry-points."hexarena.games"]
    mygame = "mypackage.mygame:MyGameState"

Modules are imported only when a game is made. Listing stays cheap: :func:`game_info` answers
for the built-in games from :data:`BUILTIN_INFO` (checked against the classes by the tests) and
imports only an entry-point game's module.
"""

from __future__ import annotations

import difflib
import importlib
import inspect
import re
from collections.abc import Mapping
from dataclasses import dataclass
from importlib.metadata import entry_points
from typing import Any

from hexarena.core.contract import GameState
from hexarena.core.errors import ConfigError, UnknownGameError

#: name -> "module:attribute" of the game's GameState subclass.
BUILTIN_GAMES: dict[str, str] = {
    "hex": "hexarena.games.hex:HexState",
    "cityofgold": "hexarena.games.cityofgold.state:CityOfGoldState",
    "smallworld": "hexarena.games.smallworld.adapter:SmallWorldState",
    "terranova": "hexarena.games.terranova.adapter:TerraNovaState",
}

ENTRY_POINT_GROUP = "hexarena.games"

#: prefix -> "module:attribute" of a player class made from a file, ``type: PREFIX:PATH`` in a
#: config (``cls(path, name=..., seed=...)``). Named as a string, as a game's bots are, so that core
#: finds the trained-policy player without importing the RL layer above it.
PATH_PLAYERS: dict[str, str] = {"policy": "hexarena.rl.policies:PolicyPlayer"}
PLAYER_KINDS = ("random", "llm", "human")


@dataclass(frozen=True)
class GameInfo:
    """What ``hexarena list`` shows of a game, known without importing (or running) it."""

    name: str
    demo_roles: tuple[str, ...]  # the roles of a game made with the class's demo_params
    bots: tuple[str, ...]  # the game's own player kinds
    summary: str  # the first sentence of the rules summary

    @property
    def players(self) -> tuple[str, ...]:
        return (*PLAYER_KINDS, *sorted(self.bots))


#: Metadata of the built-in games (tests/core checks each against its class).
BUILTIN_INFO: dict[str, GameInfo] = {
    "hex": GameInfo("hex", ("red", "blue"), ("heuristic",), "Hex"),
    "cityofgold": GameInfo(
        "cityofgold",
        ("red", "blue", "white"),
        ("heuristic",),
        "City of Gold, a race to El Dorado on a hex course",
    ),
    "smallworld": GameInfo(
        "smallworld",
        ("red", "blue", "green"),
        ("heuristic",),
        "Small World",
    ),
    "terranova": GameInfo(
        "terranova",
        ("red", "blue", "green", "yellow", "purple", "orange"),
        ("easy", "heuristic", "uniform"),
        "Terra Nova, a Civilization V-style game for six players on a 42 x 66 hex map that wraps east-west",
    ),
}


def _targets() -> dict[str, str]:
    targets = dict(BUILTIN_GAMES)
    for ep in entry_points(group=ENTRY_POINT_GROUP):
        targets.setdefault(ep.name, ep.value)
    return targets


def list_games() -> list[str]:
    """Names of every registered game, sorted."""
    return sorted(_targets())


def summary_line(cls: type[GameState]) -> str:
    """The first sentence of a game's rules summary."""
    return (cls.rules_summary or "").split(". ")[0]


def game_info(name: str) -> GameInfo:
    """A game's listing metadata; only a game from another package is imported for it."""
    if name in BUILTIN_INFO and BUILTIN_GAMES.get(name) == _targets().get(name):
        return BUILTIN_INFO[name]
    cls = game_class(name)
    roles = cls.new(seed=0, **cls.demo_params).all_roles()
    return GameInfo(name, tuple(roles), tuple(sorted(cls.bots)), summary_line(cls))


def game_class(name: str) -> type[GameState]:
    """The GameState subclass registered under ``name``. A built-in game is found without
    scanning the installed packages' entry points (milliseconds: an RL env asks at every reset);
    the built-ins win over entry points of the same name anyway."""
    target = BUILTIN_GAMES.get(name)
    if target is None:
        targets = _targets()
        if name not in targets:
            raise UnknownGameError(f"unknown game {name!r}; known games: {', '.join(sorted(targets))}")
        target = targets[name]
    module_name, _, attr = target.partition(":")
    cls = getattr(importlib.import_module(module_name), attr)
    if not (isinstance(cls, type) and issubclass(cls, GameState)):
        raise UnknownGameError(f"game {name!r} points at {target}, which is not a GameState")
    return cls


#: The documented name of the number of players in game parameters (``-p players=3``); the other
#: spellings in use (City of Gold's ``n_players``, the Small World spec's ``num_players``) are
#: accepted as aliases and renamed to whatever the game's ``new`` calls it.
PLAYER_COUNT = "players"
PLAYER_COUNT_ALIASES = ("n_players", "num_players")


def known_params(cls: type[GameState]) -> list[str] | None:
    """The parameters a game's ``new`` takes, the player count spelled ``players``; None where
    it takes any keyword."""
    accepted = inspect.signature(cls.new).parameters
    if any(p.kind is inspect.Parameter.VAR_KEYWORD for p in accepted.values()):
        return None
    names = [k for k in accepted if k not in ("seed", "cls")]
    return [PLAYER_COUNT if k in PLAYER_COUNT_ALIASES else k for k in names]


def game_params(cls: type[GameState], params: Mapping[str, Any]) -> dict[str, Any]:
    """``params`` with the player count under the game's own name (see :data:`PLAYER_COUNT`);
    an unknown name is a ConfigError naming it and the game's parameters."""
    spellings = (PLAYER_COUNT, *PLAYER_COUNT_ALIASES)
    known = known_params(cls)
    unknown = [k for k in params if known is not None and k not in known and k not in spellings]
    if unknown:
        close = difflib.get_close_matches(unknown[0], known or [], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        listed = ", ".join(known or []) or "none"
        raise ConfigError(f"{cls.name} has no parameter {unknown[0]!r}{hint}; its parameters: {listed}")
    given = [k for k in spellings if k in params]
    if not given:
        return dict(params)
    if len(given) > 1:
        raise ConfigError(f"{cls.name}: give the number of players once, as {PLAYER_COUNT!r} (got {given})")
    own = next((k for k in spellings if k in inspect.signature(cls.new).parameters), None)
    if own is None:
        seats = len(cls.new(seed=0, **cls.demo_params).all_roles())
        raise ConfigError(
            f"{cls.name} is always played by {seats} players; it takes no {given[0]!r} parameter"
        )
    out = {k: v for k, v in params.items() if k != given[0]}
    out[own] = params[given[0]]
    return out


def create_game(cls: type[GameState], seed: int, params: Mapping[str, Any]) -> GameState:
    """A game from a user's parameters; a value the game refuses is a ConfigError in the user's
    own words (``players``, not the game's ``num_players``)."""
    own = game_params(cls, params)
    try:
        return cls.new(seed=seed, **own)
    except (TypeError, ValueError) as exc:
        text = str(exc)
        wrote = next((k for k in (PLAYER_COUNT, *PLAYER_COUNT_ALIASES) if k in params), None)
        if wrote:  # the game (or its engine) may name the player count its own way
            text = re.sub(rf"\b({'|'.join((PLAYER_COUNT, *PLAYER_COUNT_ALIASES))})\b", wrote, text)
        raise ConfigError(f"{cls.name} parameters: {text}") from None


def make(name: str, seed: int = 0, **params: Any) -> GameState:
    """A new game: ``hexarena.make("hex", seed=1, size=7)``."""
    cls = game_class(name)
    return cls.new(seed=seed, **game_params(cls, params))
