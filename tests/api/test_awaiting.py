"""What waits for the GM, through the API: a character's read lists its sheet's waiting items (a
player's new gear) by key, and the GM approves or refuses each with ``POST /characters/{id}/awaiting``,
through the same operation as the campaign page's buttons: the same sheet afterwards, the same entry in
its history. Anyone but the GM, a decision already taken and a malformed body change nothing."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign
from characters.models import Character, SheetChange
from tests.characters.test_awaiting import equipped
from tests.systems.lucky13 import drafts as creation

pytestmark = pytest.mark.django_db


def url(character: Character) -> str:
    return f"/characters/{character.pk}/awaiting"


def history(character: Character) -> list[tuple[str, int]]:
    """The sheet's history, newest first: what changed and who changed it."""
    return list(SheetChange.objects.filter(character=character).order_by("-pk").values_list("what", "by"))


def state(character: Character) -> tuple[int, dict[str, Any]]:
    found = Character.objects.get(pk=character.pk)
    return found.version, found.document.model_dump(mode="json")


def test_a_characters_read_lists_what_waits_by_key(api, campaign, gm, player) -> None:
    draft = equipped(campaign, player, by=player)
    sheet = draft.document
    for who in (gm, player):
        body = api(who).get(f"/characters/{draft.pk}").json()
        assert body["awaiting"] == [
            {"item": str(sheet.assets[0].id), "words": "Asset: Family sword (thing, level 4)", "section": "equipment"},
            {"item": str(sheet.weapons[0].id), "words": "Weapon: Greatsword, accuracy d12, damage d12",
             "section": "equipment"},
            {"item": str(sheet.armor[0].id), "words": "Armor: Plate, defense d10", "section": "equipment"},
        ]  # fmt: skip
    chosen_by_the_gm = equipped(campaign, player, by=gm)
    assert api(gm).get(f"/characters/{chosen_by_the_gm.pk}").json()["awaiting"] == []


def test_the_api_and_the_page_decide_alike(api, client, campaign, gm, player) -> None:
    on_the_page, through_the_api = equipped(campaign, player, by=player), equipped(campaign, player, by=player)
    assert state(on_the_page)[1] == state(through_the_api)[1]
    sword, greatsword = str(on_the_page.document.assets[0].id), str(on_the_page.document.weapons[0].id)
    client.force_login(gm)
    page = reverse("characters:decide-awaiting", args=[on_the_page.pk])
    assert client.post(page, {"item": sword, "decision": "approve"}).status_code == 302
    assert client.post(page, {"item": greatsword, "decision": "refuse"}).status_code == 302

    approved = api(gm).post(url(through_the_api), {"item": sword, "decision": "approve"})
    assert approved.status_code == 200, approved.content
    assert [entry["item"] for entry in approved.json()["awaiting"]] == [
        greatsword,
        str(on_the_page.document.armor[0].id),
    ]
    refused = api(gm).post(url(through_the_api), {"item": greatsword, "decision": "refuse"})
    assert refused.status_code == 200, refused.content

    assert state(through_the_api) == state(on_the_page)
    assert history(through_the_api) == history(on_the_page)
    assert history(through_the_api)[:2] == [
        ("Refused by the GM: Weapon: Greatsword, accuracy d12, damage d12", gm.pk),
        ("Approved by the GM: Asset: Family sword (thing, level 4)", gm.pk),
    ]
    body = refused.json()
    assert (body["version"], body["sheet"]["weapons"]) == (state(on_the_page)[0], [])
    assert [entry["words"] for entry in body["awaiting"]] == ["Armor: Plate, defense d10"]
    assert Character.objects.get(pk=through_the_api.pk).awaiting == Character.objects.get(pk=on_the_page.pk).awaiting


def test_only_the_gm_decides(api, campaign, player, other_player, outsider) -> None:
    draft = equipped(campaign, player, by=player)
    before = state(draft)
    sword = str(draft.document.assets[0].id)
    refused = api(player).post(url(draft), {"item": sword, "decision": "approve"})
    assert refused.status_code == 403
    assert refused.json() == {"code": "forbidden", "message": "Only the campaign's GM approves or refuses what waits."}
    for who in (other_player, outsider):  # another player's draft, or no member at all: no such character
        response = api(who).post(url(draft), {"item": sword, "decision": "approve"})
        assert response.status_code == 404
        assert response.json()["code"] == "not_found"
    assert api(None).post(url(draft), {"item": sword, "decision": "approve"}).status_code == 401
    assert state(draft) == before


def test_a_decision_already_taken_or_an_unknown_item_is_a_409(api, campaign, gm, player) -> None:
    draft = equipped(campaign, player, by=player)
    sword = str(draft.document.assets[0].id)
    assert api(gm).post(url(draft), {"item": sword, "decision": "approve"}).status_code == 200
    decided = state(draft)
    for item in (sword, "999"):
        again = api(gm).post(url(draft), {"item": item, "decision": "refuse"})
        assert again.status_code == 409
        assert again.json()["code"] == "conflict"
        assert "decided already" in again.json()["message"]
    assert state(draft) == decided


def test_an_archived_character_or_campaign_decides_nothing(api, campaign, gm, player) -> None:
    draft = equipped(campaign, player, by=player)
    before = state(draft)
    sword = str(draft.document.assets[0].id)
    Character.objects.filter(pk=draft.pk).update(status=Character.Status.ARCHIVED)
    archived = api(gm).post(url(draft), {"item": sword, "decision": "approve"})
    assert (archived.status_code, archived.json()["code"]) == (409, "conflict")
    assert "archived" in archived.json()["message"]
    Character.objects.filter(pk=draft.pk).update(status=Character.Status.DRAFT)
    Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    closed = api(gm).post(url(draft), {"item": sword, "decision": "approve"})
    assert (closed.status_code, closed.json()["code"]) == (409, "conflict")
    assert state(draft) == before


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"item": "SWORD", "decision": "maybe"}, "decision"),
        ({"item": "SWORD"}, "decision"),
        ({"decision": "approve"}, "item"),
        ({"item": "", "decision": "approve"}, "item"),
        ({"item": "x" * 41, "decision": "approve"}, "item"),
        ({"item": "1\x00", "decision": "refuse"}, "item"),
        ({"item": 5, "decision": "approve"}, "item"),
        ({"item": "SWORD", "decision": "approve", "also": "the armor"}, "also"),
    ],
)
def test_a_malformed_decision_is_a_422_naming_the_field(api, campaign, gm, player, body, field) -> None:
    draft = equipped(campaign, player, by=player)
    before = state(draft)
    sword = str(draft.document.assets[0].id)
    body = {key: sword if value == "SWORD" else value for key, value in body.items()}
    response = api(gm).post(url(draft), body)
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"
    assert field in response.json()["errors"]
    assert state(draft) == before
    assert api(gm).post("/characters/999999/awaiting", {"item": sword, "decision": "approve"}).status_code == 404


def test_a_patch_sends_what_waits_back_as_it_is(api, campaign, gm, player) -> None:
    character = creation.finish(character_id=equipped(campaign, player, by=player).pk)
    read = api(player).get(f"/characters/{character.pk}").json()
    changed = api(player).patch(f"/characters/{character.pk}", {**read, "notes": "Polishes the sword."})
    assert changed.status_code == 200, changed.content
    assert changed.json()["awaiting"] == read["awaiting"]
    read = changed.json()
    forged = api(player).patch(f"/characters/{character.pk}", {**read, "awaiting": []})
    assert forged.status_code == 400
    assert "awaiting" in forged.json()["errors"]
    assert Character.objects.get(pk=character.pk).awaiting == 3
