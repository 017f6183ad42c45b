"""The ``hexarena`` command: list games, play matches, replay and view records, run the demo."""

from __future__ import annotations

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
from hexarena.core.contract import GameState
from hexarena.core.errors import ConfigError, HexarenaError
from hexarena.core.manager import GameManager, MatchResult
from hexarena.core.records import Record
from hexarena.core.registry import game_class, game_info, list_games

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


def _parse_params(items: list[str]) -> dict[str, Any]:
    params: dict[str, Any] = {}
    for item in items:
        key, sep, value = item.partition("=")
        if not sep or not key:
            raise ConfigError(f"--param expects key=value, got {item!r}")
        params[key] = yaml.safe_load(value)
    return params


def _match_config(
    target: str,
    players: str | None,
    seed: int | None,
    out: Path | None,
    params: list[str],
    max_rounds: int | None,
) -> tuple[MatchConfig, dict[str, Any]]:
    """A match config from a config file or a game name plus options (options win)."""
    if target.endswith(CONFIG_SUFFIXES):
        raw = dict(load_config(target)[1])
    else:
        cls = game_class(target)
        game_params = {**cls.demo_params, **_parse_params(params)}
        try:
            roles = cls.new(seed=seed or 0, **game_params).all_roles()
        except (TypeError, ValueError) as exc:
            raise ConfigError(f"{target} parameters: {exc}") from None
        kinds = players.split(",") if players else ["random"] * len(roles)
        if len(kinds) != len(roles):
            raise ConfigError(
                f"{target} has {len(roles)} roles ({', '.join(roles)}); --players lists {len(kinds)}"
            )
        raw = {
            "game": {"name": target, "seed": seed or 0, "params": game_params},
            "players": [
                {"type": k.strip(), "roles": [r], "seed": i}
                for i, (k, r) in enumerate(zip(kinds, roles, strict=True))
            ],
        }
        players = None
    if seed is not None:
        raw["game"] = {**raw["game"], "seed": seed}
    if max_rounds is not None:
        raw["manager"] = {**raw.get("manager", {}), "max_rounds": max_rounds}
    if out is not None or not raw.get("output", {}).get("dir"):
        default = Path("runs") / f"{raw['game']['name']}-s{raw['game'].get('seed', 0)}"
        raw["output"] = {**raw.get("output", {}), "dir": str(out or default)}
    if players:
        raise ConfigError("--players applies to a game name, not a config file (edit the file's players)")
    return parse_config(raw, target), raw


def _run(config: MatchConfig, raw: dict[str, Any], quiet: bool = False) -> MatchResult:
    """Run a match with a live progress line; return its result."""
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        TextColumn("{task.completed} moves"),
        TextColumn("{task.fields[last]}"),
        TimeElapsedColumn(),
        console=console,
        disable=quiet,
        transient=True,
    )
    with progress:
        task = progress.add_task(config.game.name, total=None, last="")

        def on_move(state: GameState, role: str, text: str) -> None:
            progress.update(task, advance=1, last=f"{role}: {text[:50]}")

        return GameManager(config, raw_config=raw, on_move=on_move).start()


def _summary(result: MatchResult) -> None:
    outcome = result.outcome
    console.print(f"[bold]{result.final_state.name}[/bold]: {outcome.kind.value}, {outcome.reason}")
    table = Table("place", "role", "player", "score", "invalid")
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
            role,
            name,
            f"{outcome.scores[role]:g}",
            str(result.invalid.get(role, 0)),
        )
    console.print(table)
    rate = result.moves / result.time_s if result.time_s else 0.0
    rounds = result.final_state.rounds_played()
    console.print(f"{result.moves} moves, {rounds} rounds, {result.time_s:.2f}s ({rate:,.0f} moves/s)")
    if result.record_dir:
        console.print(f"record: {result.record_dir}  (watch it: hexarena view {result.record_dir})")


@app.command()
def play(
    target: Annotated[
        str, typer.Argument(help="A game name (see `hexarena list`) or a config file (.yaml/.toml/.json).")
    ],
    players: Annotated[
        str | None, typer.Option(help="Comma-separated player types, one per role, e.g. heuristic,random.")
    ] = None,
    seed: Annotated[int | None, typer.Option(help="Game seed.")] = None,
    out: Annotated[Path | None, typer.Option(help="Record directory (default runs/GAME-sSEED).")] = None,
    param: Annotated[
        list[str] | None, typer.Option("--param", "-p", help="Game parameter key=value (repeatable).")
    ] = None,
    max_rounds: Annotated[int | None, typer.Option(help="Round limit (ends as truncated).")] = None,
    quiet: Annotated[bool, typer.Option(help="No live progress display.")] = False,
) -> None:
    """Play one match and write its record."""
    config, raw = _match_config(target, players, seed, out, param or [], max_rounds)
    _summary(_run(config, raw, quiet))


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
    console.print(f"[green]ok[/green]: {len(state.history)} moves replayed; the record's end: {recorded}")
    if show:
        console.print(state.render_text(), markup=False, highlight=False)


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
        console.print(f"wrote {viewer.export_html(record, export)}")
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
        bot = next(iter(sorted(cls.bots)), "random")
        kinds = [bot] + ["random"] * (len(roles) - 1)
        console.rule(f"{name}: {', '.join(kinds)}")
        config, raw = _match_config(name, ",".join(kinds), seed, out / name, [], None)
        _summary(_run(config, raw))
        pages.append(viewer.export_html(out / name, out / name / "replay.html"))
    console.rule("replays")
    for page in pages:
        console.print(f"open in a browser: {page}")


def main() -> None:
    """Entry point: errors the user can fix are one line, not a traceback."""
    try:
        app()
    except HexarenaError as exc:
        console.print(f"[red]error:[/red] {exc}", highlight=False, soft_wrap=True)
        raise SystemExit(2) from None
