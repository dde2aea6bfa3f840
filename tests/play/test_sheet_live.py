"""The live sheet's socket on the in-memory channel layer, through the whole ASGI stack (session
cookie, Origin check, routing): who may follow a sheet (exactly who may open it), and that every
save through the one write path tells that character's open sheets its new version, and no others."""

from __future__ import annotations

from typing import Any

import pytest
from channels.db import database_sync_to_async
from django.test import Client
from django.urls import reverse

from campaigns import operations
from campaigns.models import Membership
from characters import campaign_changes, ledger, write
from characters.models import Character
from config.asgi import application
from play import table_rows
from play.consumers import LOGGED_OUT, NOT_A_MEMBER
from tests.campaigns.helpers import make_character
from tests.play.test_live import WebsocketCommunicator, cookie_for, run, wound

# The socket's queries run on other threads than the test's: the rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True)

HEADERS = [(b"origin", b"http://testserver"), (b"host", b"testserver")]


async def communicator(character: Character | int, user: Any = None, *, cookie: bytes = b"") -> WebsocketCommunicator:
    pk = character if isinstance(character, int) else character.pk
    headers = list(HEADERS)
    if user is not None:
        cookie = await database_sync_to_async(cookie_for)(user)
    if cookie:
        headers.append((b"cookie", cookie))
    return WebsocketCommunicator(application, f"/ws/characters/{pk}/", headers=headers)


async def following(character: Character, user: Any) -> WebsocketCommunicator:
    """A socket of ``user`` on the character's sheet, past the versions it is told on connecting."""
    socket = await communicator(character, user)
    connected, _ = await socket.connect()
    assert connected
    assert await socket.receive_json_from() == {"type": "sheet", "version": character.version}
    if character.rules.table is not None:  # and the version of the campaign's table, for a system that keeps one
        table = await database_sync_to_async(table_rows.version_of)(character.campaign_id)
        assert await socket.receive_json_from() == {"type": "table", "version": table}
    return socket


async def closed_as_not_a_member(socket: WebsocketCommunicator) -> None:
    assert await socket.receive_output(timeout=2) == {"type": "websocket.close", "code": NOT_A_MEMBER}


@pytest.mark.parametrize("who", ["owner", "gm", "other player"])
def test_a_member_hears_each_save_of_the_sheet_as_its_new_version(campaign, gm, player, other_player, who) -> None:
    brunella = make_character(campaign, player, "Brunella")
    viewer = {"owner": player, "gm": gm, "other player": other_player}[who]

    async def scenario() -> None:
        socket = await following(brunella, viewer)
        version = await database_sync_to_async(wound)(brunella, gm)
        assert version == brunella.version + 1
        assert await socket.receive_json_from(timeout=2) == {"type": "sheet", "version": version}
        assert await socket.receive_nothing(timeout=0.2)  # announced once
        await socket.disconnect()

    run(scenario)


def test_the_version_on_connecting_is_the_sheets_current_one(campaign, gm, player) -> None:
    # A page reconnecting after a save it missed learns of it at once.
    brunella = make_character(campaign, player, "Brunella")
    version = wound(brunella, gm)
    brunella.refresh_from_db()
    assert brunella.version == version

    async def scenario() -> None:
        socket = await following(brunella, player)
        await socket.disconnect()

    run(scenario)


def test_an_award_of_adventure_points_is_announced_too(campaign, gm, player, other_player) -> None:
    # Points change no sheet document, but the sheet shows them: the award is a new version.
    brunella = make_character(campaign, player, "Brunella")
    hobart = make_character(campaign, other_player, "Hobart")

    def award() -> None:
        awards = [ledger.Award(brunella.pk, 5), ledger.Award(hobart.pk, 3)]
        ledger.award(campaign_id=campaign.pk, awards=awards, reason="The sunken crown", by=gm)

    async def scenario() -> None:
        sockets = [await following(brunella, player), await following(hobart, player)]
        await database_sync_to_async(award)()
        for socket, character in zip(sockets, (brunella, hobart), strict=True):
            message = await socket.receive_json_from(timeout=2)
            assert message == {"type": "sheet", "version": character.version + 1}
            assert await socket.receive_nothing(timeout=0.2)
            await socket.disconnect()

    run(scenario)


def test_a_save_of_another_character_is_not_announced_here(campaign, gm, player, other_player) -> None:
    brunella = make_character(campaign, player, "Brunella")
    hobart = make_character(campaign, other_player, "Hobart")

    async def scenario() -> None:
        socket = await following(brunella, player)
        await database_sync_to_async(wound)(hobart, gm)
        assert await socket.receive_nothing(timeout=0.3)
        version = await database_sync_to_async(wound)(brunella, gm, 10)
        assert await socket.receive_json_from(timeout=2) == {"type": "sheet", "version": version}
        await socket.disconnect()

    run(scenario)


def test_a_refused_change_announces_nothing(campaign, gm, player) -> None:
    brunella = make_character(campaign, player, "Brunella")

    def stale() -> None:
        with pytest.raises(write.StaleSheet):
            write.change(brunella.pk, version=0, by=gm, what="Late", edit=lambda c: c.document)

    async def scenario() -> None:
        socket = await following(brunella, player)
        await database_sync_to_async(stale)()
        assert await socket.receive_nothing(timeout=0.3)
        await socket.disconnect()

    run(scenario)


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_an_outsider_or_anonymous_visitor_is_closed_with_a_code(campaign, gm, player, outsider, who) -> None:
    brunella = make_character(campaign, player, "Brunella")

    async def scenario() -> None:
        socket = await communicator(brunella, outsider if who == "outsider" else None)
        connected, _ = await socket.connect()
        assert connected  # accepted only to say why it closes
        await closed_as_not_a_member(socket)
        await database_sync_to_async(wound)(brunella, gm)
        assert await socket.receive_nothing(timeout=0.3)

    run(scenario)


def test_a_character_that_does_not_exist_is_closed_the_same_way(campaign, player) -> None:
    async def scenario() -> None:
        socket = await communicator(999_999, player)
        connected, _ = await socket.connect()
        assert connected
        await closed_as_not_a_member(socket)

    run(scenario)


@pytest.mark.parametrize(("who", "follows"), [("owner", True), ("gm", True), ("other player", False)])
def test_a_draft_is_followed_by_its_owner_and_the_gm_only(campaign, gm, player, other_player, who, follows) -> None:
    draft = make_character(campaign, player, "Work in progress", status=Character.Status.DRAFT)
    viewer = {"owner": player, "gm": gm, "other player": other_player}[who]

    async def scenario() -> None:
        if follows:
            await (await following(draft, viewer)).disconnect()
        else:
            socket = await communicator(draft, viewer)
            connected, _ = await socket.connect()
            assert connected
            await closed_as_not_a_member(socket)

    run(scenario)


def test_a_gm_who_hands_over_the_role_stops_following_a_players_draft(campaign, gm, player, other_player) -> None:
    draft = make_character(campaign, player, "Work in progress", status=Character.Status.DRAFT)
    other = Membership.objects.get(campaign=campaign, user=other_player).pk

    def hand_over() -> None:
        operations.hand_over_gm(campaign_id=campaign.pk, membership_id=other, by=gm)

    async def scenario() -> None:
        old_gm = await following(draft, gm)
        owner = await following(draft, player)
        await database_sync_to_async(hand_over)()
        await closed_as_not_a_member(old_gm)  # a player now, and the draft is not theirs
        assert await owner.receive_nothing(timeout=0.2)
        await owner.disconnect()

    run(scenario)


def test_the_owner_who_left_still_follows_their_sheet(campaign, gm, player) -> None:
    brunella = make_character(campaign, player, "Brunella")

    def leave() -> None:
        campaign_changes.leave_campaign(campaign_id=campaign.pk, user=player)

    async def scenario() -> None:
        open_before = await following(brunella, player)
        await database_sync_to_async(leave)()
        # Not closed: told the version of the sheet archived as they left, to fetch it again.
        archived = {"type": "sheet", "version": brunella.version + 1}
        assert await open_before.receive_json_from(timeout=2) == archived
        assert await open_before.receive_nothing(timeout=0.2)
        opened_after = await communicator(brunella, player)
        connected, _ = await opened_after.connect()
        assert connected
        assert await opened_after.receive_json_from() == archived
        for socket in (open_before, opened_after):
            await socket.disconnect()

    run(scenario)


def test_a_removed_player_is_closed_on_anothers_sheet_at_once(campaign, gm, player, other_player) -> None:
    hobart = make_character(campaign, other_player, "Hobart")
    member = Membership.objects.get(campaign=campaign, user=player).pk

    def remove() -> None:
        campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member, by=gm)

    async def scenario() -> None:
        removed = await following(hobart, player)
        stays = await following(hobart, other_player)
        await database_sync_to_async(remove)()
        await closed_as_not_a_member(removed)
        assert await stays.receive_nothing(timeout=0.2)
        version = await database_sync_to_async(wound)(hobart, gm)
        assert await removed.receive_nothing(timeout=0.3)
        assert await stays.receive_json_from(timeout=2) == {"type": "sheet", "version": version}
        await stays.disconnect()

    run(scenario)


def test_logging_out_closes_that_browsers_sheets(campaign, gm, player) -> None:
    brunella = make_character(campaign, player, "Brunella")
    shared = Client()
    shared.force_login(player)
    cookie = f"sessionid={shared.cookies['sessionid'].value}".encode()

    async def scenario() -> None:
        left_open = await communicator(brunella, cookie=cookie)
        connected, _ = await left_open.connect()
        assert connected
        assert (await left_open.receive_json_from())["type"] == "sheet"
        elsewhere = await following(brunella, player)  # another browser, another session

        await database_sync_to_async(shared.post)(reverse("logout"))
        assert await left_open.receive_output(timeout=2) == {"type": "websocket.close", "code": LOGGED_OUT}
        assert await elsewhere.receive_nothing(timeout=0.2)
        await elsewhere.disconnect()

    run(scenario)


def test_a_foreign_origin_is_refused(campaign, player) -> None:
    brunella = make_character(campaign, player, "Brunella")

    async def scenario() -> None:
        headers = [(b"origin", b"http://evil.example"), (b"host", b"testserver")]
        headers.append((b"cookie", await database_sync_to_async(cookie_for)(player)))
        socket = WebsocketCommunicator(application, f"/ws/characters/{brunella.pk}/", headers=headers)
        connected, _ = await socket.connect()
        assert not connected

    run(scenario)
