"""The live dashboard's socket: ``ws/campaigns/<pk>/``.

Only the campaign's members join its group; anyone else is accepted and closed at once with
:data:`NOT_A_MEMBER`, so that the page can tell "not allowed" (stop) from a dropped connection
(reconnect). The server sends JSON, each message one fragment to swap in by its id:

- ``{"type": "roll", "seq": 12, "html": "<li id=\\"roll-12\\" …>"}``: a roll for the feed, new or
  just revealed by the GM (the page swaps a row it shows already, and puts a new one in place by number);
- ``{"type": "fragment", "id": "party-3", "html": "<li id=\\"party-3\\" …>"}``: a party row, or
  (``"id": "initiative"``) the running encounter's initiative order.

The page sends ``{"since": <last roll seq it shows>}`` on (re)connecting and gets the rolls it
missed, oldest first (with every revealed secret roll of the feed, in case it missed the reveal),
and the party's rows and the initiative order as they are now.
"""

from __future__ import annotations

from typing import Any, Final

from channels.db import database_sync_to_async
from channels.generic.websocket import AsyncJsonWebsocketConsumer

from campaigns import live
from campaigns.models import Campaign, Membership

#: The close code for an outsider or a logged-out visitor (4000–4999 are the application's own).
NOT_A_MEMBER: Final = 4403


def _catch_up(campaign_id: int, *, gm: bool, since: int) -> list[dict[str, Any]]:
    # The feed as it is now, from what the page lacks: the rolls after ``since``, and every revealed
    # secret roll in it, whose reveal the page may have missed (one it shows already is swapped in place).
    rolls = [roll for roll in live.feed_rolls(campaign_id, gm=gm) if roll.seq > since or roll.revealed_at]
    messages: list[dict[str, Any]] = [
        {"type": "roll", "seq": roll.seq, "html": live.roll_html(roll, gm=gm)} for roll in reversed(rolls)
    ]
    campaign = Campaign.objects.get(pk=campaign_id)
    for row in live.party(campaign):
        messages.append({"type": "fragment", "id": f"party-{row['character'].pk}", "html": live.party_row_html(row)})
    messages.append({"type": "fragment", "id": "initiative", "html": live.initiative_html(campaign)})
    return messages


class CampaignConsumer(AsyncJsonWebsocketConsumer):
    group: str | None = None
    gm: bool = False

    async def connect(self) -> None:
        self.campaign_id = int(self.scope["url_route"]["kwargs"]["pk"])
        role = await database_sync_to_async(live.role_of)(self.scope.get("user"), self.campaign_id)
        if role is None:
            await self.accept()
            await self.close(code=NOT_A_MEMBER)
            return
        self.gm = role == Membership.Role.GM
        self.group = live.group_name(self.campaign_id)
        # In the group before the page hears "open": nothing recorded after that is missed.
        await self.channel_layer.group_add(self.group, self.channel_name)
        await self.accept()

    async def disconnect(self, code: int) -> None:
        if self.group:
            await self.channel_layer.group_discard(self.group, self.channel_name)

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        since = content.get("since") if isinstance(content, dict) else None
        if self.group is None or not isinstance(since, int) or isinstance(since, bool) or since < 0:
            return
        for message in await database_sync_to_async(_catch_up)(self.campaign_id, gm=self.gm, since=since):
            await self.send_json(message)

    async def roll_recorded(self, event: dict[str, Any]) -> None:
        html = event["gm_html"] if self.gm else event["player_html"]
        if html:
            await self.send_json({"type": "roll", "seq": event["seq"], "html": html})

    async def roll_revealed(self, event: dict[str, Any]) -> None:
        # The same message as a new roll: the page puts it in its place by number, or swaps the row it has.
        await self.roll_recorded(event)

    async def party_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "fragment", "id": event["id"], "html": event["html"]})

    async def encounter_changed(self, event: dict[str, Any]) -> None:
        await self.send_json({"type": "fragment", "id": event["id"], "html": event["html"]})
