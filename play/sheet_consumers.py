"""The live sheet's socket: ``ws/characters/<pk>/``.

Whoever may open the sheet page may follow it, by the page's own check
(:func:`characters.access.character_for`): the campaign's members, the owner who left, a draft
only its owner and the GM. Anyone else is accepted and closed at once with
:data:`~play.consumers.NOT_A_MEMBER`, as on the dashboard, so that the page stops instead of
reconnecting. A viewer whose membership changes is looked at again (and closed if the sheet is no
longer theirs to see); logging out closes that browser's sheets with
:data:`~play.consumers.LOGGED_OUT`.

The server sends the sheet's version on connecting, after every save of the sheet and when the
viewer's membership changes: ``{"type": "sheet", "version": 7}``; and the campaign's table's version when
the table changes (what the sheet shows of it, a hand): ``{"type": "table", "version": 3}``. Neither
carries any part of the sheet or the table: a page whose regions are
older fetches the sheet page again, through the same access check as any reload, and swaps in
the regions it is not editing (``static/js/sheet-live.js``). The versions sent on connecting (the
table's too, for a system that keeps one) are read after joining the groups, so a reconnecting page
learns whether it missed a change, and no change after that is missed.
"""

from __future__ import annotations

from typing import Any

from channels.db import database_sync_to_async
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.http import Http404

from characters import access
from characters.models import Character
from play import live, table_rows
from play.consumers import LOGGED_OUT, NOT_A_MEMBER, GroupsConsumer


def visible(user: AbstractBaseUser | AnonymousUser | None, character_id: int) -> Character | None:
    """The character if ``user`` may open its sheet, else None (the page would be a 404)."""
    if user is None:
        return None
    try:
        return access.character_for(user, character_id)
    except Http404:
        return None


def table_version(character: Character) -> int | None:
    """The version of the table of the character's campaign, or None when its system keeps none."""
    return table_rows.version_of(character.campaign_id) if character.rules.table is not None else None


class SheetConsumer(GroupsConsumer):
    # joined: the character's group and the viewer's member group, once they may follow the sheet.

    async def look(self) -> Character | None:
        return await database_sync_to_async(visible)(self.scope.get("user"), self.character_id)

    async def connect(self) -> None:
        self.character_id = int(self.scope["url_route"]["kwargs"]["pk"])
        character = await self.look()
        if character is not None:
            user_id = self.scope["user"].pk
            groups = (live.sheet_group_name(self.character_id), live.member_group_name(character.campaign_id, user_id),
                      live.table_group_name(character.campaign_id))  # fmt: skip
            for group in groups:
                await self.join(group)
            # Now that every later save and membership change will be heard: may they still, and
            # which version is the sheet at (a page that shows an older one fetches it again)?
            character = await self.look()
        await self.accept()
        if character is None:
            await self.leave(code=NOT_A_MEMBER)
            return
        await self.send_json({"type": "sheet", "version": character.version})
        table = await database_sync_to_async(table_version)(character)
        if table is not None:
            await self.send_json({"type": "table", "version": table})

    async def receive_json(self, content: Any, **kwargs: Any) -> None:
        pass  # the page only listens

    async def sheet_changed(self, event: dict[str, Any]) -> None:
        if self.joined:
            await self.send_json({"type": "sheet", "version": event["version"]})

    async def table_changed(self, event: dict[str, Any]) -> None:
        # The campaign's table changed (a hand on it, shown on the sheet): its version only.
        if self.joined:
            await self.send_json({"type": "table", "version": event["version"]})

    async def membership_changed(self, event: dict[str, Any]) -> None:
        # Removed, left or no longer GM: the sheet may be out of sight now (an owner still sees their own).
        if not self.joined:
            return
        # (A player who leaves or is removed has their characters archived through the write path:
        # their own open sheet hears of the new version as of any save.)
        if await self.look() is None:
            await self.leave(code=NOT_A_MEMBER)

    async def session_ended(self, event: dict[str, Any]) -> None:
        session = self.scope.get("session")
        if self.joined and session is not None and session.session_key == event["session_key"]:
            await self.leave(code=LOGGED_OUT)
