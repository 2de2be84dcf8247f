# Two commands take a fresh machine with Python 3.11 to a running demo or a passing suite.
# Both create the virtualenv and install on first use.

PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test lint sim run bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]'
	touch $(STAMP)

demo: $(STAMP)  ## simulator + local Slack + bridge, with a live transcript
	$(BIN)/novo-slack demo

test: $(STAMP)  ## the whole suite, then the type and lint checks
	$(BIN)/pytest
	$(BIN)/mypy
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .

sim: $(STAMP)
	$(BIN)/novo-slack sim --port 8787

run: $(STAMP)
	$(BIN)/novo-slack run

bench: $(STAMP)
	$(BIN)/python -m bench.latency
	$(BIN)/python -m bench.poll_cost

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
