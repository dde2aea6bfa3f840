"""Django's PostgreSQL backend whose pool of connections gets over a restart of the server at once.

psycopg's pool checks a connection before it hands it out (``CONN_HEALTH_CHECKS``), throws away one that
fails and checks the next, but waits between those checks, one second, then two, then four, as it waits
between attempts to connect to a server that refuses. After PostgreSQL restarts, every connection the pool
kept is closed: a process that had grown its pool to ten connections answered 503s for the first seconds
the server was back (a request waits ``DB_POOL_TIMEOUT`` at most, 5 s, and reached its third or fourth
dead connection by then). :class:`RecoveringPool` checks every idle connection as soon as one fails its
check, throws away all those the restart broke and opens new ones in their place, so the request's next
connection is a live one or a new one, with no wait but the connection's own.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.core.exceptions import ImproperlyConfigured
from django.db.backends.postgresql import base
from psycopg_pool import ConnectionPool

NO_DB_ALIAS = base.NO_DB_ALIAS

__all__ = ["DatabaseWrapper", "RecoveringPool"]


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
    """Django's PostgreSQL connection, whose pool (``OPTIONS["pool"]``) is a :class:`RecoveringPool`."""

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
                check=ConnectionPool.check_connection if self.settings_dict["CONN_HEALTH_CHECKS"] else None,
                **options,
            )
            self._connection_pools.setdefault(self.alias, pool)
        return self._connection_pools[self.alias]  # type: ignore[no-any-return]
