"""``python -m bench.sockets`` (and ``python -m bench``, ``make bench``): the live dashboard's sockets
in the production shape, two server processes sharing events through Redis.

A campaign of a GM and N players (each player with an active character) is built in a throwaway
database (as :mod:`bench.pages` makes one), and two ``uvicorn config.asgi:application`` processes
serve it, each started with the command of the Makefile's ``run`` target (:mod:`bench.servers`: its
parser, loop and socket options are what is measured), with the same ``DATABASE_URL``, the same
``REDIS_URL`` and a channel prefix of their own. S dashboard sockets (``ws/campaigns/<pk>/``) open, half on each
process, each with the session cookie of a member in turn, and ask for the catch-up as the page
does (``{"since": 0}``). They stay quiet for longer than the 5 s read timeout that once dropped
every quiet socket (:mod:`play.layers`). The GM also has one dashboard open, on the first process, of
a campaign of their own. Then R rolls are made in the campaign of many and, before each, a few in the
GM's other campaign, through the dice box's own operation (``play.rolls.roll_free``), one after
another, each once every socket of its campaign has the one before: the one dashboard's delivery times
are measured on the same servers, through the same roll path, in the same spell as the many's.

Targets: the 95th percentile of the many dashboards' delivery times at most :data:`RATIO_GOAL` times the
one dashboard's; no socket dropped, while quiet or during the rolls; no roll missed by any socket; and
on SIGTERM each process stops within :data:`SHUTDOWN_BOUND` with nothing in its log as "Exception in
ASGI application" or a traceback. Shown, not judged: the time to open the sockets, the delivery time
from the roll's commit (the first thing run after it) to a socket's receipt, as median, 95th percentile
(and the slowest of the many), the sockets each server closed with 1012 ("service restart", so a page
reconnects elsewhere) and the channels left in the campaign's group. Every socket is read in this one
process (on uvloop, by :mod:`bench.wsclient`, which reads a frame with little more than its header's
arithmetic), so the delivery times include its own turn at reading 500 of them: the processor time that
reading takes for each roll is shown beside them, and so is the processor time of the servers' event
loops over the same spell (their reading of the roll's event and sending of its frames). Last, with the
servers stopped, the machine's floor (:func:`floor`): the same sockets, rolls and frames, each frame written
by two bare writers (:mod:`bench.floor`) as soon as a datagram asks, with nothing else done; what no server
could deliver faster on this machine, shown and not judged.

Exit status: 0 when every target is met, 1 when one is missed, 2 when the figures cannot be had
(no Redis at ``REDIS_URL``, default ``redis://127.0.0.1:6379/15``; a server that does not start;
a socket that does not open; data that cannot be built). ``--quick`` is a smoke run: few sockets
and rolls, the same quiet spell. Django reads ``REDIS_URL`` and the channel prefix once, when it
starts, so ``python -m bench`` runs this part in a Python process of its own.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import functools
import json
import math
import os
import random
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import traceback
import uuid
from collections.abc import Iterator, Sequence
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final, TextIO
from urllib.parse import urlsplit

import uvloop

from bench import servers as serving
from bench import wsclient
from bench.floor import TO_ALL, TO_FIRST
from bench.floor import frame as floor_frame
from bench.pages import EXIT_BROKEN, EXIT_MISSED, progress, throwaway_database
from bench.servers import ROOT, UNCLEAN, BenchError, Server
from bench.wsclient import roll_number

if TYPE_CHECKING:
    from django.contrib.auth.models import AbstractBaseUser

REDIS_URL: Final = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")

#: Sockets, rolls and players by default, and those of ``--quick``.
SOCKETS: Final = 500
ROLLS: Final = 40
#: Rolls for the one dashboard before each roll for the many: its 95th percentile then rests on as many
#: more times (one delivery a roll, where each of the many's rolls makes 500).
ONE_EACH: Final = 3
PLAYERS: Final = 20
QUICK_SOCKETS: Final = 40
QUICK_ROLLS: Final = 5
QUICK_PLAYERS: Final = 4
#: Seconds the sockets stay quiet: past two of channels-redis's 5 s waits for the next event, each of
#: which redis-py's default read timeout (also 5 s) once cut short, closing the socket.
IDLE: Final = 12.5
#: Seconds within which each server stops on SIGTERM.
SHUTDOWN_BOUND: Final = 10.0
#: Sockets opening at once (a burst of pages, as when a restarted server's pages reconnect).
OPENING: Final = 25
#: Seconds for every socket to open and catch up, for a roll to reach every socket.
OPEN_WAIT: Final = 120.0
DELIVERY_WAIT: Final = 10.0
#: Seconds between one roll's last delivery and the next roll: the servers finish what the last one left
#: them (its frames' writes, the cleaning of Redis's copies) before the next is timed.
SETTLE: Final = 0.05
#: The goal: the 95th percentile of the many dashboards' delivery times at most this many times the one's.
RATIO_GOAL: Final = 3.0
#: The close code of a server going away for a restart (uvicorn's on SIGTERM).
SERVICE_RESTART: Final = 1012


# --- The data -----------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Table:
    """The campaign, its members (the GM first) and a session cookie of each; and the GM's other
    campaign, where the GM's is the one dashboard open."""

    campaign: int
    members: tuple[AbstractBaseUser, ...]
    sessions: tuple[str, ...]
    alone: int


def build(players: int) -> Table:
    """A campaign of a GM and ``players`` players, each with an active fighter; a logged-in session
    of each member; a second campaign of the same GM and first player, with one fighter, for the
    one dashboard. Needs the apps loaded and a database to write."""
    import logging

    from django.contrib.auth import get_user_model
    from django.test import Client

    from bench import page_data

    users = get_user_model().objects
    gm = users.create_user("bench-gm")
    party = tuple(users.create_user(f"bench-player-{i}") for i in range(1, players + 1))
    where = page_data.campaign(page_data.Cast(gm, party[0], party[1:]), "Sockets")
    page_data.party(where, party, players)
    alone = page_data.campaign(page_data.Cast(gm, party[0], ()), "One dashboard")
    page_data.party(alone, party[:1], 1)
    members = (gm, *party)
    axes = logging.getLogger("axes")
    level = axes.level
    axes.setLevel(logging.WARNING)  # not a line per log-in
    try:
        sessions = []
        for member in members:
            client = Client()
            client.force_login(member)
            sessions.append(client.cookies["sessionid"].value)
    finally:
        axes.setLevel(level)
    return Table(where.pk, members, tuple(sessions), alone.pk)


def database_url() -> str:
    """The URL of the database Django is connected to, for the servers."""
    from django.db import connection

    name = connection.settings_dict["NAME"]
    if connection.vendor == "sqlite":
        return f"sqlite:///{name}"
    return urlsplit(os.environ["DATABASE_URL"])._replace(path=f"/{name}").geturl()


def roll(campaign: int, by: AbstractBaseUser, n: int) -> tuple[int, float]:
    """A free roll through the dice box's operation: its number, and the clock just after its commit
    (the first of the transaction's on-commit hooks; announcing the roll is the next)."""
    from django.db import transaction

    from play import rolls

    committed: list[float] = []
    with transaction.atomic():
        transaction.on_commit(lambda: committed.append(time.perf_counter()))
        made = rolls.roll_free(
            campaign_id=campaign, by=by, text="2d6+1", explode=False, secret=False, rng=random.Random(n)
        )
    return made.seq, committed[0]


# --- The servers ---------------------------------------------------------------------------------------


@contextmanager
def servers(environment: dict[str, str], logs: Path) -> Iterator[list[Server]]:
    """Two server processes, each started as ``make run`` starts one (:func:`bench.servers.run_command`)."""
    with ExitStack() as stack:
        yield [
            stack.enter_context(serving.server(environment, logs / f"server-{n}.log", serving.run_command))
            for n in range(2)
        ]


# --- Measuring -----------------------------------------------------------------------------------------


class Arrivals:
    """The roll being waited for in one campaign, and how many of its sockets have it yet: set once
    every open socket has it, so the next roll starts without polling the sockets."""

    def __init__(self) -> None:
        self.seq: int | None = None
        self.expected = 0
        self.count = 0
        self.all_in = asyncio.Event()

    def expect(self, seq: int, sockets: int) -> None:
        self.seq, self.expected, self.count = seq, sockets, 0
        self.all_in.clear()

    def arrived(self, seq: int) -> None:
        if seq == self.seq:
            self.count += 1
            if self.count >= self.expected:
                self.all_in.set()


@dataclass
class Socket:
    """One dashboard's socket, and what it heard."""

    server: int
    member: int
    campaign: int
    arrivals: Arrivals
    connection: wsclient.Dashboard | None = None
    caught_up: asyncio.Event = field(default_factory=asyncio.Event)
    #: Roll number -> the clock when the socket got it (the first time).
    rolls: dict[int, float] = field(default_factory=dict)
    #: Messages after the catch-up that are not rolls.
    other: int = 0
    #: The last roll's message it heard, as sent (the frames of the machine's floor are made like it).
    last_roll: bytes = b""
    closed_at: float | None = None
    close_code: int | None = None


@dataclass
class Deliveries:
    """The rolls made in one campaign and what its sockets heard of them."""

    sockets: list[Socket]
    #: Roll number -> the clock at its commit, in the order made.
    committed: dict[int, float] = field(default_factory=dict)
    #: The processor time this process's reading thread spent on each roll, from asking for it until every
    #: socket had it (its own reading of the frames: the rolling itself runs in another thread).
    reading: list[float] = field(default_factory=list)
    #: The processor time the servers' event loops (their main threads) spent on each roll, over the same
    #: spell: reading the roll's event from Redis and sending its frames.
    serving: list[float] = field(default_factory=list)

    @property
    def expected(self) -> int:
        return len(self.sockets) * len(self.committed)

    @property
    def missed(self) -> int:
        return sum(1 for s in self.sockets for seq in self.committed if seq not in s.rolls)

    @property
    def latencies(self) -> list[float]:
        return sorted(
            at - self.committed[seq] for s in self.sockets for seq, at in s.rolls.items() if seq in self.committed
        )


@dataclass
class Result:
    servers: int
    #: The campaign's many dashboards, and the one dashboard of the GM's other campaign.
    many: Deliveries
    one: Deliveries
    members: int
    opened_in: float
    idle: float
    rolls_began: float
    shutdown_began: float
    stopped_in: list[float | None]
    unclean: list[list[str]]
    finished: list[bool]
    left_in_group: int
    #: The machine's floor (:func:`floor`): the same deliveries from bare writers, the many's and the one's.
    floor: tuple[Deliveries, Deliveries] | None = None

    @property
    def sockets(self) -> list[Socket]:
        return [*self.many.sockets, *self.one.sockets]

    @property
    def dropped_quiet(self) -> int:
        return sum(1 for s in self.sockets if s.closed_at is not None and s.closed_at < self.rolls_began)

    @property
    def dropped_rolling(self) -> int:
        return sum(
            1 for s in self.sockets if s.closed_at is not None and self.rolls_began <= s.closed_at < self.shutdown_began
        )

    @property
    def restarted(self) -> int:
        return sum(1 for s in self.sockets if s.close_code == SERVICE_RESTART)

    @property
    def stopped(self) -> bool:
        """Each server exited by itself within the bound, its log saying so."""
        return all(
            seconds is not None and seconds < SHUTDOWN_BOUND and finished
            for seconds, finished in zip(self.stopped_in, self.finished, strict=True)
        )


def hear(socket: Socket, payload: bytes, at: float) -> None:
    """A message of the socket's, its last byte read at ``at``: the time a roll's arrival is noted."""
    seq = roll_number(payload)
    if seq is not None:
        socket.last_roll = payload
        if seq not in socket.rolls:
            socket.rolls[seq] = at
            socket.arrivals.arrived(seq)
    elif not socket.caught_up.is_set():
        if json.loads(payload).get("id") == "initiative":  # the last of the catch-up (play.consumers)
            socket.caught_up.set()
    else:
        socket.other += 1


async def listen(socket: Socket) -> None:
    """Wait until the socket ends, noting when and how."""
    assert socket.connection is not None
    try:
        await socket.connection.ended
    finally:
        socket.closed_at = time.perf_counter()
        socket.close_code = socket.connection.close_code
        socket.caught_up.set()  # no more to wait for: the opening looks at how it ended


async def open_socket(socket: Socket, server: Server, table: Table, gate: asyncio.Semaphore) -> asyncio.Task[None]:
    async with gate:
        socket.connection = await asyncio.wait_for(
            wsclient.connect(
                f"{server.ws_url}/ws/campaigns/{socket.campaign}/",
                origin=server.url,
                cookie=f"sessionid={table.sessions[socket.member]}",
                heard=functools.partial(hear, socket),
            ),
            OPEN_WAIT,
        )
        listening = asyncio.create_task(listen(socket))
        socket.connection.send_text(json.dumps({"since": 0}))  # as the page does on opening
        await socket.caught_up.wait()
    if socket.closed_at is not None:
        raise BenchError(f"a socket on {server.url} was closed ({socket.close_code}) before it caught up")
    return listening


async def deliver(
    running: list[Server], table: Table, deliveries: Deliveries, campaign: int, n: int, by: AbstractBaseUser
) -> None:
    """One roll in the campaign, then wait until every open socket of it has the roll (or the wait is over).

    The roll is made as a server process makes one: in the one thread of this process's event loop that
    runs its database work (``sync_to_async``), announced through that loop's own connections to Redis.
    (From a thread of its own, each announcement would start an event loop and connect to Redis anew.)"""
    from asgiref.sync import sync_to_async

    arrivals = deliveries.sockets[0].arrivals
    await asyncio.sleep(SETTLE)
    servers_began = processor_time(running)
    began = time.thread_time()
    # The roll's number is known only once it is made: expect the next one, as a campaign numbers its rolls.
    arrivals.expect(len(deliveries.committed) + 1, sum(1 for s in deliveries.sockets if s.closed_at is None))
    seq, at = await sync_to_async(roll)(campaign, by, n)
    if seq != arrivals.seq:
        raise BenchError(f"roll {seq} of campaign {campaign}, where roll {arrivals.seq} was expected")
    deliveries.committed[seq] = at
    with contextlib.suppress(TimeoutError):
        await asyncio.wait_for(arrivals.all_in.wait(), max(0.0, at + DELIVERY_WAIT - time.perf_counter()))
    deliveries.reading.append(time.thread_time() - began)
    deliveries.serving.append(processor_time(running) - servers_began)


def processor_time(running: list[Server]) -> float:
    """The seconds of processor time the servers' main threads (their event loops) have used so far, to
    the nanosecond (Linux's /proc/<pid>/schedstat: time on a processor, time waiting for one, slices)."""
    return sum(int(Path(f"/proc/{s.process.pid}/schedstat").read_text().split()[0]) for s in running) / 1e9


async def exercise(
    running: list[Server], table: Table, *, sockets: int, rolls: int, idle: float, group_key: str
) -> Result:
    """Open the sockets, keep them quiet, roll, stop the servers: what each socket heard, and when.

    The rolls alternate between the GM's campaign of one dashboard (:data:`ONE_EACH` at a time) and the
    campaign of many, each made once every socket has the one before: the one dashboard's delivery times
    are taken on the same servers, through the same roll path, in the same spell as the many's."""
    import redis
    from asgiref.sync import sync_to_async
    from django.db import connection

    many_arrivals, one_arrivals = Arrivals(), Arrivals()
    many = Deliveries(
        [Socket(i % len(running), i % len(table.members), table.campaign, many_arrivals) for i in range(sockets)]
    )
    one = Deliveries([Socket(0, 0, table.alone, one_arrivals)])  # the GM's, on the first server
    gate = asyncio.Semaphore(OPENING)
    began = time.perf_counter()
    every = [*many.sockets, *one.sockets]
    openings = [asyncio.create_task(open_socket(s, running[s.server], table, gate)) for s in every]
    try:
        listening = await asyncio.wait_for(asyncio.gather(*openings), OPEN_WAIT)
    except Exception as error:
        for task in openings:
            task.cancel()
        if isinstance(error, BenchError):
            raise
        why = f"not within {OPEN_WAIT:g} s" if isinstance(error, TimeoutError) else repr(error)
        raise BenchError(f"the sockets did not all open and catch up: {why}") from error
    opened_in = time.perf_counter() - began
    progress(f"  {counted(len(every), 'socket')} open and caught up in {opened_in:.1f} s; quiet for {idle:g} s")

    await asyncio.sleep(idle)

    rolls_began = time.perf_counter()
    try:
        for n in range(rolls):
            by = table.members[n % len(table.members)]
            for k in range(ONE_EACH):
                await deliver(running, table, one, table.alone, n * ONE_EACH + k, table.members[0])
            await deliver(running, table, many, table.campaign, n, by)
    finally:
        await sync_to_async(lambda: connection.close())()  # the rolling thread's own connection
    made = counted((1 + ONE_EACH) * rolls, "roll")
    progress(f"  {made} made in {time.perf_counter() - rolls_began:.1f} s; stopping the servers")

    shutdown_began = time.perf_counter()
    for server in running:
        server.process.send_signal(signal.SIGTERM)
    while any(s.process.poll() is None for s in running) and time.perf_counter() - shutdown_began < SHUTDOWN_BOUND:
        await asyncio.sleep(0.01)
        for server in running:
            if server.stopped_in is None and server.process.poll() is not None:
                server.stopped_in = time.perf_counter() - shutdown_began
    for server in running:
        if server.process.poll() is None:  # over the bound: killed, and no figure
            server.process.kill()
            server.process.wait()
        elif server.stopped_in is None:
            server.stopped_in = time.perf_counter() - shutdown_began
    _, pending = await asyncio.wait(listening, timeout=5)
    for task in pending:
        task.cancel()
    for s in every:
        if s.connection is not None:
            s.connection.abort()

    return Result(
        servers=len(running),
        many=many,
        one=one,
        members=len(table.members),
        opened_in=opened_in,
        idle=idle,
        rolls_began=rolls_began,
        shutdown_began=shutdown_began,
        stopped_in=[s.stopped_in for s in running],
        unclean=[s.unclean_lines() for s in running],
        finished=[s.finished for s in running],
        left_in_group=redis.Redis.from_url(REDIS_URL).zcard(group_key),
    )


#: The numbers of the floor's rolls for the one socket: past any roll of the many's.
FLOOR_ONE: Final = 1_000_000


async def floor(result: Result, *, rolls: int) -> tuple[Deliveries, Deliveries]:
    """The machine's floor for the same deliveries: two bare writers (:mod:`bench.floor`, on uvloop) in place of
    the servers, as many sockets on each, read here as the servers' are, and the same rolls' frames (made
    like the last one the sockets heard), each written by the writers as soon as a datagram asks: no Redis,
    no Django, no framing. The one socket is the first writer's first; the rolls alternate as the servers'
    do, and each delivery's time runs from the datagram's sending to the frame's reading here."""
    import socket as sockets_module

    sample = next((s.last_roll for s in result.many.sockets if s.last_roll), b'{"type": "roll", "seq": 0}')
    shown = json.loads(sample)
    many_arrivals, one_arrivals = Arrivals(), Arrivals()
    many = Deliveries([Socket(s.server, s.member, s.campaign, many_arrivals) for s in result.many.sockets])
    one = Deliveries([Socket(0, 0, 0, one_arrivals)])
    ports = [serving.free_port() for _ in range(result.servers)]
    writers = [
        subprocess.Popen([sys.executable, "-m", "bench.floor", str(port)], cwd=ROOT, stdout=subprocess.PIPE)
        for port in ports
    ]
    trigger = sockets_module.socket(sockets_module.AF_INET, sockets_module.SOCK_DGRAM)
    try:
        for writer in writers:
            assert writer.stdout is not None
            if await asyncio.to_thread(writer.stdout.readline) != b"ready\n":
                raise BenchError("a bare writer of the floor did not start")
        for s in [*one.sockets, *many.sockets]:  # the one first: its writer's first socket
            url = f"ws://127.0.0.1:{ports[s.server]}/"
            s.connection = await wsclient.connect(url, origin="", cookie="", heard=functools.partial(hear, s))
            s.caught_up.set()

        async def deliver(deliveries: Deliveries, seq: int, to: bytes, writers_asked: list[int]) -> None:
            deliveries.sockets[0].arrivals.expect(seq, len(deliveries.sockets))
            data = to + floor_frame(json.dumps({**shown, "seq": seq}).encode())
            await asyncio.sleep(SETTLE)
            deliveries.committed[seq] = time.perf_counter()
            for n in writers_asked:
                trigger.sendto(data, ("127.0.0.1", ports[n]))
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(deliveries.sockets[0].arrivals.all_in.wait(), DELIVERY_WAIT)

        for n in range(rolls):
            for k in range(ONE_EACH):
                await deliver(one, FLOOR_ONE + n * ONE_EACH + k, TO_FIRST, [0])
            await deliver(many, n + 1, TO_ALL, list(range(len(writers))))
    finally:
        trigger.close()
        for s in [*one.sockets, *many.sockets]:
            if s.connection is not None:
                s.connection.abort()
        for writer in writers:
            writer.send_signal(signal.SIGTERM)
        for writer in writers:
            try:
                await asyncio.to_thread(writer.wait, SHUTDOWN_BOUND)
            except subprocess.TimeoutExpired:
                writer.kill()
                writer.wait()
    return many, one


def redis_problem(url: str = REDIS_URL) -> str | None:
    """Why Redis at ``url`` cannot serve the benchmark, or None when it answers."""
    import redis

    try:
        redis.Redis.from_url(url, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        return f"needs Redis at {url} (REDIS_URL): {error}"
    return None


def enough_files(sockets: int) -> None:
    """Room for every socket's file, here and in the servers (which inherit the limit)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = sockets + 512
    if soft != resource.RLIM_INFINITY and soft < wanted:
        limit = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)
        resource.setrlimit(resource.RLIMIT_NOFILE, (limit, hard))


def run(*, sockets: int, rolls: int, players: int, idle: float, quick: bool, out: TextIO | None = None) -> int:
    """Build, serve, measure and report; the exit status. The settings must not be loaded yet: this
    sets ``REDIS_URL`` and the channel prefix the servers and this process share."""
    problem = redis_problem()
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return EXIT_BROKEN
    import redis

    prefix = f"dicehall-bench-{uuid.uuid4().hex}"
    os.environ.update(REDIS_URL=REDIS_URL, CHANNEL_PREFIX=prefix)
    enough_files(sockets)
    try:
        with throwaway_database() as vendor, tempfile.TemporaryDirectory(prefix="dicehall-bench-sockets-") as logs:
            progress(
                f"sockets: a throwaway {vendor} database, two servers, Redis at {REDIS_URL}; "
                f"{counted(sockets, 'socket')}, {counted(rolls, 'roll')}, a GM and {counted(players, 'player')}"
            )
            table = build(players)
            environment = {**os.environ, "DATABASE_URL": database_url()}
            with servers(environment, Path(logs)) as running:
                group = f"{prefix}:group:campaign-{table.campaign}"
                # The loop the servers run (the Makefile's --loop uvloop): its reading of a socket is in C.
                with asyncio.Runner(loop_factory=uvloop.new_event_loop) as runner:
                    measured = exercise(running, table, sockets=sockets, rolls=rolls, idle=idle, group_key=group)
                    result = runner.run(measured)
                    progress("  the machine's floor: the same deliveries from two bare writers")
                    result.floor = runner.run(floor(result, rolls=rolls))
                for n, lines in enumerate(result.unclean):
                    for line in lines[:5]:
                        print(f"server {n + 1}: {line}", file=sys.stderr)
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BROKEN
    except Exception:  # the data could not be built, a roll raised: no figure, and not a missed target
        traceback.print_exc()
        return EXIT_BROKEN
    finally:
        store = redis.Redis.from_url(REDIS_URL)
        for key in store.scan_iter(f"{prefix}*"):
            store.delete(key)
    return 0 if report(result, quick=quick, out=out or sys.stdout) else EXIT_MISSED


# --- Report -------------------------------------------------------------------------------------------


def counted(n: int, thing: str) -> str:
    return f"{n:,} {thing}" if n == 1 else f"{n:,} {thing}s"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.3g} ms"


def nearest_rank(ordered: Sequence[float], share: float) -> float:
    return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def floor_rows(result: Result) -> list[tuple[str, str, str, bool | None]]:
    """The machine's floor (:func:`floor`), shown beside the servers' figures: what no server could beat here."""
    if result.floor is None:
        return []
    many, one = (deliveries.latencies for deliveries in result.floor)
    if not many or not one:
        return [("the machine's floor (bare writers)", "-", "", None)]
    count = len(result.floor[0].sockets)
    p95_many, p95_one = nearest_rank(many, 0.95), nearest_rank(one, 0.95)
    return [
        ("the machine's floor (bare writers), one socket: 95th percentile", ms(p95_one), "", None),
        (f"the machine's floor, {count:,} sockets: median", ms(statistics.median(many)), "", None),
        (f"the machine's floor, {count:,} sockets: 95th percentile", ms(p95_many), "", None),
        (f"the machine's floor: 95th percentile, {count:,} against one", f"{p95_many / p95_one:.2f}×", "", None),
        (
            "the machine's floor: deliveries missed",
            f"{sum(d.missed for d in result.floor):,} of {sum(d.expected for d in result.floor):,}",
            "",
            None,
        ),
    ]


def report(result: Result, *, quick: bool, out: TextIO) -> bool:
    """Print the figures; True when every target is met."""
    many, one = result.many.latencies, result.one.latencies
    p95_many = nearest_rank(many, 0.95) if many else math.inf
    p95_one = nearest_rank(one, 0.95) if one else math.inf
    ratio = p95_many / p95_one if many and one else math.inf
    missed = result.many.missed + result.one.missed
    expected = result.many.expected + result.one.expected
    stops = ", ".join("killed" if s is None else f"{s:.2f} s" for s in result.stopped_in)
    unclean = sum(len(lines) for lines in result.unclean)
    per_server = " + ".join(str(sum(1 for s in result.many.sockets if s.server == n)) for n in range(result.servers))
    # (what, the figure, its target, whether it is met; None: shown, not judged)
    rows: list[tuple[str, str, str, bool | None]] = [
        (
            "sockets open and caught up",
            f"{len(result.many.sockets):,} ({per_server}) + 1 in {result.opened_in:.1f} s",
            "",
            None,
        ),
        (f"dropped while quiet for {result.idle:g} s", str(result.dropped_quiet), "0", result.dropped_quiet == 0),
        ("dropped during the rolls", str(result.dropped_rolling), "0", result.dropped_rolling == 0),
        ("deliveries missed", f"{missed:,} of {expected:,}", "0", missed == 0),
        ("one dashboard, commit to receipt: median", ms(statistics.median(one)) if one else "-", "", None),
        ("one dashboard: 95th percentile", ms(p95_one) if one else "-", "", None),
        (f"{len(result.many.sockets):,} dashboards: median", ms(statistics.median(many)) if many else "-", "", None),
        (f"{len(result.many.sockets):,} dashboards: 95th percentile", ms(p95_many) if many else "-", "", None),
        (f"{len(result.many.sockets):,} dashboards: slowest", ms(many[-1]) if many else "-", "", None),
        (
            f"the bench's own reading of {len(result.many.sockets):,}: processor time a roll, median",
            ms(statistics.median(result.many.reading)) if result.many.reading else "-",
            "",
            None,
        ),
        (
            "the servers' event loops: processor time a roll, median",
            ms(statistics.median(result.many.serving)) if result.many.serving else "-",
            "",
            None,
        ),
        (
            f"95th percentile, {len(result.many.sockets):,} against one",
            f"{ratio:.2f}×",
            f"≤ {RATIO_GOAL:g}×",
            ratio <= RATIO_GOAL,
        ),
        *floor_rows(result),
        ("stopped on SIGTERM in", stops, f"< {SHUTDOWN_BOUND:g} s", result.stopped),
        ("lines of exceptions in the logs", str(unclean), "0", unclean == 0),
        ("closed with 1012 (service restart)", f"{result.restarted:,} of {len(result.sockets):,}", "", None),
        ("channels left in the campaign's group", str(result.left_in_group), "", None),
    ]
    met = all(ok for *_, ok in rows if ok is not None)
    table = [("", "figure", "target", "result")] + [
        (name, figure, target, "" if ok is None else "PASS" if ok else "FAIL") for name, figure, target, ok in rows
    ]
    widths = [max(len(line[i]) for line in table) for i in range(4)]
    print(file=out)
    print(
        f"Sockets: {len(result.many.sockets):,} dashboards of one campaign (a GM and "
        f"{counted(result.members - 1, 'player')}) on {result.servers} server processes sharing Redis, and the "
        f"GM's one dashboard of another; {counted(len(result.many.committed), 'roll')} for the many, each after "
        f"{ONE_EACH} for the one.",
        file=out,
    )
    for line in table:
        print("  ".join(cell.ljust(width) for cell, width in zip(line, widths, strict=True)).rstrip(), file=out)
    print(file=out)
    print(
        "A clean stop: each server exits by itself within the bound, its log saying so, with no line of\n"
        f"{' or '.join(repr(u) for u in UNCLEAN)}. Delivery times include this process's own reading of every socket\n"
        "(its processor time is shown: well under the delivery times, the reading is not what they wait for).",
        file=out,
    )
    if quick:
        print("--quick: few sockets and rolls; the same quiet spell.", file=out)
    return met


# --- The command -----------------------------------------------------------------------------------------


def sockets_main(
    *,
    quick: bool,
    sockets: int | None = None,
    rolls: int | None = None,
    players: int | None = None,
    idle: float | None = None,
) -> int:
    """The sockets part of ``python -m bench``: its exit status. It runs in a Python process of its own,
    since Django must start with the servers' ``REDIS_URL`` and channel prefix."""
    command = [sys.executable, "-m", "bench.sockets", *(["--quick"] if quick else [])]
    for name, value in (("sockets", sockets), ("rolls", rolls), ("players", players), ("idle", idle)):
        if value is not None:
            command += [f"--{name}", str(value)]
    status = subprocess.run(command, cwd=ROOT, check=False).returncode
    return status if status in (0, EXIT_MISSED, EXIT_BROKEN) else EXIT_BROKEN


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.sockets", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: few sockets and rolls")
    parser.add_argument(
        "--sockets", type=int, metavar="S", help=f"sockets (default {SOCKETS}; --quick {QUICK_SOCKETS})"
    )
    parser.add_argument("--rolls", type=int, metavar="R", help=f"rolls (default {ROLLS}; --quick {QUICK_ROLLS})")
    parser.add_argument(
        "--players", type=int, metavar="N", help=f"players beside the GM (default {PLAYERS}; --quick {QUICK_PLAYERS})"
    )
    parser.add_argument("--idle", type=float, metavar="SECONDS", help=f"the quiet spell (default {IDLE:g})")
    args = parser.parse_args(argv)
    for name in ("sockets", "rolls", "players"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    if args.idle is not None and args.idle < 0:
        parser.error("--idle cannot be negative")
    return run(
        sockets=args.sockets or (QUICK_SOCKETS if args.quick else SOCKETS),
        rolls=args.rolls or (QUICK_ROLLS if args.quick else ROLLS),
        players=args.players or (QUICK_PLAYERS if args.quick else PLAYERS),
        idle=IDLE if args.idle is None else args.idle,
        quick=args.quick,
    )


if __name__ == "__main__":
    sys.exit(main())
