"""The sheet's Rest and Recovered actions (Lucky 13's campaign options ``resting`` and ``recovery``): who may
use them, a rest's form errors by the field, refusals that change nothing, the stale-version conflict, the htmx
fragment against the full page; and where a character healed from dying shows as recovering."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Character, SheetChange
from characters.write import section_version
from play import encounters
from tests.campaigns.test_settings import settings_post
from tests.campaigns.test_settings import url as settings_url
from tests.characters.conftest import SNEAKING, make_character
from tests.characters.helpers import posted

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}


@pytest.fixture
def table(campaign):
    """The campaign, resting by the quarter hour and recovering grittily."""
    campaign.options = {**campaign.options, "resting": "quarter_hours", "recovery": "gritty"}
    campaign.save(update_fields=["options"])
    return campaign


@pytest.fixture
def wounded(table, player) -> Character:
    """Brunella at 20 of 30 hit points (d8 Pulse)."""
    return make_character(table, player, hit_points=20)


def rest_url(character: Character) -> str:
    return reverse("play:move", args=[character.pk, "rest"])


def recovered_url(character: Character) -> str:
    return reverse("play:move", args=[character.pk, "recovered"])


def sheet_now(character: Character):
    return Character.objects.get(pk=character.pk).document


def history(character: Character) -> list[str]:
    return list(SheetChange.objects.filter(character=character).values_list("what", flat=True))


# --- Who may rest -----------------------------------------------------------------------------------------


def test_who_opens_the_rest_form(client, wounded, gm, player, other_player, outsider) -> None:
    for user, status in [(gm, 200), (player, 200), (other_player, 403), (outsider, 404)]:
        client.force_login(user)
        assert client.get(rest_url(wounded)).status_code == status, user
    client.logout()
    assert client.get(rest_url(wounded)).status_code == 302  # to sign in


@pytest.mark.parametrize(("who", "status"), [("other_player", 403), ("outsider", 404)])
def test_no_one_else_rests_the_character(client, wounded, request, who, status) -> None:
    client.force_login(request.getfixturevalue(who))
    assert client.post(rest_url(wounded), {"minutes": "60", "version": "0"}).status_code == status
    assert sheet_now(wounded).hit_points == 20
    assert history(wounded) == []


def test_a_campaign_without_resting_has_no_rest(client, campaign, player) -> None:
    hero = make_character(campaign, player, hit_points=20)
    client.force_login(player)
    assert client.get(rest_url(hero)).status_code == 404
    assert client.post(rest_url(hero), {"minutes": "60", "version": "0"}).status_code == 404
    assert sheet_now(hero).hit_points == 20
    assert "Resting heals" not in client.get(reverse("characters:sheet", args=[hero.pk])).content.decode()


# --- Resting --------------------------------------------------------------------------------------------


def test_the_form_in_place_and_on_its_own_page(client, wounded, player) -> None:
    client.force_login(player)
    fragment = client.get(rest_url(wounded), **HTMX).content.decode()
    assert "<html" not in fragment
    assert 'id="hit-points"' in fragment
    assert 'name="minutes"' in fragment
    assert f'hx-post="{rest_url(wounded)}"' in fragment
    page = client.get(rest_url(wounded)).content.decode()
    assert "<html" in page
    assert 'name="minutes"' in page
    assert "hx-post" not in page


def test_a_rest_heals_and_the_region_comes_back(client, wounded, player) -> None:
    client.force_login(player)
    response = client.post(rest_url(wounded), {"minutes": "50", "version": "0"}, **HTMX)
    assert response.status_code == 200
    body = response.content.decode()
    assert "<html" not in body
    assert "Brunella rested 50 minutes: 3 hit points healed, 23 now." in body
    assert "3 healed by resting" in body
    now = sheet_now(wounded)
    assert (now.hit_points, now.rested_hit_points) == (23, 3)
    assert history(wounded) == ["Rested 50 minutes: 3 hit points healed"]
    saved = Character.objects.get(pk=wounded.pk)
    # A new version of the hit points: an open hit point form is stale.
    assert section_version(saved, "hit-points") == saved.version == wounded.version + 1


def test_without_javascript_a_rest_goes_back_to_the_sheet(client, wounded, gm) -> None:
    client.force_login(gm)
    response = client.post(rest_url(wounded), {"minutes": "15", "version": "0"})
    assert response.status_code == 302
    assert response["Location"] == reverse("characters:sheet", args=[wounded.pk]) + "#hit-points"
    assert "1 hit point healed, 21 now" in client.get(response["Location"]).content.decode()


@pytest.mark.parametrize("minutes", ["", "14", "1441", "abc", "٣٠", "30.5", "-30"])
def test_bad_minutes_are_refused_by_the_field(client, wounded, player, minutes) -> None:
    client.force_login(player)
    response = client.post(rest_url(wounded), {"minutes": minutes, "version": "0"}, **HTMX)
    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="id_minutes_error"' in body
    assert "Rest for a whole number of minutes from 15 to 1440." in body
    assert f'value="{minutes}"' in body or minutes == ""  # what was typed stays
    assert sheet_now(wounded).hit_points == 20
    assert history(wounded) == []


def test_without_javascript_a_refused_rest_is_its_own_page(client, wounded, player) -> None:
    client.force_login(player)
    response = client.post(rest_url(wounded), {"minutes": "5", "version": "0"})
    assert response.status_code == 400
    body = response.content.decode()
    assert "<html" in body
    assert 'id="id_minutes_error"' in body
    assert 'value="5"' in body
    assert sheet_now(wounded).hit_points == 20


@pytest.mark.parametrize(("hit_points", "rested", "words"), [
    (20, 4, "has healed its 4 hit points"),
    (0, 0, "dying"),
    (-8, 0, "dead"),
    (30, 0, "full hit points"),
])  # fmt: skip
def test_a_rest_that_heals_nothing_says_why_and_changes_nothing(
    client, table, player, hit_points, rested, words
) -> None:
    hero = make_character(table, player, hit_points=hit_points, rested_hit_points=rested)
    client.force_login(player)
    response = client.post(rest_url(hero), {"minutes": "60", "version": "0"}, **HTMX)
    assert response.status_code == 400
    assert words in response.content.decode()
    assert sheet_now(hero).hit_points == hit_points
    assert history(hero) == []


def test_a_rest_made_from_an_older_version_is_refused(client, wounded, gm, player) -> None:
    client.force_login(gm)
    assert client.post(rest_url(wounded), {"minutes": "15", "version": "0"}).status_code == 302
    client.force_login(player)
    response = client.post(rest_url(wounded), {"minutes": "60", "version": "0"}, **HTMX)  # made before the GM's
    assert response.status_code == 409
    body = response.content.decode()
    assert "The hit points changed since you opened this form" in body
    now = Character.objects.get(pk=wounded.pk)
    assert "<strong>21</strong> of 30" in body
    assert f'name="version" value="{now.version}"' in body
    assert sheet_now(wounded).hit_points == 21


@pytest.mark.parametrize("version", ["", "x", "١"])
def test_a_rest_without_a_version_is_refused(client, wounded, player, version) -> None:
    client.force_login(player)
    assert client.post(rest_url(wounded), {"minutes": "60", "version": version}).status_code == 400
    assert sheet_now(wounded).hit_points == 20


def test_a_gm_heal_to_full_starts_the_count_again(client, table, gm, player) -> None:
    hero = make_character(table, player, hit_points=20, rested_hit_points=4)
    client.force_login(gm)
    data = posted(hero, "hit-points", gm=True)
    data["hit_points"] = "30"
    assert client.post(reverse("characters:edit-section", args=[hero.pk, "hit-points"]), data).status_code == 302
    assert (sheet_now(hero).hit_points, sheet_now(hero).rested_hit_points) == (30, 0)


def test_the_sheet_offers_rest_to_those_who_may(client, wounded, player, other_player) -> None:
    sheet = reverse("characters:sheet", args=[wounded.pk])
    client.force_login(player)
    assert f'href="{rest_url(wounded)}"' in client.get(sheet).content.decode()
    client.force_login(other_player)
    body = client.get(sheet).content.decode()
    assert "Resting heals 1 hit point per 15 minutes" in body
    assert f'href="{rest_url(wounded)}"' not in body


# --- Gritty recovery --------------------------------------------------------------------------------------


def test_a_gm_edit_from_dying_marks_the_character_recovering(client, table, gm, player) -> None:
    hero = make_character(table, player, hit_points=-3)
    client.force_login(gm)
    data = posted(hero, "hit-points", gm=True)
    data["hit_points"] = "12"
    assert client.post(reverse("characters:edit-section", args=[hero.pk, "hit-points"]), data).status_code == 302
    assert sheet_now(hero).recovering
    client.force_login(player)
    body = client.get(reverse("characters:sheet", args=[hero.pk])).content.decode()
    assert '<span class="badge recovering">Recovering</span>' in body
    assert f'href="{recovered_url(hero)}"' not in body  # the GM's to say


def test_an_encounter_heal_from_dying_marks_the_character_recovering(table, gm, player) -> None:
    hero = make_character(table, player, hit_points=0)
    encounter = encounters.start_encounter(campaign_id=table.pk, by=gm, name="Ambush")
    (combatant,) = encounters.add_characters(
        campaign_id=table.pk, encounter_id=encounter.pk, by=gm, character_ids=[hero.pk]
    )
    encounters.adjust(campaign_id=table.pk, encounter_id=encounter.pk, by=gm, combatant_id=combatant.pk, amount=4,
                      reason="first aid")  # fmt: skip
    assert (sheet_now(hero).hit_points, sheet_now(hero).recovering) == (4, True)


def test_a_cinematic_campaign_marks_no_one(client, campaign, gm, player) -> None:
    hero = make_character(campaign, player, hit_points=-3)
    client.force_login(gm)
    data = posted(hero, "hit-points", gm=True)
    data["hit_points"] = "12"
    client.post(reverse("characters:edit-section", args=[hero.pk, "hit-points"]), data)
    assert not sheet_now(hero).recovering


def test_the_roll_page_the_campaign_page_and_the_dashboard_say_recovering(client, table, player) -> None:
    hero = make_character(table, player, recovering=True)
    client.force_login(player)
    roll = client.get(reverse("play:sheet-roll", args=[hero.pk]), {"skill": SNEAKING}).content.decode()
    assert "Recovering from dying: Reflex -1 until the GM says recovered" in roll
    for page in ("campaigns:detail", "play:dashboard"):
        party = client.get(reverse(page, args=[table.pk])).content.decode()
        assert "<dt>Recovering</dt><dd>Ability dice -1 step until the GM says recovered</dd>" in party, page


def test_the_gm_marks_a_character_recovered(client, table, gm, player) -> None:
    hero = make_character(table, player, recovering=True)
    client.force_login(gm)
    sheet = client.get(reverse("characters:sheet", args=[hero.pk])).content.decode()
    assert f'href="{recovered_url(hero)}"' in sheet
    assert "Mark recovered" in client.get(recovered_url(hero), **HTMX).content.decode()
    response = client.post(recovered_url(hero), {"version": "0"}, **HTMX)
    assert response.status_code == 200
    assert "Brunella has recovered" in response.content.decode()
    assert not sheet_now(hero).recovering
    assert history(hero) == ["Recovered: back at full strength"]


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("other_player", 403), ("outsider", 404)])
def test_only_the_gm_marks_a_character_recovered(client, table, player, request, who, status) -> None:
    hero = make_character(table, player, recovering=True)
    client.force_login(request.getfixturevalue(who))
    assert client.get(recovered_url(hero)).status_code == status
    assert client.post(recovered_url(hero), {"version": "0"}).status_code == status
    assert sheet_now(hero).recovering


def test_marking_one_who_is_not_recovering_changes_nothing(client, table, gm, player) -> None:
    hero = make_character(table, player)
    client.force_login(gm)
    response = client.post(recovered_url(hero), {"version": "0"}, **HTMX)
    assert response.status_code == 400
    assert "The character is not recovering." in response.content.decode()
    assert history(hero) == []


def test_a_stale_recovered_is_refused(client, table, gm, player) -> None:
    hero = make_character(table, player, hit_points=20, recovering=True)
    client.force_login(player)
    client.post(rest_url(hero), {"minutes": "15", "version": "0"})
    client.force_login(gm)
    assert client.post(recovered_url(hero), {"version": "0"}, **HTMX).status_code == 409
    assert sheet_now(hero).recovering


# --- The options ------------------------------------------------------------------------------------------


def test_the_gm_chooses_the_options_on_the_settings_page(client, campaign, gm) -> None:
    client.force_login(gm)
    page = client.get(settings_url(campaign)).content.decode()
    assert "Healing and recovery" in page
    assert 'value="quarter_hours"' in page
    response = client.post(settings_url(campaign), settings_post(campaign, resting="quarter_hours", recovery="gritty"))
    assert response.status_code == 302
    campaign.refresh_from_db()
    assert (campaign.settings["resting"], campaign.settings["recovery"]) == ("quarter_hours", "gritty")


def test_a_bad_choice_is_refused_by_its_field(client, campaign, gm) -> None:
    client.force_login(gm)
    response = client.post(settings_url(campaign), settings_post(campaign, resting="hourly"))
    assert response.status_code == 400
    assert "id_resting_error" in response.content.decode()
    campaign.refresh_from_db()
    assert campaign.settings["resting"] == "off"
