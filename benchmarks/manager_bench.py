"""Per-move overhead of the GameManager (random players on Hex 11x11).

The anchor is the same games played by a bare loop (query the view, ask the player, apply the
move) with no manager; the figure is the manager's cost per move, without and with a record.
"""

from __future__ import annotations

import tempfile
import time

import hexarena
from hexarena.core.manager import play_match
from hexarena.core.players import RandomPlayer

GAMES = 40
SIZE = 11


def bare_loop(seed: int) -> int:
    state = hexarena.make("hex", seed=seed, size=SIZE)
    players = {r: RandomPlayer(seed=i) for i, r in enumerate(state.all_roles())}
    for r, p in players.items():
        p.reset((r,), seed)
    while not state.is_over():
        role = state.roles[0]
        state = state.apply(players[role].act(state.query_game(role)).move)
    return len(state.history)


def managed(seed: int, out: str | None) -> int:
    config = {
        "game": {"name": "hex", "seed": seed, "params": {"size": SIZE}},
        "players": [{"type": "random", "seed": 0}, {"type": "random", "seed": 1}],
        "output": {"dir": out, "frames": out is not None},
    }
    return play_match(config).moves


def per_move_us(fn, *args) -> float:
    moves, t0 = 0, time.perf_counter()
    for seed in range(GAMES):
        moves += fn(seed, *args)
    return (time.perf_counter() - t0) / moves * 1e6


def main(repeats: int = 3) -> None:
    best = {"bare": float("inf"), "plain": float("inf"), "recorded": float("inf")}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(repeats):  # interleaved, best of each: steadier on a shared machine
            best["bare"] = min(best["bare"], per_move_us(bare_loop))
            best["plain"] = min(best["plain"], per_move_us(managed, None))
            best["recorded"] = min(best["recorded"], per_move_us(lambda seed: managed(seed, f"{tmp}/{seed}")))
    bare = best["bare"]
    print(f"hex {SIZE}x{SIZE}, {GAMES} random games per figure, best of {repeats} (microseconds per move)")
    print(f"  bare loop (anchor)         {bare:8.1f} us/move")
    for label, us in (("manager, no record", best["plain"]), ("manager, record + frames", best["recorded"])):
        print(f"  {label:<26} {us:8.1f} us/move  ratio {us / bare:5.2f}  overhead {us - bare:6.1f} us")


if __name__ == "__main__":
    main()
