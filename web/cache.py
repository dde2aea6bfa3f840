"""One pool of Redis connections per server process, shared by every request's thread.

Django makes its cache objects per thread, and under ASGI each request's sync code runs in a thread of
its own: with Django's own pool class every request built a new pool and opened a new connection to
Redis (a TCP connection, HELLO and SELECT before the one command it came for), the same cost pooled
database connections remove (config/settings.py). :class:`SharedConnectionPool` hands every cache
object of the process the same pool for the same address and options. redis-py's pools are safe to
share between threads, and open anew in a forked child.
"""

from __future__ import annotations

import threading
from typing import Any, ClassVar

import redis


class SharedConnectionPool(redis.ConnectionPool):
    """A ``redis.ConnectionPool`` whose ``from_url`` gives one pool per address and options, process-wide."""

    shared: ClassVar[dict[tuple[str, str], SharedConnectionPool]] = {}
    lock: ClassVar[threading.Lock] = threading.Lock()

    @classmethod
    def from_url(cls, url: str, **kwargs: Any) -> SharedConnectionPool:
        key = (url, repr(sorted(kwargs.items(), key=lambda item: item[0])))
        with cls.lock:
            pool = cls.shared.get(key)
            if pool is None:
                pool = cls.shared[key] = super().from_url(url, **kwargs)
        return pool
