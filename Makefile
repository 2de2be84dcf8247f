# Two commands take a fresh machine with Python 3.11 to a running demo or a passing suite.
# Both create the virtualenv and install on first use.

PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo playground screenshots test lint sim run check bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)  ## simulator + local Slack + bridge, with a live transcript (ARGS="--seconds 60")
	$(BIN)/novo-slack demo $(ARGS)

playground: $(STAMP)  ## the demo with a page to click in (http://127.0.0.1:8700), no scripted clicks
	$(BIN)/novo-slack demo --ui

screenshots: $(STAMP)  ## docs/screenshots/*.png, made by the page in headless Chromium
	$(BIN)/python -m bot.playground.screenshots

test: $(STAMP)  ## the whole suite (two workers), then the type and lint checks
	$(BIN)/pytest -n 2
	$(BIN)/mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

sim: $(STAMP)
	$(BIN)/novo-slack sim --port 8787 $(ARGS)

run: $(STAMP)
	$(BIN)/novo-slack run

check: $(STAMP)  ## is everything `run` needs in place? one ✓/✗ line each
	$(BIN)/novo-slack check

bench: $(STAMP)  ## figures, not tests; failover and clicks also want PostgreSQL (else skipped)
	$(BIN)/python -m bench.latency
	$(BIN)/python -m bench.poll_cost
	$(BIN)/python -m bench.poll_cpu
	$(BIN)/python -m bench.burst
	$(BIN)/python -m bench.forms
	$(BIN)/python -m bench.failover
	$(BIN)/python -m bench.clicks
	$(BIN)/python -m bench.batch
	$(BIN)/python -m bench.home

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
