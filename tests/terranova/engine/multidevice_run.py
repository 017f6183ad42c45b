"""Run in a subprocess with two forced host devices: both strategies on one compiled step."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

os.environ["XLA_FLAGS"] = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"

import jax
import numpy as np

_default_cache = Path(__file__).resolve().parents[3] / ".jax_cache"
jax.config.update("jax_compilation_cache_dir", os.environ.get("HEXARENA_JAX_CACHE", str(_default_cache)))

from hexarena.games.terranova.engine.mapgen import generate  # noqa: E402
from hexarena.games.terranova.engine.simulator import build_simulator  # noqa: E402
from hexarena.games.terranova.engine.spaces import random_actions  # noqa: E402

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
    split, lead_s, mesh = play(maps, "split", devices)
    out["split_lead"] = list(lead_s)
    out["mesh_size"] = int(mesh.devices.size)
    out["split_shards"] = len(split.turn.sharding.device_set)
    dup, lead_d, _ = play(maps[:1], "duplicate", devices)
    out["duplicate_lead"] = list(lead_d)
    out["duplicate_turn"] = np.asarray(dup.player).tolist()
    # Game (0, 0) has the same map and key under both layouts, so it must be the same game.
    out["first_game_matches"] = all(
        np.array_equal(np.asarray(a)[0, 0], np.asarray(b)[0, 0])
        for a, b in zip(jax.tree_util.tree_leaves(split), jax.tree_util.tree_leaves(dup), strict=True)
    )
    out["second_games_differ"] = not np.array_equal(
        np.asarray(split.layers.terrain)[1, 0], np.asarray(dup.layers.terrain)[1, 0]
    )
    json.dump(out, sys.stdout)


if __name__ == "__main__":
    main()
