"""The database out of reach is a 503 with ``Retry-After``, never a 500: JSON for the API, a small
page otherwise. Nothing was changed (a request that cannot reach the database cannot write to it),
and the application recovers by itself once the database answers again: each request takes a connection
that works (PostgreSQL's pool checks each before handing it out and opens a new one for any the outage
broke; SQLite opens one per request), so the first request after the outage is served.

:class:`DatabaseOutageMiddleware` (placed before the session and authentication middleware) catches
it where it is met: reading the visitor from the session before any view (the session and
authentication middleware read it lazily, and LoginRequiredMiddleware's asking would otherwise be a
500 before the view), in the view, and, for the API, in its own handler (api.errors), which would
otherwise answer it itself. A page that needs no database (an anonymous visitor's calculator) is
served as ever.

The page needs nothing that needs the database: no session, no user, no CSRF token, and it is drawn
without the request's context processors.

On PostgreSQL a request waits up to ``DB_POOL_TIMEOUT`` seconds (5) for a connection from the process's pool,
which is right when every connection is busy for a moment, and wasted when the server is gone: every request
would wait the whole time before its 503, holding a thread. So once a request's 503 comes after the pool has
failed to connect (its ``connections_errors`` grew), the process notes the outage (:class:`Outage`), and until
a connection is had again the pool is waited on for :data:`OUTAGE_WAIT` alone: the next requests are answered
at once, and the first once the server is back (and the pool connected) is served, as ever.
"""

from __future__ import annotations

import logging
import threading
from typing import Any, ClassVar, Final

from django.db import DEFAULT_DB_ALIAS, InterfaceError, OperationalError, connections
from django.db.backends.base.base import BaseDatabaseWrapper
from django.db.backends.signals import connection_created
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template.loader import render_to_string
from django.utils.deprecation import MiddlewareMixin

logger = logging.getLogger(__name__)

#: What the database's driver raises when it cannot be reached or lost the connection.
OUTAGE: Final = (OperationalError, InterfaceError)
#: Seconds a client is asked to wait before trying again (the application recovers within one).
RETRY_AFTER: Final = 5
#: Where the JSON API is served: its answer is JSON, as every error of the API.
API_PREFIX: Final = "/api/"
MESSAGE: Final = (
    f"Dicehall cannot reach its database just now, and nothing was changed. Please try again in {RETRY_AFTER} seconds."
)
#: The page has no script, no style sheet and no image: nothing at all may load.
POLICY: Final = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
#: Seconds a request waits for a pooled connection while an outage is noted: long enough for a connection the
#: pool holds or opens at once, far short of ``DB_POOL_TIMEOUT``.
OUTAGE_WAIT: Final = 0.1


class Outage:
    """This process's note of an outage of PostgreSQL: the pool that failed to connect, and the wait it was made
    with (``DB_POOL_TIMEOUT``), which it waits with again once a connection is had."""

    lock: ClassVar = threading.Lock()
    #: The pool waited on for :data:`OUTAGE_WAIT` alone, while the outage lasts.
    pool: ClassVar[Any] = None
    wait: ClassVar[float] = 0.0
    #: The pool's failed connection attempts when a 503 last looked: more since then is the server out of reach,
    #: and not every connection merely busy.
    looked: ClassVar[tuple[Any, int]] = (None, 0)

    @classmethod
    def note(cls) -> None:
        """After a 503: the outage noted when the pool has failed to connect since the last 503 (or is noted)."""
        pool = getattr(connections[DEFAULT_DB_ALIAS], "pool", None)  # PostgreSQL's pool, when there is one
        if pool is None:
            return
        errors = pool.get_stats().get("connections_errors", 0)
        with cls.lock:
            seen_pool, seen = cls.looked
            cls.looked = (pool, errors)
            if cls.pool is pool or errors <= (seen if seen_pool is pool else 0):
                return
            if cls.pool is not None:  # a pool made since (settings changed): the old one waits as before
                cls.pool.timeout = cls.wait
            cls.pool, cls.wait = pool, pool.timeout
            pool.timeout = OUTAGE_WAIT

    @classmethod
    def end(cls) -> None:
        """A connection was had: the pool waits with ``DB_POOL_TIMEOUT`` again."""
        with cls.lock:
            if cls.pool is not None:
                cls.pool.timeout = cls.wait
                cls.pool = None


def connected(sender: object, connection: BaseDatabaseWrapper, **kwargs: object) -> None:
    """Any connection had (a page's, a live socket's) ends a noted outage; otherwise a look at one attribute."""
    if Outage.pool is not None and connection.alias == DEFAULT_DB_ALIAS:
        Outage.end()


connection_created.connect(connected, dispatch_uid="web.outage.connected")


def unavailable(request: HttpRequest) -> HttpResponse:
    """The 503 for ``request``: ``{"code": "unavailable", "message": …}`` under :data:`API_PREFIX`,
    the small page ``503.html`` elsewhere; either with ``Retry-After`` and never cached."""
    response: HttpResponse
    if request.path.startswith(API_PREFIX):
        response = JsonResponse({"code": "unavailable", "message": MESSAGE}, status=503)
    else:
        page = render_to_string("503.html", {"message": MESSAGE, "retry_after": RETRY_AFTER})
        response = HttpResponse(page, status=503)
        response["Content-Security-Policy"] = POLICY
    response["Retry-After"] = str(RETRY_AFTER)
    response["Cache-Control"] = "no-store"
    return response


class DatabaseOutageMiddleware(MiddlewareMixin):
    """Answers :func:`unavailable` when reading the visitor, or the view, meets the database out of reach."""

    def process_view(self, request: HttpRequest, *args: object) -> HttpResponse | None:
        # The visitor read now, from the session: a failure of that read in the session or authentication
        # middleware (or in LoginRequiredMiddleware, which asks) would be a 500 before any view runs.
        # The API knows its caller by token, not session, and reads it in its own handlers.
        user = getattr(request, "user", None)
        if user is None or request.path.startswith(API_PREFIX):
            return None
        try:
            user.is_authenticated  # noqa: B018 (loads the lazy user)
        except OUTAGE as error:
            return self.outage(request, error)
        return None

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        return self.outage(request, exception) if isinstance(exception, OUTAGE) else None

    @staticmethod
    def outage(request: HttpRequest, error: Exception) -> HttpResponse:
        logger.warning("The database is out of reach (%s): 503 for %s", error, request.path)
        Outage.note()
        return unavailable(request)
