"""The Combat skill is a role, not a name (rules README): the campaign's skill list marks the skill
that fights (the options form's Fights box, at most one), an encounter rolls the marked skill, and a
rename keeps it the one; a campaign stored before the mark fights with the skill it always did."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from play import encounters
from rules.systems import lucky13
from tests.campaigns.helpers import html, options_post, saved_rows
from tests.characters.conftest import make_character

pytestmark = pytest.mark.django_db


def settings_url(campaign: Campaign) -> str:
    return reverse("campaigns:settings", args=[campaign.pk])


def settings_post(campaign: Campaign, rows: list[dict]) -> dict:
    options = campaign.settings
    return options_post(system=None, **{**options, "skills": rows, "name": campaign.name,
                                        "description": campaign.description})  # fmt: skip


def joins_with(campaign: Campaign, gm, character) -> dict:
    """The stat block the character brings to a new encounter."""
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name=f"Fight {character.pk}")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    (combatant,) = encounters.add_characters(**ids, by=gm, character_ids=[character.pk])
    encounters.end_encounter(**ids, by=gm)
    return combatant.block


def test_the_options_form_ticks_the_skill_that_fights(client, gm, campaign) -> None:
    client.force_login(gm)
    page = html(client.get(settings_url(campaign)))
    assert 'name="skills-4-combat" id="id_skills-4-combat" checked' in page  # Fighting, the Fantasy list's
    assert page.count('-combat" id=') == 5 + 2  # a box on every row, the blank ones too
    assert "Tick Fights on the skill that fights" in page


def test_renaming_the_skill_that_fights_keeps_it_the_one_an_encounter_rolls(client, gm, player, campaign) -> None:
    brunella = make_character(campaign, player)  # Fighting d10, Sneaking d8
    assert joins_with(campaign, gm, brunella)["combat"] == "d10"
    rows = saved_rows(campaign.settings)
    assert rows[4]["name"] == "Fighting"
    rows[4]["name"] = "Swordplay"
    client.force_login(gm)
    assert client.post(settings_url(campaign), settings_post(campaign, rows)).status_code == 302
    campaign.refresh_from_db()
    assert lucky13.combat_skill_name(campaign.settings) == "Swordplay"
    brunella.refresh_from_db()
    assert [s.name for s in brunella.document.skills][4] == "Swordplay"
    assert joins_with(campaign, gm, brunella)["combat"] == "d10"


def test_the_gm_moves_the_mark_and_the_encounter_follows(client, gm, player, campaign) -> None:
    brunella = make_character(campaign, player)
    rows = saved_rows(campaign.settings)
    rows[4]["combat"], rows[3]["combat"] = False, True  # Sneaking fights now
    client.force_login(gm)
    assert client.post(settings_url(campaign), settings_post(campaign, rows)).status_code == 302
    campaign.refresh_from_db()
    assert campaign.options["skill_preset"] == "custom"  # no preset marks Sneaking
    assert joins_with(campaign, gm, brunella)["combat"] == "d8"
    # And with no skill that fights, a character brings no Combat die.
    rows = saved_rows(campaign.settings)
    rows[3]["combat"] = False
    assert client.post(settings_url(campaign), settings_post(campaign, rows)).status_code == 302
    campaign.refresh_from_db()
    assert joins_with(campaign, gm, brunella)["combat"] is None


def test_two_skills_that_fight_are_refused_and_nothing_changes(client, gm, campaign) -> None:
    before = campaign.options
    rows = saved_rows(campaign.settings)
    rows[0]["combat"] = True  # Spellcasting, beside Fighting
    client.force_login(gm)
    response = client.post(settings_url(campaign), settings_post(campaign, rows))
    assert response.status_code == 400
    assert "mark at most one skill as the one that fights" in html(response)
    campaign.refresh_from_db()
    assert campaign.options == before


def test_a_campaign_stored_before_the_mark_fights_as_it_always_did(client, gm, player, campaign) -> None:
    # Options as they were stored before the skill list marked the skill that fights.
    old = {**campaign.options, "skills": [{"name": n, "ability": a} for n, a in lucky13.SKILL_PRESETS["fantasy"][1]]}
    Campaign.objects.filter(pk=campaign.pk).update(options=old)
    campaign = Campaign.objects.get(pk=campaign.pk)
    assert lucky13.combat_skill_name(campaign.settings) == "Fighting"
    brunella = make_character(campaign, player)
    assert joins_with(campaign, gm, brunella)["combat"] == "d10"
    client.force_login(gm)
    assert 'name="skills-4-combat" id="id_skills-4-combat" checked' in html(client.get(settings_url(campaign)))
    assert "Fighting (Reflex): the skill that fights" in html(
        client.get(reverse("campaigns:detail", args=[campaign.pk]))
    )


def test_the_attack_form_offers_the_specializations_of_the_skill_that_fights(client, gm, player, campaign) -> None:
    rows = saved_rows(campaign.settings)
    rows[4]["combat"], rows[0]["combat"] = False, True  # Spellcasting fights: Teleport and Fireball
    client.force_login(gm)
    client.post(settings_url(campaign), settings_post(campaign, rows))
    campaign.refresh_from_db()
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Duel of wizards")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    encounters.add_characters(**ids, by=gm, character_ids=[make_character(campaign, player).pk])
    encounters.add_npcs(**ids, by=gm, name="Imp", stats={"reflex": "d6", "pulse": "d4"})
    encounters.roll_initiative(**ids, by=gm, rng=random.Random(2))
    page = html(client.get(reverse("play:encounter", args=[campaign.pk])))
    assert "Brunella: Teleport 2" in page
    assert "Brunella: Longsword 1" not in page
