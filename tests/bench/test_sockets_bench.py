"""The socket benchmark (``bench.sockets``) at a tiny size, as ``python -m bench`` runs it: two server
processes sharing Redis, four sockets (two on each) quiet for longer than the 5 s wait that once
dropped them, two rolls, SIGTERM. Every target is met and the table says so; timing belongs to the
benchmark, never to a test: nothing here looks at a time.

Needs Redis at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/15``): without it this test skips
locally, and under ``CI`` it fails.
"""

from __future__ import annotations

import re

from channels_redis.core import RedisChannelLayer

from bench import sockets
from tests.conftest import needs_redis

#: Past channels-redis's wait for the next event (and redis-py's old default read timeout), 5 s each.
QUIET = RedisChannelLayer.brpop_timeout + 1.5


def row(table: str, name: str) -> list[str]:
    """The cells of the table's row ``name`` (cells are two spaces or more apart)."""
    line = re.search(rf"^{re.escape(name)}  .*$", table, re.MULTILINE)
    assert line is not None, f"no row {name!r} in:\n{table}"
    return re.split(r" {2,}", line.group()[len(name) :].strip())


def test_a_tiny_socket_bench_delivers_every_roll_on_both_servers_and_stops_them_cleanly(capfd) -> None:
    needs_redis(sockets.REDIS_URL, "the socket benchmark")

    status = sockets.sockets_main(quick=False, sockets=4, rolls=2, players=1, idle=QUIET)

    captured = capfd.readouterr()
    table = captured.out
    assert status == 0, table + captured.err
    assert "4 dashboards of one campaign (a GM and 1 player) on 2 server processes sharing Redis; 2 rolls." in table
    assert row(table, "sockets open and caught up")[0].startswith("4 (2 + 2) in ")
    assert row(table, f"dropped while quiet for {QUIET:g} s") == ["0", "0", "PASS"]
    assert row(table, "dropped during the rolls") == ["0", "0", "PASS"]
    assert row(table, "deliveries missed") == ["0 of 8", "0", "PASS"]
    for name in ("delivery, commit to receipt: median", "95th percentile", "slowest"):
        assert re.fullmatch(r"[0-9.]+ ms", row(table, name)[0]), name
    assert row(table, "stopped on SIGTERM in")[-2:] == ["< 10 s", "PASS"]
    assert row(table, "lines of exceptions in the logs") == ["0", "0", "PASS"]
    assert row(table, "closed with 1012 (service restart)") == ["4 of 4"]
    assert row(table, "channels left in the campaign's group") == ["0"]
