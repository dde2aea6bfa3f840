"""``python -m bench`` (``make bench``): each rules system's engine benchmarks (``bench/<key>/engine.py``;
Lucky 13's: the whole table, our engine against icepool, :mod:`bench.lucky13.engine`), then the pages
against the history behind them (:mod:`bench.pages`), then the live dashboard's sockets on two server
processes sharing Redis (:mod:`bench.sockets`, in a Python process of its own), last a light page's
time while heavy clients ask for the most expensive exact chances allowed (:mod:`bench.load`, in a
Python process of its own), last the product as served, every page's throughput against the trivial
view's with an empty and a large installation, and its weight (:mod:`bench.served`, on PostgreSQL, in a
Python process of its own).

Machines are shared and noisy, so each part measures both sides of a comparison in the same run,
interleaved, and judges the ratio of their medians. Exit status: 0 when every target is met, 1
when one is missed, 2 when a part is broken (two engines disagree, a process fails, a page did not
answer or its data could not be built, a server did not start or a socket did not open, Redis is not
there); the run's status is the worst of its parts. ``--engine-only``, ``--pages-only`` and
``--sockets-only``, ``--load-only``, ``--served-only`` run one part; ``--quick`` makes every part a smoke run.
"""

from __future__ import annotations

import argparse
import sys
from importlib import import_module
from importlib.util import find_spec

from bench.load import load_main
from bench.pages import REPS as PAGE_REPS
from bench.pages import pages_main
from bench.served import served_main
from bench.sockets import sockets_main
from rules import systems


def engine_parts() -> list[str]:
    """The systems with engine benchmarks of their own (``bench/<key>/engine.py``), in the registry's order.
    A system without a ``bench/<key>/`` package has none (looking for ``bench.<key>.engine`` alone would
    import that package, and fail)."""
    return [
        key
        for key in systems.KEYS
        if find_spec(f"bench.{key}") is not None and find_spec(f"bench.{key}.engine") is not None
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--quick",
        action="store_true",
        help="smoke run: a slice of each table, 1 run each, in process; small pages; few sockets",
    )
    parser.add_argument("--reps", type=int, metavar="N", help="runs of our engine per measure")
    parser.add_argument("--icepool-reps", type=int, metavar="N", help="runs of icepool per measure")
    parser.add_argument(
        "--page-reps", type=int, metavar="N", help=f"timed requests per page and size (default {PAGE_REPS})"
    )
    only = parser.add_mutually_exclusive_group()
    only.add_argument("--engine-only", action="store_true", help="the engines' benchmarks alone")
    only.add_argument("--pages-only", action="store_true", help="the pages alone")
    only.add_argument("--sockets-only", action="store_true", help="the live dashboard's sockets alone")
    only.add_argument("--load-only", action="store_true", help="light pages under heavy exact-chance requests alone")
    only.add_argument(
        "--served-only", action="store_true", help="the served product, empty and large installations, alone"
    )
    parser.add_argument("--rebuild", action="store_true", help="build the served part's large installation again")
    parser.add_argument("--write-docs", metavar="LABEL", help="write the served part's tables to docs/bench.md")
    args = parser.parse_args(argv)
    for name in ("reps", "icepool_reps", "page_reps"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name.replace('_', '-')} must be at least 1")

    chosen = args.engine_only or args.pages_only or args.sockets_only or args.load_only or args.served_only
    statuses = []
    if args.engine_only or not chosen:
        for key in engine_parts():
            engine = import_module(f"bench.{key}.engine").engine
            statuses.append(engine(quick=args.quick, ours_reps=args.reps, icepool_reps=args.icepool_reps))
    if args.pages_only or not chosen:
        statuses.append(pages_main(quick=args.quick, reps=args.page_reps))
    if args.sockets_only or not chosen:
        statuses.append(sockets_main(quick=args.quick))
    if args.load_only or not chosen:
        statuses.append(load_main(quick=args.quick))
    if args.served_only or not chosen:
        statuses.append(served_main(quick=args.quick, rebuild=args.rebuild, docs_label=args.write_docs))
    return max(statuses, default=0)  # 2 (broken) over 1 (missed) over 0


if __name__ == "__main__":
    sys.exit(main())
