"""The Redis channel layer as the live pages use it: every server process shares events through it.

channels-redis waits for a socket's next event with a blocking pop (``BZPOPMIN``) that Redis ends
after ``brpop_timeout`` (5 s) of quiet, and then asks again. The settings give its connections no
read timeout of their own (``socket_timeout: None``; redis-py's default is also 5 s, so every quiet
wait ended in ``TimeoutError`` and dropped the dashboard's socket). With no read timeout redis-py
also sends each command without ``asyncio.wait_for``, which on Python 3.11 can swallow the
cancellation of a closing socket's wait: that wait then polled for ever and held up the server's
shutdown. A Redis host that goes away is still noticed, by TCP keepalive (on by default).

This class changes five things:

- Its connection pool waits for a free connection when all are busy, where redis-py's plain pool
  raises "Too many connections" (a burst of sockets opening or closing at once, as when a restarting
  server's pages all reconnect elsewhere, needs more at once than the pool holds).
- One task per process reads the process's events from Redis and hands each to the inbox of every
  socket it names (:meth:`RedisChannelLayer.receive`). A group's event already reaches Redis once per
  process, naming that process's sockets in the group; channels-redis then had each of a process's
  sockets wait for it in turn, by taking a lock shared by all of them and two new tasks a wait, so a
  roll heard by 250 sockets of one process woke the 250 waits one after another before each socket
  could send its frame. Now each socket's wait is a queue's, and each socket waits on it from one task
  for its whole life (:meth:`play.consumers.GroupsConsumer.serve`), not a new task for every event;
  and an event whose handling is only to send a frame it carries (a roll's row) is sent by the reading
  task itself to each socket doing nothing else (:meth:`RedisChannelLayer.listen`), with no task woken
  for each: a quarter less of the process's time for a roll heard by 250 sockets.
- A group in Redis holds one channel for each process with sockets in it (its *relay*,
  :meth:`RedisChannelLayer.relay_name`), not one for each socket; the process keeps which of its own
  channels are in the group, and the reading task hands each of the group's events to all of them
  (:meth:`RedisChannelLayer.read`). channels-redis's ``group_send`` reads every member of the group
  from Redis, and writes each process a message naming each of its members: a roll in a campaign of
  500 open dashboards read 500 names back (in redis-py's Python parser) and wrote them out again
  before any socket could hear it, in the process that made the roll. Now it reads one name per process.
- The reading task takes each event with one command (``BZPOPMIN``, :meth:`RedisChannelLayer.pop`).
  channels-redis sent four an event: a script that puts back what a cancelled read left in a backup
  queue, the pop, a copy of the event into that backup queue (awaited before the event is handed on)
  and a task removing that copy once handled. The backup keeps an event that a cancelled read popped;
  here no read is cancelled: when the reading stops (its process's last socket closed) the pop it was
  waiting on goes on, and the next reading task takes what it brings before it pops again (an event
  it brought while no socket was open is dropped, as its channels are gone).
- A group's event is written in one trip to Redis (:meth:`RedisChannelLayer.group_send`, one script:
  :data:`GROUP_SEND`), where channels-redis took four: it forgot the group's expired members, read the
  rest back, dropped each member's expired events, and only then wrote the event to each. The script
  does the same, in the same order, with the event encoded once here and the names of each member's
  channels put in by Redis (the same bytes channels-redis would write).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import random
import time
from collections.abc import Callable
from typing import Any, Final

import msgpack
from channels_redis.core import BoundedQueue
from channels_redis.core import RedisChannelLayer as BaseRedisChannelLayer
from django.db import InterfaceError, OperationalError
from redis.asyncio import BlockingConnectionPool
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import TimeoutError as RedisTimeoutError

logger = logging.getLogger(__name__)

#: What a live socket meets when Redis (the channel layer) or the database cannot be reached: it is
#: closed with "try again later", and the page connects again by itself (play.consumers.GroupsConsumer).
UNREACHABLE: Final = (RedisConnectionError, RedisTimeoutError, OperationalError, InterfaceError)
#: Seconds within which a channel joining a group its process relays already adds nothing in Redis; past
#: them the relay's place in the group is renewed (a group forgets a member a day after it was added).
RELAY_RENEWAL: Final = 60.0


#: A group's event written to each of its members, in one trip (:meth:`RedisChannelLayer.group_send`): as
#: channels-redis writes it, the group's expired members forgotten, each member's expired events dropped, and
#: the event added (and the member's expiry renewed) unless the member holds its capacity of them already.
#: KEYS[1]: the group. ARGV: the time now, the events' expiry, the group's, the members' capacity, the keys'
#: prefix, the random front of every event but its last four bytes (each member's number goes there, so that
#: no two are the same), the header of the event's msgpack map with one entry more, the event's entries, and
#: the key of the entry added: the names of the member's channels (``__asgi_channel__``), last, as
#: channels-redis adds it. Returns how many members were over capacity.
GROUP_SEND: Final = """
local now, expiry, group_expiry = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local capacity, prefix, front, head, entries, named = tonumber(ARGV[4]), ARGV[5], ARGV[6], ARGV[7], ARGV[8], ARGV[9]
redis.call('ZREMRANGEBYSCORE', KEYS[1], 0, math.floor(now) - group_expiry)
local keys, names = {}, {}
for _, name in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
    local bang = string.find(name, '!', 1, true)
    local key = prefix .. (bang and string.sub(name, 1, bang) or name)
    if names[key] == nil then
        names[key] = {}
        keys[#keys + 1] = key
    end
    table.insert(names[key], name)
end
local over = 0
for number, key in ipairs(keys) do
    redis.call('ZREMRANGEBYSCORE', key, 0, math.floor(now) - expiry)
    if redis.call('ZCOUNT', key, '-inf', '+inf') < capacity then
        local event = front .. struct.pack('>I4', number) .. head .. entries .. named .. cmsgpack.pack(names[key])
        redis.call('ZADD', key, now, event)
        redis.call('EXPIRE', key, expiry)
    else
        over = over + 1
    end
end
return over
"""

#: The last bytes of an event's random front that :data:`GROUP_SEND` gives each member's number.
NUMBERED: Final = 4


#: The key of an event that names the channels it is for (channels-redis's).
CHANNEL_KEY: Final = "__asgi_channel__"
#: The number of entries from which a msgpack map's header takes three bytes (a "map 16"), not one.
MAP16: Final = 16


def map_header(entries: int) -> bytes:
    """The header of a msgpack map of ``entries`` entries, as msgpack writes it."""
    return bytes([0x80 | entries]) if entries < MAP16 else b"\xde" + entries.to_bytes(2, "big")


class RedisChannelLayer(BaseRedisChannelLayer):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: This process's channels (one a socket), each with the events read for it and not yet received,
        #: at most ``capacity`` of them (the oldest dropped first, as channels-redis drops them); or the
        #: error that stopped the reading, which its next receive raises.
        self.inboxes: dict[str, BoundedQueue] = {}
        #: The channels whose consumer takes an event as soon as it is read, when it can (a live socket's:
        #: :meth:`play.consumers.GroupsConsumer.take`), else it waits in the channel's inbox.
        self.listeners: dict[str, Callable[[dict[str, Any]], bool]] = {}
        #: The task reading this process's events from Redis, while any of its channels are open.
        self.reader: asyncio.Task[None] | None = None
        #: The pop the reading task waits on (:meth:`pop`): it outlives a reading task that stops, so that the
        #: next one takes the event it brings (a pop is never cancelled, so no event it took is lost).
        self.popping: asyncio.Task[tuple[Any, dict[str, Any]] | None] | None = None
        #: This process's channels in each group, and each group's relay by its channel name.
        self.members: dict[str, set[str]] = {}
        self.relays: dict[str, str] = {}
        #: When each relayed group last had its relay added in Redis (monotonic clock).
        self.relayed_at: dict[str, float] = {}
        #: :data:`GROUP_SEND`, once registered with Redis's client (:meth:`group_send`).
        self.group_send_script: Any = None
        #: One lock per group whose relay is being added or removed, with the count of those waiting for it.
        self.relay_locks: dict[str, tuple[asyncio.Lock, list[int]]] = {}

    def create_pool(self, index: int) -> BlockingConnectionPool:
        host: dict[str, Any] = dict(self.hosts[index])
        return BlockingConnectionPool.from_url(host.pop("address"), **host)

    async def new_channel(self, prefix: str = "specific") -> str:
        channel = await super().new_channel(prefix)
        # Its inbox from the start: an event for it read before its first receive waits there.
        self.inboxes[channel] = BoundedQueue(self.capacity)
        return channel

    def listen(self, channel: str, take: Callable[[dict[str, Any]], bool]) -> None:
        """``take(event)`` is offered each event for this process's ``channel`` as it is read, while nothing
        waits in the channel's inbox before it; an event it does not take (it returns False) waits there."""
        self.listeners[channel] = take

    def relay_name(self, group: str) -> str:
        """The channel that stands for this process's channels in ``group``: a name of this process's
        (``specific.<process>!…``), so that the group's events come to this process's reading task."""
        process = f"specific.{self.client_prefix}!"
        name = f"{process}group.{group}"
        if len(name) >= self.MAX_NAME_LENGTH:  # a long group name: a digest of it instead
            name = f"{process}group.{hashlib.blake2b(group.encode(), digest_size=16).hexdigest()}"
        return name

    async def group_add(self, group: str, channel: str) -> None:
        """A channel of this process joins the group here, and its process's relay joins it in Redis
        (or is renewed there) before this returns: every later event of the group reaches the channel."""
        if "!" not in channel:
            await super().group_add(group, channel)
            return
        assert self.require_valid_group_name(group), "Group name not valid"
        assert self.require_valid_channel_name(channel), "Channel name not valid"
        members = self.members.setdefault(group, set())
        members.add(channel)
        try:
            await self.relay(group)
        except BaseException:  # not in the group, then (its socket closes with "try again later")
            members.discard(channel)
            raise

    async def group_discard(self, group: str, channel: str) -> None:
        """A channel of this process leaves the group; the last one to leave takes the relay out of Redis."""
        if "!" not in channel:
            await super().group_discard(group, channel)
            return
        members = self.members.get(group)
        if members is None or channel not in members:
            return
        members.discard(channel)
        if not members:
            await self.relay(group)

    async def relay(self, group: str) -> None:
        """The group's relay in Redis as this process's members say, now: in it while any of them is (added
        anew once :data:`RELAY_RENEWAL` has passed), out of it once none is. One change at a time per
        group, each made from what the members are when its turn comes, so that a join and a leave at
        once leave Redis as the members end up, whichever command Redis hears first."""
        lock, waiting = self.relay_locks.setdefault(group, (asyncio.Lock(), [0]))
        waiting[0] += 1
        try:
            async with lock:
                name = self.relay_name(group)
                if self.members.get(group):
                    added = self.relayed_at.get(group)
                    if added is None or time.monotonic() - added >= RELAY_RENEWAL:
                        self.relays[name] = group
                        await super().group_add(group, name)
                        self.relayed_at[group] = time.monotonic()
                elif group in self.relayed_at or group in self.members:
                    self.members.pop(group, None)
                    self.relayed_at.pop(group, None)
                    self.relays.pop(name, None)
                    await super().group_discard(group, name)
        finally:
            waiting[0] -= 1
            if not waiting[0]:
                del self.relay_locks[group]

    async def group_send(self, group: str, message: dict[str, Any]) -> None:
        """Send ``message`` to every member of ``group``, in one trip to Redis (:data:`GROUP_SEND`). A layer whose
        events Redis could not write so (encrypted, spread over several Redis hosts, with capacities of its
        own by channel, or not in msgpack) takes channels-redis's way."""
        serializer = self._serializer
        front_length = serializer.random_prefix_length - NUMBERED
        if (
            self.ring_size != 1
            or self.channel_capacity
            or serializer.crypter is not None
            or front_length < 0
            or serializer.as_bytes is not msgpack.packb
            or CHANNEL_KEY in message
            or len(message) >= MAP16
        ):
            await super().group_send(group, message)
            return
        assert self.require_valid_group_name(group), "Group name not valid"
        entries = msgpack.packb(message)[len(map_header(len(message))) :]
        head = map_header(len(message) + 1)
        front = random.getrandbits(8 * front_length).to_bytes(front_length, "big")
        script = self.group_send_script
        if script is None:
            script = self.group_send_script = self.connection(0).register_script(GROUP_SEND)
        over = await script(
            keys=[self._group_key(group)],
            args=[
                *(time.time(), self.expiry, self.group_expiry, self.capacity, self.prefix),
                *(front, head, entries, msgpack.packb(CHANNEL_KEY)),
            ],
            client=self.connection(0),
        )
        if over:
            logger.info("%s channels over capacity in group %s", over, group)

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
        if self.reader is not None and not self.reader.done() and not self.reader.get_loop().is_closed():
            if self.reader.get_loop() is not loop:
                raise RuntimeError("Two event loops are trying to receive() on one channel layer at once!")
            return
        if self.popping is not None and self.popping.get_loop() is not loop:  # a closed loop's: gone with it
            self.popping = None
        self.reader = loop.create_task(self.read(self.non_local_name(channel)))

    def forget(self, channel: str) -> None:
        self.inboxes.pop(channel, None)
        self.listeners.pop(channel, None)
        if not self.inboxes and self.reader is not None:
            self.reader.cancel()  # not its pop (:attr:`popping`), which the next reading task takes over
            self.reader = None

    async def pop(self, process_channel: str) -> tuple[Any, dict[str, Any]] | None:
        """This process's next event from Redis, with the channels it names (``__asgi_channel__``; the process's
        own channel when it names none), or None after ``brpop_timeout`` seconds of quiet: one command."""
        index = self.consistent_hash(process_channel)
        popped = await self.connection(index).bzpopmin(self.prefix + process_channel, timeout=self.brpop_timeout)
        if popped is None:
            return None
        message = self.deserialize(popped[1])
        return message.pop("__asgi_channel__", process_channel), message

    def popped(self, popping: asyncio.Task[Any]) -> None:
        """A pop done while no channel of this process is open: what it brought is dropped (and its error seen)."""
        if popping is self.popping and not self.inboxes:
            self.popping = None
            if not popping.cancelled():
                popping.exception()

    async def read(self, process_channel: str) -> None:
        """Pop this process's events, one at a time, and hand each to the channels it names, a group's relay
        standing for every channel of this process in the group: to the channel's consumer at once when it
        takes it (:meth:`listen`), else into the channel's inbox; an event for a channel that is gone is
        dropped. Ends when no channel is left, or on an error, which each inbox is given. A pop left by the
        reading task before this one is waited for first: the events come in the order Redis gave them."""
        try:
            while self.inboxes:
                popping = self.popping
                if popping is None:
                    popping = self.popping = asyncio.ensure_future(self.pop(process_channel))
                    popping.add_done_callback(self.popped)
                try:
                    popped = await asyncio.shield(popping)
                finally:
                    if popping.done() and self.popping is popping:
                        self.popping = None
                if popped is None:
                    continue
                names, event = popped
                for name in names if isinstance(names, list) else [names]:
                    group = self.relays.get(name)
                    for channel in [name] if group is None else list(self.members.get(group, ())):
                        inbox = self.inboxes.get(channel)
                        if inbox is None:
                            continue
                        take = self.listeners.get(channel)
                        if take is None or not inbox.empty() or not take(event):
                            inbox.put_nowait(event)
        except Exception as error:
            for inbox in self.inboxes.values():
                inbox.put_nowait(error)

    async def flush(self) -> None:
        for task in (self.reader, self.popping):
            if task is not None and not task.get_loop().is_closed():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, *UNREACHABLE):
                    await task
        self.reader = self.popping = None
        self.inboxes.clear()
        self.listeners.clear()
        self.members.clear()
        self.relays.clear()
        self.relayed_at.clear()
        await super().flush()
