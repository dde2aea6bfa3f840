""" "Hit points" and "Death & dying", as the rules README reads them: a wounded character's Pulse rolls
use the current Pulse die (the step the remaining hit points reach), and a dying or dead character
makes no check."""

from __future__ import annotations

import pytest

from rules.systems import lucky13
from rules.systems.base import SpecError
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
