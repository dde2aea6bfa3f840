"""What a page's live socket is sent is JSON text, small and shallow; anything else closes that
socket with the code that says why (RFC 6455), and nothing more: no "Exception in ASGI application"
in the server's log, and the server goes on serving. Served as production serves it (uvicorn and the
ASGI application, in a thread of the test process: tests/play/sockets.py)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from play.consumers import INVALID_PAYLOAD, MAX_FRAME, MESSAGE_TOO_BIG, UNSUPPORTED_DATA
from tests.campaigns.helpers import make_character
from tests.play.sockets import Server, closed_with, open_socket, serving
from web.bounded_json import MAX_DEPTH

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def server(caplog: pytest.LogCaptureFixture) -> Iterator[Server]:
    yield from serving(caplog)


def still_serves(server: Server, campaign, user) -> None:
    """A well-formed page's socket is caught up as ever, after the bad one closed."""
    with open_socket(server, f"/ws/campaigns/{campaign.pk}/", user) as ws:
        ws.send(json.dumps({"since": 0}))
        assert json.loads(ws.recv(timeout=10))["type"] == "fragment"


#: 10,000 levels: far beyond what Python's parser recurses through.
DEEP = "[" * 10_000 + "]" * 10_000

FRAMES = {
    "binary": (b'{"since": 0}', UNSUPPORTED_DATA),
    "not JSON": ("since=0", INVALID_PAYLOAD),
    "empty": ("", INVALID_PAYLOAD),
    "nested 10,000 deep": (DEEP, INVALID_PAYLOAD),
    "nested one level too deep": ("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1), INVALID_PAYLOAD),
    "too long": (json.dumps({"since": 0, "after": "x" * MAX_FRAME}), MESSAGE_TOO_BIG),
}


@pytest.mark.parametrize(("frame", "code"), FRAMES.values(), ids=FRAMES.keys())
def test_a_bad_frame_closes_the_dashboards_socket_with_its_code(server, campaign, gm, frame, code) -> None:
    with open_socket(server, f"/ws/campaigns/{campaign.pk}/", gm) as ws:
        ws.send(frame)
        assert closed_with(ws) == code
    still_serves(server, campaign, gm)


@pytest.mark.parametrize(("frame", "code"), FRAMES.values(), ids=FRAMES.keys())
def test_a_bad_frame_closes_a_sheets_socket_with_its_code(server, campaign, player, frame, code) -> None:
    brunella = make_character(campaign, player, "Brunella")
    with open_socket(server, f"/ws/characters/{brunella.pk}/", player) as ws:
        assert json.loads(ws.recv(timeout=10)) == {"type": "sheet", "version": brunella.version}
        ws.send(frame)
        assert closed_with(ws) == code
    still_serves(server, campaign, player)
