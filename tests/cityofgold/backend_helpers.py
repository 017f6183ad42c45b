"""Differential driver: step the scalar (python) backend and a batched one with the same actions."""

from __future__ import annotations

from collections import Counter
from typing import Any

import numpy as np

from hexarena.games.cityofgold.actions import MOVE, PASS, SHOP, SPECIAL, Phase, action_kind
from hexarena.games.cityofgold.bot import choose_action
from hexarena.games.cityofgold.vec import VecEnv, get_vec_env, get_vec_sampler

COMPARED = ("observations", "selected_action_masks", "agent_selection", "rewards", "dones", "truncations")


def first_difference(a: np.ndarray, b: np.ndarray, path: str = "") -> str | None:
    """The path of the first field where two (structured) arrays differ, or None."""
    if a.dtype.names is None:
        if np.array_equal(a, b):
            return None
        where = np.argwhere(np.asarray(a != b))[:3].tolist()
        return f"{path} at {where}"
    for name in a.dtype.names:
        found = first_difference(a[name], b[name], f"{path}.{name}")
        if found:
            return found
    return None


def assert_same(ref: VecEnv, other: VecEnv, step: int, done: np.ndarray) -> None:
    for name in COMPARED:
        diff = first_difference(getattr(ref, name), getattr(other, name), name)
        assert diff is None, f"step {step}: {diff}"
    if done.any():
        for name in ("final_observations", "infos"):
            diff = first_difference(getattr(ref, name)[done], getattr(other, name)[done], name)
            assert diff is None, f"step {step}: {diff}"


def run_side_by_side(
    backend: str,
    n: int,
    steps: int,
    seed: int,
    illegal_every: int = 0,
    bots: int = 0,
    eager: int = 0,
    **reset: Any,
) -> Counter[str]:
    """Step both backends ``steps`` times with uniform random legal actions (the first ``bots``
    envs play the heuristic bot instead, so games get won; the next ``eager`` envs play specials
    and buy whenever they can, so every special comes up; every ``illegal_every`` steps env 0
    gets an illegal action); compare everything after every step. Returns counts of what
    happened (action kinds, finishes), so tests can demand coverage."""
    omniscient = reset.pop("omniscient", False)
    ref = get_vec_env(n)(omniscient=omniscient)
    fast = get_vec_env(n, backend)(omniscient=omniscient)
    sampler = get_vec_sampler(n)(seed)
    fast_sampler = get_vec_sampler(n, backend)(seed)
    for env in (ref, fast):
        env.reset(seed, **reset)
    assert_same(ref, fast, -1, np.zeros(n, bool))
    seen: Counter[str] = Counter()
    for t in range(steps):
        actions = sampler.sample(ref.action_masks).copy()
        assert np.array_equal(actions, fast_sampler.sample(fast.action_masks)), f"step {t}: sampler"
        for i in range(bots):
            actions[i] = choose_action(ref.games[i])
        for i in range(bots, bots + eager):
            legal = np.flatnonzero(ref.action_masks[i])
            keen = legal[(legal >= SPECIAL) & (legal < MOVE) | (legal >= SHOP) & (legal < SHOP + 18)]
            if not len(keen) and ref.games[i].phase == Phase.BUYING:
                keen = legal[legal < SPECIAL]  # play every card for money
            if len(keen):
                actions[i] = keen[t % len(keen)]
        if illegal_every and t % illegal_every == 0:
            illegal = np.flatnonzero(~ref.action_masks[0])
            actions[0] = illegal[t % len(illegal)]
        for a in actions:
            kind, arg = action_kind(int(a))
            seen[kind] += 1
            if SPECIAL <= a < MOVE:
                seen[f"special {arg}"] += 1
        seen["shop"] += int(((actions >= SHOP) & (actions < SHOP + 18)).sum())
        seen["pass"] += int((actions == PASS).sum())
        ref.step(actions)
        fast.step(actions)
        assert_same(ref, fast, t, ref.dones)
        assert np.array_equal(ref.invalid, fast.invalid), f"step {t}: invalid"
        seen["invalid"] += int(ref.invalid.sum())
        seen["truncated"] += int(ref.truncations.sum())
        seen["won"] += int((ref.dones & ~ref.truncations).sum())
        seen["blockades"] += int(ref.infos["agents"]["blockades"][ref.dones].sum())
    return seen
