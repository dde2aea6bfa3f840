"""The calculator's forms: each turns its fields into a chance spec and lets the
engine's own spec parser do the checking, so the form, the CLI and the API agree."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, ClassVar

from django import forms
from django.http import QueryDict

from rules.dice import StepDie
from rules.systems.base import SpecError
from rules.systems.lucky13 import ABILITY_ROLL_CHOICES, AbilityRoll, Difficulty, Explosion, parse_check, parse_opposed
from web.fields import ChoiceField, steps_field

#: d4 … d12, then the stepped dice up to d12+d12+d4.
LADDER = [StepDie(rung).label for rung in range(1, 12)]
DIE_CHOICES = [(label, label) for label in LADDER]
OPTIONAL_DIE_CHOICES = [("none", "none"), *DIE_CHOICES]
DIFFICULTY_CHOICES = [
    ("Difficulty", [(d.value, f"{d.value.title()} ({d.die.label})") for d in Difficulty]),
    ("Any die", DIE_CHOICES),
]
EXPLOSION_CHOICES = [
    (Explosion.CINEMATIC.value, "Cinematic (every die explodes, again and again)"),
    (Explosion.GRITTY.value, "Gritty (Ability dice explode once)"),
    (Explosion.NONE.value, "No explosions"),
]


class SpecForm(forms.Form):
    """A form whose cleaned data becomes a chance spec for :mod:`rules`."""

    def __init__(self, data: QueryDict | dict[str, Any] | None = None, **kwargs: Any) -> None:
        # Fields left out of a query take their defaults, so `/calculator/?ability=d10` is a fine link.
        if data is not None:
            merged = {name: field.initial for name, field in self.base_fields.items()}
            merged.update({key: data.get(key) for key in data if key in self.base_fields})
            data = merged
        super().__init__(data, **kwargs)

    #: The engine's parser for this form's spec: it raises SpecError naming the bad field.
    parse: ClassVar[Callable[[Mapping[str, Any]], Any]]
    roll_kind: ClassVar[str]

    def spec(self) -> dict[str, Any]:
        return {"system": "lucky13", "roll": self.roll_kind, **self.cleaned_data}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.errors:
            try:
                self.dice = type(self).parse(self.spec())
            except SpecError as error:
                self.add_error(error.field if error.field in self.fields else None, error.message)
        return cleaned

    def query(self) -> dict[str, Any]:
        """The cleaned values, for links and the hidden fields of the Roll form."""
        return {name: self.cleaned_data[name] for name in self.fields}


class CheckForm(SpecForm):
    ability = ChoiceField(label="Ability", choices=OPTIONAL_DIE_CHOICES, initial="d8")
    ability_steps = steps_field("Ability steps")
    skill = ChoiceField(label="Skill", choices=OPTIONAL_DIE_CHOICES, initial="d6")
    skill_steps = steps_field("Skill steps")
    difficulty = ChoiceField(label="Difficulty", choices=DIFFICULTY_CHOICES, initial=Difficulty.MODERATE.value)
    difficulty_steps = steps_field("Difficulty steps")
    ability_roll = ChoiceField(
        label="Ability roll", choices=ABILITY_ROLL_CHOICES, initial=AbilityRoll.NORMAL.value, widget=forms.RadioSelect
    )
    explosion = ChoiceField(
        label="Explosions", choices=EXPLOSION_CHOICES, initial=Explosion.CINEMATIC.value, widget=forms.RadioSelect
    )

    parse = staticmethod(parse_check)
    roll_kind = "check"


class OpposedForm(SpecForm):
    attacker_ability = ChoiceField(label="Attacker's Ability (Reflex)", choices=DIE_CHOICES, initial="d8")
    attacker_skill = ChoiceField(label="Attacker's Skill (Combat)", choices=OPTIONAL_DIE_CHOICES, initial="d6")
    attacker_accuracy = ChoiceField(label="Weapon accuracy", choices=OPTIONAL_DIE_CHOICES, initial="d8")
    attacker_roll = ChoiceField(
        label="Attacker's Ability roll", choices=ABILITY_ROLL_CHOICES, initial=AbilityRoll.NORMAL.value
    )
    weapon_damage = ChoiceField(label="Weapon damage", choices=DIE_CHOICES, initial="d10")
    defender_ability = ChoiceField(label="Defender's Ability (Reflex)", choices=DIE_CHOICES, initial="d6")
    defender_skill = ChoiceField(label="Defender's Skill (Combat)", choices=OPTIONAL_DIE_CHOICES, initial="d10")
    defender_armor = ChoiceField(label="Defensive die (armor)", choices=OPTIONAL_DIE_CHOICES, initial="d6")
    defender_roll = ChoiceField(
        label="Defender's Ability roll", choices=ABILITY_ROLL_CHOICES, initial=AbilityRoll.NORMAL.value
    )
    explosion = ChoiceField(
        label="Explosions", choices=EXPLOSION_CHOICES, initial=Explosion.CINEMATIC.value, widget=forms.RadioSelect
    )

    parse = staticmethod(parse_opposed)
    roll_kind = "opposed"

    def spec(self) -> dict[str, Any]:
        data = self.cleaned_data
        return {
            "system": "lucky13",
            "roll": "opposed",
            "attacker": [data["attacker_ability"], data["attacker_skill"], data["attacker_accuracy"]],
            "defender": [data["defender_ability"], data["defender_skill"], data["defender_armor"]],
            "weapon_die": data["weapon_damage"],
            "attacker_roll": data["attacker_roll"],
            "defender_roll": data["defender_roll"],
            "explosion": data["explosion"],
        }
