# hexarena: `make demo` and `make test` work on a fresh machine with python3 and make.
PY      ?= python3
VENV    := .venv
BIN     := $(VENV)/bin
STAMP   := $(VENV)/.installed
EXTRAS  ?= all

.PHONY: demo test test-all test-llm bench train lint setup clean

setup: $(STAMP)

# (Re)install whenever pyproject.toml changes. Debian's python3-venv is added if venv is missing.
# --no-compile: modules are byte-compiled when first imported, not all at install (22 s less CPU).
$(STAMP): pyproject.toml scripts/setup-system.sh
	@bash scripts/setup-system.sh
	@test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --no-compile -e ".[$(EXTRAS)]"
	@touch $(STAMP)

demo: $(STAMP)
	$(BIN)/hexarena demo --out runs/demo
	$(BIN)/hexarena arena examples/demo-arena.yaml --out runs/demo/arena

# pytest-xdist workers: half the cores, at least two (one process on a 1-core machine). Groups
# (tests/conftest.py): each Terra Nova program family (compiled once, on one worker), else a file.
TEST_WORKERS ?= $(shell c=$$(nproc); n=$$(( c / 2 )); [ $$c -lt 2 ] && echo 0 || { [ $$n -lt 2 ] && echo 2 || echo $$n; })
XDIST = -n $(TEST_WORKERS) --dist loadgroup --no-loadscope-reorder
test: $(STAMP)
	$(BIN)/python -m pytest -m "not slow" $(XDIST) --durations=25

test-all: $(STAMP)
	$(BIN)/python -m pytest $(XDIST)

# A real model end to end (tests/llm_end_to_end.py): llama-cpp-python's OpenAI-compatible server
# on 127.0.0.1 with SmolLM2-135M-Instruct plays one short game of each game through `hexarena play`.
# llama.cpp is compiled (5-8 min of CPU, at low priority, on every core); the default native build
# crashed in libggml-cpu.so on these machines, a portable AVX2 build works. LLAVA_BUILD=OFF leaves out
# the multimodal library (about a third of the compile), which a text model does not use.
LLAMA_CMAKE ?= -DGGML_NATIVE=OFF -DGGML_AVX2=ON -DLLAVA_BUILD=OFF
test-llm: $(STAMP)
	CMAKE_ARGS="$(LLAMA_CMAKE)" CMAKE_BUILD_PARALLEL_LEVEL=$$(nproc) \
		nice -n 19 $(BIN)/python -m pip install -q -e ".[$(EXTRAS),local-llm]"
	$(BIN)/python -m tests.llm_end_to_end

bench: $(STAMP)
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS),bench]"
	$(BIN)/python -m benchmarks

# The RL baselines (docs/rl.md): evolution strategies on City of Gold's move-ranking policy (45 min
# of training, about 50 with its anchors and 600 evaluation games; `--learner ppo --minutes 14
# --envs 256 --rollout 32 --ppo hidden=128` is the older JAX PPO baseline), then evolution
# strategies on Small World's move-ranking policy (65 min of training, about 75 with its anchors
# and 400 evaluation games; `--learner ppo --steps 100000` is the older MaskablePPO baseline);
# each writes docs/rl/<game>/{curve.png,results.json,policy.*}. PyPI's torch brings
# ~4 GB of CUDA wheels; TORCH_INDEX=https://download.pytorch.org/whl/cpu takes the ~200 MB CPU build.
# Terra Nova (behaviour cloning of the easy bot, then ES on the batched simulator at 64 games a batch)
# takes at most ~1.7 h on the 2-core CPU whatever its load: every phase is time-capped (compile ~10 min
# under load, 12 min of cloned games, 20 min of ES, 30 min vs random, 25 min for the 200 games vs the
# heuristic in two processes, each finishing the batch or game it started); 53 min on 2026-11-28.
TORCH_INDEX ?=
train: $(STAMP)
	$(if $(TORCH_INDEX),$(BIN)/python -m pip install -q torch --index-url $(TORCH_INDEX))
	$(BIN)/python -m pip install -q -e ".[$(EXTRAS),train]"
	$(BIN)/python -m hexarena.rl.train cityofgold --minutes 45 --jobs 2 --pairs 8 --sigma 0.3 --lr 0.05 --decay 0 \
		--seeds-per-gen 8 --eval-every 5 --valid-games 100 --out docs/rl
	$(BIN)/python -m hexarena.rl.train smallworld --minutes 65 --jobs 2 --out docs/rl
	HEXARENA_JAX_CACHE=$${HEXARENA_JAX_CACHE:-.jax_cache} $(BIN)/python -m hexarena.rl.train terranova --minutes 20 \
		--es warm_scale=8 --bc-games 16 --bc-minutes 12 --eval-games 256 --eval-minutes 30 \
		--heuristic-games 200 --heuristic-minutes 25 --valid-games 64 --eval-every 3 --jobs 2 --out docs/rl

lint: $(STAMP)
	$(BIN)/ruff check src tests benchmarks
	$(BIN)/ruff format --check src tests benchmarks

clean:
	rm -rf $(VENV) runs .pytest_cache
