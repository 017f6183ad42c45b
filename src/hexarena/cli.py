"""The ``hexarena`` command: list games, play matches, replay and view records, run the demo."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Annotated, Any

import typer
import yaml
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

import hexarena
from hexarena.core.config import MatchConfig, load_config, parse_config
from hexarena.core.contract import GameState, OutcomeKind
from hexarena.core.errors import ConfigError, HexarenaError
from hexarena.core.human import HumanPlayer
from hexarena.core.manager import GameManager, MatchResult
from hexarena.core.records import Record, unique_record_dir
from hexarena.core.registry import (
    PLAYER_COUNT,
    PLAYER_COUNT_ALIASES,
    create_game,
    game_class,
    game_info,
    game_params,
    known_params,
    list_games,
)
from hexarena.core.untrusted import shown, visible

app = typer.Typer(
    help="Hex-map strategy games for AI agents.",
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    add_completion=False,
)
console = Console()
CONFIG_SUFFIXES = (".yaml", ".yml", ".toml", ".json")


def _version(value: bool) -> None:
    if value:
        console.print(f"hexarena {hexarena.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Show the version.")
    ] = False,
) -> None:
    """hexarena: play, record, replay and watch hex-map strategy games."""


@app.command("list")
def list_cmd() -> None:
    """List the games, their roles and their bots."""
    table = Table("game", "roles (demo settings)", "players", "summary")
    for name in list_games():
        info = game_info(name)
        table.add_row(name, ", ".join(info.demo_roles), ", ".join(info.players), info.summary)
    console.print(table)
    console.print(PLAYER_TYPES, highlight=False, markup=False, soft_wrap=True)


#: Every player type, after the table of ``hexarena list`` (the table names each game's own bots).
PLAYER_TYPES = """Player types, in every game:
  random, human, heuristic (where the game has a bot: see the table)
  llm, llm:MODEL, llm:MODEL@BASE_URL   a model behind an OpenAI-compatible API (--model, --base-url)
  policy:PATH                          a trained RL policy file (docs/rl.md)
and in a config file's players (README: Write a config):
  scripted   plays the moves listed under moves: [...] in order
  callable   asks a Python function, function: module:function
  replay     plays the moves of a match record again, record: DIR"""


def _parse_params(items: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--param expects key=value, got {item!r}")
        params[key] = yaml.safe_load(value)
    return params


#: The environment variable the API key of ``--players llm:...`` is read from (``--api-key-env``).
DEFAULT_KEY_ENV = "OPENAI_API_KEY"


def _player_entry(spec: str, llm: dict[str, str | None] | None) -> dict[str, Any]:
    """A config entry for one ``--players`` item: a type, ``policy:PATH`` (a trained policy file)
    or ``llm:MODEL[@BASE_URL]``.

    ``llm`` holds ``--model``, ``--base-url`` and ``--api-key-env``; the key goes into the config
    as a ``${VAR}`` reference, so it is read from the environment and never recorded.
    """
    llm = llm or {}
    kind, _, rest = spec.partition(":")
    if kind == "policy":
        if not rest:
            raise ConfigError(f"--players: {spec!r} needs a file: policy:PATH")
        return {"type": spec}
    if kind != "llm":
        if rest:
            raise ConfigError(
                "--players: only llm and policy take a value "
                f"('llm:MODEL@BASE_URL', 'policy:PATH'), got {spec!r}"
            )
        return {"type": spec}
    model, _, base_url = rest.partition("@")
    model, base_url = model or llm.get("model"), base_url or llm.get("base_url")
    if not model:
        raise ConfigError(
            f"--players: {spec!r} needs a model: llm:MODEL, llm:MODEL@BASE_URL or --model MODEL"
        )
    entry: dict[str, Any] = {"type": "llm", "name": model, "model": model}
    if base_url:
        entry["base_url"] = base_url
    key_env = llm.get("api_key_env") or DEFAULT_KEY_ENV
    if llm.get("api_key_env") or key_env in os.environ:
        entry["api_key"] = "${" + key_env + "}"
    return entry


def _game_setup(
    cls: type[GameState], given: dict[str, Any], seed: int, players: str | None
) -> tuple[dict[str, Any], tuple[str, ...]]:
    """The game's params (demo settings under the user's) and its roles. ``--players`` with a
    number of names the demo settings do not seat sets the number of players, where the game
    lets it be chosen and the user did not (``-p players=N``)."""
    counts = (PLAYER_COUNT, *PLAYER_COUNT_ALIASES)
    wanted = len(players.split(",")) if players else None
    seated = any(k in given for k in counts)
    demo = {k: v for k, v in cls.demo_params.items() if not (seated and k in counts)}
    roles = create_game(cls, seed, {**demo, **given}).all_roles()
    if wanted is None or wanted == len(roles):
        return game_params(cls, {**demo, **given}), roles
    problem = f"{cls.name} has {len(roles)} roles ({', '.join(roles)}); --players lists {wanted}"
    takes_count = any(k in counts for k in known_params(cls) or ())
    if seated or not takes_count:
        raise ConfigError(problem)
    demo = {k: v for k, v in demo.items() if k not in counts}
    try:
        roles = create_game(cls, seed, {**demo, **given, PLAYER_COUNT: wanted}).all_roles()
    except ConfigError as exc:
        raise ConfigError(f"{problem}, and {exc}") from None
    return game_params(cls, {**demo, **given, PLAYER_COUNT: wanted}), roles


def _match_config(
    target: str,
    players: str | None,
    seed: int | None,
    out: Path | None,
    params: list[str],
    max_rounds: int | None,
    llm: dict[str, str | None] | None = None,
) -> tuple[MatchConfig, dict[str, Any]]:
    """A match config from a config file or a game name plus options (options win)."""
    if target.endswith(CONFIG_SUFFIXES):
        raw = dict(load_config(target)[1])
    else:
        cls = game_class(target)
        chosen, roles = _game_setup(cls, _parse_params(params), seed or 0, players)
        kinds = players.split(",") if players else ["random"] * len(roles)
        raw = {
            "game": {"name": target, "seed": seed or 0, "params": chosen},
            "players": [
                {**_player_entry(k.strip(), llm), "roles": [r], "seed": i}
                for i, (k, r) in enumerate(zip(kinds, roles, strict=True))
            ],
        }
        players = None
    if seed is not None:
        raw["game"] = {**raw["game"], "seed": seed}
    if max_rounds is not None:
        raw["manager"] = {**raw.get("manager", {}), "max_rounds": max_rounds}
    if out is not None or not raw.get("output", {}).get("dir"):
        default = out or unique_record_dir("runs", raw["game"]["name"], raw)
        raw["output"] = {**raw.get("output", {}), "dir": str(default)}
    if players:
        raise ConfigError("--players applies to a game name, not a config file (edit the file's players)")
    return parse_config(raw, target), raw


def _run(
    config: MatchConfig | None,
    raw: dict[str, Any],
    quiet: bool = False,
    force: bool = False,
    resume: Path | None = None,
) -> MatchResult:
    """Run (or resume) a match with a live progress line, print its summary, return its result.

    With a person playing there is no progress line (it would be drawn over their typing):
    every accepted move is printed as a line instead, a person's own in full and everyone else's
    as the game describes it to the other players (no hidden choices, no walls of bot JSON).
    """
    if resume is not None or config is None:
        manager = GameManager.resume(resume or Path("."))
    else:
        manager = GameManager(config, raw_config=raw, force=force)
    people = {role for role, player in manager.players.items() if isinstance(player, HumanPlayer)}
    human = bool(people)
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed} moves"),
        TextColumn("{task.fields[last]}"),
        TimeElapsedColumn(),
        console=console,
        disable=quiet or human,
        transient=True,
    )
    with progress:
        task = progress.add_task(manager.config.game.name, total=None, last="")

        def on_move(state: GameState, role: str, text: str) -> None:
            progress.update(task, advance=1, last=shown(f"{role}: {text[:50]}"))
            if human and not quiet:
                told = text if role in people else state.describe_move(state.history[-1])
                console.print(
                    f"[dim]{len(state.history)}.[/dim] {shown(role)}: {shown(told)}", highlight=False
                )

        manager.on_move = on_move
        result = manager.start()
    if human and not quiet:  # the position the last move left, as each person may see it
        for role in sorted(people):
            console.rule(f"final position ({role})")
            console.print(result.final_state.render_text(role), markup=False, highlight=False)
    _summary(result, pace=not human)
    return result


def _usage_cells(usage: dict[str, float]) -> tuple[str, str, str]:
    """Tokens, mean latency per request and cost of one role (blank where not reported)."""
    tokens = f"{usage.get('prompt_tokens', 0):,.0f}/{usage.get('completion_tokens', 0):,.0f}"
    requests = usage.get("requests", 0)
    latency = f"{usage.get('latency_s', 0.0) / requests:.2f}" if requests else ""
    cost = f"{usage['cost_usd']:.4f}" if "cost_usd" in usage else ""
    return (tokens if "prompt_tokens" in usage else "", latency, cost)


def _summary(result: MatchResult, pace: bool = True) -> None:
    """The outcome, the table of places, and the match's size (and speed, without people)."""
    outcome = result.outcome
    console.print(
        f"[bold]{result.final_state.name}[/bold]: {outcome.kind.value}, {shown(outcome.reason)}",
        highlight=False,
    )
    llm_columns = any("prompt_tokens" in u for u in result.usage.values())
    table = Table("place", "role", "player", "score", "invalid")
    if llm_columns:
        for column in ("tokens in/out", "s/request", "cost $"):
            table.add_column(column, justify="right")
    players = {}
    place = 1
    for group in outcome.ranking:
        for role in group:
            players[role] = place
        place += len(group)
    for role in sorted(outcome.scores, key=lambda r: players.get(r, 99)):
        name = result.players.get(role, "")
        table.add_row(
            str(players.get(role, "-")),
            shown(role),
            shown(name),
            f"{outcome.scores[role]:g}",
            str(result.invalid.get(role, 0)),
            *(_usage_cells(result.usage.get(role, {})) if llm_columns else ()),
        )
    console.print(table)
    rounds = result.final_state.rounds_played()
    line = f"{result.moves} moves, {rounds} rounds, {result.time_s:.2f}s"
    if pace:  # a person's game goes at the person's pace: no speed figure
        line += f" ({result.moves / result.time_s if result.time_s else 0.0:,.0f} moves/s)"
    console.print(line)
    if result.record_dir:
        where = shown(result.record_dir)
        console.print(f"record: {where}  (watch it: hexarena view {where})", highlight=False)
    if outcome.kind is OutcomeKind.INTERRUPTED and result.record_dir:
        console.print(f"continue it with: hexarena play --resume {shown(result.record_dir)}", highlight=False)


@app.command()
def play(
    target: Annotated[
        str | None,
        typer.Argument(help="A game name (see `hexarena list`) or a config file (.yaml/.toml/.json)."),
    ] = None,
    players: Annotated[
        str | None, typer.Option(help="Comma-separated player types, one per role, e.g. heuristic,random.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Game seed.")] = None,
    out: Annotated[
        Path | None, typer.Option(help="Record directory (default runs/GAME-TIME-HASH, always a new one).")
    ] = None,
    force: Annotated[
        bool, typer.Option("--force", help="Replace the record already in --out (it is cleared first).")
    ] = False,
    resume: Annotated[
        Path | None,
        typer.Option(help="Continue the interrupted match recorded in this directory (same players, seeds)."),
    ] = None,
    param: Annotated[
        list[str] | None,
        typer.Option(
            "--param", "-p", help="Game parameter key=value (repeatable); players=N seats N players."
        ),
    ] = None,
    max_rounds: Annotated[int | None, typer.Option(help="Round limit (ends as truncated).")] = None,
    quiet: Annotated[bool, typer.Option(help="No live progress display.")] = False,
    model: Annotated[
        str | None, typer.Option(help="Model of the llm players that name none (llm or llm:@URL).")
    ] = None,
    base_url: Annotated[
        str | None, typer.Option(help="OpenAI-compatible API of the llm players that name none.")
    ] = None,
    api_key_env: Annotated[
        str | None,
        typer.Option(
            help=f"Environment variable holding the llm players' API key (default {DEFAULT_KEY_ENV})."
        ),
    ] = None,
) -> None:
    """Play one match and write its record (Ctrl-C stops it; --resume continues it).

    Exit status: 0 when the match ended, 3 when it ended as an error (an API that failed or
    refused the requests; the cause is printed), 2 for a usage or config error, 128 + the
    signal's number when a signal interrupted it (130 for Ctrl-C).
    """
    llm = {"model": model, "base_url": base_url, "api_key_env": api_key_env}
    if resume is not None:
        given = [target, players, seed, out, param, max_rounds, *llm.values()]
        if any(v is not None and v != [] for v in given):
            raise ConfigError("--resume takes only the record directory: the match keeps its settings")
        result = _run(None, {}, quiet, resume=resume)
    elif target is None:
        raise ConfigError("play needs a game name or a config file (or --resume DIR)")
    else:
        if target.endswith(CONFIG_SUFFIXES) and any(llm.values()):
            raise ConfigError("--model, --base-url and --api-key-env apply to a game name, not a config file")
        config, raw = _match_config(target, players, seed, out, param or [], max_rounds, llm)
        result = _run(config, raw, quiet, force)
    _exit_if_errored(result)
    if result.interrupted_by:
        raise typer.Exit(128 + signal.Signals[result.interrupted_by].value)


#: Exit status of a match that ended as an error (``Outcome.kind == "error"``).
EXIT_MATCH_ERROR = 3


def _exit_if_errored(result: MatchResult) -> None:
    """An errored match (infrastructure failure or an abort) prints its cause and exits 3."""
    if result.outcome.kind is OutcomeKind.ERROR:
        reason = shown(result.outcome.reason)  # a server's message may hold [brackets] or escapes
        console.print(f"[red]match error:[/red] {reason}", highlight=False, soft_wrap=True)
        raise typer.Exit(EXIT_MATCH_ERROR)


@app.command()
def replay(
    record: Annotated[Path, typer.Argument(help="A match record directory.")],
    show: Annotated[bool, typer.Option(help="Print the final position.")] = False,
) -> None:
    """Replay a record from its moves and check that it reproduces the recorded end."""
    rec = Record.load(record)
    state = rec.replay()
    outcome = state.validate_game()
    recorded = rec.outcome
    if outcome is not None and outcome != recorded:
        raise HexarenaError(f"{record}: replay ends {outcome}, the record says {recorded}")
    console.print(
        f"[green]ok[/green]: {len(state.history)} moves replayed; the record's end: {shown(recorded)}",
        highlight=False,
    )
    if recorded.kind is OutcomeKind.INTERRUPTED:
        console.print(f"the match was interrupted; continue it with: hexarena play --resume {shown(record)}")
    if show:
        console.print(visible(state.render_text()), markup=False, highlight=False)


@app.command()
def view(
    record: Annotated[
        Path, typer.Argument(help="A match record directory or a frames file (.jsonl / .jsonl.gz).")
    ],
    export: Annotated[
        Path | None, typer.Option(help="Write one self-contained HTML file instead of serving.")
    ] = None,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0 = any free port).")] = 0,
    open_browser: Annotated[bool, typer.Option("--open", help="Open the page in a browser.")] = False,
) -> None:
    """Watch a record in the browser (served on localhost), or export it as one HTML file."""
    from hexarena import viewer

    if export is not None:
        console.print(f"wrote {shown(viewer.export_html(record, export))}")
        return
    url, server = viewer.serve(record, port=port, open_browser=open_browser)
    console.print(f"viewer at {url}  (Ctrl-C to stop)")
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.shutdown()


@app.command()
def demo(
    out: Annotated[Path, typer.Option(help="Where to write the records.")] = Path("runs/demo"),
    seed: Annotated[int, typer.Option(help="Seed of every demo game.")] = 1,
) -> None:
    """A short showcase of every game: bots play, records and offline replay pages are written."""
    from hexarena import viewer

    pages = []
    for name in list_games():
        cls = game_class(name)
        roles = cls.new(seed=seed, **cls.demo_params).all_roles()
        bot = "heuristic" if "heuristic" in cls.bots else next(iter(sorted(cls.bots)), "random")
        kinds = [bot] + ["random"] * (len(roles) - 1)
        console.rule(f"{name}: {', '.join(kinds)}")
        config, raw = _match_config(name, ",".join(kinds), seed, out / name, [], None)
        _run(config, raw, force=True)  # the demo replaces its own records
        pages.append(viewer.export_html(out / name, out / name / "replay.html"))
    console.rule("replays")
    for page in pages:
        console.print(f"open in a browser: {shown(page)}")


from hexarena.arena import cli as _arena_cli  # noqa: E402  (the arena's commands live in its package)

app.command("arena")(_arena_cli.arena)
app.command("leaderboard")(_arena_cli.leaderboard)


def main() -> None:
    """Entry point: errors the user can fix are one line, not a traceback. The message is shown
    as written (``pip install 'hexarena[train]'`` keeps its brackets; escapes show, not act)."""
    try:
        app()
    except HexarenaError as exc:
        console.print(f"[red]error:[/red] {shown(exc)}", highlight=False, soft_wrap=True)
        raise SystemExit(2) from None
