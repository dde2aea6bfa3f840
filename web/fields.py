"""The field types shared at the edge: the step counts of every form that builds dice (the
calculator's, the sheet roll's and, through :data:`STEP_LIMIT`, the API's schemas), so a step
count means the same, within the same limits, wherever it is typed; and keys typed into URLs."""

from __future__ import annotations

from typing import Any, Final

from django import forms

#: The most steps up or down a form or the API accepts for one die.
STEP_LIMIT: Final = 10


class StepsField(forms.IntegerField):
    """A number of steps; a box left empty (say, while typing) means none."""

    def clean(self, value: Any) -> int:
        return super().clean(value) or 0


def steps_field(label: str) -> StepsField:
    """An optional step count within ±:data:`STEP_LIMIT`, drawn as a small number box."""
    return StepsField(
        label=label,
        initial=0,
        required=False,
        min_value=-STEP_LIMIT,
        max_value=STEP_LIMIT,
        widget=forms.NumberInput(attrs={"inputmode": "numeric", "class": "steps"}),
    )


#: A key or id typed into a URL: ASCII digits only (``"²"`` and ``"٣"`` are digits to Python's
#: ``str.isdigit`` but not to ``int`` or the database), at most this many of them.
MAX_KEY_DIGITS: Final = 12


def whole_key(value: str) -> int | None:
    """``value`` as a key of 1 or more (a page's ``before``, an id), or ``None`` if it is not one."""
    if not 0 < len(value) <= MAX_KEY_DIGITS or not value.isascii() or not value.isdigit():
        return None
    number = int(value)
    return number if number >= 1 else None
