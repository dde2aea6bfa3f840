"""The field types shared at the edge, so that a value means the same, within the same limits,
wherever it is typed: whole numbers in ASCII digits (:class:`WholeNumberField`, every form's
numbers; ``"٣"`` and ``"²"`` are refused, though Python's ``int`` reads them), the step counts of
every form that builds dice (the calculator's, the sheet roll's and, through :data:`STEP_LIMIT`, the
API's schemas), text without control characters (:class:`TextField`), and what is typed into URLs
and queries: keys (:func:`whole_key`), a sheet's version (:func:`version_number`) and the start of
a name to search by (:func:`name_start`)."""

from __future__ import annotations

from typing import Any, Final

from django import forms

#: The most steps up or down a form or the API accepts for one die.
STEP_LIMIT: Final = 10


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
#: The largest key or count a URL, a query or a socket message may name (a bigger number names
#: nothing, and would overflow the database's integer).
MAX_KEY: Final = 10**MAX_KEY_DIGITS - 1


def whole_key(value: str) -> int | None:
    """``value`` as a key of 1 or more (a page's ``before``, an id), or ``None`` if it is not one."""
    if not 0 < len(value) <= MAX_KEY_DIGITS or not value.isascii() or not value.isdigit():
        return None
    number = int(value)
    return number if number >= 1 else None


def name_start(value: str, limit: int) -> str | None:
    """A search by the start of a name, as typed: one line, trimmed, at most ``limit`` characters (a name
    fits its column), nothing unprintable (a newline, a NUL, which PostgreSQL refuses); None if not."""
    text = value.strip(" ")
    return text if len(text) <= limit and text.isprintable() else None


def version_number(value: str) -> int | None:
    """``value`` as the version of a sheet a form was made from (0 for a sheet never saved since it was
    made), or ``None`` if it is not one: ASCII digits only, as for :func:`whole_key`."""
    return 0 if value == "0" else whole_key(value)


class WholeNumberField(forms.IntegerField):
    """A whole number typed in ASCII digits, with an optional minus: ``"²"``, ``"٣"``, ``"1e3"`` and
    ``"+4"`` are refused by the field, before anything reads them (Python's ``int`` takes the first two)."""

    default_error_messages = {"invalid": "Enter a whole number."}

    def to_python(self, value: Any) -> int | None:
        if isinstance(value, str):
            text = value.strip()
            digits = text.removeprefix("-")
            if text and (not digits.isascii() or not digits.isdigit() or len(digits) > MAX_KEY_DIGITS):
                raise forms.ValidationError(self.error_messages["invalid"], code="invalid")
        return super().to_python(value)


class StepsField(WholeNumberField):
    """A number of steps; a box left empty (say, while typing) means none."""

    def clean(self, value: Any) -> int:
        return super().clean(value) or 0


def whole_number(label: str, *, minimum: int | None, maximum: int | None, required: bool) -> WholeNumberField:
    """A whole number within ``minimum`` … ``maximum``, drawn as a number box."""
    return WholeNumberField(
        label=label,
        required=required,
        min_value=minimum,
        max_value=maximum,
        error_messages={"required": "Enter a whole number."},
        widget=forms.NumberInput(attrs={"inputmode": "numeric"}),
    )


#: Text as the API's schemas take it (a regular expression for ``pattern``), refused as
#: :class:`TextField` refuses it: one line without control characters, or lines (newlines, carriage
#: returns and tabs kept) without the others.
ONE_LINE: Final = r"^[^\x00-\x1f\x7f-\x9f]*$"
LINES: Final = r"^[^\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f]*$"


class TextField(forms.CharField):
    """Text with no control characters but, where ``lines``, the newline and the tab, at most ``max_length``
    characters: what every sheet's text types (``rules.document``) accept, refused at the edge first."""

    def __init__(self, *, lines: bool = False, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.lines = lines

    def validate(self, value: str) -> None:
        super().validate(value)
        allowed = "\n\t\r" if self.lines else ""
        if any((ord(c) < 32 or 127 <= ord(c) < 160) and c not in allowed for c in value):
            raise forms.ValidationError(
                "Remove the control characters." if self.lines else "Keep it on one line, without control characters.",
                code="control",
            )
