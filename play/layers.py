"""The Redis channel layer as the live pages use it: every server process shares events through it.

channels-redis waits for a socket's next event with a blocking pop (``BZPOPMIN``) that Redis ends
after ``brpop_timeout`` (5 s) of quiet, and then asks again. The settings give its connections no
read timeout of their own (``socket_timeout: None``; redis-py's default is also 5 s, so every quiet
wait ended in ``TimeoutError`` and dropped the dashboard's socket). With no read timeout redis-py
also sends each command without ``asyncio.wait_for``, which on Python 3.11 can swallow the
cancellation of a closing socket's wait: that wait then polled for ever and held up the server's
shutdown. A Redis host that goes away is still noticed, by TCP keepalive (on by default).

This class changes one thing: its connection pool waits for a free connection when all are busy,
where redis-py's plain pool raises "Too many connections" (a burst of sockets opening or closing
at once, as when a restarting server's pages all reconnect elsewhere, needs more at once than the pool holds).
"""

from __future__ import annotations

from typing import Any, Final

from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer
from django.db import InterfaceError, OperationalError
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

#: What a live socket meets when Redis (the channel layer) or the database cannot be reached: it is
#: closed with "try again later", and the page connects again by itself (play.consumers.GroupsConsumer).
UNREACHABLE: Final = (RedisConnectionError, RedisTimeoutError, OperationalError, InterfaceError)


class RedisChannelLayer(BaseRedisChannelLayer):
    def create_pool(self, index: int) -> BlockingConnectionPool:
        host: dict[str, Any] = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(host.pop("address"), **host)
