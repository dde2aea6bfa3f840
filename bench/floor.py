"""``python -m bench.floor PORT``: a bare writer of WebSocket frames, the sockets bench's measure of what the
machine itself takes to deliver one frame to many sockets (:func:`bench.sockets.floor`).

It does only what a server must to put a frame in front of a page: it accepts connections on PORT, answers
each handshake (RFC 6455's ``101 Switching Protocols``), and, for each datagram that reaches it on the same
port number over UDP, writes the frame the datagram carries to every socket it holds (a datagram starting
with ``A``) or to the first one it accepted (``1``). No Redis, no Django, no framing of its own: the frame
comes whole. It runs on uvloop, as the servers do (the Makefile's ``--loop uvloop``), and stops on SIGTERM.
"""

from __future__ import annotations

import asyncio
import base64
import hashlib
import signal
import sys
from typing import Any, Final

import uvloop

from bench.wsclient import GUID

#: The first byte of a datagram: to every socket, or to the first one only; the rest is the frame.
TO_ALL: Final = b"A"
TO_FIRST: Final = b"1"


def frame(payload: bytes) -> bytes:
    """A server's text frame of ``payload``: final, unmasked (RFC 6455 §5.2), as the servers send a roll."""
    length = len(payload)
    if length < 126:
        return bytes((0x81, length)) + payload
    if length < 1 << 16:
        return bytes((0x81, 126)) + length.to_bytes(2, "big") + payload
    return bytes((0x81, 127)) + length.to_bytes(8, "big") + payload


class Socket(asyncio.Protocol):
    """One page's socket: its handshake answered, what the page sends after it read and dropped."""

    def __init__(self, sockets: list[asyncio.Transport]) -> None:
        self.sockets = sockets
        self.request = b""
        self.transport: asyncio.Transport | None = None

    def connection_made(self, transport: Any) -> None:
        self.transport = transport

    def data_received(self, data: bytes) -> None:
        if self.transport is None or self.transport in self.sockets:
            return  # a frame of the page's (its "since"): nothing to answer
        self.request += data
        end = self.request.find(b"\r\n\r\n")
        if end < 0:
            return
        lines = self.request[:end].decode("latin-1").split("\r\n")[1:]
        headers = {name.strip().lower(): value.strip() for name, _, value in (line.partition(":") for line in lines)}
        accept = base64.b64encode(hashlib.sha1(headers["sec-websocket-key"].encode() + GUID).digest()).decode()
        self.transport.write(
            b"HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + f"Sec-WebSocket-Accept: {accept}\r\n\r\n".encode()
        )
        self.sockets.append(self.transport)

    def connection_lost(self, exc: Exception | None) -> None:
        if self.transport in self.sockets:
            self.sockets.remove(self.transport)


class Triggers(asyncio.DatagramProtocol):
    def __init__(self, sockets: list[asyncio.Transport]) -> None:
        self.sockets = sockets

    def datagram_received(self, data: bytes, addr: Any) -> None:
        frame = data[1:]
        for transport in self.sockets if data[:1] == TO_ALL else self.sockets[:1]:
            transport.write(frame)


async def serve(port: int) -> None:
    loop = asyncio.get_running_loop()
    sockets: list[asyncio.Transport] = []
    server = await loop.create_server(lambda: Socket(sockets), "127.0.0.1", port)
    triggers, _ = await loop.create_datagram_endpoint(lambda: Triggers(sockets), local_addr=("127.0.0.1", port))
    stopping = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stopping.set)
    print("ready", flush=True)
    await stopping.wait()
    triggers.close()
    server.close()
    for transport in sockets:
        transport.abort()


def main(argv: list[str] | None = None) -> int:
    (port,) = argv if argv is not None else sys.argv[1:]
    uvloop.run(serve(int(port)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
