"""Train the baselines and write their curves, results and policies (``make train``).

``python -m hexarena.rl.train cityofgold --minutes 45 --jobs 2 --out docs/rl``: evolution strategies
on a move-ranking policy started from a fit to the heuristic's choices (:mod:`.cog_es`);
``--learner ppo --minutes 15``: PPO in JAX (:mod:`.jax_ppo`).
``python -m hexarena.rl.train smallworld --minutes 60 --jobs 2 --out docs/rl``: evolution strategies
on a move-ranking policy (:mod:`.sw_es`); ``--learner ppo --steps 100000``: MaskablePPO
(:mod:`.sb3_train`, needs the ``train`` extra).
Each writes ``OUT/<game>/curve.png``, ``results.json`` and the policy (``policy.json`` /
``policy.npz`` / ``policy.zip``), loadable as a player with ``--players policy:PATH``.
"""

from __future__ import annotations

import argparse
import json
import shlex
import sys
import time
from pathlib import Path
from typing import Any


def plot_curve(
    path: Path,
    steps: list[int],
    returns: list[float],
    wins: list[float],
    title: str,
    more: dict[str, list[float]] | None = None,
    ylabel: str = "mean episode return",
) -> None:
    """A two-panel PNG, 1,100 px wide: mean episode return, and win rates (``wins`` against
    random players, ``more`` other series of the same length) against env steps."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import EngFormatter

    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 3.8), dpi=100)
    a.plot(steps, returns)
    a.set(xlabel="env steps", ylabel=ylabel)
    b.plot(steps, wins, color="tab:green", label="vs random players")
    for label, values in (more or {}).items():
        b.plot(steps, values, label=label)
    b.set(xlabel="env steps", ylabel="win rate", ylim=(-0.02, 1.02))
    b.legend(loc="lower right", fontsize=8)
    for ax in (a, b):
        ax.xaxis.set_major_formatter(EngFormatter())
        ax.xaxis.set_major_locator(plt.MaxNLocator(6))
        ax.grid(alpha=0.3)
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def write_results(out: Path, results: dict[str, Any], argv: list[str] | None = None) -> None:
    results["command"] = "python -m hexarena.rl.train " + shlex.join(sys.argv[1:] if argv is None else argv)
    (out / "results.json").write_text(json.dumps(results, indent=2) + "\n")


def cog_config(args: argparse.Namespace) -> Any:
    """The PPO settings: the default 2-player game (two pawns, three course pieces, 1,000 turns),
    the learner in both seats, a quarter of the envs against random players and the rest against
    itself and a league of its past snapshots; ``--ppo KEY=VALUE`` overrides any field."""
    from hexarena.rl.jax_ppo import PPOConfig

    cfg = PPOConfig(
        num_envs=args.envs,
        num_steps=args.rollout,
        n_pieces=3,
        max_turns=1000,
        gamma=0.995,
        shaping=0.01,
        hidden=256,
        alternate=True,
        random_share=0.25,
        league=8,
        snapshot_every=20,
        pool_size=1024,
    )
    fields = {}
    for item in args.ppo:
        key, _, value = item.partition("=")
        if key not in PPOConfig._fields:
            raise SystemExit(f"--ppo {item!r}: no such setting; settings: {', '.join(PPOConfig._fields)}")
        fields[key] = type(getattr(cfg, key))(json.loads(value))
    return cfg._replace(**fields)


def bare_rate(cfg: Any, seed: int) -> float:
    """Env steps per second of uniform random play on the same engine and batch (the anchor)."""
    import jax

    from hexarena.games.cityofgold.fast import jax_engine as J
    from hexarena.rl.jax_ppo import make_world

    world, jcfg, size = make_world(cfg, seed)
    s = J.batch_init(cfg.num_envs, world.boards, jcfg, size)
    s, _ = J.rollout(s, jax.random.PRNGKey(seed), world.boards, jcfg, size, 16)
    jax.block_until_ready(s)
    start = time.perf_counter()
    s, _ = J.rollout(s, jax.random.PRNGKey(seed + 1), world.boards, jcfg, size, 16)
    jax.block_until_ready(s)
    return 16 * cfg.num_envs / (time.perf_counter() - start)


def train_cityofgold(args: argparse.Namespace) -> dict[str, Any]:
    import jax

    from hexarena.rl.jax_ppo import League, evaluate, make_train, make_world, save_policy
    from hexarena.rl.policies import heuristic_win_rate

    out = Path(args.out) / "cityofgold"
    out.mkdir(parents=True, exist_ok=True)
    cfg = cog_config(args)
    print(f"jax {jax.__version__} on {jax.devices()}; {cfg}", flush=True)
    anchor = bare_rate(cfg, args.seed)
    print(f"bare random play: {anchor:,.0f} env steps/s at {cfg.num_envs} envs", flush=True)
    world, jcfg, size = make_world(cfg, args.seed)
    init, update = make_train(cfg, world, jcfg, size)
    league = League(cfg.league, args.seed)
    start = time.perf_counter()
    runner = init(jax.random.PRNGKey(args.seed))
    runner, _ = update(runner, runner.params)  # compiles
    jax.block_until_ready(runner)
    compiled = time.perf_counter()
    per_update = cfg.num_envs * cfg.num_steps
    total = args.updates or 10**9  # the time budget ends the run first
    curve: dict[str, list] = {"env_steps": [], "mean_return": [], "win_rate": [], "win_rate_vs_self": []}
    acc = dict.fromkeys(("episodes", "wins", "return_sum", "episodes_vs_random", "wins_vs_random"), 0.0)
    done_updates, learner_steps = 1, 0
    for u in range(1, total):
        if (u - 1) % cfg.snapshot_every == 0:
            league.add(runner.params)
        runner, m = update(runner, league.draw(runner.params))
        done_updates = u + 1
        learner_steps += int(m["learner_steps"])
        for k in acc:
            acc[k] += float(m[k])
        if acc["episodes"] >= 64 or u == total - 1:
            vs_self = acc["episodes"] - acc["episodes_vs_random"]
            curve["env_steps"].append(done_updates * per_update)
            curve["mean_return"].append(acc["return_sum"] / max(acc["episodes"], 1))
            curve["win_rate"].append(acc["wins_vs_random"] / max(acc["episodes_vs_random"], 1))
            curve["win_rate_vs_self"].append((acc["wins"] - acc["wins_vs_random"]) / max(vs_self, 1))
            acc = dict.fromkeys(acc, 0.0)
            rate = (done_updates - 1) * per_update / (time.perf_counter() - compiled)
            print(
                f"update {done_updates}: {curve['env_steps'][-1]:,} env steps, {rate:,.0f} env steps/s, "
                f"win vs random {curve['win_rate'][-1]:.2f}, vs league {curve['win_rate_vs_self'][-1]:.2f}, "
                f"entropy {float(m['entropy']):.2f}",
                flush=True,
            )
        if time.perf_counter() - start > args.minutes * 60:
            break
    jax.block_until_ready(runner)
    wall = time.perf_counter() - start
    seconds = time.perf_counter() - compiled  # the updates after the first (which compiled)
    save_policy(out / "policy.npz", runner.params, cfg)
    vs_random = evaluate(runner.params, cfg, games=args.eval_games, seed=10_000 + args.seed)
    vs_heuristic = heuristic_win_rate(
        out / "policy.npz", games=args.heuristic_games, seed=20_000, alternate=True, jobs=args.jobs
    )
    results = {
        "game": "cityofgold",
        "algorithm": "PPO in JAX (hexarena.rl.jax_ppo), whole update jitted; self-play with a league",
        "device": str(jax.devices()[0]),
        "settings": cfg._asdict(),
        "game_params": {"n_players": cfg.n_players, "n_pieces": cfg.n_pieces, "max_turns": cfg.max_turns},
        "win_rate_vs_random": vs_random["win_rate"],
        "games_vs_random": vs_random["games"],
        "win_rate_vs_heuristic": vs_heuristic["win_rate"],
        "games_vs_heuristic": vs_heuristic["games"],
        "heuristic_games": "seeds 20000.., the policy in seat k % 2 of game k (red, then blue)",
        "env_steps": done_updates * per_update,
        "env_steps_note": "every seat's actions (the learner's and its opponents'), as the anchor counts",
        "wall_s": round(wall, 1),
        "compile_s": round(compiled - start, 1),
        "training_env_steps_per_s": round((done_updates - 1) * per_update / seconds),
        "training_learner_steps_per_s": round(learner_steps / seconds),
        "bare_random_env_steps_per_s": round(anchor),
        "curve": curve,
    }
    return results


def plot_results(folder: Path) -> None:
    """Draw ``folder/curve.png`` from ``folder/results.json`` (City of Gold's curve, PPO or ES)."""
    curve = json.loads((folder / "results.json").read_text())["curve"]
    if "win_rate_vs_self" not in curve:
        from hexarena.rl.cog_es import draw_curve

        draw_curve(folder / "curve.png", curve, plot_curve)
        return
    plot_curve(
        folder / "curve.png",
        curve["env_steps"],
        curve["mean_return"],
        curve["win_rate"],
        "PPO (JAX), City of Gold, 2 players x 2 pawns, 3 course pieces: training games",
        {"vs itself and its league": curve["win_rate_vs_self"]},
    )


#: Bot games the ES start is fit to, by game, where ``--bc-games`` is not given.
BC_GAMES = {"cityofgold": 100, "terranova": 16}


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    """The command line's settings, ``--bc-games``, ``--eval-every`` and ``--valid-games``
    defaulting by game (:data:`BC_GAMES`; Terra Nova's held-out games are one batch of 64)."""
    p = argparse.ArgumentParser(prog="python -m hexarena.rl.train", description=__doc__.split("\n")[0])
    p.add_argument(
        "game",
        choices=["cityofgold", "smallworld", "terranova", "plot"],
        help="plot: redraw OUT/cityofgold's curve",
    )
    p.add_argument("--out", default="docs/rl")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--minutes", type=float, default=15.0, help="training wall-clock budget")
    p.add_argument("--updates", type=int, default=None, help="PPO updates at most (cityofgold)")
    p.add_argument("--envs", type=int, default=256)
    p.add_argument("--rollout", type=int, default=64)
    p.add_argument("--steps", type=int, default=100_000, help="env steps (smallworld)")
    p.add_argument("--eval-games", type=int, default=256)
    p.add_argument("--heuristic-games", type=int, default=200)
    p.add_argument("--jobs", type=int, default=1, help="processes for the games against the heuristic")
    p.add_argument("--ppo", action="append", default=[], metavar="KEY=VALUE", help="a PPOConfig field")
    p.add_argument(
        "--generations", type=int, default=None, help="ES generations at most (unset: until --minutes)"
    )
    p.add_argument(
        "--learner",
        choices=["es", "ppo"],
        default="es",
        help="ES move-ranking policy, or PPO (JAX PPO for cityofgold, MaskablePPO for smallworld)",
    )
    p.add_argument(
        "--four-player-games", type=int, default=200, help="cityofgold ES: 4-player games vs heuristics"
    )
    p.add_argument(
        "--bc-games",
        type=int,
        default=None,
        help="bot games the ES start is fit to (cityofgold: 100; terranova: 16, 0 for none)",
    )
    p.add_argument("--bc-iters", type=int, default=300, help="cityofgold ES: Adam steps of that fit")
    sw = p.add_argument_group("Small World (and City of Gold ES)")
    sw.add_argument("--pairs", type=int, default=8, help="ES antithetic pairs per generation")
    sw.add_argument("--sigma", type=float, default=0.5, help="ES perturbation scale")
    sw.add_argument("--lr", type=float, default=0.1, help="ES Adam step size")
    sw.add_argument("--decay", type=float, default=0.005, help="ES weight decay")
    sw.add_argument("--seeds-per-gen", type=int, default=4, help="ES game seeds per generation (x 2 seats)")
    sw.add_argument("--snapshot-every", type=int, default=10, help="ES generations between league snapshots")
    sw.add_argument("--league", type=int, default=8, help="ES past weights kept")
    sw.add_argument(
        "--eval-every",
        type=int,
        default=None,
        help="ES generations between held-out tests (10; terranova: 3)",
    )
    sw.add_argument(
        "--valid-games",
        type=int,
        default=None,
        help="ES held-out games per point: vs the heuristic, 40; terranova: vs random players, 64 (0: none)",
    )
    sw.add_argument("--anchor-seconds", type=float, default=5.0, help="seconds of each bare random-play rate")
    tn = p.add_argument_group("Terra Nova")
    tn.add_argument("--es", action="append", default=[], metavar="KEY=VALUE", help="an ESConfig field")
    tn.add_argument("--eval-minutes", type=float, default=None, help="time for the games vs random")
    tn.add_argument("--bc-minutes", type=float, default=15.0, help="time for the games cloned")
    tn.add_argument(
        "--bc-bot",
        choices=["easy", "heuristic"],
        default="easy",
        help="the bot cloned (easy: its choices follow the game's age and size, which the policy sees)",
    )
    tn.add_argument(
        "--heuristic-minutes",
        type=float,
        default=20.0,
        help="time for the games against the heuristic",
    )
    args = p.parse_args(argv)
    if args.bc_games is None:
        args.bc_games = BC_GAMES.get(args.game, 0)
    terranova = args.game == "terranova"
    if args.eval_every is None:
        args.eval_every = 3 if terranova else 10
    if args.valid_games is None:
        args.valid_games = 64 if terranova else 40
    if args.eval_every < 1 or args.valid_games < 0:
        p.error(
            f"--eval-every must be at least 1 and --valid-games at least 0 "
            f"(given {args.eval_every} and {args.valid_games})"
        )
    return args


def main(argv: list[str] | None = None) -> None:
    args = parse(argv)
    if args.game == "plot":
        plot_results(Path(args.out) / "cityofgold")
        return
    if args.game == "cityofgold" and args.learner == "es":
        from hexarena.rl.cog_es import train_cityofgold_es

        results = train_cityofgold_es(args, plot_curve)
    elif args.game == "cityofgold":
        results = train_cityofgold(args)
    elif args.game == "terranova":
        from hexarena.rl.tn_train import train_terranova

        results = train_terranova(args, plot_curve)
    else:
        if args.learner == "es":
            from hexarena.rl.sw_es import train_smallworld_es

            results = train_smallworld_es(args, plot_curve)
        else:
            from hexarena.rl.sb3_train import train_smallworld

            results = train_smallworld(args, plot_curve)
    write_results(Path(args.out) / args.game, results, argv)
    print(json.dumps({k: v for k, v in results.items() if k != "curve"}, indent=2))
    if args.game == "cityofgold" and args.learner == "ppo":
        try:
            plot_results(Path(args.out) / "cityofgold")
        except ImportError:  # a GPU machine without matplotlib: `... train plot --out DIR` later
            print("matplotlib is not installed: curve.png not drawn (python -m hexarena.rl.train plot)")


if __name__ == "__main__":
    main()
