"""The log speaks each system's words: a wound in a D6 fight is a change of condition, never of hit
points, and no entry says "No exact chance:" with nothing after it."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from play import encounters
from play.models import Roll
from play.presenters import roll_summary
from tests.characters.test_d6_pages import made

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
