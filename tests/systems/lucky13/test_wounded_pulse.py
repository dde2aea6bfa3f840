""" "Hit points" and "Death & dying", as the rules README reads them: a wounded character's Pulse rolls
use the current Pulse die (the step the remaining hit points reach), and a dying or dead character
makes no check."""

from __future__ import annotations

import pytest

from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.base import Other, SpecError
from tests.characters.conftest import brunella_sheet

OPTIONS = lucky13.default_options()  # 10 hit points per Pulse step


def sheet(hit_points: int, pulse: str = "d8") -> lucky13.Sheet:
    document = brunella_sheet()
    document["abilities"] = {**document["abilities"], "pulse": pulse}
    document["hit_points"] = hit_points
    return lucky13.SYSTEM.read_sheet(document)


def pulse_check(hit_points: int, pulse: str = "d8") -> dict:
    hero = sheet(hit_points, pulse)
    skill = hero.skills[0].id
    return lucky13.SYSTEM.check_roll(hero, {"skill": skill, "ability": "pulse", "difficulty": "moderate"}, OPTIONS).spec


@pytest.mark.parametrize(
    ("hit_points", "rolled"), [(30, "d8"), (21, "d8"), (20, "d6"), (11, "d6"), (10, "d4"), (1, "d4")]
)
def test_a_pulse_check_rolls_the_current_pulse_die(hit_points, rolled) -> None:
    assert pulse_check(hit_points)["ability"] == rolled


def test_an_unhurt_or_an_other_ability_rolls_the_sheets_die() -> None:
    assert pulse_check(50, "d12")["ability"] == "d12"
    hero = sheet(5)
    situation = {"skill": hero.skills[0].id, "ability": "reflex", "difficulty": "moderate"}
    check = lucky13.SYSTEM.check_roll(hero, situation, OPTIONS).spec
    assert check["ability"] == hero.abilities.reflex


def test_the_sheet_roll_says_the_pulse_went_down() -> None:
    hero = sheet(12)
    made = lucky13.SYSTEM.sheet_roll(hero, {"skill": hero.skills[0].id, "ability": "pulse"}, OPTIONS)
    assert made.spec["ability"] == "d6"
    assert made.details["ability_die"] == "d8"
    assert made.details["ability_die_now"] == "d6"
    assert any(step.startswith("Wounded:") and "d8 → d6" in step for step in made.steps)


@pytest.mark.parametrize(("hit_points", "words"), [(0, "dying"), (-7, "dying"), (-8, "dead")])
def test_a_dying_or_dead_character_makes_no_check(hit_points, words) -> None:
    hero = sheet(hit_points)
    with pytest.raises(SpecError, match=words) as refused:
        lucky13.SYSTEM.sheet_roll(hero, {"skill": hero.skills[0].id}, OPTIONS)
    assert refused.value.field == "hit_points"
    with pytest.raises(SpecError, match=words):
        lucky13.SYSTEM.sheet_roll(hero, {"reaction": True}, OPTIONS)


# --- Helpers: "Characters assisting characters" with README, "Dying and dead characters" --------------


def assisted(helper: lucky13.Sheet, help_with: str = "ability", **situation):
    """Brunella's Pulse check (Fighting, d8 Pulse, unhurt), with ``helper`` (as Otto) assisting."""
    hero = sheet(30)
    others = {7: Other("Otto", helper)}.get
    wanted = {"skill": hero.skills[4].id, "ability": "pulse", "helper": 7, "help_with": help_with, **situation}
    return lucky13.SYSTEM.sheet_roll(hero, wanted, OPTIONS, others)


@pytest.mark.parametrize(("hit_points", "die", "steps"), [(30, "d8", 3), (20, "d6", 2), (5, "d4", 1)])
def test_a_wounded_helper_assists_with_the_current_pulse_die(hit_points, die, steps) -> None:
    """Otto (d8 Pulse) helps Brunella's Pulse check with the Pulse his hit points reach now."""
    made = assisted(sheet(hit_points))
    assert made.details["assist"]["die"] == die
    assert made.spec["ability"] == StepDie.parse("d8").step(steps).label
    assert f"Otto helps ({die}): Ability +{steps}" in made.steps


@pytest.mark.parametrize(("hit_points", "words"), [(0, "dying"), (-3, "dying"), (-8, "dead")])
def test_a_dying_or_dead_character_does_not_help(hit_points, words) -> None:
    for help_with in ("ability", "skill"):
        with pytest.raises(SpecError, match=f"^helper: Otto cannot help: the character is {words}") as refused:
            assisted(sheet(hit_points), help_with)
        assert refused.value.field == "helper"


def test_an_npc_the_gm_names_assists_outside_a_fight() -> None:
    """ "When a PC or NPC assists": the NPC's die in what it helps with, as the table gives its steps."""
    hero = sheet(30)
    situation = {"skill": hero.skills[4].id, "npc_helper": " Old Marta ", "npc_helper_die": "d10", "help_with": "skill"}
    made = lucky13.SYSTEM.sheet_roll(hero, situation, OPTIONS)
    assert made.spec["skill"] == StepDie.parse(hero.skills[4].die).step(4).label
    assert made.details["assist"] == {"character": None, "npc": True, "name": "Old Marta", "with": "skill",
                                      "die": "d10", "steps": 4}  # fmt: skip
    assert "Old Marta (an NPC) helps (d10): Skill +4" in made.steps
    assert "Old Marta assisting" in made.label
    for bad, field in [({"npc_helper": "Marta"}, "npc_helper_die"), ({"npc_helper_die": "d8"}, "npc_helper"),
                       ({"npc_helper": "Marta", "npc_helper_die": "d20"}, "npc_helper_die"),
                       ({"npc_helper": "Marta", "npc_helper_die": "d12+d4"}, "npc_helper_die")]:  # fmt: skip
        with pytest.raises(SpecError) as refused:
            lucky13.SYSTEM.sheet_roll(hero, {"skill": hero.skills[4].id, **bad}, OPTIONS)
        assert refused.value.field == field
    with pytest.raises(SpecError, match="one helper"):
        assisted(sheet(30), npc_helper="Marta", npc_helper_die="d8")
