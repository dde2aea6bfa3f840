"""The Lucky 13 attack on the encounter page, as the GM calls it: situational steps and a combatant
(character or NPC) assisting either side, in the chance shown before the attack and in the roll kept;
the form starting with the acting combatant against someone else; chances as percentages with the
exact fraction on demand; the dice labelled; and a refusal beside the form, the panel kept."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from characters.models import Character
from play import encounters
from play.models import Combatant, Encounter, Roll
from tests.characters.conftest import make_character
from tests.play.npcs import GOBLIN, npc

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def url(name, campaign):
    return reverse(f"play:{name}", args=[campaign.pk])


@pytest.fixture
def fight(campaign, gm, player):
    """Brunella (Reflex d10, Fighting d10 with Longsword 1, Longsword d8/d8, Leather d4), a goblin and a
    shaman (Reflex d10, Combat d8), initiative rolled."""
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    (hero,) = encounters.add_characters(**ids, by=gm, character_ids=[make_character(campaign, player).pk])
    (goblin,) = encounters.add_npcs(**ids, by=gm, **GOBLIN)
    (shaman,) = encounters.add_npcs(**ids, by=gm, **npc("Shaman", 4, 3, 0, 0, 0, 2))
    encounters.roll_initiative(**ids, by=gm, rng=random.Random(3))
    for combatant in (hero, goblin, shaman):
        combatant.refresh_from_db()
    return hero, goblin, shaman


COVER = {"step_1_name": "Cover", "step_1_side": "defender", "step_1_die": "combat", "step_1_steps": "2"}


def test_the_chance_before_the_attack_includes_the_situational_steps(client, gm, campaign, fight):
    hero, goblin, _ = fight
    client.force_login(gm)
    query = {"attacker": hero.pk, "target": goblin.pk, **COVER}
    body = client.get(url("encounter", campaign), query).content.decode()
    plan = encounters.plan_attack(campaign, hero, goblin, COVER)
    plain = encounters.plan_attack(campaign, hero, goblin, {})
    assert plan.chance < plain.chance
    assert f"{float(plan.chance) * 100:.1f}%" in body
    # The goblin's Combat d4, up two for cover: d8, labelled with the step's name.
    assert (
        '<span class="dice-role">Combat</span> <span class="note">(skill: Fighting)</span> d4 → <strong>d8</strong>'
        in body
    )
    assert '<span class="note">Cover: +2</span>' in body
    # Each side's chance of a dilemma, called before the roll (the goblin: d6 + d8 now, no armor).
    assert f"A dilemma for {goblin.name}</dt><dd>" in body
    assert plan.details["p_defender_dilemma"] == 1 - Fraction(5, 6) * Fraction(7, 8)
    # The Roll form sends back exactly the steps the chance was computed with.
    for field, value in COVER.items():
        assert f'<input type="hidden" name="{field}" value="{value}">' in body
    # The form keeps the steps as typed.
    assert 'id="step-1-name" name="step_1_name" type="text" maxlength="40" value="Cover"' in body
    assert '<details class="situational" open>' in body

    response = client.post(url("encounter-attack", campaign), query, **HX)
    assert response.status_code == 200
    roll = Roll.objects.get(kind="attack")
    assert roll.spec["situational"] == [{"name": "Cover", "side": "defender", "die": "combat", "steps": 2}]
    assert roll.spec["defender_dice"] == ["d6", "d8", "none"]
    assert roll.chance == f"{plan.chance.numerator}/{plan.chance.denominator}"
    assert roll.label == "Brunella attacks Goblin (Cover: Goblin's Combat +2)"
    assert "Cover: Goblin's Combat up 2." in response.content.decode()  # the last attack, by name
    log = client.get(url("rolls", campaign)).content.decode()
    assert "Brunella attacks Goblin (Cover: Goblin&#x27;s Combat +2)" in log


def test_an_npc_assists_a_character_and_the_roll_says_so(client, gm, campaign, fight):
    hero, goblin, shaman = fight
    client.force_login(gm)
    help_ = {"attacker_helper": str(shaman.pk), "attacker_help_with": "skill"}
    query = {"attacker": hero.pk, "target": goblin.pk, **help_}
    body = client.get(url("encounter", campaign), query).content.decode()
    # Fighting d10, Longsword 1 (+1) and the shaman's Combat d8 (+3): four steps, d12+d8.
    assert 'd10 → <strong>d12+d8</strong> <span class="note">Longsword 1: +1; Shaman helps (d8): +3</span>' in body
    assert f'<option value="{shaman.pk}" selected>Shaman (Combat d8, Reflex d10)</option>' in body
    assert f'<input type="hidden" name="attacker_helper" value="{shaman.pk}">' in body
    chance = encounters.plan_attack(campaign, hero, goblin, help_, [hero, goblin, shaman]).chance
    assert f"{float(chance) * 100:.1f}%" in body
    assert client.post(url("encounter-attack", campaign), query).status_code == 302
    roll = Roll.objects.get(kind="attack")
    assert roll.spec["attacker_assist"] == {"combatant": "Shaman", "die": "d8", "with": "skill", "steps": 3}
    assert "Shaman helped Brunella (d8): Combat up 3." in client.get(url("encounter", campaign)).content.decode()


def test_a_character_assists_an_npc_with_reflex(client, gm, campaign, fight):
    hero, goblin, shaman = fight
    client.force_login(gm)
    query = {"attacker": goblin.pk, "target": shaman.pk, "attacker_helper": str(hero.pk),
             "attacker_help_with": "ability"}  # fmt: skip
    body = client.get(url("encounter", campaign), query).content.decode()
    # The goblin's Reflex d6 and Brunella's Reflex d10 (+4): d12+d4.
    assert 'd6 → <strong>d12+d4</strong> <span class="note">Brunella helps (d10): +4</span>' in body


GOOD = {"step_1_name": "Cover", "step_1_steps": "1"}


@pytest.mark.parametrize(
    "choices",
    [
        {"step_1_name": "Cover"},  # no steps
        {"step_1_steps": "2"},  # no name
        {"step_1_name": "Cover", "step_1_steps": "0"},
        {"step_1_name": "Cover", "step_1_steps": "6"},
        {"step_1_name": "Cover", "step_1_steps": "-6"},
        {"step_1_name": "Cover", "step_1_steps": "²"},
        {"step_1_name": "Cover", "step_1_steps": "1e1"},
        {"step_1_name": "x" * 41, "step_1_steps": "1"},
        {"step_1_name": "Co\u0000ver", "step_1_steps": "1"},
        {**GOOD, "step_1_side": "both"},
        {**GOOD, "step_1_die": "armor"},
        {"step_5_name": "Fifth", "step_5_steps": "1"},  # at most four
        {"attacker_helper": "abc"},
        {"attacker_helper": "999999"},
        {"attacker_help_with": "luck"},
    ],
)
def test_a_bad_situational_step_or_helper_is_a_400_beside_the_form_and_rolls_nothing(
    client, gm, campaign, fight, choices
):
    hero, goblin, _ = fight
    client.force_login(gm)
    data = {"attacker": hero.pk, "target": goblin.pk, **choices}
    preview = client.get(url("encounter", campaign), data, **HX)
    assert preview.status_code == 400
    response = client.post(url("encounter-attack", campaign), data, **HX)
    assert response.status_code == 400
    for body in (preview.content.decode(), response.content.decode()):
        # The whole panel comes back, the refusal beside the attack form, what was typed kept.
        assert body.lstrip().startswith('<div id="encounter-body"')
        assert "Initiative order" in body
        refusal = body.index('id="refusal-attack"')
        assert body.index("<fieldset><legend>Attack</legend>") < refusal < body.index("Show the chance to hit")
        assert "Nothing was changed" in body
        assert f'<option value="{goblin.pk}" selected>Goblin</option>' in body
    assert not Roll.objects.filter(kind__in=["attack", "damage"]).exists()
    goblin.refresh_from_db()
    assert goblin.block["hit_points"] == 10


def test_a_refused_roll_without_javascript_is_the_page_with_the_refusal_beside_the_form(client, gm, campaign, fight):
    hero, _, _ = fight
    client.force_login(gm)
    response = client.post(url("encounter-attack", campaign), {"attacker": hero.pk, "target": hero.pk})
    assert response.status_code == 400
    body = response.content.decode()
    assert "<html" in body
    assert "A combatant cannot attack itself." in body
    assert 'id="refusal-attack"' in body
    assert "GM controls" in body


def test_a_dying_attacker_is_a_409_beside_the_form(client, gm, campaign, fight):
    hero, goblin, _ = fight
    client.force_login(gm)
    encounters.adjust(campaign_id=campaign.pk, encounter_id=goblin.encounter_id, by=gm, combatant_id=goblin.pk,
                      amount=-10, reason="a fall")  # fmt: skip
    response = client.get(url("encounter", campaign), {"attacker": goblin.pk, "target": hero.pk}, **HX)
    assert response.status_code == 409
    body = response.content.decode()
    assert "Goblin is in no state to attack." in body
    assert 'id="refusal-attack"' in body


def test_other_refusals_come_back_beside_their_own_forms(client, gm, campaign, fight):
    _, goblin, _ = fight
    client.force_login(gm)
    response = client.post(
        url("encounter-adjust", campaign),
        {"combatant": goblin.pk, "direction": "damage", "amount": "5", "reason": "  "},
        **HX,
    )
    assert response.status_code == 400
    body = response.content.decode()
    assert 'id="refusal-adjust"' in body
    assert body.index("Heal or damage") < body.index('id="refusal-adjust"')
    assert 'name="amount" type="number" min="1" max="1000" required value="5"' in body  # kept as typed
    first = Combatant.objects.get(order=0)
    moved = client.post(url("encounter-move", campaign), {"combatant": first.pk, "direction": "up"}, **HX)
    assert moved.status_code == 409
    assert 'id="refusal-move"' in moved.content.decode()
    # A form the page no longer shows: the refusal goes at the top of the body.
    again = client.post(url("encounter-initiative", campaign), {}, **HX)
    assert again.status_code == 409
    assert 'id="refusal-top"' in again.content.decode()


def test_the_form_starts_with_the_acting_combatant_against_someone_else(client, gm, campaign, fight):
    encounter = Encounter.objects.get()
    client.force_login(gm)
    for _ in range(3):
        body = client.get(url("encounter", campaign)).content.decode()
        acting = Combatant.objects.get(order=encounter.turn)
        attacker = body[body.index('id="attack-attacker"') : body.index('id="attack-target"')]
        target = body[body.index('id="attack-target"') : body.index("</select>", body.index('id="attack-target"'))]
        assert f'<option value="{acting.pk}" selected>' in attacker
        assert attacker.count(" selected>") == 1
        assert target.count(" selected>") == 1
        assert f'<option value="{acting.pk}" selected>' not in target
        encounter = encounters.next_turn(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm)


def test_chances_are_percentages_with_the_exact_fraction_on_demand(client, gm, campaign, fight):
    hero, goblin, _ = fight
    Campaign.objects.filter(pk=campaign.pk).update(options={**campaign.options, "explosion": "gritty"})
    campaign = Campaign.objects.get(pk=campaign.pk)
    client.force_login(gm)
    body = client.get(url("encounter", campaign), {"attacker": hero.pk, "target": goblin.pk}).content.decode()
    plan = encounters.plan_attack(campaign, hero, goblin, {})
    exact = f"{plan.chance.numerator}/{plan.chance.denominator}"
    assert f'<details class="exact"><summary title="exactly {exact}">{float(plan.chance) * 100:.1f}%</summary>' in body
    assert f'<span class="fraction">exactly {exact}</span>' in body
    # Cinematic explosions have no highest total: the bounded sum says so.
    Campaign.objects.filter(pk=campaign.pk).update(options={**campaign.options, "explosion": "cinematic"})
    body = client.get(url("encounter", campaign), {"attacker": hero.pk, "target": goblin.pk}).content.decode()
    assert "(within 10⁻¹²)" in body
    client.post(url("encounter-attack", campaign), {"attacker": hero.pk, "target": goblin.pk})
    roll = Roll.objects.get(kind="attack")
    body = client.get(url("encounter", campaign)).content.decode()
    assert f'<span class="fraction">{roll.chance}, as the roll log keeps it</span>' in body


def test_the_buttons_look_like_the_rest_of_the_site(client, gm, campaign, fight):
    hero, goblin, _ = fight
    client.force_login(gm)
    body = client.get(url("encounter", campaign), {"attacker": hero.pk, "target": goblin.pk}).content.decode()
    for button in ("Roll the attack", "Next turn", "Apply"):
        assert f'<button type="submit" class="button">{button}</button>' in body
    assert '<button type="submit" class="button secondary">Show the chance to hit</button>' in body
    assert '<button type="submit" class="button danger">End the encounter…</button>' in body
    assert '<button type="submit">' not in body


def test_the_page_query_count_holds_with_helpers_and_steps(client, gm, campaign, fight, django_assert_num_queries):
    hero, goblin, shaman = fight
    client.force_login(gm)
    query = {"attacker": hero.pk, "target": goblin.pk, "attacker_helper": str(shaman.pk), **COVER}
    # The session with its user, campaign, its members, the running encounter, the latest ended encounters, its
    # combatants with their characters, the last attack: the helper is one of the combatants loaded.
    with django_assert_num_queries(7):
        assert client.get(url("encounter", campaign), query).status_code == 200


def test_players_cannot_call_steps_or_helpers(client, gm, player, outsider, campaign, fight):
    hero, goblin, shaman = fight
    encounter = Encounter.objects.get()
    while encounter.turn != hero.order:  # even on Brunella's turn, when her player attacks with her
        encounter = encounters.next_turn(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm)
    data = {"attacker": hero.pk, "target": goblin.pk, "attacker_helper": str(shaman.pk), **COVER}
    client.force_login(player)
    assert client.post(url("encounter-attack", campaign), data).status_code == 403
    for call in ({"attacker_helper": str(shaman.pk)}, COVER, {"attacker_roll": "background"}):
        form = {"attacker": hero.pk, "target": goblin.pk, **call}
        assert client.post(url("encounter-attack", campaign), form).status_code == 403
    response = client.get(url("encounter", campaign), data)
    assert response.status_code == 403
    assert "Situational steps" not in response.content.decode()
    body = client.get(url("encounter", campaign)).content.decode()  # her own attack form, without the GM's calls
    assert "Show the chance to hit" in body
    assert "Situational steps" not in body
    assert "Who helps" not in body
    client.force_login(outsider)
    assert client.post(url("encounter-attack", campaign), data).status_code == 404
    assert not Roll.objects.filter(kind="attack").exists()
    assert Character.objects.get(pk=hero.character_id).document.hit_points == 30
