"""The ``hexarena arena`` and ``hexarena leaderboard`` commands (registered by :mod:`hexarena.cli`)."""

from __future__ import annotations

import signal
from pathlib import Path
from typing import Annotated

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

from hexarena.arena.config import load_arena
from hexarena.arena.report import first_seat_line, rich_table
from hexarena.arena.runner import load_report, run_arena
from hexarena.core.errors import ConfigError
from hexarena.core.interrupt import MatchInterrupted
from hexarena.core.untrusted import shown

console = Console()


def arena(
    config: Annotated[
        Path, typer.Argument(help="Arena config (.yaml/.toml/.json), e.g. examples/arena.yaml.")
    ],
    address: Annotated[
        str | None,
        typer.Argument(
            help=(
                "With --ray: the Ray cluster to join (e.g. auto, ray://host:10001); on a trusted network "
                "only: anyone who reaches a Ray cluster can run code on it. Without it, a local Ray on "
                "127.0.0.1."
            ),
            show_default=False,
        ),
    ] = None,
    out: Annotated[
        Path | None, typer.Option(help="Arena folder (default: the config's out, else runs/arena-NAME).")
    ] = None,
    workers: Annotated[int, typer.Option(min=1, help="Matches at once (local processes, or Ray CPUs).")] = 1,
    ray: Annotated[
        bool,
        typer.Option("--ray", help="Run on Ray: a local Ray, or the cluster at ADDRESS (--ray ADDRESS)."),
    ] = False,
    quiet: Annotated[bool, typer.Option(help="No live progress display.")] = False,
) -> None:
    """Play a tournament and rate the field; rerun the same command to resume after any crash.

    Ctrl-C (or SIGTERM) stops it: the running match is interrupted and not counted, the table so
    far is printed, and the exit status is 128 + the signal's number (130 for Ctrl-C); a second
    Ctrl-C stops at once. Rerun the same command to go on.
    """
    cfg, raw = load_arena(config)
    if address and not ray:
        raise ConfigError(f"unexpected argument {address!r} (a Ray address goes after --ray)")
    folder = out or Path(cfg.out or f"runs/arena-{cfg.name}")
    progress = Progress(
        TextColumn("[bold]{task.description}"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeRemainingColumn(),
        TextColumn("{task.fields[top]}"),
        console=console,
        disable=quiet,
        transient=True,
    )
    with progress:
        task = progress.add_task(shown(cfg.name), total=None, top="")

        def on_progress(done: int, planned: int, top: list[tuple[str, float]]) -> None:
            leaders = ", ".join(f"{shown(p)} {r:.0f}" for p, r in top[:3])
            progress.update(task, completed=done, total=planned, top=f"top: {leaders}" if leaders else "")

        try:
            summary = run_arena(
                cfg, raw, folder, workers=workers, ray=ray, ray_address=address, on_progress=on_progress
            )
        except MatchInterrupted as exc:
            console.print(
                f"[yellow]stopped at once by {exc.signame}[/yellow]; rerun the same command to go on"
            )
            raise typer.Exit(128 + exc.signum) from None
    show(summary.board, folder)
    if summary.stopped_by:
        console.print(
            f"[yellow]stopped by {summary.stopped_by}[/yellow]: the match it interrupted is not counted; "
            "rerun the same command to go on"
        )
        raise typer.Exit(128 + signal.Signals[summary.stopped_by])
    if summary.unplayed_budget:
        console.print(
            f"[yellow]{len(summary.unplayed_budget)} matches left unplayed:[/yellow] "
            f"{shown(summary.unplayed_budget[0].split(': ', 1)[1])} "
            "(raise the budget and rerun to play them)",
            highlight=False,
        )


def show(board: dict, folder: Path) -> None:
    if not console.is_terminal:  # a log or a pipe: room for every column
        console.width = max(console.width, 120)
    console.print(rich_table(board))
    console.print(shown(first_seat_line(board)), highlight=False)
    m = board["matches"]
    console.print(
        f"{m['done']} matches rated, {m['errors']} errors, {m['pending']} unplayed (of {m['planned']}). "
        f"Per game: {shown(folder / 'leaderboard.md')}; matches: {shown(folder / 'matches.csv')}; "
        f"watch: hexarena view {shown(folder)}"
    )


def leaderboard(
    folder: Annotated[Path, typer.Argument(help="An arena folder (made by `hexarena arena`).")],
) -> None:
    """Print an arena's leaderboard again (from its database; the report files are rewritten)."""
    show(load_report(folder)[0], folder)
