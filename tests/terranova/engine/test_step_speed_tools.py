"""The Terra Nova benchmark's anchor export: an anchor git does not know or that predates the
engine/ layout stops with one line, before anything is timed (no import traceback)."""

from __future__ import annotations

import pytest
from benchmarks.terranova_bench import ANCHOR_REF, ENGINE, export_anchor


@pytest.mark.parametrize(
    ("ref", "says"), [("e26c043", "predates the engine/ layout"), ("no-such-ref", "git archive failed")]
)
def test_unusable_anchor_is_one_line(tmp_path, ref: str, says: str) -> None:
    with pytest.raises(SystemExit) as exc:
        export_anchor(ref, str(tmp_path))
    message = str(exc.value)
    assert says in message and ref in message and "\n" not in message


def test_default_anchor_exports(tmp_path) -> None:
    export_anchor(ANCHOR_REF, str(tmp_path))
    assert (tmp_path / ENGINE / "simulator.py").exists()


@pytest.mark.slow  # two compilations of the whole step (minutes of CPU)
def test_batched_step_equals_per_game_step() -> None:
    """``step_games`` (units, city states and restarts run only where some game needs them) gives
    the states, rewards and executed actions of ``vmap(step_game)`` bit for bit, through city-state
    rounds and restarts (a one-round turn cap ends each game after six steps)."""
    import jax
    import numpy as np

    from hexarena.games.terranova.engine.mapgen import generate
    from hexarena.games.terranova.engine.simulator import initial_games
    from hexarena.games.terranova.engine.spaces import random_actions
    from hexarena.games.terranova.engine.step import step_game, step_games

    states = initial_games([generate(0), generate(1)], "duplicate", jax.random.PRNGKey(3), 1, turn_cap=1)[0]
    states = jax.tree_util.tree_map(lambda x: x[0], states)
    batched, per_game = jax.jit(step_games), jax.jit(jax.vmap(step_game))
    a = b = states
    finished = 0
    for i in range(14):
        actions = random_actions(jax.random.PRNGKey(i), (2,))
        out_a, out_b = batched(a, actions), per_game(b, actions)
        leaves_a, leaves_b = jax.tree_util.tree_leaves(out_a), jax.tree_util.tree_leaves(out_b)
        assert all(
            np.asarray(x).tobytes() == np.asarray(y).tobytes()
            for x, y in zip(leaves_a, leaves_b, strict=True)
        )
        a, b, finished = out_a[0], out_b[0], finished + int(np.asarray(out_a[3]).sum())
    assert finished == 4  # each game finished and restarted twice
