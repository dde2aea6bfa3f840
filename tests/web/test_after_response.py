"""What a request leaves to the event loop (``web.asgi.after_response``) runs there once its response is
sent, in the order it was left, on the loop's thread, even when the request failed; outside a request the
server's handler serves, nothing is left and the caller runs its call itself."""

from __future__ import annotations

import asyncio
import logging
import threading
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from web import asgi

#: What the calls left by this module's views did, in order, with what the client had been sent by then.
done: list[tuple[str, int, list[str]]] = []
#: The handler serving, and the threads it had idle as each left call ran.
serving: list[asgi.Handler] = []
idle_then: list[int] = []
#: What the client was sent, by type, as it was sent.
sent_types: list[str] = []


def leaving(name: str, *, fails: bool = False) -> Any:
    async def call() -> None:
        if fails:
            raise RuntimeError(name)
        done.append((name, threading.get_ident(), list(sent_types)))
        idle_then.append(len(serving[0].idle))

    return call


@login_not_required
def leaves_two(request: HttpRequest) -> HttpResponse:
    assert asgi.after_response(leaving("first"))
    assert asgi.after_response(leaving("second"))
    return HttpResponse("answered")


@login_not_required
def leaves_then_fails(request: HttpRequest) -> HttpResponse:
    asgi.after_response(leaving("broken", fails=True))
    asgi.after_response(leaving("after the broken one"))
    raise RuntimeError("the view failed after its write")


#: The site's own patterns too: its middleware and error pages name some of them.
urlpatterns = [
    path("leaves-two/", leaves_two),
    path("leaves-then-fails/", leaves_then_fails),
    path("", include("config.urls")),
]


@pytest.fixture(autouse=True)
def fresh() -> None:
    done.clear()
    sent_types.clear()
    idle_then.clear()
    serving[:] = [asgi.Handler()]


def serve(url: str) -> tuple[int, int]:
    """The status of a GET of ``url`` through the server's handler, and the event loop's thread."""

    async def get() -> tuple[int, int]:
        answered = asyncio.Event()
        statuses: list[int] = []
        requested = [{"type": "http.request", "body": b"", "more_body": False}]

        async def receive() -> dict[str, Any]:
            if requested:
                return requested.pop()
            await answered.wait()
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent_types.append(message["type"])
            if "status" in message:
                statuses.append(message["status"])
            if message["type"] == "http.response.body" and not message.get("more_body"):
                answered.set()

        scope = {
            "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
            "path": url, "raw_path": url.encode(), "query_string": b"", "root_path": "",
            "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
        }  # fmt: skip
        await serving[0](scope, receive, send)
        return statuses[0], threading.get_ident()

    return async_to_sync(get)()


@pytest.mark.urls(__name__)
@pytest.mark.django_db
def test_what_a_request_leaves_runs_on_the_loop_in_order_once_its_response_is_sent() -> None:
    status, loop_thread = serve("/leaves-two/")
    assert status == 200
    assert [name for name, _, _ in done] == ["first", "second"]
    for _, thread, sent_by_then in done:
        assert thread == loop_thread  # not the request's thread: it went on at once
        assert sent_by_then == ["http.response.start", "http.response.body"]  # the whole answer, before
    assert idle_then == [1, 1]  # and the request's thread was given back first: no thread waits on them


@pytest.mark.urls(__name__)
@pytest.mark.django_db
def test_what_a_failed_request_left_still_runs_and_one_failure_stops_no_other(
    caplog: pytest.LogCaptureFixture,
) -> None:
    with caplog.at_level(logging.ERROR, logger="web.asgi"):
        status, _ = serve("/leaves-then-fails/")
    assert status == 500
    assert [name for name, _, _ in done] == ["after the broken one"]
    assert any("left to run after a response failed" in record.getMessage() for record in caplog.records)


def test_outside_a_request_the_server_serves_nothing_is_left() -> None:
    assert asgi.after_response(leaving("never")) is False
    assert asgi.left_to_loop.get() is None
    assert done == []
