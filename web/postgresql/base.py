"""Django's PostgreSQL backend whose pool of connections gets over a restart of the server at once, checks a
connection by its socket, and reads timestamps with psycopg's compiled loader.

psycopg's pool checks a connection before it hands it out (``CONN_HEALTH_CHECKS``), throws away one that
fails and checks the next, but waits between those checks, one second, then two, then four, as it waits
between attempts to connect to a server that refuses. After PostgreSQL restarts, every connection the pool
kept is closed: a process that had grown its pool to ten connections answered 503s for the first seconds
the server was back (a request waits ``DB_POOL_TIMEOUT`` at most, 5 s, and reached its third or fourth
dead connection by then). :class:`RecoveringPool` checks every idle connection as soon as one fails its
check, throws away all those the restart broke and opens new ones in their place, so the request's next
connection is a live one or a new one, with no wait but the connection's own.

The check itself (:func:`check_idle`) asks the server only about a connection whose socket has something to
read while it sits idle in the pool: the server's last words (a restart or ``pg_terminate_backend`` sends an
error, then closes) or the end of the socket. psycopg's own check (an empty query) was a round trip to the
server on every request, the lightest page's only query but its own.

Django works out a connection's parameters each time it takes one from the pool (every request), then leaves
them unread: :meth:`DatabaseWrapper.get_connection_params` works them out only to make the pool.

Timestamps are read by psycopg's compiled loader where it has one (:func:`timestamp_loader`): Django registers
its own, made on psycopg's loader in Python, some three times slower, and a page reads a few dozen (when each
row was made, changed, a user last logged in).
"""

from __future__ import annotations

import select
from collections.abc import Callable
from datetime import datetime, tzinfo
from functools import cache
from typing import Any, Final

import psycopg
from django.core.exceptions import ImproperlyConfigured
from django.db.backends.postgresql import base
from psycopg import pq
from psycopg.abc import AdaptContext
from psycopg.adapt import AdaptersMap, Loader
from psycopg_pool import ConnectionPool

NO_DB_ALIAS = base.NO_DB_ALIAS

__all__ = ["DatabaseWrapper", "RecoveringPool", "check_idle", "timestamp_loader"]

#: PostgreSQL's type of a timestamp with time zone.
TIMESTAMPTZ: Final = psycopg.postgres.types["timestamptz"].oid


@cache
def timestamp_loader(timezone: tzinfo | None) -> type[Loader]:
    """The loader of timestamps Django registers for ``timezone`` (``psycopg_any.register_tzloader``: the time
    as the connection reads it, in ``timezone``, or naive for None), on psycopg's own loader of the text format,
    compiled when psycopg's binary package is installed (see the module)."""
    read = psycopg.adapters.get_loader(TIMESTAMPTZ, pq.Format.TEXT)
    assert read is not None

    class TimestampLoader(Loader):
        def __init__(self, oid: int, context: AdaptContext | None = None) -> None:
            super().__init__(oid, context)
            self.read = read(oid, context).load

        def load(self, data: Any) -> datetime:
            return self.read(data).replace(tzinfo=timezone)

    TimestampLoader.timezone = timezone  # what Django's create_cursor compares
    return TimestampLoader


def check_idle(connection: Any) -> None:
    """psycopg's check of a pooled connection (:meth:`ConnectionPool.check_connection`, a round trip), made only
    when the connection is not plainly alive: not idle and open as the pool keeps it, or with something to
    read on its socket, which an idle connection has only once the server has ended it (see the module).
    Returns quietly for a live one; raises, as psycopg's check does, for one that is not."""
    pgconn = connection.pgconn
    idle = pgconn.status == pq.ConnStatus.OK and pgconn.transaction_status == pq.TransactionStatus.IDLE
    if idle and not connection.closed:
        waiting = select.poll()
        waiting.register(pgconn.socket, select.POLLIN)
        if not waiting.poll(0):  # POLLERR and POLLHUP are reported whatever was asked
            return
    ConnectionPool.check_connection(connection)


class RecoveringPool(ConnectionPool):  # type: ignore[type-arg]
    """psycopg's pool, which on a connection failing its check checks every idle one at once (see the module)."""

    def __init__(self, *args: Any, check: Callable[[Any], None] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, check=self._recovering(check) if check is not None else None, **kwargs)

    def _recovering(self, check: Callable[[Any], None]) -> Callable[[Any], None]:
        def checked(connection: Any) -> None:
            try:
                check(connection)
            except Exception:
                # The others idle beside it were most likely broken by the same restart: checked now, each
                # broken one replaced, so that the pool's next connection is not one more to wait for.
                self.check()
                raise

        return checked


class DatabaseWrapper(base.DatabaseWrapper):
    """Django's PostgreSQL connection, whose pool (``OPTIONS["pool"]``) is a :class:`RecoveringPool` and whose
    timestamps are read by :func:`timestamp_loader`'s loader."""

    def get_connection_params(self) -> dict[str, Any]:
        """Django's, with :func:`timestamp_loader`'s loader; nothing once this connection's pool is made: a
        connection is then taken from the pool, which was made with them, and Django, which works them out again
        for every connection it takes (each request's), would throw them away unread."""
        if self.settings_dict["OPTIONS"].get("pool") and self.alias in self._connection_pools:
            return {}
        params: dict[str, Any] = super().get_connection_params()
        adapters = AdaptersMap(params["context"])  # Django's, which it keeps for every connection
        adapters.register_loader(TIMESTAMPTZ, timestamp_loader(self.timezone))
        params["context"] = adapters
        return params

    @property
    def pool(self) -> RecoveringPool | None:
        # Django's own property, with the pool's class ours.
        pool_options = self.settings_dict["OPTIONS"].get("pool")
        if self.alias == NO_DB_ALIAS or not pool_options:
            return None
        if self.alias not in self._connection_pools:
            if self.settings_dict.get("CONN_MAX_AGE", 0) != 0:
                raise ImproperlyConfigured("Pooling doesn't support persistent connections.")
            options = {} if pool_options is True else pool_options
            connect_kwargs = self.get_connection_params()
            connect_kwargs["autocommit"] = True  # Django sets it as it needs on each connection it takes
            pool = RecoveringPool(
                kwargs=connect_kwargs,
                open=False,  # opened by the first connection taken, not at start-up
                configure=self._configure_connection,
                check=check_idle if self.settings_dict["CONN_HEALTH_CHECKS"] else None,
                **options,
            )
            self._connection_pools.setdefault(self.alias, pool)
        return self._connection_pools[self.alias]  # type: ignore[no-any-return]
