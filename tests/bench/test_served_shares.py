"""How the served benchmark (``bench.served``) takes a page's throughput as a share of the trivial view's: each
burst of a page right after one of the trivial view on the same server, and the share the median of those
pairs' ratios, so that a shared machine's speed, which changes from one second to the next, is the same for
the two rates of each ratio. The bursts here are made up (no server): a machine whose speed changes at every
burst of the trivial view, and a page that always runs at half the speed of the trivial view just before it."""

from __future__ import annotations

import itertools
from typing import Any

from bench import served

TRIVIAL = served.Page(served.TRIVIAL, "trivial view (/healthz)", "", "GET", "/healthz", "")
SHEET = served.Page("sheet", "sheet", "A system", "GET", "/characters/1/", "player", goal=0.5)
DASHBOARD = served.Page("dashboard", "dashboard", "A system", "GET", "/campaigns/1/dashboard/", "gm", goal=0.5)
CHOSEN = [TRIVIAL, SHEET, DASHBOARD]
#: The machine's speed at each burst of the trivial view, in its requests a second: a shared machine's.
SPEEDS = [900, 400, 1200, 700, 300, 1100, 800, 500, 1000, 600]


def made_up_bursts(monkeypatch: Any) -> list[tuple[str, str]]:
    """Replace ``bench.served.burst`` with the made-up machine; returns the bursts sent, (site, page key)."""
    sent: list[tuple[str, str]] = []
    speeds = itertools.cycle(SPEEDS)
    now = {"empty": 0.0, "large": 0.0}

    def burst(pool: Any, site: served.Site, page: served.Page, *, connections: int, size: int, turn: int) -> Any:
        sent.append((site.name, page.key))
        if page.key == served.TRIVIAL:
            now[site.name] = next(speeds)
            return served.Figures([now[site.name]], [1 / now[site.name]])
        half = now[site.name] / 2  # the page: half the trivial view's speed just before it, whatever that was
        return served.Figures([half], [1 / half])

    monkeypatch.setattr(served, "burst", burst)
    return sent


def measured(monkeypatch: Any, rounds: int) -> tuple[served.Results, list[tuple[str, str]]]:
    sent = made_up_bursts(monkeypatch)
    sites = {name: served.Site(name, "", {}, "") for name in ("empty", "large")}
    figures = served.measure(sites, {}, CHOSEN, connections=4, size=40, rounds=rounds, warm=False)
    results = served.Results(CHOSEN, figures, {}, [], {}, {}, 4, 40, rounds, [], 1)
    return results, sent


def test_each_burst_of_a_page_comes_right_after_one_of_the_trivial_view_on_its_server(monkeypatch) -> None:
    _, sent = measured(monkeypatch, rounds=3)

    pages = [(n, (site, key)) for n, (site, key) in enumerate(sent) if key != served.TRIVIAL]
    assert len(pages) == 3 * 2 * 2  # every round, both servers, both pages
    for n, (site, _) in pages:
        assert sent[n - 1] == (site, served.TRIVIAL)


def test_a_pages_share_is_taken_against_the_trivial_view_of_the_same_moment(monkeypatch) -> None:
    results, _ = measured(monkeypatch, rounds=5)

    for site in ("empty", "large"):
        assert results.ratio(site, SHEET) == 0.5
        assert results.ratio(site, DASHBOARD) == 0.5
        assert results.ratio(site, TRIVIAL) == 1
        # The medians of the rates alone, taken at different moments of the machine, say otherwise.
        rates = results.figures[site, SHEET.name].rate / results.figures[site, TRIVIAL.name].rate
        assert rates != 0.5
    rows, _, met = served.tables(results_with_queries(results), judged=True)
    assert all(row[-1] == "PASS" for row in rows[2:])
    assert met


def results_with_queries(results: served.Results) -> served.Results:
    counted = {site: {page.name: 3 for page in CHOSEN} for site in ("empty", "large")}
    return served.Results(CHOSEN, results.figures, counted, [], {}, {}, 4, 40, results.rounds, [], 1)
