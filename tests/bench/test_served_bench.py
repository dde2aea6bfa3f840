"""The served benchmark (``bench.served``) in its quick mode, as ``python -m bench`` runs it: a tiny empty
and large installation (``bench.big``), copied from this test run's migrated database so that no
migration runs again, a server on each started as ``make run`` starts one, every page measured on both,
its queries counted, the pages weighed, and wrk when it is installed. Every figure is given; timing belongs
to the benchmark, never to a test: nothing here looks at a time or a ratio.

Needs PostgreSQL (``CREATE DATABASE … TEMPLATE`` and the generator's COPY): it skips on SQLite locally,
and runs in CI's PostgreSQL pass."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from bench import served

pytestmark = pytest.mark.postgres


def rows(table: str, first: str) -> dict[str, list[str]]:
    """The rows of the table whose header starts with ``first``, by their first cell (cells are two spaces
    or more apart)."""
    lines = table[table.index(first) :].split("\n\n")[0].splitlines()
    return {cells[0]: cells[1:] for cells in (re.split(r" {2,}", line) for line in lines[1:])}


@pytest.mark.django_db(transaction=True)  # the test database, migrated, outside a transaction: copied whole
def test_the_quick_served_bench_gives_every_page_its_figures_on_both_installations(
    capfd: pytest.CaptureFixture[str],
) -> None:
    from django.db import connection, connections

    template = connection.settings_dict["NAME"]
    # A database is copied only when nobody is connected to it: the pool's idle connections too.
    connections.close_all()
    connection.close_pool()

    status = served.served_main(quick=True, template=template)

    captured = capfd.readouterr()
    table = captured.out
    assert status == 0, table + captured.err
    measured = rows(table, "page  ")
    titles = {"sheet", "dashboard", "roll log, first page", "roll log, deep page", "ledger", "roll posted",
              "award to a party of 8", "API character document"}  # fmt: skip
    assert {name.split(" (")[0] for name in measured} == {"trivial view", "move", *titles}
    for name, cells in measured.items():
        empty_rate, empty_share, *_ = cells
        assert re.fullmatch(r"[0-9]+", empty_rate), (name, cells)
        assert re.fullmatch(r"[0-9]+%", empty_share), (name, cells)
        queries = next(cell for cell in cells if " / " in cell)
        assert all(int(count) > 0 for count in queries.split(" / ")), (name, queries)
    timed = rows(table, "page (in process")  # each page's processor time a request, through the application
    assert set(timed) == set(measured)
    for name, (spent, share) in timed.items():
        assert float(spent) > 0, (name, spent)
        assert re.fullmatch(r"[0-9]+%", share), (name, share)
    assert timed[next(name for name in timed if name.startswith("trivial"))][1] == "100%"
    weighed = rows(table, "page (large installation)")
    assert any(name.startswith("sheet") for name in weighed)
    for name, (uncompressed, sent, _, requests, elsewhere, *_) in weighed.items():
        assert float(uncompressed) > 0, name
        assert float(sent) > 0, name
        assert int(requests) >= 1, name
        assert elsewhere == "0", name
    if shutil.which("wrk"):
        assert re.search(r"^wrk \(.*trivial view [0-9]+ req/s", table, re.MULTILINE), table
    else:
        assert "wrk is not installed" in table
    assert "--quick" in table


def test_the_server_is_started_with_the_command_of_the_makefiles_run_target(tmp_path: Path) -> None:
    makefile = tmp_path / "Makefile"
    makefile.write_text(
        "PY := .venv/bin/python\n"
        "run: export STATIC_HASHED = true\n"
        "run: export STATIC_ROOT := $(STATIC_ROOT)\n"
        "run: $(VENV)/.installed-base\n"
        "\t$(PY) manage.py migrate --noinput\n"
        "\t$(PY) -m uvicorn config.asgi:application --host 127.0.0.1 --port $(PORT) --http httptools --loop uvloop\n"
        "\n"
        "test:\n"
        "\t$(PY) -m pytest\n"
    )

    command = served.run_command(8123, makefile)

    assert command[1:] == ["-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1", "--port", "8123",
                           "--http", "httptools", "--loop", "uvloop"]  # fmt: skip
    assert command[0].endswith("python") or "python" in Path(command[0]).name
    # What the target exports for its server with a plain value; one made of Make's variables is the bench's.
    assert served.run_exports(makefile) == {"STATIC_HASHED": "true"}


def test_the_projects_makefile_starts_uvicorn_on_the_port_given() -> None:
    command = served.run_command(8124)

    assert command[1:3] == ["-m", "uvicorn"]
    assert command[command.index("--port") + 1] == "8124"
