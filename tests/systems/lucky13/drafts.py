"""A Lucky 13 draft made through the generic creation operations (``characters.drafting``), step by
step, with each step's value as Lucky 13's forms give it (:mod:`rules.systems.lucky13.creation` says
their shapes): the tests' short way to a draft at any step, and to each step's refusals."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from campaigns.models import Campaign
from characters import drafting
from characters.models import Character
from rules.dice import StepDie
from rules.systems.lucky13 import creation

StaleDraft = drafting.StaleDraft
MAX_ROWS = creation.MAX_ROWS


@dataclass(frozen=True, slots=True)
class SpecializationChoice:
    skill: str | int  # the skill's name, or its id
    name: str


@dataclass(frozen=True, slots=True)
class TraitChoice:
    kind: str
    name: str
    description: str = ""


@dataclass(frozen=True, slots=True)
class AssetChoice:
    name: str
    level: int
    kind: str = "thing"
    skills: tuple[str | int, ...] = ()
    description: str = ""


@dataclass(frozen=True, slots=True)
class WeaponChoice:
    name: str
    accuracy: StepDie
    damage: StepDie


@dataclass(frozen=True, slots=True)
class ArmorChoice:
    name: str
    defense: StepDie


def _version(character_id: int, version: int | None) -> int:
    return version if version is not None else Character.objects.get(pk=character_id).version


def _fill(character_id: int, step: str, value: Mapping[str, Any], version: int | None, by: Any) -> Character:
    return drafting.fill(character_id=character_id, version=_version(character_id, version), step=step, value=value,
                         by=by)  # fmt: skip


def start_character(*, campaign: Campaign, owner: Any, name: str, concept: str = "") -> Character:
    return drafting.start(campaign=campaign, owner=owner, name=name, given={"concept": concept})


def roll_abilities(*, character_id: int, rng: random.Random, version: int | None = None, by: Any = None) -> Character:
    return drafting.roll(character_id=character_id, version=_version(character_id, version), step="abilities", by=by,
                         rng=rng)  # fmt: skip


def assign_abilities(*, character_id: int, array: str, dice: Mapping[str, StepDie], version: int | None = None,
                     by: Any = None) -> Character:  # fmt: skip
    value = {"ability_method": array, "abilities": {key: die.label for key, die in dice.items()}}
    return _fill(character_id, "abilities", value, version, by)


def set_skills(*, character_id: int, dice: Mapping[str | int, StepDie] | None = None, rng: random.Random | None = None,
               version: int | None = None, by: Any = None) -> Character:  # fmt: skip
    if rng is not None:
        return drafting.roll(character_id=character_id, version=_version(character_id, version), step="skills", by=by,
                             rng=rng)  # fmt: skip
    value = {"skills": {str(key): die.label for key, die in dice.items()}} if dice is not None else {}
    return _fill(character_id, "skills", value, version, by)


def set_specializations(*, character_id: int, choices: Sequence[SpecializationChoice], took_impairment: bool,
                        version: int | None = None, by: Any = None) -> Character:  # fmt: skip
    value = {"specializations": [{"skill": c.skill, "name": c.name} for c in choices],
             "took_impairment": took_impairment}  # fmt: skip
    return _fill(character_id, "specializations", value, version, by)


def _traits(traits: Sequence[TraitChoice]) -> list[dict[str, str]]:
    return [{"kind": t.kind, "name": t.name, "description": t.description} for t in traits]


def set_traits(*, character_id: int, traits: Sequence[TraitChoice], version: int | None = None,
               by: Any = None) -> Character:  # fmt: skip
    return _fill(character_id, "traits", {"traits": _traits(traits)}, version, by)


def roll_on_table(*, character_id: int, kind: str, rng: random.Random, traits: Sequence[TraitChoice] | None = None,
                  version: int | None = None, by: Any = None) -> Character:  # fmt: skip
    value = {"traits": _traits(traits)} if traits is not None else {}
    return drafting.roll(character_id=character_id, version=_version(character_id, version), step="traits", by=by,
                         rng=rng, roll=kind, value=value)  # fmt: skip


def set_equipment(*, character_id: int, assets: Sequence[AssetChoice], weapons: Sequence[WeaponChoice],
                  armor: Sequence[ArmorChoice], version: int | None = None, by: Any = None) -> Character:  # fmt: skip
    value = {
        "assets": [{"name": a.name, "level": a.level, "kind": a.kind, "skills": list(a.skills),
                    "description": a.description} for a in assets],
        "weapons": [{"name": w.name, "accuracy": w.accuracy.label, "damage": w.damage.label} for w in weapons],
        "armor": [{"name": a.name, "defense": a.defense.label} for a in armor],
    }  # fmt: skip
    return _fill(character_id, "equipment", value, version, by)


def finish(*, character_id: int, version: int | None = None, by: Any = None) -> Character:
    return drafting.finish(character_id=character_id, version=_version(character_id, version), by=by)
