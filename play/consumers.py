"""The live dashboard's socket: ``ws/campaigns/<pk>/``.

Only the campaign's members join its group; anyone else is accepted and closed at once with
:data:`NOT_A_MEMBER`, so that the page can tell "not allowed" (stop) from a dropped connection
(reconnect). A member who is removed or leaves is closed the same way the moment it commits:
each socket also joins its member's own group, and on hearing that the membership changed it
reads it again (a new GM, or a GM become player, then gets what their new role sees); logging
out closes that browser's sockets with :data:`LOGGED_OUT`. The
server sends JSON, each message one fragment to swap in by its id:

- ``{"type": "roll", "seq": 12, "html": "<li id=\\"roll-12\\" …>"}``: a roll for the feed, new or
  just revealed by the GM (the page swaps a row it shows already, and puts a new one in place by number);
- ``{"type": "fragment", "id": "party-3", "html": "<li id=\\"party-3\\" …>"}``: a party row,
  (``"id": "initiative"``) the running encounter's initiative order, or (``"id": "dashboard-requests"``)
  the roll requests and proposals as this member sees them. The encounter page listens on the same
  socket: the ``initiative`` fragment tells it the encounter changed, and it fetches its own body again.

The page sends ``{"since": <last roll seq it shows>, "after": <its party page's key, if any>}`` on
(re)connecting and gets the rolls it missed, oldest first (with every revealed secret roll of the
feed, in case it missed the reveal), the rows of the party page it shows and the initiative order
as they are now. A page asks once each time it connects, so a socket may ask
:data:`CATCH_UPS_PER_MINUTE` times a minute: past that each ask is answered with
``{"type": "error", "code": "rate_limited", "message": …, "retry_after": <seconds>}`` and nothing else,
and after :data:`CATCH_UP_REFUSALS` of those the socket is closed with :data:`RATE_LIMITED`.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import math
from collections import deque
from collections.abc import Awaitable, Callable
from time import monotonic
from typing import Any, ClassVar, Final

from channels.consumer import get_handler_name
from channels.db import database_sync_to_async
from channels.exceptions import StopConsumer
from channels.generic.websocket import AsyncJsonWebsocketConsumer
from channels.layers import get_channel_layer

from campaigns.models import Campaign, Membership
from campaigns.presenters import BadPageKey, NameKey
from play import eager, live
from play.layers import UNREACHABLE
from web import bounded_json
from web.fields import MAX_KEY

logger = logging.getLogger(__name__)

#: The close code for an outsider or a logged-out visitor (4000–4999 are the application's own).
NOT_A_MEMBER: Final = 4403
#: The close code for a socket whose browser logged out while it was open.
LOGGED_OUT: Final = 4401
#: The close code for a frame that is not text (RFC 6455's "unsupported data"): the page sends JSON text only.
UNSUPPORTED_DATA: Final = 1003
#: The close code for a text frame that is not JSON, or JSON nested too deeply (RFC 6455's "invalid payload").
INVALID_PAYLOAD: Final = 1007
#: The close code for a frame longer than :data:`MAX_FRAME` (RFC 6455's "message too big").
MESSAGE_TOO_BIG: Final = 1009
#: The close code when the channel layer (Redis) or the database cannot be reached (RFC 6455's "try
#: again later"): the page says its live updates are paused and connects again, later and later.
TRY_AGAIN_LATER: Final = 1013
#: The longest frame a page may send, in characters (64 KiB): what it sends (a roll's number and a
#: party page's key) is a tiny fraction of it; uvicorn's own bound is 16 MiB.
MAX_FRAME: Final = 65_536
#: The close code for a socket that kept asking to catch up past its limit (429, as HTTP says it).
RATE_LIMITED: Final = 4429
#: Catch-ups one socket may ask for in a minute: each reads the feed, the party page, the requests and
#: the initiative, and a page asks once a connection.
CATCH_UPS_PER_MINUTE: Final = 6
CATCH_UP_WINDOW: Final = 60.0
#: Catch-ups refused to one socket before it is closed: a page never gets one, a script asking in a loop does.
CATCH_UP_REFUSALS: Final = 10
#: The scope's key for the server's own ``send``, put there by the outermost layer of the sockets
#: (:class:`play.socket_outage.PausedWhenUnreachable`): each data frame goes to it straight.
SERVER_SEND: Final = "dicehall.server_send"


def _catch_up(
    campaign_id: int, *, gm: bool, since: int, after: NameKey | None = None, user: Any = None
) -> list[dict[str, Any]]:
    # The feed as it is now, from what the page lacks: the rolls after ``since``, and every revealed
    # secret roll in it, whose reveal the page may have missed (one it shows already is swapped in place).
    rolls = [roll for roll in live.feed_rolls(campaign_id, gm=gm) if roll.seq > since or roll.revealed_at]
    messages: list[dict[str, Any]] = [
        {"type": "roll", "seq": roll.seq, "html": live.roll_html(roll, gm=gm)} for roll in reversed(rolls)
    ]
    campaign = Campaign.objects.get(pk=campaign_id)
    for row in live.party(campaign, after):  # the page of the party the dashboard shows
        messages.append({"type": "fragment", "id": f"party-{row['character'].pk}", "html": live.party_row_html(row)})
    html = live.requests_html(campaign_id, user, gm=gm)
    messages.append({"type": "fragment", "id": "dashboard-requests", "html": html})
    messages.append({"type": "fragment", "id": "initiative", "html": live.initiative_html(campaign)})
    return messages


class Turn:
    """A socket's handlers one at a time, each in the order it asked (``asyncio.Lock``'s way), with a take
    that does not wait (:meth:`take_now`): the reading task of the channel layer handles an event at once
    when the socket is doing nothing else. Given back, the turn goes straight to the first waiting, so
    that nothing asks in between."""

    def __init__(self) -> None:
        self.held = False
        self.waiting: deque[asyncio.Future[None]] = deque()

    def take_now(self) -> bool:
        if self.held:
            return False
        self.held = True
        return True

    async def take(self) -> None:
        if self.take_now():
            return
        waiter = asyncio.get_running_loop().create_future()
        self.waiting.append(waiter)
        try:
            await waiter
        except asyncio.CancelledError:
            if waiter.done() and not waiter.cancelled():  # given the turn as it was cancelled: pass it on
                self.give()
            raise

    def give(self) -> None:
        while self.waiting:
            waiter = self.waiting.popleft()
            if not waiter.done():
                waiter.set_result(None)
                return
        self.held = False


class GroupsConsumer(AsyncJsonWebsocketConsumer):
    """A socket in channel-layer groups of its own choosing (not channels' ``groups``, which are
    fixed per class), which it leaves however it ends: closed by either side, by the server's
    shutdown, or by an error in a handler. A channel left in a group is sent every event of the
    group until the group expires, a day later (with Redis, by every server process).

    What the page sends is read here, for every live socket alike: a frame that is not JSON text of at
    most :data:`MAX_FRAME` characters, nested at most :data:`~web.bounded_json.MAX_DEPTH` deep, closes
    the socket with the code that says why (:data:`UNSUPPORTED_DATA`, :data:`MESSAGE_TOO_BIG`,
    :data:`INVALID_PAYLOAD`). When the channel layer or the database cannot be reached, on connecting
    or later, the socket is closed with :data:`TRY_AGAIN_LATER` rather than dropped by an error.
    """

    #: The types of the events whose handling is only to send the frame that :meth:`frame` picks from the
    #: event (or nothing): the channel layer's reading task sends those itself (:meth:`take`).
    FRAMED: ClassVar[frozenset[str]] = frozenset()

    #: The groups joined; empty until the socket joins any, and again once it has left them.
    joined: list[str]
    #: Whether the socket was accepted, and whether it was closed (nothing is sent after that).
    accepted: bool
    closed: bool

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        self.joined, self.accepted, self.closed = [], False, False
        try:
            await self.serve(scope, receive, send)
        except UNREACHABLE as error:
            await self.pause(error)
        finally:
            await self.discard()

    async def serve(self, scope: Any, receive: Any, send: Any) -> None:
        """Channels' ``AsyncConsumer.__call__``, with each source of messages (the page's frames, the
        channel layer's events) read by one task of its own for the socket's whole life, and their
        handlers run one at a time, in the order each source gave them. Channels waits for the next
        message of either source with a new task and an ``asyncio.wait`` for every message: a roll
        heard by 250 sockets of a process made 250 tasks, and each frame waited three turns of the
        event loop before it was sent. Here an event is handled in the turn that hands it over."""
        self.scope = scope
        self.base_send = send
        self.server_send = scope.get(SERVER_SEND, send)
        self.channel_layer = get_channel_layer(self.channel_layer_alias)
        self.turn = Turn()
        #: An error sending a frame from the channel layer's reading task (:meth:`take`): it ends the socket.
        self.ended: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        #: The rest of such a send, when it has to wait for the page to read (the socket's turn is its until done).
        self.sending: asyncio.Task[None] | None = None
        sources = [receive]
        if self.channel_layer is not None:
            self.channel_name = await self.channel_layer.new_channel()
            self.channel_receive = functools.partial(self.channel_layer.receive, self.channel_name)
            sources.append(self.channel_receive)
            listen = getattr(self.channel_layer, "listen", None)  # play.layers.RedisChannelLayer's
            if listen is not None:
                listen(self.channel_name, self.take)

        async def handle(next_message: Callable[[], Awaitable[dict[str, Any]]]) -> None:
            while True:
                message = await next_message()
                await self.turn.take()
                try:
                    await self.dispatch(message)
                finally:
                    self.turn.give()

        readers = [asyncio.ensure_future(handle(source)) for source in sources]
        watched = [*readers, self.ended]
        try:
            done, _ = await asyncio.wait(watched, return_when=asyncio.FIRST_COMPLETED)
            for watch in watched:
                if watch in done:
                    watch.result()  # the handler's error, or StopConsumer: the socket is over
        except StopConsumer:
            pass
        finally:
            pending = [*readers, *([self.sending] if self.sending is not None else [])]
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)
            if self.channel_layer is not None:
                # Its inbox and listener in this process go with it, even when it ended while handling an event
                # (the layer forgets a channel by itself only when its receive is what was cancelled).
                forget = getattr(self.channel_layer, "forget", None)  # play.layers.RedisChannelLayer's
                if forget is not None:
                    forget(self.channel_name)
            if self.ended.done():
                self.ended.exception()  # seen (raised above, or the socket ended another way first)
            else:
                self.ended.cancel()

    def take(self, event: dict[str, Any]) -> bool:
        """Handle an event of the channel layer's now, in its reading task's turn, when its handling is only
        to send a frame it carries (:data:`FRAMED`) and the socket is doing nothing else: True when handled
        (sent, or nothing for this socket). False leaves it to the socket's inbox and its handler, in turn:
        the socket busy, or an event of another kind. A send that has to wait (the page reads more slowly
        than the server writes) goes on in a task of its own (:func:`play.eager.start`) that holds the
        socket's turn until it is done; an error sending ends the socket, as a handler's error does.
        The handler of the same event sends the same frame the same way (:meth:`send`)."""
        if event.get("type") not in self.FRAMED or not self.turn.take_now():
            return False
        rest = None
        try:
            frame = self.frame(event)
            if frame:
                rest = eager.start(self.send(text_data=frame))
        except Exception as error:  # the socket's end, raised where serve waits for it
            self.end(error)
        if rest is None:
            self.turn.give()
        else:
            self.sending = rest
            rest.add_done_callback(self.sent)
        return True

    def sent(self, rest: asyncio.Task[None]) -> None:
        self.sending = None
        self.turn.give()
        if not rest.cancelled() and rest.exception() is not None:
            self.end(rest.exception())

    def end(self, error: BaseException) -> None:
        if not self.ended.done():
            self.ended.set_exception(error)

    def frame(self, event: dict[str, Any]) -> str | None:
        """The frame an event of :data:`FRAMED` sends to this socket, or None for nothing."""
        raise NotImplementedError

    async def dispatch(self, message: dict[str, Any]) -> None:
        """The handler of the message's type, called straight away. Channels' own ``dispatch`` first
        closes the database connections that are too old, in the one thread that runs every query, for
        every message: a roll heard by 250 sockets of a process queued 250 trips through that thread
        ahead of its frames, and the last socket's roll waited for all of them. Every query here runs in
        ``database_sync_to_async``, which closes old connections around itself, in that same thread."""
        handler = getattr(self, get_handler_name(message), None)
        if handler is None:
            raise ValueError(f"No handler for message type {message['type']}")
        await handler(message)

    async def websocket_connect(self, message: dict[str, Any]) -> None:
        try:
            await super().websocket_connect(message)
        except UNREACHABLE as error:
            await self.pause(error)

    async def send(self, text_data: str | None = None, bytes_data: bytes | None = None, close: bool = False) -> None:
        """A text frame goes straight to the server's ``send`` (:data:`SERVER_SEND`), past the middleware
        between them: Channels' session middleware looks at the session on every message it passes, to
        save it with an HTTP response, which a socket never sends; a roll heard by 250 sockets of a
        process paid for that look 250 times. The handshake, the close and anything else take the
        middleware's way (:meth:`close`, :meth:`accept`)."""
        if text_data is not None and bytes_data is None and not close:
            await self.server_send({"type": "websocket.send", "text": text_data})
        else:
            await super().send(text_data, bytes_data, close)

    async def accept(self, subprotocol: str | None = None, headers: Any = None) -> None:
        await super().accept(subprotocol, headers)
        self.accepted = True

    async def close(self, code: int | bool | None = None, reason: str | None = None) -> None:
        # Once: a second close (a frame that arrived while the first was on its way) is an error of the server.
        if not self.closed:
            self.closed = True
            await super().close(code, reason)

    async def pause(self, error: Exception) -> None:
        """Closed with :data:`TRY_AGAIN_LATER` (accepted first: a socket refused during its handshake
        tells the page nothing but that it failed)."""
        logger.warning("A live socket paused: %s", error)
        if self.closed:
            return
        if not self.accepted:
            await self.accept()
        await self.leave(TRY_AGAIN_LATER, "Live updates are paused; try again later.")

    async def receive(self, text_data: str | None = None, bytes_data: bytes | None = None, **kwargs: Any) -> None:
        if self.closed:
            return  # sent before the page heard the close
        if text_data is None:
            await self.leave(UNSUPPORTED_DATA, "Send JSON text.")
        elif len(text_data) > MAX_FRAME:
            await self.leave(MESSAGE_TOO_BIG, f"A message is at most {MAX_FRAME} characters.")
        else:
            try:
                content = bounded_json.loads(text_data)
            except ValueError:
                await self.leave(INVALID_PAYLOAD, f"Send JSON, nested at most {bounded_json.MAX_DEPTH} deep.")
                return
            await self.receive_json(content, **kwargs)

    async def join(self, group: str) -> None:
        await self.channel_layer.group_add(group, self.channel_name)
        self.joined.append(group)

    async def discard(self) -> None:
        groups, self.joined = self.joined, []
        for group in groups:
            # With Redis away, the group forgets the channel when it expires, as it would any lost one.
            with contextlib.suppress(*UNREACHABLE):
                await self.channel_layer.group_discard(group, self.channel_name)

    async def leave(self, code: int, reason: str | None = None) -> None:
        """Out of every group, then closed: not one more message reaches the page (the handlers
        send nothing once ``joined`` is empty, should one be on its way already)."""
        await self.discard()
        await self.close(code=code, reason=reason)

    async def disconnect(self, code: int) -> None:
        await self.discard()


class CampaignConsumer(GroupsConsumer):
    FRAMED = frozenset({"roll.recorded", "roll.revealed"})
    # joined: the campaign's group and the member's own, once a member connects.
    gm: bool = False
    #: When this socket's catch-ups of the last minute were asked (monotonic clock), and how many were refused.
    catch_ups: deque[float]
    refused: int = 0

    async def role(self) -> str | None:
        return await database_sync_to_async(live.role_of)(self.scope.get("user"), self.campaign_id)

    async def connect(self) -> None:
        self.campaign_id = int(self.scope["url_route"]["kwargs"]["pk"])
        self.catch_ups = deque()
        role = await self.role()
        if role is not None:
            user_id = self.scope["user"].pk
            # In the groups before the page hears "open": nothing recorded after that is missed.
            for group in (live.group_name(self.campaign_id), live.member_group_name(self.campaign_id, user_id)):
                await self.join(group)
            # A removal that committed between the first look and joining the member's group was
            # announced to nobody: a second look, now that any later one will be heard, settles it.
            role = await self.role()
        await self.accept()
        if role is None:
            await self.leave(code=NOT_A_MEMBER)
            return
        self.gm = role == Membership.Role.GM

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        since = content.get("since") if isinstance(content, dict) else None
        if not self.joined or not isinstance(since, int) or isinstance(since, bool) or not 0 <= since <= MAX_KEY:
            return
        wait = self.wait_to_catch_up()
        if wait:
            await self.refuse_catch_up(wait)
            return
        raw = content.get("after")
        try:
            after = NameKey.parse(raw, "the party") if isinstance(raw, str) and raw else None
        except BadPageKey:
            after = None  # a page key the page could not have sent: the first page's rows, as without one
        catch_up = database_sync_to_async(_catch_up)
        user = self.scope.get("user")
        for message in await catch_up(self.campaign_id, gm=self.gm, since=since, after=after, user=user):
            await self.send_json(message)

    def wait_to_catch_up(self) -> int:
        """0 when this socket may catch up now (and it is counted), else the whole seconds until it may."""
        now = monotonic()
        while self.catch_ups and now - self.catch_ups[0] >= CATCH_UP_WINDOW:
            self.catch_ups.popleft()
        if len(self.catch_ups) < CATCH_UPS_PER_MINUTE:
            self.catch_ups.append(now)
            return 0
        return max(1, math.ceil(CATCH_UP_WINDOW - (now - self.catch_ups[0])))

    async def refuse_catch_up(self, wait: int) -> None:
        self.refused += 1
        if self.refused > CATCH_UP_REFUSALS:
            await self.leave(code=RATE_LIMITED)
            return
        message = f"Too many catch-ups on this connection: wait {wait} seconds, or reload the page."
        await self.send_json({"type": "error", "code": "rate_limited", "message": message, "retry_after": wait})

    def frame(self, event: dict[str, Any]) -> str | None:
        """A roll's row for the feed, as this member sees it: None for a secret roll, to a player."""
        if not self.joined:
            return None
        return event["gm_frame"] if self.gm else event["player_frame"]

    async def roll_recorded(self, event: dict[str, Any]) -> None:
        frame = self.frame(event)
        if frame:
            await self.send(text_data=frame)

    async def roll_revealed(self, event: dict[str, Any]) -> None:
        # The same message as a new roll: the page puts it in its place by number, or swaps the row it has.
        await self.roll_recorded(event)

    async def party_changed(self, event: dict[str, Any]) -> None:
        if self.joined:
            await self.send_json({"type": "fragment", "id": event["id"], "html": event["html"]})

    async def encounter_changed(self, event: dict[str, Any]) -> None:
        if self.joined:
            await self.send_json({"type": "fragment", "id": event["id"], "html": event["html"]})

    async def table_changed(self, event: dict[str, Any]) -> None:
        # The table's new version only: each page fetches its own member's view (play.table).
        if self.joined:
            await self.send_json({"type": "table", "version": event["version"]})

    async def requests_changed(self, event: dict[str, Any]) -> None:
        if self.joined:
            await self.send_requests()

    async def send_requests(self) -> None:
        render = database_sync_to_async(live.requests_html)
        html = await render(self.campaign_id, self.scope["user"], gm=self.gm)
        await self.send_json({"type": "fragment", "id": "dashboard-requests", "html": html})

    async def session_ended(self, event: dict[str, Any]) -> None:
        session = self.scope.get("session")
        if self.joined and session is not None and session.session_key == event["session_key"]:
            await self.leave(code=LOGGED_OUT)

    async def membership_changed(self, event: dict[str, Any]) -> None:
        if not self.joined:
            return
        role = await self.role()
        if role is None:
            await self.leave(code=NOT_A_MEMBER)
        else:
            self.gm = role == Membership.Role.GM
