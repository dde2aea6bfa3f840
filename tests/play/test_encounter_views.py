"""The encounter page and the GM's actions, with the full cast: the GM acts, a player reads (403 on
the GM's actions) and attacks with their own character on its turn (409 out of turn), an outsider
gets 404, an anonymous visitor is sent to log in; bad input is a 4xx that changes nothing."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from characters.models import Character
from play import encounters
from play.models import Combatant, Encounter, Roll
from tests.characters.conftest import LONGSWORD, LONGSWORD_SPEC, TELEPORT, make_character
from tests.play.npcs import GOBLIN

pytestmark = pytest.mark.django_db

HX = {"HTTP_HX_REQUEST": "true"}


def url(name, campaign):
    return reverse(f"play:{name}", args=[campaign.pk])


def hit_points(npc: Combatant) -> int:
    """An NPC's hit points as they are now: on its stat block."""
    npc.refresh_from_db()
    return npc.block["hit_points"]


@pytest.fixture
def brunella(campaign, player) -> Character:
    return make_character(campaign, player)


@pytest.fixture
def encounter(campaign, gm) -> Encounter:
    return encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")


@pytest.fixture
def fight(campaign, gm, encounter, brunella):
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    (hero,) = encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk])
    (goblin,) = encounters.add_npcs(**ids, by=gm, **GOBLIN)
    import random

    encounters.roll_initiative(**ids, by=gm, rng=random.Random(3))
    hero.refresh_from_db()
    goblin.refresh_from_db()
    return hero, goblin


def test_the_gm_sees_the_controls(client, gm, campaign, fight):
    client.force_login(gm)
    response = client.get(url("encounter", campaign))
    assert response.status_code == 200
    body = response.content.decode()
    assert "Ambush at the ford" in body
    assert "Initiative order" in body
    assert "GM controls" in body
    assert "30 of 30 hp" in body
    assert "10 of 10 hp" in body
    assert 'aria-current="true"' in body


def test_a_player_reads_without_controls(client, player, campaign, fight):
    client.force_login(player)
    response = client.get(url("encounter", campaign))
    assert response.status_code == 200
    body = response.content.decode()
    assert "Initiative order" in body
    assert "GM controls" not in body


def test_no_encounter_running(client, gm, player, campaign):
    client.force_login(player)
    assert "No encounter is running" in client.get(url("encounter", campaign)).content.decode()
    assert "Start an encounter" not in client.get(url("encounter", campaign)).content.decode()
    client.force_login(gm)
    assert "Start an encounter" in client.get(url("encounter", campaign)).content.decode()


def test_outsider_404_and_anonymous_login(client, outsider, campaign, fight):
    response = client.get(url("encounter", campaign))
    assert response.status_code == 302
    assert "login" in response["Location"]
    client.force_login(outsider)
    assert client.get(url("encounter", campaign)).status_code == 404
    assert client.post(url("encounter-next-turn", campaign)).status_code == 404


def test_the_htmx_fragment(client, gm, campaign, fight):
    client.force_login(gm)
    response = client.get(url("encounter", campaign), **HX)
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<div id="encounter-body"')
    assert "<html" not in body


def test_the_link_from_the_campaign_page(client, player, campaign):
    client.force_login(player)
    assert url("encounter", campaign) in client.get(reverse("campaigns:detail", args=[campaign.pk])).content.decode()


def test_start_add_and_roll_initiative_through_the_pages(client, gm, campaign, brunella):
    client.force_login(gm)
    response = client.post(url("encounter-start", campaign), {"name": "Bridge"})
    assert response.status_code == 302
    assert response["Location"] == url("encounter", campaign)
    encounter = Encounter.objects.get()
    client.post(url("encounter-add-characters", campaign), {"characters": [brunella.pk]})
    fields = {"name": "Wolf", "count": "3", "reflex": "d8", "combat": "d6", "accuracy": "", "damage": "d6",
              "armor": "", "pulse": "d6", "hit_points": ""}  # fmt: skip
    assert client.post(url("encounter-add-npcs", campaign), fields).status_code == 302
    assert Combatant.objects.filter(encounter=encounter).count() == 4
    response = client.post(url("encounter-initiative", campaign), {"group_rolls": "1"}, **HX)
    assert response.status_code == 200
    assert "Initiative order" in response.content.decode()
    encounter.refresh_from_db()
    assert encounter.round == 1
    # One roll for Brunella, one for the wolves (plus any roll-offs).
    assert Roll.objects.filter(kind="initiative", spec__roll_off__isnull=True).count() == 2


def test_attack_chance_before_and_result_after(client, gm, campaign, fight):
    hero, goblin = fight
    client.force_login(gm)
    response = client.get(url("encounter", campaign), {"attacker": hero.pk, "target": goblin.pk})
    body = response.content.decode()
    assert "hits Goblin with a chance of" in body
    assert "Roll the attack" in body
    response = client.post(url("encounter-attack", campaign), {"attacker": hero.pk, "target": goblin.pk})
    assert response.status_code == 302
    roll = Roll.objects.get(kind="attack")
    assert roll.chance_of == "hit"
    body = client.get(url("encounter", campaign)).content.decode()
    assert "Last attack" in body
    assert f"Roll #{roll.seq}" in body


def test_the_gm_attacks_in_secret_and_reveals_it_later(client, gm, player, campaign, fight):
    hero, goblin = fight
    client.force_login(gm)
    data = {"attacker": hero.pk, "target": goblin.pk, "secret": "1"}
    assert client.post(url("encounter-attack", campaign), data).status_code == 302
    attack = Roll.objects.get(kind="attack")
    assert attack.secret
    assert all(roll.secret for roll in Roll.objects.filter(kind__in=["attack", "damage"]))
    client.force_login(player)
    log = client.get(reverse("play:rolls", args=[campaign.pk])).content.decode()
    assert "attacks Goblin" not in log
    assert "A secret roll by the GM" in log
    client.force_login(gm)
    assert client.post(reverse("play:reveal-roll", args=[campaign.pk, attack.seq])).status_code == 302
    client.force_login(player)
    assert "attacks Goblin" in client.get(reverse("play:rolls", args=[campaign.pk])).content.decode()


def test_damage_and_healing_from_the_page_change_the_characters_sheet(client, gm, campaign, fight):
    hero, _ = fight
    client.force_login(gm)
    for direction, amount in (("damage", "12"), ("heal", "5")):
        data = {"combatant": hero.pk, "direction": direction, "amount": amount, "reason": "the ford"}
        assert client.post(url("encounter-adjust", campaign), data, **HX).status_code == 200
    character = Character.objects.get(pk=hero.character_id)
    assert character.document.hit_points == 23
    assert list(character.sheet_changes.values_list("what", "by")) == [
        ("5 healing in Ambush at the ford: the ford", gm.pk),
        ("12 damage in Ambush at the ford: the ford", gm.pk),
    ]
    assert "23 of 30 hp" in client.get(url("encounter", campaign)).content.decode()


def test_adjust_minute_stabilize_next_turn_and_end(client, gm, campaign, fight):
    _hero, goblin = fight
    client.force_login(gm)
    response = client.post(
        url("encounter-adjust", campaign),
        {"combatant": goblin.pk, "direction": "damage", "amount": "10", "reason": "falls"},
    )
    assert response.status_code == 302
    assert hit_points(goblin) == 0
    assert "Dying" in client.get(url("encounter", campaign)).content.decode()
    assert client.post(url("encounter-act", campaign), {"action": "minute"}).status_code == 302
    assert hit_points(goblin) == -1
    data = {"action": "stabilize", "combatant": goblin.pk}
    assert client.post(url("encounter-act", campaign), data).status_code == 302
    goblin.refresh_from_db()
    assert goblin.state == {"stabilized": True}
    assert client.post(url("encounter-next-turn", campaign)).status_code == 302
    assert client.post(url("encounter-end", campaign)).status_code == 302
    assert not Encounter.objects.running().exists()


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("encounter-start", {"name": "Another"}),
        ("encounter-add-npcs", {"name": "Rat", "count": "1", "reflex": "d4", "combat": "", "accuracy": "",
                                "damage": "d4", "armor": "", "pulse": "d4"}),
        ("encounter-next-turn", {}),
        ("encounter-adjust", {}),
        ("encounter-act", {"action": "minute"}),
        ("encounter-act", {"action": "stabilize"}),
        ("encounter-end", {}),
        ("encounter-initiative", {}),
        ("encounter-add-characters", {}),
    ],
)  # fmt: skip
def test_players_may_not_act(client, player, other_player, campaign, fight, name, data):
    before = Roll.objects.count()
    for user in (player, other_player):
        client.force_login(user)
        assert client.post(url(name, campaign), data).status_code == 403
    assert Roll.objects.count() == before
    assert Encounter.objects.running().count() == 1
    assert Combatant.objects.count() == 2


def test_actions_are_post_only(client, gm, campaign, fight):
    client.force_login(gm)
    assert client.get(url("encounter-next-turn", campaign)).status_code == 405


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("encounter-attack", {"attacker": "x", "target": "1"}),
        ("encounter-adjust", {"combatant": "1", "direction": "damage", "amount": "-5", "reason": "x"}),
        ("encounter-adjust", {"combatant": "1", "direction": "sideways", "amount": "5", "reason": "x"}),
        ("encounter-adjust", {"combatant": "1", "direction": "heal", "amount": "5", "reason": "  "}),
        ("encounter-add-npcs", {"name": "Rat", "count": "99", "reflex": "d4", "combat": "", "accuracy": "",
                                "damage": "d4", "armor": "", "pulse": "d4"}),
        # A die is its label now: a rung, as the form used to send it, is no die.
        ("encounter-add-npcs", {"name": "Rat", "count": "1", "reflex": "1", "combat": "", "accuracy": "",
                                "damage": "d4", "armor": "", "pulse": "d4"}),
        ("encounter-add-characters", {"characters": "abc"}),
        ("encounter-add-characters", {"characters": "²"}),
        ("encounter-act", {"action": "stabilize", "combatant": "0"}),
    ],
)  # fmt: skip
def test_bad_input_is_a_4xx_and_changes_nothing(client, gm, campaign, fight, name, data):
    hero, goblin = fight
    client.force_login(gm)
    before = Roll.objects.count()
    response = client.post(url(name, campaign), data)
    assert 400 <= response.status_code < 500
    assert "Nothing was changed" in response.content.decode()
    assert hit_points(goblin) == 10
    assert Character.objects.get(pk=hero.character_id).document.hit_points == 30
    assert Roll.objects.count() == before
    assert Combatant.objects.count() == 2


def test_a_bad_attack_preview_is_a_400(client, gm, campaign, fight):
    hero, _ = fight
    client.force_login(gm)
    assert client.get(url("encounter", campaign), {"attacker": hero.pk, "target": hero.pk}).status_code == 400
    assert client.get(url("encounter", campaign), {"attacker": hero.pk, "target": "999999"}).status_code == 400


def test_a_second_encounter_is_a_409(client, gm, campaign, encounter):
    client.force_login(gm)
    assert client.post(url("encounter-start", campaign), {"name": "Another"}).status_code == 409
    assert Encounter.objects.count() == 1


def test_the_chance_with_a_chosen_weapon(client, gm, campaign, fight):
    hero, goblin = fight
    character = hero.character
    sheet = character.document.model_dump(mode="json")
    sheet["weapons"].append({"id": 15, "name": "Dagger", "accuracy": "d4", "damage": "d4"})
    character.sheet = {**sheet, "next_id": 16}
    character.save(update_fields=["sheet"])
    dagger = f"{hero.character_id}:15"  # the character, and the weapon's id on their sheet
    client.force_login(gm)
    body = client.get(url("encounter", campaign)).content.decode()
    assert f'<option value="{dagger}">Brunella: Dagger (d4 / d4)</option>' in body
    assert f'<option value="{hero.character_id}:{LONGSWORD}">Brunella: Longsword (d8 / d8)</option>' in body
    body = client.get(
        url("encounter", campaign), {"attacker": hero.pk, "target": goblin.pk, "weapon": dagger}
    ).content.decode()
    assert "with the Dagger" in body
    assert f'<option value="{dagger}" selected>' in body
    assert f'name="weapon" value="{dagger}"' in body
    response = client.post(
        url("encounter-attack", campaign), {"attacker": hero.pk, "target": goblin.pk, "weapon": dagger}
    )
    assert response.status_code == 302
    assert Roll.objects.get(kind="attack").spec["weapon"] == "Dagger"


def test_another_combatants_weapon_is_a_400(client, gm, campaign, fight):
    hero, goblin = fight
    client.force_login(gm)
    sword = f"{hero.character_id}:{LONGSWORD}"
    for weapon in (sword, str(LONGSWORD), f"{hero.character_id}:", "x:1", f"{hero.character_id}:0", "1:-1"):
        data = {"attacker": goblin.pk, "target": hero.pk, "weapon": weapon}
        assert client.get(url("encounter", campaign), data).status_code == 400
        assert client.post(url("encounter-attack", campaign), data).status_code == 400
    assert not Roll.objects.filter(kind="attack").exists()


def test_the_page_query_count_does_not_grow_with_combatants(
    client, gm, player, campaign, fight, encounter, django_assert_num_queries
):
    _, goblin = fight
    Combatant.objects.bulk_create(
        Combatant(encounter=encounter, name=f"Rat {i}", block=goblin.block, group=9) for i in range(10)
    )
    client.force_login(player)
    # The session with its user, campaign, its members, the running encounter, the latest ended encounters, its
    # combatants with their characters, the last attack.
    with django_assert_num_queries(7):
        assert client.get(url("encounter", campaign)).status_code == 200
    client.force_login(gm)
    # The same: initiative is rolled, so no list of characters to add (before it, one query more:
    # tests/play/test_encounter_add_list.py). The weapons and the Combat specializations of those
    # in the fight come from their sheets: no query.
    with django_assert_num_queries(7):
        assert client.get(url("encounter", campaign)).status_code == 200


def test_remove_a_combatant(client, gm, player, campaign, fight):
    _, goblin = fight
    client.force_login(player)
    assert client.post(url("encounter-remove", campaign), {"combatant": goblin.pk}).status_code == 403
    client.force_login(gm)
    assert client.post(url("encounter-remove", campaign), {"combatant": "x"}).status_code == 400
    goblin.refresh_from_db()
    assert not goblin.removed
    response = client.post(url("encounter-remove", campaign), {"combatant": goblin.pk}, **HX)
    assert response.status_code == 200
    assert "Goblin" not in response.content.decode()
    goblin.refresh_from_db()
    assert goblin.removed


# --- Combat specializations on the attack form ------------------------------------------------------


def longsword_choice(hero):
    """The same as the attack form names it: the character, and its id on her sheet."""
    return f"{hero.character_id}:{LONGSWORD_SPEC}"


def die_line(role: str, kind: str, die: str, *, base: str | None = None, steps: str = "") -> str:
    """One die of a side of the preview as the page labels it: which die it is (the ability, the skill,
    the weapon or the defensive die), the die before its steps, the die rolled, and the steps by name."""
    stepped = f"{base} → " if base else ""
    named = f' <span class="note">{steps}</span>' if steps else ""
    return (
        f'<li><span class="dice-role">{role}</span> <span class="note">({kind})</span> {stepped}'
        f"<strong>{die}</strong>{named}</li>"
    )


def test_the_preview_applies_the_specialization_named_like_the_weapon(client, gm, campaign, fight):
    hero, goblin = fight
    client.force_login(gm)
    body = client.get(url("encounter", campaign), {"attacker": hero.pk, "target": goblin.pk}).content.decode()
    assert die_line("Reflex", "ability", "d10") in body
    assert die_line("Combat", "skill: Fighting", "d12", base="d10", steps="Longsword 1: +1") in body
    assert die_line("Accuracy", "weapon: Longsword", "d8") in body
    assert die_line("Reflex", "ability", "d6") in body
    assert die_line("Combat", "skill: Fighting", "d4") in body
    assert die_line("Armor", "defensive die", "none") in body
    assert f'name="attacker_specialization" value="{longsword_choice(hero)}"' in body
    assert 'name="defender_specialization" value="none"' in body
    # The same chance as the attack's own plan with Brunella's Longsword specialization.
    plan = encounters.plan_attack(campaign, hero, goblin, {"attacker_specialization": longsword_choice(hero)})
    assert f"{float(plan.chance) * 100:.1f}%" in body


def test_the_preview_without_a_specialization_and_the_roll_that_follows(client, gm, campaign, fight):
    hero, goblin = fight
    client.force_login(gm)
    query = {"attacker": hero.pk, "target": goblin.pk, "attacker_specialization": "none"}
    body = client.get(url("encounter", campaign), query).content.decode()
    assert die_line("Combat", "skill: Fighting", "d10") in body
    assert die_line("Accuracy", "weapon: Longsword", "d8") in body
    assert "Longsword 1: +1" not in body
    assert '<option value="none" selected>None</option>' in body  # the form as the GM left it
    assert 'name="attacker_specialization" value="none"' in body
    chance = encounters.plan_attack(campaign, hero, goblin, {"attacker_specialization": "none"}).chance
    assert f"{float(chance) * 100:.1f}%" in body
    response = client.post(url("encounter-attack", campaign), {**query})
    assert response.status_code == 302
    roll = Roll.objects.get(kind="attack")
    assert roll.spec["attacker_dice"] == ["d10", "d10", "d8"]
    assert roll.chance == f"{chance.numerator}/{chance.denominator}"


def test_a_chosen_specialization_for_the_target_reaches_the_roll(client, gm, campaign, fight):
    hero, goblin = fight
    client.force_login(gm)
    query = {"attacker": goblin.pk, "target": hero.pk, "defender_specialization": longsword_choice(hero)}
    body = client.get(url("encounter", campaign), query, **HX).content.decode()
    assert body.lstrip().startswith('<div id="encounter-body"')
    assert die_line("Reflex", "ability", "d10") in body
    assert die_line("Combat", "skill: Fighting", "d12", base="d10", steps="Longsword 1: +1") in body
    assert die_line("Armor", "defensive die", "d4") in body
    assert f'<option value="{longsword_choice(hero)}" selected>Brunella: Longsword 1</option>' in body
    response = client.post(url("encounter-attack", campaign), query, **HX)
    assert response.status_code == 200
    roll = Roll.objects.get(kind="attack")
    assert roll.spec["defender_dice"] == ["d10", "d12", "d4"]
    assert "Brunella's Longsword 1 stepped Combat up 1." in response.content.decode()


def test_the_form_lists_only_combat_specializations(client, gm, player, campaign, fight):
    client.force_login(gm)
    body = client.get(url("encounter", campaign)).content.decode()
    assert "Brunella: Longsword 1" in body
    assert "Teleport" not in body  # a Spellcasting specialization
    client.force_login(player)
    assert "Combat specialization" not in client.get(url("encounter", campaign)).content.decode()


@pytest.mark.parametrize(
    "case",
    ["not a number", "zero", "a bare id", "like the weapon, for the target", "not under Combat", "for an NPC",
     "another character's"],
)  # fmt: skip
def test_a_bad_specialization_is_a_400_and_rolls_nothing(client, gm, campaign, fight, case):
    attacker, target = fight
    choices = {
        "not a number": {"attacker_specialization": "abc"},
        "zero": {"attacker_specialization": f"{attacker.character_id}:0"},
        "a bare id": {"attacker_specialization": str(LONGSWORD_SPEC)},
        "like the weapon, for the target": {"defender_specialization": "like-the-weapon"},
        "not under Combat": {"attacker_specialization": f"{attacker.character_id}:{TELEPORT}"},
        "for an NPC": {"attacker_specialization": longsword_choice(attacker)},
        # Casimir, not in the fight, has a Longsword with the same id on his sheet.
        "another character's": {
            "attacker_specialization": f"{make_character(campaign, attacker.character.owner, name='Casimir').pk}:"
            f"{LONGSWORD_SPEC}"
        },
    }[case]
    if case == "for an NPC":
        attacker, target = target, attacker
    client.force_login(gm)
    data = {"attacker": attacker.pk, "target": target.pk, **choices}
    assert client.get(url("encounter", campaign), data).status_code == 400
    response = client.post(url("encounter-attack", campaign), data)
    assert response.status_code == 400
    assert "Nothing was changed" in response.content.decode()
    assert not Roll.objects.filter(kind__in=["attack", "damage"]).exists()


def test_players_and_outsiders_cannot_attack_with_a_specialization(client, other_player, outsider, campaign, fight):
    hero, goblin = fight
    data = {"attacker": hero.pk, "target": goblin.pk, "attacker_specialization": longsword_choice(hero)}
    client.force_login(other_player)  # not Brunella's player
    assert client.post(url("encounter-attack", campaign), data).status_code == 403
    client.force_login(outsider)
    assert client.post(url("encounter-attack", campaign), data).status_code == 404
    assert not Roll.objects.filter(kind="attack").exists()


# --- Backgrounds and impairments on the attack form -------------------------------------------------


def test_a_background_and_an_impairment_change_the_chance_shown_before_the_attack(client, gm, campaign, fight):
    hero, goblin = fight
    client.force_login(gm)
    query = {"attacker": hero.pk, "target": goblin.pk, "attacker_roll": "background", "defender_roll": "impairment"}
    body = client.get(url("encounter", campaign), query).content.decode()
    sword = {"attacker_specialization": longsword_choice(hero)}
    rolls = {"attacker_roll": "background", "defender_roll": "impairment"}
    chance = encounters.plan_attack(campaign, hero, goblin, {**sword, **rolls}).chance
    plain = encounters.plan_attack(campaign, hero, goblin, sword).chance
    assert chance > plain
    assert f"{float(chance) * 100:.1f}%" in body
    assert f"{float(plain) * 100:.1f}%" not in body
    assert "Brunella rolls Reflex twice and keeps the higher (a background)." in body
    assert "Goblin rolls Reflex twice and keeps the lower (an impairment)." in body
    assert "On Brunella's sheet: background Soldier; impairment Bad knee." in body  # for the GM to judge
    assert '<input type="radio" name="attacker_roll" value="background" checked>' in body
    assert '<input type="radio" name="defender_roll" value="impairment" checked>' in body
    assert '<input type="hidden" name="attacker_roll" value="background">' in body
    assert '<input type="hidden" name="defender_roll" value="impairment">' in body

    response = client.post(url("encounter-attack", campaign), query, **HX)
    assert response.status_code == 200
    roll = Roll.objects.get(kind="attack")
    assert (roll.spec["attacker_roll"], roll.spec["defender_roll"]) == ("background", "impairment")
    assert roll.chance == f"{chance.numerator}/{chance.denominator}"
    assert len(roll.dice["attacker"]["ability_rolls"]) == 2
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="encounter-body"')
    assert "Brunella rolled Reflex twice, keeping the higher." in body
    assert "Goblin rolled Reflex twice, keeping the lower." in body


def test_by_default_neither_applies(client, gm, campaign, fight):
    hero, goblin = fight
    client.force_login(gm)
    body = client.get(url("encounter", campaign), {"attacker": hero.pk, "target": goblin.pk}).content.decode()
    assert '<input type="radio" name="attacker_roll" value="normal" checked>' in body
    assert '<input type="radio" name="defender_roll" value="normal" checked>' in body
    assert "Reflex twice and keeps" not in body
    assert client.post(url("encounter-attack", campaign), {"attacker": hero.pk, "target": goblin.pk}).status_code == 302
    roll = Roll.objects.get(kind="attack")
    assert (roll.spec["attacker_roll"], roll.spec["defender_roll"]) == ("normal", "normal")


@pytest.mark.parametrize("choices", [{"attacker_roll": "twice"}, {"defender_roll": "advantage"}])
def test_a_bad_ability_roll_is_a_400_and_rolls_nothing(client, gm, campaign, fight, choices):
    hero, goblin = fight
    client.force_login(gm)
    data = {"attacker": hero.pk, "target": goblin.pk, **choices}
    assert client.get(url("encounter", campaign), data).status_code == 400
    response = client.post(url("encounter-attack", campaign), data)
    assert response.status_code == 400
    assert "Nothing was changed" in response.content.decode()
    assert not Roll.objects.filter(kind__in=["attack", "damage"]).exists()
    assert hit_points(goblin) == 10


def test_players_and_outsiders_cannot_attack_with_a_background(client, other_player, outsider, campaign, fight):
    hero, goblin = fight
    data = {"attacker": hero.pk, "target": goblin.pk, "attacker_roll": "background"}
    client.force_login(other_player)  # not Brunella's player
    assert client.post(url("encounter-attack", campaign), data).status_code == 403
    response = client.get(url("encounter", campaign), data)
    assert response.status_code == 403
    assert "Reflex twice" not in response.content.decode()  # no preview of another's attack
    client.force_login(outsider)
    assert client.post(url("encounter-attack", campaign), data).status_code == 404
    assert not Roll.objects.filter(kind="attack").exists()


# --- Moving a combatant in the initiative order -------------------------------------------------------


def order_of(encounter):
    return list(encounter.combatants.filter(removed=False).order_by("order").values_list("name", flat=True))


def test_the_gm_moves_a_combatant_and_sees_the_new_order(client, gm, campaign, encounter, fight):
    hero, goblin = fight
    first = order_of(encounter)
    client.force_login(gm)
    body = client.get(url("encounter", campaign)).content.decode()
    last = goblin if first[-1] == "Goblin" else hero
    assert f'Move<span class="visually-hidden"> {last.name}</span> up' in body
    assert f'Move<span class="visually-hidden"> {last.name}</span> down' not in body  # already last
    response = client.post(url("encounter-move", campaign), {"combatant": last.pk, "direction": "up"})
    assert response.status_code == 302
    assert response["Location"] == url("encounter", campaign)
    assert order_of(encounter) == first[::-1]
    roll = Roll.objects.filter(kind="initiative").order_by("-seq").first()
    assert roll.spec["reorder"] is True
    log = client.get(url("rolls", campaign)).content.decode()
    assert f"The GM moved {last.name} up the initiative order, past {first[0]}, to place 1" in log


def test_moving_with_htmx_swaps_the_encounter_body(client, gm, campaign, encounter, fight):
    hero, _ = fight
    first = order_of(encounter)
    mover = hero if first[0] == "Goblin" else encounter.combatants.get(name="Goblin")
    client.force_login(gm)
    response = client.post(url("encounter-move", campaign), {"combatant": mover.pk, "direction": "up"}, **HX)
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="encounter-body"')
    assert "<html" not in body
    assert body.index(mover.name) < body.index(first[0])


def test_players_see_the_order_without_the_move_buttons(client, player, campaign, fight):
    client.force_login(player)
    body = client.get(url("encounter", campaign)).content.decode()
    assert "Initiative order" in body
    assert "encounter/move/" not in body


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("other_player", 403), ("outsider", 404)])
def test_only_the_gm_moves(client, request, campaign, encounter, fight, who, status):
    _, goblin = fight
    first = order_of(encounter)
    before = Roll.objects.count()
    client.force_login(request.getfixturevalue(who))
    assert (
        client.post(url("encounter-move", campaign), {"combatant": goblin.pk, "direction": "up"}).status_code == status
    )
    assert order_of(encounter) == first
    assert Roll.objects.count() == before


@pytest.mark.parametrize(
    "data",
    [{"combatant": "x", "direction": "up"}, {"combatant": "1", "direction": "sideways"}, {"direction": "up"},
     {"combatant": "999999", "direction": "up"}],
)  # fmt: skip
def test_a_bad_move_is_a_4xx_and_changes_nothing(client, gm, campaign, encounter, fight, data):
    first = order_of(encounter)
    before = Roll.objects.count()
    client.force_login(gm)
    response = client.post(url("encounter-move", campaign), data)
    assert 400 <= response.status_code < 500
    assert "Nothing was changed" in response.content.decode()
    assert order_of(encounter) == first
    assert Roll.objects.count() == before


def test_moving_the_first_up_is_a_409(client, gm, campaign, encounter, fight):
    first = encounter.combatants.get(order=0)
    client.force_login(gm)
    response = client.post(url("encounter-move", campaign), {"combatant": first.pk, "direction": "up"})
    assert response.status_code == 409
    assert "already first" in response.content.decode()


def test_moving_is_post_only(client, gm, campaign, fight):
    client.force_login(gm)
    assert client.get(url("encounter-move", campaign)).status_code == 405


# --- Removing a combatant: a confirmation step, then the log ------------------------------------------


def test_the_remove_form_leads_to_a_confirmation_that_changes_nothing(client, gm, campaign, fight):
    _, goblin = fight
    client.force_login(gm)
    body = client.get(url("encounter", campaign)).content.decode()
    assert f'action="{url("encounter-confirm-remove", campaign)}"' in body
    response = client.get(url("encounter-confirm-remove", campaign), {"combatant": goblin.pk})
    assert response.status_code == 200
    page = response.content.decode()
    assert "<html" in page
    assert "Take Goblin out of the fight?" in page
    assert f'action="{url("encounter-remove", campaign)}"' in page
    assert f'<input type="hidden" name="combatant" value="{goblin.pk}">' in page
    goblin.refresh_from_db()
    assert not goblin.removed
    assert not Roll.objects.filter(kind="removal").exists()


def test_the_confirmation_as_an_htmx_fragment(client, gm, campaign, fight):
    _, goblin = fight
    client.force_login(gm)
    response = client.get(url("encounter-confirm-remove", campaign), {"combatant": goblin.pk}, **HX)
    body = response.content.decode()
    assert response.status_code == 200
    assert body.lstrip().startswith('<div id="encounter-body"')
    assert "<html" not in body
    assert "Take Goblin out" in body
    assert f'hx-get="{url("encounter", campaign)}"' in body  # Cancel brings the encounter back


def test_confirming_removes_and_logs_with_the_reason(client, gm, player, campaign, fight):
    _, goblin = fight
    client.force_login(gm)
    response = client.post(url("encounter-remove", campaign), {"combatant": goblin.pk, "reason": "fled"})
    assert response.status_code == 302
    assert response["Location"] == url("encounter", campaign)
    goblin.refresh_from_db()
    assert goblin.removed
    roll = Roll.objects.get(kind="removal")
    assert roll.spec["reason"] == "fled"
    client.force_login(player)  # every member reads the log
    log = client.get(url("rolls", campaign)).content.decode()
    assert "The GM took Goblin out of the fight (fled), at 10 hit points." in log
    assert "Left the fight" in log


@pytest.mark.parametrize(("who", "status"), [("player", 403), ("outsider", 404)])
def test_only_the_gm_sees_the_confirmation(client, request, campaign, fight, who, status):
    _, goblin = fight
    client.force_login(request.getfixturevalue(who))
    assert client.get(url("encounter-confirm-remove", campaign), {"combatant": goblin.pk}).status_code == status


@pytest.mark.parametrize("combatant", ["", "x", "999999", "removed"])
def test_a_confirmation_for_nobody_in_the_fight_is_a_400(client, gm, campaign, encounter, fight, combatant):
    _, goblin = fight
    if combatant == "removed":
        encounters.remove_combatant(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm, combatant_id=goblin.pk)
        combatant = goblin.pk
    client.force_login(gm)
    before = Roll.objects.count()
    response = client.get(url("encounter-confirm-remove", campaign), {"combatant": combatant})
    assert response.status_code == 400
    assert Roll.objects.count() == before


def test_no_confirmation_without_a_running_encounter(client, gm, campaign, encounter, fight):
    _, goblin = fight
    encounters.end_encounter(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm)
    client.force_login(gm)
    assert client.get(url("encounter-confirm-remove", campaign), {"combatant": goblin.pk}).status_code == 400


def test_ending_the_encounter_asks_first(client, gm, player, campaign, fight):
    client.force_login(gm)
    page = client.get(url("encounter", campaign)).content.decode()
    assert f'action="{url("encounter-confirm-end", campaign)}"' in page
    assert f'action="{url("encounter-end", campaign)}"' not in page  # no button ends it at once
    confirm = client.get(url("encounter-confirm-end", campaign))
    assert confirm.status_code == 200
    assert f'action="{url("encounter-end", campaign)}"' in confirm.content.decode()
    partial = client.get(url("encounter-confirm-end", campaign), headers={"HX-Request": "true"}).content.decode()
    assert partial.lstrip().startswith('<div id="encounter-body"')
    assert Encounter.objects.running().exists()  # asking changes nothing
    client.force_login(player)
    assert client.get(url("encounter-confirm-end", campaign)).status_code == 403


# --- A player's attack, on their character's turn -------------------------------------------------------


def turn_of(campaign, gm, encounter, combatant) -> None:
    """Move the turn on until ``combatant`` acts."""
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    for _ in range(3):
        encounter.refresh_from_db()
        combatant.refresh_from_db()
        if encounter.turn == combatant.order:
            return
        encounters.next_turn(**ids, by=gm)
    raise AssertionError(f"{combatant.name} never acts")


def test_on_their_turn_a_player_attacks_only_with_their_own_character(client, gm, player, campaign, encounter, fight):
    hero, goblin = fight
    turn_of(campaign, gm, encounter, hero)
    client.force_login(player)
    response = client.get(url("encounter", campaign))
    assert response.status_code == 200
    body = response.content.decode()
    assert "Your turn: Brunella" in body
    assert "Show the chance to hit" in body
    assert f'<option value="{goblin.pk}"' in body.split('id="attack-attacker"')[1].split("</select>")[1]  # a target
    attackers = body.split('id="attack-attacker"')[1].split("</select>")[0]
    assert f'value="{hero.pk}"' in attackers
    assert f'value="{goblin.pk}"' not in attackers
    for gm_only in ("GM controls", "Heal or damage", "Next turn", "Someone joins the fight", "Remove…", "End the"):
        assert gm_only not in body


def test_out_of_turn_a_player_has_no_attack_form(client, gm, player, other_player, campaign, encounter, fight):
    hero, goblin = fight
    turn_of(campaign, gm, encounter, goblin)
    client.force_login(player)
    body = client.get(url("encounter", campaign)).content.decode()
    assert "Show the chance to hit" not in body
    assert "Your turn" not in body
    turn_of(campaign, gm, encounter, hero)
    client.force_login(other_player)  # Brunella's turn, but not their character
    body = client.get(url("encounter", campaign)).content.decode()
    assert "Show the chance to hit" not in body


def test_a_player_sees_the_chance_then_rolls_the_attack(client, gm, player, campaign, encounter, fight):
    hero, goblin = fight
    turn_of(campaign, gm, encounter, hero)
    client.force_login(player)
    response = client.get(url("encounter", campaign), {"attacker": hero.pk, "target": goblin.pk}, **HX)
    assert response.status_code == 200
    body = response.content.decode()
    assert body.lstrip().startswith('<div id="encounter-body"')
    assert "hits Goblin with a chance of" in body
    assert "Roll the attack" in body
    assert "In secret" not in body
    # What the Roll form sends: the choices the chance was computed with, the GM's calls at their defaults.
    roll_form = body.split('class="attack-roll"')[1].split("</form>")[0]
    sent = dict(re.findall(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', roll_form))
    assert set(sent) > {"attacker", "target", "csrfmiddlewaretoken", "attacker_roll"}
    response = client.post(url("encounter-attack", campaign), sent, **HX)
    assert response.status_code == 200
    assert "Last attack" in response.content.decode()
    roll = Roll.objects.get(kind="attack")
    assert (roll.by, roll.character_id, roll.secret) == (player, hero.character_id, False)


def test_a_player_attack_without_htmx_redirects_to_the_page(client, gm, player, campaign, encounter, fight):
    hero, goblin = fight
    turn_of(campaign, gm, encounter, hero)
    client.force_login(player)
    response = client.post(url("encounter-attack", campaign), {"attacker": hero.pk, "target": goblin.pk})
    assert response.status_code == 302
    assert response["Location"] == url("encounter", campaign)
    assert Roll.objects.filter(kind="attack", by=player).count() == 1


@pytest.mark.parametrize("htmx", [False, True])
def test_a_player_attacking_out_of_turn_is_a_409_and_changes_nothing(
    client, gm, player, campaign, encounter, fight, htmx
):
    hero, goblin = fight
    turn_of(campaign, gm, encounter, goblin)
    before = Roll.objects.count()
    client.force_login(player)
    data = {"attacker": hero.pk, "target": goblin.pk}
    response = client.post(url("encounter-attack", campaign), data, **(HX if htmx else {}))
    assert response.status_code == 409
    body = response.content.decode()
    assert "It is not Brunella&#x27;s turn" in body
    assert "Nothing was changed." in body
    assert ("<html" in body) is not htmx
    assert Roll.objects.count() == before
    assert hit_points(goblin) == 10
    # The preview out of turn is refused the same way.
    assert client.get(url("encounter", campaign), data).status_code == 409


@pytest.mark.parametrize(
    ("data", "status"),
    [
        ({"secret": "1"}, 403),  # only the GM attacks in secret
        ({"attacker": "goblin"}, 403),  # an NPC is the GM's
    ],
)
def test_a_player_on_their_turn_is_refused_what_is_the_gms(
    client, gm, player, campaign, encounter, fight, data, status
):
    hero, goblin = fight
    turn_of(campaign, gm, encounter, hero)
    client.force_login(player)
    attacker = goblin if data.get("attacker") == "goblin" else hero
    target = hero if attacker == goblin else goblin
    form = {**data, "attacker": attacker.pk, "target": target.pk}
    assert client.post(url("encounter-attack", campaign), form).status_code == status
    assert not Roll.objects.filter(kind="attack").exists()


def test_the_gm_attacks_for_anyone_whoever_acts(client, gm, campaign, encounter, fight):
    hero, goblin = fight
    turn_of(campaign, gm, encounter, goblin)
    client.force_login(gm)
    response = client.post(url("encounter-attack", campaign), {"attacker": hero.pk, "target": goblin.pk})
    assert response.status_code == 302
    assert Roll.objects.get(kind="attack").spec["attacker"] == "Brunella"


def test_a_secret_attack_is_not_the_players_last_attack(client, gm, player, campaign, fight):
    hero, goblin = fight
    client.force_login(gm)
    data = {"attacker": hero.pk, "target": goblin.pk, "secret": "1"}
    assert client.post(url("encounter-attack", campaign), data).status_code == 302
    assert "Last attack" in client.get(url("encounter", campaign)).content.decode()
    client.force_login(player)
    assert "Last attack" not in client.get(url("encounter", campaign)).content.decode()


def test_a_players_form_offers_only_their_own_characters_weapons(
    client, gm, player, other_player, campaign, encounter, fight
):
    hero, _goblin = fight
    casimir = make_character(campaign, other_player, name="Casimir")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    encounters.add_characters(**ids, by=gm, character_ids=[casimir.pk])
    turn_of(campaign, gm, encounter, hero)
    client.force_login(player)
    body = client.get(url("encounter", campaign)).content.decode()
    weapons = body.split('id="attack-weapon"')[1].split("</select>")[0]
    assert "Brunella: Longsword" in weapons
    assert "Casimir" not in weapons
    client.force_login(gm)
    weapons = (
        client.get(url("encounter", campaign)).content.decode().split('id="attack-weapon"')[1].split("</select>")[0]
    )
    assert "Casimir: Longsword" in weapons
