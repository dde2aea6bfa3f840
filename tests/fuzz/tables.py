"""A campaign of each system the fuzzing plays, as a table finds it in play: the GM, a player's character
(the one the requests name) and another player's, and, where the system fights, an encounter running with
them in order. Shared by the fuzzing of the API and of the pages' forms."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from campaigns.models import Campaign, Membership
from characters.models import Character
from play import encounters
from play.models import Combatant
from rules import systems
from tests.characters.conftest import make_character
from tests.play.npcs import GOBLIN
from tests.systems.coin import system as coin
from tests.systems.d6.helpers import jericho_of
from tests.systems.d13 import helpers as d13

#: The systems a campaign is fuzzed in.
SYSTEMS = ("lucky13", "d6", "d13", "coin")


def _lucky13(gm, player, other_player) -> tuple[Campaign, Character, Character]:
    campaign = Campaign.objects.create(name="The Sunken Crown", system="lucky13", players_call_rolls=True)
    members(campaign, gm, player, other_player)
    return campaign, make_character(campaign, player), make_character(campaign, other_player, name="Otto")


def _d6(gm, player, other_player) -> tuple[Campaign, Character, Character]:
    campaign = Campaign.objects.create(name="Ruins of the Ancients", system="d6", players_call_rolls=True)
    members(campaign, gm, player, other_player)
    mine = jericho_of(campaign, player)
    other = jericho_of(campaign, other_player)
    Character.objects.filter(pk=other.pk).update(name="Otto")
    return campaign, mine, other


def _d13(gm, player, other_player) -> tuple[Campaign, Character, Character]:
    campaign = d13.campaign_of(gm, player, other_player)
    return campaign, d13.made(campaign, player), d13.made(campaign, other_player, name="Otto")


def _coin(gm, player, other_player) -> tuple[Campaign, Character, Character]:
    campaign = Campaign.objects.create(name="Heads", system="coin", options={}, players_call_rolls=True)
    members(campaign, gm, player, other_player)
    sheet = coin.Sheet(step="", nerve=3, luck=5).model_dump(mode="json")
    mine = Character.objects.create(campaign=campaign, owner=player, name="Flip", status="active", sheet=sheet)
    other = Character.objects.create(campaign=campaign, owner=other_player, name="Otto", status="active", sheet=sheet)
    return campaign, mine, other


def members(campaign: Campaign, gm, *players) -> None:
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    for player in players:
        Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)


BUILDERS = {"lucky13": _lucky13, "d6": _d6, "d13": _d13, "coin": _coin}


def encounter_of(campaign: Campaign, gm, characters: list[Character]) -> tuple[int | None, int | None]:
    """A running encounter with the characters (and, in Lucky 13, a goblin) in order, where the system fights."""
    if systems.get(campaign.system).combat is None:
        return None, None
    fight = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")
    ids = {"campaign_id": campaign.pk, "encounter_id": fight.pk}
    encounters.add_characters(**ids, by=gm, character_ids=[c.pk for c in characters])
    if campaign.system == "lucky13":
        encounters.add_npcs(**ids, by=gm, **GOBLIN)
    encounters.roll_initiative(**ids, by=gm, rng=random.Random(1))
    return fight.pk, Combatant.objects.filter(encounter_id=fight.pk).order_by("-pk").values_list("pk", flat=True)[0]


@pytest.fixture
def coin_registered(settings) -> Iterator[None]:
    """Coin is played for the test, with its templates, as ``coin_campaign`` has it (tests/conftest.py)."""
    templates = Path(coin.__file__).resolve().parent / "templates"
    settings.TEMPLATES = [{**settings.TEMPLATES[0], "DIRS": [*settings.TEMPLATES[0]["DIRS"], templates]}]
    systems.register(coin.SYSTEM)
    try:
        yield
    finally:
        systems.unregister(coin.SYSTEM.key)
