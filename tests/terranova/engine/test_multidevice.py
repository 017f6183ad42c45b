"""Both distribution strategies on two forced host devices (a subprocess sets the XLA flag)."""

import json
import subprocess
import sys
from pathlib import Path

import jax
import pytest

from hexarena.games.terranova.engine.mapgen import generate
from hexarena.games.terranova.engine.simulator import build_simulator


@pytest.mark.slow  # a subprocess compiling the sharded step twice: make test-all (the batched step is
# covered by test_simulator in make test; the sharded one matters on multi-device machines)
def test_two_devices_both_strategies():
    script = Path(__file__).with_name("multidevice_run.py")
    proc = subprocess.run(
        [sys.executable, str(script)], capture_output=True, text=True, timeout=900, check=False
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    out = json.loads(proc.stdout)
    assert out["n_devices"] == 2 and out["mesh_size"] == 2
    assert out["split_lead"] == [2, 1] and out["split_shards"] == 2
    assert out["duplicate_lead"] == [2, 1] and out["duplicate_turn"] == [[4], [4]]
    assert out["first_game_matches"] and out["second_games_differ"]


def test_bad_strategy_and_split_count():
    with pytest.raises(ValueError, match="distributed_strategy"):
        build_simulator([generate(0)], "mirror", jax.random.PRNGKey(0))
    devices = [jax.devices()[0]] * 2
    with pytest.raises(ValueError, match="divide"):
        build_simulator([generate(0)] * 3, "split", jax.random.PRNGKey(0), devices=devices)
