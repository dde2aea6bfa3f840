"""A request's synchronous part runs on its thread in one trip from the event loop (``web.asgi.Handler.respond``):
the request_started signal, the middleware and the view, and the response's close with request_finished, all
before the loop sends the response. A streaming response is closed once it is sent; a client that leaves before
its response is ready is sent nothing, and its request still ends on its thread before the thread is kept. Each
path's view is found once (``web.asgi.Handler.resolve_request``), each request given a match of its own."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import AsyncIterator, Iterator
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from django.contrib.auth.decorators import login_not_required
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.urls import URLResolver, include, path

from tests import asgi_http
from web import asgi

#: What happened, in order: the signals (with their thread), the messages the server was sent, the views.
events: list[tuple[str, int]] = []
#: Set by the test once the client of the slow view has left: the view answers only then.
client_left = threading.Event()


@login_not_required
def slow(request: HttpRequest) -> HttpResponse:
    """Answers once the test says its client has left."""
    assert client_left.wait(30)
    events.append(("view answered", threading.get_ident()))
    return HttpResponse("too late")


@login_not_required
def streamed(request: HttpRequest) -> StreamingHttpResponse:
    async def parts() -> AsyncIterator[bytes]:
        yield b"one "
        yield b"two"

    return StreamingHttpResponse(parts())


@login_not_required
def spoils(request: HttpRequest, n: int) -> HttpResponse:
    """Answers with the number its path gave, then spoils its match's arguments (a middleware could)."""
    assert request.resolver_match is not None
    given = request.resolver_match.kwargs["n"]
    request.resolver_match.kwargs["n"] = -1
    return HttpResponse(str(given))


#: The site's own patterns too: its middleware and error pages name some of them.
urlpatterns = [
    path("slow/", slow),
    path("streamed/", streamed),
    path("spoils/<int:n>/", spoils),
    path("", include("config.urls")),
]


@pytest.fixture(autouse=True)
def noted() -> Iterator[None]:
    events.clear()
    client_left.clear()
    with asgi_http.signals_noted(events):
        yield


@pytest.fixture
def trips(monkeypatch: pytest.MonkeyPatch) -> list[object]:
    """Each call given to a request's thread, in order."""
    given: list[object] = []
    submit = ThreadPoolExecutor.submit

    def counted(self: ThreadPoolExecutor, fn: Any, /, *args: Any, **kwargs: Any) -> Any:
        if self._thread_name_prefix == "request":
            given.append(fn)
        return submit(self, fn, *args, **kwargs)

    monkeypatch.setattr(ThreadPoolExecutor, "submit", counted)
    return given


async def through(handler: asgi.Handler, path: str) -> asgi_http.Answer:
    """A GET through ``handler``, each message the server sends noted in :data:`events`."""

    async def noting(scope: dict[str, Any], receive: Any, send: Any) -> None:
        async def sending(message: dict[str, Any]) -> None:
            events.append((f"sent {message['type']}", threading.get_ident()))
            await send(message)

        await handler(scope, receive, sending)

    return await asgi_http.request(noting, path)


@pytest.mark.urls(__name__)
@pytest.mark.django_db(transaction=True)
def test_a_request_is_one_trip_to_its_thread_finished_before_its_response_is_sent(trips: list[object]) -> None:
    handler = asgi.Handler()
    answer = async_to_sync(through)(handler, "/healthz")
    assert answer.status == 200
    assert len(trips) == 1  # Django's own handler: four (each signal, the chain, the close)
    assert [what for what, _ in events] == [
        "started", "finished", "sent http.response.start", "sent http.response.body"
    ]  # fmt: skip
    request_thread = events[0][1]
    assert events[1][1] == request_thread != threading.get_ident()
    assert len(handler.idle) == 1


@pytest.mark.urls(__name__)
@pytest.mark.django_db(transaction=True)
def test_a_streaming_response_is_sent_whole_then_closed_on_the_requests_thread(trips: list[object]) -> None:
    handler = asgi.Handler()
    answer = async_to_sync(through)(handler, "/streamed/")
    assert (answer.status, answer.body) == (200, b"one two")
    whats = [what for what, _ in events]
    bodies = ["sent http.response.body"] * (len(whats) - 3)
    assert whats == ["started", "sent http.response.start", *bodies, "finished"]
    assert events[-1][1] == events[0][1]  # closed on the request's thread, after the last part was sent
    assert len(trips) == 2  # the request, and the close once it was sent


@pytest.mark.urls(__name__)
@pytest.mark.django_db(transaction=True)
def test_a_client_that_leaves_first_is_sent_nothing_and_its_request_ends_before_its_thread_is_kept() -> None:
    handler = asgi.Handler()
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": "GET", "scheme": "http",
        "path": "/slow/", "raw_path": b"/slow/", "query_string": b"", "root_path": "",
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 50000), "server": ("testserver", 80),
    }  # fmt: skip
    messages = [{"type": "http.disconnect"}, {"type": "http.request", "body": b"", "more_body": False}]
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        message = messages.pop()
        if message["type"] == "http.disconnect":
            events.append(("client left", threading.get_ident()))
            client_left.set()
        return message

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    async def scenario() -> None:
        await asyncio.wait_for(handler(scope, receive, send), 30)

    async_to_sync(scenario)()
    assert sent == []
    whats = [what for what, _ in events]
    assert whats == ["started", "client left", "view answered", "finished"]
    assert events[3][1] == events[0][1]  # its response closed on its thread
    assert len(handler.idle) == 1  # kept once the thread was done with it


@pytest.mark.urls(__name__)
@pytest.mark.django_db(transaction=True)
def test_a_paths_view_is_found_once_and_each_request_gets_its_own_match(monkeypatch: pytest.MonkeyPatch) -> None:
    resolved: list[str] = []
    resolve = URLResolver.resolve

    def noted(self: URLResolver, path: str) -> Any:
        if self.pattern.describe() == "'^/'":  # the site's root: the whole lookup of a path
            resolved.append(path)
        return resolve(self, path)

    monkeypatch.setattr(URLResolver, "resolve", noted)
    asgi.routes.clear()
    handler = asgi.Handler()

    async def bodies(*paths: str) -> list[tuple[int, bytes]]:
        return [((answer := await asgi_http.request(handler, p)).status, answer.body) for p in paths]

    got = async_to_sync(bodies)("/spoils/7/", "/spoils/7/", "/spoils/8/", "/nowhere/", "/nowhere/", "/spoils/7/")
    assert got[:3] == [(200, b"7"), (200, b"7"), (200, b"8")]  # the kept match, not the one the view spoiled
    assert [status for status, _ in got[3:]] == [404, 404, 200]
    assert resolved == ["/spoils/7/", "/spoils/8/", "/nowhere/", "/nowhere/"]  # a path that matches nothing: each time
