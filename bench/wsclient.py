"""The sockets bench's client of a dashboard's socket: RFC 6455 read straight off an asyncio transport.

The bench reads 500 sockets in one Python process, on the same processors as the two servers it
measures. Read through the ``websockets`` library, each frame took a generator-based parser, a queue,
a task woken to take it and a JSON decoding of the whole roll's HTML: some 24 µs of processor time a
frame, 12 ms for each roll heard by 500 sockets, as much as both servers spent sending it. Here a
frame costs the arithmetic of its header and, for a roll, the reading of its number from the front
of the message (:func:`roll_number`; the rest is decoded as JSON).

Nothing of the delivery is left out: a frame counts as arrived when its last byte has been read into
this process (:meth:`Dashboard.data_received`, with the clock read once for all the bytes of one
read), so its time covers the servers' work, the network and this process's turn at reading it.
The client does what a browser's socket must: it masks what it sends, answers the server's pings and
its close, and gives the close code it heard. It accepts no extension (the servers send none), and
a fragmented or masked frame from the server is an error of the bench (:class:`ProtocolError`).
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import json
import os
from collections.abc import Callable
from time import perf_counter
from typing import Any, Final
from urllib.parse import urlsplit

#: RFC 6455's GUID, hashed with the client's key into the server's Sec-WebSocket-Accept.
GUID: Final = b"258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
OP_TEXT: Final = 0x1
OP_CLOSE: Final = 0x8
OP_PING: Final = 0x9
OP_PONG: Final = 0xA
#: The close code when the connection ended without a close frame (RFC 6455 §7.1.5).
ABNORMAL: Final = 1006
#: The front of a roll's message as the server encodes it (``play.live.roll_frame``: ``json.dumps``).
ROLL_PREFIX: Final = b'{"type": "roll", "seq": '
#: The longest response to the handshake read before it is given up as not one.
MAX_HANDSHAKE: Final = 65_536


class ProtocolError(Exception):
    """The server sent what this client does not read: a refused handshake, a fragmented or masked frame."""


def roll_number(payload: bytes) -> int | None:
    """The number of the roll a text message carries, or None if it carries none. A roll encoded as the
    server encodes it is read from its front; any other message is decoded whole."""
    if payload.startswith(ROLL_PREFIX):
        end = payload.find(b",", len(ROLL_PREFIX))
        if end > 0:
            return int(payload[len(ROLL_PREFIX) : end])
    message = json.loads(payload)
    if isinstance(message, dict) and message.get("type") == "roll" and type(message.get("seq")) is int:
        return int(message["seq"])
    return None


def frame(opcode: int, payload: bytes) -> bytes:
    """A client's frame: final, masked (RFC 6455 §5.3)."""
    mask = os.urandom(4)
    length = len(payload)
    if length < 126:
        head = bytes((0x80 | opcode, 0x80 | length))
    elif length < 1 << 16:
        head = bytes((0x80 | opcode, 0x80 | 126)) + length.to_bytes(2, "big")
    else:
        head = bytes((0x80 | opcode, 0x80 | 127)) + length.to_bytes(8, "big")
    whole = (mask * (length // 4 + 1))[:length]
    masked = (int.from_bytes(payload, "big") ^ int.from_bytes(whole, "big")).to_bytes(length, "big")
    return head + mask + masked


class Dashboard(asyncio.Protocol):
    """One socket. ``heard(payload, at)`` is called with each text message and the clock when its last
    byte was read; :attr:`opened` is done once the server accepted the handshake, :attr:`ended` once the
    connection is gone, and :attr:`close_code` says how it ended."""

    def __init__(self, url: str, *, origin: str, cookie: str, heard: Callable[[bytes, float], None]) -> None:
        parts = urlsplit(url)
        self.request = (
            f"GET {parts.path or '/'} HTTP/1.1\r\nHost: {parts.netloc}\r\nUpgrade: websocket\r\n"
            f"Connection: Upgrade\r\nSec-WebSocket-Key: {{key}}\r\nSec-WebSocket-Version: 13\r\n"
            f"Origin: {origin}\r\nCookie: {cookie}\r\n\r\n"
        )
        self.heard = heard
        loop = asyncio.get_running_loop()
        self.opened: asyncio.Future[None] = loop.create_future()
        self.ended: asyncio.Future[None] = loop.create_future()
        self.close_code: int | None = None
        self.transport: asyncio.Transport | None = None
        self.key = base64.b64encode(os.urandom(16)).decode()
        self.pending = b""

    def connection_made(self, transport: Any) -> None:
        self.transport = transport
        transport.write(self.request.replace("{key}", self.key).encode("latin-1"))

    def data_received(self, data: bytes) -> None:
        at = perf_counter()
        try:
            if not self.opened.done():
                data = self.handshake(self.pending + data)
                if not self.opened.done():
                    return
            self.frames(self.pending + data if self.pending else data, at)
        except ProtocolError as error:
            if not self.opened.done():
                self.opened.set_exception(error)
            self.abort()

    def handshake(self, data: bytes) -> bytes:
        """What follows the server's response, once it has all come (and been checked)."""
        end = data.find(b"\r\n\r\n")
        if end < 0:
            if len(data) > MAX_HANDSHAKE:
                raise ProtocolError("no end to the handshake's response")
            self.pending = data
            return b""
        self.pending = b""
        status, *lines = data[:end].decode("latin-1").split("\r\n")
        if status.split(" ")[1:2] != ["101"]:
            raise ProtocolError(f"the server refused the socket: {status}")
        headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
        expected = base64.b64encode(hashlib.sha1(self.key.encode() + GUID).digest()).decode()
        if headers.get("sec-websocket-accept") != expected:
            raise ProtocolError("the server's Sec-WebSocket-Accept does not match the key")
        if headers.get("sec-websocket-extensions"):
            raise ProtocolError(f"an extension this client did not offer: {headers['sec-websocket-extensions']}")
        self.opened.set_result(None)
        return data[end + 4 :]

    def frames(self, data: bytes, at: float) -> None:
        """Every whole frame in ``data``, each handled; the rest kept for the next read."""
        start, size = 0, len(data)
        while size - start >= 2:
            first, second = data[start], data[start + 1]
            if second & 0x80:
                raise ProtocolError("a masked frame from the server")
            length, head = second & 0x7F, 2
            if length == 126:
                if size - start < 4:
                    break
                length, head = int.from_bytes(data[start + 2 : start + 4], "big"), 4
            elif length == 127:
                if size - start < 10:
                    break
                length, head = int.from_bytes(data[start + 2 : start + 10], "big"), 10
            end = start + head + length
            if end > size:
                break
            if not first & 0x80 or first & 0x70:
                raise ProtocolError("a fragmented frame, or one with reserved bits, from the server")
            opcode, payload = first & 0x0F, data[start + head : end]
            start = end
            if opcode == OP_TEXT:
                self.heard(payload, at)
            elif opcode == OP_PING:
                self.send(OP_PONG, payload)
            elif opcode == OP_CLOSE:
                self.close_code = int.from_bytes(payload[:2], "big") if len(payload) >= 2 else 1005
                self.send(OP_CLOSE, payload[:2])  # the server then ends the connection
            elif opcode != OP_PONG:
                raise ProtocolError(f"a frame of opcode {opcode:#x} from the server")
        self.pending = data[start:]

    def send(self, opcode: int, payload: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(frame(opcode, payload))

    def send_text(self, text: str) -> None:
        self.send(OP_TEXT, text.encode())

    def abort(self) -> None:
        """The connection dropped at once, by this side (the end of the bench, or an error)."""
        if self.transport is not None:
            self.transport.abort()

    def connection_lost(self, exc: Exception | None) -> None:
        if self.close_code is None:
            self.close_code = ABNORMAL
        if not self.opened.done():
            self.opened.set_exception(ProtocolError(f"the connection ended before the handshake: {exc}"))
        if not self.ended.done():
            self.ended.set_result(None)


async def connect(url: str, *, origin: str, cookie: str, heard: Callable[[bytes, float], None]) -> Dashboard:
    """A dashboard's socket at ``url`` (``ws://host:port/path``), open."""
    parts = urlsplit(url)
    loop = asyncio.get_running_loop()
    _, dashboard = await loop.create_connection(
        lambda: Dashboard(url, origin=origin, cookie=cookie, heard=heard), parts.hostname, parts.port
    )
    await dashboard.opened
    return dashboard
