"""Two server processes share events through Redis: a roll posted to one reaches a WebSocket
client of the other. Both run ``uvicorn config.asgi:application`` as production does, on one
temporary SQLite file, with ``REDIS_URL`` set and a channel prefix of their own.

Needs Redis at ``REDIS_URL`` (default ``redis://127.0.0.1:6379/15``). Without it the test
skips locally, and under ``CI`` it fails: CI must prove this.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from collections.abc import Iterator
from http.cookies import SimpleCookie
from pathlib import Path

import pytest
import redis
from websockets.sync.client import connect

from tests.conftest import CI

ROOT = Path(__file__).resolve().parents[2]
REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")

SETUP = """
import json
from django.contrib.auth import get_user_model
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
print(json.dumps({"campaign": campaign.pk, "sessions": sessions}))
"""


def redis_or_skip() -> None:
    try:
        redis.Redis.from_url(REDIS_URL, socket_connect_timeout=1).ping()
    except redis.RedisError as error:
        message = f"needs Redis at {REDIS_URL} ({error})"
        if CI:
            pytest.fail(f"CI=true: {message}; the two-process live test must run in CI")
        pytest.skip(message)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def environment(tmp_path: Path) -> dict[str, str]:
    redis_or_skip()
    env = {k: v for k, v in os.environ.items() if k not in ("DJANGO_ENV", "DATABASE_URL")}
    env.update(
        DJANGO_SETTINGS_MODULE="config.settings",
        DATABASE_URL=f"sqlite:///{tmp_path / 'live.sqlite3'}",
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
def servers(environment: dict[str, str], tmp_path: Path) -> Iterator[list[str]]:
    """Two uvicorn processes on free ports, serving the same database and the same Redis."""
    manage(environment, "migrate", "--noinput")
    processes, urls = [], []
    for n in range(2):
        port = free_port()
        log = (tmp_path / f"server-{n}.log").open("w")
        command = [sys.executable, "-m", "uvicorn", "config.asgi:application", "--host", "127.0.0.1"]
        command += ["--port", str(port), "--ws", "websockets-sansio", "--lifespan", "off"]
        processes.append(subprocess.Popen(command, cwd=ROOT, env=environment, stdout=log, stderr=subprocess.STDOUT))
        urls.append(f"http://127.0.0.1:{port}")
    try:
        for url, process in zip(urls, processes, strict=True):
            wait_until_up(url, process)
        yield urls
    finally:
        for process in processes:
            process.terminate()
        for process in processes:
            process.wait(timeout=10)


def wait_until_up(url: str, process: subprocess.Popen) -> None:
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        assert process.poll() is None, "the server exited"
        try:
            with urllib.request.urlopen(f"{url}/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise AssertionError(f"{url} did not start")


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


def test_a_roll_posted_to_one_process_reaches_a_socket_on_the_other(servers, environment) -> None:
    first, second = servers
    made = json.loads(manage(environment, "shell", "-c", SETUP).strip().splitlines()[-1])
    campaign, sessions = made["campaign"], made["sessions"]
    ws_url = second.replace("http://", "ws://") + f"/ws/campaigns/{campaign}/"

    with connect(ws_url, origin=second, additional_headers={"Cookie": f"sessionid={sessions['gm']}"}) as ws:
        ws.send(json.dumps({"since": 0}))
        joined = json.loads(ws.recv(timeout=10))  # the catch-up: the party as it is now
        assert joined["type"] == "fragment"
        asked = json.loads(ws.recv(timeout=10))  # the roll requests (none yet)
        assert (asked["type"], asked["id"]) == ("fragment", "dashboard-requests")
        order = json.loads(ws.recv(timeout=10))  # and the initiative order (no encounter yet)
        assert (order["type"], order["id"]) == ("fragment", "initiative")

        post_free_roll(first, campaign, sessions["player"], "3d6%2B2")

        message = json.loads(ws.recv(timeout=10))
        assert message["type"] == "roll"
        assert message["seq"] == 1
        assert "<code>3d6+2</code>" in message["html"]
        assert "player" in message["html"]
