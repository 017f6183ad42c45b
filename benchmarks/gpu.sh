#!/usr/bin/env bash
# GPU figures on a GPU machine with no package registry, such as this workplace's device machine,
# whose image has Python 3.12 with a CUDA build of JAX but neither city-of-gold 0.0.3 nor pydantic
# (which hexarena's City of Gold path imports).
#
#   bash benchmarks/gpu.sh wheels     # here, with pip: the missing wheels into .whl/ (git-ignored)
#   bash benchmarks/gpu.sh run        # there, with .whl/ carried: install them aside, City of Gold
#   bash benchmarks/gpu.sh terranova  # there: Terra Nova at batch 256-4,096 (needs no wheels)
#   bash benchmarks/gpu.sh train      # there, with .whl/ carried: City of Gold PPO (self-play, league)
#                                     # for MINUTES (default 4) of training, then its evaluation;
#                                     # policy, results.json and curve data into $OUT/cityofgold
#
# PY picks the interpreter (default python3); SIZES and STEPS the batch sizes and the timed steps.
# Each bench prints JAX's devices first: check it found the GPU. On a machine without one,
# `SIZES=2 STEPS=2 bash benchmarks/gpu.sh terranova` is the same path at a CPU-sized batch.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PY:-python3}

case "${1:-}" in
wheels)
    rm -rf .whl
    python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
        --implementation cp --platform manylinux_2_28_x86_64 --platform manylinux_2_17_x86_64 \
        --platform manylinux2014_x86_64 -d .whl \
        city-of-gold==0.0.3 pydantic pydantic-core annotated-types typing-inspection \
        optax absl-py gymnasium pettingzoo cloudpickle farama-notifications typing-extensions
    ls .whl
    ;;
run)
    deps=$(mktemp -d)
    "$PY" -m pip install --quiet --no-index --no-deps --target "$deps" .whl/*.whl
    export PYTHONPATH="$deps:$PWD/src:$PWD" PYTHONUNBUFFERED=1
    "$PY" -c 'import jax; print("jax", jax.__version__, jax.devices())'
    "$PY" -m benchmarks.cityofgold_jax_bench --sizes "${SIZES:-1024,4096,16384,65536}" \
        --steps "${STEPS:-100}" --repeats 3 --package-threads 0
    "$PY" -m benchmarks.cityofgold_jax_bench --sizes "${SIZES:-1024,4096,16384,65536}" --cost
    ;;
terranova)
    # Player turns/s, compile seconds and memory per game, per batch size (cold: cache off).
    deps=$(mktemp -d)
    if compgen -G ".whl/*.whl" >/dev/null; then
        "$PY" -m pip install --quiet --no-index --no-deps --target "$deps" .whl/*.whl
    fi
    export PYTHONPATH="$deps:$PWD/src:$PWD" PYTHONUNBUFFERED=1
    "$PY" -c 'import jax; print("jax", jax.__version__, jax.devices())'
    "$PY" -m benchmarks.terranova_bench --sizes "${SIZES:-256,1024,4096}" --steps "${STEPS:-30}"
    ;;
train)
    # The default 2-player game; ENVS x ROLLOUT env steps per update, ARGS more train options
    # (e.g. "--ppo minibatches=8"). The games against the heuristic run on the host's cores
    # (JOBS processes). Without matplotlib there, draw the curve afterwards where it is installed:
    # python -m hexarena.rl.train plot --out DIR (redraws DIR/cityofgold/curve.png)
    deps=$(mktemp -d)
    "$PY" -m pip install --quiet --no-index --no-deps --target "$deps" .whl/*.whl
    export PYTHONPATH="$deps:$PWD/src:$PWD" PYTHONUNBUFFERED=1
    "$PY" -m hexarena.rl.train cityofgold --learner ppo --out "${OUT:?set OUT to an output folder}" \
        --minutes "${MINUTES:-4}" --envs "${ENVS:-4096}" --rollout "${ROLLOUT:-32}" \
        --jobs "${JOBS:-$(nproc)}" --eval-games 256 --heuristic-games 200 ${ARGS:-}
    ;;
*)
    echo "usage: bash benchmarks/gpu.sh wheels|run|terranova|train" >&2
    exit 2
    ;;
esac
