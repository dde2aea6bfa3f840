# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000
# pytest-xdist workers for `make test`: one a core ("auto"); `make test WORKERS=0` runs in one process.
WORKERS ?= auto

# Settings may also live in a .env file (see .env.example): simple NAME=value lines.
ifneq (,$(wildcard .env))
include .env
export $(shell sed -n 's/^\([A-Za-z_][A-Za-z0-9_]*\)=.*/\1/p' .env)
endif

.PHONY: install run test bench lint typecheck format check-python

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "Dicehall needs Python 3.11 or newer; run with PYTHON=python3.x"; exit 1; }
	@$(PYTHON) -c 'import ensurepip, venv' 2>/dev/null \
		|| { echo "Python's venv module is missing; on Debian or Ubuntu: apt-get install python3-venv"; exit 1; }

# The server needs only the runtime lock; tests and benchmarks add the dev lock.
$(VENV)/.installed-base: requirements/base.txt | check-python
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/base.txt
	touch $@

$(VENV)/.installed-dev: $(VENV)/.installed-base requirements/dev.txt
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/dev.txt
	touch $@

install: $(VENV)/.installed-dev

# Static files under hashed names, compressed, so browsers keep them (web/staticfiles.py): collected
# again when a file of static/ or an installed package changed since the last time; uvicorn with its
# fast HTTP parser and event loop and live sockets sent uncompressed, as in production (docs/deploy.md).
DICEHALL_VAR_DIR ?= var
STATIC_ROOT ?= $(DICEHALL_VAR_DIR)/static
STATIC_MANIFEST := $(STATIC_ROOT)/staticfiles.json

$(STATIC_MANIFEST): export STATIC_HASHED = true
$(STATIC_MANIFEST): export STATIC_ROOT := $(STATIC_ROOT)
$(STATIC_MANIFEST): $(VENV)/.installed-base $(shell find static -type f)
	$(PY) manage.py collectstatic --noinput --verbosity 0

run: export STATIC_HASHED = true
run: export STATIC_ROOT := $(STATIC_ROOT)
run: $(VENV)/.installed-base $(STATIC_MANIFEST)
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo
	@echo "Dicehall is at http://127.0.0.1:$(PORT)/"
	$(PY) -m uvicorn config.asgi:application --host 127.0.0.1 --port $(PORT) --http httptools --loop uvloop --ws-per-message-deflate false

test: $(VENV)/.installed-dev
	$(PY) -m pytest -n $(WORKERS)

# Options go to `python -m bench` (e.g. BENCH="--served-only --write-docs After"); its served part needs
# DATABASE_URL=postgres://… and keeps its installations between runs (docs/bench.md).
BENCH ?=
bench: $(VENV)/.installed-dev
	$(PY) -m bench $(BENCH)

lint: $(VENV)/.installed-dev
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .
	$(VENV)/bin/lint-imports

# The engine (rules/) type-checks with no error; the settings are mypy's, in pyproject.toml.
typecheck: $(VENV)/.installed-dev
	$(PY) -m mypy

format: $(VENV)/.installed-dev
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .
