"""The defaults every system would otherwise write again: a base class a system's ``SYSTEM`` may build
on, giving what :class:`rules.systems.protocol.RulesSystem` asks for wherever a system has nothing of its own
to say. A system overrides what it has.

- The sheet read from its model (``sheet_model``, at ``sheet_version``), an older document migrated first
  (``migrate``, the identity until a system has older versions), every problem said at its path.
- Options from one pydantic model (``options_model``): its defaults, and a value it refuses said by field.
- No moves, no table, no legacy export format, no named API fields, nothing that waits for the GM, nothing
  that changes at an adventure's end, nothing that differs or moves with a character between campaigns,
  and outcomes in the platform's words.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from random import Random
from typing import Any, ClassVar, TypeVar

from pydantic import BaseModel, ValidationError

from rules.document import Problem, plain_words, problems_of, schema_of
from rules.systems.base import (
    Awaiting,
    LegacyRead,
    Option,
    OptionsError,
    SheetInvalid,
    SpecError,
    StartField,
    Worded,
)
from rules.systems.moves import Move, TableRules

M = TypeVar("M", bound=BaseModel)

__all__ = ["SystemDefaults", "options_of", "read_options_with", "validate_options_with"]


def options_of(model: type[BaseModel]) -> tuple[Option, ...]:
    """Each option of a campaign's options ``model``, as a form shows it: its title (or its name in words), its
    default, its choices (a ``Literal``'s values, said in the words its schema's ``labels`` give them), its
    description as help, and a whole number's bounds. One model says it all: no option tuple beside it."""
    schema = schema_of(model)
    defs = schema.get("$defs", {})
    out = []
    for name, info in model.model_fields.items():
        node = dict(schema["properties"].get(name, {}))
        if "$ref" in node:
            node = {**defs[node["$ref"].rsplit("/", 1)[-1]], **node}
        default = info.get_default(call_default_factory=True)
        if isinstance(default, tuple):
            default = list(default)
        labels = node.get("labels") or {}
        choices = tuple((str(v), str(labels.get(v, v))) for v in node.get("enum", ()))
        label = str(node.get("title") or name.replace("_", " ").capitalize())
        help_text = str(node.get("description", ""))
        out.append(Option(name, label, default, choices, help_text, node.get("minimum"), node.get("maximum")))
    return tuple(out)


def read_options_with(model: type[M], options: Any, *, system: str) -> M:
    """``options`` read through a campaign's options ``model``: its defaults for what is not given, every
    value it refuses said in words by its option (``errors``, the first problem of each) and at its path
    (``at``: ``skills.2.name``). An option the model does not have is said to be none of ``system``'s."""
    if not isinstance(options, Mapping):
        raise OptionsError({"options": "must be an object"})
    try:
        return model.model_validate(dict(options))
    except ValidationError as error:
        errors: dict[str, str] = {}
        at: dict[str, str] = {}
        items = error.errors(include_url=False)
        deeper = {item["loc"][:n] for item in items for n in range(len(item["loc"]))}
        for item in items:
            if item["type"] == "too_short" and item["loc"] in deeper:
                continue  # a list whose items were refused is not also too short
            path = ".".join(str(part) for part in item["loc"]) or "options"
            message = plain_words(item)
            if item["type"] == "extra_forbidden" and len(item["loc"]) == 1:
                message = f"is not an option of {system}"
            errors.setdefault(path.split(".")[0], _placed(item["loc"][1:], message))
            at.setdefault(path, message)
        raise OptionsError(errors, at) from None


def _placed(where: tuple[Any, ...], message: str) -> str:
    """A problem inside an option said with where it is in it: "row 2, name: needs a name"."""
    if not where:
        return message
    said = [f"row {part + 1}" if isinstance(part, int) else str(part).replace("_", " ") for part in where]
    return f"{', '.join(said)}: {message}"


def validate_options_with(model: type[BaseModel], options: Any, *, system: str) -> dict[str, Any]:
    """``options`` as ``model`` leaves them, as JSON (:func:`read_options_with`)."""
    return read_options_with(model, options, system=system).model_dump(mode="json")


def _said(value: Any, node: Mapping[str, Any]) -> Any:
    labels = node.get("labels") or {}
    if isinstance(value, str) and value in labels:
        return str(labels[value])
    if isinstance(value, bool):
        return "yes" if value else "no"
    return value


def options_summary_of(model: type[BaseModel], options: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The options as the campaign page lists them, read from the options ``model``: each option by its
    title, a choice in the words its schema's ``labels`` give it, a list of rows by each row's name."""
    schema = schema_of(model)
    defs = schema.get("$defs", {})
    out: list[dict[str, Any]] = []
    for option in options_of(model):
        node = dict(schema["properties"].get(option.key, {}))
        if "$ref" in node:
            node = {**defs[node["$ref"].rsplit("/", 1)[-1]], **node}
        value = options.get(option.key, option.default)
        if isinstance(value, list | tuple):
            items = [item.get("name", ", ".join(map(str, item.values()))) if isinstance(item, Mapping) else item
                     for item in value]  # fmt: skip
            out.append({"label": option.label, "value": f"{len(items)}", "list": [str(i) for i in items]})
        else:
            out.append({"label": option.label, "value": _said(value, node)})
    return out


class SystemDefaults:
    """The defaults of a rules system (see the module's docstring)."""

    name: str
    sheet_model: ClassVar[type[BaseModel]]
    sheet_version: int
    options_model: ClassVar[type[BaseModel]]

    moves: tuple[Move[Any], ...] = ()
    table: TableRules | None = None
    log_kinds: Mapping[str, str] = {"check": "Check"}

    # --- Options ------------------------------------------------------------------------------

    @property
    def option_fields(self) -> tuple[Option, ...]:
        """The options as forms and docs show them, read from the options model (:func:`options_of`)."""
        return options_of(self.options_model)

    def default_options(self) -> dict[str, Any]:
        return self.options_model().model_dump(mode="json")

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options as the model reads them, or :class:`OptionsError` with each refused value by its option
        and at its path (:func:`read_options_with`)."""
        return validate_options_with(self.options_model, options, system=self.name)

    def options_summary(self, options: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The options as the campaign page lists them, read from the options model (:func:`options_summary_of`)."""
        return options_summary_of(self.options_model, options)

    # --- The sheet ------------------------------------------------------------------------------

    def migrate(self, document: dict[str, Any], from_version: int) -> dict[str, Any]:
        """A document of an older version brought to this one: nothing to do until a system has one."""
        return document

    def read_sheet(self, document: Mapping[str, Any]) -> BaseModel:
        """The document read through the sheet model, migrated first when older; :class:`SheetInvalid`
        names every problem at its path."""
        try:
            version = document.get("schema_version", self.sheet_version)
            if not isinstance(version, int) or isinstance(version, bool):
                raise ValueError("schema_version must be a whole number")
            migrated = self.migrate(dict(document), version) if version != self.sheet_version else document
            return self.sheet_model.model_validate(migrated)
        except ValidationError as error:
            raise SheetInvalid(problems_of(error)) from None
        except (ValueError, TypeError, AttributeError) as error:
            raise SheetInvalid([Problem(field="sheet", message=str(error))]) from None

    # --- Creation ---------------------------------------------------------------------------------

    start_fields: tuple[StartField, ...] = ()
    new_draft: Callable[..., Any]
    roll_step: Callable[..., Any]

    def start_draft(self, options: Mapping[str, Any], given: Mapping[str, str]) -> Any:
        """A fresh draft: the first page asks the name alone."""
        return self.new_draft(options)

    def roll_at(
        self, sheet: Any, step: str, roll: str, value: Mapping[str, Any], options: Mapping[str, Any], rng: Random
    ) -> Any:
        """The step's own dice (:meth:`roll_step`); no other rolls."""
        if roll:
            raise SpecError("roll", f"there is no roll {roll!r} at the {step} step")
        return self.roll_step(sheet, step, options, rng)

    def creation_words(self, before: Any, after: Any, step: str, roll: str | None, options: Mapping[str, Any]) -> str:
        """The platform's words for every save of a creation step."""
        return ""

    # --- Words, what waits, an adventure's end ----------------------------------------------------

    def outcome_words(self, kind: str, spec: Mapping[str, Any], outcome: Mapping[str, Any]) -> Worded | None:
        return None

    def situation_fixed(self, sheet: Any, options: Mapping[str, Any]) -> frozenset[str]:
        """No part of the roll situation is fixed by the sheet."""
        return frozenset()

    def awaiting(self, sheet: Any) -> tuple[Awaiting, ...]:
        return ()  # nothing of the sheet waits for the GM

    def decide(self, sheet: Any, item: str, *, approve: bool) -> Any:
        raise SpecError("item", "nothing waits for the GM's approval here")

    def end_adventure(self, sheet: Any, options: Mapping[str, Any]) -> tuple[Any, str] | None:
        return None  # nothing on the sheet changes when an adventure ends

    # --- Export and import ------------------------------------------------------------------------

    def named_fields(self, sheet: Any, options: Mapping[str, Any]) -> dict[str, Any]:
        return {}  # no API client reads fields beside the sheet

    def differences(
        self, sheet: Any, options: Mapping[str, Any], origin: Mapping[str, Any] | None = None
    ) -> tuple[str, ...]:
        return ()

    def moved(self, sheet: Any) -> tuple[Any, tuple[str, ...]]:
        return sheet, ()  # nothing of the sheet belongs to the campaign it is played in

    def mapped(
        self, sheet: Any, options: Mapping[str, Any], origin: Mapping[str, Any] | None = None
    ) -> tuple[Any, tuple[str, ...]]:
        return sheet, ()

    def read_legacy(
        self, document: Mapping[str, Any], options: Mapping[str, Any], *, verify: Callable[[str, str], bool]
    ) -> LegacyRead:
        raise SheetInvalid(
            [Problem(field="format", message=f"{self.name} has no export format older than the envelope")]
        )
