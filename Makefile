# Set-up and the project's jobs. Everything installs into .venv from the package registries.
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: setup demo test lint bench lengths clean

setup: $(VENV)/.installed

$(VENV)/.installed: pyproject.toml examples/pebble_piles/pyproject.toml
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip
	# The CPU build of PyTorch first (a file on this disk); anything else pulls a CUDA build.
	$(PY) -m pip install -q torch==2.13.0
	$(PY) -m pip install -q -e '.[dev,clients]'
	# The example game installed from outside the package (its entry point registers it;
	# tests/test_example_game.py and the shared suite run on it).
	$(PY) -m pip install -q -e examples/pebble_piles
	touch $@

# The main job: simulate a few games between random agents and show the last one.
demo: setup
	$(VENV)/bin/monkey-palace simulate --games 5 --players 3 --map 1 --butterfly --frog --seed 7 --out out/demo
	$(VENV)/bin/monkey-palace show out/demo/game_11.json --png out/demo/game_11.png

# Two workers (CI's machine has 2 cores), each test file whole on one worker so the programs a
# file compiles are shared by its tests; the slowest tests listed at the end.
TEST_WORKERS ?= 2
test: setup
	$(PY) -m pytest -n $(TEST_WORKERS) --dist loadfile --durations=30

# ruff's checks (pyproject.toml's [tool.ruff]); CI runs them before the tests.
lint: setup
	$(VENV)/bin/ruff check .

bench: setup
	$(PY) -m pip install -q -e ".[bench]"
	$(VENV)/bin/monkey-palace bench

# Game lengths over many random games (docs/DATA.md reports them).
lengths: setup
	$(PY) -m experiments.game_lengths --games 1000

clean:
	rm -rf $(VENV) out build dist *.egg-info
