"""Requests through the real ASGI handler take their PostgreSQL connection from the process's pool and
give it back, whichever thread each runs in, and a connection the server dropped is replaced, not failed on.

Each request goes through Django's ASGI handler as uvicorn calls it: its sync code runs in a thread of
its own, and the request_finished signal returns the connection to the pool (config/settings.py,
"Connections under ASGI"). The test client would not do: it keeps one connection open across requests.
"""

from __future__ import annotations

import asyncio

import pytest
from asgiref.sync import async_to_sync
from django.core.handlers.asgi import ASGIHandler
from django.db import connection


async def get(path: str) -> int:
    """The status of one GET of ``path``, through Django's ASGI handler."""
    sent: list[dict] = []
    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": "GET",
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "query_string": b"",
        "root_path": "",
        "headers": [(b"host", b"testserver")],
        "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }

    body = [{"type": "http.request", "body": b"", "more_body": False}]
    finished = asyncio.Event()

    async def receive() -> dict:
        if body:
            return body.pop()
        await finished.wait()  # the client stays until the whole response is sent, as uvicorn's would
        return {"type": "http.disconnect"}

    async def send(message: dict) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            finished.set()

    await ASGIHandler()(scope, receive, send)
    return sent[0]["status"]


def serve(path: str) -> int:
    return async_to_sync(get)(path)


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
def test_a_connection_the_server_dropped_is_replaced() -> None:
    assert serve("/healthz") == 200
    connection.pool.wait()
    with connection.cursor() as cursor:
        # Every pooled connection idle now, ended by the server (as a restart or an idle timeout would).
        cursor.execute(
            "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity "
            "WHERE datname = current_database() AND pid <> pg_backend_pid()"
        )
        (ended,) = cursor.fetchone()
    assert ended >= 1
    lost = stat("connections_lost")
    assert serve("/healthz") == 200  # not a 503: the pool's check found the dead one and gave a live one
    assert stat("connections_lost") > lost
