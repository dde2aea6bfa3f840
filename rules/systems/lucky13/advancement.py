"""Adventure Points: what they buy, at what cost, and how each purchase changes the odds
("Skill advancement / Adventure Points")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any, Final

from rules.dice import StepDie
from rules.systems.lucky13.checks import Check, Explosion, check_chance
from rules.systems.lucky13.modifiers import effective_skill_die
from rules.systems.lucky13.vocabulary import (
    ABILITY_KEYS,
    MAX_ABILITY,
    MAX_SPECIALIZATION_LEVEL,
    SheetError,
    check_level,
    clean_name,
)

SPECIALIZATION_COST: Final = 4


def ability_raise_cost(current: StepDie) -> int:
    """ "Skill advancement": raising an ability costs its current die size × 4; d12 is the top."""
    if not StepDie.of(4) <= current < MAX_ABILITY:
        raise ValueError(f"{current} cannot be raised (abilities run d4 … d12)")
    return current.sides[0] * 4


class PurchaseKind(StrEnum):
    """What Adventure Points buy ("Skill advancement / Adventure Points")."""

    SPECIALIZATION = "specialization"  # a new specialization under a skill, at level 1
    LEVEL = "level"  # one more level of a specialization
    ABILITY = "ability"  # the next larger ability die


@dataclass(frozen=True, slots=True)
class Purchase:
    """One thing bought with Adventure Points: what changes, from what to what, and its cost.

    ``before``/``after`` are the specialization level (0 for a new one) or the ability's rung.
    """

    kind: PurchaseKind
    cost: int
    before: int
    after: int
    skill: str = ""
    name: str = ""
    ability: str = ""


def buy_specialization(skill: str, name: Any, taken: Sequence[str]) -> Purchase:
    """ "Adding a new Specialization … costs 4 Adventure Points"; it starts at level 1.

    ``taken`` are the names the skill's specializations already have (one of a name per skill).
    """
    name = clean_name(name, "A specialization")
    if name.casefold() in {other.casefold() for other in taken}:
        raise SheetError("name", f"{skill} already has a specialization called {name}")
    return Purchase(PurchaseKind.SPECIALIZATION, SPECIALIZATION_COST, 0, 1, skill=skill, name=name)


def buy_level(skill: str, name: str, level: int) -> Purchase:
    """ "… or increasing a Specialization Level costs 4 Adventure Points"; levels run 1 … 5."""
    check_level(level, "specialization level")
    if level >= MAX_SPECIALIZATION_LEVEL:
        raise SheetError("level", f"{name} is at level {MAX_SPECIALIZATION_LEVEL}, the highest")
    return Purchase(PurchaseKind.LEVEL, SPECIALIZATION_COST, level, level + 1, skill=skill, name=name)


def buy_ability(key: str, current: StepDie) -> Purchase:
    """ "Increasing an Ability costs the current Ability Die type x4": d4→d6 16 … d10→d12 40."""
    if key not in ABILITY_KEYS:
        raise SheetError("ability", f"{key!r} is not an ability")
    if current >= MAX_ABILITY:
        raise SheetError("ability", f"abilities stop at {MAX_ABILITY}")
    try:
        cost = ability_raise_cost(current)
    except ValueError as error:
        raise SheetError("ability", str(error)) from None
    return Purchase(PurchaseKind.ABILITY, cost, current.rung, current.rung + 1, ability=key)


@dataclass(frozen=True, slots=True)
class SheetSkill:
    """A skill as advancement sees it: its die, linked ability key (or ""), and specializations by level."""

    name: str
    ability: str
    die: StepDie
    specializations: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Effect:
    """How a purchase changes one check: its exact chance of success before and after."""

    skill: str
    specialization: str  # "" for the plain skill check
    before: Fraction
    after: Fraction

    @property
    def gain(self) -> Fraction:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A purchase the character can make, with the checks it changes."""

    purchase: Purchase
    effects: tuple[Effect, ...]

    @property
    def best_gain(self) -> Fraction:
        return max((e.gain for e in self.effects), default=Fraction(0))


def _chance(ability: StepDie, skill: StepDie, difficulty: StepDie, explosion: Explosion) -> Fraction:
    return check_chance(Check(ability=ability, skill=skill, difficulty=difficulty, explosion=explosion)).p_success


def suggestions(
    abilities: Mapping[str, StepDie],
    skills: Sequence[SheetSkill],
    *,
    difficulty: StepDie,
    explosion: Explosion = Explosion.CINEMATIC,
) -> list[Suggestion]:
    """Every purchase the sheet allows, each with how it changes the exact chance of the checks
    it touches at ``difficulty`` (rolled with the skill's linked ability, no other modifier):

    - a new specialization under a skill: the skill's check, now with a level-1 specialization;
    - one more level of a specialization: that specialization's check;
    - a larger ability die: every check of the skills linked to it, plain and specialized.

    A skill with no linked ability has no check to compare (the ability is chosen at each roll).
    """
    options: list[Suggestion] = []
    for skill in skills:
        ability = abilities.get(skill.ability)
        for name, level in skill.specializations:
            if level >= MAX_SPECIALIZATION_LEVEL:
                continue
            effects = ()
            if ability is not None:
                effects = (
                    Effect(
                        skill.name,
                        name,
                        _chance(ability, effective_skill_die(skill.die, level), difficulty, explosion),
                        _chance(ability, effective_skill_die(skill.die, level + 1), difficulty, explosion),
                    ),
                )
            options.append(Suggestion(buy_level(skill.name, name, level), effects))
    for skill in skills:
        ability = abilities.get(skill.ability)
        effects = ()
        if ability is not None:
            effects = (
                Effect(
                    skill.name,
                    "",
                    _chance(ability, skill.die, difficulty, explosion),
                    _chance(ability, effective_skill_die(skill.die, 1), difficulty, explosion),
                ),
            )
        purchase = Purchase(PurchaseKind.SPECIALIZATION, SPECIALIZATION_COST, 0, 1, skill=skill.name)
        options.append(Suggestion(purchase, effects))
    for key in ABILITY_KEYS:
        current = abilities.get(key)
        if current is None or current >= MAX_ABILITY:
            continue
        raised = current.step(1)
        effects = tuple(
            Effect(
                skill.name,
                name,
                _chance(current, effective_skill_die(skill.die, level), difficulty, explosion),
                _chance(raised, effective_skill_die(skill.die, level), difficulty, explosion),
            )
            for skill in skills
            if skill.ability == key
            for name, level in (("", 0), *skill.specializations)
        )
        options.append(Suggestion(buy_ability(key, current), effects))
    return options
