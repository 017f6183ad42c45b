"""Differential tests: every batched backend equals the scalar reference engine at every step.

Each run steps the python backend (the scalar engine) and a batched one side by side with the
same uniform random legal actions and compares observations, masks, rewards, done flags, terminal
observations and infos after every step; auto-reset follows the shared board-pool schedule.
"""

from __future__ import annotations

import numpy as np
import pytest

from hexarena.games.cityofgold import cards as C
from hexarena.games.cityofgold.actions import HEADS, N_ACTIONS, flat_to_heads, heads_to_flat
from hexarena.games.cityofgold.engine import legal_mask, new_game, step
from hexarena.games.cityofgold.fast.boards import BoardPool, episode_play_seed, schedule
from hexarena.games.cityofgold.observe import ACTION_DTYPE, observe
from hexarena.games.cityofgold.vec import get_runner, get_vec_env, get_vec_sampler

from .backend_helpers import first_difference, run_side_by_side

pytest.importorskip("numba")

CASES = [  # (n_players, n_pieces, difficulty, max_turns, layout, envs, steps); the first 2 envs play the bot
    (4, 3, "easy", 60, "linear", 6, 1500),
    (3, 2, "medium", 200, "linear", 5, 1500),
    (2, 1, "easy", 400, "linear", 5, 1500),
    (4, 1, "hard", 300, "tree", 4, 1500),
    (2, 4, "hard", 80, "linear", 4, 1200),
]


@pytest.mark.parametrize(("n_players", "n_pieces", "difficulty", "max_turns", "layout", "n", "steps"), CASES)
def test_cpu_backend_equals_scalar(n_players, n_pieces, difficulty, max_turns, layout, n, steps):
    seen = run_side_by_side(
        "cpu",
        n,
        steps,
        seed=11 * n_players + n_pieces,
        bots=2,
        n_players=n_players,
        n_pieces=n_pieces,
        difficulty=difficulty,
        max_turns=max_turns,
        layout=layout,
    )
    assert seen["truncated"] + seen["won"] >= n  # auto-reset happened
    assert seen["special"] and seen["shop"] and seen["move"] and seen["discard"]


@pytest.mark.parametrize("backend", ["cpu", "jax"])
def test_batched_backends_cover_wins_blockades_and_every_special(backend):
    """Bots win games and open blockades; eager players play every special."""
    if backend == "jax":
        pytest.importorskip("jax")
    seen = run_side_by_side(
        backend, 8, 2500, seed=5, bots=4, eager=2, n_players=4, n_pieces=3, difficulty="easy", max_turns=1000
    )
    assert seen["won"] >= 1 and seen["blockades"] >= 1 and seen["remove"] and seen["discard"]
    specials = [k for k in range(C.N_CARDS) if C.SPECIAL[k] != C.SPECIAL_NONE]
    assert all(seen[f"special {k}"] for k in specials), seen


def test_cpu_backend_omniscient_and_illegal_actions():
    seen = run_side_by_side(
        "cpu", 3, 600, seed=2, illegal_every=7, omniscient=True, n_players=3, n_pieces=2, max_turns=50
    )
    assert seen["invalid"] >= 80


def test_numba_generator_reproduces_the_scalar_rng():
    from hexarena.core.rng import Rng
    from hexarena.games.cityofgold.fast.numba_engine import randbelow, seed_rng

    for seed in (0, 1, 2**63 + 11):
        ours, ref = np.zeros(2, np.uint64), Rng(seed)
        seed_rng(ours, np.uint64(seed))
        for n in (1, 2, 3, 36, 1000, 2**40 + 7, 2**62 + 3) * 5:
            assert randbelow(ours, n) == ref.randbelow(n)
        assert int(ours[1]) == ref.counter


def test_cached_kernels_are_stamped_with_every_file_they_depend_on(tmp_path):
    """An edit anywhere in the package (a callee in another file, the card data) recompiles the
    kernels, where numba alone would load a stale kernel stamped with its own file only."""
    import shutil

    from hexarena.games.cityofgold.fast import numba_cache, numba_engine, numba_vec

    assert numba_cache.INSTALLED
    for kernel in (numba_vec.step_by_address, numba_engine.apply):
        locator = kernel._cache._impl._locator
        assert type(locator).__name__.startswith("CityOfGold")
        assert locator.get_source_stamp() == numba_cache.FINGERPRINT
    copy = tmp_path / "cityofgold"
    shutil.copytree(numba_cache.PACKAGE, copy, ignore=shutil.ignore_patterns("__pycache__"))
    assert numba_cache.fingerprint(copy) == numba_cache.FINGERPRINT
    cards = copy / "data" / "cards.json"
    cards.write_text(cards.read_text() + "\n")
    assert numba_cache.fingerprint(copy) != numba_cache.FINGERPRINT


def test_pool_schedule_matches_scalar_seeds():
    """Env i < pool size first plays exactly new_game(seed + i); later games walk the pool."""
    pool = BoardPool(40, 3, n_pieces=2)
    for i in range(3):
        a, b = pool.new_game(i, 0, 4, 1000), new_game(40 + i, 4, 2)
        assert a.course == b.course and a.zones == b.zones and a.rng == b.rng
    j, u = schedule(1, 2, 3)
    assert j == (1 + 2 * 1_000_003) % 3 and episode_play_seed(7, int(u), 3) != 7
    boards = pool.arrays()
    assert boards["req_kind"][0].tolist() == list(pool.courses[0].req_kind)
    assert (boards["gate"][1] >= 0).sum() == len(pool.courses[1].gates)


def test_five_head_actions_on_the_cpu_backend():
    n = 4
    ref, fast = get_vec_env(n)(), get_vec_env(n, "cpu")()
    sampler = get_vec_sampler(n)(9)
    for env in (ref, fast):
        env.reset(9, 4, 2, "easy", 40, False)
    heads = np.zeros(n, ACTION_DTYPE)
    for t in range(400):
        flat = sampler.sample(ref.action_masks)
        for i, a in enumerate(flat):
            heads[i] = tuple(flat_to_heads(int(a)).values())
        ref.step(heads)
        fast.step(heads)
        assert first_difference(ref.observations, fast.observations) is None, t
        assert not ref.invalid.any()


@pytest.mark.parametrize(("workers", "n", "steps"), [(1, 5, 300), (2, 5, 300), (3, 5, 300), (2, 70, 200)])
def test_cpu_runner_draws_and_steps_in_one_call_like_the_python_runner(workers, n, steps):
    """One fused kernel call per step, on one thread or cut into ``workers`` runs of envs (70
    envs: past ``PREFETCH_FROM``, the kernel prefetches the next envs' lines)."""
    runs = []
    for backend, w in (("python", 1), ("cpu", workers)):
        envs, samplers = get_vec_env(n, backend)(), get_vec_sampler(n, backend)(4)
        runner = get_runner(n, backend)(envs, samplers, w)
        envs.reset(4, 3, 2, "easy", 30, False)
        runs.append((envs, samplers, runner))
    finished = 0
    for t in range(steps):
        for _, _, runner in runs:
            runner.sample()
            runner.step_sync()
        (ref, ref_s, _), (fast, fast_s, _) = runs
        assert np.array_equal(ref_s.get_actions(), fast_s.get_actions()), t
        assert first_difference(ref.observations, fast.observations) is None, t
        assert np.array_equal(ref.dones, fast.dones) and np.array_equal(ref.rewards, fast.rewards)
        assert [str(e) for e in ref.infos[ref.dones]] == [str(e) for e in fast.infos[fast.dones]], t
        finished += int(fast.dones.sum())
    assert finished >= 5  # auto-reset happened


def test_heads_to_flat_batch_matches_scalar_conversion():
    from hexarena.games.cityofgold.fast.codes import heads_to_flat_batch

    rng = np.random.default_rng(0)
    recs = np.zeros(500, ACTION_DTYPE)
    for h in HEADS:
        recs[h] = rng.integers(0, 3, 500) * rng.integers(0, 8, 500)
    phases = rng.integers(1, 8, 500)
    got = heads_to_flat_batch(recs, phases)
    want = [heads_to_flat({h: int(r[h]) for h in HEADS}, int(p)) for r, p in zip(recs, phases, strict=True)]
    assert got.tolist() == want


def test_scalar_play_seed_keeps_rules_and_observation():
    """``play_seed`` only reseeds the deck: same course, same rules, a valid observation."""
    g = new_game(3, play_seed=12345)
    assert g.course == new_game(3).course
    step(g, N_ACTIONS - 1)
    assert observe(g)["action_mask"].tolist() == legal_mask(g)


# 4 players in make test; 2 and 3 (the same code at other shapes, a minute of compilation each on
# two cores) in make test-all
@pytest.mark.parametrize(
    "n_players", [pytest.param(2, marks=pytest.mark.slow), pytest.param(3, marks=pytest.mark.slow), 4]
)
def test_jax_backend_equals_scalar(n_players):
    """Same settings for every case but the player count (few compiled shapes; 3 players see
    everything); the bot wins some games, the eager player plays specials, the turn cap forces
    auto-resets."""
    pytest.importorskip("jax")
    seen = run_side_by_side(
        "jax",
        4,
        500,
        seed=n_players,
        omniscient=n_players == 3,
        bots=1,
        eager=1,
        illegal_every=50,
        n_players=n_players,
        n_pieces=1,
        max_turns=60,
    )
    assert seen["truncated"] + seen["won"] >= 2 and seen["special"] and seen["invalid"] >= 5


@pytest.mark.parametrize("backend", ["cpu", "jax"])
def test_batched_backends_refuse_the_caves_variant(backend):
    with pytest.raises(ValueError, match="caves"):
        get_vec_env(2, backend)().reset(0, caves=True)


def test_jax_auto_reset_gives_every_finished_env_its_next_game():
    """Fresh games are built a few envs at a time (one at a time below 256 envs): with several
    envs finished in one step, each gets exactly the next game of its schedule."""
    jax = pytest.importorskip("jax")
    from hexarena.games.cityofgold.fast import jax_engine as J

    pool = BoardPool(3, 5, n_pieces=1)
    boards, cfg = J.Boards.from_pool(pool), J.Config(3, 40)
    with jax.enable_x64(True):
        s = J.batch_init(5, boards, cfg, pool.size)
        done = np.array([True, False, True, True, False])
        s = s._replace(truncated=jax.numpy.asarray(done), rewards=s.rewards + 1.0)
        out = jax.jit(J._auto_reset, static_argnums=(2, 3))(s, boards, cfg, pool.size)
        fresh = jax.jit(J._fresh_game, static_argnums=(3, 4))
        for i in range(5):
            want = fresh(s.env[i], s.episode[i] + 1, boards, cfg, pool.size) if done[i] else s
            got = jax.tree.map(lambda x, i=i: x[i], out)
            for field in ("episode", "board", "zones", "pawns", "rng", "legal_action_mask"):
                expected = getattr(want, field) if done[i] else getattr(s, field)[i]
                assert np.array_equal(getattr(got, field), expected), (i, field)
            assert float(got.rewards[0]) == 1.0 and bool(got.truncated) == done[i]  # the outcome stays


def test_jax_backend_needs_no_numba():
    """``pip install hexarena[jax]`` has no numba: the JAX engine shares only plain codes with it,
    and the vec API falls back to the python sampler (the same draws)."""
    import subprocess
    import sys

    pytest.importorskip("jax")
    code = (
        "import sys\n"
        "class NoNumba:\n"
        "    def find_spec(self, name, path, target=None):\n"
        "        if name.split('.')[0] == 'numba':\n"
        "            raise ImportError('no numba here')\n"
        "sys.meta_path.insert(0, NoNumba())\n"
        "from hexarena.games.cityofgold.vec import VecSampler, _backend_classes\n"
        "env, sampler = _backend_classes('jax')\n"
        "assert sampler is VecSampler and env.__name__ == 'JaxVecEnv', (env, sampler)\n"
        "assert 'numba' not in sys.modules\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def test_jax_pgx_style_init_and_step_match_the_scalar_games():
    """``init(key)`` picks a schedule number ``u``; the game is the scalar ``pool.new_game(u, 0)``."""
    jax = pytest.importorskip("jax")
    from hexarena.games.cityofgold.fast.jax_engine import CityOfGold, to_records

    pool = BoardPool(7, 16, n_pieces=1)
    env = CityOfGold(pool, n_players=3, max_turns=12)
    with jax.enable_x64(True):
        state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(3), 2))
        stepper = jax.jit(jax.vmap(env.step))
        games = [pool.new_game(int(u), 0, 3, 12) for u in state.env]
        rng = np.random.default_rng(0)
        for t in range(120):
            for i, g in enumerate(games):
                assert first_difference(to_records(state.observation)[i : i + 1], observe(g)[None]) is None, t
            actions = np.array([rng.choice(np.flatnonzero(legal_mask(g))) for g in games], np.int32)
            state = stepper(state, actions, jax.random.split(jax.random.PRNGKey(t), 2))
            for i, g in enumerate(games):
                step(g, int(actions[i]))
                if g.done:
                    assert bool(state.truncated[i]) == g.truncated
                    games[i] = pool.new_game(int(state.env[i]), int(state.episode[i]), 3, 12)
        assert int(state.episode.sum()) >= 2


def test_jax_random_legal_actions_are_legal_and_uniform():
    jax = pytest.importorskip("jax")
    from hexarena.games.cityofgold.fast.jax_engine import random_legal_actions

    mask = np.zeros((20_000, N_ACTIONS), bool)
    mask[:, [3, 40, 41, 97, N_ACTIONS - 1]] = True
    mask[0] = False  # no legal action: 0
    picks = np.asarray(random_legal_actions(jax.random.PRNGKey(5), jax.numpy.asarray(mask)))
    assert picks[0] == 0 and mask[np.arange(1, len(mask)), picks[1:]].all()
    counts = np.bincount(picks[1:], minlength=N_ACTIONS)[[3, 40, 41, 97, N_ACTIONS - 1]]
    assert np.abs(counts - 20_000 / 5).max() < 5 * np.sqrt(20_000 * 0.2 * 0.8), counts  # 5 sigma


def test_jax_rollout_is_the_batch_step_repeated():
    """The scan-fused rollout gives the state that stepping ``batch_step`` with the same draws
    does, and counts the finished games; only legal actions are drawn."""
    jax = pytest.importorskip("jax")
    from hexarena.games.cityofgold.fast import jax_engine as J

    pool = BoardPool(4, 3, n_pieces=1)
    boards, cfg = J.Boards.from_pool(pool), J.Config(2, 6)
    key, steps = jax.random.PRNGKey(9), 40
    rolled, finished = J.rollout(J.batch_init(3, boards, cfg, pool.size), key, boards, cfg, pool.size, steps)
    s, done = J.batch_init(3, boards, cfg, pool.size), 0
    for k in jax.random.split(key, steps):
        s, invalid = J.batch_step(s, J.random_legal_actions(k, s.legal_action_mask), boards, cfg, pool.size)
        assert not np.asarray(invalid).any()
        done += int((s.terminated | s.truncated).sum())
    assert int(finished) == done >= 3
    for a, b in zip(jax.tree.leaves(rolled), jax.tree.leaves(s), strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))


def test_jax_pgx_style_step_without_auto_reset_keeps_the_finished_game():
    jax = pytest.importorskip("jax")
    from hexarena.games.cityofgold.fast.jax_engine import CityOfGold, random_legal_actions

    env = CityOfGold(BoardPool(2, 4, n_pieces=1), n_players=2, max_turns=3, auto_reset=False)
    with jax.enable_x64(True):
        state = jax.jit(jax.vmap(env.init))(jax.random.split(jax.random.PRNGKey(0), 3))
        stepper = jax.jit(jax.vmap(env.step))
        for t in range(60):
            state = stepper(state, random_legal_actions(jax.random.PRNGKey(t), state.legal_action_mask))
        assert np.asarray(state.truncated).all() and not np.asarray(state.episode).any()
        again = stepper(state, jax.numpy.zeros(3, jax.numpy.int32))
    assert not np.asarray(again.rewards).any() and np.asarray(again.truncated).all()
    assert not np.asarray(again.legal_action_mask).any()
    for a, b in zip(
        jax.tree.leaves(again._replace(rewards=state.rewards)), jax.tree.leaves(state), strict=True
    ):
        assert np.array_equal(np.asarray(a), np.asarray(b))
