"""What a request leaves to the event loop (``web.asgi.leave_to_loop``) runs there, one call at a time, in the
order the process's requests left it, while the request goes on: its thread and its response wait for none of
it. A call that fails or takes too long is logged and the next one runs; outside a request the server's
handler serves, nothing is left and the caller runs its call itself."""

from __future__ import annotations

import asyncio
import contextvars
import logging
import threading
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse
from django.urls import include, path

from tests import asgi_http
from web import asgi

#: What the calls left by this module's views did, in order, each with the thread it ran on.
done: list[tuple[str, int]] = []
#: Set by a view before it leaves its calls: a call runs in a context of its own, and sees none of it.
marker: contextvars.ContextVar[str | None] = contextvars.ContextVar("marker", default=None)
seen: list[str | None] = []
#: Set by the test when a call may go on (a call that waits for it proves nobody waits for the call).
go_on: list[asyncio.Event] = []


def leaving(
    name: str, *, fails: bool = False, waits: bool = False, hangs: bool = False, times_out: bool = False
) -> Any:
    async def call() -> None:
        seen.append(marker.get())
        if fails:
            raise RuntimeError(name)
        if times_out:
            raise TimeoutError(name)  # its own: not the outbox's limit
        if waits:
            await go_on[0].wait()
        if hangs:
            await asyncio.Event().wait()
        done.append((name, threading.get_ident()))

    return call


@login_not_required
def leaves(request: HttpRequest, name: str) -> HttpResponse:
    """Leaves ``name`` (and ``name`` again, waiting for the test, with ``?wait``), then answers."""
    marker.set(f"the request for {name}")
    assert asgi.leave_to_loop(leaving(name))
    if "wait" in request.GET:
        assert asgi.leave_to_loop(leaving(f"{name} again", waits=True))
    return HttpResponse(name)


@login_not_required
def leaves_then_fails(request: HttpRequest) -> HttpResponse:
    asgi.leave_to_loop(leaving("broken", fails=True))
    asgi.leave_to_loop(leaving("timed out by itself", times_out=True))
    asgi.leave_to_loop(leaving("hung", hangs=True))
    asgi.leave_to_loop(leaving("after the broken and the hung ones"))
    raise RuntimeError("the view failed after its write")


#: The site's own patterns too: its middleware and error pages name some of them.
urlpatterns = [
    path("leaves/<str:name>/", leaves),
    path("leaves-then-fails/", leaves_then_fails),
    path("", include("config.urls")),
]


@pytest.fixture(autouse=True)
def fresh() -> None:
    done.clear()
    go_on.clear()
    seen.clear()


async def get(handler: asgi.Handler, url: str, query: bytes = b"", *, answered: asyncio.Event | None = None,
              held: asyncio.Event | None = None) -> int:  # fmt: skip
    """The status of a GET of ``url`` through ``handler``. ``answered`` is set once the response has begun;
    ``held``: the client reads the response's body only once it is set (a slow client)."""
    answer = await asgi_http.request(handler, url, query=query, answered=answered, held=held)
    assert asgi.current_outbox.get() is None  # set for the request only
    return answer.status


async def all_done(handler: asgi.Handler) -> None:
    """Until the handler's outbox has run everything left to it."""
    while handler.outbox is not None and (handler.outbox.worker is not None or handler.outbox.waiting):
        await asyncio.sleep(0.01)


@pytest.mark.urls(__name__)
@pytest.mark.django_db
def test_what_a_request_leaves_runs_on_the_loop_in_order_and_nobody_waits_for_it() -> None:
    handler = asgi.Handler()

    async def scenario() -> tuple[int, int]:
        go_on.append(asyncio.Event())
        # The second call waits until the response is in: were the request's thread or its response waiting
        # for the call, the request would never finish.
        status = await asyncio.wait_for(get(handler, "/leaves/first/", b"wait"), 30)
        assert [name for name, _ in done] == ["first"]
        go_on[0].set()
        await asyncio.wait_for(all_done(handler), 30)
        return status, threading.get_ident()

    status, loop_thread = async_to_sync(scenario)()
    assert status == 200
    assert done == [("first", loop_thread), ("first again", loop_thread)]  # on the loop, not the request's thread
    assert seen == [None, None]  # in a context of their own, not the request's


@pytest.mark.urls(__name__)
@pytest.mark.django_db(transaction=True)
def test_calls_run_in_the_order_they_were_left_not_the_order_the_responses_ended() -> None:
    """A request whose client reads slowly ends after a later one: what it left still runs first (what the
    requests of a process announce goes out in the order their writes committed)."""
    handler = asgi.Handler()

    async def scenario() -> None:
        answered, held = asyncio.Event(), asyncio.Event()
        slow = asyncio.ensure_future(get(handler, "/leaves/slow/", answered=answered, held=held))
        await asyncio.wait_for(answered.wait(), 30)  # its view has returned: its call is left
        assert await asyncio.wait_for(get(handler, "/leaves/quick/"), 30) == 200
        await asyncio.wait_for(all_done(handler), 30)
        assert [name for name, _ in done] == ["slow", "quick"]
        assert not slow.done()  # the slow client has not had the whole response yet
        held.set()
        assert await asyncio.wait_for(slow, 30) == 200

    async_to_sync(scenario)()


@pytest.mark.urls(__name__)
@pytest.mark.django_db
def test_a_call_that_fails_or_hangs_is_logged_and_the_next_one_runs(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(asgi, "LEFT_CALL_TIMEOUT", 0.2)
    handler = asgi.Handler()

    async def scenario() -> int:
        status = await get(handler, "/leaves-then-fails/")
        await asyncio.wait_for(all_done(handler), 30)
        return status

    with caplog.at_level(logging.ERROR, logger="web.asgi"):
        status = async_to_sync(scenario)()
    assert status == 500  # and what the view left before it failed ran all the same
    assert [name for name, _ in done] == ["after the broken and the hung ones"]
    said = [record.getMessage() for record in caplog.records if record.name == "web.asgi"]
    assert said.count("A call left to the event loop failed") == 2  # the broken one and the one timed out by itself
    assert said.count("A call left to the event loop took more than 0.2 s: given up") == 1  # the hung one


def test_past_its_limit_the_outbox_drops_a_new_call_and_says_so(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(asgi, "OUTBOX_LIMIT", 2)

    async def scenario() -> None:
        outbox = asgi.Outbox(asyncio.get_running_loop())
        go_on.append(asyncio.Event())
        for n in range(4):  # the first is taken at once by the worker and waits; two wait behind it; one dropped
            outbox.add(leaving(str(n), waits=True))
            await asyncio.sleep(0)
        go_on[0].set()
        while outbox.worker is not None:
            await asyncio.sleep(0.01)

    with caplog.at_level(logging.ERROR, logger="web.asgi"):
        async_to_sync(scenario)()
    assert [name for name, _ in done] == ["0", "1", "2"]
    said = [record.getMessage() for record in caplog.records if record.name == "web.asgi"]
    assert said == [
        "2 calls left to the event loop are waiting: new ones are dropped",
        "1 calls left to the event loop were dropped while it was full",
    ]


def test_outside_a_request_the_server_serves_nothing_is_left() -> None:
    assert asgi.leave_to_loop(leaving("never")) is False
    assert done == []


def test_an_outbox_whose_loop_has_closed_takes_nothing() -> None:
    loop = asyncio.new_event_loop()
    outbox = asgi.Outbox(loop)
    loop.close()
    assert outbox.put(leaving("never")) is False
