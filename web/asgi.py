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

A request's whole synchronous part runs on that thread in one trip from the event loop, as it would under
WSGI (:meth:`Handler.respond`): the ``request_started`` signal, the request made from the scope, the
middleware and the view (Django's synchronous ``get_response``), and the response's close with the
``request_finished`` signal (the database connection back to the pool). The event loop reads the body before
and sends the response after. Every view of the site is synchronous, and Django's own handler took four trips
a request: each signal sent from the loop (``Signal.asend`` runs the synchronous receivers in a trip of
their own), the middleware chain, and the close after the response was sent; its chain, built for the loop,
also came back to the loop under the first synchronous middleware and went to the thread again for the view.
Each trip is a wake-up of the thread and then of the loop, and the request's thread and the loop took each
other's turns at the interpreter: twice the context switches of one trip, on the lightest page a third of
the server's work. A streaming response (a file) is closed once it is sent, as Django closes it.
A client that leaves before its response is ready is sent nothing; its request still ends on its thread, its
response closed there, before the thread serves another request.

Each path's view is found once per process (:meth:`Handler.resolve_request`, up to :data:`KEPT_ROUTES` paths):
every app's patterns are included at the site's root, so Django tried each pattern of the apps before the one
that matches and noted each it tried, for the 404 page, on every request; a page served again takes what it
found the first time. A path that matches nothing is looked up afresh each time.

What a request leaves to the event loop (:func:`leave_to_loop`: its announcements to the live pages) is run
there by the process's :class:`Outbox`, one call at a time, in the order the requests of the process left
them (an announcement is left just after its transaction commits, as each request's thread sent its own and
waited before): the request's thread goes on at once, and its response waits for neither the loop nor Redis.
A call that fails or takes longer than :data:`LEFT_CALL_TIMEOUT` is logged and the next one runs; past
:data:`OUTBOX_LIMIT` calls waiting (Redis out of reach for a long while), new ones are dropped and logged: a
page shows what it missed on its next load, or when its socket reconnects. Outside a request this handler
serves (a test's client, a command, a socket's consumer), the caller runs its call itself.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
from collections import deque
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from typing import Any, Final

from asgiref.sync import ThreadSensitiveContext, sync_to_async
from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse, HttpRequest, HttpResponseBase
from django.urls import ResolverMatch, get_resolver, set_script_prefix

from web.kept import Kept

__all__ = ["KEPT_IDLE", "KEPT_ROUTES", "LEFT_CALL_TIMEOUT", "OUTBOX_LIMIT", "Handler", "Outbox", "leave_to_loop"]

logger = logging.getLogger(__name__)

#: Idle request threads a process keeps for the next requests.
KEPT_IDLE: Final = 16
#: Paths whose views are kept (:meth:`Handler.resolve_request`), the least recently served dropped first.
KEPT_ROUTES: Final = 1024
#: Each path's match, by the resolver it was resolved by and the path.
routes: Final[Kept[ResolverMatch]] = Kept(KEPT_ROUTES)
#: Seconds a call left to the event loop may take before it is given up, and calls left waiting at most.
LEFT_CALL_TIMEOUT: Final = 10.0
OUTBOX_LIMIT: Final = 10_000

LeftCall = Callable[[], Awaitable[None]]


class Outbox:
    """The calls the requests served on one event loop leave to it (:func:`leave_to_loop`), run one at a time,
    in the order they were left, by one task while any are waiting (see the module)."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        # Touched on the loop's thread alone (:meth:`put` hands each call over to it): no lock.
        self.waiting: deque[LeftCall] = deque()
        self.worker: asyncio.Task[None] | None = None
        #: Calls dropped since the outbox was last full (see :meth:`add`).
        self.dropped = 0

    def put(self, call: LeftCall) -> bool:
        """Leaves ``call`` to the loop, from any thread: False when the loop is closed and runs nothing more."""
        try:
            self.loop.call_soon_threadsafe(self.add, call)
        except RuntimeError:
            return False
        return True

    def add(self, call: LeftCall) -> None:
        if len(self.waiting) >= OUTBOX_LIMIT:
            if not self.dropped:
                logger.error("%d calls left to the event loop are waiting: new ones are dropped", len(self.waiting))
            self.dropped += 1
            return
        self.waiting.append(call)
        if self.worker is None or self.worker.done():
            # In a context of its own, not that of the request whose call started it (its thread long gone).
            self.worker = self.loop.create_task(self.run(), context=contextvars.Context())

    async def run(self) -> None:
        try:
            while self.waiting:
                call = self.waiting.popleft()
                limit = asyncio.timeout(LEFT_CALL_TIMEOUT)
                try:
                    async with limit:
                        await call()
                except Exception:
                    if limit.expired():  # not a TimeoutError of the call's own
                        logger.error("A call left to the event loop took more than %g s: given up", LEFT_CALL_TIMEOUT)
                    else:
                        logger.exception("A call left to the event loop failed")
                if self.dropped and len(self.waiting) < OUTBOX_LIMIT // 2:
                    logger.error("%d calls left to the event loop were dropped while it was full", self.dropped)
                    self.dropped = 0
        except asyncio.CancelledError:
            if self.waiting:
                logger.warning("%d calls left to the event loop not run: the loop is stopping", len(self.waiting))
            raise
        finally:
            self.worker = None


#: The outbox of the event loop serving the request under way (shared with its thread: the thread's context is
#: a copy of the request's); None outside a request :class:`Handler` serves.
current_outbox: contextvars.ContextVar[Outbox | None] = contextvars.ContextVar("current_outbox", default=None)


def leave_to_loop(call: LeftCall) -> bool:
    """Leaves ``call`` to the event loop serving the request under way, to be awaited there after what was left
    before it (see the module): True. False when no request served by :class:`Handler` is under way here (or
    its loop has closed), and the caller is to run it itself."""
    outbox = current_outbox.get()
    return outbox is not None and outbox.put(call)


def _nothing() -> None:
    return None


class Handler(ASGIHandler):
    """:class:`ASGIHandler` whose requests' threads are kept for later requests (see the module)."""

    def __init__(self) -> None:
        super().__init__()
        # Touched on the event loop's thread alone: no lock.
        self.idle: list[ThreadPoolExecutor] = []
        #: The outbox of the loop this handler serves on (a new one for a new loop: the tests run several).
        self.outbox: Outbox | None = None

    def load_middleware(self, is_async: bool = False) -> None:
        """The middleware chain built as for WSGI, down to the view: run by :meth:`respond`, on the request's
        thread (see the module)."""
        super().load_middleware(is_async=False)

    def resolve_request(self, request: HttpRequest) -> ResolverMatch:
        """Django's, with each path's match kept (see the module). Each request gets a copy of its own, whose
        arguments it may change: the view and the middleware are handed them."""
        if hasattr(request, "urlconf"):  # set by a middleware for this request: Django's own way
            return super().resolve_request(request)
        resolver, path = get_resolver(), request.path_info
        kept = routes.get((resolver, path), lambda: resolver.resolve(path))
        match = ResolverMatch.__new__(ResolverMatch)  # (Django refuses to copy one: it cannot be pickled)
        match.__dict__.update(kept.__dict__, args=list(kept.args), kwargs=dict(kept.kwargs))
        request.resolver_match = match
        return match

    def respond(self, scope: dict[str, Any], body_file: Any) -> HttpResponseBase:
        """The request's synchronous part, all of it on its thread (see the module): its response, closed
        already unless it streams."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, response = self.create_request(scope, body_file)
        if request is not None:
            response = self.get_response(request)  # Django's own, as under WSGI: the chain, the view, the log
            response._handler_class = self.__class__
            if isinstance(response, FileResponse):
                response.block_size = self.chunk_size  # the server chunks it
        if not response.streaming:
            response.close()
        return response

    async def handle(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        """Django's handling of a request, its synchronous part in one trip to its thread (:meth:`respond`),
        the client's leaving heard meanwhile. Returns once the thread has finished with the request."""
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        try:
            set_script_prefix(get_script_prefix(scope))
            responding = asyncio.ensure_future(sync_to_async(self.respond, thread_sensitive=True)(scope, body_file))
            listening = asyncio.ensure_future(self.listen_for_disconnect(receive))
            try:
                await asyncio.wait([responding, listening], return_when=asyncio.FIRST_COMPLETED)
            finally:
                listening.cancel()
            response = await responding  # the thread's part is done, whether or not the client is still there
            if listening.done() and not listening.cancelled():
                error = listening.exception()
                if error is not None and not isinstance(error, RequestAborted):
                    raise error  # a message after the body that is not a disconnect, as Django raises it
                # The client left first: nothing is sent; a streaming response is closed here, unsent.
                if response.streaming:
                    await sync_to_async(response.close, thread_sensitive=True)()
                return
            await self.send_response(response, send)
            if response.streaming:
                await sync_to_async(response.close, thread_sensitive=True)()
        finally:
            body_file.close()

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            raise ValueError(f"Django can only handle ASGI/HTTP connections, not {scope['type']}.")
        executor = self.idle.pop() if self.idle else ThreadPoolExecutor(1, thread_name_prefix="request")
        loop = asyncio.get_running_loop()
        if self.outbox is None or self.outbox.loop is not loop:
            self.outbox = Outbox(loop)
        token = current_outbox.set(self.outbox)
        finished = False
        try:
            async with ThreadSensitiveContext(executor=executor):
                await self.handle(scope, receive, send)
            finished = True  # the thread is done with the request (:meth:`handle`)
        finally:
            current_outbox.reset(token)
            if not finished:
                # A call the request left running (its handling cancelled or failed) finishes before the thread
                # is handed to another request: the executor runs its calls in order, so this one comes after.
                try:
                    await asyncio.shield(asyncio.wrap_future(executor.submit(_nothing)))
                except asyncio.CancelledError:
                    executor.shutdown(wait=False)  # its thread ends once what it was given is done
                    raise
            if len(self.idle) < KEPT_IDLE:
                self.idle.append(executor)
            else:
                executor.shutdown(wait=False)
