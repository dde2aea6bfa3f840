"""Guided creation with a system that has no creation pages of its own: the tests' Coin game.

The generic wizard (``characters.drafting``) takes a name, lets the server flip for Nerve (once),
fills the tricks through a form made from the sheet model and finishes the character through the
system's ``finish``; every save goes through the write path, made from the draft's version."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Character, SheetChange

pytestmark = pytest.mark.django_db


def step_url(character: Character, step: str) -> str:
    return reverse("characters:create-step", args=[character.pk, step])


@pytest.fixture
def draft(client, coin_campaign, player) -> Character:
    client.force_login(player)
    response = client.post(reverse("characters:create", args=[coin_campaign.pk]), {"name": "  Flip  "})
    character = Character.objects.get(campaign=coin_campaign, name="Flip")
    assert response.status_code == 302
    assert response.url == step_url(character, "nerve")
    return character


def tricks(version: int, *names: str, **more: str) -> dict[str, str]:
    data = {"version": str(version), "tricks-TOTAL_FORMS": str(len(names)), "tricks-INITIAL_FORMS": "0"}
    data |= {f"tricks-{i}-name": name for i, name in enumerate(names)}
    return data | {"notes": ""} | more


def test_the_start_page_asks_for_a_name_and_lists_the_steps(client, coin_campaign, player) -> None:
    client.force_login(player)
    page = client.get(reverse("characters:create", args=[coin_campaign.pk])).text
    assert "then nerve, tricks." in page
    assert 'name="concept"' not in page  # Coin's sheet has no concept
    refused = client.post(reverse("characters:create", args=[coin_campaign.pk]), {"name": "   "})
    assert refused.status_code == 400
    assert "Give the character a name." in refused.text
    assert not Character.objects.filter(campaign=coin_campaign).exists()


def test_a_draft_starts_as_the_systems_fresh_draft(draft, coin_campaign) -> None:
    assert draft.status == "draft"
    assert (draft.document.nerve, draft.document.luck, draft.document.step) == (None, 5, "nerve")
    assert SheetChange.objects.get(character=draft).what == "Started"


def test_the_server_flips_for_nerve_once(client, draft) -> None:
    page = client.get(step_url(draft, "nerve")).text
    assert '<button type="submit" class="button" name="action" value="roll">Roll</button>' in page
    # Tricks wait for the flip.
    assert client.get(step_url(draft, "tricks")).url == step_url(draft, "nerve")
    assert client.post(step_url(draft, "nerve"), {"version": str(draft.version), "action": "roll"}).status_code == 302
    draft.refresh_from_db()
    nerve = draft.document.nerve
    assert 1 <= nerve <= 3
    page = client.get(step_url(draft, "nerve")).text
    assert f"Rolled on the server: <strong>Nerve {nerve}</strong>." in page
    assert 'value="roll"' not in page  # no second flip is offered
    again = client.post(step_url(draft, "nerve"), {"version": str(draft.version), "action": "roll"})
    assert again.status_code == 302
    draft.refresh_from_db()
    assert draft.document.nerve == nerve  # and none is taken
    assert SheetChange.objects.filter(character=draft, what="Rolled at Nerve").count() == 1


def test_next_before_the_flip_says_what_is_missing(client, draft) -> None:
    response = client.post(step_url(draft, "nerve"), {"version": str(draft.version), "action": "next"})
    assert response.status_code == 400
    assert "Flip for Nerve first." in response.text


@pytest.fixture
def flipped(client, draft) -> Character:
    client.post(step_url(draft, "nerve"), {"version": str(draft.version), "action": "roll"})
    draft.refresh_from_db()
    return draft


def test_tricks_are_filled_in_and_the_character_finished(client, flipped, player) -> None:
    page = client.get(step_url(flipped, "tricks")).text
    assert 'name="tricks-0-name"' in page
    assert 'name="notes"' in page
    assert "Finish the character" in page
    response = client.post(step_url(flipped, "tricks"), tricks(flipped.version, "Palm", "Flick", "", notes="Ready"))
    assert response.status_code == 302
    assert response.url == reverse("characters:sheet", args=[flipped.pk])
    flipped.refresh_from_db()
    assert flipped.status == "active"
    assert [(t.id, t.name) for t in flipped.document.tricks] == [(1, "Palm"), (2, "Flick")]
    assert (flipped.document.notes, flipped.document.step) == ("Ready", "")
    assert [c.what for c in SheetChange.objects.filter(character=flipped).order_by("pk")][-2:] == ["Tricks", "Finished"]
    assert client.get(step_url(flipped, "tricks")).url == reverse("characters:sheet", args=[flipped.pk])


def test_a_refused_step_keeps_what_was_typed_with_the_message(client, flipped) -> None:
    version = flipped.version
    data = tricks(version, "Palm", "palm", "", notes="Mine")
    data["tricks-TOTAL_FORMS"] = "3"
    response = client.post(step_url(flipped, "tricks"), data)
    assert response.status_code == 400
    assert "Two tricks are called palm." in response.text
    assert 'value="Palm"' in response.text
    assert 'value="palm"' in response.text
    assert "Mine" in response.text
    too_many = client.post(step_url(flipped, "tricks"), tricks(version, "A", "B", "C", "D"))
    assert too_many.status_code == 400
    assert "A new character knows at most 3 tricks." in too_many.text
    flipped.refresh_from_db()
    assert (flipped.version, flipped.status, flipped.document.tricks) == (version, "draft", ())


def test_save_and_finish_later_keeps_the_draft(client, flipped) -> None:
    response = client.post(step_url(flipped, "tricks"), tricks(flipped.version, "Palm", action="later"))
    assert response.url == reverse("campaigns:detail", args=[flipped.campaign_id])
    flipped.refresh_from_db()
    assert flipped.status == "draft"
    assert [t.name for t in flipped.document.tricks] == ["Palm"]


def test_a_stale_step_is_refused_and_keeps_what_was_typed(client, flipped) -> None:
    version = flipped.version
    assert client.post(step_url(flipped, "tricks"), tricks(version, "Palm", action="later")).status_code == 302
    response = client.post(step_url(flipped, "tricks"), tricks(version, "Spin", action="later"))
    assert response.status_code == 409
    assert "saved somewhere else" in response.text
    assert 'value="Spin"' in response.text
    flipped.refresh_from_db()
    assert [t.name for t in flipped.document.tricks] == ["Palm"]


def test_a_form_without_a_version_saves_nothing(client, flipped) -> None:
    data = tricks(flipped.version, "Palm")
    del data["version"]
    response = client.post(step_url(flipped, "tricks"), data)
    assert response.status_code == 400
    assert "did not say which version" in response.text


def test_an_unknown_step_goes_to_where_the_draft_is(client, flipped) -> None:
    assert client.get(step_url(flipped, "abilities")).url == step_url(flipped, "tricks")
