"""The load benchmark (``bench.load``) at a tiny size, as ``python -m bench`` runs it: one server process,
a light page and a sheet requested idle and while two clients ask for the most expensive exact chances
allowed. It produces every figure of its table; timing belongs to the benchmark, never to a test:
nothing here looks at a time or a ratio."""

from __future__ import annotations

import re

from bench import load


def row(table: str, name: str) -> list[str]:
    """The cells of the table's row ``name`` (cells are two spaces or more apart)."""
    line = re.search(rf"^{re.escape(name)}  .*$", table, re.MULTILINE)
    assert line is not None, f"no row {name!r} in:\n{table}"
    return re.split(r" {2,}", line.group()[len(name) :].strip())


def test_a_tiny_load_bench_gives_each_light_page_its_figures_idle_and_under_load(capfd) -> None:
    status = load.load_main(quick=True, clients=2, requests=2)

    captured = capfd.readouterr()
    table = captured.out
    assert status == 0, table + captured.err
    assert "Load: 2 requests of each light page, idle and while 2 clients ask for" in table
    for page in ("plain page (campaign)", "character sheet"):
        idle_median, idle_p95, loaded_median, loaded_p95, ratio, target, result = row(table, page)
        for figure in (idle_median, idle_p95, loaded_median, loaded_p95):
            assert re.fullmatch(r"[0-9.e+]+ ms", figure), figure
        assert re.fullmatch(r"[0-9.]+×", ratio)
        assert (target, result) == (f"≤ {load.RATIO_BOUND:g}×", "-")
    answered = re.search(r"^heavy requests answered: (.*); median (.*)$", table, re.MULTILINE)
    assert answered is not None, table
    statuses = dict(reversed(part.split(" × ")) for part in answered.group(1).split(", "))
    assert set(statuses) <= {"200", "503"}, answered.group(1)
    assert "--quick" in table
