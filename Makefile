# Two commands on a fresh machine with Python >= 3.11 and make:
#   make run   - set up .venv and start the web table (prints the URL; Ctrl-C stops it)
#   make arena - the Kalah arena tournament (results/make-run.jsonl)
#   make test  - set up .venv with dev extras; ruff, mypy --strict on src/, pytest (tests/)
#   make bench - benchmarks/run_all.py: `spielwerk bench`, then every speed check in benchmarks/
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?=
PORT ?= 8000

.PHONY: run arena test install install-dev lint typecheck bench clean warmup browser

$(PY):
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e .
	touch $@

$(VENV)/.installed-dev: pyproject.toml | $(PY)
	$(PY) -m pip install -q -e ".[dev]"
	touch $@ $(VENV)/.installed

install: $(VENV)/.installed $(VENV)/.warmed
install-dev: $(VENV)/.installed-dev

# compile the numba kernels into the user's cache folder once, not on the first command
$(VENV)/.warmed: $(VENV)/.installed
	$(VENV)/bin/spielwerk warmup
	touch $@

warmup: $(VENV)/.installed
	$(VENV)/bin/spielwerk warmup

# the table serves at once; on a fresh machine its engine workers compile the kernels in
# the background (the lobby says "engines warming up"; tables wait for their first move)
run: $(VENV)/.installed
	$(VENV)/bin/spielwerk serve --host 127.0.0.1 --port $(PORT)

arena: $(VENV)/.installed
	$(VENV)/bin/spielwerk arena kalah random greedy alphabeta:depth=2 alphabeta:depth=4 \
		alphabeta:depth=8 --games 100 --seed 1 --output results/make-run.jsonl --fresh

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check src tests benchmarks experiments

typecheck: $(VENV)/.installed-dev
	$(VENV)/bin/mypy --strict src

# the web table's browser tests drive Debian's chromium (Playwright's own download is not
# reachable everywhere): installed with apt when missing; without it those tests skip
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
		SUDO=""; if [ "$$(id -u)" != "0" ] && command -v sudo >/dev/null; then SUDO="sudo -n"; fi; \
		( $$SUDO apt-get update -qq && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -qq chromium ) \
		|| echo "chromium could not be installed: the browser tests will be skipped"; \
	fi

test: $(VENV)/.installed-dev browser lint typecheck
	NUMBA_CACHE_DIR=$$(mktemp -d) $(VENV)/bin/pytest -q $(PYTEST_ARGS)

bench: $(VENV)/.installed-dev
	$(PY) benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache results
