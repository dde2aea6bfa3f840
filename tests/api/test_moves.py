"""Moves through the JSON API (``/characters/{id}/moves``): Lucky 13's rest and recovery, made by the same
pipeline as the sheet's buttons, from the version the caller read, with the same refusals, and one 409 body."""

from __future__ import annotations

import pytest

from characters.models import Character, SheetChange
from tests.characters.conftest import make_character

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(campaign):
    campaign.options = {**campaign.options, "resting": "quarter_hours", "recovery": "gritty"}
    campaign.save(update_fields=["options"])
    return campaign


def test_the_api_rests_a_character_and_the_gm_marks_recovery(api, table, gm, player) -> None:
    brunella = make_character(table, player, hit_points=20)
    url = f"/characters/{brunella.pk}/moves"
    rested = api(player).post(f"{url}/rest", {"version": brunella.version, "input": {"minutes": 40}})
    assert rested.status_code == 200, rested.text
    assert rested.json()["result"] == {"healed": 2, "hit_points": 22}  # two whole quarter hours
    assert rested.json()["notice"] == "Brunella rested 40 minutes: 2 hit points healed, 22 now."
    assert rested.json()["character"]["sheet"]["hit_points"] == 22
    stale = api(player).post(f"{url}/rest", {"version": brunella.version, "input": {"minutes": 15}})
    assert stale.status_code == 409
    assert stale.json()["code"] == "stale_version"
    assert stale.json()["now"]["sheet"]["hit_points"] == 22
    version = rested.json()["character"]["version"]
    bad = api(player).post(f"{url}/rest", {"version": version, "input": {"minutes": 10}})
    assert bad.status_code == 400  # less than a quarter hour heals nothing
    assert bad.json()["errors"] == {"minutes": "Rest for a whole number of minutes from 15 to 1440."}
    Character.objects.filter(pk=brunella.pk).update(sheet={**brunella.sheet, "hit_points": 20, "recovering": True})
    refused = api(player).post(f"{url}/recovered", {"version": version})
    assert refused.status_code == 403
    assert refused.json()["message"] == "Only the GM can say a character has recovered."
    marked = api(gm).post(f"{url}/recovered", {"version": version})
    assert marked.status_code == 200, marked.text
    assert marked.json()["character"]["sheet"]["recovering"] is False
    again = api(gm).post(f"{url}/recovered", {"version": marked.json()["character"]["version"]})
    assert again.status_code == 400
    assert again.json()["message"] == "The character is not recovering."


def test_the_moves_list_says_what_each_may_do_now(api, table, gm, player, other_player) -> None:
    brunella = make_character(table, player, hit_points=20)
    listed = api(player).get(f"/characters/{brunella.pk}/moves")
    assert listed.status_code == 200
    moves = {m["key"]: m for m in listed.json()["moves"]}
    assert list(moves) == ["rest", "recovered"]
    assert moves["rest"]["why_not"] is None
    assert moves["rest"]["input"]["properties"]["minutes"]["minimum"] == 15
    assert moves["recovered"]["why_not"] == "Only the GM can say a character has recovered."
    assert moves["recovered"]["who"] == ["gm"]
    by_gm = {m["key"]: m for m in api(gm).get(f"/characters/{brunella.pk}/moves").json()["moves"]}
    assert by_gm["recovered"]["why_not"] == "The character is not recovering."
    other = {m["key"]: m for m in api(other_player).get(f"/characters/{brunella.pk}/moves").json()["moves"]}
    assert other["rest"]["why_not"] == "Only the character's player and the GM can change this sheet."


@pytest.mark.parametrize(
    "body",
    [
        {"version": 0, "input": {"minutes": "forty"}},
        {"version": 0, "input": {"minutes": 40, "hours": 1}},
        {"version": 0, "input": {}},
        {"version": 0, "input": {"minutes": 40.5}},
    ],
    ids=["text", "extra", "missing", "fraction"],
)
def test_bad_input_is_a_400_by_its_field_and_changes_nothing(api, table, player, body) -> None:
    brunella = make_character(table, player, hit_points=20)
    response = api(player).post(f"/characters/{brunella.pk}/moves/rest", body)
    assert response.status_code == 400, response.text
    assert response.json()["errors"]
    assert Character.objects.get(pk=brunella.pk).document.hit_points == 20
    assert not SheetChange.objects.filter(character=brunella).exists()


def test_a_campaign_without_resting_has_no_rest_move(api, campaign, player, outsider) -> None:
    brunella = make_character(campaign, player, hit_points=20)
    response = api(player).post(f"/characters/{brunella.pk}/moves/rest", {"version": brunella.version,
                                                                          "input": {"minutes": 30}})  # fmt: skip
    assert response.status_code == 404
    assert api(player).get(f"/characters/{brunella.pk}/moves").json() == {"moves": [], "prompt": None}
    assert api(outsider).get(f"/characters/{brunella.pk}/moves").status_code == 404


def test_the_page_and_the_api_make_the_same_rest(api, client, table, player) -> None:
    by_page = make_character(table, player, hit_points=20)
    by_api = make_character(table, player, name="Brunella Two", hit_points=20)
    client.force_login(player)
    assert client.post(f"/characters/{by_page.pk}/moves/rest/", {"minutes": "50", "version": "0"}).status_code == 302
    made = api(player).post(f"/characters/{by_api.pk}/moves/rest", {"version": 0, "input": {"minutes": 50}})
    assert made.status_code == 200
    page_sheet, api_sheet = (Character.objects.get(pk=c.pk) for c in (by_page, by_api))
    assert page_sheet.sheet == api_sheet.sheet
    assert page_sheet.version == api_sheet.version
    histories = [list(SheetChange.objects.filter(character=c).values_list("what", flat=True))
                 for c in (by_page, by_api)]  # fmt: skip
    assert histories[0] == histories[1] == ["Rested 50 minutes: 3 hit points healed"]


def test_a_key_with_no_name_is_the_inputs_problem(api, table, player) -> None:
    brunella = make_character(table, player, hit_points=20)
    response = api(player).post(f"/characters/{brunella.pk}/moves/rest", {"version": 0, "input": {"": 1}})
    assert response.status_code == 400
    assert "input" in response.json()["errors"]
    assert "Sheet" not in response.json()["message"]
