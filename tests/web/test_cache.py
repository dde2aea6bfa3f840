"""Requests in threads of their own (as under ASGI) share the process's one pool of Redis connections
(web/cache.py): the cache opens no connection per request."""

from __future__ import annotations

import threading
import uuid

import redis
from django.core.cache.backends.redis import RedisCache

from tests.conftest import needs_redis
from tests.play.sockets import REDIS_URL
from web.cache import SharedConnectionPool


def test_each_requests_cache_uses_the_one_pool_of_the_process() -> None:
    needs_redis(REDIS_URL, "the shared Redis pool")
    name = f"dicehall-test-{uuid.uuid4().hex[:12]}"  # our connections, told apart from anyone else's
    options = {"pool_class": "web.cache.SharedConnectionPool", "client_name": name, "socket_timeout": 1}
    caches: list[RedisCache] = []

    def request(n: int) -> None:
        # A cache object of its own, as Django makes one in each new thread.
        cache = RedisCache(REDIS_URL, {"OPTIONS": options, "KEY_PREFIX": name})
        caches.append(cache)  # kept, so that no connection is closed by being collected
        cache.set(f"request-{n}", n)
        assert cache.get(f"request-{n}") == n

    for n in range(5):
        thread = threading.Thread(target=request, args=(n,))
        thread.start()
        thread.join()
    observer = redis.Redis.from_url(REDIS_URL)
    ours = [client for client in observer.client_list() if client.get("name") == name]
    assert len(ours) == 1  # five requests, one after another: one connection, taken and given back
    observer.delete(*(f"{name}:1:request-{n}" for n in range(5)))


def test_one_pool_per_address_and_options() -> None:
    first = SharedConnectionPool.from_url("redis://127.0.0.1:6379/15", socket_timeout=1)
    assert SharedConnectionPool.from_url("redis://127.0.0.1:6379/15", socket_timeout=1) is first
    assert SharedConnectionPool.from_url("redis://127.0.0.1:6379/14", socket_timeout=1) is not first
    assert SharedConnectionPool.from_url("redis://127.0.0.1:6379/15", socket_timeout=2) is not first
