"""Lucky 13's engine part of ``python -m bench`` (``make bench``): the whole Lucky 13 table, our
engine against icepool.

The requirement: computing the whole table (:func:`bench.lucky13.table.specs`) takes
less than 1/20 of the time icepool takes at its best (each die exploding just
deep enough to be exact, :mod:`bench.lucky13.icepool_check`), and ``python -m rules
chance --batch`` over the table, as a whole process, beats the same done with
icepool at least 20× (issue 27: start-up included, so the chance path loads the
system a spec names and of it only its roll kinds, :func:`rules.systems.roll_kinds`;
``tests/rules/test_chance_imports.py`` keeps pydantic, Django and the other
systems out of it).

Machines are shared and noisy, so both sides are measured in the same run,
interleaved (ours, icepool, ours, icepool, …), and judged on the ratio of their
medians. Both sides must give identical chances for every spec.

1. In process: ``check_chance_json`` over the table, every engine cache
   cleared before each repetition: a warm cache would time dictionary
   look-ups, not the engine.
2. Whole process: the table as a batch file, ``python -m rules chance --batch
   FILE`` against ``python -m bench.lucky13.icepool_batch FILE``, start-up included.

Exit status: 0 when every target is met, 1 when one is missed, 2 when the two
engines disagree or a process fails. ``--quick`` is a smoke run: a slice of the
table, one repetition, in process only, and no verdict (a slice has fewer
shared sub-results than the whole table, so its ratio is not the requirement's).

"""

from __future__ import annotations

import gc
import json
import platform
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any, Final, Protocol

import icepool

from bench.lucky13 import icepool_check
from bench.lucky13.table import specs
from rules.systems.lucky13 import check_chance_json

ROOT: Final = Path(__file__).resolve().parents[2]

IN_PROCESS_TARGET: Final = 20.0
WHOLE_PROCESS_TARGET: Final = 20.0

#: Repetitions by default. Icepool takes some 25 s per table, ours well under
#: a second, so ours gets more runs for the same wall-clock cost.
OURS_REPS: Final = 5
ICEPOOL_REPS: Final = 3

#: ``--quick`` takes every QUICK_STRIDE-th spec: every axis of the table still
#: shows up, and icepool finishes in a couple of seconds.
QUICK_STRIDE: Final = 20

EXIT_MISSED: Final = 1
EXIT_BROKEN: Final = 2

Spec = dict[str, Any]
Results = list[dict[str, Any]]


class BenchError(Exception):
    """The benchmark cannot give a figure: the engines disagree or a process failed."""


class _Cache(Protocol):
    def cache_clear(self) -> None: ...
    def cache_info(self) -> Any: ...


# --- Caches ---------------------------------------------------------------------------------


def engine_caches() -> list[_Cache]:
    """Every ``functools`` cache of the engine's loaded modules and of their classes.

    Found rather than listed, so a cache added later cannot silently leave the
    benchmark warm.
    """
    modules: list[ModuleType] = [
        module for name, module in sys.modules.items() if name == "rules" or name.startswith("rules.")
    ]
    found: dict[int, _Cache] = {}
    for module in modules:
        for value in vars(module).values():
            candidates = [value]
            if isinstance(value, type) and value.__module__ == module.__name__:
                candidates += vars(value).values()
            for candidate in candidates:
                # A cached classmethod or staticmethod keeps the cache on the function inside.
                function = getattr(candidate, "__func__", candidate)
                if callable(getattr(function, "cache_clear", None)) and hasattr(function, "cache_info"):
                    found[id(function)] = function
    return list(found.values())


ENGINE_CACHES: Final = engine_caches()

#: The caches known today, by qualified name: four are the engine's private helpers, which the
#: benchmark names rather than imports. Should the search miss one, the benchmark would time a
#: warm engine, so it refuses to run instead.
KNOWN_CACHES: Final = (
    "rules.dice._known_label",
    "rules.probability.die",
    "rules.probability.nothing",
    "rules.systems.lucky13.checks._step_die_dist",
    "rules.systems.lucky13.checks._ability_dist",
    "rules.systems.lucky13.checks._others_dist",
    "rules.systems.lucky13.checks.check_chance",
)


def check_caches_found() -> None:
    found = {f"{cache.__module__}.{cache.__qualname__}" for cache in ENGINE_CACHES}
    for known in KNOWN_CACHES:
        if known not in found:
            raise BenchError(f"the engine cache {known} was not found; the benchmark would run warm")


def clear_engine_caches() -> None:
    for cache in ENGINE_CACHES:
        cache.cache_clear()
    gc.collect()  # so the previous repetition's garbage is not collected on this one's clock


def clear_icepool_caches() -> None:
    """What icepool lets us clear: its global pool cache.

    Its dice and evaluators also keep per-instance caches (``cached_property``,
    evaluator caches) that have no public reset. Leaving them only favours
    icepool, which makes our ratio a lower bound.
    """
    clear_cache = getattr(icepool.Pool, "clear_cache", None)
    if callable(clear_cache):
        clear_cache()
    gc.collect()


# --- Measuring ------------------------------------------------------------------------------


@dataclass
class Timings:
    seconds: list[float] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(self.seconds)

    def spread(self) -> str:
        return f"{seconds(min(self.seconds))} … {seconds(max(self.seconds))}"


def timed(work: Callable[[], Any]) -> tuple[float, Any]:
    start = time.perf_counter()
    result = work()
    return time.perf_counter() - start, result


def interleaved(ours: int, theirs: int) -> Iterator[str]:
    """ours, icepool, ours, icepool, …, then the extra runs of whichever has more.

    Alternating spreads any slow spell of the machine over both sides.
    """
    for i in range(max(ours, theirs)):
        if i < ours:
            yield "ours"
        if i < theirs:
            yield "icepool"


def ours_in_process(table: Sequence[Spec]) -> tuple[float, Results]:
    clear_engine_caches()
    return timed(lambda: [check_chance_json(spec) for spec in table])


def icepool_in_process(table: Sequence[Spec]) -> tuple[float, Results]:
    clear_icepool_caches()
    return timed(lambda: [icepool_check.chance(spec) for spec in table])


def memory_peak(table: Sequence[Spec]) -> int:
    """Peak traced bytes for the whole table from cold caches, results and caches included.

    Run apart from the timings: tracing slows every allocation.
    """
    clear_engine_caches()
    tracemalloc.start()
    try:
        results = [check_chance_json(spec) for spec in table]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    del results
    return peak


def run_process(args: Sequence[str]) -> tuple[float, str]:
    """Time one whole process (interpreter start-up, imports and all) and return its output."""
    command = [sys.executable, *args]
    elapsed, done = timed(lambda: subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=False))
    if done.returncode:
        raise BenchError(f"`{' '.join(args)}` exited with {done.returncode}:\n{done.stderr.strip()}")
    return elapsed, done.stdout


def same_results(table: Sequence[Spec], ours: Results, theirs: Results, where: str) -> None:
    if len(ours) != len(theirs):
        raise BenchError(f"{where}: {len(ours)} results from ours, {len(theirs)} from icepool")
    for spec, a, b in zip(table, ours, theirs, strict=True):
        if a != b:
            raise BenchError(f"{where}: the engines disagree on {json.dumps(spec)}:\n  ours    {a}\n  icepool {b}")


def same_output(table: Sequence[Spec], ours: str, theirs: str, where: str) -> None:
    if ours != theirs:
        mine, other = ours.splitlines(), theirs.splitlines()
        for spec, a, b in zip(table, mine, other, strict=False):
            if a != b:
                raise BenchError(f"{where}: the outputs differ on {json.dumps(spec)}:\n  ours    {a}\n  icepool {b}")
        raise BenchError(f"{where}: {len(mine)} lines from ours, {len(other)} from icepool")


# --- The two measures -----------------------------------------------------------------------


@dataclass
class Measure:
    name: str
    ours: Timings
    icepool: Timings
    target: float

    @property
    def ratio(self) -> float:
        return self.icepool.median / self.ours.median


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def measure_in_process(table: Sequence[Spec], ours_reps: int, icepool_reps: int) -> Measure:
    measure = Measure("in process, cold caches", Timings(), Timings(), IN_PROCESS_TARGET)
    reference: Results | None = None
    for side in interleaved(ours_reps, icepool_reps):
        if side == "ours":
            elapsed, results = ours_in_process(table)
            measure.ours.seconds.append(elapsed)
        else:
            elapsed, results = icepool_in_process(table)
            measure.icepool.seconds.append(elapsed)
        # Every run, ours included, against the first: a cache that leaked
        # between runs or an order-dependent bug shows up as a difference.
        if reference is None:
            reference = results
        else:
            same_results(table, reference, results, f"in process ({side})")
        progress(f"  {'in process':<13} {side:<8} {seconds(elapsed)}")
    return measure


def measure_whole_process(table: Sequence[Spec], ours_reps: int, icepool_reps: int) -> Measure:
    measure = Measure("whole process, --batch", Timings(), Timings(), WHOLE_PROCESS_TARGET)
    with tempfile.TemporaryDirectory(prefix="dicehall-bench-") as directory:
        batch = Path(directory) / "lucky13-table.jsonl"
        batch.write_text("".join(json.dumps(spec) + "\n" for spec in table), encoding="utf-8")
        commands = {
            "ours": ["-m", "rules", "chance", "--batch", str(batch)],
            "icepool": ["-m", "bench.lucky13.icepool_batch", str(batch)],
        }
        reference: str | None = None
        for side in interleaved(ours_reps, icepool_reps):
            elapsed, output = run_process(commands[side])
            (measure.ours if side == "ours" else measure.icepool).seconds.append(elapsed)
            if reference is None:
                reference = output
            else:
                same_output(table, reference, output, f"whole process ({side})")
            progress(f"  {'whole process':<13} {side:<8} {seconds(elapsed)}")
    return measure


# --- Report ---------------------------------------------------------------------------------


def seconds(value: float) -> str:
    return f"{value:.3g} s" if value < 10 else f"{value:.1f} s"


def runs(count: int) -> str:
    return f"{count} run" if count == 1 else f"{count} runs"


def mebibytes(value: int) -> str:
    return f"{value / 2**20:.1f} MiB"


def report(table_size: int, measures: Sequence[Measure], peak: int, *, judged: bool) -> bool:
    """Print the table of figures; True when every target is met (or nothing is judged)."""
    header = ("measure", "ours (median)", "icepool (median)", "ratio", "target", "result")
    rows = [header]
    met = True
    for m in measures:
        ok = m.ratio >= m.target
        met = met and ok
        verdict = ("PASS" if ok else "FAIL") if judged else "not judged"
        rows.append(
            (m.name, seconds(m.ours.median), seconds(m.icepool.median), f"{m.ratio:.1f}×", f"≥ {m.target:g}×", verdict)
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    print()
    print(f"Lucky 13 table: {table_size} check specs; identical chances from both engines on every spec.")
    for row in rows:
        print(
            "  ".join(
                cell.ljust(width) if i == 0 else cell.rjust(width)
                for i, (cell, width) in enumerate(zip(row, widths, strict=True))
            )
        )
    print()
    for m in measures:
        print(
            f"{m.name}: ours {runs(len(m.ours.seconds))} ({m.ours.spread()}), "
            f"icepool {runs(len(m.icepool.seconds))} ({m.icepool.spread()})"
        )
    print(f"memory peak, our engine over the table from cold caches (tracemalloc): {mebibytes(peak)}")
    if judged and sys.flags.dont_write_bytecode:
        # Start-up then includes compiling every module of the project a process imports, on both sides, as in
        # the production image (Dockerfile): the more the chance path imports, the more it pays.
        print("whole process: PYTHONDONTWRITEBYTECODE is set, so each run compiles the project's modules it imports")
    if not judged:
        print("--quick: a slice of the table, in process only; no verdict.")
    return met or not judged


def engine(*, quick: bool, ours_reps: int | None, icepool_reps: int | None) -> int:
    """The engine part: our engine against icepool over the table; its exit status. Runs of each
    per measure: as given, else one for ``quick``, else :data:`OURS_REPS` and :data:`ICEPOOL_REPS`."""
    ours_reps = ours_reps if ours_reps is not None else (1 if quick else OURS_REPS)
    icepool_reps = icepool_reps if icepool_reps is not None else (1 if quick else ICEPOOL_REPS)
    table = list(specs())
    if quick:
        table = table[::QUICK_STRIDE]
    progress(
        f"Python {platform.python_version()}, icepool {icepool.__version__}; {len(table)} specs, "
        f"{runs(ours_reps)} of ours and {icepool_reps} of icepool per measure, interleaved"
    )
    progress("engine caches cleared before each run of ours: " + ", ".join(c.__qualname__ for c in ENGINE_CACHES))
    try:
        check_caches_found()
        measures = [measure_in_process(table, ours_reps, icepool_reps)]
        if not quick:
            measures.append(measure_whole_process(table, ours_reps, icepool_reps))
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BROKEN
    peak = memory_peak(table)
    return 0 if report(len(table), measures, peak, judged=not quick) else EXIT_MISSED
