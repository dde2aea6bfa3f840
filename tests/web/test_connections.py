"""Requests through the real ASGI handler take their PostgreSQL connection from the process's pool and
give it back, whichever thread each runs in, and a connection the server dropped is replaced, not failed on;
each request's sync code runs on one thread, no two requests under way at once on the same one, and a
thread is kept for later requests (web/asgi.py).

Each request goes through the server's ASGI handler (``web.asgi.Handler``) as uvicorn calls it: its sync
code runs in a thread of its own, and the request_finished signal returns the connection to the pool
(config/settings.py, "Connections under ASGI"). The test client would not do: it keeps one connection
open across requests.
"""

from __future__ import annotations

import asyncio
import gc
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from asgiref.sync import AsyncToSync, async_to_sync
from django.db import connection
from psycopg_pool import ConnectionPool

from tests import asgi_http
from web import asgi


async def get(path: str, handler: asgi.Handler | None = None) -> int:
    """The status of one GET of ``path``, through Django's ASGI handler."""
    return (await asgi_http.request(handler or asgi.Handler(), path)).status


@pytest.fixture(autouse=True)
def pool_as_configured() -> None:
    """The process's pool as the settings make it (DB_POOL_MIN connections), not as the tests before these in
    the same worker left it (one that ran twelve threads at once leaves ten open): each test counts what its
    own pool does."""
    if connection.vendor == "postgresql":
        connection.close()
        connection.close_pool()


def serve(path: str) -> int:
    return async_to_sync(get)(path)


def ended_by_the_server() -> int:
    """Every other connection to the test's database ended by the server, as a restart or an idle timeout ends
    them, and gone: each backend told to end its session, then waited for until it has (it ends its connection
    by itself, at its next look at its signals). How many there were."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT array_agg(pid) FILTER (WHERE pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        (ended,) = cursor.fetchone()
        ended = ended or []
        deadline = time.monotonic() + 30
        while True:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE pid = ANY(%s)", [ended])
            if cursor.fetchone()[0] == 0:
                return len(ended)
            assert time.monotonic() < deadline, "the server did not end its connections"
            cursor.execute("SELECT pg_sleep(0.01)")


def stat(name: str) -> int:
    return connection.pool.get_stats().get(name, 0)


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_requests_reuse_the_pools_connections() -> None:
    pool = connection.pool
    assert pool is not None
    assert serve("/healthz") == 200
    pool.wait()  # the pool has opened the connections it keeps (DB_POOL_MIN)
    opened, served = stat("connections_num"), stat("requests_num")
    for _ in range(5):
        assert serve("/healthz") == 200
    # Five requests, five connections taken from the pool and given back, not one opened.
    assert stat("requests_num") - served == 5
    assert stat("connections_num") == opened
    assert pool.get_stats()["pool_available"] >= 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_connection_taken_from_the_pool_works_out_no_parameters(monkeypatch: pytest.MonkeyPatch) -> None:
    """Django works out a connection's parameters for every connection it takes; under a pool they are the
    pool's, worked out once when it was made: the requests after it take theirs without them."""
    from django.db.backends.postgresql import base as django_backend

    worked_out: list[str] = []
    made = django_backend.DatabaseWrapper.get_connection_params

    def noted(self: Any) -> dict[str, Any]:
        worked_out.append(self.alias)
        return made(self)

    monkeypatch.setattr(django_backend.DatabaseWrapper, "get_connection_params", noted)
    assert serve("/healthz") == 200  # the pool made (the fixture closed it): its parameters worked out
    assert worked_out == ["default"]
    for _ in range(3):
        assert serve("/healthz") == 200
    assert worked_out == ["default"]
    connection.close()
    connection.close_pool()  # a pool made again works them out again
    assert serve("/healthz") == 200
    assert worked_out == ["default", "default"]


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_connection_the_server_dropped_is_replaced() -> None:
    assert serve("/healthz") == 200
    connection.pool.wait()
    # Every pooled connection idle now, ended by the server (as a restart or an idle timeout would).
    ended = ended_by_the_server()
    assert ended >= 1
    lost = stat("connections_lost")
    assert serve("/healthz") == 200  # not a 503: the pool's check found the dead one and gave a live one
    assert stat("connections_lost") > lost


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_live_connection_is_handed_out_with_no_trip_to_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    """Only a connection whose socket the server has written to while it sat idle (its last words) is checked
    with a query (psycopg's check, an empty one): the test above shows the one the server ended is."""
    checked: list[object] = []
    check = ConnectionPool.check_connection

    def noted(pooled: object) -> None:
        checked.append(pooled)
        check(pooled)

    monkeypatch.setattr(ConnectionPool, "check_connection", staticmethod(noted))
    assert serve("/healthz") == 200
    connection.pool.wait()
    checked.clear()
    for _ in range(3):
        assert serve("/healthz") == 200
    assert checked == []


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_a_grown_pool_every_connection_of_which_a_restart_closed_serves_the_next_request_at_once(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """psycopg's pool waits 1 s, then 2 s, then 4 s between checks of connections that fail theirs: with six
    idle connections dropped by a restart, a request waiting at most 2 s for one was a 503 (web/postgresql)."""
    connection.close()
    connection.close_pool()
    monkeypatch.setitem(connection.settings_dict["OPTIONS"], "pool", {"min_size": 6, "max_size": 6, "timeout": 2.0})
    pool = connection.pool
    assert serve("/healthz") == 200
    pool.wait()  # six connections open and idle
    assert pool.get_stats()["pool_available"] == 6
    ended = ended_by_the_server()
    connection.close()  # the test's own connection, given back to the pool: the seventh of none left alive
    assert ended >= 5
    lost = stat("connections_lost")
    assert serve("/healthz") == 200
    assert stat("connections_lost") - lost >= 5  # found broken and thrown away together, not one a wait
    connection.close()
    connection.close_pool()


@pytest.fixture
def threads() -> Iterator[list[tuple[str, int]]]:
    """The thread each request's start and finish signals ran on, in order: where its sync code runs."""
    seen: list[tuple[str, int]] = []
    with asgi_http.signals_noted(seen):
        yield seen


@pytest.mark.django_db(transaction=True)
def test_a_requests_thread_is_kept_for_the_next_request(threads: list[tuple[str, int]]) -> None:
    handler = asgi.Handler()
    assert serve_with(handler, "/healthz", "/healthz") == [200, 200]
    # Both requests, start to finish, on one thread, not the caller's: the first's, kept and given to the second.
    assert [when for when, _ in threads] == ["started", "finished", "started", "finished"]
    assert len({ident for _, ident in threads}) == 1
    assert threads[0][1] != threading.get_ident()
    assert len(handler.idle) == 1


@pytest.mark.django_db(transaction=True)
def test_requests_under_way_at_once_each_have_a_thread(threads: list[tuple[str, int]]) -> None:
    handler = asgi.Handler()

    async def three() -> list[int]:
        return list(await asyncio.gather(*(get("/healthz", handler) for _ in range(3))))

    assert async_to_sync(three)() == [200, 200, 200]
    started = [ident for when, ident in threads if when == "started"]
    assert len(set(started)) == 3
    # Each request finished on the thread it started on.
    assert sorted(ident for when, ident in threads if when == "finished") == sorted(started)
    assert len(handler.idle) == 3
    # The next requests take the kept threads: no new one.
    threads.clear()
    assert async_to_sync(three)() == [200, 200, 200]
    assert {ident for _, ident in threads} == set(started)


@pytest.mark.django_db(transaction=True)
def test_idle_threads_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(asgi, "KEPT_IDLE", 2)
    handler = asgi.Handler()

    async def five() -> list[int]:
        return list(await asyncio.gather(*(get("/healthz", handler) for _ in range(5))))

    assert async_to_sync(five)() == [200] * 5
    assert len(handler.idle) == 2


def serve_with(handler: asgi.Handler, *paths: str) -> list[int]:
    """The statuses of GETs of ``paths``, one after the other, through ``handler``."""

    async def each() -> list[int]:
        return [await get(path, handler) for path in paths]

    return async_to_sync(each)()


def test_the_server_sets_what_start_up_made_aside_from_the_collector() -> None:
    import config.asgi  # noqa: F401

    assert gc.get_freeze_count() > 10_000


@pytest.mark.django_db(transaction=True)
def test_the_middleware_and_the_view_run_on_the_requests_thread_in_one_trip(
    threads: list[tuple[str, int]], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Built as Django builds it for the event loop, the chain came back to the loop under its first
    synchronous middleware (an ``AsyncToSync``) for axes' and the view's call, then went to the thread
    again for the view: two more trips a request (web/asgi.py)."""
    back_to_the_loop: list[object] = []
    called, caller = AsyncToSync.__call__, threading.get_ident()

    def noted(self: AsyncToSync, *args: Any, **kwargs: Any) -> Any:
        if threading.get_ident() != caller:  # not the test's own way in
            back_to_the_loop.append(self.awaitable)
        return called(self, *args, **kwargs)

    monkeypatch.setattr(AsyncToSync, "__call__", noted)
    assert serve_with(asgi.Handler(), "/healthz", "/") == [200, 200]
    assert back_to_the_loop == []
    assert len({ident for _, ident in threads}) == 1


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_timestamps_are_read_by_psycopgs_compiled_loader_as_django_reads_them() -> None:
    """Django's loader (``psycopg_any.BaseTzLoader``, on psycopg's loader in Python) and the one the connections
    use (web/postgresql) give the same instants, in the connection's time zone, from every form PostgreSQL sends."""
    from django.db.backends.postgresql.psycopg_any import BaseTzLoader
    from psycopg.pq import Format

    from web.postgresql.base import TIMESTAMPTZ, timestamp_loader

    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT %s::timestamptz, %s::timestamptz, %s::timestamptz, now()",
            ["2026-01-01 10:00:00+02", "1999-12-31 23:59:59.999999-05:30", "0044-03-15 12:00:00+00"],
        )
        read = cursor.fetchone()
    loader = connection.connection.adapters.get_loader(TIMESTAMPTZ, Format.TEXT)
    assert loader is timestamp_loader(connection.timezone)
    assert loader.__module__ == "web.postgresql.base"

    class Djangos(BaseTzLoader):
        timezone = connection.timezone

    with connection.cursor() as cursor:
        cursor.execute("SELECT %s::timestamptz::text", ["1999-12-31 23:59:59.999999-05:30"])
        (text,) = cursor.fetchone()
    assert loader(TIMESTAMPTZ, connection.connection).load(text.encode()) == Djangos(
        TIMESTAMPTZ, connection.connection
    ).load(text.encode())
    assert [value.tzinfo for value in read] == [connection.timezone] * 4
    assert read[0].isoformat() == "2026-01-01T08:00:00+00:00"
    assert read[1].isoformat() == "2000-01-01T05:29:59.999999+00:00"
    assert read[2].year == 44
