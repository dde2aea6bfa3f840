"""A group in Redis holds one relay channel for each process with sockets in it, and the process hands
each of the group's events to its own sockets in the group (play.layers.RedisChannelLayer): what a
roll costs in Redis no longer grows with the sockets that hear it. Two layers stand for two server
processes, as config/settings.py makes them with ``REDIS_URL`` set, sharing one prefix.

Needs Redis at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/15``): without it these tests skip
locally, and under ``CI`` they fail."""

from __future__ import annotations

import asyncio
import logging
import time
import uuid
from collections.abc import Iterator

import msgpack
import pytest
import redis
from channels.layers import get_channel_layer

from play.consumers import GroupsConsumer
from play.layers import RedisChannelLayer
from tests.conftest import needs_redis
from tests.play.sockets import REDIS_URL


@pytest.fixture
def prefix() -> Iterator[str]:
    needs_redis(REDIS_URL, "the channel layer's relays")
    name = f"dicehall-test-{uuid.uuid4().hex}"
    yield name
    store = redis.Redis.from_url(REDIS_URL)
    for key in store.scan_iter(f"{name}*"):
        store.delete(key)


def layer(prefix: str) -> RedisChannelLayer:
    """A layer as config/settings.py configures it, with REDIS_URL set."""
    host = {"address": REDIS_URL, "socket_timeout": None, "max_connections": 50, "timeout": 20}
    return RedisChannelLayer(hosts=[host], prefix=prefix)


def members(prefix: str, group: str) -> list[str]:
    return sorted(name.decode() for name in redis.Redis.from_url(REDIS_URL).zrange(f"{prefix}:group:{group}", 0, -1))


async def next_event(process: RedisChannelLayer, channel: str) -> dict:
    return await asyncio.wait_for(process.receive(channel), 5)


def test_a_groups_event_reaches_every_socket_of_both_processes_through_one_relay_each(prefix) -> None:
    async def exercise() -> None:
        first, second = layer(prefix), layer(prefix)
        try:
            mine = [await first.new_channel() for _ in range(3)]
            theirs = [await second.new_channel() for _ in range(2)]
            for channel in mine:
                await first.group_add("campaign-1", channel)
            for channel in theirs:
                await second.group_add("campaign-1", channel)
            # One relay for each process, named as a channel of that process.
            assert members(prefix, "campaign-1") == sorted(
                [first.relay_name("campaign-1"), second.relay_name("campaign-1")]
            )
            assert first.non_local_name(first.relay_name("campaign-1")) == first.non_local_name(mine[0])

            await second.group_send("campaign-1", {"type": "roll.recorded", "seq": 1})

            heard = [await next_event(first, c) for c in mine] + [await next_event(second, c) for c in theirs]
            assert heard == [{"type": "roll.recorded", "seq": 1}] * 5
            # A channel's own message still comes to it alone.
            await second.send(mine[1], {"type": "membership.changed"})
            assert await next_event(first, mine[1]) == {"type": "membership.changed"}
        finally:
            await first.flush()
            await second.flush()

    asyncio.run(exercise())


def test_the_relay_leaves_the_group_with_the_last_socket_of_its_process_and_comes_back_with_the_next(prefix) -> None:
    async def exercise() -> None:
        process = layer(prefix)
        relay = process.relay_name("campaign-2")
        try:
            one, two = await process.new_channel(), await process.new_channel()
            await process.group_add("campaign-2", one)
            await process.group_add("campaign-2", two)
            await process.group_discard("campaign-2", one)
            assert members(prefix, "campaign-2") == [relay]  # the other socket is still in it
            await process.group_discard("campaign-2", one)  # twice: nothing more
            await process.group_discard("campaign-2", two)
            assert members(prefix, "campaign-2") == []
            assert process.members == {}

            await process.group_add("campaign-2", one)
            assert members(prefix, "campaign-2") == [relay]
            await process.group_send("campaign-2", {"type": "table.changed", "version": 3})
            assert await next_event(process, one) == {"type": "table.changed", "version": 3}
            # The socket that left hears nothing of it: its inbox is empty.
            assert process.inboxes[two].empty()
        finally:
            await process.flush()

    asyncio.run(exercise())


def test_sockets_joining_and_leaving_at_once_leave_redis_as_the_process_ends_up(prefix) -> None:
    """Joins and leaves of one group at once, in any order: the relay is in Redis exactly when a socket
    of the process is in the group, whatever order Redis heard the commands in."""

    async def exercise() -> tuple[list[str], list[str]]:
        process = layer(prefix)
        try:
            channels = [await process.new_channel() for _ in range(40)]
            await asyncio.gather(*(process.group_add("campaign-3", c) for c in channels[:20]))
            await asyncio.gather(
                *(process.group_discard("campaign-3", c) for c in channels[:20]),
                *(process.group_add("campaign-3", c) for c in channels[20:]),
            )
            staying = members(prefix, "campaign-3")
            await asyncio.gather(*(process.group_discard("campaign-3", c) for c in channels[20:]))
            return staying, members(prefix, "campaign-3")
        finally:
            await process.flush()

    staying, after = asyncio.run(exercise())

    assert len(staying) == 1
    assert after == []


def test_a_long_group_name_has_a_relay_name_that_fits(prefix) -> None:
    process = layer(prefix)
    group = "g" * 99

    name = process.relay_name(group)

    assert len(name) < process.MAX_NAME_LENGTH
    assert process.require_valid_channel_name(name)
    assert process.relay_name("campaign-1").endswith("!group.campaign-1")


def test_an_event_is_offered_to_its_channels_listener_as_it_is_read_and_waits_in_turn_when_not_taken(prefix) -> None:
    """A socket that takes an event as it is read (play.consumers.GroupsConsumer.take) gets it with no
    receive; one it does not take waits in its inbox, and so does every later one while any waits there:
    the socket hears its events in the order they were sent."""

    async def exercise() -> None:
        process = layer(prefix)
        try:
            taking, busy = await process.new_channel(), await process.new_channel()
            taken: list[int] = []
            offered: list[int] = []

            def take(event: dict) -> bool:
                taken.append(event["seq"])
                return True

            def refuse_the_first(event: dict) -> bool:
                offered.append(event["seq"])
                return event["seq"] != 1

            process.listen(taking, take)
            process.listen(busy, refuse_the_first)
            for channel in (taking, busy):
                await process.group_add("campaign-1", channel)
            reading = asyncio.ensure_future(process.receive(taking))  # starts the reading task; gets nothing
            for seq in (1, 2):
                await process.group_send("campaign-1", {"type": "roll.recorded", "seq": seq})

            async def both_read() -> None:
                while len(taken) < 2:
                    await asyncio.sleep(0.01)

            await asyncio.wait_for(both_read(), 5)
            assert taken == [1, 2]
            assert not reading.done()
            assert offered == [1]  # the second was not offered: the first waited in the inbox
            assert [(await next_event(process, busy))["seq"] for _ in range(2)] == [1, 2]
            reading.cancel()
        finally:
            await process.flush()

    asyncio.run(exercise())


def test_a_socket_that_ends_while_handling_an_event_leaves_nothing_of_its_own_in_its_process(prefix, settings) -> None:
    """Its channel's inbox and listener go with it (the listener holds the socket's consumer), whichever of its
    waits the end found it in: here, in the middle of a handler, as the server stops."""
    host = {"address": REDIS_URL, "socket_timeout": None, "max_connections": 50, "timeout": 20}
    settings.CHANNEL_LAYERS = {
        "default": {"BACKEND": "play.layers.RedisChannelLayer", "CONFIG": {"hosts": [host], "prefix": prefix}}
    }

    class Lingering(GroupsConsumer):
        async def connect(self) -> None:
            await self.join("campaign-1")
            await self.accept()

        async def roll_slow(self, event: dict) -> None:
            handling.set()
            await asyncio.Event().wait()

    async def exercise() -> None:
        process = get_channel_layer()
        assert isinstance(process, RedisChannelLayer)
        page: asyncio.Queue[dict] = asyncio.Queue()
        await page.put({"type": "websocket.connect"})
        sent: list[dict] = []

        async def send(message: dict) -> None:
            sent.append(message)

        try:
            socket = asyncio.ensure_future(Lingering()({"type": "websocket"}, page.get, send))
            while not process.members.get("campaign-1"):
                await asyncio.sleep(0.01)
            (channel,) = process.members["campaign-1"]
            assert channel in process.listeners
            await process.group_send("campaign-1", {"type": "roll.slow"})
            await asyncio.wait_for(handling.wait(), 5)
            socket.cancel()  # the server stopping, with the socket in the middle of its handler
            with pytest.raises(asyncio.CancelledError):
                await asyncio.wait_for(socket, 5)
            assert sent[0]["type"] == "websocket.accept"
            assert channel not in process.inboxes
            assert channel not in process.listeners
            assert "campaign-1" not in process.members
        finally:
            await process.flush()

    handling = asyncio.Event()
    asyncio.run(exercise())


class Recorded:
    """A layer's connection whose commands are noted by name, as they are sent."""

    def __init__(self, connection: object, sent: list[str]) -> None:
        self.connection, self.sent = connection, sent

    def __getattr__(self, name: str) -> object:
        self.sent.append(name)
        return getattr(self.connection, name)


def test_each_event_is_taken_from_redis_with_one_command(prefix) -> None:
    """The reading task pops each of its process's events (BZPOPMIN) and sends nothing else to Redis for it:
    no script putting back a backup queue, no copy into it before the event is handed on, no removal after."""

    async def exercise() -> None:
        reader, sender = layer(prefix), layer(prefix)
        try:
            channel = await reader.new_channel()
            await reader.group_add("campaign-1", channel)
            sent: list[str] = []
            connection = reader.connection
            reader.connection = lambda index: Recorded(connection(index), sent)  # type: ignore[method-assign]
            for seq in (1, 2, 3):
                await sender.group_send("campaign-1", {"type": "roll.recorded", "seq": seq})
            assert [(await next_event(reader, channel))["seq"] for _ in range(3)] == [1, 2, 3]
            assert set(sent) == {"bzpopmin"}
            assert 3 <= len(sent) <= 4  # one an event, and the one waiting for the next
        finally:
            await reader.flush()
            await sender.flush()

    asyncio.run(exercise())


async def last_socket_closed(reader: RedisChannelLayer) -> asyncio.Task:
    """The process's one socket in campaign-1 reading, then closing: its channel forgotten, the reading task
    stopped. The pop that task was waiting on, left running."""
    first = await reader.new_channel()
    await reader.group_add("campaign-1", first)
    receiving = asyncio.ensure_future(reader.receive(first))
    while reader.popping is None:
        await asyncio.sleep(0.01)
    left = reader.popping
    receiving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await receiving
    return left


def test_a_pop_left_waiting_when_the_last_socket_closed_brings_its_event_to_the_next_socket_in_order(prefix) -> None:
    """The reading task stops with its process's last channel, but not the pop it waits on: the next reading
    task takes what that pop brings before it pops again, so nothing is lost and the order holds."""

    async def exercise() -> None:
        reader, sender = layer(prefix), layer(prefix)
        try:
            left = await last_socket_closed(reader)
            assert reader.reader is None
            assert not left.done()
            assert reader.popping is left

            second = await reader.new_channel()
            await reader.group_add("campaign-1", second)
            for seq in (1, 2, 3):
                await sender.group_send("campaign-1", {"type": "roll.recorded", "seq": seq})
            assert [(await next_event(reader, second))["seq"] for _ in range(3)] == [1, 2, 3]
            assert left.done()
        finally:
            await reader.flush()
            await sender.flush()

    asyncio.run(exercise())


def test_what_a_pop_brings_while_no_socket_of_its_process_is_open_is_dropped(prefix) -> None:
    """An event popped once the process's last channel has gone is for no one: the next socket does not get it."""

    async def exercise() -> None:
        reader, sender = layer(prefix), layer(prefix)
        try:
            left = await last_socket_closed(reader)
            await sender.group_send("campaign-1", {"type": "roll.recorded", "seq": 1})
            await asyncio.wait_for(asyncio.wait([left]), 5)
            assert reader.popping is None  # what it brought went nowhere

            second = await reader.new_channel()
            await reader.group_add("campaign-1", second)
            await sender.group_send("campaign-1", {"type": "roll.recorded", "seq": 2})
            assert (await next_event(reader, second))["seq"] == 2
        finally:
            await reader.flush()
            await sender.flush()

    asyncio.run(exercise())


def test_a_groups_event_is_written_in_one_trip_with_the_bytes_channels_redis_writes(prefix) -> None:
    """group_send is one script (play.layers.GROUP_SEND): after its first send, one command a send. What each
    member's key holds is what channels-redis's own group_send writes there (but for the random front), for
    a process's relay, two channels of one process and a channel of no process."""
    from channels_redis.core import RedisChannelLayer as ChannelsRedis

    store = redis.Redis.from_url(REDIS_URL)
    message = {"type": "roll.recorded", "seq": 7, "gm_frame": "é" * 300, "player_frame": None, "n": [1, 2.5]}

    async def written(send) -> dict[bytes, list[bytes]]:
        process = layer(prefix)
        try:
            await ChannelsRedis.group_add(process, "campaign-1", "specific.one!group.campaign-1")
            await ChannelsRedis.group_add(process, "campaign-1", "specific.two!a")
            await ChannelsRedis.group_add(process, "campaign-1", "specific.two!b")
            await ChannelsRedis.group_add(process, "campaign-1", "worker")
            await send(process, "campaign-1", message)
            keys = sorted(key for key in store.scan_iter(f"{prefix}*") if b":group:" not in key)
            held = {key: [event[12:] for event in store.zrange(key, 0, -1)] for key in keys}
            assert all(store.ttl(key) > 0 for key in keys)
            for key in keys:
                store.delete(key)
            return held
        finally:
            await process.flush()

    ours = asyncio.run(written(RedisChannelLayer.group_send))
    theirs = asyncio.run(written(ChannelsRedis.group_send))
    assert sorted(ours) == sorted(f"{prefix}{key}".encode() for key in ("specific.one!", "specific.two!", "worker"))
    assert ours == theirs
    assert msgpack.unpackb(ours[f"{prefix}specific.two!".encode()][0]) == {
        **message, "__asgi_channel__": ["specific.two!a", "specific.two!b"]
    }  # fmt: skip

    async def trips() -> list[str]:
        process = layer(prefix)
        try:
            await process.group_add("campaign-1", await process.new_channel())
            await process.group_send("campaign-1", {"type": "roll.recorded", "seq": 1})  # the script registered
            sent: list[str] = []
            connection = process.connection
            process.connection = lambda index: Recorded(connection(index), sent)  # type: ignore[method-assign]
            await process.group_send("campaign-1", {"type": "roll.recorded", "seq": 2})
            return list(sent)  # (before the flush, which sends its own)
        finally:
            await process.flush()

    assert asyncio.run(trips()) == ["evalsha"]


def test_a_groups_event_forgets_expired_members_drops_expired_events_and_keeps_to_capacity(prefix, caplog) -> None:
    """As channels-redis's group_send: a member the group has not renewed for its expiry is forgotten, a member's
    events older than theirs are dropped before the new one is added, and a member full to capacity gets none."""
    store = redis.Redis.from_url(REDIS_URL)
    group = f"{prefix}:group:campaign-1"

    async def exercise() -> None:
        process = RedisChannelLayer(hosts=[{"address": REDIS_URL}], prefix=prefix, capacity=2, expiry=60)
        try:
            for channel in ("old", "full", "stale", "fresh"):
                store.zadd(group, {channel: time.time()})
            store.zadd(group, {"old": time.time() - process.group_expiry - 5})
            for n in (1, 2):
                await process.send("full", {"type": "filler", "n": n})
            store.zadd(f"{prefix}stale", {b"x" * 12 + msgpack.packb({"type": "expired"}): time.time() - 120})
            with caplog.at_level(logging.INFO, logger="play.layers"):
                await process.group_send("campaign-1", {"type": "roll.recorded", "seq": 1})
            assert sorted(store.zrange(group, 0, -1)) == [b"fresh", b"full", b"stale"]
            assert not store.exists(f"{prefix}old")
            assert [(await process.receive(name))["type"] for name in ("stale", "fresh")] == ["roll.recorded"] * 2
            assert [(await process.receive("full"))["n"] for _ in range(2)] == [1, 2]
            assert store.zcard(f"{prefix}full") == 0  # the third did not get in
            assert "1 channels over capacity in group campaign-1" in caplog.text
        finally:
            await process.flush()

    asyncio.run(exercise())
