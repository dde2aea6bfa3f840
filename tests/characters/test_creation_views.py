"""The creation pages: the whole flow through plain form posts, and who may use them."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Character

pytestmark = pytest.mark.django_db


def step_url(character: Character, step: str) -> str:
    return reverse("characters:create-step", args=[character.pk, step])


def start(client, campaign, name="Brunella") -> Character:
    response = client.post(reverse("characters:create", args=[campaign.pk]), {"name": name, "concept": "Sellsword"})
    assert response.status_code == 302
    return Character.objects.get(campaign=campaign, name=name)


def test_a_player_creates_a_character_with_the_array_method_from_start_to_finish(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    assert character.status == "draft"

    page = client.get(step_url(character, "abilities"))
    assert page.status_code == 200
    assert "Balanced" in page.content.decode()
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    response = client.post(step_url(character, "abilities"), {"method": "balanced", **dice, "action": "next"})
    assert response["Location"] == step_url(character, "skills")

    assert client.get(step_url(character, "skills")).status_code == 200
    response = client.post(step_url(character, "skills"), {"action": "next"})
    assert response["Location"] == step_url(character, "specializations")

    response = client.post(
        step_url(character, "specializations"),
        {"spec-0-skill": "Fighting", "spec-0-name": "Broadsword", "spec-1-skill": "", "spec-1-name": ""},
    )
    assert response["Location"] == step_url(character, "traits")

    response = client.post(
        step_url(character, "traits"),
        {"trait-0-kind": "background", "trait-0-name": "Mercenary", "trait-0-description": "Free companies"},
    )
    assert response["Location"] == step_url(character, "equipment")

    response = client.post(
        step_url(character, "equipment"),
        {
            "asset-0-name": "Old map", "asset-0-kind": "thing", "asset-0-level": "2", "asset-0-skills": ["Sneaking"],
            "weapon-0-name": "Broadsword", "weapon-0-accuracy": "d8", "weapon-0-damage": "d10",
            "armor-0-name": "", "armor-0-defense": "d4",
        },
    )  # fmt: skip
    assert response["Location"] == step_url(character, "review")

    review = client.get(step_url(character, "review")).content.decode()
    assert "Broadsword" in review
    assert "Old map" in review

    response = client.post(step_url(character, "review"), {"action": "next"})
    assert response["Location"] == reverse("characters:sheet", args=[character.pk])
    character.refresh_from_db()
    assert character.status == "active"
    assert character.hit_points == 40
    assert character.skills.get(name="Fighting").specializations.get().name == "Broadsword"


def test_random_abilities_are_rolled_by_the_server_on_a_post(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    response = client.post(step_url(character, "abilities"), {"action": "roll", "will": "d12"})
    assert response.status_code == 302
    character.refresh_from_db()
    assert character.ability_method == "random"
    assert len(character.creation_rolls["abilities"]) == 5
    page = client.get(step_url(character, "abilities")).content.decode()
    assert "The rolls stand" in page


def test_a_bad_array_is_a_400_with_the_rule_and_nothing_saved(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    dice = {"will": "d12", "charm": "d12", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    response = client.post(step_url(character, "abilities"), {"method": "balanced", **dice})
    assert response.status_code == 400
    assert "balanced array is d4 d6 d6 d8 d10" in response.content.decode()
    character.refresh_from_db()
    assert character.will is None


def test_a_missing_die_is_a_400(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    response = client.post(step_url(character, "abilities"), {"method": "balanced", "will": "d6"})
    assert response.status_code == 400
    assert "choose a die" in response.content.decode()


def test_save_and_finish_later_keeps_the_draft(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    response = client.post(step_url(character, "abilities"), {"method": "balanced", **dice, "action": "later"})
    assert response["Location"] == reverse("campaigns:detail", args=[campaign.pk])
    character.refresh_from_db()
    assert character.status == "draft"
    assert character.creation_step == "skills"
    # Coming back: the step the draft reached, with the choices kept.
    page = client.get(step_url(character, "abilities")).content.decode()
    assert '<option value="d10" selected>' in page


def test_steps_ahead_of_the_draft_redirect_back(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    response = client.get(step_url(character, "equipment"))
    assert response["Location"] == step_url(character, "abilities")


def test_a_blank_name_is_a_400_and_creates_nothing(client, campaign, player) -> None:
    client.force_login(player)
    response = client.post(reverse("characters:create", args=[campaign.pk]), {"name": "  ", "concept": ""})
    assert response.status_code == 400
    assert "needs a name" in response.content.decode()
    assert not Character.objects.exists()


def test_the_gm_may_help_but_other_players_may_not_touch_a_draft(client, campaign, player, gm, other_player) -> None:
    client.force_login(player)
    character = start(client, campaign)

    client.force_login(gm)
    assert client.get(step_url(character, "abilities")).status_code == 200
    client.force_login(other_player)
    assert client.get(step_url(character, "abilities")).status_code == 404
    assert client.post(step_url(character, "abilities"), {"action": "roll"}).status_code == 404
    character.refresh_from_db()
    assert character.ability_method == ""


def test_outsiders_get_404_and_anonymous_visitors_log_in(client, campaign, player, outsider) -> None:
    client.force_login(player)
    character = start(client, campaign)
    client.force_login(outsider)
    assert client.get(reverse("characters:create", args=[campaign.pk])).status_code == 404
    assert client.get(step_url(character, "abilities")).status_code == 404
    client.logout()
    response = client.get(step_url(character, "abilities"))
    assert response.status_code == 302
    assert "login" in response["Location"]


def test_a_finished_character_goes_to_its_sheet(client, campaign, player) -> None:
    from django.core.management import call_command

    call_command("demo")
    brunella = Character.objects.get(name="Brunella")
    client.force_login(brunella.owner)
    response = client.get(step_url(brunella, "abilities"))
    assert response["Location"] == reverse("characters:sheet", args=[brunella.pk])


def test_a_step_saved_from_a_stale_page_is_refused_with_409_and_nothing_changes(client, campaign, player, gm) -> None:
    client.force_login(player)
    character = start(client, campaign)
    opened_at = character.version
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    client.post(step_url(character, "abilities"), {"method": "balanced", **dice, "version": opened_at})

    # The same page, submitted again from an old tab with other dice.
    other = {"will": "d10", "charm": "d4", "pulse": "d6", "intellect": "d6", "reflex": "d8"}
    response = client.post(step_url(character, "abilities"), {"method": "balanced", **other, "version": opened_at})

    assert response.status_code == 409
    assert "was saved somewhere else" in response.content.decode()
    character.refresh_from_db()
    assert character.ability("will").label == "d6"


def test_a_refused_step_shows_what_was_typed(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    client.post(step_url(character, "abilities"), {"method": "balanced", **dice})
    client.post(step_url(character, "skills"), {})
    client.post(step_url(character, "specializations"), {})
    client.post(step_url(character, "traits"), {})

    response = client.post(
        step_url(character, "equipment"),
        {"asset-0-name": "Lantern", "asset-0-level": "1", "asset-0-kind": "thing",
         "weapon-0-name": "Sword", "weapon-0-accuracy": "d20", "weapon-0-damage": "d6"},
    )  # fmt: skip

    page = response.content.decode()
    assert response.status_code == 400
    assert 'value="Lantern"' in page
    assert 'value="Sword"' in page
    assert not character.assets.exists()
