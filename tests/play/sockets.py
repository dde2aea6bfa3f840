"""A live socket served as production serves it (uvicorn and the ASGI application, in a thread of the
test process), with uvicorn's log in the test's log (``caplog``), and a browser's session."""

from __future__ import annotations

import logging
import os
import socket
import threading
import time
import uuid
from collections.abc import Iterator

import pytest
import uvicorn
from django.test import Client
from websockets.exceptions import ConnectionClosed
from websockets.sync.client import ClientConnection, connect

from config.asgi import application

REDIS_URL = os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15")


def closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]  # free once the socket is closed: nothing listens there


def redis_layer(url: str) -> dict:
    """The channel layer as config/settings.py makes it with REDIS_URL set, at ``url``."""
    host = {"address": url, "socket_timeout": None, "max_connections": 50, "timeout": 20}
    config = {"hosts": [host], "prefix": f"dicehall-test-{uuid.uuid4().hex}"}
    return {"default": {"BACKEND": "play.layers.RedisChannelLayer", "CONFIG": config}}


class Server:
    """uvicorn in a thread, logging through the root logger (where ``caplog`` listens)."""

    def __init__(self) -> None:
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{port}"
        config = uvicorn.Config(
            application, host="127.0.0.1", port=port, ws="websockets-sansio", lifespan="off", log_config=None
        )
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 10
        while not self.server.started:
            assert time.monotonic() < deadline, "uvicorn did not start"
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def serving(caplog: pytest.LogCaptureFixture) -> Iterator[Server]:
    """A server for a test, whose log has no error in it when the test is done (a module's ``server`` fixture)."""
    caplog.set_level(logging.INFO)
    with Server() as running:
        yield running
    # The records of the test's body too: at teardown, ``caplog.records`` holds the teardown's alone.
    records = [*caplog.get_records("setup"), *caplog.get_records("call"), *caplog.records]
    assert not [record.getMessage() for record in records if "Exception in ASGI application" in record.getMessage()]
    assert not [record.getMessage() for record in records if record.levelno >= logging.ERROR]


def session_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def open_socket(server: Server, path: str, user) -> ClientConnection:
    url = server.url.replace("http://", "ws://") + path
    return connect(url, origin=server.url, additional_headers={"Cookie": f"sessionid={session_of(user)}"})


def read_all(ws: ClientConnection) -> None:
    """Every message until the socket closes (a timeout if it stays open)."""
    while True:
        ws.recv(timeout=10)


def closed_with(ws: ClientConnection) -> int:
    """The code the server closed ``ws`` with, after any messages before it (a drop without a close frame fails)."""
    with pytest.raises(ConnectionClosed) as closed:
        read_all(ws)
    assert closed.value.rcvd is not None, "dropped without a close frame"
    return closed.value.rcvd.code
