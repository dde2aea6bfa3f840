"""``python -m bench``: which parts a run makes, and its exit status, the worst of theirs. The parts
themselves are stood in for here; each has a test of its own (the pages, the sockets and the load beside this)."""

from __future__ import annotations

from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest

import bench
from bench import __main__ as command

BENCH = Path(bench.__file__).parent


def test_the_engine_benchmarks_are_those_of_the_systems_with_a_bench_package_of_their_own() -> None:
    # Not every registered system has one: looking for bench.<key>.engine alone would fail on those.
    with_one = {path.parent.name for path in BENCH.glob("*/engine.py")}
    assert with_one
    assert set(command.engine_parts()) == with_one


@pytest.fixture
def ran(monkeypatch: pytest.MonkeyPatch) -> list[tuple[str, bool]]:
    """The parts a run makes, in order, each with whether it was --quick: the pages miss a target, the
    others meet theirs."""
    made: list[tuple[str, bool]] = []

    def part(name: str, status: int) -> Any:
        def run(*, quick: bool, **options: Any) -> int:
            made.append((name, quick))
            return status

        return run

    monkeypatch.setattr(command, "engine_parts", lambda: ["one", "two"])
    monkeypatch.setattr(command, "import_module", lambda module: SimpleNamespace(engine=part(module, 0)))
    monkeypatch.setattr(command, "pages_main", part("pages", 1))
    monkeypatch.setattr(command, "sockets_main", part("sockets", 0))
    monkeypatch.setattr(command, "load_main", part("load", 0))
    monkeypatch.setattr(command, "served_main", part("served", 0))
    return made


@pytest.mark.parametrize(
    ("argv", "parts", "status"),
    [
        ([], ["bench.one.engine", "bench.two.engine", "pages", "sockets", "load", "served"], 1),
        (["--engine-only"], ["bench.one.engine", "bench.two.engine"], 0),
        (["--pages-only"], ["pages"], 1),
        (["--sockets-only"], ["sockets"], 0),
        (["--load-only"], ["load"], 0),
        (["--served-only"], ["served"], 0),
    ],
)
def test_a_run_makes_the_parts_asked_for_and_exits_with_the_worst_status(
    ran: list[tuple[str, bool]], argv: list[str], parts: list[str], status: int
) -> None:
    assert command.main([*argv, "--quick"]) == status

    assert ran == [(part, True) for part in parts]


def test_one_part_alone_is_one_choice(ran: list[tuple[str, bool]]) -> None:
    with pytest.raises(SystemExit) as refused:
        command.main(["--pages-only", "--sockets-only"])

    assert refused.value.code == 2
    assert ran == []
