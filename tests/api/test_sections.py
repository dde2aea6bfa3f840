"""A section of a sheet through the JSON API, for every system: `PUT /characters/{id}/sections/{key}`
goes through the one write path, with the system's rules of who may change what, its validation of
the whole sheet, and one conflict error for a stale version. Shown with the test-only Coin system
(whose page forms are made from its sheet model) and with Lucky 13."""

from __future__ import annotations

import pytest

from characters.models import Character, SheetChange
from tests.characters.conftest import make_character
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db


@pytest.fixture
def flipper(coin_campaign, player) -> Character:
    sheet = coin.Sheet(nerve=2, step="", tricks=({"id": 1, "name": "Palm"},), next_id=2).model_dump(mode="json")
    return Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)


def test_the_sections_and_who_changes_them(api, player, flipper) -> None:
    sections = api(player).get(f"/characters/{flipper.pk}/sections").json()["sections"]
    assert sections == [
        {"key": "notes", "label": "notes", "editors": ["gm", "owner"]},
        {"key": "luck", "label": "Luck", "editors": ["gm"]},
        {"key": "tricks", "label": "tricks", "editors": ["gm", "owner"]},
    ]


def test_a_coin_edit_and_its_stale_conflict(api, player, gm, flipper) -> None:
    client = api(player)
    version = flipper.version
    saved = client.put(f"/characters/{flipper.pk}/sections/notes", {"version": version, "value": {"notes": "Lucky"}})
    assert saved.status_code == 200
    body = saved.json()
    assert (body["system"], body["sheet"]["notes"], body["version"]) == ("coin", "Lucky", version + 1)
    assert body["concept"] is None  # Coin has none of Lucky 13's named fields
    change = SheetChange.objects.filter(character=flipper).first()
    assert (change.by, change.what, change.sections) == (player, "Notes changed (API)", ["notes"])
    # The GM changes the tricks from the version they read: the player's save came in between.
    tricks = {"tricks": [{"id": 1, "name": "Palm"}, {"id": 2, "name": "Double"}], "next_id": 3}
    stale = api(gm).put(f"/characters/{flipper.pk}/sections/tricks", {"version": version, "value": tricks})
    assert stale.status_code == 409
    assert stale.json()["code"] == "stale_version"
    assert stale.json()["now"]["sheet"]["notes"] == "Lucky"  # what it says now
    flipper.refresh_from_db()
    assert [t.name for t in flipper.document.tricks] == ["Palm"]  # nothing overwritten


def test_coins_rules_refuse_with_the_right_status(api, player, gm, flipper) -> None:
    client = api(player)
    version = flipper.version
    url = f"/characters/{flipper.pk}/sections"
    refused = client.put(f"{url}/luck", {"version": version, "value": {"luck": 20}})
    assert refused.status_code == 403  # only the GM changes the Luck
    invalid = api(gm).put(f"{url}/luck", {"version": version, "value": {"luck": 99}})
    assert invalid.status_code == 400
    assert "sheet.luck" in invalid.json()["errors"]
    assert client.put(f"{url}/nerve", {"version": version, "value": {"nerve": 6}}).status_code == 404
    assert client.put(f"{url}/notes", {"version": version, "value": {"notes": 3}}).status_code == 400
    assert client.put(f"{url}/notes", {"version": "x", "value": {}}).status_code == 422
    flipper.refresh_from_db()
    assert (flipper.version, flipper.document.luck) == (version, 5)


def test_a_lucky13_section_through_the_same_path(api, player, campaign) -> None:
    brunella = make_character(campaign, player)
    response = api(player).put(
        f"/characters/{brunella.pk}/sections/notes", {"version": brunella.version, "value": {"notes": "Owes Otto"}}
    )
    assert response.status_code == 200
    assert (response.json()["notes"], response.json()["sheet"]["notes"]) == ("Owes Otto", "Owes Otto")


def test_a_new_item_comes_without_an_id_and_gets_a_fresh_one(api, player, flipper) -> None:
    """A client adds an item by leaving its id out: the system hands out the next one, past every id
    the sheet holds or has handed out, and the sheet's ``next_id`` moves past it."""
    value = {"tricks": [{"id": 1, "name": "Palm"}, {"name": "Double"}, {"id": None, "name": "Triple"}]}
    saved = api(player).put(f"/characters/{flipper.pk}/sections/tricks", {"version": flipper.version, "value": value})
    assert saved.status_code == 200
    sheet = saved.json()["sheet"]
    assert sheet["tricks"] == [{"id": 1, "name": "Palm"}, {"id": 2, "name": "Double"}, {"id": 3, "name": "Triple"}]
    assert sheet["next_id"] == 4
