"""Build players from config entries."""

from __future__ import annotations

import importlib
import os
from typing import Any

from hexarena.core.config import PlayerConfig
from hexarena.core.contract import GameState
from hexarena.core.errors import ConfigError, RecordError
from hexarena.core.human import HumanPlayer
from hexarena.core.llm import LLMPlayer
from hexarena.core.players import CallablePlayer, Player, RandomPlayer, ReplayPlayer, ScriptedPlayer
from hexarena.core.registry import PATH_PLAYERS

GENERIC_TYPES = ("random", "scripted", "replay", "human", "callable", "llm")


def _replay_moves(record_dir: str, roles: list[str]) -> list[Any]:
    from hexarena.core.records import Record

    record = Record.load(record_dir)
    moves = [e["move"] for e in record.moves() if not roles or e["role"] in roles]
    if not moves:
        raise RecordError(f"{record_dir}: no recorded moves for role(s) {roles}")
    return moves


def build_player(cfg: PlayerConfig, game: type[GameState], index: int = 0) -> Player:
    """A player for one ``players[index]`` entry of a match config."""
    where = f"players[{index}]"
    kind = cfg.type
    name = cfg.name or f"{kind}-{index + 1}"
    if kind == "random":
        return RandomPlayer(name, seed=cfg.seed)
    if kind == "scripted":
        if cfg.moves is None:
            raise ConfigError(f"{where}.moves: a scripted player needs a list of moves")
        return ScriptedPlayer(cfg.moves, name, as_text=bool(cfg.params.get("as_text", False)))
    if kind == "replay":
        if not cfg.record:
            raise ConfigError(f"{where}.record: a replay player needs a match record directory")
        return ReplayPlayer(_replay_moves(cfg.record, cfg.roles), name)
    if kind == "human":
        return HumanPlayer(name)
    if kind == "callable":
        return CallablePlayer(_import(cfg.function, f"{where}.function"), name)
    if kind == "llm":
        if not cfg.model:
            raise ConfigError(f"{where}.model: an llm player needs a model name")
        return LLMPlayer(
            cfg.model,
            cfg.base_url or os.environ.get("OPENAI_BASE_URL", "https://api.openai.com/v1"),
            cfg.api_key or os.environ.get("OPENAI_API_KEY"),
            name=name,
            temperature=cfg.temperature,
            max_tokens=cfg.max_tokens,
            timeout_s=cfg.timeout_s,
            show_legal_moves=cfg.show_legal_moves,
            extra_body=cfg.params.get("extra_body"),
            system_prompt=cfg.system_prompt,
            prompt_template=cfg.prompt_template,
            reply_mode=cfg.reply_mode,
            price=cfg.price.model_dump() if cfg.price else None,
        )
    prefix, _, path = kind.partition(":")
    if path and prefix in PATH_PLAYERS:  # e.g. policy:PATH, a trained policy file
        player_cls = _import(PATH_PLAYERS[prefix], f"{where}.type")
        return player_cls(path, name=cfg.name, seed=cfg.seed, game=game.name)
    if kind in game.bots:
        bot_cls = _import(game.bots[kind], f"{where}.type")
        return bot_cls(name=name, seed=cfg.seed, **cfg.params)
    known = [*GENERIC_TYPES, *(f"{p}:PATH" for p in PATH_PLAYERS), *sorted(game.bots)]
    raise ConfigError(
        f"{where}.type: unknown player type {kind!r} for {game.name} (known: {', '.join(known)})"
    )


def _import(target: str | None, where: str) -> Any:
    if not target or ":" not in target:
        raise ConfigError(f"{where}: expected 'module:attribute', got {target!r}")
    module, _, attr = target.partition(":")
    try:
        return getattr(importlib.import_module(module), attr)
    except (ImportError, AttributeError) as exc:
        raise ConfigError(f"{where}: cannot import {target!r}: {exc}") from exc
