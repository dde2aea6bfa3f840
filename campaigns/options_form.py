"""A campaign's options form, generated from its system's options model (``options_model``): every system's
options with their defaults, on the new-campaign page and the campaign's settings, with and without JavaScript.

Each option of the model's JSON Schema becomes, by its shape:

- a scalar: a field (``web.schema_fields``), a choice said in the words the schema's ``labels`` give it;
- a list of a fixed length (five ability names): one box each, labelled by the schema's ``each``;
- a list of plain values (dice, names): a box of lines, one a line (dice may also be put on one line);
- a list of objects (a skill list, a stat with its skills, a table): rows, each of the item's fields, a
  Remove box on the rows already there, blank rows to add and a "More rows" submit button for more; a row
  may hold a list of rows of its own (a stat's skills). A list the schema marks ``ordered`` has an Order box
  per row; one it marks ``renames`` keeps each row's ``original`` name, so a renamed item is told from a
  removed one (``renames`` after validation);
- a choice that ``fills`` a list (a preset): a "Use this list" submit button beside it, which redraws the
  list with the preset's rows; on saving, the choice is the preset the list is, else ``otherwise``;
- a choice whose values another option names (``labels_from``: that option's key; Lucky 13's linked ability,
  named by the campaign's ability names): its values, in order, are said in that option's values, in the same
  order, as the form stands — as typed in it (posted, or kept for a redraw), else as the options have them
  (the campaign's, or the defaults). What is saved is the choice's value, never those words.

The schema's ``group`` gathers options under a heading. Without JavaScript every button redraws the page as
it was typed; with htmx it swaps the options alone. The rules are the system's own (``validate_options``):
its problems come back at their paths, next to the field or the row they are about, and what was typed stays.
"""

from __future__ import annotations

import copy
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Final, TypeAlias

from django import forms
from django.forms import formset_factory
from django.forms.formsets import BaseFormSet

from rules.document import schema_of
from rules.systems.base import OptionsError, RulesSystem
from web.fields import TextField
from web.schema_fields import SchemaChoice, resolve, scalar_field, title

#: Blank rows offered at the end of a list (of a row's own list, fewer), and how many more "More rows" adds.
BLANK_ROWS: Final = 2
NESTED_BLANK_ROWS: Final = 1
MORE_ROWS: Final = 3
#: The most rows a list takes when its schema sets no bound.
MAX_LIST_ROWS: Final = 100
#: The submit buttons that redraw the form without saving it: more rows in a list, a preset's list.
MORE: Final = "more_"
FILL: Final = "fill_"

#: An option's values as the form stands, by the option's key (for a choice that ``labels_from`` it).
Named: TypeAlias = Callable[[str], list[str]]


def sentence(message: str) -> str:
    """The engine's messages continue a label ("must be …"); shown alone they start with a capital."""
    return message[:1].upper() + message[1:]


def _choice(
    name: str, node: dict[str, Any], nullable: bool, *, radios: bool, named: Named | None = None
) -> forms.Field:
    """A scalar's field, a choice said in its ``labels``' words (or in the values of the option it ``labels_from``,
    as ``named`` gives them), a bounded number's bounds said in words."""
    made = scalar_field(name, node, nullable)
    low, high = node.get("minimum"), node.get("maximum")
    if low is not None and high is not None:
        said = f"Must be a whole number from {low} to {high}."
        made.error_messages = {**made.error_messages, "min_value": said, "max_value": said}
    labels = dict(node.get("labels") or {})
    source = node.get("labels_from")
    if isinstance(source, str) and named is not None:
        words = zip(node.get("enum", ()), named(source), strict=False)  # a value without a word keeps its label
        labels.update({str(value): word for value, word in words if word})
    if isinstance(made, SchemaChoice):
        choices = [(value, str(labels.get(value, said))) for value, said in made.choices]
        if nullable:
            choices.insert(0, ("", "None"))
        if "" in made.values:  # the empty value is a choice of its own ("None")
            made.required = False
        made.choices = choices
        made.widget = forms.RadioSelect(choices=choices) if radios else forms.Select(choices=choices)
    return made


@dataclass
class ListSpec:
    """A list of objects as rows: the item's scalar fields, its own lists, and what the schema says of it."""

    key: str
    label: str
    help: str
    noun: str
    fields: dict[str, forms.Field]
    lists: dict[str, ListSpec] = field(default_factory=dict)
    renames: bool = False
    ordered: bool = False
    max_rows: int = MAX_LIST_ROWS
    nested: bool = False

    @property
    def blanks(self) -> int:
        return NESTED_BLANK_ROWS if self.nested else BLANK_ROWS

    def rows(self, data: Any, prefix: str, initial: list[dict[str, Any]], *, more: str | None) -> Rows:
        extra = self.blanks + (MORE_ROWS if more == prefix else 0)
        room = max(self.max_rows - len(initial), 0)
        limit = self.max_rows + self.blanks + MORE_ROWS
        formset_class = formset_factory(
            RowForm, extra=min(extra, room), can_delete=True, can_delete_extra=False, can_order=self.ordered,
            max_num=limit, absolute_max=limit, validate_max=True,
        )  # fmt: skip
        formset = formset_class(
            data, initial=None if data is not None else initial, prefix=prefix,
            form_kwargs={"spec": self, "more": more},
        )  # fmt: skip
        return Rows(self, prefix, formset)


def _list_spec(
    key: str, node: dict[str, Any], item: dict[str, Any], defs: dict[str, Any], nested: bool, named: Named | None = None
) -> ListSpec:
    spec = ListSpec(
        key=key,
        label=title(key, node),
        help=str(node.get("description", "")),
        noun=str(node.get("noun") or "row"),
        fields={},
        renames=bool(node.get("renames")),
        ordered=bool(node.get("ordered")),
        max_rows=int(node.get("maxItems", MAX_LIST_ROWS)),
        nested=nested,
    )
    for name, child in item.get("properties", {}).items():
        resolved, nullable = resolve(child, defs)
        if resolved.get("type") == "array" and "items" in resolved:
            inner, _ = resolve(resolved["items"], defs)
            spec.lists[name] = _list_spec(name, resolved, inner, defs, nested=True, named=named)
        else:
            made = spec.fields[name] = _choice(name, resolved, nullable, radios=False, named=named)
            if isinstance(made, SchemaChoice) and not nullable and "default" not in child:
                # A choice a row must make, with no default: a blank row chooses nothing (and stays blank).
                made.choices = [("", "Choose…"), *made.choices]
    return spec


class RowForm(forms.Form):
    """One row of a list: the item's fields, the name it had when shown (a list that ``renames``), and a
    row's own lists (``lists``)."""

    def __init__(self, *args: Any, spec: ListSpec, more: str | None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.spec = spec
        for name, made in spec.fields.items():
            self.fields[name] = copy.deepcopy(made)
        if spec.renames:
            self.fields["original"] = forms.CharField(required=False, widget=forms.HiddenInput)
        self.lists = [
            child.rows(self.data if self.is_bound else None, f"{self.prefix}-{name}",
                       list(self.initial.get(name) or ()), more=more)
            for name, child in spec.lists.items()
        ]  # fmt: skip

    def typed_anything(self) -> bool:
        """Whether anything was typed or chosen in the row (a blank row is no item; a row with a choice made
        but its name left empty is one, which the system refuses by that name)."""
        return any(_given(self.cleaned_data.get(name)) for name in self.spec.fields)


class Rows:
    """A list's rows as a page shows them: its formset, and a message about the list as a whole."""

    def __init__(self, spec: ListSpec, prefix: str, formset: BaseFormSet) -> None:
        self.spec, self.prefix, self.formset = spec, prefix, formset
        self.error = ""
        #: After reading: each kept row's form by its index in the list.
        self.kept: list[RowForm] = []

    @property
    def more(self) -> str:
        return f"{MORE}{self.prefix}"

    @property
    def dom_id(self) -> str:
        return f"rows-{self.prefix}"

    def __iter__(self) -> Any:
        return iter(self.formset)

    def read(self) -> list[dict[str, Any]] | None:
        """The items typed, in the order asked for, without the removed and the blank rows; None if a row
        (or a row's own list) was refused, each row saying why."""
        formset = self.formset
        if not formset.is_valid():
            self.error = sentence(" ".join(formset.non_form_errors()) or "check the rows marked below")
            return None
        rows: list[tuple[int, RowForm]] = []
        for index, form in enumerate(formset.forms):
            data = form.cleaned_data
            if not data or data.get("DELETE"):
                continue
            order = data.get("ORDER")
            rows.append((order if isinstance(order, int) else 10**6 + index, form))
        items: list[dict[str, Any]] = []
        refused = False
        self.kept = []
        for _, form in sorted(rows, key=lambda pair: pair[0]):
            lists = {}
            for child in form.lists:
                lists[child.spec.key] = child.read()
                refused |= lists[child.spec.key] is None
            nested = any(child.kept for child in form.lists)
            if not (form.typed_anything() or form.cleaned_data.get("original") or nested):
                continue  # a blank row
            item = {name: form.cleaned_data.get(name) for name in self.spec.fields}
            item.update({key: value or [] for key, value in lists.items()})
            self.kept.append(form)
            items.append(item)
        if refused:
            self.error = sentence("check the rows marked below")
            return None
        return items

    def typed(self) -> list[dict[str, Any]]:
        """The rows as they were typed, not yet read (for a redraw): the blank ones left out."""
        out = []
        for form in self.formset.forms:
            names = [*form.fields]
            row = {name: form[name].value() for name in names if name not in ("ORDER", "DELETE")}
            for child in form.lists:
                row[child.spec.key] = child.typed()
            if form["DELETE"].value() if "DELETE" in form.fields else False:
                row["DELETE"] = True
            if "ORDER" in form.fields:
                row["ORDER"] = form["ORDER"].value()
            typed = any(_given(row.get(name)) for name in form.spec.fields)
            if typed or row.get("original") or any(row.get(key) for key in form.spec.lists):
                out.append(row)
        return out

    def place(self, path: list[str], message: str) -> bool:
        """Show ``message`` at ``path`` inside the list (a row, a row's field, a row's own list)."""
        if not path:
            self.error = sentence(message)
            return True
        if not path[0].isdigit() or int(path[0]) >= len(self.kept):
            return False
        form = self.kept[int(path[0])]
        rest = path[1:]
        if rest:
            child = next((c for c in form.lists if c.spec.key == rest[0]), None)
            if child is not None:
                if not child.place(rest[1:], message):
                    child.error = sentence(message)
                return True
            if rest[0] in form.fields:
                form.add_error(rest[0], sentence(message))
                return True
        form.add_error(None, sentence(message))
        return True


@dataclass
class Item:
    """One option as the page lays it out: a field, boxes of a fixed list, or rows."""

    key: str
    kind: str  # "field", "fixed" or "rows"
    label: str = ""
    help: str = ""
    group: str = ""
    fields: list[str] = field(default_factory=list)
    rows: Rows | None = None
    fills: str = ""
    otherwise: str = ""
    error: str = ""


class OptionsForm(forms.Form):
    """A system's options, generated from its options model (see the module's docstring)."""

    template = "campaigns/_options_form.html"

    def __init__(
        self,
        data: Any = None,
        *,
        system: RulesSystem,
        options: dict[str, Any],
        typed: dict[str, Any] | None = None,
        more: str | None = None,
    ) -> None:
        """The form at ``options`` (the campaign's, or the defaults), bound to ``data``; or, redrawn
        unsaved (``typed``: :meth:`typed`), as the person left it, ``more`` rows in the list it names."""
        super().__init__(data, initial={})
        self.system = system
        self.saved = options
        model = system.options_model
        schema = schema_of(model)
        defs = schema.get("$defs", {})
        typed = typed or {}
        rows_typed: dict[str, list[dict[str, Any]]] = typed.get("rows", {})
        as_typed: Mapping[str, Any] = data if data is not None else typed.get("fields", {})

        def named(key: str) -> list[str]:
            return self._values_of(key, as_typed, schema, defs)

        self.items: list[Item] = []
        for key, child in schema.get("properties", {}).items():
            node, nullable = resolve(child, defs)
            value = options.get(key)
            group = str(node.get("group", ""))
            label, help_text = title(key, node), str(node.get("description", ""))
            if node.get("type") == "array" and "prefixItems" in node:
                each = node.get("each") or [f"{label} {i + 1}" for i in range(len(node["prefixItems"]))]
                names = []
                for i, part in enumerate(node["prefixItems"]):
                    made = scalar_field(key, resolve(part, defs)[0], False)
                    made.label = str(each[i])
                    name = f"{key}-{i}"
                    self.fields[name] = made
                    self.initial[name] = value[i] if isinstance(value, list | tuple) and i < len(value) else ""
                    names.append(name)
                self.items.append(Item(key, "fixed", label, help_text, group, names))
            elif node.get("type") == "array" and "items" in node:
                item, _ = resolve(node["items"], defs)
                if item.get("type") == "object":
                    spec = _list_spec(key, node, item, defs, nested=False, named=named)
                    initial = rows_typed.get(key) if key in rows_typed else self._rows_of(spec, value or [])
                    rows = spec.rows(data, key, initial, more=more)
                    self.items.append(Item(key, "rows", label, help_text, group, rows=rows))
                else:
                    self.fields[key] = TextField(
                        label=label, help_text=" ".join(filter(None, (help_text, "One a line."))), required=False,
                        lines=True, max_length=5000, widget=forms.Textarea(attrs={"rows": 4}),
                    )  # fmt: skip
                    self.initial[key] = "\n".join(map(str, value or []))
                    self.items.append(Item(key, "field", label, help_text, group, [key]))
            else:
                made = _choice(key, node, nullable, radios=not node.get("fills"), named=named)
                made.help_text = help_text
                self.fields[key] = made
                self.initial[key] = value
                self.items.append(Item(key, "field", label, help_text, group, [key], fills=str(node.get("fills", "")),
                                       otherwise=str(node.get("otherwise", ""))))  # fmt: skip
        self.initial.update(typed.get("fields", {}))
        #: After validation: the options as the rules system cleaned them, and old name → new name.
        self.options: dict[str, Any] = {}
        self.renames: dict[str, str] = {}

    # --- Layout -------------------------------------------------------------------------------------

    def groups(self) -> list[dict[str, Any]]:
        """The options by their group, in the model's order (a group's options together, where it first shows)."""
        out: list[dict[str, Any]] = []
        for item in self.items:
            found = next((g for g in out if g["name"] == item.group), None)
            if found is None:
                found = {"name": item.group, "items": []}
                out.append(found)
            found["items"].append({"item": item, "fields": [self[name] for name in item.fields]})
        return out

    def lists(self) -> dict[str, Rows]:
        return {item.key: item.rows for item in self.items if item.rows is not None}

    def _values_of(self, key: str, typed: Mapping[str, Any], schema: dict[str, Any], defs: dict[str, Any]) -> list[str]:
        """The values of option ``key`` (a list of a fixed length, or of plain values) as the form stands: each
        as ``typed`` in the form, else as the options have it (the campaign's, or the defaults)."""
        node, _ = resolve(schema.get("properties", {}).get(key, {}), defs)
        saved = self.saved.get(key, node.get("default"))
        kept = [str(value) for value in saved] if isinstance(saved, list | tuple) else []
        if "prefixItems" in node:
            given = [" ".join(str(typed.get(f"{key}-{i}") or "").split()) for i in range(len(node["prefixItems"]))]
            return [word or (kept[i] if i < len(kept) else "") for i, word in enumerate(given)]
        if node.get("type") == "array" and key in typed:
            return _lines(str(typed.get(key) or "")) or kept
        return kept

    def _rows_of(self, spec: ListSpec, items: list[Any]) -> list[dict[str, Any]]:
        """The rows of a list of items (JSON), each keeping its original name where the list ``renames``."""
        known = {row.get("name") for row in self.saved.get(spec.key) or [] if isinstance(row, dict)}
        return [_row(spec, item, known) for item in items if isinstance(item, dict)]

    # --- Redrawing ----------------------------------------------------------------------------------

    @staticmethod
    def refresh(data: Any) -> str | None:
        """The redraw button pressed (``more_<list>`` or ``fill_<option>``), or None."""
        return next((key for key in data if key.startswith((MORE, FILL))), None) if data is not None else None

    def redrawn(self) -> OptionsForm:
        """This bound form as the person left it, unsaved, with what its button asked for: more blank rows in a
        list, or a preset's list in place of the one typed."""
        button = self.refresh(self.data) or ""
        typed = {
            "fields": {name: self[name].value() for name in self.fields},
            "rows": {key: rows.typed() for key, rows in self.lists().items()},
        }
        if button.startswith(FILL):
            key = button.removeprefix(FILL)
            item = next((i for i in self.items if i.key == key and i.fills), None)
            if item is not None:
                chosen = self.data.get(key)
                filled = self._filled(key, item.fills, chosen)
                if filled is not None:
                    target = next(i for i in self.items if i.key == item.fills)
                    assert target.rows is not None
                    typed["rows"][item.fills] = self._rows_of(target.rows.spec, filled)
        more = button.removeprefix(MORE) if button.startswith(MORE) else None
        return type(self)(system=self.system, options=self.saved, typed=typed, more=more)

    def _filled(self, key: str, target: str, choice: Any) -> list[Any] | None:
        """The list the choice ``key`` = ``choice`` fills ``target`` with, or None if it fills none."""
        try:
            return list(self.system.validate_options({key: choice})[target])
        except (OptionsError, KeyError):
            return None

    # --- Reading ------------------------------------------------------------------------------------

    def clean(self) -> dict[str, Any]:
        """Every message at once: the fields', the rows', and the rules system's on every option the form could
        read. An option the form refused goes to the system as None, which it refuses too (that message is not
        repeated) and which keeps the rules that read it quiet."""
        cleaned = super().clean() or {}
        refused = {name.split("-")[0] for name in self.errors}
        given: dict[str, Any] = {}
        for item in self.items:
            if item.kind == "rows":
                assert item.rows is not None
                value = item.rows.read()
                if value is None:
                    refused.add(item.key)
                    self.add_error(None, f"{item.label}: {item.rows.error}")
            elif item.kind == "fixed":
                value = [cleaned.get(name) for name in item.fields]
            elif isinstance(self.fields[item.key], TextField) and self.fields[item.key].lines:
                value = _lines(cleaned.get(item.key) or "")
            else:
                value = cleaned.get(item.key)
            given[item.key] = None if item.key in refused else value
        try:
            options = self.system.validate_options(given)
        except OptionsError as error:
            self.add_option_errors({path: message for path, message in error.at.items()
                                    if path.split(".")[0] not in refused})  # fmt: skip
            return cleaned
        if refused:
            return cleaned
        for item in self.items:
            if item.fills:
                options[item.key] = self._preset(item, options)
        self.options = options
        self.renames = self._renames(options)
        return cleaned

    def _preset(self, item: Item, options: dict[str, Any]) -> Any:
        """The choice whose list the saved list is, exactly; else the schema's ``otherwise``."""
        node = resolve(schema_of(self.system.options_model)["properties"][item.key], {})[0]
        for choice in node.get("enum", ()):
            if choice != item.otherwise and self._filled(item.key, item.fills, choice) == options[item.fills]:
                return choice
        return item.otherwise or options[item.key]

    def _renames(self, options: dict[str, Any]) -> dict[str, str]:
        out: dict[str, str] = {}
        for key, rows in self.lists().items():
            if not rows.spec.renames:
                continue
            for form, saved in zip(rows.kept, options[key], strict=True):
                original = form.cleaned_data.get("original")
                if original and original not in out:  # two rows can't both be one old item
                    out[original] = saved["name"]
        return out

    def add_option_errors(self, errors: dict[str, str]) -> None:
        """The rules system's messages, each by the field, the row or the list its path leads to; anything
        else at the top. A list's messages are also said at the top, by the list's name."""
        lists = self.lists()
        fixed = {item.key: item for item in self.items if item.kind == "fixed"}
        for path, message in errors.items():
            key, *rest = path.split(".")
            if key in lists:
                rows = lists[key]
                if not rows.place(rest, message):
                    rows.error = sentence(message)
                elif rest and not rows.error:
                    rows.error = sentence("check the rows marked below")
                label = next(item.label for item in self.items if item.key == key)
                self.add_error(None, f"{label}: {message}" if not rest else f"{label}: check the rows marked below")
            elif key in fixed:
                name = f"{key}-{rest[0]}" if rest and f"{key}-{rest[0]}" in self.fields else None
                if name is not None:
                    self.add_error(name, sentence(message))
                else:
                    fixed[key].error = sentence(message)
                    self.add_error(None, f"{fixed[key].label}: {message}")
            elif key in self.fields:
                self.add_error(key, sentence(message))
            else:
                self.add_error(None, sentence(message))


def _row(spec: ListSpec, item: dict[str, Any], known: set[Any]) -> dict[str, Any]:
    row: dict[str, Any] = {name: ("" if item.get(name) is None else item.get(name)) for name in spec.fields}
    for name, child in spec.lists.items():
        row[name] = [_row(child, inner, set()) for inner in item.get(name) or [] if isinstance(inner, dict)]
    if spec.renames:
        row["original"] = item.get("name") if item.get("name") in known else ""
    return row


def _given(value: Any) -> bool:
    """Whether a row's value was typed or chosen: not empty, not an unticked box."""
    return value not in (None, False) and str(value).strip() not in ("", "False")


def _lines(text: str) -> list[str]:
    """A list option's items as typed, one a line: a name keeps its spaces ("Spot Hidden"); a line of
    several dice ("d4 d6 d8") is several items."""
    out = []
    for line in text.splitlines():
        words = line.replace(",", " ").split()
        if words and all(re.fullmatch(r"[dD]\d{1,2}", word) for word in words):
            out.extend(words)
        elif line.strip():
            out.append(" ".join(line.split()))
    return out
