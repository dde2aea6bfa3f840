"""What a browser sends for a section's edit form, for the sheet-editing tests."""

from __future__ import annotations

from typing import Any

from django import forms

from characters.models import Character
from characters.operations import section_version
from characters.sheets import with_sheet
from games.lucky13.forms import EDITS


def posted(character: Character, section: str, changes: dict[str, Any] | None = None, *, gm: bool = True) -> dict:
    """The section's form as it opens, submitted untouched but for ``changes`` (field name → value)."""
    full = with_sheet(Character.objects.filter(pk=character.pk)).get()
    edit = EDITS[section](full, gm=gm)
    data: dict[str, Any] = {"version": str(section_version(full, section))}
    for group in edit.groups:
        if "formset" in group:
            management = group["formset"].management_form
            for name in management.fields:
                data[management.add_prefix(name)] = str(management[name].value())
            rows = group["formset"].forms
        else:
            rows = [group["form"]]
        for form in rows:
            for name, field in form.fields.items():
                value = form[name].value()
                key = form.add_prefix(name)
                if isinstance(field.widget, forms.CheckboxInput):
                    if value:
                        data[key] = "on"
                elif isinstance(field.widget, forms.CheckboxSelectMultiple) or isinstance(value, list | tuple):
                    data[key] = [str(v) for v in value or ()]
                else:
                    data[key] = "" if value is None else str(value)
    data.update(changes or {})
    return data


def row(data: dict[str, Any], prefix: str, name: str) -> str:
    """The prefix of the row called ``name`` in posted data (``spec-1``)."""
    for key, value in data.items():
        if key.startswith(f"{prefix}-") and key.endswith("-name") and value == name:
            return key.removesuffix("-name")
    raise LookupError(f"no {prefix} row named {name!r}")


def new_row(data: dict[str, Any], prefix: str) -> str:
    """The prefix of the first empty row, for adding."""
    initial = int(data[f"{prefix}-INITIAL_FORMS"])
    return f"{prefix}-{initial}"
