"""One HTTP request through an ASGI application, as uvicorn sends it: the scope, the request's body in one
message, and a client that stays until the whole response is sent (then disconnects); and where each
request's start and finish signals were sent (:func:`signals_noted`)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Awaitable, Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.core.signals import request_finished, request_started

Application = Callable[[dict[str, Any], Any, Any], Awaitable[None]]


@contextmanager
def signals_noted(into: list[tuple[str, int]]) -> Iterator[None]:
    """Each request's ``request_started`` and ``request_finished`` noted in ``into`` while the block runs, in
    order, each with the thread it was sent on (where the request's synchronous code runs)."""

    def started(**kwargs: Any) -> None:
        into.append(("started", threading.get_ident()))

    def finished(**kwargs: Any) -> None:
        into.append(("finished", threading.get_ident()))

    request_started.connect(started)
    request_finished.connect(finished)
    try:
        yield
    finally:
        request_started.disconnect(started)
        request_finished.disconnect(finished)


@dataclass(frozen=True, slots=True)
class Answer:
    """The response: its status and its whole body."""

    status: int
    body: bytes


async def request(
    application: Application, path: str, *, method: str = "GET", query: bytes = b"",
    headers: Sequence[tuple[bytes, bytes]] = (), body: bytes = b"",
    answered: asyncio.Event | None = None, held: asyncio.Event | None = None,
) -> Answer:  # fmt: skip
    """``method`` of ``path`` through ``application``, with ``headers`` after the host's. ``answered`` is set
    once the response has begun; ``held``: the client reads the response's end only once it is set (a slow
    client)."""
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": query, "root_path": "",
        "headers": [(b"host", b"testserver"), *headers], "client": ("127.0.0.1", 50000),
        "server": ("testserver", 80),
    }  # fmt: skip
    requested = [{"type": "http.request", "body": body, "more_body": False}]
    finished = asyncio.Event()
    sent: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        if requested:
            return requested.pop()
        await finished.wait()  # the client stays until the whole response is sent, as uvicorn's would
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if "status" in message and answered is not None:
            answered.set()
        if message["type"] == "http.response.body" and not message.get("more_body"):
            if held is not None:
                await held.wait()
            finished.set()

    await application(scope, receive, send)
    return Answer(sent[0]["status"], b"".join(m.get("body", b"") for m in sent[1:]))
