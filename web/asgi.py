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

What a request leaves to the event loop (:func:`after_response`: its announcements to the live pages) runs
there once its response is sent, in the order it was left: the request's thread does not wait for the
loop, nor the client for Redis. Outside a request this handler serves (a test's client, a command, a
socket's consumer), the caller runs it at once.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from contextvars import ContextVar
from typing import Any, Final

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core.handlers.asgi import ASGIHandler

__all__ = ["KEPT_IDLE", "Handler", "after_response"]

logger = logging.getLogger(__name__)

#: Idle request threads a process keeps for the next requests.
KEPT_IDLE: Final = 16

#: What the request under way has left to run on the event loop once its response is sent (a list of the
#: request's own, shared with its thread: the thread's context is a copy of the request's); None outside one.
left_to_loop: ContextVar[list[Callable[[], Awaitable[None]]] | None] = ContextVar("left_to_loop", default=None)


def after_response(call: Callable[[], Awaitable[None]]) -> bool:
    """Leaves ``call`` to the event loop, to be awaited once the response of the request under way is sent,
    after what the request left before it: True. False when no request served by :class:`Handler` is under
    way here, and the caller is to run it itself."""
    left = left_to_loop.get()
    if left is None:
        return False
    left.append(call)
    return True


async def run_left(left: list[Callable[[], Awaitable[None]]]) -> None:
    """Each call a request left, in order; one that fails is logged and does not stop the next."""
    for call in left:
        try:
            await call()
        except Exception:
            logger.exception("A call left to run after a response failed")


def _nothing() -> None:
    return None


class Handler(ASGIHandler):
    """:class:`ASGIHandler` whose requests' threads are kept for later requests (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        # Touched on the event loop's thread alone: no lock.
        self.idle: list[ThreadPoolExecutor] = []
        #: What cancelled requests left to run once their threads are done (held here until it has run).
        self.pending: set[asyncio.Future[None]] = set()

    def load_middleware(self, is_async: bool = False) -> None:
        """The middleware chain built as for WSGI, down to the view, and run on the request's thread (see
        the module) by the asynchronous handler."""
        super().load_middleware(is_async=False)
        self._middleware_chain = sync_to_async(self._middleware_chain, thread_sensitive=True)

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.idle.pop() if self.idle else ThreadPoolExecutor(1, thread_name_prefix="request")
        left: list[Callable[[], Awaitable[None]]] = []
        token = left_to_loop.set(left)
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
        finally:
            left_to_loop.reset(token)
            await self.finish(executor, left)

    async def finish(self, executor: ThreadPoolExecutor, left: list[Callable[[], Awaitable[None]]]) -> None:
        """After a request: its thread put back once idle, and then what it left to the loop run (see the
        module): the request's writes are committed, so it runs even when the request failed."""
        # A call the request left running (its client gone mid-view) finishes before the thread is handed to
        # another request, and before what it left runs: the executor runs its calls in order, so this one
        # comes after.
        idle = asyncio.wrap_future(executor.submit(_nothing))
        try:
            await asyncio.shield(idle)
        except asyncio.CancelledError:
            executor.shutdown(wait=False)  # its thread ends once what it was given is done
            self.pending.add(task := asyncio.ensure_future(self.run_when_idle(idle, left)))
            task.add_done_callback(self.pending.discard)
            raise
        if len(self.idle) < KEPT_IDLE:
            self.idle.append(executor)
        else:
            executor.shutdown(wait=False)
        if left:
            await asyncio.shield(run_left(left))

    @staticmethod
    async def run_when_idle(idle: asyncio.Future[None], left: list[Callable[[], Awaitable[None]]]) -> None:
        await idle
        await run_left(left)
