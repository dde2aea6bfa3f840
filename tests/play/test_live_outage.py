"""With Redis (the channel layer) unreachable, a live page's socket is accepted and closed with
"try again later" (1013), with nothing in the server's log but a warning, and the page connects
again by itself; once Redis answers again the socket opens and catches up, as after any drop.
The layer is the production one (play.layers.RedisChannelLayer), pointed at a port where nothing
listens, then at the Redis at ``REDIS_URL``."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest
from channels.layers import InMemoryChannelLayer
from django.db import OperationalError
from django.db.backends.base.base import BaseDatabaseWrapper
from django.test import override_settings
from redis.exceptions import TimeoutError as RedisTimeoutError
from websockets.sync.client import connect

from play.consumers import TRY_AGAIN_LATER
from tests.campaigns.helpers import make_character
from tests.conftest import needs_redis
from tests.play.sockets import (
    REDIS_URL,
    Server,
    closed_port,
    closed_with,
    open_socket,
    redis_layer,
    serving,
    session_of,
)

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(caplog: pytest.LogCaptureFixture) -> Iterator[Server]:
    yield from serving(caplog)


@pytest.fixture
def redis_away() -> Iterator[None]:
    with override_settings(CHANNEL_LAYERS=redis_layer(f"redis://127.0.0.1:{closed_port()}/0")):
        yield


def test_with_redis_away_the_sockets_close_with_try_again_later_and_open_once_it_is_back(
    server, campaign, gm, player, redis_away
) -> None:
    needs_redis(REDIS_URL, "the channel layer's return")
    brunella = make_character(campaign, player, "Brunella")
    for path, user in ((f"/ws/campaigns/{campaign.pk}/", gm), (f"/ws/characters/{brunella.pk}/", player)):
        with open_socket(server, path, user) as ws:
            assert closed_with(ws) == TRY_AGAIN_LATER

    with (
        override_settings(CHANNEL_LAYERS=redis_layer(REDIS_URL)),
        open_socket(server, f"/ws/campaigns/{campaign.pk}/", gm) as ws,
    ):
        ws.send(json.dumps({"since": 0}))
        assert json.loads(ws.recv(timeout=10))["id"] == f"party-{brunella.pk}"


class TimingOutLayer(InMemoryChannelLayer):
    """A channel layer whose Redis stops answering while a socket closes: leaving a group times out,
    as channels-redis does when its read of Redis's answer times out."""

    async def group_discard(self, group: str, channel: str) -> None:
        raise RedisTimeoutError("Timeout reading from 127.0.0.1:6379")


TIMING_OUT = {"default": {"BACKEND": f"{__name__}.TimingOutLayer"}}


@override_settings(CHANNEL_LAYERS=TIMING_OUT)
def test_a_socket_closing_while_redis_times_out_closes_cleanly(server, campaign, gm, player) -> None:
    brunella = make_character(campaign, player, "Brunella")
    for path, user in ((f"/ws/campaigns/{campaign.pk}/", gm), (f"/ws/characters/{brunella.pk}/", player)):
        with open_socket(server, path, user) as ws:
            ws.send(json.dumps({"since": 0}))
            assert json.loads(ws.recv(timeout=10))["type"] in ("fragment", "sheet")
    # The server's log (the ``server`` fixture) has no "Exception in ASGI application", and it still serves.
    with open_socket(server, f"/ws/campaigns/{campaign.pk}/", gm) as ws:
        ws.send(json.dumps({"since": 0}))
        assert json.loads(ws.recv(timeout=10))["id"] == f"party-{brunella.pk}"


def refuse(self) -> None:
    raise OperationalError('connection to server at "127.0.0.1", port 5432 failed: Connection refused')


def test_with_the_database_away_a_socket_closes_with_try_again_later(server, campaign, gm, monkeypatch) -> None:
    url = server.url.replace("http://", "ws://") + f"/ws/campaigns/{campaign.pk}/"
    cookie = {"Cookie": f"sessionid={session_of(gm)}"}
    with monkeypatch.context() as patch:
        # Every connection of every thread (the session is read in one, the consumer's queries in others).
        patch.setattr(BaseDatabaseWrapper, "ensure_connection", refuse)
        with connect(url, origin=server.url, additional_headers=cookie) as ws:
            assert closed_with(ws) == TRY_AGAIN_LATER
    with open_socket(server, f"/ws/campaigns/{campaign.pk}/", gm) as ws:
        ws.send(json.dumps({"since": 0}))
        assert json.loads(ws.recv(timeout=10))["type"] == "fragment"
