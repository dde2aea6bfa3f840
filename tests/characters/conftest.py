"""Finished characters for the sheet tests, built with the ORM (the creation steps have their own tests).

``brunella`` belongs to ``player`` in ``campaign`` (whose GM is ``gm``): the rule text's
fighter, with skills, specializations, backgrounds, an impairment and equipment.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest

from characters.models import Armor, Asset, Character, Skill, Specialization, Trait, Weapon
from rules.dice import StepDie

# The browser tests share the calculator tests' browser fixtures (the system Chromium, a page
# with and one without JavaScript, the log of console problems).

D = StepDie.parse

#: The campaign's skills (the Fantasy preset, the default) with their dice.
SKILLS = (("Spellcasting", "intellect", "d8"), ("Scholarship", "intellect", "d6"), ("Healing", "will", "d6"),
          ("Sneaking", "reflex", "d8"), ("Fighting", "reflex", "d10"))  # fmt: skip


def make_character(campaign, owner, *, name: str = "Brunella", **fields) -> Character:
    """A complete, active character: every ability set and full hit points (d8 Pulse: 30)."""
    values = {
        "concept": "Sellsword",
        "status": Character.Status.ACTIVE,
        "will": D("d6").rung,
        "charm": D("d4").rung,
        "pulse": D("d8").rung,
        "intellect": D("d6").rung,
        "reflex": D("d10").rung,
        "hit_points": 30,
        "reputation": 1,
        "notes": "Owes the ferryman two silver.",
        **fields,
    }
    character = Character.objects.create(campaign=campaign, owner=owner, name=name, **values)
    skills = {
        skill: Skill.objects.create(character=character, name=skill, position=i, ability=ability, die=D(die).rung)
        for i, (skill, ability, die) in enumerate(SKILLS)
    }
    Specialization.objects.create(skill=skills["Spellcasting"], name="Teleport", level=2)
    Specialization.objects.create(skill=skills["Spellcasting"], name="Fireball", level=1)
    Specialization.objects.create(skill=skills["Fighting"], name="Longsword", level=1)
    Trait.objects.create(character=character, kind=Trait.Kind.BACKGROUND, name="Soldier", description="Ten years.")
    Trait.objects.create(character=character, kind=Trait.Kind.IMPAIRMENT, name="Bad knee")
    old_map = Asset.objects.create(character=character, name="Old map", level=2)
    old_map.skills.set([skills["Scholarship"]])
    otto = Asset.objects.create(character=character, name="Uncle Otto", kind=Asset.Kind.PERSON, level=3)
    otto.skills.set([skills["Healing"], skills["Fighting"]])
    Weapon.objects.create(character=character, name="Longsword", accuracy=D("d8").rung, damage=D("d8").rung)
    Armor.objects.create(character=character, name="Leather", defense=D("d4").rung)
    return character


@pytest.fixture
def brunella(campaign, player) -> Character:
    return make_character(campaign, player)


@pytest.fixture
def grow() -> Callable[[Character, int], Character]:
    """Adds ``n`` more of everything a sheet lists: skills, each with ``n`` specializations,
    assets (each helping every skill), backgrounds, weapons and armor."""

    def grow(character: Character, n: int) -> Character:
        skills = [
            Skill.objects.create(character=character, name=f"Extra skill {i}", position=10 + i, die=1) for i in range(n)
        ]
        Specialization.objects.bulk_create(
            Specialization(skill=skill, name=f"Trick {j}", level=1) for skill in skills for j in range(n)
        )
        for i in range(n):
            asset = Asset.objects.create(character=character, name=f"Asset {i}", level=1)
            asset.skills.set(skills)
        Trait.objects.bulk_create(Trait(character=character, kind="background", name=f"Past {i}") for i in range(n))
        Weapon.objects.bulk_create(
            Weapon(character=character, name=f"Knife {i}", accuracy=1, damage=1) for i in range(n)
        )
        Armor.objects.bulk_create(Armor(character=character, name=f"Shield {i}", defense=1) for i in range(n))
        return character

    return grow
