"""Single-agent Gymnasium envs: env steps per CPU second with random legal actions.

One env step is the learner's action, the random opponents' replies, the next observation and
the action mask. Each game is measured through its fast core (the mutable engine, what
``gymnasium.make`` gives) next to the contract path (``engine="contract"``: immutable states, the
adapter before issue 18) in the same run; the ratio is the speed-up.

    python -m benchmarks rl
    python -m benchmarks.rl_bench --seconds 5
"""

from __future__ import annotations

import argparse
import time

import numpy as np

from hexarena.rl import HexarenaGymEnv

CASES = (
    ("smallworld", {"players": 2}),
    ("smallworld", {"players": 4}),
    ("cityofgold", {"n_players": 2}),
    ("cityofgold", {"n_players": 4}),
    ("hex", {"size": 7}),
)
TARGETS = {"smallworld": 2_000, "cityofgold": 20_000}


def steps_per_second(game: str, params: dict, engine: str, seconds: float, seed: int = 0) -> float:
    """Env steps per CPU second of uniform random legal actions, resets included."""
    env = HexarenaGymEnv(game, engine=engine, **params)
    rng = np.random.default_rng(seed)
    _, info = env.reset(seed=seed)
    steps, start = 0, time.process_time()
    while time.process_time() - start < seconds:  # the clock read costs µs: once per 64 steps
        for _ in range(64):
            legal = np.flatnonzero(info["action_mask"])
            _, _, term, trunc, info = env.step(int(legal[rng.integers(len(legal))]))
            steps += 1
            if term or trunc:
                _, info = env.reset(seed=seed + steps)
    return steps / (time.process_time() - start)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=4.0, help="CPU seconds per measurement")
    args = parser.parse_args(argv if argv is not None else [])
    print(f"{'game':<11} {'params':<15} {'contract/s':>10} {'fast/s':>9} {'ratio':>6} {'target':>7}")
    for game, params in CASES:
        slow = steps_per_second(game, params, "contract", args.seconds)
        fast = steps_per_second(game, params, "fast", args.seconds)
        target = TARGETS.get(game)
        print(
            f"{game:<11} {' '.join(f'{k}={v}' for k, v in params.items()):<15} {slow:>10.0f} {fast:>9.0f}"
            f" {fast / slow:>6.1f} {target or '-':>7}"
        )


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
