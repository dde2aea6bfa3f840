"""Django's ASGI handler with each request's thread taken from a set kept between requests.

Django runs a request's synchronous code (its middleware, view and signals) on one thread of the
request's own, so that what is kept per thread (the database connection, the locale) stays with the
request. Its handler makes that thread for the request and, when the request ends, joins it from yet
another thread made for the purpose: two threads started and ended per request, a cost every page
paid, the lightest most of all. :class:`Handler` gives each request a one-thread executor of its own
the same way, but takes it from those idle since an earlier request and puts it back when the request
is over and the thread has nothing left to run. Requests under way at once still each have a thread of
their own; no two share one at the same time.

At most :data:`KEPT_IDLE` idle threads are kept: a burst of more requests at once makes threads for the
rest, ended as their requests end.

The middleware and the view run on that thread in one trip from the event loop, as they would under WSGI.
Django's own handler builds its middleware for the event loop: under a middleware that is only synchronous
(most are), it comes back to the loop for the next one that can run there (axes', last) and for the view
call, then goes to the thread again to run the (synchronous) view: two more trips between the loop and the
thread on every request, each a wake-up of the other side. Every view of the site is synchronous.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler

__all__ = ["KEPT_IDLE", "Handler"]

#: Idle request threads a process keeps for the next requests.
KEPT_IDLE: Final = 16


def _nothing() -> None:
    return None


class Handler(ASGIHandler):
    """:class:`ASGIHandler` whose requests' threads are kept for later requests (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        # Touched on the event loop's thread alone: no lock.
        self.idle: list[ThreadPoolExecutor] = []

    def load_middleware(self, is_async: bool = False) -> None:
        """The middleware chain built as for WSGI, down to the view, and run on the request's thread (see
        the module) by the asynchronous handler."""
        super().load_middleware(is_async=False)
        self._middleware_chain = sync_to_async(self._middleware_chain, thread_sensitive=True)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.idle.pop() if self.idle else ThreadPoolExecutor(1, thread_name_prefix="request")
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            # A call the request left running (its client gone mid-view) finishes before the thread is
            # handed to another request: the executor runs its calls in order, so this one comes after.
            try:
                await asyncio.shield(asyncio.wrap_future(executor.submit(_nothing)))
            except asyncio.CancelledError:
                executor.shutdown(wait=False)  # its thread ends once what it was given is done
                raise
            if len(self.idle) < KEPT_IDLE:
                self.idle.append(executor)
            else:
                executor.shutdown(wait=False)
