"""The live sockets' outermost layer: Redis or the database out of reach before a socket's consumer
runs (Channels' AuthMiddleware reads the visitor's session from the database first) closes the
socket with "try again later" (1013), as the consumer itself does once it runs
(:class:`play.consumers.GroupsConsumer`), instead of an "Exception in ASGI application" and a
socket dropped without a code. The page then says its live updates are paused and tries again.

It also hands the consumer the server's own ``send`` in the scope (:data:`play.consumers.SERVER_SEND`),
for the socket's data frames: only the handshake and the close need to pass through the middleware."""

from __future__ import annotations

import logging
from typing import Any

from play.consumers import SERVER_SEND, TRY_AGAIN_LATER
from play.layers import UNREACHABLE

logger = logging.getLogger(__name__)


class PausedWhenUnreachable:
    """ASGI middleware for WebSocket scopes: see the module."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        said: set[str] = set()  # the messages of the handshake and close already heard or sent

        async def receiving() -> Any:
            message = await receive()
            said.add(message["type"])
            return message

        async def sending(message: Any) -> None:
            said.add(message["type"])
            await send(message)

        try:
            await self.app({**scope, SERVER_SEND: send}, receiving, sending)
        except UNREACHABLE as error:
            if said & {"websocket.close", "websocket.disconnect"}:
                return
            logger.warning("A live socket paused before it opened: %s", error)
            if "websocket.connect" not in said:
                await receive()  # the handshake, answered next
            if "websocket.accept" not in said:
                await send({"type": "websocket.accept"})
            await send({"type": "websocket.close", "code": TRY_AGAIN_LATER})
