"""MaskablePPO (sb3-contrib) on ``hexarena/SmallWorld-v0`` against random players.

No glue: the env's ``action_masks()`` is what MaskablePPO reads. Training uses the shaped reward
(coins gained per turn, see :mod:`.gym`); the win rate is measured with the sparse outcome over
seeded games, before training (the untrained policy) and after. Needs the ``train`` extra.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

import gymnasium as gym
import numpy as np

import hexarena.rl  # noqa: F401  (registers the ids)

ENV_ID = "hexarena/SmallWorld-v0"
PLAYERS = 2


def win_rate(model: Any, games: int, seed: int, opponents: str = "random") -> float:
    """The model in seat 0 (greedy) over seeded games ``seed .. seed + games - 1``."""
    env = gym.make(ENV_ID, players=PLAYERS, opponents=opponents)
    wins = 0
    for k in range(games):
        obs, info = env.reset(seed=seed + k)
        done = False
        while not done:
            action, _ = model.predict(obs, action_masks=info["action_mask"].astype(bool), deterministic=True)
            obs, _, term, trunc, info = env.step(int(action))
            done = term or trunc
        wins += info.get("outcome_reward", 0.0) > 0
    return wins / games


def slim_save(model: Any, path: Path) -> None:
    """Save without Adam's moments (two thirds of the file): a fresh optimizer has none."""
    policy = model.policy
    policy.optimizer = policy.optimizer_class(policy.parameters(), lr=model.learning_rate)
    model.save(path)


def train_smallworld(args: argparse.Namespace, plot_curve: Any) -> dict[str, Any]:
    import torch
    from sb3_contrib import MaskablePPO
    from stable_baselines3.common.callbacks import BaseCallback
    from tqdm import tqdm

    torch.set_num_threads(1)  # a small MLP: more threads only contend on a shared CPU
    out = Path(args.out) / "smallworld"
    out.mkdir(parents=True, exist_ok=True)
    env = gym.make(ENV_ID, players=PLAYERS, opponents="random", reward="shaped", seed=args.seed)
    model = MaskablePPO("MultiInputPolicy", env, n_steps=1024, batch_size=128, seed=args.seed, device="cpu")
    before = win_rate(model, args.eval_games, 50_000)
    curve: dict[str, list] = {"env_steps": [], "mean_return": [], "win_rate": []}

    class Curve(BaseCallback):
        def _on_training_start(self) -> None:
            self.bar = tqdm(total=args.steps, desc="MaskablePPO Small World", unit="step")
            self.returns: list[float] = []
            self.wins: list[float] = []
            self.acc = 0.0

        def _on_step(self) -> bool:
            self.bar.update(1)
            self.acc += float(self.locals["rewards"][0])
            info = self.locals["infos"][0]
            if self.locals["dones"][0]:
                self.returns.append(self.acc)
                self.wins.append(float(info.get("outcome_reward", 0.0) > 0))
                self.acc = 0.0
                if len(self.returns) == 20:
                    curve["env_steps"].append(self.num_timesteps)
                    curve["mean_return"].append(float(np.mean(self.returns)))
                    curve["win_rate"].append(float(np.mean(self.wins)))
                    self.bar.set_postfix(win=f"{curve['win_rate'][-1]:.2f}")
                    self.returns, self.wins = [], []
            return True

        def _on_training_end(self) -> None:
            self.bar.close()

    start = time.perf_counter()
    model.learn(total_timesteps=args.steps, callback=Curve())
    wall = time.perf_counter() - start
    slim_save(model, out / "policy.zip")
    after = win_rate(model, args.eval_games, 50_000)
    heuristic = win_rate(model, args.heuristic_games, 60_000, opponents="heuristic")
    plot_curve(
        out / "curve.png",
        curve["env_steps"],
        curve["mean_return"],
        curve["win_rate"],
        f"MaskablePPO, Small World ({PLAYERS} players), seat 0 vs random",
    )
    return {
        "game": "smallworld",
        "algorithm": "MaskablePPO (sb3-contrib), MultiInputPolicy, shaped reward (0.01 per coin)",
        "players": PLAYERS,
        "win_rate_vs_random_before": before,
        "win_rate_vs_random": after,
        "games_vs_random": args.eval_games,
        "win_rate_vs_heuristic": heuristic,
        "games_vs_heuristic": args.heuristic_games,
        "env_steps": args.steps,
        "wall_s": round(wall, 1),
        "curve": curve,
    }
