"""The dashboard's socket on the in-memory channel layer, through the whole ASGI stack
(session cookie, Origin check, routing): who may join, and what each member receives."""

from __future__ import annotations

import json
import random
from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from asgiref.sync import async_to_sync
from asgiref.testing import ApplicationCommunicator
from channels.db import database_sync_to_async
from django.test import Client

from campaigns import operations
from campaigns.models import Campaign, Membership
from campaigns.operations import Conflict, NotAllowed
from characters import campaign_changes, write
from config.asgi import application
from play import consumers, encounters, live, rolls
from play.consumers import CATCH_UP_REFUSALS, CATCH_UPS_PER_MINUTE, NOT_A_MEMBER, RATE_LIMITED
from play.models import Combatant
from rules.systems.base import Role
from tests import asgi_http
from tests.campaigns.helpers import make_character
from tests.play.npcs import npc
from web import asgi

# The socket's queries run on other threads than the test's: the rows must be committed.
pytestmark = pytest.mark.django_db(transaction=True)

Scenario = Callable[[], Awaitable[None]]


class WebsocketCommunicator(ApplicationCommunicator):
    """channels.testing.WebsocketCommunicator, whose package needs daphne (not a dependency here):
    a WebSocket scope and the few shortcuts these tests use, on asgiref's own communicator."""

    def __init__(self, app: Any, path: str, headers: list[tuple[bytes, bytes]]) -> None:
        scope = {"type": "websocket", "path": path, "query_string": b"", "headers": headers, "subprotocols": []}
        super().__init__(app, scope)

    async def connect(self, timeout: float = 1) -> tuple[bool, Any]:
        await self.send_input({"type": "websocket.connect"})
        response = await self.receive_output(timeout)
        return (response["type"] == "websocket.accept", response.get("code"))

    async def send_json_to(self, data: Any) -> None:
        await self.send_to(text_data=json.dumps(data))

    async def send_to(self, *, text_data: str) -> None:
        await self.send_input({"type": "websocket.receive", "text": text_data})

    async def receive_json_from(self, timeout: float = 1) -> Any:
        response = await self.receive_output(timeout)
        assert response["type"] == "websocket.send", response
        return json.loads(response["text"])

    async def disconnect(self, code: int = 1000, timeout: float = 1) -> None:
        await self.send_input({"type": "websocket.disconnect", "code": code})
        await self.wait(timeout)


#: How long a test waits for a catch-up's next message: long, because it returns as soon as it comes.
CATCH_UP_TIMEOUT = 30


def cookie_for(user: Any) -> bytes:
    client = Client()
    client.force_login(user)
    return f"sessionid={client.cookies['sessionid'].value}".encode()


async def communicator(
    campaign: Campaign, user: Any = None, *, origin: bytes = b"http://testserver"
) -> WebsocketCommunicator:
    headers = [(b"origin", origin), (b"host", b"testserver")]
    if user is not None:
        headers.append((b"cookie", await database_sync_to_async(cookie_for)(user)))
    return WebsocketCommunicator(application, f"/ws/campaigns/{campaign.pk}/", headers=headers)


def run(scenario: Scenario) -> None:
    async_to_sync(scenario)()


def free_roll(campaign: Campaign, by: Any, text: str = "2d6+1", *, secret: bool = False) -> int:
    import random

    roll = rolls.roll_free(
        campaign_id=campaign.pk, by=by, text=text, explode=False, secret=secret, rng=random.Random(13)
    )
    return roll.seq


async def joined(campaign: Campaign, user: Any) -> WebsocketCommunicator:
    socket = await communicator(campaign, user)
    connected, _ = await socket.connect()
    assert connected
    assert await socket.receive_nothing(timeout=0.1)  # a member is not closed
    return socket


async def caught_up(socket: WebsocketCommunicator) -> list[dict[str, Any]]:
    """What the server sends a page that asked to catch up, read until its last message (the initiative
    order, which always ends a catch-up), however long a loaded machine takes; then nothing more."""
    messages = [await socket.receive_json_from(timeout=CATCH_UP_TIMEOUT)]
    while messages[-1].get("id") != "initiative":
        messages.append(await socket.receive_json_from(timeout=CATCH_UP_TIMEOUT))
    assert await socket.receive_nothing(timeout=0.1)
    return messages


def test_a_member_joins_and_receives_each_roll_as_a_fragment(campaign, gm, player) -> None:
    async def scenario() -> None:
        socket = await joined(campaign, gm)
        seq = await database_sync_to_async(free_roll)(campaign, player)
        message = await socket.receive_json_from(timeout=2)
        assert message["type"] == "roll"
        assert message["seq"] == seq == 1
        assert message["html"].startswith('<li class="roll-entry" id="roll-1">')
        assert "<code>2d6+1</code>" in message["html"]
        assert "player" in message["html"]
        await socket.disconnect()

    run(scenario)


@pytest.mark.parametrize("who", ["outsider", "anonymous"])
def test_an_outsider_or_anonymous_visitor_is_closed_with_a_code(campaign, gm, outsider, who) -> None:
    async def scenario() -> None:
        socket = await communicator(campaign, outsider if who == "outsider" else None)
        connected, _ = await socket.connect()
        assert connected  # accepted only to say why it closes
        assert await socket.receive_output(timeout=1) == {"type": "websocket.close", "code": NOT_A_MEMBER}
        await database_sync_to_async(free_roll)(campaign, gm)
        assert await socket.receive_nothing(timeout=0.2)

    run(scenario)


def test_a_foreign_origin_is_refused(campaign, gm) -> None:
    async def scenario() -> None:
        socket = await communicator(campaign, gm, origin=b"http://evil.example")
        connected, _ = await socket.connect()
        assert not connected

    run(scenario)


def test_a_secret_roll_reaches_the_gm_only(campaign, gm, player) -> None:
    async def scenario() -> None:
        gm_socket = await joined(campaign, gm)
        player_socket = await joined(campaign, player)
        await database_sync_to_async(free_roll)(campaign, gm, "d20", secret=True)
        message = await gm_socket.receive_json_from(timeout=2)
        assert message["seq"] == 1
        assert "Secret" in message["html"]
        assert "<code>d20</code>" in message["html"]
        assert "Reveal" not in message["html"]  # revealing is done from the roll log
        assert await player_socket.receive_nothing(timeout=0.3)

        await database_sync_to_async(free_roll)(campaign, gm, "d6")  # an open roll reaches both
        assert (await gm_socket.receive_json_from(timeout=2))["seq"] == 2
        assert (await player_socket.receive_json_from(timeout=2))["seq"] == 2
        await gm_socket.disconnect()
        await player_socket.disconnect()

    run(scenario)


def save(character: Any, by: Any, section: str, value: dict[str, Any], role: Role = Role.GM) -> int:
    """A save of one section of the sheet, through the one write path every sheet change takes; the
    character's new version."""
    fresh = type(character).objects.get(pk=character.pk)
    return write.change(
        character.pk,
        version=write.section_version(fresh, section),
        section=section,
        by=by,
        what=f"The {section}",
        edit=lambda c: c.rules.edit(c.document, section, value, role=role, options=c.campaign.settings),
    ).version


def wound(character: Any, by: Any, hit_points: int = 12) -> int:
    """The GM's edit of the hit points, as on the sheet page; the character's new version."""
    return save(character, by, "hit-points", {"hit_points": hit_points})


def test_a_hit_point_change_reaches_every_member_as_the_party_row(campaign, gm, player) -> None:
    brunella = make_character(campaign, player, "Brunella")

    async def scenario() -> None:
        socket = await joined(campaign, player)
        await database_sync_to_async(wound)(brunella, gm, -1)
        message = await socket.receive_json_from(timeout=2)
        assert message["type"] == "fragment"
        assert message["id"] == f"party-{brunella.pk}"
        assert message["html"].startswith(f'<li class="party-member" id="party-{brunella.pk}">')
        assert "-1 of 30" in message["html"]
        assert "Dying" in message["html"]
        await socket.disconnect()

    run(scenario)


async def until_initiative(socket: WebsocketCommunicator) -> tuple[list[str], dict[str, Any]]:
    """The ids of the fragments before the initiative order, and the order."""
    before = []
    message = await socket.receive_json_from(timeout=2)
    while message.get("id") != "initiative":
        before.append(message.get("id"))
        message = await socket.receive_json_from(timeout=2)
    return before, message


def test_a_combatants_sheet_saved_outside_the_encounter_reaches_its_listeners(campaign, gm, player) -> None:
    """The GM changes Brunella's hit points on her sheet, and she saves her notes, mid-fight: every
    member's order (and an open encounter page, which fetches its body on hearing it) shows it."""
    brunella = make_character(campaign, player, "Brunella")
    goblin = npc("Goblin", 2, 1, 1, 1, 0, 1)
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk])
    encounters.add_npcs(**ids, by=gm, **goblin)

    async def scenario() -> None:
        sockets = [await joined(campaign, gm), await joined(campaign, player)]
        await database_sync_to_async(wound)(brunella, gm, 4)
        for socket in sockets:
            before, order = await until_initiative(socket)
            assert before == [f"party-{brunella.pk}"]
            assert order["type"] == "fragment"
            assert "Brunella" in order["html"]
            assert "4 of 30" in order["html"]
            assert await socket.receive_nothing(timeout=0.1)
        notes = {"notes": "Owes the ferryman."}
        await database_sync_to_async(save)(brunella, player, "notes", notes, Role.OWNER)
        for socket in sockets:
            _, order = await until_initiative(socket)
            assert "4 of 30" in order["html"]
            assert await socket.receive_nothing(timeout=0.1)
            await socket.disconnect()

    run(scenario)


def test_a_sheet_saved_outside_a_running_encounter_leaves_the_order_alone(campaign, gm, player) -> None:
    """Out of the fight (taken out, or the encounter over), a sheet's save is the party row's only."""
    brunella = make_character(campaign, player, "Brunella")
    taken_out = make_character(campaign, player, "Nell")
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk, taken_out.pk])
    nell = Combatant.objects.get(character=taken_out)
    encounters.remove_combatant(**ids, by=gm, combatant_id=nell.pk)
    encounters.end_encounter(**ids, by=gm)
    encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Another")

    async def scenario() -> None:
        socket = await joined(campaign, gm)
        for character in (brunella, taken_out):
            await database_sync_to_async(wound)(character, gm, 4)
            message = await socket.receive_json_from(timeout=2)
            assert message["id"] == f"party-{character.pk}"
            assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()

    run(scenario)


def test_each_encounter_change_reaches_every_member_as_the_initiative_order(campaign, gm, player) -> None:
    brunella = make_character(campaign, player, "Brunella")
    goblin = npc("Goblin", 2, 1, 1, 1, 0, 1)
    state: dict[str, int] = {}

    def start() -> None:
        state["encounter_id"] = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush").pk

    def join() -> None:
        ids = {"campaign_id": campaign.pk, "encounter_id": state["encounter_id"]}
        encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk])

    def add_goblin() -> None:
        ids = {"campaign_id": campaign.pk, "encounter_id": state["encounter_id"]}
        encounters.add_npcs(**ids, by=gm, **goblin)

    def initiative() -> None:
        ids = {"campaign_id": campaign.pk, "encounter_id": state["encounter_id"]}
        encounters.roll_initiative(**ids, by=gm, rng=random.Random(4))

    def next_turn() -> None:
        encounters.next_turn(campaign_id=campaign.pk, encounter_id=state["encounter_id"], by=gm)

    def end() -> None:
        encounters.end_encounter(campaign_id=campaign.pk, encounter_id=state["encounter_id"], by=gm)

    async def scenario() -> None:
        sockets = [await joined(campaign, gm), await joined(campaign, player)]

        async def region_after(change: Callable[[], None]) -> str:
            await database_sync_to_async(change)()
            htmls = []
            for socket in sockets:
                message = await socket.receive_json_from(timeout=2)
                while message["type"] == "roll":  # the initiative rolls reach the feed first
                    message = await socket.receive_json_from(timeout=2)
                assert message["type"] == "fragment"
                assert message["id"] == "initiative"
                assert message["html"].startswith('<section class="campaign-section" id="initiative"')
                htmls.append(message["html"])
            assert htmls[0] == htmls[1]  # the same order for the GM and the players
            return htmls[0]

        assert "Initiative not rolled yet" in await region_after(start)
        assert "Nobody has joined yet." not in await region_after(join)
        assert "Goblin" in await region_after(add_goblin)
        rolled = await region_after(initiative)
        assert "Round 1 · " in rolled
        assert rolled.count('aria-current="true"') == 1
        turned = await region_after(next_turn)
        assert turned != rolled
        assert turned.count('aria-current="true"') == 1
        assert "No encounter running." in await region_after(end)
        for socket in sockets:
            assert await socket.receive_nothing(timeout=0.1)
            await socket.disconnect()

    run(scenario)


def test_a_refused_encounter_change_announces_nothing(campaign, gm, player) -> None:
    def refused() -> None:
        with pytest.raises(encounters.Refused):
            encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="   ")

    async def scenario() -> None:
        socket = await joined(campaign, player)
        await database_sync_to_async(refused)()
        assert await socket.receive_nothing(timeout=0.3)
        await socket.disconnect()

    run(scenario)


def test_on_reconnecting_the_page_gets_what_it_missed(campaign, gm, player) -> None:
    brunella = make_character(campaign, player, "Brunella")
    for text in ["d4", "d6", "d8"]:
        free_roll(campaign, player, text)
    free_roll(campaign, gm, "d20", secret=True)

    async def catch_up(user: Any) -> list[dict[str, Any]]:
        socket = await joined(campaign, user)
        await socket.send_json_to({"since": 1})
        messages = await caught_up(socket)
        await socket.disconnect()
        return messages

    async def scenario() -> None:
        for_player = await catch_up(player)
        assert [(m["type"], m.get("seq")) for m in for_player] == [
            ("roll", 2),
            ("roll", 3),
            ("fragment", None),
            ("fragment", None),
            ("fragment", None),
        ]
        assert [m["id"] for m in for_player[2:]] == [f"party-{brunella.pk}", "dashboard-requests", "initiative"]
        assert "No encounter running." in for_player[-1]["html"]
        for_gm = await catch_up(gm)
        assert [m.get("seq") for m in for_gm] == [2, 3, 4, None, None, None]

    run(scenario)


def test_on_reconnecting_the_page_gets_a_page_of_the_party_not_the_whole_of_it(campaign, gm, player) -> None:
    # The first page's rows, however large the party: a page swaps only the rows it shows.
    for i in range(live.PARTY_PAGE_SIZE + 6):
        make_character(campaign, player, f"Hero {i:02}")
    first_page = [f"party-{pk}" for pk in campaign.characters.order_by("name", "pk").values_list("pk", flat=True)]
    first_page = first_page[: live.PARTY_PAGE_SIZE]

    async def scenario() -> None:
        socket = await joined(campaign, player)
        await socket.send_json_to({"since": 0})
        messages = await caught_up(socket)
        await socket.disconnect()
        assert [m["id"] for m in messages] == [*first_page, "dashboard-requests", "initiative"]

    run(scenario)


def test_a_later_page_of_the_party_gets_its_own_rows_on_reconnecting(campaign, gm, player) -> None:
    for i in range(live.PARTY_PAGE_SIZE + 6):
        make_character(campaign, player, f"Hero {i:02}")
    ordered = list(campaign.characters.order_by("name", "pk").values_list("pk", "name"))
    last_pk, last_name = ordered[live.PARTY_PAGE_SIZE - 1]
    second_page = [f"party-{pk}" for pk, _ in ordered[live.PARTY_PAGE_SIZE :]]

    async def sent(after: str) -> list[str]:
        socket = await joined(campaign, player)
        await socket.send_json_to({"since": 0, "after": after})
        messages = await caught_up(socket)
        await socket.disconnect()
        return [m["id"] for m in messages]

    async def scenario() -> None:
        assert await sent(f"{last_pk}:{last_name}") == [*second_page, "dashboard-requests", "initiative"]
        # A key no page could send is read as none: the first page's rows.
        assert (await sent("²:x"))[0] == f"party-{ordered[0][0]}"

    run(scenario)


@pytest.mark.parametrize(
    "content", [{"since": "1"}, {"since": -1}, {"since": True}, [1], {"other": 1}, {"since": 10**30}]
)
def test_a_malformed_request_is_ignored(campaign, player, content) -> None:
    free_roll(campaign, player)

    async def scenario() -> None:
        socket = await joined(campaign, player)
        await socket.send_to(text_data=json.dumps(content))
        assert await socket.receive_nothing(timeout=0.2)
        await socket.disconnect()

    run(scenario)


def reveal(campaign: Campaign, gm: Any, seq: int) -> None:
    rolls.reveal_roll(campaign_id=campaign.pk, seq=seq, by=gm)


def test_a_revealed_roll_reaches_the_players_and_updates_the_gms_row(campaign, gm, player, other_player) -> None:
    async def scenario() -> None:
        gm_socket = await joined(campaign, gm)
        player_sockets = [await joined(campaign, player), await joined(campaign, other_player)]
        await database_sync_to_async(free_roll)(campaign, gm, "d20", secret=True)
        secret = await gm_socket.receive_json_from(timeout=2)
        assert '<span class="badge">Secret</span>' in secret["html"]
        for socket in player_sockets:
            assert await socket.receive_nothing(timeout=0.2)

        await database_sync_to_async(reveal)(campaign, gm, 1)
        revealed = await gm_socket.receive_json_from(timeout=2)
        assert (revealed["type"], revealed["seq"]) == ("roll", 1)
        assert revealed["html"].startswith('<li class="roll-entry secret" id="roll-1">')
        assert "Secret, revealed" in revealed["html"]
        assert "Reveal" not in revealed["html"].replace("Secret, revealed", "")
        for socket in player_sockets:
            message = await socket.receive_json_from(timeout=2)
            assert (message["type"], message["seq"]) == ("roll", 1)
            assert "Secret, revealed" in message["html"]
            assert "<code>d20</code>" in message["html"]  # the whole roll, no longer a placeholder
            assert "A secret roll by the GM" not in message["html"]
        for socket in [gm_socket, *player_sockets]:
            assert await socket.receive_nothing(timeout=0.1)  # announced once
            await socket.disconnect()

    run(scenario)


def test_revealing_from_the_roll_log_page_pushes_the_roll(campaign, gm, player) -> None:
    free_roll(campaign, gm, "d8", secret=True)

    def reveal_through_the_page() -> int:
        client = Client()
        client.force_login(gm)
        return client.post(f"/campaigns/{campaign.pk}/rolls/1/reveal/", HTTP_HX_REQUEST="true").status_code

    async def scenario() -> None:
        socket = await joined(campaign, player)
        assert await database_sync_to_async(reveal_through_the_page)() == 200
        message = await socket.receive_json_from(timeout=2)
        assert message["seq"] == 1
        assert "<code>d8</code>" in message["html"]
        await socket.disconnect()

    run(scenario)


def test_a_refused_reveal_announces_nothing(campaign, gm, player) -> None:
    free_roll(campaign, gm, "d6")  # an open roll: there is nothing to reveal

    def refused() -> None:
        with pytest.raises(Conflict):
            reveal(campaign, gm, 1)

    async def scenario() -> None:
        sockets = [await joined(campaign, gm), await joined(campaign, player)]
        await database_sync_to_async(refused)()
        for socket in sockets:
            assert await socket.receive_nothing(timeout=0.3)
            await socket.disconnect()

    run(scenario)


def test_on_reconnecting_the_page_gets_a_reveal_it_missed(campaign, gm, player) -> None:
    free_roll(campaign, gm, "d20", secret=True)
    free_roll(campaign, player, "d4")
    free_roll(campaign, gm, "d10", secret=True)  # still secret: players never get it
    reveal(campaign, gm, 1)  # while the player's page was offline, showing roll 2 only

    async def scenario() -> None:
        socket = await joined(campaign, player)
        await socket.send_json_to({"since": 2})
        messages = await caught_up(socket)
        await socket.disconnect()
        assert [(m["type"], m.get("seq", m.get("id"))) for m in messages] == [
            ("roll", 1),
            ("fragment", "dashboard-requests"),
            ("fragment", "initiative"),
        ]
        assert "<code>d20</code>" in messages[0]["html"]
        assert "Secret, revealed" in messages[0]["html"]

    run(scenario)


# --- Membership ends: the socket closes at once --------------------------------------------------


def membership_of(campaign: Campaign, user: Any) -> int:
    return Membership.objects.get(campaign=campaign, user=user).pk


async def closed_as_not_a_member(socket: WebsocketCommunicator) -> None:
    assert await socket.receive_output(timeout=2) == {"type": "websocket.close", "code": NOT_A_MEMBER}


def test_a_removed_player_is_closed_at_once_and_gets_nothing_more(campaign, gm, player, other_player) -> None:
    member = membership_of(campaign, player)

    def remove() -> None:
        campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member, by=gm)

    async def scenario() -> None:
        tabs = [await joined(campaign, player), await joined(campaign, player)]  # two tabs, both closed
        others = [await joined(campaign, gm), await joined(campaign, other_player)]
        await database_sync_to_async(remove)()
        for tab in tabs:
            await closed_as_not_a_member(tab)
        for socket in others:
            assert await socket.receive_nothing(timeout=0.2)  # still open, and told nothing

        await database_sync_to_async(free_roll)(campaign, gm, "d6")
        for tab in tabs:
            assert await tab.receive_nothing(timeout=0.3)
        for socket in others:
            assert (await socket.receive_json_from(timeout=2))["seq"] == 1
            await socket.disconnect()

    run(scenario)


def test_removing_through_the_page_closes_the_socket(campaign, gm, player) -> None:
    member = membership_of(campaign, player)

    def remove_through_the_page() -> int:
        client = Client()
        client.force_login(gm)
        return client.post(f"/campaigns/{campaign.pk}/members/{member}/remove/").status_code

    async def scenario() -> None:
        socket = await joined(campaign, player)
        assert await database_sync_to_async(remove_through_the_page)() == 302
        await closed_as_not_a_member(socket)

    run(scenario)


def test_a_player_who_leaves_is_closed_too(campaign, gm, player) -> None:
    def leave() -> None:
        campaign_changes.leave_campaign(campaign_id=campaign.pk, user=player)

    async def scenario() -> None:
        socket = await joined(campaign, player)
        await database_sync_to_async(leave)()
        await closed_as_not_a_member(socket)
        await database_sync_to_async(free_roll)(campaign, gm, "d6")
        assert await socket.receive_nothing(timeout=0.3)

    run(scenario)


def test_a_membership_in_another_campaign_is_not_this_sockets_business(campaign, gm, player) -> None:
    elsewhere = Campaign.objects.create(name="Elsewhere", system="lucky13")
    Membership.objects.create(campaign=elsewhere, user=gm, role=Membership.Role.GM)
    other = Membership.objects.create(campaign=elsewhere, user=player, role=Membership.Role.PLAYER)

    def remove_elsewhere() -> None:
        campaign_changes.remove_member(campaign_id=elsewhere.pk, membership_id=other.pk, by=gm)

    async def scenario() -> None:
        socket = await joined(campaign, player)
        await database_sync_to_async(remove_elsewhere)()
        assert await socket.receive_nothing(timeout=0.3)
        await database_sync_to_async(free_roll)(campaign, gm, "d6")
        assert (await socket.receive_json_from(timeout=2))["seq"] == 1
        await socket.disconnect()

    run(scenario)


def test_a_refused_removal_closes_nothing(campaign, gm, player) -> None:
    def refused() -> None:
        with pytest.raises(NotAllowed):
            campaign_changes.remove_member(
                campaign_id=campaign.pk, membership_id=membership_of(campaign, gm), by=player
            )

    async def scenario() -> None:
        sockets = [await joined(campaign, gm), await joined(campaign, player)]
        await database_sync_to_async(refused)()
        for socket in sockets:
            assert await socket.receive_nothing(timeout=0.3)
            await socket.disconnect()

    run(scenario)


def test_a_handed_over_gm_role_changes_what_each_socket_gets(campaign, gm, player) -> None:
    def hand_over() -> None:
        operations.hand_over_gm(campaign_id=campaign.pk, membership_id=membership_of(campaign, player), by=gm)

    async def scenario() -> None:
        old_gm, new_gm = await joined(campaign, gm), await joined(campaign, player)
        await database_sync_to_async(hand_over)()
        for socket in (old_gm, new_gm):
            assert await socket.receive_nothing(timeout=0.3)  # both stay open
        await database_sync_to_async(free_roll)(campaign, player, "d20", secret=True)
        message = await new_gm.receive_json_from(timeout=2)
        assert (message["seq"], "Secret" in message["html"]) == (1, True)
        assert await old_gm.receive_nothing(timeout=0.3)  # a player now: no secret rolls
        await old_gm.disconnect()
        await new_gm.disconnect()

    run(scenario)


def test_a_removal_just_before_joining_the_group_is_not_missed(campaign, gm, player, monkeypatch) -> None:
    """The membership is gone by the time the socket joins its groups, but the first look still
    saw it (the removal committed in between, and its announcement reached no group yet)."""
    Membership.objects.filter(campaign=campaign, user=player).delete()
    looks: list[str | None] = []
    real_role_of = live.role_of

    def stale_then_true(user: Any, campaign_id: int) -> str | None:
        looks.append(real_role_of(user, campaign_id))
        return Membership.Role.PLAYER if len(looks) == 1 else looks[-1]

    monkeypatch.setattr(live, "role_of", stale_then_true)

    async def scenario() -> None:
        socket = await communicator(campaign, player)
        connected, _ = await socket.connect()
        assert connected
        await closed_as_not_a_member(socket)
        await database_sync_to_async(free_roll)(campaign, gm, "d6")
        assert await socket.receive_nothing(timeout=0.3)

    run(scenario)
    assert looks == [None, None]


def test_the_gms_move_in_the_initiative_order_reaches_every_dashboard(campaign, gm, player) -> None:
    goblin = npc("Goblin", 2, 1, 1, 1, 0, 1)
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    encounters.add_npcs(**ids, by=gm, **goblin, count=2)
    encounters.roll_initiative(**ids, by=gm, rng=random.Random(4), group_rolls=False)
    last = encounter.combatants.order_by("-order").first()

    def move() -> None:
        encounters.move_in_order(**ids, by=gm, combatant_id=last.pk, direction="up")

    async def scenario() -> None:
        sockets = [await joined(campaign, gm), await joined(campaign, player)]
        await database_sync_to_async(move)()
        for socket in sockets:
            logged = await socket.receive_json_from(timeout=2)
            assert logged["type"] == "roll"
            assert f"The GM moved {last.name} up the initiative order" in logged["html"]
            region = await socket.receive_json_from(timeout=2)
            assert (region["type"], region["id"]) == ("fragment", "initiative")
            assert region["html"].index(last.name) < region["html"].index(
                "Goblin 1" if last.name == "Goblin 2" else "Goblin 2"
            )
            await socket.disconnect()

    run(scenario)


def test_a_removal_reaches_every_feed_and_order(campaign, gm, player) -> None:
    goblin = npc("Goblin", 2, 1, 1, 1, 0, 1)
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    first, _ = encounters.add_npcs(**ids, by=gm, **goblin, count=2)

    def remove() -> None:
        encounters.remove_combatant(**ids, by=gm, combatant_id=first.pk, reason="fled")

    async def scenario() -> None:
        sockets = [await joined(campaign, gm), await joined(campaign, player)]
        await database_sync_to_async(remove)()
        for socket in sockets:
            logged = await socket.receive_json_from(timeout=2)
            assert "The GM took Goblin 1 out of the fight (fled), at 10 hit points." in logged["html"]
            region = await socket.receive_json_from(timeout=2)
            assert region["id"] == "initiative"
            assert "Goblin 1" not in region["html"]
            assert "Goblin 2" in region["html"]
            await socket.disconnect()

    run(scenario)


def test_logging_out_closes_that_browsers_dashboards_only(campaign, gm) -> None:
    """The GM logs out on a shared computer: that browser's dashboard stops at once (no more secret
    rolls reach it), while the GM's dashboard in another browser goes on."""
    from django.urls import reverse

    from play.consumers import LOGGED_OUT

    shared = Client()
    shared.force_login(gm)
    cookie = f"sessionid={shared.cookies['sessionid'].value}".encode()

    async def scenario() -> None:
        headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie)]
        left_open = WebsocketCommunicator(application, f"/ws/campaigns/{campaign.pk}/", headers=headers)
        connected, _ = await left_open.connect()
        assert connected
        assert await left_open.receive_nothing(timeout=0.1)
        elsewhere = await joined(campaign, gm)  # another browser, another session

        await database_sync_to_async(shared.post)(reverse("logout"))
        assert await left_open.receive_output(timeout=2) == {"type": "websocket.close", "code": LOGGED_OUT}
        assert await elsewhere.receive_nothing(timeout=0.2)

        await database_sync_to_async(free_roll)(campaign, gm, "d20", secret=True)
        assert await left_open.receive_nothing(timeout=0.3)
        assert (await elsewhere.receive_json_from(timeout=2))["seq"] == 1
        await elsewhere.disconnect()

    run(scenario)


def test_a_socket_ended_by_an_error_leaves_its_groups(campaign, gm, player, monkeypatch) -> None:
    """A handler that fails ends the socket without its disconnect: it leaves its groups all the
    same, so that no event of the campaign is sent to a channel no one reads any more."""
    from channels.layers import get_channel_layer

    def fails(*args: Any, **kwargs: Any) -> None:
        raise RuntimeError("the database went away")

    monkeypatch.setattr(live, "feed_rolls", fails)
    layer = get_channel_layer()
    groups = (live.group_name(campaign.pk), live.member_group_name(campaign.pk, gm.pk))

    async def scenario() -> None:
        socket = await joined(campaign, gm)
        staying = await joined(campaign, player)
        assert all(layer.groups.get(group) for group in groups)

        await socket.send_json_to({"since": 0})  # the catch-up reads the feed, and fails
        with pytest.raises(RuntimeError, match="the database went away"):
            await socket.wait(timeout=CATCH_UP_TIMEOUT)  # the socket's end: no waiting out a timeout
        assert socket.output_queue.empty()  # having sent nothing
        assert not layer.groups.get(live.member_group_name(campaign.pk, gm.pk))
        assert len(layer.groups[live.group_name(campaign.pk)]) == 1  # the player's socket, still open

        await database_sync_to_async(free_roll)(campaign, player, "d6")
        assert (await staying.receive_json_from(timeout=2))["seq"] == 1
        await staying.disconnect()
        assert not layer.groups.get(live.group_name(campaign.pk))

    run(scenario)


# --- Catch-ups are bounded per socket ----------------------------------------------------------------


class Clock:
    """The consumers' monotonic clock, moved by the test."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_a_socket_catches_up_a_few_times_a_minute_then_is_refused_then_closed(campaign, player, monkeypatch) -> None:
    free_roll(campaign, player)
    clock = Clock()
    monkeypatch.setattr(consumers, "monotonic", clock)
    read = []
    feed_rolls = live.feed_rolls
    monkeypatch.setattr(live, "feed_rolls", lambda *args, **kwargs: read.append(1) or feed_rolls(*args, **kwargs))

    async def scenario() -> None:
        socket = await joined(campaign, player)
        for _ in range(CATCH_UPS_PER_MINUTE):
            await socket.send_json_to({"since": 0})
            assert (await caught_up(socket))[0]["seq"] == 1
        clock.now += 15
        await socket.send_json_to({"since": 0})
        refused = await socket.receive_json_from(timeout=CATCH_UP_TIMEOUT)
        assert refused == {
            "type": "error",
            "code": "rate_limited",
            "message": "Too many catch-ups on this connection: wait 45 seconds, or reload the page.",
            "retry_after": 45,
        }
        assert await socket.receive_nothing(timeout=0.1)
        assert len(read) == CATCH_UPS_PER_MINUTE  # the refused one read nothing

        clock.now += 45  # a minute after the first six: six more may catch up
        for _ in range(CATCH_UPS_PER_MINUTE):
            await socket.send_json_to({"since": 0})
            assert (await caught_up(socket))[0]["seq"] == 1
        for _ in range(CATCH_UP_REFUSALS - 1):  # one was refused already
            await socket.send_json_to({"since": 0})
            assert (await socket.receive_json_from(timeout=CATCH_UP_TIMEOUT))["code"] == "rate_limited"
        await socket.send_json_to({"since": 0})  # one too many refused: closed
        assert await socket.receive_output(timeout=CATCH_UP_TIMEOUT) == {
            "type": "websocket.close",
            "code": RATE_LIMITED,
        }
        assert len(read) == 2 * CATCH_UPS_PER_MINUTE

    run(scenario)


def test_each_socket_has_its_own_catch_ups(campaign, player, monkeypatch) -> None:
    # A page that reconnects gets a new socket, and catches up on it however often the last one did.
    monkeypatch.setattr(consumers, "monotonic", Clock())

    async def scenario() -> None:
        first = await joined(campaign, player)
        for _ in range(CATCH_UPS_PER_MINUTE):
            await first.send_json_to({"since": 0})
            await caught_up(first)
        await first.send_json_to({"since": 0})
        assert (await first.receive_json_from(timeout=CATCH_UP_TIMEOUT))["code"] == "rate_limited"
        await first.disconnect()
        second = await joined(campaign, player)
        await second.send_json_to({"since": 0})
        assert (await caught_up(second))[-1]["id"] == "initiative"
        await second.disconnect()

    run(scenario)


async def post_through_the_server(path: str, user: Any, data: bytes) -> tuple[int, str]:
    """A POST of ``data`` (form-encoded) as ``user`` through the server's whole ASGI application, as uvicorn
    sends it: its status, and the body."""
    secret = "k" * 32  # the browser's CSRF secret, sent as its cookie and, unmasked, as the header
    cookie = await database_sync_to_async(cookie_for)(user) + f"; csrftoken={secret}".encode()
    headers = [
        (b"cookie", cookie), (b"x-csrftoken", secret.encode()),
        (b"content-type", b"application/x-www-form-urlencoded"), (b"content-length", str(len(data)).encode()),
    ]  # fmt: skip
    answer = await asgi_http.request(application, path, method="POST", headers=headers, body=data)
    return answer.status, answer.body.decode()


def test_a_roll_posted_to_the_server_reaches_the_sockets_without_the_request_waiting(
    campaign, gm, player, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The server's handler leaves the announcement to the event loop (``web.asgi.leave_to_loop``): the
    roll's page is answered, and the party's sockets hear the roll."""
    left: list[bool] = []
    leave = asgi.leave_to_loop
    monkeypatch.setattr(asgi, "leave_to_loop", lambda call: left.append(leave(call)) or left[-1])

    async def scenario() -> None:
        socket = await joined(campaign, gm)
        status, _ = await post_through_the_server(f"/campaigns/{campaign.pk}/rolls/free/", player, b"expression=2d6")
        assert status == 302  # no htmx: to the roll log
        message = await socket.receive_json_from(timeout=5)
        assert message["type"] == "roll"
        assert message["seq"] == 1
        assert "<code>2d6</code>" in message["html"]
        assert await socket.receive_nothing(timeout=0.1)
        await socket.disconnect()

    run(scenario)
    assert left == [True]  # left to the loop, not sent from the request's thread
