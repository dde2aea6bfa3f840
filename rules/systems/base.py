"""The protocol every rules system follows, so that campaigns, sheets, the ledger, the roll log,
encounters, the JSON API and the command line are written once for all of them.

A system is one package under ``rules/systems/<key>/`` that exports one object, ``SYSTEM``,
following :class:`RulesSystem`. The apps reach it only through the registry
(``rules.systems.get(key)``), never by name (ARCHITECTURE.md, "The system protocol").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from random import Random
from typing import Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from rules.document import Problem

__all__ = [
    "CreationStep",
    "Currency",
    "EditRefused",
    "EditSection",
    "Effect",
    "Offer",
    "Option",
    "OptionsError",
    "Problem",
    "Role",
    "RollKind",
    "RulesSystem",
    "SheetInvalid",
    "SheetRoll",
    "SpecError",
    "Track",
    "Vitals",
]

Spec = TypeVar("Spec")
Result = TypeVar("Result")
Chance = TypeVar("Chance")


class SpecError(ValueError):
    """A roll or chance spec with a bad field; the message names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class OptionsError(ValueError):
    """Campaign options that break a rule; ``errors`` maps each option to its message."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{key}: {message}" for key, message in errors.items()))
        self.errors = errors


class SheetInvalid(ValueError):
    """A sheet document (or a draft, or an edit's result) that breaks its system's rules:
    every problem, each with where it is and a message a player understands."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(f"{p.field}: {p.message}" for p in self.problems) or "the sheet is not valid")


class EditRefused(PermissionError):
    """An edit of a part of the sheet that this role may not change."""

    def __init__(self, section: str, message: str) -> None:
        super().__init__(message)
        self.section = section
        self.message = message


class Role(StrEnum):
    """Who is changing a sheet: its owner (the player) or the campaign's GM."""

    OWNER = "owner"
    GM = "gm"


@dataclass(frozen=True, slots=True)
class Option:
    """A campaign option of a system, with its default and allowed values (for forms and docs)."""

    key: str
    label: str
    default: Any
    choices: tuple[tuple[str, str], ...] = ()
    help: str = ""


@dataclass(frozen=True, slots=True)
class RollKind(Generic[Spec, Result, Chance]):
    """One kind of roll: build its dice from a spec, roll them, or compute the exact chance.

    ``parse`` turns a plain mapping (a CLI spec, an API body, a form) into the dice to roll,
    raising :class:`SpecError`; ``chance_json`` gives the chance as the JSON object of the
    chance interface (rules README); ``describe`` says in words what a spec rolls.
    """

    key: str
    label: str
    fields: frozenset[str]
    parse: Callable[[Mapping[str, Any]], Spec]
    roll: Callable[[Spec, Random], Result]
    chance: Callable[[Spec], Chance]
    chance_json: Callable[[Mapping[str, Any]], dict[str, Any]] = field(repr=False)
    describe: Callable[[Spec], str] = field(repr=False, default=lambda spec: "")


@dataclass(frozen=True, slots=True)
class CreationStep:
    """One step of guided creation, in order; ``server_rolls`` when the server rolls dice in it."""

    key: str
    label: str
    server_rolls: bool = False


@dataclass(frozen=True, slots=True)
class EditSection:
    """A part of a finished sheet that is edited as one, and who may edit it."""

    key: str
    label: str
    editors: frozenset[Role] = frozenset({Role.OWNER, Role.GM})


@dataclass(frozen=True, slots=True)
class Track:
    """A number a dashboard and an encounter show: hit points, a health track, Luck…"""

    key: str
    label: str
    value: int
    maximum: int | None = None
    minimum: int | None = None


@dataclass(frozen=True, slots=True)
class Vitals:
    """What the party view shows of a character, and whether the character can act now.

    ``state`` is a short word for the condition (``"up"``, ``"dying"``, ``"dead"``…) and
    ``why_not`` says, when the character cannot act, why (for the page).
    """

    tracks: tuple[Track, ...]
    state: str
    can_act: bool = True
    why_not: str = ""
    conditions: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Currency:
    """What a system's characters earn and spend (Lucky 13: Adventure Points)."""

    key: str
    name: str
    abbreviation: str


@dataclass(frozen=True, slots=True)
class Effect:
    """How a purchase changes one roll: the exact chance before and after."""

    label: str
    before: Fraction
    after: Fraction

    @property
    def gain(self) -> Fraction:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Offer:
    """Something a character can buy now: its key (it names sheet items by id), a label for a
    player, its cost in a currency, and how it changes the odds."""

    key: str
    label: str
    currency: str
    cost: int
    effects: tuple[Effect, ...] = ()


@dataclass(frozen=True, slots=True)
class SheetRoll:
    """A roll built from a sheet and the situation: its kind, the spec its roll kind rolls
    (a chance-interface spec), and the words that say what is rolled."""

    kind: str
    spec: Mapping[str, Any]
    label: str


@runtime_checkable
class RulesSystem(Protocol):
    """What a system's ``SYSTEM`` object gives the apps (ARCHITECTURE.md, "The system protocol").

    Sheets go in and out as JSON-ready dicts (``document``) or as the system's own frozen model
    (``sheet``); the apps never look inside either except through these methods.
    """

    # Identity, and what the system's license asks the product to say.
    key: str
    name: str
    attribution: str
    disclaimer: str
    license_name: str
    license_file: str

    # Campaign options: a validated model with defaults.
    options_model: ClassVar[type[BaseModel]]
    option_fields: tuple[Option, ...]

    def default_options(self) -> dict[str, Any]: ...

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options with defaults filled in; :class:`OptionsError` names every bad option."""
        ...

    def options_summary(self, options: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The options as the campaign page lists them: ``{"label", "value"}`` each, and ``"list"``
        for a value that is a list (such as the skills)."""
        ...

    # The sheet.
    sheet_model: ClassVar[type[BaseModel]]
    sheet_version: int

    def migrate(self, document: dict[str, Any], from_version: int) -> dict[str, Any]: ...

    def read_sheet(self, document: Mapping[str, Any]) -> BaseModel:
        """The sheet of a stored or imported document, migrated if older; :class:`SheetInvalid`."""
        ...

    def validate(self, sheet: BaseModel, options: Mapping[str, Any], *, finished: bool) -> tuple[Problem, ...]:
        """What breaks the campaign's rules in a sheet as it stands (a finished character must be
        complete; an advanced one is never re-checked as a fresh creation)."""
        ...

    # Creation.
    creation_steps: tuple[CreationStep, ...]

    def new_draft(self, options: Mapping[str, Any]) -> BaseModel: ...

    def check_step(self, sheet: BaseModel, step: str, options: Mapping[str, Any]) -> tuple[Problem, ...]:
        """What the draft still lacks or breaks at ``step`` (messages a player understands)."""
        ...

    def roll_step(self, sheet: BaseModel, step: str, options: Mapping[str, Any], rng: Random) -> BaseModel:
        """The draft with the server's dice of ``step`` rolled and recorded (only for steps that roll)."""
        ...

    # Edits of a finished sheet.
    edit_sections: tuple[EditSection, ...]

    def edit(
        self, sheet: BaseModel, section: str, value: Mapping[str, Any], *, role: Role, options: Mapping[str, Any]
    ) -> BaseModel:
        """The sheet with ``section`` replaced by ``value``, validated whole; :class:`EditRefused`
        if ``role`` may not change it, :class:`SheetInvalid` if the result breaks a rule."""
        ...

    # The table.
    def vitals(self, sheet: BaseModel, options: Mapping[str, Any]) -> Vitals: ...

    roll_kinds: Mapping[str, RollKind[Any, Any, Any]]

    def sheet_roll(self, sheet: BaseModel, situation: Mapping[str, Any], options: Mapping[str, Any]) -> SheetRoll:
        """The roll a sheet makes in a situation (what, against what, with which modifiers)."""
        ...

    # Advancement.
    currencies: tuple[Currency, ...]

    def offers(self, sheet: BaseModel, options: Mapping[str, Any], situation: Mapping[str, Any]) -> tuple[Offer, ...]:
        """Everything the sheet can buy now, with its cost and how it changes the odds."""
        ...

    def buy(self, sheet: BaseModel, offer: str, options: Mapping[str, Any]) -> tuple[BaseModel, Offer]:
        """The sheet after buying ``offer`` (a key from :meth:`offers`), and what was bought."""
        ...
