"""A player who leaves or is removed keeps reading their own character's sheet, and nothing else of the
party; their drafts, archived with them, stay theirs and the GM's. Every page, API read and socket
asks the one access rule (``characters.access.character_for``)."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters import campaign_changes
from characters.models import Character
from tests.api.conftest import api  # noqa: F401  (fixture)
from tests.campaigns.helpers import make_character
from tests.characters.conftest import FIGHTING
from tests.play.test_sheet_live import closed_as_not_a_member, communicator, following, run
from tests.systems.lucky13 import drafts as creation

pytestmark = pytest.mark.django_db


def removed(campaign, gm, player) -> None:
    member = campaign.memberships.get(user=player)
    campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member.pk, by=gm)


@pytest.mark.parametrize("page", ["play:sheet-roll", "lucky13:contest"])
def test_a_removed_player_reads_no_one_elses_dice_through_their_own_character(
    client, campaign, gm, player, other_player, page
) -> None:
    brunella = make_character(campaign, player, "Brunella")
    make_character(campaign, other_player, "Casimir")
    removed(campaign, gm, player)
    client.force_login(player)
    assert client.get(reverse("characters:sheet", args=[brunella.pk])).status_code == 200  # still theirs to read
    for query in ("", f"?skill={FIGHTING}", f"?skill={FIGHTING}&opponent_dice=d6"):
        response = client.get(reverse(page, args=[brunella.pk]) + query)
        assert response.status_code == 403
        assert "no longer in this campaign" in response.text
        assert "Casimir" not in response.text


def test_a_member_still_sees_their_archived_characters_table_pages(client, campaign, player, other_player) -> None:
    brunella = make_character(campaign, player, "Brunella", status="archived")
    make_character(campaign, other_player, "Casimir")
    client.force_login(player)
    assert client.get(reverse("play:sheet-roll", args=[brunella.pk])).status_code == 200


@pytest.mark.django_db(transaction=True)  # the socket reads the database from its own thread
def test_a_removed_players_former_draft_stays_theirs_and_the_gms(
    client,
    api,  # noqa: F811 (the fixture)
    campaign,
    gm,
    player,
    other_player,
) -> None:
    draft = creation.start_character(campaign=campaign, owner=player, name="Half-done Hilde")
    finished = make_character(campaign, player, "Brunella")
    removed(campaign, gm, player)
    assert set(Character.objects.values_list("status", flat=True)) == {"archived"}
    draft.refresh_from_db()
    sheet, history = (reverse(name, args=[draft.pk]) for name in ("characters:sheet", "characters:history"))

    client.force_login(other_player)
    for address in (sheet, history, reverse("characters:export", args=[draft.pk])):
        assert client.get(address).status_code == 404
    assert api(other_player).get(f"/api/v1/characters/{draft.pk}").status_code == 404
    assert client.get(reverse("characters:sheet", args=[finished.pk])).status_code == 200  # was in play: the party's
    for viewer in (gm, player):
        client.force_login(viewer)
        assert client.get(sheet).status_code == 200

    async def scenario() -> None:
        socket = await communicator(draft, other_player)
        connected, _ = await socket.connect()
        assert connected
        await closed_as_not_a_member(socket)
        await (await following(draft, gm)).disconnect()

    run(scenario)
