"""The field types shared at the edge, so that a value means the same, within the same limits,
wherever it is typed: whole numbers in ASCII digits (:class:`WholeNumberField`, every form's
numbers; ``"٣"`` and ``"²"`` are refused, though Python's ``int`` reads them), the step counts of
every form that builds dice (the calculator's, the sheet roll's and, through :data:`STEP_LIMIT`, the
API's schemas), text without control characters (:class:`TextField`), choices refused in a
player's words (:class:`ChoiceField` and its kin), and what is typed into URLs and queries: keys
(:func:`whole_key`), a sheet's version (:func:`version_number`) and the start of a name to search by
(:func:`name_start`)."""

from __future__ import annotations

from collections.abc import Iterable
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


#: A choice field lists its options' labels in a message when it has at most this many of them, each
#: short (at most :data:`LISTED_LABEL` characters, with no commas or colons of its own to blur the
#: list: "Cinematic (every die explodes, again and again)"); otherwise it points at the options offered.
LISTED_CHOICES: Final = 12
LISTED_LABEL: Final = 30
#: The most characters of a refused value a message repeats.
SHOWN_VALUE: Final = 40


def in_words(labels: Iterable[str]) -> str:
    """``["d4", "d6", "d8"]`` → ``"d4, d6 or d8"``."""
    *first, last = labels
    return f"{', '.join(first)} or {last}" if first else last


def shown_value(value: Any) -> str:
    """A refused value as a message repeats it: printable characters only, at most :data:`SHOWN_VALUE`
    of them, and "That" for a value with nothing to show (never a pair of quotes around nothing)."""
    text = "".join(c for c in str(value) if c.isprintable()).strip()
    if len(text) > SHOWN_VALUE:
        text = text[: SHOWN_VALUE - 1].rstrip() + "…"
    return text or "That"


class ChoiceField(forms.ChoiceField):
    """A choice among ``choices`` that says what it refuses in a player's words: "d7 is not on the list:
    choose none, d4, d6 … or d12+d12+d4." and "Choose Trivial (d4), Easy (d6) …", where Django says
    "Select a valid choice. d7 is not one of the available choices." and "This field is required.".
    The refused value is named (the page escapes it, as every message; "That" when it is blank); the
    options' labels are listed when there are few and short (:data:`LISTED_CHOICES`), a placeholder
    option (an empty value: "none", "—") not among them. A form's own message for a field wins.

    Every choice field of the pages' forms is one of these (or of its kin below)."""

    default_error_messages = {
        "required": "Choose %(options)s.",
        "invalid_choice": "%(value)s is not on the list: choose %(options)s.",
        "invalid_list": "Choose %(options)s.",
    }
    #: The messages whose words take the options (and the refused value).
    WORDED: Final = frozenset(default_error_messages)

    def options_in_words(self) -> str:
        """The options as a message lists them, or "one of the options offered" when they are many."""
        labels = [str(label) for value, label in self._flat_choices() if str(value) != ""]
        listable = all(len(label) <= LISTED_LABEL and not set(label) & set(",;:") for label in labels)
        if not labels or len(labels) > LISTED_CHOICES or not listable:
            return "one of the options offered"
        return in_words(labels)

    def _flat_choices(self) -> Iterable[tuple[Any, Any]]:
        for value, label in self.choices:
            if isinstance(label, list | tuple):  # a group of options: <optgroup>
                yield from label
            else:
                yield value, label

    def clean(self, value: Any) -> Any:
        try:
            return super().clean(value)
        except forms.ValidationError as error:
            raise forms.ValidationError([self._worded(e) for e in error.error_list]) from None

    def _worded(self, error: forms.ValidationError) -> forms.ValidationError:
        if error.code not in self.WORDED:
            return error
        params = {**(error.params or {}), "options": self.options_in_words()}
        if "value" in params:
            params["value"] = shown_value(params["value"])
        return forms.ValidationError(error.message, code=error.code, params=params)


class TypedChoiceField(ChoiceField, forms.TypedChoiceField):
    """A choice coerced (to a whole number, say), refused in a player's words (:class:`ChoiceField`)."""


class MultipleChoiceField(ChoiceField, forms.MultipleChoiceField):
    """Any of ``choices``, each refused in a player's words (:class:`ChoiceField`)."""


class TypedMultipleChoiceField(MultipleChoiceField, forms.TypedMultipleChoiceField):
    """Any of ``choices``, coerced, each refused in a player's words (:class:`ChoiceField`)."""
