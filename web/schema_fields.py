"""Form fields made from a pydantic model's JSON Schema, shared by every form generated from a model (a sheet's
sections, a move's input, a campaign's options): a whole number within its bounds, a text within its length, a
choice among a ``Literal``'s values, a yes/no."""

from __future__ import annotations

from typing import Any

from django import forms

from rules.document import MAX_SHORT_TEXT
from web.fields import ChoiceField, TextField, whole_number


class Unsupported(TypeError):
    """A part of a model a generated form cannot show: the system gives that part a form of its own."""


def resolve(node: dict[str, Any], defs: dict[str, Any]) -> tuple[dict[str, Any], bool]:
    """The schema ``node`` stands for (its ``$ref`` followed), and whether it may be null."""
    nullable = False
    if "anyOf" in node:
        options = [option for option in node["anyOf"] if option.get("type") != "null"]
        nullable = len(options) < len(node["anyOf"])
        if len(options) != 1:
            raise Unsupported(f"a choice of {len(options)} types")
        node = {**{k: v for k, v in node.items() if k != "anyOf"}, **options[0]}
    if "$ref" in node:
        target = defs[node["$ref"].rsplit("/", 1)[-1]]
        node = {**target, **{k: v for k, v in node.items() if k != "$ref"}}
    return node, nullable


def title(name: str, node: dict[str, Any]) -> str:
    return str(node.get("title") or name.replace("_", " ").capitalize())


class SchemaChoice(ChoiceField):
    """One of a ``Literal``'s values; whole numbers come back as numbers. What it refuses it says in
    a player's words, as every choice field (:class:`web.fields.ChoiceField`)."""

    def __init__(self, values: list[Any], **kwargs: Any) -> None:
        self.values = {str(value): value for value in values}
        choices = [(str(value), str(value) if value != "" else "None") for value in values]
        super().__init__(choices=choices, **kwargs)

    def clean(self, value: Any) -> Any:
        return self.values.get(super().clean(value), None)


def scalar_field(name: str, node: dict[str, Any], nullable: bool) -> forms.Field:
    """The form field for a scalar of the schema (``Unsupported`` for anything else): a number or a
    choice must be given unless it may be null; a text may be left empty (its system says if not)."""
    label = title(name, node)
    values = node.get("enum") or ([node["const"]] if "const" in node else None)
    if values:
        return SchemaChoice(list(values), label=label, required=not nullable)
    kind = node.get("type")
    if kind == "integer":
        minimum, maximum = node.get("minimum"), node.get("maximum")
        return whole_number(label, minimum=minimum, maximum=maximum, required=not nullable)
    if kind == "string":
        limit = node.get("maxLength")
        long = limit is None or limit > MAX_SHORT_TEXT
        widget = forms.Textarea(attrs={"rows": 6}) if long else forms.TextInput(attrs={"maxlength": limit})
        return TextField(label=label, required=False, max_length=limit, strip=long is False, lines=long, widget=widget)
    if kind == "boolean":
        return forms.BooleanField(label=label, required=False)
    raise Unsupported(f"{name}: a {kind or 'value'} of no supported type")
