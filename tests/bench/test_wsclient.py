"""The sockets bench's own client of a dashboard's socket (``bench.wsclient``): its handshake, its reading
of the server's frames whole or in pieces, its answers to a ping and a close, its errors; and, against a
real server (``tests.play.sockets``), the catch-up and a roll read as the bench reads them."""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
import random
from collections.abc import Iterator

import pytest

from bench import wsclient
from bench.wsclient import GUID, OP_CLOSE, OP_PING, OP_PONG, OP_TEXT, Dashboard, ProtocolError, roll_number
from play.rolls import roll_free
from tests.play.sockets import Server, serving, session_of

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


class Transport:
    """What the protocol writes, and whether it aborted."""

    def __init__(self) -> None:
        self.written: list[bytes] = []
        self.aborted = False

    def write(self, data: bytes) -> None:
        self.written.append(data)

    def is_closing(self) -> bool:
        return self.aborted

    def abort(self) -> None:
        self.aborted = True


def server_frame(opcode: int, payload: bytes, *, fin: bool = True, masked: bool = False) -> bytes:
    """A frame as a server sends it (unmasked, unless ``masked``)."""
    length = len(payload)
    first = (0x80 if fin else 0) | opcode
    if length < 126:
        head = bytes((first, length | (0x80 if masked else 0)))
    elif length < 1 << 16:
        head = bytes((first, 126 | (0x80 if masked else 0))) + length.to_bytes(2, "big")
    else:
        head = bytes((first, 127 | (0x80 if masked else 0))) + length.to_bytes(8, "big")
    return head + (b"\0\0\0\0" if masked else b"") + payload


def unmasked(data: bytes) -> tuple[int, bytes]:
    """The opcode and payload of a client's frame, its mask checked and undone."""
    assert data[0] & 0x80, "a final frame"
    assert data[1] & 0x80, "masked, as a client's frame must be"
    length, start = data[1] & 0x7F, 2
    if length == 126:
        length, start = int.from_bytes(data[2:4], "big"), 4
    elif length == 127:
        length, start = int.from_bytes(data[2:10], "big"), 10
    mask, payload = data[start : start + 4], data[start + 4 :]
    assert len(payload) == length
    return data[0] & 0x0F, bytes(b ^ mask[i % 4] for i, b in enumerate(payload))


def accepted(dashboard: Dashboard, *, extra: str = "") -> bytes:
    accept = base64.b64encode(hashlib.sha1(dashboard.key.encode() + GUID).digest()).decode()
    return (
        "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Accept: {accept}\r\n{extra}\r\n"
    ).encode()


async def opened() -> tuple[Dashboard, Transport, list[tuple[bytes, float]]]:
    heard: list[tuple[bytes, float]] = []
    dashboard = Dashboard(
        "ws://127.0.0.1:8000/ws/campaigns/7/",
        origin="http://127.0.0.1:8000",
        cookie="sessionid=abc",
        heard=lambda payload, at: heard.append((payload, at)),
    )
    transport = Transport()
    dashboard.connection_made(transport)
    return dashboard, transport, heard


ROLL = json.dumps({"type": "roll", "seq": 12, "html": "<li>" + "x" * 300 + "</li>"}).encode()


def test_a_roll_is_read_by_its_number_from_the_front_and_anything_else_decoded_whole() -> None:
    assert roll_number(ROLL) == 12
    # Any other encoding of a roll is still a roll; a message of another type, or a roll without a number, is not.
    assert roll_number(json.dumps({"seq": 7, "type": "roll", "html": ""}, separators=(",", ":")).encode()) == 7
    assert roll_number(json.dumps({"type": "fragment", "id": "initiative", "html": "x"}).encode()) is None
    assert roll_number(json.dumps({"type": "roll", "seq": "7"}).encode()) is None
    assert roll_number(b"[1, 2]") is None


@pytest.mark.parametrize("size", [0, 5, 125, 126, 65_535, 65_536, 70_000])
def test_a_client_frame_is_masked_and_its_length_written_as_rfc_6455_says(size: int) -> None:
    payload = os.urandom(size)

    assert unmasked(wsclient.frame(OP_TEXT, payload)) == (OP_TEXT, payload)


async def test_the_handshake_asks_for_the_socket_with_the_origin_and_cookie_and_checks_the_answer() -> None:
    dashboard, transport, heard = await opened()

    request = transport.written[0].decode()
    assert request.startswith("GET /ws/campaigns/7/ HTTP/1.1\r\nHost: 127.0.0.1:8000\r\n")
    for header in ("Upgrade: websocket", "Connection: Upgrade", "Sec-WebSocket-Version: 13"):
        assert f"\r\n{header}\r\n" in request
    assert f"\r\nSec-WebSocket-Key: {dashboard.key}\r\n" in request
    assert "\r\nOrigin: http://127.0.0.1:8000\r\nCookie: sessionid=abc\r\n\r\n" in request
    # The answer in two pieces, a frame right behind it in the second.
    answer = accepted(dashboard)
    dashboard.data_received(answer[:20])
    assert not dashboard.opened.done()
    dashboard.data_received(answer[20:] + server_frame(OP_TEXT, ROLL))

    assert dashboard.opened.done()
    assert dashboard.opened.exception() is None
    assert [payload for payload, _ in heard] == [ROLL]


@pytest.mark.parametrize(
    ("answer", "why"),
    [
        (b"HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n", "refused the socket: HTTP/1.1 403 Forbidden"),
        (b"HTTP/1.1 101 Switching Protocols\r\nSec-WebSocket-Accept: nope\r\n\r\n", "does not match the key"),
    ],
)
async def test_a_refused_or_forged_handshake_fails_the_opening(answer: bytes, why: str) -> None:
    dashboard, transport, _ = await opened()

    dashboard.data_received(answer)

    with pytest.raises(ProtocolError, match=why):
        dashboard.opened.result()
    assert transport.aborted


async def test_an_extension_the_client_never_offered_fails_the_opening() -> None:
    dashboard, transport, _ = await opened()

    dashboard.data_received(accepted(dashboard, extra="Sec-WebSocket-Extensions: permessage-deflate\r\n"))

    with pytest.raises(ProtocolError, match="permessage-deflate"):
        dashboard.opened.result()
    assert transport.aborted


async def test_frames_split_anywhere_are_each_heard_once_whole_with_the_clock_of_their_last_byte() -> None:
    dashboard, _, heard = await opened()
    dashboard.data_received(accepted(dashboard))
    long = json.dumps({"type": "fragment", "id": "party-1", "html": "y" * 70_000}).encode()
    stream = server_frame(OP_TEXT, ROLL) + server_frame(OP_TEXT, long) + server_frame(OP_TEXT, b'{"type": "x"}')

    for at in range(0, len(stream), 7):
        dashboard.data_received(stream[at : at + 7])

    assert [payload for payload, _ in heard] == [ROLL, long, b'{"type": "x"}']
    times = [at for _, at in heard]
    assert times == sorted(times)
    assert dashboard.pending == b""


async def test_a_ping_is_answered_with_its_payload_and_a_close_with_its_code() -> None:
    dashboard, transport, heard = await opened()
    dashboard.data_received(accepted(dashboard))

    dashboard.data_received(server_frame(OP_PING, b"are you there") + server_frame(OP_CLOSE, b"\x03\xf4bye"))

    assert [unmasked(data) for data in transport.written[1:]] == [(OP_PONG, b"are you there"), (OP_CLOSE, b"\x03\xf4")]
    assert dashboard.close_code == 1012
    assert heard == []
    dashboard.connection_lost(None)
    assert dashboard.ended.done()
    assert dashboard.close_code == 1012


async def test_a_connection_lost_without_a_close_ends_abnormally() -> None:
    dashboard, _, _ = await opened()
    dashboard.data_received(accepted(dashboard))

    dashboard.connection_lost(ConnectionResetError())

    assert dashboard.ended.done()
    assert dashboard.close_code == wsclient.ABNORMAL


async def test_a_connection_lost_during_the_handshake_fails_the_opening() -> None:
    dashboard, _, _ = await opened()

    dashboard.connection_lost(None)

    with pytest.raises(ProtocolError, match="before the handshake"):
        dashboard.opened.result()


@pytest.mark.parametrize(
    "data",
    [
        server_frame(OP_TEXT, b"{}", masked=True),
        server_frame(OP_TEXT, b"{}", fin=False),
        bytes((0x80 | 0x40 | OP_TEXT, 2)) + b"{}",  # a reserved bit (compression) set
        server_frame(0x3, b""),  # a reserved opcode
    ],
)
async def test_a_frame_the_client_does_not_read_drops_the_connection(data: bytes) -> None:
    dashboard, transport, heard = await opened()
    dashboard.data_received(accepted(dashboard))

    dashboard.data_received(data)

    assert transport.aborted
    assert heard == []


@pytest.fixture
def server(caplog: pytest.LogCaptureFixture) -> Iterator[Server]:
    yield from serving(caplog)


@pytest.mark.django_db(transaction=True)
def test_the_client_reads_a_real_dashboard_its_catch_up_and_a_roll(server: Server, campaign, gm) -> None:
    """Against the server as production runs it: the handshake, the catch-up asked for as the page asks
    for it, its last message (the initiative order, which the bench waits for), and a roll read by its number."""
    heard: list[bytes] = []
    session = session_of(gm)

    async def exercise() -> int | None:
        dashboard = await wsclient.connect(
            f"{server.url.replace('http://', 'ws://')}/ws/campaigns/{campaign.pk}/",
            origin=server.url,
            cookie=f"sessionid={session}",
            heard=lambda payload, at: heard.append(payload),
        )
        dashboard.send_text(json.dumps({"since": 0}))
        async with asyncio.timeout(10):
            while not any(b'"id": "initiative"' in payload for payload in heard):
                await asyncio.sleep(0.01)
            made = await asyncio.to_thread(
                roll_free, campaign_id=campaign.pk, by=gm, text="2d6", explode=False, secret=False, rng=random.Random(1)
            )
            while made.seq not in [roll_number(payload) for payload in heard]:
                await asyncio.sleep(0.01)
        dashboard.abort()
        await dashboard.ended
        return made.seq

    seq = asyncio.run(exercise())

    assert [roll_number(payload) for payload in heard].count(seq) == 1
