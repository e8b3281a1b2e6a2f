# `make run`: a short KotH tournament of the built-in bots. `make test`: the test suite.
# Each target creates .venv on first use (Python >= 3.11 and the package registries only).
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: run test test-fast-machine test-slow-machine bench lint typecheck clean

# constraints.txt: the exact versions the tests passed with (issue 31)
$(STAMP): pyproject.toml constraints.txt
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet -c constraints.txt --upgrade pip
	$(BIN)/pip install --quiet -c constraints.txt -e '.[test]'
	$(BIN)/sylver warmup
	touch $(STAMP)

run: $(STAMP)
	rm -rf runs/make-run
	$(BIN)/sylver tournament --rules koth --bot random --bot greedy --bot sage --bot perfect --rounds 2 --seed 1 --out runs/make-run

test: $(STAMP)
	bash scripts/setup-test-env.sh
	$(BIN)/python -m pytest -q

# The suite as on a machine 50 times faster (test-fast-machine) or 20 times slower
# (test-slow-machine) than this one: every search time limit scaled (SYLVER_TEST_TIME_SCALE,
# docs/design.md "Testing"), so that a test whose outcome depends on the machine's speed fails (issue 48)
test-fast-machine: $(STAMP)
	bash scripts/setup-test-env.sh
	SYLVER_TEST_TIME_SCALE=50 $(BIN)/python -m pytest -q

test-slow-machine: $(STAMP)
	bash scripts/setup-test-env.sh
	SYLVER_TEST_TIME_SCALE=0.05 $(BIN)/python -m pytest -q

bench: $(STAMP)
	for f in bench/bench_*.py; do echo "== $$f"; $(BIN)/python $$f || exit 1; done

lint: $(STAMP)
	$(BIN)/ruff check src tests bench

typecheck: $(STAMP)
	$(BIN)/mypy src/sylver

clean:
	rm -rf $(VENV) runs .pytest_cache
