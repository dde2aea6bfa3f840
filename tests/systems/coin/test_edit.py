"""Editing a sheet in place with a system that gives no form of its own: the tests' Coin game.

Its sections' forms are made from its sheet model (``characters.generated``): Luck (the GM's), its
tricks (rows: rename, remove, add) and its notes. Saves go through the one write path, a stale
save is refused with what was typed, a bad value comes back next to its field, and a player never
picks an item's id."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters import operations
from characters.models import Character, SheetChange
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db


@pytest.fixture
def flipper(coin_campaign, player) -> Character:
    sheet = coin.Sheet(nerve=2, step="", tricks=(coin.Trick(id=1, name="Palm"),), next_id=2)
    return Character.objects.create(
        campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet.model_dump(mode="json")
    )


def edit_url(character: Character, section: str) -> str:
    return reverse("characters:edit-section", args=[character.pk, section])


def tricks_form(version: int, **rows: str) -> dict[str, str]:
    data = {"version": str(version), "tricks-TOTAL_FORMS": "3", "tricks-INITIAL_FORMS": "1"}
    data |= {"tricks-0-id": "1", "tricks-0-name": "Palm", "tricks-1-name": "", "tricks-2-name": ""}
    return data | rows


def test_the_sheet_shows_edit_buttons_by_who_may_change_each_section(client, flipper, player, gm) -> None:
    client.force_login(player)
    page = client.get(reverse("characters:sheet", args=[flipper.pk])).text
    assert 'id="edit-tricks"' in page
    assert 'id="edit-notes"' in page
    assert 'id="edit-luck"' not in page  # Luck is the GM's
    client.force_login(gm)
    page = client.get(reverse("characters:sheet", args=[flipper.pk])).text
    assert 'id="edit-luck"' in page


def test_the_generated_form_shows_the_section_as_it_is(client, flipper, player) -> None:
    client.force_login(player)
    page = client.get(edit_url(flipper, "tricks")).text
    assert 'name="tricks-0-name"' in page
    assert 'value="Palm"' in page
    assert 'name="tricks-0-remove"' in page  # a row on the sheet can go
    assert 'name="tricks-1-name"' in page
    assert 'name="tricks-1-remove"' not in page
    assert 'maxlength="60"' in page
    assert "New trick" in page


def test_a_player_renames_adds_and_removes_tricks(client, flipper, player) -> None:
    client.force_login(player)
    response = client.post(
        edit_url(flipper, "tricks"), tricks_form(0, **{"tricks-1-name": "Flick", "tricks-2-name": "Spin"})
    )
    assert response.status_code == 302
    flipper.refresh_from_db()
    assert [(t.id, t.name) for t in flipper.document.tricks] == [(1, "Palm"), (2, "Flick"), (3, "Spin")]
    assert flipper.document.next_id == 4  # the sheet moved past the ids it handed out
    change = SheetChange.objects.get(character=flipper)
    assert change.what == "Edited the tricks"
    assert change.sections == ["tricks"]
    assert change.by == player

    data = tricks_form(flipper.version, **{"tricks-0-name": "Palming", "tricks-0-remove": "on"})
    data |= {"tricks-TOTAL_FORMS": "5", "tricks-INITIAL_FORMS": "3", "tricks-1-id": "2", "tricks-1-name": "Flick"}
    data |= {"tricks-2-id": "3", "tricks-2-name": "Spun", "tricks-3-name": "", "tricks-4-name": ""}
    assert client.post(edit_url(flipper, "tricks"), data).status_code == 302
    flipper.refresh_from_db()
    assert [(t.id, t.name) for t in flipper.document.tricks] == [(2, "Flick"), (3, "Spun")]


def test_a_posted_id_is_never_taken(client, flipper, player) -> None:
    """A new row with an id typed in (say, of a removed trick) still gets a fresh id, and a changed
    id on a row keeps the row's own item."""
    client.force_login(player)
    data = tricks_form(0, **{"tricks-0-id": "7", "tricks-0-name": "Palmed", "tricks-1-id": "1", "tricks-1-name": "X"})
    assert client.post(edit_url(flipper, "tricks"), data).status_code == 302
    flipper.refresh_from_db()
    assert [(t.id, t.name) for t in flipper.document.tricks] == [(1, "Palmed"), (2, "X")]


def test_a_bad_value_comes_back_next_to_its_field_with_what_was_typed(client, flipper, player) -> None:
    client.force_login(player)
    flipper.refresh_from_db()
    before = (flipper.sheet, flipper.version)
    data = tricks_form(0, **{"tricks-1-name": "Flick", "tricks-2-name": "palm"})  # two tricks called Palm
    response = client.post(edit_url(flipper, "tricks"), data, headers={"HX-Request": "true"})
    assert response.status_code == 400
    assert "Nothing was saved" in response.text
    assert "Two tricks are called palm." in response.text
    assert 'value="Flick"' in response.text
    assert 'value="palm"' in response.text
    flipper.refresh_from_db()
    assert (flipper.sheet, flipper.version) == before


def test_a_bad_number_is_refused_by_the_field(client, flipper, gm) -> None:
    client.force_login(gm)
    for typed, message in (("٣", "Enter a whole number."), ("21", "less than or equal to 20"), ("", "whole number")):
        response = client.post(edit_url(flipper, "luck"), {"version": "0", "luck": typed})
        assert response.status_code == 400, typed
        assert message in response.text, typed
    assert client.post(edit_url(flipper, "luck"), {"version": "0", "luck": "7"}).status_code == 302
    flipper.refresh_from_db()
    assert flipper.document.luck == 7


def test_the_player_may_not_change_luck(client, flipper, player) -> None:
    client.force_login(player)
    response = client.post(edit_url(flipper, "luck"), {"version": "0", "luck": "9"})
    assert response.status_code == 403
    assert "Only the GM can change the Luck." in response.text
    flipper.refresh_from_db()
    assert flipper.document.luck == 5


def test_a_stale_save_is_refused_and_shows_what_was_typed(client, flipper, player, gm) -> None:
    client.force_login(gm)
    assert client.post(edit_url(flipper, "notes"), {"version": "0", "notes": "The GM's words"}).status_code == 302
    client.force_login(player)
    response = client.post(edit_url(flipper, "notes"), {"version": "0", "notes": "My words"})
    assert response.status_code == 409
    assert "Someone else changed this section" in response.text
    assert "Notes: My words" in response.text  # what the player typed, to enter again
    assert "The GM&#x27;s words" in response.text  # the form now holds what the section says
    flipper.refresh_from_db()
    assert flipper.document.notes == "The GM's words"


def test_in_place_a_save_swaps_the_region_back(client, flipper, player) -> None:
    client.force_login(player)
    response = client.post(
        edit_url(flipper, "notes"), {"version": "0", "notes": "Lucky"}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 200
    assert response.text.lstrip().startswith('<section class="sheet-section" id="notes"')
    assert "Lucky" in response.text


def test_control_characters_are_refused_at_the_field(client, flipper, player) -> None:
    client.force_login(player)
    response = client.post(edit_url(flipper, "tricks"), tricks_form(0, **{"tricks-1-name": "Fl\x07ick"}))
    assert response.status_code == 400
    assert "Keep it on one line, without control characters." in response.text


def test_every_section_of_every_system_has_a_form(coin_campaign, flipper) -> None:
    """Each section of a registered system is either its system's own form or a generated one that builds."""
    from characters.editing import edit_for

    for key in operations.sections_for(flipper):
        edit = edit_for(flipper, key)(flipper, gm=True)
        assert edit.groups, key
