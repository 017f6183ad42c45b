"""Run in a subprocess with two forced host devices: both strategies, compared with one device."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"

import jax
import numpy as np

jax.config.update("jax_compilation_cache_dir", str(Path(__file__).resolve().parents[2] / ".jax_cache"))

from hexarena.games.terranova.mapgen import generate  # noqa: E402
from hexarena.games.terranova.simulator import build_simulator  # noqa: E402
from hexarena.games.terranova.spaces import random_actions  # noqa: E402

STEPS = 4


def play(maps, strategy, devices):
    step, games, tracker, metrics, ids, _obs, mesh, _sh = build_simulator(
        maps, strategy, jax.random.PRNGKey(0), devices=devices
    )
    lead = games.turn.shape
    for i in range(STEPS):
        actions = random_actions(jax.random.PRNGKey(10 + i), lead)
        games, tracker, metrics, ids, _obs, _rew, _done, _ex = step(games, actions, tracker, metrics, ids)
    return games, lead, mesh


def main() -> None:
    devices = jax.devices()
    maps = [generate(0), generate(1)]
    out = {"n_devices": len(devices)}
    two, lead2, mesh = play(maps, "split", devices)
    out["split_lead"] = list(lead2)
    out["mesh_size"] = int(mesh.devices.size)
    out["split_shards"] = len(two.turn.sharding.device_set)
    one, lead1, _ = play(maps, "split", devices[:1])
    out["one_device_lead"] = list(lead1)
    same = all(
        np.array_equal(np.asarray(a).reshape(-1), np.asarray(b).reshape(-1))
        for a, b in zip(jax.tree_util.tree_leaves(two), jax.tree_util.tree_leaves(one), strict=True)
    )
    out["split_matches_one_device"] = bool(same)
    dup, lead_d, _ = play(maps[:1], "duplicate", devices)
    out["duplicate_lead"] = list(lead_d)
    out["duplicate_turn"] = np.asarray(dup.player).tolist()
    out["duplicate_cities"] = int(np.asarray(dup.cities.exists).sum())
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
