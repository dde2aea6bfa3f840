"""The page benchmark (``bench.pages``) in its quick mode: every page, as the GM and as a player, at
both sizes, answers 200 and gives its row of the table. Timing belongs to the benchmark, never to a
test: nothing here looks at a time or a ratio."""

from __future__ import annotations

import io
import re

import pytest

from bench import pages

pytestmark = pytest.mark.django_db


def test_the_quick_page_bench_measures_every_page_for_its_viewers() -> None:
    rows = pages.collect(quick=True, reps=1)  # a page that does not answer 200 raises BenchError

    assert [(row.target.key, row.viewer) for row in rows] == [
        (target.key, viewer) for target in pages.TARGETS for viewer in target.viewers
    ]
    assert {viewer for target in pages.TARGETS for viewer in target.viewers} == set(pages.VIEWERS)
    for row in rows:
        assert row.built.small < row.built.large, row.target.key
        assert all(len(timings) == 1 for timings in row.seconds), row.target.key
        assert all(size > 0 for size in row.size), row.target.key
        assert all(count > 0 for count in row.queries), row.target.key

    out = io.StringIO()
    pages.report(rows, 1, judged=False, out=out)
    table = out.getvalue()
    for target in pages.TARGETS:
        for viewer in target.viewers:
            line = re.search(rf"^{re.escape(target.title)} +{viewer} .*$", table, re.MULTILINE)
            assert line is not None, f"no row for the {target.title} as {viewer}"
            assert re.search(r"(PASS|FAIL)", line.group()), line.group()
    assert "--quick" in table
