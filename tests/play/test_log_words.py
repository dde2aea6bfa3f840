"""The log speaks each system's words: a wound in a D6 fight is a change of condition, never of hit
points, Coin's damage is Luck, and no entry says "No exact chance:" with nothing after it."""

from __future__ import annotations

import random
import re

import pytest
from django.urls import reverse

from characters.models import Character
from play import encounters, rolls
from play.models import Roll
from play.presenters import roll_summary
from tests.systems.coin import system as coin
from tests.systems.d6.helpers import made

pytestmark = pytest.mark.django_db


def test_a_d6_wound_is_logged_as_a_condition_not_as_hit_points(client, gm, player, d6_campaign) -> None:
    talia = made(client, d6_campaign, player)
    fight = encounters.start_encounter(campaign_id=d6_campaign.pk, by=gm, name="Mutant Alley")
    encounters.add_characters(campaign_id=d6_campaign.pk, encounter_id=fight.pk, by=gm, character_ids=[talia.pk])
    (talia_c,) = fight.combatants.all()
    encounters.adjust(
        campaign_id=d6_campaign.pk, encounter_id=fight.pk, by=gm, combatant_id=talia_c.pk, amount=-1, reason="a fall"
    )
    wound = Roll.objects.get(kind="adjustment")
    assert roll_summary(wound) == "Talia, a fall: unhurt → wounded."
    client.force_login(gm)
    log = client.get(reverse("play:rolls", args=[d6_campaign.pk])).text
    assert "Change by the GM" in log
    assert "hit point" not in log.lower()
    assert not re.search(r"No exact chance:\s*<", log)  # never with nothing after it


def test_a_roll_with_no_chance_to_speak_of_says_nothing_of_one(client, campaign, gm) -> None:
    from play.rolls import record_roll

    record_roll(campaign_id=campaign.pk, by=gm, kind="free", spec={"expression": "1d6"}, dice=[], total=3,
                outcome={}, chance=None, chance_of="", label="1d6")  # fmt: skip
    client.force_login(gm)
    log = client.get(reverse("play:rolls", args=[campaign.pk])).text
    assert "No exact chance" not in log


def test_a_d6_fighter_taken_out_of_the_fight_leaves_in_its_wound_level(client, gm, player, d6_campaign) -> None:
    talia = made(client, d6_campaign, player)
    fight = encounters.start_encounter(campaign_id=d6_campaign.pk, by=gm, name="Mutant Alley")
    ids = {"campaign_id": d6_campaign.pk, "encounter_id": fight.pk}
    (talia_c,) = encounters.add_characters(**ids, by=gm, character_ids=[talia.pk])
    encounters.adjust(**ids, by=gm, combatant_id=talia_c.pk, amount=-1, reason="a fall")
    encounters.remove_combatant(**ids, by=gm, combatant_id=talia_c.pk, reason="fled")
    wound, removal = Roll.objects.filter(kind__in=["adjustment", "removal"]).order_by("seq")
    assert roll_summary(removal) == "The GM took Talia out of the fight (fled), wounded."
    # A change written before labels were stored is said as the encounter labels one now.
    assert wound.label == "Wounds of Talia: a fall"
    assert rolls.label_from_spec(wound.kind, wound.spec, wound.system) == wound.label
    client.force_login(gm)
    log = client.get(reverse("play:rolls", args=[d6_campaign.pk]))
    assert log.status_code == 200
    assert "hit point" not in log.text.lower()


class Heads(random.Random):
    """Every coin comes up heads."""

    def choice(self, seq):  # type: ignore[no-untyped-def]
        return seq[0]


def test_coins_damage_and_changes_are_luck_not_hit_points(client, gm, player, coin_campaign) -> None:
    sheet = coin.Sheet(nerve=3, luck=4, step="").model_dump(mode="json")
    flipper = Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)
    fight = encounters.start_encounter(campaign_id=coin_campaign.pk, by=gm, name="Toss-up")
    ids = {"campaign_id": coin_campaign.pk, "encounter_id": fight.pk}
    (flip,) = encounters.add_characters(**ids, by=gm, character_ids=[flipper.pk])
    stats = {"nerve": "2", "luck": "3"}
    (gambler,) = encounters.add_npcs(**ids, by=gm, name="Gambler", stats=stats, count=1)
    encounters.roll_initiative(**ids, by=gm, rng=Heads(), group_rolls=False)
    encounters.attack(**ids, by=gm, attacker_id=flip.pk, target_id=gambler.pk, choices={"need": "1"}, rng=Heads())
    encounters.adjust(**ids, by=gm, combatant_id=flip.pk, amount=-1, reason="a bad bet")
    encounters.remove_combatant(**ids, by=gm, combatant_id=gambler.pk, reason="broke")
    logged = Roll.objects.filter(kind__in=["damage", "adjustment", "removal"]).order_by("seq")
    said = [roll_summary(roll) for roll in logged]
    assert said == [
        "Gambler takes 1: 3 → 2 Luck.",
        "Flip, a bad bet: 4 → 3 Luck.",
        "The GM took Gambler out of the fight (broke), at 2 Luck.",
    ]
    change = Roll.objects.get(kind="adjustment")
    assert change.label == "Luck of Flip: a bad bet"
    assert rolls.label_from_spec(change.kind, change.spec, change.system) == change.label
    client.force_login(gm)
    log = client.get(reverse("play:rolls", args=[coin_campaign.pk])).text
    assert "Gambler takes 1: 3 → 2 Luck." in log
    assert "hit point" not in log.lower()
