"""A Terra Nova ES policy through the game contract: its moves, and games against the heuristic.

:class:`TerraNovaPolicy` turns a role's view into the dense preference move the simulator takes
(nested lists, the contract's dense form), from the same observation the batched simulator gives,
so ``--players policy:docs/rl/terranova/policy.npz`` plays exactly the trained policy.
"""

from __future__ import annotations

import dataclasses
import time
from pathlib import Path
from typing import Any

import jax
import numpy as np

from hexarena.games.terranova.contract.moves import sparse_from_dense
from hexarena.games.terranova.engine.spaces import random_actions
from hexarena.rl.tn_policy import act, load


def random_move(seed: int) -> tuple:
    """The uniform random player's dense move (numpy), from a seed."""
    return jax.tree_util.tree_map(np.asarray, random_actions(jax.random.PRNGKey(seed % 2**31)))


class TerraNovaPolicy:
    """``TerraNovaPolicy(path)(obs, seed)``: the dense move of the policy saved at ``path``."""

    def __init__(self, path: str | Path) -> None:
        loaded = load(path)
        if loaded is None:
            raise ValueError(f"{Path(path).name} is not a Terra Nova policy")
        theta, self.meta = loaded
        self._act = jax.jit(lambda obs, key: act(jax.numpy.asarray(theta), obs, key))

    def __call__(self, obs: dict[str, Any], seed: int) -> tuple:
        out = self._act(obs, jax.random.PRNGKey(seed % 2**31))
        return jax.tree_util.tree_map(np.asarray, out)

    def move(self, obs: dict[str, Any], opts: dict[str, Any], seed: int) -> dict[str, Any]:
        """The same preferences as a sparse move (what a ``policy:PATH`` player answers)."""
        return sparse_from_dense(self(obs, seed), obs, opts)


def apply_dense(state: Any, dense: tuple) -> Any:
    """``state`` (a full :class:`TerraNovaState`) after the mover's dense preference tuple (numpy
    arrays), stepped by the compiled step directly: ``apply`` would take the move as JSON lists
    (a hundred thousand numbers a move), as the PettingZoo env steps too."""
    from hexarena.games.terranova.contract import compiled

    env = state.environment
    new, tracker, executed, done, winner, scores = compiled.step(env.state, env.tracker, dense)
    by = list(env.executed_by)
    by[env.player] = jax.tree_util.tree_map(lambda x: np.asarray(x).tolist(), executed)
    after = dataclasses.replace(
        env,
        player=int(new.player),
        turn=int(new.turn),
        done=bool(done),
        winner=int(winner),
        victory=int(new.victory),
        scores=tuple(float(x) for x in np.asarray(scores)),
        executed=by[env.player],
        executed_by=tuple(by),
        state=new,
        tracker=tracker,
    )
    return state.replace(environment=after, roles=state.roles_for(after))


def own_obs(state: Any) -> dict[str, Any]:
    """The observation (numpy) of the player to move in a full state."""
    from hexarena.games.terranova.contract import compiled

    env = state.environment
    obs, _opts = compiled.view(env.state, env.tracker, env.player)
    return jax.tree_util.tree_map(np.asarray, obs)


def heuristic_games(
    path: str | Path, minutes: float, max_games: int, seed: int, turn_cap: int = 60, jobs: int = 1
) -> dict:
    """Games of the policy, the ``heuristic`` bot and four uniform random players, through the
    contract, until ``max_games`` or ``minutes`` run out: game ``k`` (map and game seed
    ``seed + k``) seats the policy at ``k % 6`` and the bot three seats on. A win is the first place
    by score (or a victory); ``beat_heuristic`` counts games where the policy outscored the bot.
    ``jobs`` processes play games ``j, j + jobs, ...`` side by side (the same games as one)."""
    deadline = time.time() + minutes * 60
    if jobs > 1:
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor

        spawn = multiprocessing.get_context("spawn")  # JAX's threads do not survive a fork
        with ProcessPoolExecutor(jobs, mp_context=spawn) as pool:
            parts = pool.map(
                _play, [(str(path), range(j, max_games, jobs), seed, turn_cap, deadline) for j in range(jobs)]
            )
            played = sorted(game for part in parts for game in part)
    else:
        played = _play((str(path), range(max_games), seed, turn_cap, deadline))
    games = len(played)
    won = sum(w for _, w, _, _ in played)
    beat = sum(int(mine > bots) for _, _, mine, bots in played)
    return {
        "games": games,
        "wins": won,
        "win_rate": won / games if games else 0.0,
        "beat_heuristic": beat,
        "beat_heuristic_rate": beat / games if games else 0.0,
        "mean_score": float(np.mean([m for _, _, m, _ in played])) if played else 0.0,
        "mean_heuristic_score": float(np.mean([b for _, _, _, b in played])) if played else 0.0,
        "setting": "the policy, the heuristic bot (three seats on) and four uniform random players; "
        f"policy in seat k % 6 of game k, seeds {seed}.. (never trained on); stopped after "
        f"{minutes} minutes or {max_games} games ({jobs} process{'es' if jobs > 1 else ''})",
    }


def _play(task: tuple[str, range, int, int, float]) -> list[tuple[int, int, float, float]]:
    """Games ``ks`` (those begun before the deadline, a wall-clock time): each ``(k, the policy
    won, its score, the bot's score)``."""
    from hexarena.games.terranova.adapter import TerraNovaState
    from hexarena.games.terranova.bots.planner import StrategicPlayer

    path, ks, seed, turn_cap, deadline = task
    policy = TerraNovaPolicy(path)
    bot = StrategicPlayer()
    played = []
    for k in ks:
        if time.time() >= deadline:
            break
        state = TerraNovaState.new(seed=seed + k, turn_cap=turn_cap)
        roles = state.all_roles()
        me, them = roles[k % 6], roles[(k + 3) % 6]
        bot.reset(roles, seed + k)
        n = 0
        while state.validate_game() is None:
            role = state.roles[0]
            if role == them:
                before = state.environment
                state = state.apply(bot.act(state.query_game(role)).move)
                if state.environment is before:
                    raise RuntimeError(f"the heuristic's move was refused: {state.message}")
            else:
                draw = (seed + k) * 1000 + n  # each move its own random stream
                dense = policy(own_obs(state), draw) if role == me else random_move(draw)
                state = apply_dense(state, dense)
            n += 1
        final = state.get_scores()
        played.append((k, int(state.validate_game().ranking[0] == (me,)), final[me], final[them]))
    return played


def main(argv: list[str] | None = None) -> None:
    """``python -m hexarena.rl.tn_eval POLICY [--results FILE]``: the games against the heuristic
    again (e.g. after the bot changed), written into ``results.json``'s ``vs_heuristic`` fields."""
    import argparse
    import json

    p = argparse.ArgumentParser(prog="python -m hexarena.rl.tn_eval", description=main.__doc__)
    p.add_argument("policy", type=Path)
    p.add_argument("--games", type=int, default=200)
    p.add_argument("--minutes", type=float, default=60.0)
    p.add_argument("--jobs", type=int, default=1)
    p.add_argument("--seed", type=int, default=2_000_000, help="game k's map and game seed: SEED + k")
    p.add_argument("--turn-cap", type=int, default=60)
    p.add_argument("--results", type=Path, help="a results.json to update")
    args = p.parse_args(argv)
    t0 = time.perf_counter()
    vs = heuristic_games(args.policy, args.minutes, args.games, args.seed, args.turn_cap, args.jobs)
    vs["wall_s"] = round(time.perf_counter() - t0, 1)
    print(json.dumps(vs, indent=2), flush=True)
    if args.results:
        results = json.loads(args.results.read_text())
        results |= {
            "vs_heuristic": vs,
            "win_rate_vs_heuristic": vs["win_rate"],
            "games_vs_heuristic": vs["games"],
        }
        notes = [n for n in results.get("notes", []) if "against the heuristic" not in n]
        if vs["games"] < args.games:
            asked = f"{vs['games']} of the {args.games} games asked against the heuristic"
            notes.append(f"{asked} fitted in {args.minutes} minutes")
        results["notes"] = notes
        args.results.write_text(json.dumps(results, indent=2) + "\n")


if __name__ == "__main__":
    main()
