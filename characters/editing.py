"""Editing a sheet in place, one section at a time: the forms every system's sections share.

A section's form is a :class:`SectionEdit`: it shows the section as it is, reads what was typed
and saves it through the sheet's one write path, putting each refusal next to the field it is
about. Most sections' forms are made from the system's sheet model (:mod:`characters.generated`);
a system whose section needs a form of its own (Lucky 13's specializations, say) registers it
with :func:`register`, and :func:`edit_for` picks the system's own form or the generated one.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Iterator, Mapping
from typing import Any, ClassVar, Final

from django import forms
from django.contrib.auth.models import AbstractBaseUser
from django.forms.formsets import BaseFormSet, formset_factory
from django.http import QueryDict

from characters import operations
from characters.models import Character
from rules.systems.base import EditSection
from web.fields import WholeNumberField

#: Empty rows offered for adding, below the rows already on the sheet.
NEW_ROWS = 2


class RowForm(forms.Form):
    """A row of a list on the sheet: one already there (with its id) or a new one."""

    id = WholeNumberField(required=False, widget=forms.HiddenInput)
    title = ""
    group = ""

    @property
    def is_new(self) -> bool:
        return not self.initial.get("id")

    def typed_title(self) -> str:
        return self.title


class RemovableRowForm(RowForm):
    remove = forms.BooleanField(label="Remove", required=False)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        remove = self.fields.pop("remove")
        if not self.is_new:  # last in the row, after the fields it would throw away
            self.fields["remove"] = remove


def formset(form: type[forms.Form], prefix: str, data: QueryDict | None, initial: list[dict[str, Any]],
            *, extra: int, max_rows: int, **form_kwargs: Any) -> BaseFormSet:  # fmt: skip
    """Rows of ``form``: one per item of ``initial`` and ``extra`` blank ones, at most ``max_rows`` in all
    (every row a sheet's list may hold, and the new ones); more posted rows are refused by the formset."""
    formset_class = formset_factory(form, extra=extra, max_num=max_rows, absolute_max=max_rows)
    return formset_class(data, initial=initial, prefix=prefix, form_kwargs=form_kwargs, error_messages=ROW_MESSAGES)


#: A formset's refusals in a player's words (Django's speak of "forms" and a "ManagementForm").
ROW_MESSAGES: Final = {
    "too_many_forms": "At most %(num)d rows.",
    "missing_management_form": "This form is missing some of its parts: reload the page and try again.",
}


def kept(formset: BaseFormSet) -> Iterator[forms.Form]:
    """The rows a save is about: every row that was on the sheet, and new rows that were filled in."""
    for i, form in enumerate(formset.forms):
        if i >= formset.initial_form_count() and not form.has_changed():
            continue
        yield form


def shown(field: forms.BoundField) -> str:
    """A field's raw value as the player typed or chose it, for the conflict message."""
    value = field.value()
    if isinstance(field.field, forms.BooleanField):
        return "yes" if field.field.to_python(value) else ""
    labels = {str(choice): str(label) for choice, label in getattr(field.field.widget, "choices", None) or ()}
    if isinstance(value, list | tuple):  # the skills an asset helps: their names, not their ids
        return ", ".join(labels.get(str(v), str(v)) for v in value)
    return labels.get(str(value), "" if value is None else str(value).strip())


class SectionEdit(ABC):
    """The forms that edit one section, bound to what was posted or showing the sheet as it is."""

    key: ClassVar[str]
    hint = ""

    def __init__(
        self, character: Character, data: QueryDict | None = None, *, gm: bool, section: EditSection | None = None
    ) -> None:
        self.character = character
        self.gm = gm
        self.data = data
        #: The section the form edits: the sheet's own, or ``section`` (a creation step's fields).
        self.section: EditSection = section or operations.sections_for(character)[self.key]
        self.top_errors: list[str] = []
        self.groups: list[dict[str, Any]] = self.build()

    @abstractmethod
    def build(self) -> list[dict[str, Any]]:
        """The parts of the form: each a dict with ``form`` or ``formset``, and a ``heading``."""

    @abstractmethod
    def values(self) -> Any:
        """What was typed, parsed, for :meth:`save` (call after ``is_valid``)."""

    @property
    def label(self) -> str:
        """What the page calls the section ("Edit …")."""
        return self.section.label

    def save(self, *, version: int, by: AbstractBaseUser) -> Character:
        """Save what was typed (valid) through the sheet's write path, made from ``version`` of the section:
        :class:`operations.StaleSection`, :class:`operations.InvalidSection` (at :meth:`places`' keys) or
        :class:`operations.NotAllowed`, and nothing is written."""
        return operations.save_value(
            character_id=self.character.pk, section=self.key, version=version, value=self.values(), by=by
        )

    @property
    def forms(self) -> list[forms.Form]:
        out = []
        for group in self.groups:
            out.extend(group["formset"].forms if "formset" in group else [group["form"]])
        return out

    def is_valid(self) -> bool:
        results = [g["formset"].is_valid() if "formset" in g else g["form"].is_valid() for g in self.groups]
        return all(results)

    @property
    def errors(self) -> list[str]:
        """Messages about the section as a whole (a field's own messages sit next to it)."""
        out = list(self.top_errors)
        for group in self.groups:
            if "formset" in group:
                out.extend(group["formset"].non_form_errors())
        for form in self.forms:
            out.extend(form.non_field_errors())
        return out

    @property
    def summary(self) -> list[str]:
        """Every message, the section's first and then each field's with its label, for the alert at the top."""
        out = self.errors
        for form in self.forms:
            title = getattr(form, "title", "")
            for field in form.visible_fields():
                out.extend(f"{title + ', ' if title else ''}{field.label}: {error}" for error in field.errors)
        return out

    @property
    def has_errors(self) -> bool:
        return bool(self.top_errors) or any(
            g["formset"].total_error_count() if "formset" in g else g["form"].errors for g in self.groups
        )

    def places(self) -> dict[str, tuple[forms.Form, str | None]]:
        """Where each key of ``InvalidSection.errors`` shows: a field, or a row as a whole."""
        out: dict[str, tuple[forms.Form, str | None]] = {}
        for form in self.forms:
            if form.prefix:
                out[form.prefix] = (form, None)
            for name in form.fields:
                out[form.add_prefix(name)] = (form, name)
        return out

    def add_errors(self, errors: dict[str, list[str]]) -> None:
        places = self.places()
        for where, messages in errors.items():
            form, field = places.get(where, (None, None))
            for message in messages:
                if form is None:
                    self.top_errors.append(message)
                else:
                    form.add_error(field, message)

    def focus_first(self) -> None:
        """Move the keyboard into the form when it opens (htmx focuses ``autofocus`` after a swap)."""
        for form in self.forms:
            for field in form.visible_fields():
                field.field.widget.attrs["autofocus"] = True
                return

    def typed(self) -> list[str]:
        """What the player had typed, one line per row, so that they can enter it again."""
        lines = []
        for group in self.groups:
            rows = list(kept(group["formset"])) if "formset" in group else [group["form"]]
            for form in rows:
                parts = [
                    f"{field.label}: {text}" for field in form.visible_fields() if (text := shown(field))
                ]  # fmt: skip
                if parts:
                    title = getattr(form, "title", "")
                    lines.append(f"{title} — {'; '.join(parts)}" if title else "; ".join(parts))
        return lines


#: Each system's own section forms, by system key and section key.
_OWN_FORMS: dict[str, dict[str, type[SectionEdit]]] = {}


def register(system: str, edits: Mapping[str, type[SectionEdit]]) -> None:
    """Use ``edits`` (by section key) for those sections of ``system``'s sheets."""
    _OWN_FORMS.setdefault(system, {}).update(edits)


def edit_for(character: Character, section: str) -> type[SectionEdit]:
    """The form of ``section`` of the character's sheet: its system's own, or the generated one."""
    own = _OWN_FORMS.get(character.system, {}).get(section)
    if own is not None:
        return own
    from characters.generated import generated_edit

    return generated_edit(section)
