"""Two server processes share events through Redis and sessions through the database, as the app
replicas behind the proxy do (docker-compose.yml, ``--scale app=N``): a roll posted to one reaches a
WebSocket client of the other; a session logged in on one is good on the other, and logging out on
one ends it on both; quiet sockets stay open, closed ones leave their groups, and each server stops
promptly on SIGTERM. Both run ``uvicorn config.asgi:application`` as ``make run`` does, with
``REDIS_URL`` set and a channel prefix of their own, on one database: a fresh PostgreSQL database
when ``DATABASE_URL`` names a PostgreSQL server (as in CI's PostgreSQL pass), else one temporary
SQLite file.

Needs Redis at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/15``). Without it these tests
skip locally, and under ``CI`` they fail: CI must prove this.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import runpy
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from http.cookies import SimpleCookie
from pathlib import Path
from urllib.parse import urlsplit

import psycopg
import pytest
import redis
from channels_redis.core import RedisChannelLayer
from django.utils.module_loading import import_string
from psycopg import sql
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from bench.servers import Server, free_port, plain_command, wait_until_up
from tests.conftest import needs_redis

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")

SETUP = """
import json
from django.contrib.auth import get_user_model
from django.db import connection
from django.test import Client
from campaigns.models import Campaign, Membership
from characters.models import Character
User = get_user_model()
gm = User.objects.create_user("gm", password="x")
player = User.objects.create_user("player", password="x")
campaign = Campaign.objects.create(name="Two Towers", system="lucky13")
Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
sheet = campaign.rules.new_draft(campaign.settings).model_dump(mode="json")
sheet["abilities"] = dict.fromkeys(["will", "charm", "pulse", "intellect", "reflex"], "d8")
sheet["skills"] = [{**skill, "die": "d6"} for skill in sheet["skills"]]
sheet.update(hit_points=30, creation={**sheet["creation"], "step": ""})
Character.objects.create(campaign=campaign, owner=player, name="Brunella", status="active", sheet=sheet)
sessions = {}
for user in (gm, player):
    client = Client()
    client.force_login(user)
    sessions[user.username] = client.cookies["sessionid"].value
print(json.dumps({"campaign": campaign.pk, "sessions": sessions, "vendor": connection.vendor}))
"""


def redis_or_skip() -> None:
    needs_redis(REDIS_URL, "the two-process live test")


@pytest.fixture
def database_url(tmp_path: Path) -> Iterator[str]:
    """The servers' one database: a new one on the PostgreSQL server of ``DATABASE_URL`` (dropped at the
    end, whoever is still connected), or a SQLite file without one."""
    given = os.environ.get("DATABASE_URL", "")
    if not given.startswith(("postgres://", "postgresql://")):
        yield f"sqlite:///{tmp_path / 'live.sqlite3'}"
        return
    name = f"dicehall_live_{uuid.uuid4().hex[:12]}"
    maintenance = urlsplit(given)._replace(path="/postgres").geturl()  # where Django creates its test databases
    with psycopg.connect(maintenance, autocommit=True) as admin:
        admin.execute(sql.SQL("CREATE DATABASE {}").format(sql.Identifier(name)))
    try:
        yield urlsplit(given)._replace(path=f"/{name}").geturl()
    finally:
        with psycopg.connect(maintenance, autocommit=True) as admin:
            admin.execute(sql.SQL("DROP DATABASE IF EXISTS {} WITH (FORCE)").format(sql.Identifier(name)))


@pytest.fixture
def environment(database_url: str) -> dict[str, str]:
    redis_or_skip()
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_ENV", "DATABASE_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=database_url,
        REDIS_URL=REDIS_URL,
        CHANNEL_PREFIX=f"dicehall-test-{uuid.uuid4().hex}",
        DJANGO_ALLOW_ASYNC_UNSAFE="",
    )
    return env


def manage(env: dict[str, str], *args: str) -> str:
    done = subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.fixture
def servers(environment: dict[str, str], tmp_path: Path) -> Iterator[list[Server]]:
    """Two uvicorn processes on free ports, serving the same database and the same Redis."""
    manage(environment, "migrate", "--noinput")
    started = []
    for n in range(2):
        port, log = free_port(), tmp_path / f"server-{n}.log"
        with log.open("w") as out:  # as `make run` starts it: uvicorn's own choices but for host and port
            process = subprocess.Popen(
                plain_command(port), cwd=ROOT, env=environment, stdout=out, stderr=subprocess.STDOUT
            )
        started.append(Server(f"http://127.0.0.1:{port}", process, log))
    try:
        for server in started:
            wait_until_up(server)
        yield started
    finally:
        for server in started:
            server.process.terminate()
        for server in started:
            try:
                server.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                server.process.kill()  # one that hangs on shutdown fails its test; it does not outlive it
                server.process.wait()


def post_free_roll(url: str, campaign: int, session: str, expression: str) -> None:
    """POST the free dice box as a logged-in browser does: a CSRF cookie and token from the page first."""
    page = urllib.request.Request(f"{url}/campaigns/{campaign}/", headers={"Cookie": f"sessionid={session}"})
    with urllib.request.urlopen(page, timeout=10) as response:
        cookies = SimpleCookie()
        for header in response.headers.get_all("Set-Cookie") or []:
            cookies.load(header)
        body = response.read().decode()
    token = re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', body).group(1)
    roll = urllib.request.Request(
        f"{url}/campaigns/{campaign}/rolls/free/",
        data=f"expression={expression}".encode(),
        headers={
            "Cookie": f"sessionid={session}; csrftoken={cookies['csrftoken'].value}",
            "X-CSRFToken": token,
            "Origin": url,
            "HX-Request": "true",
            "Content-Type": "application/x-www-form-urlencoded",
        },
    )
    with urllib.request.urlopen(roll, timeout=10) as response:
        assert response.status == 200


def set_up_campaign(environment: dict[str, str]) -> tuple[int, dict[str, str]]:
    made = json.loads(manage(environment, "shell", "-c", SETUP).strip().splitlines()[-1])
    # The database the servers share is the one asked for: PostgreSQL under CI's PostgreSQL pass.
    assert made["vendor"] == ("postgresql" if environment["DATABASE_URL"].startswith("postgres") else "sqlite")
    return made["campaign"], made["sessions"]


def dashboard(server: Server, campaign: int, session: str) -> ClientConnection:
    ws_url = server.url.replace("http://", "ws://") + f"/ws/campaigns/{campaign}/"
    return connect(ws_url, origin=server.url, additional_headers={"Cookie": f"sessionid={session}"})


def test_a_roll_posted_to_one_process_reaches_a_socket_on_the_other(servers, environment) -> None:
    first, second = servers
    campaign, sessions = set_up_campaign(environment)

    with dashboard(second, campaign, sessions["gm"]) as ws:
        ws.send(json.dumps({"since": 0}))
        joined = json.loads(ws.recv(timeout=10))  # the catch-up: the party as it is now
        assert joined["type"] == "fragment"
        asked = json.loads(ws.recv(timeout=10))  # the roll requests (none yet)
        assert (asked["type"], asked["id"]) == ("fragment", "dashboard-requests")
        order = json.loads(ws.recv(timeout=10))  # and the initiative order (no encounter yet)
        assert (order["type"], order["id"]) == ("fragment", "initiative")

        post_free_roll(first.url, campaign, sessions["player"], "3d6%2B2")

        message = json.loads(ws.recv(timeout=10))
        assert message["type"] == "roll"
        assert message["seq"] == 1
        assert "<code>3d6+2</code>" in message["html"]
        assert "player" in message["html"]


class NoRedirects(urllib.request.HTTPRedirectHandler):
    """A 302 is the answer itself (a log-in's, a log-out's), not a page to follow."""

    def redirect_request(self, *args: object, **kwargs: object) -> None:
        return None


def browse(url: str, cookies: dict[str, str], data: dict[str, str] | None = None) -> tuple[int, str]:
    """GET (or POST ``data`` with the page's CSRF token, as a form does) with ``cookies``, which take the
    response's cookies in: the status, and the body."""
    headers = {"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())}
    body = None
    if data is not None:
        headers.update(Origin=f"{urlsplit(url).scheme}://{urlsplit(url).netloc}")
        headers["Content-Type"] = "application/x-www-form-urlencoded"
        body = urllib.parse.urlencode(data).encode()
    request = urllib.request.Request(url, data=body, headers=headers)
    try:
        response = urllib.request.build_opener(NoRedirects).open(request, timeout=10)
    except urllib.error.HTTPError as error:  # a 302, not followed
        response = error
    with response:
        for header in response.headers.get_all("Set-Cookie") or []:
            cookie = SimpleCookie()
            cookie.load(header)
            cookies.update({key: morsel.value for key, morsel in cookie.items()})
        return response.status, response.read().decode()


def form_token(page: str) -> str:
    return re.search(r'name="csrfmiddlewaretoken" value="([^"]+)"', page).group(1)


def test_a_session_logged_in_on_one_process_is_good_on_the_other_until_logged_out(servers, environment) -> None:
    first, second = servers
    campaign, _ = set_up_campaign(environment)
    dashboard_path = f"/campaigns/{campaign}/"

    cookies: dict[str, str] = {}
    _, page = browse(f"{first.url}/accounts/login/", cookies)
    login = {"username": "player", "password": "x", "csrfmiddlewaretoken": form_token(page)}
    status, _ = browse(f"{first.url}/accounts/login/", cookies, login)
    assert status == 302
    assert "sessionid" in cookies

    # The other process knows the session: the page, and the live socket, as the player's.
    status, page = browse(f"{second.url}{dashboard_path}", cookies)
    assert status == 200
    assert "Two Towers" in page
    with dashboard(second, campaign, cookies["sessionid"]) as ws:
        ws.send(json.dumps({"since": 0}))
        assert json.loads(ws.recv(timeout=10))["type"] == "fragment"  # a member's catch-up, not a 4403

    # Logging out on the second ends the session on the first too, though the first has just read it (with
    # Redis no process keeps a session's read: accounts/sessions.py).
    status, _ = browse(f"{first.url}{dashboard_path}", cookies)
    assert status == 200
    status, _ = browse(f"{second.url}/accounts/logout/", cookies, {"csrfmiddlewaretoken": form_token(page)})
    assert status == 302
    status, _ = browse(f"{first.url}{dashboard_path}", cookies)
    assert status == 302  # to the log-in page


#: Longer than both waits that once cut a quiet socket off: channels-redis's blocking pop for the next
#: event (``brpop_timeout``, 5 s) and redis-py's default read timeout (also 5 s).
QUIET = RedisChannelLayer.brpop_timeout + 1.5
#: Sockets on the second server (enough to make a lost cancellation at shutdown likely to show).
MANY = 20


def test_quiet_sockets_stay_open_closed_ones_leave_their_group_and_the_servers_stop_promptly(
    servers, environment
) -> None:
    first, second = servers
    campaign, sessions = set_up_campaign(environment)
    store = redis.Redis.from_url(REDIS_URL)
    group = f"{environment['CHANNEL_PREFIX']}:group:campaign-{campaign}"

    def members_become(count: int) -> None:
        deadline = time.monotonic() + 10
        while store.zcard(group) != count and time.monotonic() < deadline:
            time.sleep(0.05)
        assert store.zcard(group) == count

    with contextlib.ExitStack() as stack:
        sockets = [stack.enter_context(dashboard(first, campaign, sessions["gm"]))]
        sockets += [stack.enter_context(dashboard(second, campaign, sessions["player"])) for _ in range(MANY)]
        # The campaign's group in Redis holds one relay for each process with a socket in it (play.layers).
        assert store.zcard(group) == 2

        # Quiet for longer than the waits: nothing arrives and nothing closes ...
        with pytest.raises(TimeoutError):
            sockets[0].recv(timeout=QUIET)
        # ... and every socket, on either server, gets the next roll.
        post_free_roll(first.url, campaign, sessions["player"], "2d6")
        for ws in sockets:
            message = json.loads(ws.recv(timeout=10))
            assert (message["type"], message["seq"]) == ("roll", 1)

        # Half of the second server's pages close: its relay stays for the others, which get the next roll.
        closing, staying = sockets[1 : 1 + MANY // 2], sockets[1 + MANY // 2 :]
        for ws in closing:
            ws.close()
        post_free_roll(first.url, campaign, sessions["player"], "2d6")
        for ws in [sockets[0], *staying]:
            message = json.loads(ws.recv(timeout=10))
            assert (message["type"], message["seq"]) == ("roll", 2)
        assert store.zcard(group) == 2
        # The first server's one page closes: that server's relay leaves the group.
        sockets[0].close()
        members_become(1)

        # SIGTERM: each server closes its sockets ("service restart", so the pages reconnect
        # elsewhere), their channels leave the group, and the process exits within a few seconds.
        for server in servers:
            server.process.send_signal(signal.SIGTERM)
        for server in servers:
            server.process.wait(timeout=5)
        for ws in staying:
            with pytest.raises(ConnectionClosed) as closed:
                ws.recv(timeout=5)
            assert closed.value.rcvd is not None
            assert closed.value.rcvd.code == 1012
        assert store.zcard(group) == 0

    for server in servers:
        log = server.log.read_text()
        assert "Finished server process" in log  # a clean shutdown, not killed
        assert "Exception in ASGI application" not in log
        assert "Traceback" not in log
        assert "ERROR" not in log


def configured_layer(monkeypatch: pytest.MonkeyPatch) -> RedisChannelLayer:
    """The channel layer exactly as config/settings.py makes it when REDIS_URL is set."""
    monkeypatch.setenv("REDIS_URL", REDIS_URL)
    monkeypatch.setenv("CHANNEL_PREFIX", f"dicehall-test-{uuid.uuid4().hex}")
    layer = runpy.run_path(str(ROOT / "config" / "settings.py"))["CHANNEL_LAYERS"]["default"]
    return import_string(layer["BACKEND"])(**layer["CONFIG"])


#: Sockets joining, then leaving, a group all at once, as when the pages of a stopped server all
#: reconnect to another: more commands at once than a server process has connections to Redis.
BURST = 200


def test_a_burst_of_sockets_joining_and_leaving_at_once_waits_for_free_connections(monkeypatch) -> None:
    redis_or_skip()
    layer = configured_layer(monkeypatch)
    store = redis.Redis.from_url(REDIS_URL)
    # A group each (sockets of one group in one process share one relay, added once: no burst in Redis).
    groups = [f"campaign-{n}" for n in range(BURST)]

    def members() -> int:
        return sum(store.zcard(f"{layer.prefix}:group:{group}") for group in groups)

    async def burst() -> tuple[int, int]:
        channels = [await layer.new_channel() for _ in range(BURST)]
        try:
            await asyncio.gather(*(layer.group_add(g, c) for g, c in zip(groups, channels, strict=True)))
            joined = members()
            await asyncio.gather(*(layer.group_discard(g, c) for g, c in zip(groups, channels, strict=True)))
            return joined, members()
        finally:
            await layer.flush()

    assert asyncio.run(burst()) == (BURST, 0)
