"""``python -m hexarena.rl.train terranova``: behaviour cloning of a bot (``--bc-bot``, the
``easy`` one by default; :mod:`.tn_bc`), ES from there on the batched simulator (:mod:`.tn_es`),
then its evaluation.

Writes ``OUT/terranova/{policy.npz, curve.png}`` and returns the results (``results.json``):
the ES settings, env steps, wall time, the training rate next to the simulator's bare random-play
rate at the same batch (measured first, in the same process), the win rate against five uniform
random players on map seeds never trained on, and the games against the heuristic bot played
within ``--heuristic-minutes`` through the game contract (one game at a time).
"""

from __future__ import annotations

import argparse
import json
import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax

from hexarena.rl.tn_es import VALID_SEED, ESConfig, bare_rate, evaluate, n_games, train
from hexarena.rl.tn_policy import save

EVAL_SEED = 1_000_000  # map seeds of the games against random players (training uses 0 .. map_pool - 1)
HEURISTIC_SEED = 2_000_000
BC_SEED = 3_000_000  # map seeds of the heuristic games cloned


def es_config(args: argparse.Namespace) -> ESConfig:
    fields = {}
    for item in args.es:
        key, _, value = item.partition("=")
        if key not in ESConfig._fields:
            raise SystemExit(f"--es {item!r}: no such setting; settings: {', '.join(ESConfig._fields)}")
        fields[key] = type(getattr(ESConfig(), key))(json.loads(value))
    return ESConfig(**fields)


def draw_curve(
    path: Path, curve: dict, valid: list[dict], cfg: ESConfig, plot_curve: Callable[..., None]
) -> None:
    """The ES curve, each generation a marker (a short run has only a few), with the held-out
    win rates where they were played."""
    import matplotlib

    held_out = {v["generation"]: v["win_rate"] for v in valid}
    curve = curve | {"held_out": [held_out.get(g, float("nan")) for g in curve["generation"]]}
    if 0 in held_out:  # the cloned start, before any ES step: a point at 0 env steps, held out only
        start = {"env_steps": 0, "held_out": held_out[0]}
        keys = ("env_steps", "mean_margin", "candidates_win_rate", "win_rate_vs_random", "held_out")
        curve = curve | {k: [start.get(k, float("nan")), *curve[k]] for k in keys}
    with matplotlib.rc_context({"lines.marker": "o"}):
        plot_curve(
            path,
            curve["env_steps"],
            curve["mean_margin"],
            curve["candidates_win_rate"],
            f"ES, Terra Nova, {cfg.turn_cap} rounds, one learner vs 5 random players a game: "
            f"margin over the best random (left), wins of the {2 * cfg.pairs} candidates (right)",
            more={
                f"the mean policy ({cfg.monitor} games a generation)": curve["win_rate_vs_random"],
                f"the mean, {valid[0]['games'] if valid else 0} held-out games": curve["held_out"],
            },
            ylabel="candidates' score minus the best random score",
        )


def train_terranova(args: argparse.Namespace, plot_curve: Callable[..., None]) -> dict[str, Any]:
    out = Path(args.out) / "terranova"
    out.mkdir(parents=True, exist_ok=True)
    cfg = es_config(args)
    cache = os.environ.get("HEXARENA_JAX_CACHE")
    if cache and cache.lower() not in ("off", "0", "false", "no", "none"):
        jax.config.update("jax_compilation_cache_dir", cache)  # the tests' cache: the same compiled step
        jax.config.update("jax_persistent_cache_min_compile_time_secs", 1.0)
    print(f"jax {jax.__version__} on {jax.devices()}; {cfg}", flush=True)
    t0 = time.perf_counter()
    anchor = bare_rate(cfg, args.seed)
    took = time.perf_counter() - t0
    print(f"bare random play: {anchor:,.1f} env steps/s at {n_games(cfg)} games ({took:.0f} s)", flush=True)
    log = lambda s: print(s, flush=True)  # noqa: E731
    theta0, bc = None, {"games": 0}
    if args.bc_games:
        from hexarena.rl.tn_bc import collect, fit

        t_bc = time.perf_counter()
        data = collect(args.bc_games, BC_SEED, cfg.turn_cap, args.bc_minutes, log, args.bc_bot)
        theta0, decisions = fit(data)
        bc = {"bot": args.bc_bot, "games": data["games"], "map_seeds": f"{BC_SEED}..", "decisions": decisions}
        bc["wall_s"] = round(time.perf_counter() - t_bc, 1)
        log(f"behaviour cloning: {bc}")
    run = train(
        cfg,
        args.seed,
        args.minutes,
        args.generations,
        theta0=theta0,
        log=log,
        valid_games=args.valid_games,
        valid_every=args.eval_every,
    )
    settings = cfg._asdict() | {"bc_games": bc["games"]}
    save(out / "policy.npz", run["theta"], settings)
    t1 = time.perf_counter()
    vs_random = evaluate(run["theta"], cfg, args.eval_games, EVAL_SEED, minutes=args.eval_minutes)
    vs_random["wall_s"] = round(time.perf_counter() - t1, 1)
    print(f"vs random: {vs_random}", flush=True)
    from hexarena.rl.tn_eval import heuristic_games  # the bot's modules load only for this

    vs_heuristic = heuristic_games(
        out / "policy.npz",
        minutes=args.heuristic_minutes,
        max_games=args.heuristic_games,
        seed=HEURISTIC_SEED,
        turn_cap=cfg.turn_cap,
        jobs=args.jobs,
    )
    print(f"vs heuristic: {vs_heuristic}", flush=True)
    notes = [
        f"{part['games']} of the {asked} games asked against {who} fitted in {minutes} minutes"
        for part, asked, who, minutes in (
            (vs_random, args.eval_games, "random players", args.eval_minutes),
            (vs_heuristic, args.heuristic_games, "the heuristic", args.heuristic_minutes),
        )
        if part["games"] < asked
    ]
    draw_curve(out / "curve.png", run["curve"], run["valid"], cfg, plot_curve)
    return {
        "game": "terranova",
        "algorithm": f"behaviour cloning of the {args.bc_bot} bot's executed choices (hexarena.rl.tn_bc), "
        "then OpenAI-ES (antithetic with common random numbers, centred ranks, Adam; fitness: score "
        "margin over the best of five random players) over a linear preference policy "
        "(hexarena.rl.tn_es, hexarena.rl.tn_policy) on the batched simulator",
        "behaviour_cloning": bc,
        "device": str(jax.devices()[0]),
        "settings": settings,
        "game_params": {"players": 6, "turn_cap": cfg.turn_cap},
        "generations": run["generations"],
        "kept_generation": run["kept_generation"],
        "kept_note": "the weights with the best win rate against random players in the held-out games "
        f"(map seeds {VALID_SEED}.., generation 0 is the cloned start), evaluated below on other seeds",
        "held_out": run["valid"],
        "env_steps": run["env_steps"],
        "env_steps_note": "player turns of every game in the batch (every seat's, as the anchor counts)",
        "wall_s": round(run["wall_s"], 1),
        "training_env_steps_per_s": round(run["env_steps_per_s"], 1),
        "training_rate_note": "generations after the first (which compiles the policy)"
        if run["generations"] > 1
        else "the only generation, the policy's compile included",
        "bare_random_env_steps_per_s": round(anchor, 1),
        "batch_games": n_games(cfg),
        "vs_random": vs_random,
        "win_rate_vs_random": vs_random["win_rate"],
        "games_vs_random": vs_random["games"],
        "vs_heuristic": vs_heuristic,
        "win_rate_vs_heuristic": vs_heuristic["win_rate"],
        "games_vs_heuristic": vs_heuristic["games"],
        "notes": notes,
        "curve": run["curve"],
    }
