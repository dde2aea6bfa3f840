"""A player deletes a draft they no longer want, after confirming; nothing else is ever deleted."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.errors import Conflict
from characters import campaign_changes, drafting
from characters.models import Character, SheetChange
from rules.dice import StepDie
from tests.characters.conftest import make_character
from tests.systems.lucky13 import drafts as creation

pytestmark = pytest.mark.django_db


@pytest.fixture
def draft(campaign, player) -> Character:
    character = creation.start_character(campaign=campaign, owner=player, name="Half-done Hilde")
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    creation.assign_abilities(
        character_id=character.pk, array="balanced", dice={k: StepDie.parse(v) for k, v in dice.items()}
    )
    return Character.objects.get(pk=character.pk)


def test_the_owner_confirms_and_the_draft_is_gone(client, player, draft, campaign) -> None:
    client.force_login(player)
    url = reverse("characters:delete-draft", args=[draft.pk])
    assert url in client.get(reverse("campaigns:detail", args=[campaign.pk])).text
    page = client.get(url)
    assert page.status_code == 200
    assert "Delete the draft Half-done Hilde?" in page.text
    assert Character.objects.filter(pk=draft.pk).exists()  # a GET changes nothing
    assert SheetChange.objects.filter(character=draft).count() == 2  # started, abilities
    response = client.post(url, follow=True)
    assert response.redirect_chain[-1][0] == reverse("campaigns:detail", args=[campaign.pk])
    assert "The draft Half-done Hilde is deleted." in response.text
    assert not Character.objects.filter(pk=draft.pk).exists()
    assert not SheetChange.objects.filter(character_id=draft.pk).exists()  # its history goes with it


@pytest.mark.parametrize(("who", "status"), [("gm", 403), ("other_player", 404), ("outsider", 404)])
def test_nobody_else_deletes_a_draft(client, request, draft, who, status) -> None:
    client.force_login(request.getfixturevalue(who))
    url = reverse("characters:delete-draft", args=[draft.pk])
    assert client.get(url).status_code == status
    assert client.post(url).status_code == status
    assert Character.objects.filter(pk=draft.pk).exists()


def test_a_finished_character_is_never_deleted(client, campaign, player) -> None:
    brunella = make_character(campaign, player)
    client.force_login(player)
    response = client.post(reverse("characters:delete-draft", args=[brunella.pk]))
    assert response.status_code == 302
    assert response["Location"] == reverse("characters:sheet", args=[brunella.pk])
    assert Character.objects.filter(pk=brunella.pk).exists()
    with pytest.raises(Conflict, match="already finished"):
        drafting.delete_draft(character_id=brunella.pk, by=player)


def test_the_creation_steps_offer_it_to_the_owner_only(client, player, gm, draft) -> None:
    url = reverse("characters:delete-draft", args=[draft.pk])
    client.force_login(player)
    assert url in client.get(reverse("characters:create-step", args=[draft.pk, "abilities"])).text
    client.force_login(gm)
    assert url not in client.get(reverse("characters:create-step", args=[draft.pk, "abilities"])).text


def test_a_removed_player_still_deletes_their_own_draft(client, gm, player, campaign, draft) -> None:

    member = campaign.memberships.get(user=player)
    campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member.pk, by=gm)
    client.force_login(player)
    url = reverse("characters:delete-draft", args=[draft.pk])
    page = client.get(url)
    assert page.status_code == 200
    assert reverse("campaigns:detail", args=[campaign.pk]) not in page.text  # not theirs to see any more
    assert reverse("characters:sheet", args=[draft.pk]) in page.text  # "Keep it"
    response = client.post(url)
    assert response["Location"] == reverse("campaigns:list")
    assert not Character.objects.filter(pk=draft.pk).exists()
    assert not SheetChange.objects.filter(character_id=draft.pk).exists()


def test_a_removed_players_finished_character_stays(client, gm, player, campaign) -> None:

    brunella = make_character(campaign, player)
    member = campaign.memberships.get(user=player)
    campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member.pk, by=gm)
    client.force_login(player)
    response = client.post(reverse("characters:delete-draft", args=[brunella.pk]))
    assert response["Location"] == reverse("characters:sheet", args=[brunella.pk])
    assert Character.objects.filter(pk=brunella.pk).exists()
    with pytest.raises(Conflict, match="already finished"):
        drafting.delete_draft(character_id=brunella.pk, by=player)


def test_the_confirmation_leads_back_to_the_step_the_draft_reached(client, player, draft) -> None:
    client.force_login(player)
    page = client.get(reverse("characters:delete-draft", args=[draft.pk])).text
    assert reverse("characters:create-step", args=[draft.pk, "skills"]) in page
