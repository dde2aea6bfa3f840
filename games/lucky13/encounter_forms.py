"""Lucky 13's attack form in an encounter, read at the edge through the shared field types
(:mod:`web.fields`) before the engine checks the choices against the fight: the weapon and the Combat
specializations (sheet items as ``<character>:<item id>``), a background or an impairment on either
side, a combatant assisting either side ("Characters assisting characters") and the GM's situational
steps ("Modifiers"; rules README, "The GM's calls"), each named, bounded and at most
:data:`~rules.systems.lucky13.encounter.MAX_SITUATIONAL` of them.

The generic encounter views (:mod:`play.encounter_views`) use it for Lucky 13 campaigns
(``register_attack_form``); it never decides what a choice means in the fight: the engine does."""

from __future__ import annotations

import re
from typing import Any, Final

from django import forms

from rules.systems.lucky13 import encounter
from rules.systems.lucky13.checks import AbilityRoll
from web.fields import MAX_KEY, ChoiceField, TextField, WholeNumberField

#: The longest item choice a form sends: ``<character key>:<item id>`` (see the engine's ``_item``).
MAX_ITEM_CHOICE: Final = 25
#: A field of a situational step, whatever its number: one past the last is refused, not ignored.
STEP_FIELD: Final = re.compile(r"step_\d+_")


def _optional_choice(label: str, choices: Any) -> ChoiceField:
    return ChoiceField(label=label, required=False, choices=[("", "—"), *choices])


class AttackForm(forms.Form):
    """The choices of an attack as typed. :meth:`choices` gives them as the engine reads them (text,
    each field present); a field's problem comes back next to its label (:meth:`problem`)."""

    weapon = TextField(label="Weapon", required=False, max_length=MAX_ITEM_CHOICE)
    attacker_specialization = TextField(
        label="Attacker's Combat specialization", required=False, max_length=MAX_ITEM_CHOICE
    )
    defender_specialization = TextField(
        label="Target's Combat specialization", required=False, max_length=MAX_ITEM_CHOICE
    )
    attacker_roll = _optional_choice("The attacker's background or impairment", encounter.ABILITY_ROLL_CHOICES)
    defender_roll = _optional_choice("The target's background or impairment", encounter.ABILITY_ROLL_CHOICES)

    def __init__(self, data: Any) -> None:
        super().__init__(data)
        for side, whose in (("attacker", "the attacker"), ("defender", "the target")):
            self.fields[f"{side}_helper"] = WholeNumberField(
                label=f"Who helps {whose}",
                required=False,
                min_value=1,
                max_value=MAX_KEY,
                error_messages={"invalid": "Choose a combatant from the list, or nobody."},
            )
            self.fields[f"{side}_help_with"] = _optional_choice(f"What helps {whose}", encounter.HELP_WITH)
        limit = encounter.MAX_SITUATIONAL_STEPS
        for n in range(1, encounter.MAX_SITUATIONAL + 1):
            self.fields[f"step_{n}_name"] = TextField(
                label=f"Situational step {n}",
                required=False,
                max_length=encounter.MAX_STEP_NAME,
                error_messages={"max_length": f"Name it in at most {encounter.MAX_STEP_NAME} characters."},
            )
            self.fields[f"step_{n}_side"] = _optional_choice(f"Situational step {n}: whose dice", encounter.SIDES)
            self.fields[f"step_{n}_die"] = _optional_choice(f"Situational step {n}: which die", encounter.STEPPED_DICE)
            self.fields[f"step_{n}_steps"] = WholeNumberField(
                label=f"Situational step {n}: steps",
                required=False,
                min_value=-limit,
                max_value=limit,
                error_messages={
                    "min_value": f"From −{limit} to +{limit} steps.",
                    "max_value": f"From −{limit} to +{limit} steps.",
                },
            )

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        extra = sorted(key for key in self.data if STEP_FIELD.match(key) and key not in self.fields)
        if extra:
            raise forms.ValidationError(
                f"At most {encounter.MAX_SITUATIONAL} situational steps: {extra[0]} is one too many."
            )
        for n in range(1, encounter.MAX_SITUATIONAL + 1):
            name, steps = cleaned.get(f"step_{n}_name"), cleaned.get(f"step_{n}_steps")
            if f"step_{n}_name" in self.errors or f"step_{n}_steps" in self.errors:
                continue
            if steps is not None and not name:
                self.add_error(f"step_{n}_name", "Name the step (cover, range, surprise…).")
            elif name and steps is None:
                self.add_error(f"step_{n}_steps", "Give the steps, up (+) or down (−).")
            elif name and steps == 0:
                self.add_error(f"step_{n}_steps", "A step of 0 moves nothing: give −1 or less, or +1 or more.")
        return cleaned

    def problem(self) -> tuple[str, str]:
        """The first field with a problem, and the problem in words that name the field."""
        field, errors = next(iter(self.errors.items()))
        if field not in self.fields:
            return field, str(errors[0])
        return field, f"{self.fields[field].label}: {errors[0]}"

    def choices(self) -> dict[str, str]:
        """The cleaned choices as the engine reads them: each as text, "" where none was given."""
        out: dict[str, str] = {}
        for name, value in self.cleaned_data.items():
            if name.endswith("_roll") and not value:
                value = AbilityRoll.NORMAL.value
            out[name] = "" if value is None else str(value)
        return out
