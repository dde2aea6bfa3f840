"""``python -m bench.pages`` (and ``python -m bench``, ``make bench``): what a page costs against the
history behind it.

Issue 13: "Every list a page shows is bounded … a page's cost does not grow with the history behind
it". Each page below is built at a small and a large size in a throwaway database, then requested
with Django's test client, as the GM and as a player, in one run: small, large, small, large, …
(so a slow spell of a shared machine falls on both), and judged on the ratio of the medians.

A page passes when its queries are the same at both sizes and, for a page that shows one page of
a list, when its large/small ratio of medians is under :data:`RATIO_BOUND`: constant cost up to
noise and the bytes of a fuller page (the small size may not fill a page: 8 of the dashboard's 24
cards, 10 of the history's 25 changes). Two pages show everything they hold by design, because
what they hold has a limit of its own: the sheet with the most items its system allows (Lucky 13:
``MAX_ITEMS`` of every list, and of the specializations of every skill) and an encounter with the
most combatants it holds (``play.encounters.MAX_COMBATANTS``). They render more rows, so they are
judged by their queries staying constant only; their ratio is shown, not bounded.

For each page and viewer: the median time at each size, the ratio, the response's size, its
queries and the slowest of them (``CaptureQueriesContext``, on a request apart from the timed ones,
which is also each page's warm-up). Exit status: 0 when every target is met, 1 when one is missed, 2 when a page does
not answer 200 or the data cannot be built. ``--quick`` is a smoke run: small sizes, one
repetition, the queries judged and the times not (sizes this small say nothing of a ratio).

The database is a new one of Django's test machinery (``create_test_db``): a file in a temporary
directory on SQLite (``DICEHALL_VAR_DIR`` points there too, so nothing under ``var/`` is touched),
a ``<name>_bench_<pid>`` database beside the configured one on PostgreSQL (``DATABASE_URL``),
dropped at the end. ``DEBUG`` is off, as in production: templates are compiled once and cached.
"""

from __future__ import annotations

import argparse
import gc
import logging
import os
import statistics
import sys
import tempfile
import time
import traceback
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO

if TYPE_CHECKING:
    from django.test import Client

    from bench.page_data import Built, Cast

#: Large/small ratio of medians under which a page of a bounded list passes.
RATIO_BOUND: Final = 3.0
#: Timed requests per page, viewer and size by default (``--quick``: 1).
REPS: Final = 9
VIEWERS: Final = ("gm", "player")

EXIT_MISSED: Final = 1
EXIT_BROKEN: Final = 2


@dataclass(frozen=True, slots=True)
class Target:
    key: str
    title: str
    #: What the size counts.
    unit: str
    #: The two sizes, and those of ``--quick``; None for the sheet, whose items are counted once built.
    full: tuple[int, int] | None
    quick: tuple[int, int] | None
    #: None: shows everything it holds (up to its own limit), judged by its queries only.
    bound: float | None = RATIO_BOUND
    #: Who opens it (the GM's own pages: the GM only).
    viewers: tuple[str, ...] = VIEWERS


#: The pages, in the order of the table, with the sizes the issue names. The dashboard and the
#: campaign page are those of the same two campaigns. The sheet's large size is every list as long
#: as the sheet allows (``--quick``: :data:`QUICK_SHEET` of it).
TARGETS: Final = (
    Target("ledger", "ledger", "entries", (40, 10_000), (40, 300)),
    Target("dashboard", "dashboard", "characters", (8, 500), (8, 40)),
    Target("campaign", "campaign page", "characters", (8, 500), (8, 40)),
    Target("award", "award form", "characters", (8, 500), (8, 40), viewers=("gm",)),
    Target("sheet", "sheet", "items", None, None, bound=None),
    Target("history", "sheet history", "changes", (10, 10_000), (10, 300)),
    Target("rolls", "roll log", "rolls", (50, 10_000), (50, 300)),
    Target("encounter", "encounter", "combatants", (2, 60), (2, 12), bound=None),
)
#: Rolls in the logs of the party's campaigns: enough to fill the dashboard's feed.
FEED: Final = 30
#: Characters in the campaigns of the roll logs and the encounters.
MEMBERS: Final = 8
#: The share of each list's limit the sheet of ``--quick`` holds.
QUICK_SHEET: Final = 0.1


class BenchError(Exception):
    """The benchmark cannot give a figure: a page did not answer 200."""


@dataclass
class Row:
    target: Target
    viewer: str
    built: Built
    seconds: tuple[list[float], list[float]] = field(default_factory=lambda: ([], []))
    size: list[int] = field(default_factory=lambda: [0, 0])
    queries: list[int] = field(default_factory=lambda: [0, 0])
    #: The slowest query at each size, in seconds (Django times them to the millisecond).
    slowest: list[float] = field(default_factory=lambda: [0.0, 0.0])

    def median(self, i: int) -> float:
        return statistics.median(self.seconds[i])

    @property
    def ratio(self) -> float:
        return self.median(1) / self.median(0)

    @property
    def same_queries(self) -> bool:
        return self.queries[0] == self.queries[1]

    def passes(self, *, times: bool) -> bool:
        bound = self.target.bound
        return self.same_queries and (not times or bound is None or self.ratio < bound)


def progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- The data ---------------------------------------------------------------------------------------


def build(*, quick: bool) -> tuple[Cast, dict[str, Built]]:
    """The people, and every page at its two sizes by key; needs the apps loaded and a database to write."""
    from bench import page_data

    started = time.perf_counter()
    sizes = {target.key: (target.quick if quick else target.full) or (0, 0) for target in TARGETS}
    people = page_data.cast()
    where = page_data.campaign(people, "Histories")
    built = [
        page_data.build_ledger(people, where, sizes["ledger"]),
        *page_data.build_party(people, sizes["dashboard"], FEED),
        page_data.build_sheet(people, where, QUICK_SHEET if quick else 1.0),
        page_data.build_history(people, where, sizes["history"]),
        page_data.build_rolls(people, sizes["rolls"], MEMBERS),
        page_data.build_encounter(people, sizes["encounter"], MEMBERS),
    ]
    progress(f"data built in {time.perf_counter() - started:.1f} s")
    return people, {b.key: b for b in built}


def clients(people: Cast) -> dict[str, Client]:
    """A logged-in test client for the GM and one for the player who owns the characters measured."""
    from django.test import Client

    made = {}
    axes = logging.getLogger("axes")
    level = axes.level
    axes.setLevel(logging.WARNING)  # not a line per log-in
    try:
        for viewer in VIEWERS:
            client = Client()
            client.force_login(getattr(people, viewer))
            made[viewer] = client
    finally:
        axes.setLevel(level)
    return made


# --- Measuring -----------------------------------------------------------------------------------------


def get(client: Client, url: str) -> tuple[float, int]:
    """One request, timed: the seconds and the response's bytes. Anything but a 200 is an error."""
    gc.collect()  # so the garbage of the request before is not collected on this one's clock
    start = time.perf_counter()
    response = client.get(url)
    elapsed = time.perf_counter() - start
    if response.status_code != 200:
        raise BenchError(f"GET {url} answered {response.status_code}")
    return elapsed, len(response.content)


def counted(row: Row, client: Client) -> None:
    """Each size once, untimed, counting its queries and timing the slowest: the warm-up of the timed
    requests (whose own queries go untraced)."""
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    for i, url in enumerate(row.built.urls):
        with CaptureQueriesContext(connection) as queries:
            _, row.size[i] = get(client, url)
        row.queries[i] = len(queries)
        row.slowest[i] = max((float(query["time"]) for query in queries.captured_queries), default=0.0)


def measure(people: Cast, built: dict[str, Built], reps: int) -> list[Row]:
    """Every page, as each viewer, at both sizes: small, large, small, large, … ``reps`` times each."""
    logged_in = clients(people)
    rows = [Row(target, viewer, built[target.key]) for target in TARGETS for viewer in target.viewers]
    for row in rows:
        counted(row, logged_in[row.viewer])
    for rep in range(reps):
        started = time.perf_counter()
        for row in rows:
            for i, url in enumerate(row.built.urls):
                elapsed, size = get(logged_in[row.viewer], url)
                row.seconds[i].append(elapsed)
                row.size[i] = max(size, row.size[i])  # should a page change between requests: its largest
        progress(f"  repetition {rep + 1} of {reps}: {time.perf_counter() - started:.1f} s")
    return rows


def collect(*, quick: bool, reps: int) -> list[Row]:
    """Build and measure in the database Django is connected to: a throwaway one (see
    :func:`throwaway_database`), or pytest's for the smoke test. Raises :class:`BenchError`."""
    return measure(*build(quick=quick), reps)


def run(*, quick: bool, reps: int | None = None, out: TextIO | None = None) -> int:
    """Build, measure and report (see :func:`collect`); the exit status."""
    reps = reps if reps is not None else (1 if quick else REPS)
    try:
        rows = collect(quick=quick, reps=reps)
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BROKEN
    except Exception:  # the data could not be built, or a page raised: no figure, and not a missed target
        traceback.print_exc()
        return EXIT_BROKEN
    return 0 if report(rows, reps, judged=not quick, out=out or sys.stdout) else EXIT_MISSED


# --- Report -------------------------------------------------------------------------------------------


def ms(value: float) -> str:
    return f"{value * 1000:.3g} ms" if value < 10 else f"{value:.1f} s"


def kb(value: int) -> str:
    return f"{value / 1024:.1f}"


def report(rows: list[Row], reps: int, *, judged: bool, out: TextIO) -> bool:
    """Print the table of figures; True when every target is met."""
    header = ("page", "viewer", "sizes", "small", "large", "ratio", "bound", "KB", "queries", "slowest q", "result")
    lines = [header]
    met = True
    for row in rows:
        ok = row.passes(times=judged)
        met = met and ok
        built, target = row.built, row.target
        if not row.same_queries:
            verdict = "FAIL (queries grow)" if row.queries[1] > row.queries[0] else "FAIL (queries differ)"
        else:
            verdict = "PASS" if ok else "FAIL"
        bound = f"< {target.bound:g}×" if judged and target.bound is not None else "queries"
        lines.append(
            (
                target.title,
                row.viewer,
                f"{built.small:,} / {built.large:,} {target.unit}",
                ms(row.median(0)),
                ms(row.median(1)),
                f"{row.ratio:.2f}×",
                bound,
                f"{kb(row.size[0])} / {kb(row.size[1])}",
                f"{row.queries[0]} / {row.queries[1]}",
                f"{row.slowest[0] * 1000:.0f} / {row.slowest[1] * 1000:.0f} ms",
                verdict,
            )
        )
    widths = [max(len(line[i]) for line in lines) for i in range(len(header))]
    numeric = {3, 4, 5, 7, 8, 9}
    print(file=out)
    print(
        f"Pages, small against large: medians of {reps} interleaved requests each; the response's KB, "
        "its queries and the slowest of them at each size.",
        file=out,
    )
    for line in lines:
        cells = (c.rjust(w) if i in numeric else c.ljust(w) for i, (c, w) in enumerate(zip(line, widths, strict=True)))
        print("  ".join(cells).rstrip(), file=out)
    print(file=out)
    print(
        f"A page of a bounded list passes with the same queries at both sizes and a ratio under {RATIO_BOUND:g}×.\n"
        "The sheet and the encounter show every item they hold, up to the limits of their own: they pass with\n"
        "the same queries at both sizes, their ratio shown, not bounded.",
        file=out,
    )
    if not judged:
        print("--quick: small sizes, one repetition; the queries judged, the times not.", file=out)
    return met


# --- The command -----------------------------------------------------------------------------------------


@contextmanager
def throwaway_database() -> Iterator[str]:
    """Django set up on a database of its own, dropped at the end; its vendor.

    For a command line only: the settings must not be loaded yet, so that ``DICEHALL_VAR_DIR`` and
    ``DEBUG`` are read from here."""
    with tempfile.TemporaryDirectory(prefix="dicehall-bench-pages-") as directory:
        os.environ["DICEHALL_VAR_DIR"] = directory
        os.environ["DEBUG"] = "false"
        os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
        import django
        from django.conf import settings

        django.setup()
        from django.db import connection

        settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
        test = connection.settings_dict.setdefault("TEST", {})
        if connection.vendor == "sqlite":
            test["NAME"] = str(Path(directory) / "bench.sqlite3")
        else:
            test["NAME"] = f"{connection.settings_dict['NAME']}_bench_{os.getpid()}"[:63]
        old_name = connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
        try:
            yield connection.vendor
        finally:
            connection.creation.destroy_test_db(old_name, verbosity=0)


def pages_main(*, quick: bool, reps: int | None) -> int:
    """The pages part of ``python -m bench``: its exit status."""
    with throwaway_database() as vendor:
        progress(f"pages: a throwaway {vendor} database; {'quick sizes' if quick else 'full sizes'}")
        return run(quick=quick, reps=reps)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.pages", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: small sizes, 1 request each")
    parser.add_argument("--reps", type=int, metavar="N", help=f"timed requests per page and size (default {REPS})")
    args = parser.parse_args(argv)
    if args.reps is not None and args.reps < 1:
        parser.error("--reps must be at least 1")
    return pages_main(quick=args.quick, reps=args.reps)


if __name__ == "__main__":
    sys.exit(main())
