"""A roll's frame sent by the channel layer's reading task itself, to each socket doing nothing else
(play.consumers.GroupsConsumer.take), with the coroutine run at once as far as it goes (play.eager.start)
and the socket's handlers one at a time, in order (play.consumers.Turn). The server's ``send`` here is a
stand-in that records each frame and can be made to wait, as uvicorn's waits while a page reads slowly."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from play import eager
from play.consumers import CampaignConsumer, Turn

# --- play.eager.start ----------------------------------------------------------------------------------


def test_a_coroutine_that_does_not_wait_is_run_to_its_end_at_once() -> None:
    done: list[str] = []

    async def quick() -> None:
        done.append("sent")

    async def exercise() -> None:
        assert eager.start(quick()) is None
        assert done == ["sent"]  # before this task gave the loop a turn

    asyncio.run(exercise())


def test_an_error_before_any_wait_is_raised_where_it_started() -> None:
    async def broken() -> None:
        raise ConnectionResetError("gone")

    async def exercise() -> None:
        with pytest.raises(ConnectionResetError, match="gone"):
            eager.start(broken())

    asyncio.run(exercise())


def test_a_coroutine_that_waits_goes_on_in_a_task_and_reads_each_futures_outcome() -> None:
    steps: list[object] = []

    async def exercise() -> None:
        loop = asyncio.get_running_loop()
        first, second = loop.create_future(), loop.create_future()

        async def waits() -> None:
            steps.append("began")
            steps.append(await first)
            try:
                await second
            except LookupError as error:
                steps.append(f"read {error}")
            await asyncio.sleep(0)  # a bare turn of the loop
            steps.append("ended")

        rest = eager.start(waits())
        assert rest is not None
        assert steps == ["began"]
        for _ in range(3):
            await asyncio.sleep(0)  # the task waits for the first future
        first.set_result("one")
        while len(steps) < 2:
            await asyncio.sleep(0)
        second.set_exception(LookupError("two"))
        await rest
        assert steps == ["began", "one", "read two", "ended"]

    asyncio.run(exercise())


def test_an_error_after_a_wait_is_the_tasks() -> None:
    async def exercise() -> None:
        gate = asyncio.Event()

        async def fails_later() -> None:
            await gate.wait()
            raise ConnectionResetError("gone later")

        rest = eager.start(fails_later())
        assert rest is not None
        await asyncio.sleep(0)  # the task waits
        gate.set()
        with pytest.raises(ConnectionResetError, match="gone later"):
            await rest

    asyncio.run(exercise())


def test_cancelling_the_task_cancels_the_coroutine_where_it_waits() -> None:
    seen: list[str] = []

    async def exercise() -> None:
        gate = asyncio.Event()

        async def waits() -> None:
            try:
                await gate.wait()
            except asyncio.CancelledError:
                seen.append("cancelled where it waited")
                raise
            finally:
                seen.append("cleaned up")

        rest = eager.start(waits())
        assert rest is not None
        await asyncio.sleep(0)
        rest.cancel()
        with pytest.raises(asyncio.CancelledError):
            await rest
        assert rest.cancelled()
        assert not gate._waiters  # Event.wait's own clean-up ran

    asyncio.run(exercise())
    assert seen == ["cancelled where it waited", "cleaned up"]


# --- play.consumers.Turn -------------------------------------------------------------------------------


def test_a_turn_goes_to_those_waiting_in_the_order_they_asked_with_no_one_in_between() -> None:
    async def exercise() -> None:
        turn, order = Turn(), []
        assert turn.take_now()
        assert not turn.take_now()

        async def waiter(name: str) -> None:
            await turn.take()
            order.append(name)
            turn.give()

        tasks = [asyncio.create_task(waiter(name)) for name in ("first", "second")]
        await asyncio.sleep(0)
        turn.give()  # straight to "first": nobody can take it now in between
        assert not turn.take_now()
        await asyncio.gather(*tasks)
        assert order == ["first", "second"]
        assert turn.take_now()  # free again once the last gave it back

    asyncio.run(exercise())


def test_a_waiter_cancelled_as_it_was_given_the_turn_passes_it_on() -> None:
    async def exercise() -> None:
        turn = Turn()
        turn.take_now()
        cancelled = asyncio.create_task(turn.take())
        after = asyncio.create_task(turn.take())
        await asyncio.sleep(0)
        turn.give()  # to the first waiter, which is cancelled before it runs
        cancelled.cancel()
        await asyncio.gather(cancelled, return_exceptions=True)
        await asyncio.wait_for(after, 1)  # the turn reached the next one
        assert turn.held

    asyncio.run(exercise())


# --- GroupsConsumer.take -------------------------------------------------------------------------------


class Server:
    """The server's ``send`` of a socket: records each frame; while ``slow`` is clear it waits first."""

    def __init__(self) -> None:
        self.frames: list[str] = []
        self.slow = asyncio.Event()
        self.slow.set()
        self.error: Exception | None = None

    async def send(self, message: dict[str, Any]) -> None:
        await self.slow.wait()
        if self.error is not None:
            raise self.error
        self.frames.append(message["text"])


def socket(server: Server, *, gm: bool = False) -> CampaignConsumer:
    """A dashboard's consumer as ``serve`` sets it up, joined to its campaign."""
    consumer = CampaignConsumer()
    consumer.server_send = server.send
    consumer.turn = Turn()
    consumer.ended = asyncio.get_running_loop().create_future()
    consumer.sending = None
    consumer.joined = ["campaign-1"]
    consumer.closed = False
    consumer.gm = gm
    return consumer


def roll(seq: int, *, secret: bool = False) -> dict[str, Any]:
    player = None if secret else f"<li>roll {seq}</li>"
    return {"type": "roll.recorded", "seq": seq, "gm_frame": f"<li>GM: roll {seq}</li>", "player_frame": player}


def test_a_socket_doing_nothing_else_is_sent_the_rolls_frame_at_once_as_its_handler_would() -> None:
    async def exercise() -> None:
        server = Server()
        player, gm = socket(server), socket(server, gm=True)
        assert player.take(roll(1))
        assert gm.take(roll(1))
        assert server.frames == ["<li>roll 1</li>", "<li>GM: roll 1</li>"]  # no turn of the loop needed
        assert player.take(roll(2, secret=True))  # a secret roll: nothing for a player, and handled
        await gm.roll_recorded(roll(2, secret=True))  # the handler, the other way in, sends the same
        assert server.frames[2:] == ["<li>GM: roll 2</li>"]
        assert not player.turn.held
        assert not player.ended.done()

    asyncio.run(exercise())


def test_a_busy_socket_or_another_kind_of_event_is_left_to_the_inbox() -> None:
    async def exercise() -> None:
        server = Server()
        consumer = socket(server)
        assert not consumer.take({"type": "party.changed", "id": "party-1", "html": ""})
        consumer.turn.take_now()  # a handler running (a catch-up, say)
        assert not consumer.take(roll(1))
        assert server.frames == []
        consumer.joined = []  # left its groups: a roll is handled by sending nothing
        consumer.turn.give()
        assert consumer.take(roll(2))
        assert server.frames == []

    asyncio.run(exercise())


def test_a_send_that_waits_holds_the_sockets_turn_so_the_next_roll_waits_behind_it() -> None:
    async def exercise() -> None:
        server = Server()
        consumer = socket(server)
        server.slow.clear()  # the page reads slowly: the server's send waits
        assert consumer.take(roll(1))
        assert consumer.sending is not None
        assert consumer.turn.held
        assert not consumer.take(roll(2))  # to the inbox: its handler waits for the turn
        handler = asyncio.create_task(consumer.turn.take())
        for _ in range(3):
            await asyncio.sleep(0)  # the rest of the send and the handler both wait
        assert not handler.done()
        assert server.frames == []
        server.slow.set()
        await asyncio.wait_for(handler, 1)
        await consumer.roll_recorded(roll(2))
        consumer.turn.give()
        assert server.frames == ["<li>roll 1</li>", "<li>roll 2</li>"]
        assert consumer.sending is None
        assert not consumer.turn.held

    asyncio.run(exercise())


def test_an_error_sending_ends_the_socket_as_a_handlers_error_would() -> None:
    async def exercise() -> None:
        server = Server()
        now, later = socket(server), socket(server)
        server.error = ConnectionResetError("gone")
        assert now.take(roll(1))
        with pytest.raises(ConnectionResetError):
            now.ended.result()
        assert not now.turn.held
        server.slow.clear()
        assert later.take(roll(1))
        await asyncio.sleep(0)
        server.slow.set()
        with pytest.raises(ConnectionResetError):
            await asyncio.wait_for(later.ended, 1)
        assert not later.turn.held

    asyncio.run(exercise())
