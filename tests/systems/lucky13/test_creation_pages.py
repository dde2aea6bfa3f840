"""The creation pages: the whole flow through plain form posts, and who may use them."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from characters.models import Character

pytestmark = pytest.mark.django_db


def step_url(character: Character, step: str) -> str:
    return reverse("characters:create-step", args=[character.pk, step])


def saved(character: Character) -> Character:
    return Character.objects.get(pk=character.pk)


def post(client, character: Character, step: str, data: dict | None = None):
    """A step's form posted as its page sends it: with the draft's version the page was made from (the
    draft's version now, unless ``data`` says another)."""
    return client.post(step_url(character, step), {"version": saved(character).version, **(data or {})})


def skill_id(character: Character, name: str) -> str:
    return str(next(s.id for s in saved(character).document.skills if s.name == name))


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
    response = post(client, character, "abilities", {"method": "balanced", **dice, "action": "next"})
    assert response["Location"] == step_url(character, "skills")

    assert client.get(step_url(character, "skills")).status_code == 200
    response = post(client, character, "skills", {"action": "next"})
    assert response["Location"] == step_url(character, "specializations")

    fighting, sneaking = skill_id(character, "Fighting"), skill_id(character, "Sneaking")
    page = client.get(step_url(character, "specializations")).content.decode()
    assert f'<option value="{fighting}">Fighting</option>' in page
    response = post(
        client, character, "specializations",
        {"spec-0-skill": fighting, "spec-0-name": "Broadsword", "spec-1-skill": "", "spec-1-name": ""},
    )  # fmt: skip
    assert response["Location"] == step_url(character, "traits")

    response = post(
        client, character, "traits",
        {"trait-0-kind": "background", "trait-0-name": "Mercenary", "trait-0-description": "Free companies"},
    )  # fmt: skip
    assert response["Location"] == step_url(character, "equipment")

    response = post(client, character, "equipment", {
            "asset-0-name": "Old map", "asset-0-kind": "thing", "asset-0-level": "2", "asset-0-skills": [sneaking],
            "weapon-0-name": "Broadsword", "weapon-0-accuracy": "d8", "weapon-0-damage": "d10",
            "armor-0-name": "", "armor-0-defense": "d4",
        },
    )  # fmt: skip
    assert response["Location"] == step_url(character, "review")

    review = client.get(step_url(character, "review")).content.decode()
    assert "Broadsword" in review
    assert "Old map" in review

    response = post(client, character, "review", {"action": "next"})
    assert response["Location"] == reverse("characters:sheet", args=[character.pk])
    character.refresh_from_db()
    sheet = character.document
    assert character.status == "active"
    assert sheet.hit_points == 40
    assert [p.name for p in sheet.skill(int(fighting)).specializations] == ["Broadsword"]
    assert sheet.assets[0].skills == (int(sneaking),)
    assert sheet.creation.step == ""
    assert {c.by for c in character.sheet_changes.all()} == {player}


def test_random_abilities_are_rolled_by_the_server_on_a_post(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    response = post(client, character, "abilities", {"action": "roll", "will": "d12"})
    assert response.status_code == 302
    character.refresh_from_db()
    assert character.document.creation.ability_method == "random"
    assert len(character.document.creation.ability_rolls) == 5
    page = client.get(step_url(character, "abilities")).content.decode()
    assert "The rolls stand" in page


def test_a_bad_array_is_a_400_with_the_rule_and_nothing_saved(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    dice = {"will": "d12", "charm": "d12", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    response = post(client, character, "abilities", {"method": "balanced", **dice})
    assert response.status_code == 400
    page = response.content.decode()
    assert "The balanced array is d4 d6 d6 d8 d10: too many d12." in page
    assert '<option value="d12" selected>' in page  # the dice as chosen, to fix one
    character.refresh_from_db()
    assert character.document.abilities.will is None


def test_a_missing_die_is_a_400(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    response = post(client, character, "abilities", {"method": "balanced", "will": "d6"})
    assert response.status_code == 400
    assert "Choose a die for Charm." in response.content.decode()


def test_save_and_finish_later_keeps_the_draft(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    response = post(client, character, "abilities", {"method": "balanced", **dice, "action": "later"})
    assert response["Location"] == reverse("campaigns:detail", args=[campaign.pk])
    character.refresh_from_db()
    assert character.status == "draft"
    assert character.document.creation.step == "skills"
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
    assert post(client, character, "abilities", {"action": "roll"}).status_code == 404
    character.refresh_from_db()
    assert character.document.creation.ability_method == ""


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
    from tests.characters.conftest import make_character

    brunella = make_character(campaign, player)
    client.force_login(player)
    response = client.get(step_url(brunella, "abilities"))
    assert response["Location"] == reverse("characters:sheet", args=[brunella.pk])


def test_a_step_saved_from_a_stale_page_is_refused_with_409_and_nothing_changes(client, campaign, player, gm) -> None:
    client.force_login(player)
    character = start(client, campaign)
    opened_at = character.version
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    post(client, character, "abilities", {"method": "balanced", **dice, "version": opened_at})

    # The same page, submitted again from an old tab with other dice.
    other = {"will": "d10", "charm": "d4", "pulse": "d6", "intellect": "d6", "reflex": "d8"}
    response = post(client, character, "abilities", {"method": "balanced", **other, "version": opened_at})

    assert response.status_code == 409
    page = response.content.decode()
    assert "was saved somewhere else" in page
    will = re.search(r'<select id="id_will".*?</select>', page, re.S).group(0)
    assert '<option value="d10" selected>' in will  # the dice as chosen on the old page, to save again
    character.refresh_from_db()
    assert character.document.abilities.will == "d6"
    assert f'name="version" value="{character.version}"' in page


def test_a_refused_step_shows_what_was_typed(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    post(client, character, "abilities", {"method": "balanced", **dice})
    post(client, character, "skills", {})
    post(client, character, "specializations", {})
    post(client, character, "traits", {})

    response = post(
        client, character, "equipment",
        {"asset-0-name": "Lantern", "asset-0-level": "1", "asset-0-kind": "thing",
         "weapon-0-name": "Sword", "weapon-0-accuracy": "d20", "weapon-0-damage": "d6"},
    )  # fmt: skip

    page = response.content.decode()
    assert response.status_code == 400
    assert 'value="Lantern"' in page
    assert 'value="Sword"' in page
    assert saved(character).document.weapons == ()


def test_refused_picks_stay_on_the_page(client, gm, player) -> None:
    from campaigns.models import Campaign, Membership

    campaign = Campaign.objects.create(name="Points", system="lucky13", options={"skill_method": "point_buy"})
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    client.force_login(player)
    character = start(client, campaign)
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    post(client, character, "abilities", {"method": "balanced", **dice})

    ids = [s.id for s in saved(character).document.skills]
    too_dear = {f"skill-{i}": "d12" for i in ids}
    response = post(client, character, "skills", {**too_dear, "version": saved(character).version})
    page = response.content.decode()
    assert response.status_code == 400
    assert "Those dice cost 25 points; the budget is 15." in page
    assert page.count('<option value="d12" selected>') == len(ids)
    assert all(s.die is None for s in saved(character).document.skills)

    post(client, character, "skills", {f"skill-{i}": "d6" for i in ids[:3]} | {f"skill-{i}": "d4" for i in ids[3:]})
    response = post(
        client, character, "specializations",
        {"took_impairment": "on", **{f"spec-{n}-skill": str(ids[0]) for n in range(5)},
         **{f"spec-{n}-name": f"Trick {n}" for n in range(5)}},
    )  # fmt: skip
    page = response.content.decode()
    assert response.status_code == 400
    assert "at most 4" in page
    assert 'name="took_impairment" checked' in page
    assert 'value="Trick 4"' in page


def test_random_skills_are_rolled_on_a_post_and_a_skill_the_gm_adds_later_too(client, gm, player) -> None:
    from campaigns.models import Campaign, Membership

    campaign = Campaign.objects.create(name="Dice", system="lucky13", options={"skill_method": "random"})
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    client.force_login(player)
    character = start(client, campaign)
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    post(client, character, "abilities", {"method": "balanced", **dice})
    assert "Roll the skills" in client.get(step_url(character, "skills")).content.decode()
    assert post(client, character, "skills", {"action": "roll"})["Location"] == step_url(character, "skills")
    rolls = {s.name: s.rolled for s in saved(character).document.skills}
    assert all(rolls.values())
    assert "Roll the skills" not in client.get(step_url(character, "skills")).content.decode()

    campaign.options = {
        **campaign.options,
        "skills": [*campaign.settings["skills"], {"name": "Riding", "ability": None}],
    }
    campaign.save()
    page = client.get(step_url(character, "skills")).content.decode()
    assert "Riding" in page
    assert "Roll the skills" in page
    post(client, character, "skills", {"action": "roll"})
    after = {s.name: s.rolled for s in saved(character).document.skills}
    assert {name: after[name] for name in rolls} == rolls
    assert after["Riding"]


def test_the_review_shows_the_whole_draft(client, campaign, player) -> None:
    client.force_login(player)
    character = start(client, campaign)
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    post(client, character, "abilities", {"method": "balanced", **dice})
    post(client, character, "skills", {})
    post(client, character, "specializations", {"spec-0-skill": skill_id(character, "Fighting"), "spec-0-name": "Axe"})
    post(client, character, "traits", {"trait-0-kind": "impairment", "trait-0-name": "Bad knee"})
    post(client, character, "equipment", {"asset-0-name": "Uncle Otto", "asset-0-kind": "person", "asset-0-level": "3",
         "asset-0-skills": [skill_id(character, "Healing")], "armor-0-name": "Leather", "armor-0-defense": "d4"},
    )  # fmt: skip
    page = client.get(step_url(character, "review")).content.decode()
    assert 'Fighting</strong> <span class="die-label">d8</span>: Axe 1 → d10' in page
    assert "Impairment: <strong>Bad knee</strong>" in page
    assert "Uncle Otto (Standard 3, a person): helps Healing" in page
    assert "Leather: defensive die d4" in page
    assert "Hit points: 40 (Pulse d10)." in page
