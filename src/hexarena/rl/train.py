"""Train the baselines and write their curves, results and policies (``make train``).

``python -m hexarena.rl.train cityofgold --minutes 15 --out docs/rl``: PPO in JAX (:mod:`.jax_ppo`).
``python -m hexarena.rl.train smallworld --steps 100000 --out docs/rl``: MaskablePPO
(:mod:`.sb3_train`, needs the ``train`` extra).
Each writes ``OUT/<game>/curve.png``, ``results.json`` and the policy (``policy.npz`` /
``policy.zip``), loadable as a player with ``--players policy:PATH``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any


def plot_curve(path: Path, steps: list[int], returns: list[float], wins: list[float], title: str) -> None:
    """A small two-panel PNG: mean episode return and win rate against env steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (a, b) = plt.subplots(1, 2, figsize=(7, 2.6), dpi=80)
    a.plot(steps, returns)
    a.set(xlabel="env steps", ylabel="mean episode return")
    b.plot(steps, wins, color="tab:green")
    b.set(xlabel="env steps", ylabel="win rate vs random", ylim=(-0.02, 1.02))
    fig.suptitle(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_results(out: Path, results: dict[str, Any]) -> None:
    results["command"] = "python -m hexarena.rl.train " + shlex.join(sys.argv[1:])
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")


def train_cityofgold(args: argparse.Namespace) -> dict[str, Any]:
    import jax
    from tqdm import tqdm

    from hexarena.rl.jax_ppo import PPOConfig, evaluate, make_train, make_world, save_policy
    from hexarena.rl.policies import heuristic_win_rate

    out = Path(args.out) / "cityofgold"
    out.mkdir(parents=True, exist_ok=True)
    cfg = PPOConfig(num_envs=args.envs, num_steps=args.rollout)
    world, jcfg, size = make_world(cfg, args.seed)
    init, update = make_train(cfg, world, jcfg, size)
    start = time.perf_counter()
    runner = init(jax.random.PRNGKey(args.seed))
    per_update = cfg.num_envs * cfg.num_steps
    total = args.updates or 10**9  # the time budget ends the run first
    steps, returns, wins = [], [], []
    ep_acc = [0.0, 0.0, 0.0]  # episodes, wins, return sum since the last point
    with tqdm(total=args.updates, desc="PPO (JAX) City of Gold", unit="update") as bar:
        for u in range(total):
            runner, m = update(runner)
            m = {k: float(v) for k, v in m.items()}
            ep_acc = [ep_acc[0] + m["episodes"], ep_acc[1] + m["wins"], ep_acc[2] + m["return_sum"]]
            if ep_acc[0] >= 32 or u == total - 1:
                steps.append((u + 1) * per_update)
                returns.append(ep_acc[2] / max(ep_acc[0], 1))
                wins.append(ep_acc[1] / max(ep_acc[0], 1))
                ep_acc = [0.0, 0.0, 0.0]
            bar.set_postfix(win=f"{wins[-1] if wins else 0:.2f}", ent=f"{m['entropy']:.2f}")
            bar.update()
            if time.perf_counter() - start > args.minutes * 60:
                total = u + 1
                break
    wall = time.perf_counter() - start
    save_policy(out / "policy.npz", runner.params, cfg)
    vs_random = evaluate(runner.params, cfg, games=args.eval_games, seed=10_000 + args.seed)
    vs_heuristic = heuristic_win_rate(out / "policy.npz", games=args.heuristic_games, seed=20_000)
    plot_curve(out / "curve.png", steps, returns, wins, "PPO (JAX), City of Gold, seat 0 vs random")
    return {
        "game": "cityofgold",
        "algorithm": "PPO in JAX (hexarena.rl.jax_ppo), whole update jitted",
        "settings": cfg._asdict(),
        "win_rate_vs_random": vs_random["win_rate"],
        "games_vs_random": vs_random["games"],
        "win_rate_vs_heuristic": vs_heuristic["win_rate"],
        "games_vs_heuristic": vs_heuristic["games"],
        "env_steps": total * per_update,
        "wall_s": round(wall, 1),
        "curve": {"env_steps": steps, "mean_return": returns, "win_rate": wins},
    }


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(prog="python -m hexarena.rl.train", description=__doc__.split("\n")[0])
    p.add_argument("game", choices=["cityofgold", "smallworld"])
    p.add_argument("--out", default="docs/rl")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--minutes", type=float, default=15.0, help="training wall-clock budget")
    p.add_argument("--updates", type=int, default=None, help="PPO updates at most (cityofgold)")
    p.add_argument("--envs", type=int, default=64)
    p.add_argument("--rollout", type=int, default=64)
    p.add_argument("--steps", type=int, default=100_000, help="env steps (smallworld)")
    p.add_argument("--eval-games", type=int, default=256)
    p.add_argument("--heuristic-games", type=int, default=50)
    args = p.parse_args(argv)
    if args.game == "cityofgold":
        results = train_cityofgold(args)
    else:
        from hexarena.rl.sb3_train import train_smallworld

        results = train_smallworld(args, plot_curve)
    write_results(Path(args.out) / args.game, results)
    print(json.dumps({k: v for k, v in results.items() if k != "curve"}, indent=2))


if __name__ == "__main__":
    main()
