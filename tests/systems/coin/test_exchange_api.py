"""Export and import through the API with a system that is not Lucky 13 (the tests' Coin game):
``GET /characters/{id}/export`` and ``POST /campaigns/{id}/characters`` serve every system, a Coin
character comes back identical at every stage, an unsigned one is a fresh creation by Coin's
rules, and a bad field is a 400 naming it with nothing created."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from campaigns.models import Campaign, Membership
from characters.models import Character
from tests.characters.test_exchange import comparable
from tests.systems.coin.test_exchange import STAGES, make_coin_character

pytestmark = pytest.mark.django_db


@pytest.fixture
def tails(coin_campaign, gm, player) -> Campaign:
    """Another Coin campaign, whose characters start with 3 Luck."""
    campaign = Campaign.objects.create(name="Tails", system="coin", options={"luck": 3})
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    return campaign


def errors_of(response) -> dict[str, str]:
    body = response.json()
    assert body["code"] == "invalid_document"
    assert body["message"].startswith("Nothing was saved: ")
    return body["errors"]


@pytest.mark.parametrize("stage", list(STAGES))
def test_a_coin_character_round_trips_through_the_api(api, coin_campaign, tails, player, stage) -> None:
    original = make_coin_character(coin_campaign, player, stage)
    client = api(player)

    exported = client.get(f"/characters/{original.pk}/export")
    assert exported.status_code == 200
    document = exported.json()
    assert (document["system"], document["status"], document["sheet"]) == ("coin", STAGES[stage][0], original.sheet)

    response = client.post(f"/campaigns/{coin_campaign.pk}/characters", document)

    assert response.status_code == 201, response.content
    imported = Character.objects.exclude(pk=original.pk).get(campaign=coin_campaign)
    assert response["Location"] == f"http://testserver/api/v1/characters/{imported.pk}"
    assert (response.json()["system"], response.json()["sheet"]["nerve"]) == ("coin", original.document.nerve)
    assert (imported.owner, imported.name, imported.status) == (player, "Flip", STAGES[stage][0])
    assert imported.sheet == original.sheet
    again = client.get(f"/characters/{imported.pk}/export").json()
    assert comparable(again) == comparable(document)


def test_an_unsigned_coin_document_is_a_fresh_creation(api, coin_campaign, tails, player) -> None:
    """Its Nerve cannot be taken on trust; without one, it joins with the target's starting Luck."""
    client = api(player)
    flipped = client.get(f"/characters/{make_coin_character(coin_campaign, player, 'active').pk}/export").json()
    before = Character.objects.count()

    refused = client.post(f"/campaigns/{tails.pk}/characters", {**flipped, "signature": None})

    assert refused.status_code == 400
    assert "This Nerve was not flipped by this Dicehall" in errors_of(refused)["signature"]
    assert Character.objects.count() == before

    draft = client.get(f"/characters/{make_coin_character(coin_campaign, player, 'draft-at-nerve').pk}/export").json()
    draft = copy.deepcopy(draft)
    draft["sheet"]["luck"] = 9
    response = client.post(f"/campaigns/{tails.pk}/characters", {**draft, "signature": None})

    assert response.status_code == 201, response.content
    imported = Character.objects.get(campaign=tails)
    assert (imported.status, imported.document.luck, imported.document.nerve) == ("draft", 3, None)


def _changed(**changes: Any):
    def change(document: dict[str, Any]) -> None:
        for key, value in changes.items():
            target, _, field = key.rpartition("__")
            (document[target] if target else document)[field] = value

    return change


@pytest.mark.parametrize(
    ("change", "fields"),
    [
        (_changed(sheet__nerve=9), {"sheet.nerve"}),
        (_changed(sheet__luck=-1), {"sheet.luck"}),
        (_changed(sheet__courage=2), {"sheet.courage"}),
        (_changed(sheet_version=0), {"sheet_version"}),
        (_changed(name="", colour="red"), {"name", "colour"}),
        (_changed(system="lucky13"), {"system"}),
    ],
    ids=["nerve-past-6", "luck-below-0", "unknown-sheet-field", "no-sheet-version-0", "two-at-once", "other-system"],
)
def test_a_bad_coin_document_is_a_400_naming_the_field(api, coin_campaign, player, change, fields) -> None:
    client = api(player)
    document = client.get(f"/characters/{make_coin_character(coin_campaign, player, 'active').pk}/export").json()
    change(document)
    before = Character.objects.count()

    response = client.post(f"/campaigns/{coin_campaign.pk}/characters", document)

    assert response.status_code == 400
    assert set(errors_of(response)) == fields
    assert Character.objects.count() == before


def test_outsiders_neither_export_nor_import_a_coin_character(api, coin_campaign, player, outsider) -> None:
    flip = make_coin_character(coin_campaign, player, "active")
    document = api(player).get(f"/characters/{flip.pk}/export").json()
    client = api(outsider)
    assert client.get(f"/characters/{flip.pk}/export").status_code == 404
    assert client.post(f"/campaigns/{coin_campaign.pk}/characters", document).status_code == 404
    assert Character.objects.count() == 1


def test_an_import_from_another_campaign_waits_and_the_gm_decides_through_the_api(
    api, coin_campaign, tails, gm, player
) -> None:
    original = make_coin_character(coin_campaign, player, "active")
    document = api(player).get(f"/characters/{original.pk}/export").json()

    response = api(player).post(f"/campaigns/{tails.pk}/characters", document)

    assert response.status_code == 201, response.content
    body = response.json()
    assert body["status"] == "draft"
    assert body["arrival"]["status"] == "active"
    assert body["arrival"]["from"] == "an export of Heads"
    assert api(player).post(f"/characters/{body['id']}/arrival", {"decision": "approve"}).status_code == 403
    decided = api(gm).post(f"/characters/{body['id']}/arrival", {"decision": "approve"})
    assert decided.status_code == 200, decided.content
    assert (decided.json()["status"], decided.json()["arrival"]) == ("active", None)
    assert decided.json()["sheet"]["nerve"] == original.document.nerve
    again = api(gm).post(f"/characters/{body['id']}/arrival", {"decision": "fresh"})
    assert again.status_code == 409
