"""The Redis channel layer as the live pages use it: every server process shares events through it.

channels-redis waits for a socket's next event with a blocking pop (``BZPOPMIN``) that Redis ends
after ``brpop_timeout`` (5 s) of quiet, and then asks again. The settings give its connections no
read timeout of their own (``socket_timeout: None``; redis-py's default is also 5 s, so every quiet
wait ended in ``TimeoutError`` and dropped the dashboard's socket). With no read timeout redis-py
also sends each command without ``asyncio.wait_for``, which on Python 3.11 can swallow the
cancellation of a closing socket's wait: that wait then polled for ever and held up the server's
shutdown. A Redis host that goes away is still noticed, by TCP keepalive (on by default).

This class changes two things:

- Its connection pool waits for a free connection when all are busy, where redis-py's plain pool
  raises "Too many connections" (a burst of sockets opening or closing at once, as when a restarting
  server's pages all reconnect elsewhere, needs more at once than the pool holds).
- One task per process reads the process's events from Redis and hands each to the inbox of every
  socket it names (:meth:`RedisChannelLayer.receive`). A group's event already reaches Redis once per
  process, naming that process's sockets in the group; channels-redis then had each of a process's
  sockets wait for it in turn, by taking a lock shared by all of them and two new tasks a wait, so a
  roll heard by 250 sockets of one process woke the 250 waits one after another before each socket
  could send its frame. Now each socket's wait is a queue's, and each socket waits on it from one task
  for its whole life (:meth:`play.consumers.GroupsConsumer.serve`), not a new task for every event.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, Final

from channels_redis.core import BoundedQueue
from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer
from django.db import InterfaceError, OperationalError
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

#: What a live socket meets when Redis (the channel layer) or the database cannot be reached: it is
#: closed with "try again later", and the page connects again by itself (play.consumers.GroupsConsumer).
UNREACHABLE: Final = (RedisConnectionError, RedisTimeoutError, OperationalError, InterfaceError)


class RedisChannelLayer(BaseRedisChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: This process's channels (one a socket), each with the events read for it and not yet received,
        #: at most ``capacity`` of them (the oldest dropped first, as channels-redis drops them); or the
        #: error that stopped the reading, which its next receive raises.
        self.inboxes: dict[str, BoundedQueue] = {}
        #: The task reading this process's events from Redis, while any of its channels are open.
        self.reader: asyncio.Task[None] | None = None

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host: dict[str, Any] = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(host.pop("address"), **host)

    async def new_channel(self, prefix: str = "specific") -> str:
        channel = await super().new_channel(prefix)
        # Its inbox from the start: an event for it read before its first receive waits there.
        self.inboxes[channel] = BoundedQueue(self.capacity)
        return channel

    async def receive(self, channel: str) -> dict[str, Any]:
        """The channel's next event. A channel of this process (``…!…``, a socket's) waits on its own
        inbox, which the reading task fills; when the socket's consumer stops waiting (it ended) the
        channel is forgotten, and the reading stops with the last one. An error reading from Redis is
        raised in every channel's next receive (each socket then closes with "try again later", and the
        next receive reads afresh)."""
        if "!" not in channel:
            return await super().receive(channel)
        inbox = self.inboxes.get(channel)
        if inbox is None:  # (not ``setdefault``: that would build a queue for every event received)
            inbox = self.inboxes[channel] = BoundedQueue(self.capacity)
        self.read_for(channel)
        try:
            event = await inbox.get()
        except asyncio.CancelledError:
            self.forget(channel)
            raise
        if isinstance(event, BaseException):
            self.forget(channel)
            raise event
        return event

    def read_for(self, channel: str) -> None:
        """The reading task started, on this event loop, if it is not running."""
        loop = asyncio.get_running_loop()
        if self.reader is not None and not self.reader.done():
            if self.reader.get_loop() is not loop:
                raise RuntimeError("Two event loops are trying to receive() on one channel layer at once!")
            return
        self.reader = loop.create_task(self.read(self.non_local_name(channel)))

    def forget(self, channel: str) -> None:
        self.inboxes.pop(channel, None)
        if not self.inboxes and self.reader is not None:
            self.reader.cancel()  # a message popped meanwhile is safe in channels-redis's backup queue
            self.reader = None

    async def read(self, process_channel: str) -> None:
        """Pop this process's events, one at a time, into the inboxes of the channels each names (a
        group's event names every channel of this process in the group); an event for a channel that
        is gone is dropped. Ends when no channel is left, or on an error, which each inbox is given."""
        try:
            while self.inboxes:
                names, event = await self.receive_single(process_channel)
                for name in names if isinstance(names, list) else [names]:
                    inbox = self.inboxes.get(name)
                    if inbox is not None:
                        inbox.put_nowait(event)
        except Exception as error:
            for inbox in self.inboxes.values():
                inbox.put_nowait(error)

    async def flush(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self.reader
            self.reader = None
        self.inboxes.clear()
        await super().flush()
