# Two commands take a fresh machine with Python 3.11 to a running demo or a passing suite.
# Both create the virtualenv and install on first use.

PYTHON ?= python3.11
VENV   ?= .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo playground screenshots test lint sim run check bench clean image base-image dist env-example manifest

# The bridge and, beside it, devkit/ (the local Slack, the simulator, the demo and the
# playground: never in the bridge's wheel or image).
$(STAMP): pyproject.toml devkit/pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[dev]' -e ./devkit
	touch $(STAMP)

demo: $(STAMP)  ## simulator + local Slack + bridge, with a live transcript (ARGS="--seconds 60")
	$(BIN)/novo-slack demo $(ARGS)

playground: $(STAMP)  ## the demo with a page to click in (http://127.0.0.1:8700), no scripted clicks
	$(BIN)/novo-slack demo --ui

screenshots: $(STAMP)  ## docs/screenshots/*.png, made by the page in headless Chromium
	$(BIN)/python -m novo_dev.demo.screenshots

# The whole suite (three workers: most tests wait on loopback servers, so a third keeps both
# cores busy), then the type and lint checks. Every check runs whatever the others said, a
# summary names each, and the target fails if any failed.
test: $(STAMP)  ## pytest, mypy --strict, ruff check and ruff format --check; fails if any failed
	@failed=""; \
	$(BIN)/pytest -n 3 --durations=15 $(PYTEST_ARGS) || failed="$$failed pytest"; \
	$(BIN)/mypy || failed="$$failed mypy"; \
	$(BIN)/ruff check . || failed="$$failed ruff-check"; \
	$(BIN)/ruff format --check . || failed="$$failed ruff-format"; \
	if [ -n "$$failed" ]; then echo "make test: failed:$$failed"; exit 1; fi; \
	echo "make test: pytest, mypy, ruff check and ruff format all passed"

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
	$(BIN)/python -m bench.redaction
	$(BIN)/python -m bench.big_group
	$(BIN)/python -m bench.home
	$(BIN)/python -m bench.lifecycle
	$(BIN)/python -m bench.approve_all
	$(BIN)/python -m bench.render
	$(BIN)/python -m bench.policy_match

# The container image. BASE_IMAGE defaults to a Debian bookworm + Python 3.11 base made
# here from Debian's packages (`make base-image`), for hosts that reach no registry; with
# one, `make image BASE_IMAGE=docker.io/library/python:3.11-slim-bookworm`. PIP_CERT hands
# pip the host's CA bundle (mounted for the build only); empty it where none is needed.
VERSION     := $(shell sed -n 's/^__version__ = "\(.*\)"/\1/p' bot/__init__.py)
REVISION    := $(or $(shell git rev-parse HEAD 2>/dev/null),unknown)
# where the source is: the repository's own remote, or say it: make image SOURCE=https://…
SOURCE      ?= $(or $(shell git config --get remote.origin.url 2>/dev/null),unknown)
IMAGE_NAME  ?= novo-slack
IMAGE       ?= $(IMAGE_NAME):$(VERSION)
# The same image by its commit too (`-dirty`: built from uncommitted changes), so a build
# of main is never taken for another under one tag.
DIRTY       := $(if $(shell git status --porcelain 2>/dev/null),-dirty)
COMMIT_TAG  := $(IMAGE_NAME):$(VERSION)-$(shell git rev-parse --short=12 HEAD 2>/dev/null || echo unknown)$(DIRTY)
BASE_IMAGE  ?= localhost/novo-base:bookworm
PIP_CERT    ?= $(wildcard /etc/ssl/certs/ca-certificates.crt)
PODMAN      ?= podman --runtime runc
# cgroupfs and no default ulimits, for hosts with hybrid cgroups; empty: podman's defaults
CONTAINERS_CONF ?= $(CURDIR)/deploy/podman/containers.conf
WITH_CONF   := $(if $(CONTAINERS_CONF),CONTAINERS_CONF=$(CONTAINERS_CONF))

image: $(if $(filter localhost/novo-base:%,$(BASE_IMAGE)),base-image)  ## the container image
	$(WITH_CONF) $(PODMAN) build --format docker --network=host \
	  $(if $(PIP_CERT),-v /etc/ssl/certs:/etc/ssl/certs:ro --build-arg PIP_CERT=$(PIP_CERT)) \
	  --build-arg BASE_IMAGE=$(BASE_IMAGE) --build-arg VERSION=$(VERSION) \
	  --build-arg REVISION=$(REVISION) --build-arg SOURCE=$(SOURCE) \
	  --build-arg CREATED=$(shell date -u +%Y-%m-%dT%H:%M:%SZ) \
	  -t $(IMAGE) $(if $(filter $(COMMIT_TAG),$(IMAGE)),,-t $(COMMIT_TAG)) -f Containerfile .
	@$(WITH_CONF) $(PODMAN) image inspect --format '$(IMAGE): {{.Size}} bytes' $(IMAGE)

base-image:  ## localhost/novo-base:bookworm from Debian's packages, unless it exists
	@$(WITH_CONF) $(PODMAN) image exists $(BASE_IMAGE) || \
	  $(WITH_CONF) PODMAN="$(PODMAN)" deploy/podman/base-image.sh $(BASE_IMAGE)

dist: $(STAMP)  ## sdist and wheel in dist/, checked by twine
	rm -rf dist
	$(BIN)/python -m build --outdir dist .
	$(BIN)/twine check --strict dist/*

env-example: $(STAMP)  ## .env.example from the settings model
	$(BIN)/python -m bot.envfile > .env.example

manifest: $(STAMP)  ## manifest.yml from the packaged one (bot/slack/manifest.yml)
	$(BIN)/novo-slack manifest > manifest.yml

clean:
	rm -rf $(VENV) .mypy_cache .ruff_cache .pytest_cache .hypothesis
