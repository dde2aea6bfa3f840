# The two commands a newcomer needs: `make run` and `make test`.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
PORT ?= 8000

.PHONY: install run test bench lint format check-python

check-python:
	@$(PYTHON) -c 'import sys; sys.exit(sys.version_info < (3, 11))' \
		|| { echo "Dicehall needs Python 3.11 or newer; set PYTHON=python3.x"; exit 1; }

$(VENV)/.installed: requirements/base.txt requirements/dev.txt | check-python
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --disable-pip-version-check -r requirements/dev.txt
	touch $@

install: $(VENV)/.installed

run: install
	$(PY) manage.py migrate --noinput
	$(PY) manage.py demo
	@echo "Dicehall is at http://127.0.0.1:$(PORT)/"
	$(PY) -m uvicorn config.asgi:application --host 127.0.0.1 --port $(PORT)

test: install
	$(PY) -m pytest

bench: install
	$(PY) -m bench

lint: install
	$(PY) -m ruff check .
	$(PY) -m ruff format --check .

format: install
	$(PY) -m ruff format .
	$(PY) -m ruff check --fix .
