"""``python -m bench.served`` (and ``python -m bench``, ``make bench``): the product as it is served, on
PostgreSQL, with an empty and a large installation (:mod:`bench.big`).

Two servers are started the way ``make run`` starts one (the command is read from the Makefile's ``run``
target at run time, so a change there is measured here), one on each installation. Every page below is
requested in bursts of :data:`BURST` requests over :data:`CONNECTIONS` kept-alive connections, one burst
a page and a server after another, shuffled, for :data:`ROUNDS` rounds: so a slow spell of a shared machine
falls on every page of both servers alike. A page's throughput is the median of its bursts' requests per
second; its latency the 50th and 95th percentile of all its requests. Each throughput is taken as a ratio
to the trivial view's (``/healthz``: the server, the middleware, one query; Django's floor on this stack)
on the same server in the same run: each burst of a page comes right after a burst of the trivial view on
its server, and the page's ratio is the median of its bursts' ratios to the burst just before each, so that
the machine's speed, which a shared machine changes from one second to the next, is the same for the two
rates of a ratio. The large installation's ratio against the empty one's says how much slower a page is
with the large data behind it, whatever the machine was doing.

The pages, for every system: its sheet (the owner), its dashboard (the GM), the roll log's first page and
a deep one (``?before=`` half its length) and the ledger, a free roll posted to the dice box, the GM's award
to the party of eight, and the API's character document (a token). The move is D13's condition mark
(the GM; +1 and -1 in turn, so that it can be made for ever), each connection on a character of its own,
from the version the database holds when its burst begins.

Queries are counted in this process, with Django's test client on each installation
(``CaptureQueriesContext``, one request of each page, each a first view with nothing kept from the pages
drawn before it), not by the server: the server runs as in production.

Processor time: each page of the large installation requested through the server's own handler in this
process, one request at a time (:func:`processor_times`): the process's processor time a request, and its
share of the trivial view's. No goal is judged on it: it says where a page's time goes and what a change took
off it.

Page weight: each page of the large installation as a browser first loads it, with every stylesheet,
script, icon and image its HTML names (``<link href>``, ``<script src>``, ``<img src>``): the bytes
uncompressed (no ``Accept-Encoding``) and as sent (``Accept-Encoding: br, gzip``), the requests, and the
requests to another origin (there must be none).

``wrk``, when installed, confirms two throughputs independently: the trivial view and the first system's
sheet (the session cookie as a header), on the large installation's server once the bursts are over.

Goals (issue 27), each PASS or FAIL: the sheet and the dashboard at ≥ 50% of the trivial view's throughput,
a roll posted and a move at ≥ 30%; every page's ratio with the large data at most 1.25× worse than with the
empty one, with the same queries; a sheet page ≤ 100 KB with its CSS and JS uncompressed and ≤ 30 KB as
sent, and no request to another origin. Exit status: 0 when every goal is met, 1 when one is missed, 2 when
the figures cannot be had (no PostgreSQL, a server that does not start, a page that does not answer as it
should). ``--quick`` is a smoke run on a tiny installation in databases of its own (dropped at the end),
with few requests: every figure given, none judged.
"""

from __future__ import annotations

import argparse
import gzip
import http.client
import math
import os
import random
import re
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from datetime import UTC, datetime
from html.parser import HTMLParser
from pathlib import Path
from typing import Any, Final, TextIO
from urllib.parse import urlencode, urljoin, urlsplit

from bench import big
from bench.load import CSRF, UNLIMITED, in_own_process
from bench.pages import EXIT_BROKEN, EXIT_MISSED, progress
from bench.servers import ROOT, BenchError, run_command, run_exports, server

#: Kept-alive connections, requests a burst, rounds; and those of ``--quick``.
CONNECTIONS: Final = 4
BURST: Final = 40
ROUNDS: Final = 5
QUICK_CONNECTIONS: Final = 2
QUICK_BURST: Final = 2
QUICK_ROUNDS: Final = 1
#: The goals (issue 27): shares of the trivial view's throughput, and the large installation's slowdown.
PAGE_GOAL: Final = 0.50
WRITE_GOAL: Final = 0.30
SLOWDOWN_GOAL: Final = 1.25
SHEET_UNCOMPRESSED_GOAL: Final = 100 * 1024
SHEET_SENT_GOAL: Final = 30 * 1024
#: Seconds a request may take before the run is broken; seconds wrk runs for each page (``--quick``: 1).
TIMEOUT: Final = 60.0
WRK_SECONDS: Final = 5
#: Requests of each page timed in this process through the application (:func:`processor_times`; ``--quick``: a
#: few), in blocks of :data:`CPU_BLOCK` one page after another, and the turns of the event loop given after each
#: for what it left there to run.
CPU_REQUESTS: Final = 200
QUICK_CPU_REQUESTS: Final = 2
CPU_BLOCK: Final = 20
CPU_SETTLE: Final = 5
#: The move measured: a system's sheet move that can be made again and again, with its inputs in turn.
MOVE: Final = ("d13", "d13-mark", ({"marks": "1"}, {"marks": "-1"}))
#: The markdown block ``--write-docs`` writes in docs/bench.md, by its label.
DOCS: Final = ROOT / "docs" / "bench.md"


def collect_static(environment: dict[str, str]) -> None:
    """Static files collected as ``make run`` collects them before it serves (hashed, minified, compressed),
    into the ``STATIC_ROOT`` of ``environment``, once for both servers."""
    subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "--verbosity", "0"],
        cwd=ROOT, env=environment, check=True,
    )  # fmt: skip


def environment_for(database_url: str, static_root: Path) -> dict[str, str]:
    """A server's environment: what the Makefile's ``run`` target exports, the static files collected into
    ``static_root``, the installation's database, ``DEBUG`` off, every rate limit lifted (the bench
    measures the work, not the limits, as :mod:`bench.load` does)."""
    lifted = ",".join(f"{limit.name}={UNLIMITED}/{UNLIMITED}" for limit in limits_all())
    return {
        **os.environ,
        **run_exports(),
        "STATIC_ROOT": str(static_root),
        "DATABASE_URL": database_url,
        "DEBUG": "false",
        "API_RATE_LIMIT": str(UNLIMITED),
        "RATE_LIMITS": lifted,
    }


def limits_all() -> Sequence[Any]:
    from web import limits

    return limits.ALL


# --- The pages ---------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Page:
    """One thing measured: a GET, or a POST with its body (a function of the request's turn)."""

    key: str
    title: str
    system: str
    method: str
    path: str
    #: Whose session (a user name), or "token" for the API's bearer token, or "" for nobody.
    who: str
    body: Callable[[int, int], dict[str, str]] | None = None
    #: The goal of its throughput as a share of the trivial view's, or None.
    goal: float | None = None
    #: Whether it is a page a browser loads (its weight is measured).
    weighed: bool = False
    #: The status it answers with when it works (the award sends the GM on to the campaign's page).
    status: int = 200

    @property
    def name(self) -> str:
        return f"{self.title} ({self.system})" if self.system else self.title


@dataclass
class Site:
    """What the clients need of one installation: its sessions, its token, and how to read a character's
    version (for the move)."""

    name: str
    url: str
    sessions: dict[str, str]
    token: str
    #: Its own version of each page, by name (the deep page of the roll log is half its own log).
    pages: dict[str, Page] = field(default_factory=dict)
    #: The characters the move is made on, one a connection, and the version each is at.
    movers: list[int] = field(default_factory=list)
    versions: dict[int, int] = field(default_factory=dict)


TRIVIAL: Final = "healthz"


def pages(manifest: dict[str, Any], deep: dict[str, int]) -> list[Page]:
    """Every page measured, the trivial view first; ``deep``: per system, the ``before`` of the deep page."""
    from django.urls import reverse

    from rules import systems

    gm, player = manifest["gm"], manifest["players"][0]
    made = [Page(TRIVIAL, "trivial view (/healthz)", "", "GET", reverse("pages:healthz"), "")]
    for key in [key for key in systems.KEYS if key in manifest["systems"]]:  # the registry's order
        where, name = manifest["systems"][key], systems.get(key).name
        campaign, party = where["campaign"], where["characters"]
        rolls = reverse("play:rolls", args=[campaign])
        currency = systems.get(key).currencies[0].key

        def award(turn: int, connection: int, party: list[int] = party, currency: str = currency) -> dict[str, str]:
            body = {"amount": "1", "reason": f"Bench {turn}", "currency": currency}
            for pk in party:
                body |= {f"include-{pk}": "on", f"reputation-{pk}": "0"}
            return body

        made += [
            Page("sheet", "sheet", name, "GET", reverse("characters:sheet", args=[party[0]]), player, goal=PAGE_GOAL,
                 weighed=True),
            Page("dashboard", "dashboard", name, "GET", reverse("play:dashboard", args=[campaign]), gm,
                 goal=PAGE_GOAL, weighed=True),
            Page("rolls", "roll log, first page", name, "GET", rolls, gm, weighed=True),
            Page("deep", "roll log, deep page", name, "GET", f"{rolls}?before={deep[key]}", gm, weighed=True),
            Page("ledger", "ledger", name, "GET", reverse("characters:ledger", args=[party[0]]), player,
                 weighed=True),
            Page("roll", "roll posted", name, "POST", reverse("play:free-roll", args=[campaign]), player,
                 body=lambda turn, connection: {"expression": "2d6+1"}, goal=WRITE_GOAL),
            Page("award", "award to a party of 8", name, "POST", reverse("characters:award", args=[campaign]), gm,
                 body=award, status=302),
            Page("api", "API character document", name, "GET", f"/api/v1/characters/{party[0]}", "token"),
        ]  # fmt: skip
    system, move, inputs = MOVE
    if system in manifest["systems"]:
        party = manifest["systems"][system]["characters"]

        def moved(turn: int, connection: int) -> dict[str, str]:
            return {**inputs[turn % len(inputs)]}

        made.append(
            Page("move", f"move ({move})", systems.get(system).name, "POST",
                 reverse("play:move", args=[party[0], move]), gm, body=moved, goal=WRITE_GOAL)
        )  # fmt: skip
    return made


# --- Requests ------------------------------------------------------------------------------------------------


class Connections(threading.local):
    """Each client thread's kept-alive connections, one a server."""

    def __init__(self) -> None:
        self.open: dict[str, http.client.HTTPConnection] = {}


CLIENTS = Connections()


def send(
    site: Site, method: str, path: str, headers: dict[str, str], body: bytes | None = None
) -> tuple[int, dict[str, str], bytes]:
    """One request on this thread's kept-alive connection to the site (opened again if the server closed it)."""
    for attempt in (1, 2):
        connection = CLIENTS.open.get(site.url)
        if connection is None:
            address = urlsplit(site.url)
            connection = http.client.HTTPConnection(address.hostname or "", address.port, timeout=TIMEOUT)
            CLIENTS.open[site.url] = connection
        try:
            connection.request(method, path, body=body, headers=headers)
            response = connection.getresponse()
            content = response.read()
            if response.getheader("Connection", "").lower() == "close":
                connection.close()
                del CLIENTS.open[site.url]
            return response.status, {k.lower(): v for k, v in response.getheaders()}, content
        except (http.client.HTTPException, OSError):
            connection.close()
            del CLIENTS.open[site.url]
            if attempt == 2:
                raise
    raise AssertionError("unreachable")


def headers_for(site: Site, who: str) -> dict[str, str]:
    if who == "token":
        return {"Authorization": f"Bearer {site.token}"}
    if who:
        return {"Cookie": f"sessionid={site.sessions[who]}; csrftoken={CSRF}"}
    return {}


def request(site: Site, page: Page, turn: int, connection: int) -> float:
    """One request of the page (the site's own version of it), timed; anything but a 200 is an error."""
    page = site.pages.get(page.name, page)
    headers = headers_for(site, page.who)
    body = None
    path = page.path
    if page.method == "POST":
        assert page.body is not None
        fields = page.body(turn, connection)
        if page.key == "move":
            pk = move_character_of(site, connection)
            path = re.sub(r"/characters/\d+/", f"/characters/{pk}/", path)
            fields["version"] = str(site.versions[pk])
        body = urlencode(fields).encode()
        headers |= {
            "X-CSRFToken": CSRF,
            "Content-Type": "application/x-www-form-urlencoded",
            "HX-Request": "true",
        }
    start = time.perf_counter()
    status, _, content = send(site, page.method, path, headers, body)
    took = time.perf_counter() - start
    if status != page.status:
        raise BenchError(f"{page.method} {path} on the {site.name} installation answered {status}: {content[:300]!r}")
    if page.key == "move":
        site.versions[move_character_of(site, connection)] += 1
    return took


def move_character_of(site: Site, connection: int) -> int:
    """The character the connection makes the move on: each its own, so that none waits on another's version."""
    return site.movers[connection % len(site.movers)]


def read_versions(database: str, site: Site) -> None:
    """The versions the move's characters have now, read from the database (the move is made from them)."""
    import psycopg

    with psycopg.connect(big.url_of(database), autocommit=True) as connection:
        rows = connection.execute(
            "SELECT id, version FROM characters_character WHERE id = ANY(%s)", (site.movers,)
        ).fetchall()
    site.versions.update(dict(rows))


# --- Measuring ------------------------------------------------------------------------------------------------


@dataclass
class Figures:
    """One page on one installation: each burst's requests a second, and every request's seconds."""

    rates: list[float] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)
    queries: int | None = None
    #: Each burst's rate as a share of the trivial view's in the burst just before it, on the same server.
    shares: list[float] = field(default_factory=list)

    @property
    def rate(self) -> float:
        return statistics.median(self.rates)

    def percentile(self, share: float) -> float:
        ordered = sorted(self.seconds)
        return ordered[max(0, math.ceil(share * len(ordered)) - 1)]


def burst(pool: ThreadPoolExecutor, site: Site, page: Page, *, connections: int, size: int, turn: int) -> Figures:
    """``size`` requests of the page over ``connections`` connections at once: the rate and the times."""
    each = [size // connections + (1 if n < size % connections else 0) for n in range(connections)]

    def client(n: int) -> list[float]:
        return [request(site, page, turn + i, n) for i in range(each[n])]

    started = time.perf_counter()
    times = [t for part in pool.map(client, range(connections)) for t in part]
    wall = time.perf_counter() - started
    return Figures([len(times) / wall], times)


def measure(
    sites: dict[str, Site],
    databases: dict[str, str],
    chosen: list[Page],
    *,
    connections: int,
    size: int,
    rounds: int,
    warm: bool = True,
) -> dict[tuple[str, str], Figures]:
    """Every page on every site, a burst each, in a new shuffled order each round (warmed up first, unless
    not ``warm``: the requests counting the queries were the warm-up); each page's burst right after one of
    the trivial view (``chosen[0]``) on the same site, its yardstick (:attr:`Figures.shares`)."""
    figures: dict[tuple[str, str], Figures] = {(s, p.name): Figures() for s in sites for p in chosen}
    rng = random.Random(27)
    with ThreadPoolExecutor(max_workers=connections) as pool:
        for site_name, site in sites.items():  # warm-up: templates compiled, connections open, caches full
            if any(page.key == "move" for page in chosen):
                read_versions(databases[site_name], site)
            for page in chosen if warm else ():
                burst(pool, site, page, connections=connections, size=connections, turn=0)
        for r in range(rounds):
            started = time.perf_counter()
            order = [(s, p) for s in sites for p in chosen]
            rng.shuffle(order)
            for site_name, page in order:
                site = sites[site_name]
                floor = None
                if page.key != TRIVIAL:
                    floor = burst(pool, site, chosen[0], connections=connections, size=size, turn=r * size)
                    figures[site_name, chosen[0].name].rates += floor.rates
                    figures[site_name, chosen[0].name].seconds += floor.seconds
                if page.key == "move":
                    read_versions(databases[site_name], site)
                got = burst(pool, site, page, connections=connections, size=size, turn=r * size)
                figures[site_name, page.name].rates += got.rates
                figures[site_name, page.name].seconds += got.seconds
                if floor is not None:
                    figures[site_name, page.name].shares.append(got.rate / floor.rate)
            progress(f"  round {r + 1} of {rounds}: {time.perf_counter() - started:.1f} s")
    return figures


# --- In this process: sessions, the deep page, queries ------------------------------------------------------


def prepare(database: str, manifest: dict[str, Any]) -> tuple[dict[str, str], str, dict[str, int]]:
    """Sessions of the GM and the first player and an API token, made now in ``database``; with the
    ``before`` of each system's deep page of the roll log (half its length)."""
    import logging

    from django.contrib.auth import get_user_model
    from django.db.models import Max
    from django.test import Client

    from api import tokens
    from play.models import Roll

    logging.getLogger("axes").setLevel(logging.WARNING)
    with big.connected(database):
        users = get_user_model().objects
        sessions = {}
        for name in (manifest["gm"], manifest["players"][0]):
            client = Client()
            client.force_login(users.get(username=name))
            sessions[name] = client.cookies["sessionid"].value
        _, token = tokens.create_token(user=users.get(username=manifest["players"][0]), name="served bench")
        deep = {}
        for key, where in manifest["systems"].items():
            last = Roll.objects.filter(campaign_id=where["campaign"]).aggregate(Max("seq"))["seq__max"] or 2
            deep[key] = last // 2
    return sessions, token, deep


def count_queries(database: str, site: Site, chosen: list[Page]) -> dict[str, int]:
    """Each page's queries, one request each through Django's test client in this process (as the same
    user, with the same body; the move from the version the database holds). Each is a first view: what
    this process keeps of the pages it drew (a sheet's region, the log's rows) is forgotten before each
    request, or a page the other installation drew the same (the same sheet, balances and viewer) would
    count only the queries of a kept view here; and the session is read from the database, not from what this
    process kept of its read (``accounts.sessions``)."""
    from django.db import connection
    from django.test import Client
    from django.test.utils import CaptureQueriesContext

    from accounts import sessions
    from web import kept

    counts = {}
    with big.connected(database):
        for shared in chosen:
            page = site.pages.get(shared.name, shared)
            client = Client(**({"HTTP_HX_REQUEST": "true"} if page.method == "POST" else {}))
            extra: dict[str, Any] = {}
            if page.who == "token":
                extra["HTTP_AUTHORIZATION"] = f"Bearer {site.token}"
            elif page.who:
                client.cookies["sessionid"] = site.sessions[page.who]
            path, data = page.path, None
            if page.method == "POST":
                assert page.body is not None
                data = page.body(0, 0)
                if page.key == "move":
                    from characters.models import Character

                    pk = site.movers[-1]  # a character no connection of the bursts makes moves on
                    path = re.sub(r"/characters/\d+/", f"/characters/{pk}/", path)
                    data["version"] = str(Character.objects.get(pk=pk).version)
            kept.forget_all()
            if page.who and page.who != "token":  # its session read from the database, as a first view reads it
                sessions.forget(site.sessions[page.who])
            with CaptureQueriesContext(connection) as queries:
                if page.method == "POST":
                    response = client.post(path, data, **extra)
                else:
                    response = client.get(path, **extra)
            if response.status_code != page.status:
                raise BenchError(f"{page.method} {path} in process on {database} answered {response.status_code}")
            counts[page.name] = len(queries)
    return counts


# --- Processor time ----------------------------------------------------------------------------------------


def asgi_request(page: Page, site: Site, turn: int, path: str, fields: dict[str, str] | None) -> dict[str, Any]:
    """The scope and body uvicorn would hand the application for one request of ``page`` (its site's session or
    token, the body of its turn; a POST as the clients send it, with htmx)."""
    headers = [(b"host", b"127.0.0.1")]
    for name, value in headers_for(site, page.who).items():
        headers.append((name.lower().encode(), value.encode()))
    body = b""
    if fields is not None:
        body = urlencode(fields).encode()
        headers += [
            (b"x-csrftoken", CSRF.encode()),
            (b"content-type", b"application/x-www-form-urlencoded"),
            (b"hx-request", b"true"),
            (b"content-length", str(len(body)).encode()),
        ]
    path, _, query = path.partition("?")
    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": page.method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "query_string": query.encode(), "root_path": "", "headers": headers,
        "client": ("127.0.0.1", 50000 + turn % 10000), "server": ("127.0.0.1", 8000),
    }  # fmt: skip
    return {"scope": scope, "body": body}


def processor_times(database: str, site: Site, chosen: list[Page], *, requests: int) -> dict[str, float]:
    """Each page's processor time a request, in seconds (the median of ``requests``), through the handler the
    server's application hands every HTTP request to (``web.asgi.Handler``, as ``config/asgi.py`` makes it: every
    middleware, the view, and what the request leaves to the event loop), one request at a time on an event loop
    of this process (uvloop, as served): the process's processor time around each, both its threads (the loop's
    and the request's), the pages interleaved in blocks of :data:`CPU_BLOCK`. Without the server's HTTP parsing,
    the client and the other server, a page's share of the trivial view's moves less within a run than a burst's
    share does: it says where a page's time goes, and what a change took off it. The rate limits are lifted
    and exact chances worked out in the request's thread, as the bench's servers are configured; the move is made
    from the version the database holds."""
    import asyncio

    import uvloop
    from asgiref.sync import sync_to_async
    from django.db import connections
    from django.test import override_settings

    from characters.models import Character
    from web.asgi import Handler

    async def one(page: Page, turn: int) -> None:
        path, fields = page.path, None
        if page.method == "POST":
            assert page.body is not None
            fields = page.body(turn, 0)
            if page.key == "move":
                path = re.sub(r"/characters/\d+/", f"/characters/{mover}/", path)
                fields["version"] = str(await version_of_mover())  # an award to its party moved it too
        made = asgi_request(page, site, turn, path, fields)
        sent, status = False, []

        async def receive() -> dict[str, Any]:
            nonlocal sent
            if not sent:
                sent = True
                return {"type": "http.request", "body": made["body"], "more_body": False}
            await asyncio.Event().wait()  # the client stays until the response is sent
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            if message["type"] == "http.response.start":
                status.append(message["status"])

        started = time.process_time()
        await application(made["scope"], receive, send)
        for _ in range(CPU_SETTLE):  # what the request left to the loop (its announcements) runs now
            await asyncio.sleep(0)
        spent[page.name].append(time.process_time() - started)
        if status != [page.status]:
            raise BenchError(f"{page.method} {path} in process on {database} answered {status}")

    async def timed() -> None:
        try:
            for page in chosen:  # each page once first: what a page compiles and keeps is made before it is timed
                await one(page, 0)
                spent[page.name].clear()
            for block in range(math.ceil(requests / CPU_BLOCK)):
                for page in chosen:
                    for n in range(min(CPU_BLOCK, requests - block * CPU_BLOCK)):
                        await one(page, 1 + block * CPU_BLOCK + n)
        finally:  # the connection the versions were read on, on the one thread that read them
            await sync_to_async(connections.close_all)()

    lifted = {limit.name: (UNLIMITED, UNLIMITED) for limit in limits_all()}
    spent: dict[str, list[float]] = {page.name: [] for page in chosen}
    mover = site.movers[-1] if site.movers else 0  # a character no connection of the bursts makes moves on
    # Read off the event loop, on one thread of its own (no query may run on the loop's).
    version_of_mover = sync_to_async(lambda: Character.objects.values_list("version", flat=True).get(pk=mover))
    with big.connected(database), override_settings(RATE_LIMITS=lifted, API_RATE_LIMIT=UNLIMITED, CHANCE_WORKERS=0):
        application = Handler()  # what the server's application hands every HTTP request to (config/asgi.py)
        uvloop.run(timed())
    return {name: statistics.median(times) for name, times in spent.items()}


# --- Page weight -------------------------------------------------------------------------------------------


class Assets(HTMLParser):
    """The URLs a page's HTML makes a browser load: stylesheets, scripts, icons, preloads, images."""

    LINKS: Final = {"stylesheet", "icon", "preload", "modulepreload", "manifest", "apple-touch-icon"}

    def __init__(self) -> None:
        super().__init__()
        self.urls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "script" and values.get("src"):
            self.urls.append(values["src"] or "")
        elif tag == "link" and values.get("href") and self.LINKS & set((values.get("rel") or "").lower().split()):
            self.urls.append(values["href"] or "")
        elif tag == "img" and values.get("src") and not (values.get("src") or "").startswith("data:"):
            self.urls.append(values["src"] or "")


@dataclass(frozen=True, slots=True)
class Weight:
    page: str
    uncompressed: int
    sent: int
    requests: int
    elsewhere: int
    encodings: str


def weigh(site: Site, page: Page) -> Weight:
    """The page and everything its HTML loads: bytes without and with ``Accept-Encoding: br, gzip``."""
    headers = headers_for(site, page.who)
    status, _, html = send(site, "GET", page.path, headers)
    if status != 200:
        raise BenchError(f"GET {page.path} answered {status}")
    parser = Assets()
    parser.feed(html.decode("utf-8", errors="replace"))
    base = urljoin(site.url, page.path)
    urls = [urljoin(base, u) for u in dict.fromkeys(parser.urls)]
    origin = urlsplit(site.url).netloc
    elsewhere = [u for u in urls if urlsplit(u).netloc != origin]
    plain = sent = 0
    encodings = set()
    for path in [page.path, *(urlsplit(u).path + (f"?{urlsplit(u).query}" if urlsplit(u).query else "") for u in urls
                               if u not in elsewhere)]:  # fmt: skip
        status, got, body = send(site, "GET", path, headers)
        if status != 200:
            raise BenchError(f"GET {path} (loaded by {page.path}) answered {status}")
        plain += len(body) if not got.get("content-encoding") else len(decoded(body, got["content-encoding"]))
        status, got, body = send(site, "GET", path, {**headers, "Accept-Encoding": "br, gzip"})
        sent += len(body)
        encodings.add(got.get("content-encoding", "identity"))
    return Weight(page.name, plain, sent, 1 + len(urls), len(elsewhere), "/".join(sorted(encodings)))


def decoded(body: bytes, encoding: str) -> bytes:
    """A body the server compressed though it was not asked to (it must not: counted as it unpacks)."""
    if encoding == "gzip":
        return gzip.decompress(body)
    if encoding == "br":
        import brotli  # type: ignore[import-not-found]

        return bytes(brotli.decompress(body))
    return body


# --- wrk -------------------------------------------------------------------------------------------------------


def wrk(site: Site, page: Page, *, connections: int, seconds: int) -> float | None:
    """Requests a second wrk measures for the page, or None when wrk is not installed."""
    found = shutil.which("wrk")
    if found is None:
        return None
    command = [found, "-t1", f"-c{connections}", f"-d{seconds}s", "--latency"]
    for name, value in headers_for(site, page.who).items():
        command += ["-H", f"{name}: {value}"]
    out = subprocess.run([*command, f"{site.url}{page.path}"], capture_output=True, text=True, check=False).stdout
    rate = re.search(r"^Requests/sec:\s+([0-9.]+)", out, re.MULTILINE)
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", out)
    if rate is None or errors is not None:
        raise BenchError(f"wrk on {page.path} did not measure 200s: {out[-500:]}")
    return float(rate.group(1))


# --- Report -----------------------------------------------------------------------------------------------------


@dataclass
class Results:
    chosen: list[Page]
    figures: dict[tuple[str, str], Figures]
    queries: dict[str, dict[str, int]]
    weights: list[Weight]
    wrk: dict[str, float | None]
    sizes: dict[str, dict[str, int]]
    connections: int
    size: int
    rounds: int
    command: list[str]
    wrk_seconds: int
    #: The machine's 1-minute load average when the bursts began and when they ended.
    load: tuple[float, float] = (0.0, 0.0)
    #: Each page's processor time a request in this process, in seconds (:func:`processor_times`), of how many.
    cpu: dict[str, float] = field(default_factory=dict)
    cpu_requests: int = 0

    def ratio(self, site: str, page: Page) -> float:
        """The page's throughput as a share of the trivial view's: the median of its bursts' shares of the
        trivial view's burst just before each (:func:`measure`); the trivial view's own is 1."""
        shares = self.figures[site, page.name].shares
        if shares:
            return statistics.median(shares)
        return self.figures[site, page.name].rate / self.figures[site, self.chosen[0].name].rate


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.1f}"


def verdict(ok: bool, judged: bool) -> str:
    return ("PASS" if ok else "FAIL") if judged else "-"


def tables(results: Results, *, judged: bool) -> tuple[list[list[str]], list[list[str]], bool]:
    """The throughput table and the weight table (header first), and whether every goal is met."""
    met = True
    head = [
        "page", "empty: req/s", "× trivial", "p50 ms", "p95 ms", "large: req/s", "× trivial", "p50 ms", "p95 ms",
        "large/empty", "queries", "goal", "result",
    ]  # fmt: skip
    rows = [head]
    for page in results.chosen:
        e, b = results.figures["empty", page.name], results.figures["large", page.name]
        re_, rb = results.ratio("empty", page), results.ratio("large", page)
        slowdown = re_ / rb
        qe, qb = results.queries["empty"][page.name], results.queries["large"][page.name]
        goals, ok = [], True
        if page.goal is not None:
            goals.append(f"≥ {page.goal:.0%}")
            ok = ok and re_ >= page.goal and rb >= page.goal
        if page.key != TRIVIAL:
            goals.append(f"≤ {SLOWDOWN_GOAL:g}×, same q")
            ok = ok and slowdown <= SLOWDOWN_GOAL and qe == qb
        met = met and ok
        rows.append([
            page.name, f"{e.rate:.0f}", f"{re_:.0%}", ms(e.percentile(0.5)), ms(e.percentile(0.95)),
            f"{b.rate:.0f}", f"{rb:.0%}", ms(b.percentile(0.5)), ms(b.percentile(0.95)),
            f"{slowdown:.2f}×", f"{qe} / {qb}", ", ".join(goals), verdict(ok, judged) if goals else "",
        ])  # fmt: skip
    weights = [["page (large installation)", "KB uncompressed", "KB as sent", "encoding", "requests", "third-party",
                "goal", "result"]]  # fmt: skip
    for w in results.weights:
        ok = w.elsewhere == 0
        goal = "0 third-party"
        if w.page.startswith("sheet"):
            ok = ok and w.uncompressed <= SHEET_UNCOMPRESSED_GOAL and w.sent <= SHEET_SENT_GOAL
            goal = f"≤ {SHEET_UNCOMPRESSED_GOAL // 1024} KB, ≤ {SHEET_SENT_GOAL // 1024} KB sent, 0 third-party"
        met = met and ok
        weights.append([
            w.page, f"{w.uncompressed / 1024:.1f}", f"{w.sent / 1024:.1f}", w.encodings, str(w.requests),
            str(w.elsewhere), goal, verdict(ok, judged),
        ])  # fmt: skip
    return rows, weights, met or not judged


def cpu_table(results: Results) -> list[list[str]]:
    """Each page's processor time a request in process (large installation), and its share of the trivial view's
    (the trivial view's time over the page's: as a throughput's share would be, were the processor all it took)."""
    rows = [["page (in process, large installation)", "processor ms a request", "× trivial"]]
    trivial = results.cpu.get(results.chosen[0].name)
    for page in results.chosen:
        spent = results.cpu.get(page.name)
        if spent is not None and trivial is not None:
            rows.append([page.name, f"{spent * 1000:.2f}", f"{trivial / spent:.0%}"])
    return rows


def cpu_line(results: Results) -> str:
    return (
        f"Processor time a request, in process through the server's own handler (median of "
        f"{results.cpu_requests}, one request at a time, the pages interleaved; without the server's HTTP parsing): "
        "where a page's time goes."
    )


def plain(rows: list[list[str]]) -> str:
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    return "\n".join("  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows)


def markdown(rows: list[list[str]]) -> str:
    lines = ["| " + " | ".join(rows[0]) + " |", "|" + "---|" * len(rows[0])]
    return "\n".join(lines + ["| " + " | ".join(row) + " |" for row in rows[1:]])


def machine_line(results: Results) -> str:
    began, ended = results.load
    return (
        f"Machine: {os.cpu_count()} cores, load average {began:.1f} when the bursts began and {ended:.1f} when they "
        "ended (above the cores: shared with other work; the ratios of one run are what hold)."
    )


def sizes_line(results: Results) -> str:
    return "; ".join(
        f"{name}: {s['campaigns']:,} campaigns, {s['characters']:,} characters, {s['rolls']:,} rolls, "
        f"{s['ledger']:,} ledger entries"
        for name, s in results.sizes.items()
    )


def wrk_line(results: Results) -> str:
    if all(v is None for v in results.wrk.values()):
        return "wrk is not installed (Debian: apt-get install -y wrk): no independent confirmation."
    trivial, sheet = (rate or 0.0 for rate in results.wrk.values())
    names = list(results.wrk)
    return (
        f"wrk ({results.connections} connections, {results.wrk_seconds} s each, large installation): {names[0]} "
        f"{trivial:.0f} req/s, {names[1]} {sheet:.0f} req/s: {sheet / trivial:.0%} of the trivial view."
    )


def report(results: Results, *, judged: bool, out: TextIO) -> bool:
    rows, weights, met = tables(results, judged=judged)
    print(file=out)
    print(
        f"Served: bursts of {results.size} requests over {results.connections} kept-alive connections, every page "
        f"on both servers in a shuffled order, {results.rounds} rounds; req/s the median of the bursts, p50/p95 "
        "of every request. Queries counted in process with the test client (empty / large).",
        file=out,
    )
    print(sizes_line(results), file=out)
    print(machine_line(results), file=out)
    print(plain(rows), file=out)
    print(file=out)
    print(cpu_line(results), file=out)
    print(plain(cpu_table(results)), file=out)
    print(file=out)
    print("Page weight: the page with every stylesheet, script, icon and image its HTML loads.", file=out)
    print(plain(weights), file=out)
    print(file=out)
    print(wrk_line(results), file=out)
    if not judged:
        print("--quick: a tiny installation and few requests; every figure shown, none judged.", file=out)
    return met


def commit() -> str:
    done = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True)
    dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=ROOT, capture_output=True,
                           text=True).stdout.strip()  # fmt: skip
    return (done.stdout.strip() or "unknown") + (" with changes not committed" if dirty else "")


def write_docs(results: Results, label: str, *, judged: bool, docs: Path = DOCS) -> None:
    """The run's tables in ``docs`` as the block of ``label`` (another run with the same label replaces it)."""
    rows, weights, _ = tables(results, judged=judged)
    begin, end = f"<!-- served:{label}:begin -->", f"<!-- served:{label}:end -->"
    block = "\n".join([
        begin,
        f"### {label}: commit {commit()}, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"`{shlex.join(results.command)}` (DATABASE_URL on PostgreSQL). Bursts of {results.size} requests over "
        f"{results.connections} kept-alive connections, {results.rounds} rounds, interleaved over every page "
        f"and both servers, each page's burst right after one of the trivial view on its server (× trivial: the "
        f"median of the bursts' shares of the one just before each). {sizes_line(results)}. {machine_line(results)}",
        "",
        markdown(rows),
        "",
        cpu_line(results),
        "",
        markdown(cpu_table(results)),
        "",
        markdown(weights),
        "",
        wrk_line(results),
        end,
    ])  # fmt: skip
    text = docs.read_text() if docs.exists() else "# Benchmarks\n"
    if begin in text and end in text:
        text = text[: text.index(begin)] + block + text[text.index(end) + len(end) :]
    else:
        text = text.rstrip("\n") + "\n\n" + block + "\n"
    docs.write_text(text)


# --- The command -----------------------------------------------------------------------------------------------


def in_process(
    databases: dict[str, str], manifest: dict[str, Any], sites: dict[str, Site]
) -> tuple[dict[str, dict[str, int]], dict[str, dict[str, int]]]:
    """What this process does on each installation: counts its rows, makes its sessions and token, finds
    the deep page of its logs, and counts every page's queries. Returns the counts of rows and queries."""
    sizes, deeps = {}, {}
    for name, database in databases.items():
        sizes[name] = big.summary(database)
        sites[name].sessions, sites[name].token, deeps[name] = prepare(database, manifest)
        if MOVE[0] in manifest["systems"]:
            sites[name].movers = manifest["systems"][MOVE[0]]["characters"]
        sites[name].pages = {page.name: page for page in pages(manifest, deeps[name])}
    chosen = list(sites["large"].pages.values())
    return sizes, {name: count_queries(databases[name], sites[name], chosen) for name in databases}


def run(
    *,
    quick: bool,
    rebuild: bool,
    connections: int,
    size: int,
    rounds: int,
    docs_label: str | None,
    template: str | None = None,
    out: TextIO | None = None,
) -> int:
    out = out or sys.stdout
    try:
        big.admin_url()
    except SystemExit as needs:
        print(f"error: {needs}", file=sys.stderr)
        return EXIT_BROKEN
    big.django_setup()
    from django.conf import settings

    settings.ALLOWED_HOSTS = [*settings.ALLOWED_HOSTS, "testserver"]
    kept: list[str] = []
    stack = ExitStack()
    try:
        empty, large, manifest = big.ensure(quick=quick, rebuild=rebuild, template=template)
        kept = [empty, large]
        if quick:  # thrown away at the end: what the run writes goes nowhere else
            databases = {"empty": empty, "large": large}
        else:
            started = time.perf_counter()
            databases = dict(zip(("empty", "large"), stack.enter_context(big.copies(empty, large)), strict=True))
            progress(f"served: the installations copied for this run in {time.perf_counter() - started:.1f} s")
        sites = {name: Site(name, "", {}, "") for name in databases}
        logs = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="dicehall-bench-served-")))
        static_root = logs / "static"
        collect_static(environment_for(big.url_of(databases["empty"]), static_root))
        servers = stack.enter_context(ExitStack())
        with ThreadPoolExecutor(max_workers=3) as starting:
            # The servers start while this process makes the sessions and counts the queries (its one other
            # thread the only one to use the database here: ``big.connected`` repoints the shared settings).
            here = starting.submit(in_process, databases, manifest, sites)
            running = {
                name: starting.submit(
                    servers.enter_context,
                    server(environment_for(big.url_of(database), static_root), logs / f"{name}.log", run_command),
                )
                for name, database in databases.items()
            }
            sizes, queries = here.result()
            for name, started_server in running.items():
                sites[name].url = started_server.result().url
        chosen = list(sites["large"].pages.values())
        progress(f"served: {len(chosen)} pages on two servers, {rounds} rounds of bursts of {size}")
        load_began = os.getloadavg()[0]
        figures = measure(sites, databases, chosen, connections=connections, size=size, rounds=rounds, warm=not quick)
        load_ended = os.getloadavg()[0]
        # --quick: the first system's pages only, each a dozen requests on a busy machine.
        weighed = [page for page in chosen if page.weighed and (not quick or page.system == chosen[1].system)]
        weights = [weigh(sites["large"], page) for page in weighed]
        sheet = next(page for page in chosen if page.key == "sheet")
        seconds = 1 if quick else WRK_SECONDS
        rates = {
            "trivial view": wrk(sites["large"], chosen[0], connections=connections, seconds=seconds),
            sheet.name: wrk(sites["large"], sheet, connections=connections, seconds=seconds),
        }
        cpu_requests = QUICK_CPU_REQUESTS if quick else CPU_REQUESTS
        progress(f"served: each page's processor time in process, {cpu_requests} requests each")
        cpu = processor_times(databases["large"], sites["large"], chosen, requests=cpu_requests)
    except BenchError as error:
        print(f"error: {error}", file=sys.stderr)
        return EXIT_BROKEN
    except Exception:  # the data could not be built, a request failed: no figure, and not a missed target
        traceback.print_exc()
        return EXIT_BROKEN
    finally:
        stack.close()
        if quick:
            for database in kept:
                big.drop(database)
    command = ["python", "-m", "bench.served", *(["--quick"] if quick else [])]
    results = Results(
        chosen, figures, queries, weights, rates, sizes, connections, size, rounds, command, seconds,
        (load_began, load_ended), cpu, cpu_requests,
    )  # fmt: skip
    judged = not quick
    met = report(results, judged=judged, out=out)
    if docs_label:
        write_docs(results, docs_label, judged=judged)
    return 0 if met else EXIT_MISSED


def served_main(
    *,
    quick: bool,
    rebuild: bool = False,
    docs_label: str | None = None,
    template: str | None = None,
    **sizes: int | None,
) -> int:
    """The served part of ``python -m bench``: its exit status. It runs in a Python process of its own, as
    the sockets' part does: Django starts there on the bench's own databases."""
    options = [*(["--quick"] if quick else []), *(["--rebuild"] if rebuild else [])]
    if docs_label:
        options += ["--write-docs", docs_label]
    if template:
        options += ["--template", template]
    for name, value in sizes.items():
        if value is not None:
            options += [f"--{name.replace('_', '-')}", str(value)]
    return in_own_process("bench.served", options)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench.served", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="smoke run: a tiny installation, few requests")
    parser.add_argument("--rebuild", action="store_true", help="build the installations again (bench.big)")
    parser.add_argument("--connections", type=int, metavar="C", help=f"kept-alive connections (default {CONNECTIONS})")
    parser.add_argument("--burst", type=int, metavar="N", help=f"requests a burst (default {BURST})")
    parser.add_argument("--rounds", type=int, metavar="R", help=f"rounds of bursts (default {ROUNDS})")
    parser.add_argument("--template", metavar="DATABASE", help="a migrated, empty database to copy (--quick)")
    parser.add_argument("--write-docs", metavar="LABEL", help="write the tables to docs/bench.md under LABEL")
    args = parser.parse_args(argv)
    for name in ("connections", "burst", "rounds"):
        if getattr(args, name) is not None and getattr(args, name) < 1:
            parser.error(f"--{name} must be at least 1")
    return run(
        quick=args.quick,
        rebuild=args.rebuild,
        connections=args.connections or (QUICK_CONNECTIONS if args.quick else CONNECTIONS),
        size=args.burst or (QUICK_BURST if args.quick else BURST),
        rounds=args.rounds or (QUICK_ROUNDS if args.quick else ROUNDS),
        docs_label=args.write_docs,
        template=args.template,
    )


if __name__ == "__main__":
    sys.exit(main())
