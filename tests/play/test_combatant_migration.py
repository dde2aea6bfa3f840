"""A combatant's Lucky 13 columns become its stat block (play.0003, play.0004): every combatant reads
back with the same dice, weapon, hit points and stabilized mark, and migrating back gives every old
row exactly as it was."""

from __future__ import annotations

from typing import Any

import pytest
from django.db import connection

from play import encounters
from play.models import Combatant, Encounter
from tests.characters.conftest import make_character
from tests.migrations import latest, migrate

BEFORE = [("play", "0002_roll_system_label")]
COLUMNS = ("id", "name", "reflex", "combat", "accuracy", "damage", "weapon", "armor", "pulse", "hit_points",
           "group", "initiative", "order", "stabilized", "removed", "character_id", "encounter_id")  # fmt: skip


def old_rows() -> list[tuple[Any, ...]]:
    columns = ", ".join(connection.ops.quote_name(c) for c in COLUMNS)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM play_combatant ORDER BY id")
        return cursor.fetchall()


def fill(old_apps: Any, campaign: Any, gm: Any, hero: Any) -> None:
    """A character and three NPCs, one dying and stabilized, one with no weapon and no armor."""
    encounter = old_apps.get_model("play", "Encounter").objects.create(
        campaign_id=campaign.pk, name="Crypt", created_by_id=gm.pk, round=1, log_after=0
    )
    combatant = old_apps.get_model("play", "Combatant").objects
    combatant.create(
        encounter=encounter, character_id=hero.pk, name=hero.name, reflex=4, combat=4, accuracy=3, damage=3,
        weapon="Longsword", armor=1, pulse=3, initiative=9, order=0,
    )  # fmt: skip
    combatant.create(
        encounter=encounter, name="Goblin 1", reflex=2, combat=1, accuracy=1, damage=1, pulse=1, hit_points=-2,
        group=1, initiative=4, order=1, stabilized=True,
    )  # fmt: skip
    combatant.create(
        encounter=encounter, name="Goblin 2", reflex=2, combat=1, accuracy=1, damage=1, pulse=1, hit_points=10,
        group=1, initiative=4, order=2, removed=True,
    )  # fmt: skip
    combatant.create(
        encounter=encounter, name="Wolf", reflex=3, combat=0, accuracy=0, damage=2, armor=0, pulse=2, hit_points=17,
    )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_the_columns_become_a_stat_block_and_back(campaign, gm, player) -> None:
    hero = make_character(campaign, player)
    try:
        fill(migrate(BEFORE), campaign, gm, hero)
        before = old_rows()
        assert len(before) == 4

        migrate(latest())
        blocks = {c.name: (c.block, c.state) for c in Combatant.objects.all()}
        assert blocks["Brunella"] == (
            {"schema_version": 1, "reflex": "d10", "combat": "d10", "accuracy": "d8", "damage": "d8",
             "weapon": "Longsword", "armor": "d4", "pulse": "d8", "hit_points": None},
            {},
        )  # fmt: skip
        assert blocks["Goblin 1"][0]["hit_points"] == -2
        assert blocks["Goblin 1"][1] == {"stabilized": True}
        assert blocks["Wolf"][0] == {
            "schema_version": 1, "reflex": "d8", "combat": None, "accuracy": None, "damage": "d6", "weapon": "",
            "armor": None, "pulse": "d6", "hit_points": 17,
        }  # fmt: skip
        # Each reads as a Lucky 13 stat block, and the fight goes on from it.
        encounter = Encounter.objects.get()
        states = {c.name: encounters.vitals_of(campaign, c) for c in encounter.combatants.select_related("character")}
        assert (states["Brunella"].state, states["Brunella"].tracks[0].value) == ("up", 30)
        assert (states["Goblin 1"].state, states["Goblin 1"].conditions) == ("dying", ("stabilized",))
        assert (states["Wolf"].tracks[0].value, states["Wolf"].tracks[0].maximum) == (17, 20)

        migrate(BEFORE)
        assert old_rows() == before
    finally:
        migrate(latest())
