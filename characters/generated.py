"""Section forms made from a system's sheet model, for every section a system gives no form of its own.

A section replaces some top-level fields of the sheet document (``EditSection.replaces``); the form
has a field for each, made from the JSON Schema of the system's sheet model: a whole number within
its bounds, a text within its length, a choice among a ``Literal``'s values, a yes/no, an object's
fields one by one, and a list of items as rows (each item's fields, its id hidden, a Remove box on
the rows already there, blank rows to add). What was typed is read through the shared field types
(``web.fields``) and handed to the system's ``edit`` as the section's value; the system's problems,
at document paths (``tricks.1.name``), come back next to the field or the row they are about.
"""

from __future__ import annotations

import copy
from functools import cache
from typing import Any, Final

from django import forms
from django.forms.formsets import BaseFormSet

from characters.editing import NEW_ROWS, RemovableRowForm, SectionEdit, formset, kept
from rules.document import schema_of
from web.fields import TextField
from web.schema_fields import SchemaChoice as _Choice
from web.schema_fields import Unsupported as Unsupported
from web.schema_fields import resolve as _resolve
from web.schema_fields import scalar_field as scalar_field
from web.schema_fields import title as _title

#: The most rows a list's form takes when its schema sets no bound.
MAX_LIST_ROWS: Final = 100


def _object_fields(name: str, node: dict[str, Any], defs: dict[str, Any]) -> dict[str, forms.Field]:
    """The scalar fields of an object; one its schema marks ``fixed`` is shown and kept, never changed here."""
    out = {}
    for key, child in node.get("properties", {}).items():
        resolved, nullable = _resolve(child, defs)
        made = scalar_field(key, resolved, nullable)
        if resolved.get("fixed") or child.get("fixed"):
            made.disabled = True
        out[f"{name}.{key}" if name else key] = made
    return out


class _Row(RemovableRowForm):
    """An item of a list: its id hidden, its fields from the item's schema."""

    def __init__(
        self, *args: Any, fields: dict[str, forms.Field], noun: str, removable: bool = True, **kwargs: Any
    ) -> None:
        super().__init__(*args, **kwargs)
        remove = self.fields.pop("remove", None)
        for key, field in fields.items():
            self.fields[key] = copy.deepcopy(field)
        if remove is not None and removable:
            self.fields["remove"] = remove
        named = self.initial.get("name") or f"{noun.capitalize()} {self.initial.get('id')}"
        self.title = f"New {noun}" if self.is_new else str(named)


class GeneratedEdit(SectionEdit):
    """A section's form made from the sheet model (see the module's docstring)."""

    key = ""

    def build(self) -> list[dict[str, Any]]:
        schema = schema_of(self.character.rules.sheet_model)
        defs = schema.get("$defs", {})
        current = self.character.document.model_dump(mode="json")
        #: Each list's formset, by the document field it edits.
        self.lists: dict[str, BaseFormSet] = {}
        plain: dict[str, forms.Field] = {}
        groups: list[dict[str, Any]] = []
        for name in self.section.replaces:
            node, nullable = _resolve(schema["properties"][name], defs)
            if node.get("type") == "array" and "items" in node:
                item, _ = _resolve(node["items"], defs)
                if item.get("type") != "object":
                    raise Unsupported(f"{name}: a list of {item.get('type')}")
                fields = {k: f for k, f in _object_fields("", item, defs).items() if k != "id"}
                title = _title(name, node)
                # A list whose schema says its rows are ``fixed`` (the campaign keeps them) is edited in place:
                # no row is added or removed here.
                fixed = bool(node.get("fixed_rows") or schema["properties"][name].get("fixed_rows"))
                rows = formset(
                    _Row, name, self.data, [dict(row) for row in current.get(name) or ()],
                    extra=0 if fixed else NEW_ROWS, max_rows=int(node.get("maxItems", MAX_LIST_ROWS)) + NEW_ROWS,
                    fields=fields, noun=title.lower().removesuffix("s"), removable=not fixed,
                )  # fmt: skip
                self.lists[name] = rows
                # A list is named when the form has more than it, unless the form bears its name already.
                named = len(self.section.replaces) > 1 and title.casefold() != self.section.label.casefold()
                groups.append({"heading": title if named else "", "formset": rows})
            elif node.get("type") == "object":
                plain.update(_object_fields(name, node, defs))
            else:
                plain[name] = scalar_field(name, node, nullable)
        if plain:
            initial = {key: _at(current, key) for key in plain}
            form = forms.Form(self.data, initial=initial)
            form.fields.update(plain)
            groups.insert(0, {"form": form})
        return groups

    def values(self) -> dict[str, Any]:
        """The section's value as its system's ``edit`` takes it; ``self.paths`` says where each kept row went."""
        value: dict[str, Any] = {}
        #: Each document path of a row (``tricks.1``) with the form it came from.
        self.paths: dict[str, forms.Form] = {}
        for group in self.groups:
            if "form" in group:
                for key, typed in group["form"].cleaned_data.items():
                    _put(value, key, typed)
        for name, rows in self.lists.items():
            items = []
            for form in kept(rows):
                if form.cleaned_data.get("remove"):
                    continue
                # A row keeps the id of the item it was made from, never one that was posted: a new
                # row gets a fresh id from the system, and no id is ever reused.
                data = {k: v for k, v in form.cleaned_data.items() if k not in ("remove", "id")}
                if not form.is_new:
                    data = {"id": form.initial["id"], **data}
                self.paths[f"{name}.{len(items)}"] = form
                items.append(data)
            value[name] = items
        return value

    def add_errors(self, errors: dict[str, list[str]]) -> None:
        """Each problem by the field or the row its document path leads to, else at the top."""
        plain = next((group["form"] for group in self.groups if "form" in group), None)
        for path, messages in errors.items():
            form, field = self._place(path, plain)
            for message in messages:
                if form is None:
                    self.top_errors.append(message)
                else:
                    form.add_error(field, message)

    def _place(self, path: str, plain: forms.Form | None) -> tuple[forms.Form | None, str | None]:
        if plain is not None and path in plain.fields:
            return plain, path
        parts = path.split(".")
        if len(parts) >= 2:
            row = self.paths.get(".".join(parts[:2]))
            if row is not None:
                field = parts[2] if len(parts) > 2 and parts[2] in row.fields else None
                return row, field
        return None, None


def _at(document: dict[str, Any], path: str) -> Any:
    node: Any = document
    for part in path.split("."):
        node = node.get(part) if isinstance(node, dict) else None
    return node


def _put(value: dict[str, Any], path: str, typed: Any) -> None:
    *parents, last = path.split(".")
    node = value
    for part in parents:
        node = node.setdefault(part, {})
    node[last] = typed


def fields_of(model: type, *, leave_out: frozenset[str] = frozenset()) -> dict[str, forms.Field]:
    """A form field for each top-level scalar of ``model`` (a roll's situation, say), its default as
    the field's initial value; ``leave_out`` names fields not to show (``Unsupported`` for a field of
    a type no form field shows)."""
    schema = schema_of(model)
    defs = schema.get("$defs", {})
    out = {}
    for name, child in schema.get("properties", {}).items():
        if name in leave_out:
            continue
        node, nullable = _resolve(child, defs)
        field = scalar_field(name, node, nullable or "default" in child)
        if "default" in child:
            field.initial = child["default"]
        out[name] = field
    return out


@cache
def generated_edit(section: str) -> type[GeneratedEdit]:
    """The generated form's class for ``section`` (one class per section key)."""
    return type(f"GeneratedEdit_{section}", (GeneratedEdit,), {"key": section})


def input_form(model: type, data: Any = None) -> forms.Form:
    """A form for a pydantic model of plain fields (a move's input): a field for each of the model's
    fields, made as a sheet section's are (:func:`scalar_field`), labelled by its title, with its
    description as help, starting from its default or the choice its schema ``suggested``. A field whose
    schema says how it is ``refused`` (one sentence for any value it does not take) says that, whatever
    was wrong. Its fields are made once for each model (:func:`_input_form_class`); each form has copies of
    its own, as any Django form does."""
    return _input_form_class(model)(data)


@cache
def _input_form_class(model: type) -> type[forms.Form]:
    """The form class of :func:`input_form` for ``model``: its fields made from the model's schema once, not on
    every page and every move that shows or reads one."""
    schema = schema_of(model)
    defs = schema.get("$defs", {})
    fields: dict[str, forms.Field] = {}
    required = set(schema.get("required", ()))
    for name, node in schema.get("properties", {}).items():
        resolved, nullable = _resolve(node, defs)
        field = scalar_field(name, resolved, nullable or name not in required)
        field.help_text = resolved.get("description", "")
        labels = resolved.get("labels")
        if labels and isinstance(field, _Choice):  # each choice said in words, all in sight
            field.choices = [(value, labels.get(value, value)) for value, _ in field.choices]
            field.widget = forms.RadioSelect(choices=field.choices)
        if resolved.get("lines") and isinstance(field, TextField):
            field.lines = True
            field.widget = forms.Textarea(attrs={"rows": 3, "maxlength": resolved.get("maxLength")})
        refused = resolved.get("refused")
        if refused:
            field.error_messages = {key: refused for key in (*field.error_messages, "min_value", "max_value")}
        # What the page starts from: the field's default, or the choice it ``suggests`` (still required in a body).
        if "suggested" in resolved:
            field.initial = resolved["suggested"]
        elif "default" in node:
            field.initial = node["default"]
        fields[name] = field
    form_class = type(f"{model.__name__}Form", (forms.Form,), {})
    # Set after the class is made: Django's metaclass makes ``base_fields`` of the fields declared on the class.
    form_class.base_fields = form_class.declared_fields = fields
    return form_class


def refusal_words(model: type) -> dict[str, str]:
    """The fields of ``model`` whose schema says how they are ``refused``, with those words."""
    schema = schema_of(model)
    defs = schema.get("$defs", {})
    return {
        name: str(_resolve(node, defs)[0]["refused"])
        for name, node in schema.get("properties", {}).items()
        if "refused" in _resolve(node, defs)[0]
    }
