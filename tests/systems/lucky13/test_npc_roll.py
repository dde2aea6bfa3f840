"""The GM's check for an NPC: the calculator's dice, rolled on the server for a campaign the user
runs, recorded in its log with the exact chance, in secret if the GM likes, and revealed later."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.urls import reverse

from play.models import Roll
from rules.systems import lucky13
from tests.campaigns.helpers import html, text

pytestmark = pytest.mark.django_db

DICE = {"ability": "d10", "ability_steps": "0", "skill": "d8", "skill_steps": "0", "difficulty": "difficult",
        "difficulty_steps": "0", "ability_roll": "normal", "explosion": "cinematic"}  # fmt: skip


def test_the_calculator_offers_the_gm_a_roll_for_an_npc_and_players_none(client, campaign, gm, player) -> None:
    client.force_login(gm)
    assert "Roll it for an NPC" in text(client.get(reverse("lucky13:calculator"), DICE))
    client.force_login(player)
    assert "Roll it for an NPC" not in text(client.get(reverse("lucky13:calculator"), DICE))


def test_a_secret_npc_check_is_recorded_with_its_exact_chance_and_revealed_later(client, campaign, gm,
                                                                               player) -> None:  # fmt: skip
    client.force_login(gm)
    post = {**DICE, "campaign": campaign.pk, "npc": "The gatekeeper", "secret": "on"}
    response = client.post(reverse("lucky13:npc-roll"), post)
    assert response.status_code == 302
    assert "Rolled for The gatekeeper in the log in secret" in text(client.get(response["Location"]))
    roll = Roll.objects.get()
    assert roll.secret
    assert roll.by == gm
    assert roll.label == "The gatekeeper: d10 + d8 + d8"
    steps = {key: 0 for key in DICE if key.endswith("_steps")}
    check = lucky13.parse_check({"system": "lucky13", "roll": "check", **DICE, **steps})
    assert Fraction(roll.chance) == lucky13.check_chance(check).p_success
    client.force_login(player)
    assert "The gatekeeper" not in html(client.get(reverse("play:rolls", args=[campaign.pk])))
    client.force_login(gm)
    client.post(reverse("play:reveal-roll", args=[campaign.pk, roll.seq]))
    client.force_login(player)
    assert "The gatekeeper" in html(client.get(reverse("play:rolls", args=[campaign.pk])))


def test_only_a_gm_of_the_campaign_records_and_bad_input_records_nothing(client, campaign, player, gm) -> None:
    client.force_login(player)
    assert client.post(reverse("lucky13:npc-roll"), {**DICE, "campaign": campaign.pk, "npc": "X"}).status_code == 400
    client.force_login(gm)
    assert client.post(reverse("lucky13:npc-roll"), {**DICE, "campaign": campaign.pk, "npc": ""}).status_code == 400
    assert client.post(reverse("lucky13:npc-roll"), {**DICE, "ability": "d7", "campaign": campaign.pk,
                                                     "npc": "X"}).status_code == 400  # fmt: skip
    assert not Roll.objects.exists()
