"""Moves: everything a player or the GM does with a system's rules besides building a sheet and rolling
it — rest, mark a recovery, spend a luck point, declare a round, draw a card, tick a checklist item,
answer a prompt. A system declares its moves as data plus pure functions; one generic pipeline in the
table app performs any of them (lock, role, versions, apply, write, record, announce), so a new
system's stateful mechanics are engine code and, at most, a template.

A move has a key and a label; a scope (a character's sheet, or the campaign's table); who may make it;
one pydantic input model, which is also its form, its API body and that body's JSON Schema; the parts
of the state whose version it is made from; whether the campaign's options offer it at all;
``why_not`` (words a player understands, or None when it may be made now); and ``apply``, which gives
the new state, the words for the history, what to tell the one who made it, and optionally a
:class:`Prompt` — a decision left to someone, with the moves allowed next and the exact chance each
choice leaves.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from random import Random
from typing import Any, Generic

from pydantic import BaseModel, ConfigDict
from typing_extensions import TypeVar

from rules.document import Problem
from rules.systems.protocol.editing import Role
from rules.systems.protocol.errors import SpecError
from rules.systems.protocol.rolls import SheetRoll

__all__ = [
    "Choice",
    "Made",
    "Move",
    "NoInput",
    "Prompt",
    "Scope",
    "Situation",
    "TableRules",
    "Viewer",
    "always",
    "find",
]

#: The state a move is made on: a system's sheet model, or its table's document model (a move that names
#: none is made on any model, as :class:`Situation` gives it).
StateT = TypeVar("StateT", bound=BaseModel, default=BaseModel)


class Scope(StrEnum):
    """What a move changes: a character's sheet, or the campaign's table."""

    SHEET = "sheet"
    TABLE = "table"


class NoInput(BaseModel):
    """The input of a move that asks nothing: a confirmation."""

    model_config = ConfigDict(extra="forbid", frozen=True)


@dataclass(frozen=True, slots=True)
class Viewer:
    """Who looks at the table or makes a move there: their role (the GM, or a player), their user's id,
    and the ids of their characters in play."""

    role: Role
    user: int
    characters: frozenset[int] = frozenset()


@dataclass(frozen=True, slots=True)
class Situation(Generic[StateT]):
    """What a move is made on: the state it changes (a sheet, or the table's document), the campaign's
    options, the role of the one making it, who they are, and the server's dice (``rng``, a
    ``secrets.SystemRandom``) for a move that rolls or shuffles. On a sheet, ``owner`` and ``gm`` are
    the user ids of the character's player and of the campaign's GM, for a prompt to leave the
    decision to one of them (``by.user`` is the one making the move). ``Situation[Sheet]`` is a move
    made on a system's ``Sheet``."""

    state: StateT
    options: Mapping[str, Any]
    role: Role
    by: Viewer | None = None
    rng: Random | None = None
    owner: int | None = None
    gm: int | None = None
    #: A sheet move's: the campaign's table as it stands (its system keeps one and the move names
    #: ``table_parts``), locked for the move; and the character's id (its hand on that table, say).
    table: BaseModel | None = None
    character: int | None = None
    #: The character's name (a sheet move's: a turn order names who takes each turn).
    name: str = ""
    #: Made as the answer to the GM's call for a roll (a roll the GM asked to be made in secret, say).
    called: bool = False

    def dice(self) -> Random:
        """The server's dice: a move that rolls is given them."""
        if self.rng is None:
            raise SpecError("dice", "this move rolls dice and was given none")
        return self.rng


@dataclass(frozen=True, slots=True)
class Choice:
    """One answer a prompt allows: the move that makes it and its input, its label, and the exact chance
    of success it leaves (None when nothing is left to chance)."""

    move: str
    label: str
    chance: Fraction | None = None
    input: Mapping[str, Any] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class Prompt:
    """A decision left to someone after a move: the user who answers (their id), the question, and the
    choices.

    On a sheet the pipeline keeps it open until one of its choices is made (by that user, or by the GM,
    who may always decide); what the answer needs of the roll (its dice) the system keeps in the sheet,
    and the answer's rolls follow the last roll of the move that left it. At the table the prompt is
    read from the table's document (:attr:`TableRules.prompt`)."""

    to: int
    question: str
    choices: tuple[Choice, ...]


@dataclass(frozen=True, slots=True)
class TableRules:
    """A system's campaign-wide table: its document's model (frozen, with a ``schema_version``), a new
    one for a campaign's options, ``migrate`` for older documents, and ``view``: what one viewer may
    see of it, JSON-ready, every hidden part (a deck's order, another player's hand, a secret roll)
    removed by the engine before anything leaves it. ``prompt``: the decision, if any, that waits for
    that viewer. ``for_sheet``: what it holds for one character that the sheet's rolls read."""

    model: type[BaseModel]
    new: Callable[[Mapping[str, Any]], BaseModel]
    view: Callable[[BaseModel, Viewer, Mapping[str, Any]], Mapping[str, Any]]
    prompt: Callable[[BaseModel, Viewer], Prompt | None] = field(default=lambda state, viewer: None)
    #: What the table holds for one character's sheet (its boosts on its skills), given the character's id:
    #: nothing hidden, for every member's eyes — the sheet's rolls read it (``sheet_roll(..., table=...)``).
    for_sheet: Callable[[BaseModel, int], Mapping[str, Any]] = field(default=lambda state, character: {})
    migrate: Callable[[dict[str, Any], int], dict[str, Any]] = field(default=lambda document, version: document)

    def read(self, document: Mapping[str, Any]) -> BaseModel:
        """The table's document read through its model, migrated first when older."""
        version = document.get("schema_version")
        current = (
            self.model.model_fields["schema_version"].default if "schema_version" in self.model.model_fields else None
        )
        if isinstance(version, int) and current is not None and version != current:
            document = self.migrate(dict(document), version)
        return self.model.model_validate(dict(document))


@dataclass(frozen=True, slots=True)
class Rolled:
    """Dice a move rolled, for the campaign's log: the system's kind of roll (one of its ``log_kinds``),
    the words for it, what was asked (``spec``), every die as rolled, the total and the outcome, and the
    exact chance of ``chance_of`` before the roll. ``follows``: the number in the log of the roll this one
    replaces (a reroll), which the state keeps from when that roll was made (:attr:`Made.then` gives it the
    numbers of the rolls a move logs); the reroll is a new roll that follows it. On a sheet, the rolls of a
    prompt's answer that name none follow the last roll of the move that left the prompt."""

    kind: str
    label: str
    spec: Mapping[str, Any]
    dice: Any
    total: int | None
    outcome: Mapping[str, Any]
    chance: Fraction | None = None
    chance_of: str = ""
    follows: int | None = None
    #: Kept secret in the log like the GM's secret roll, until a move :attr:`Made.reveals` it: its dice are
    #: the GM's to see (a die the host rolls in secret).
    secret: bool = False


@dataclass(frozen=True, slots=True)
class Made:
    """What a move made: the new state; ``words``, the history's line; ``notice``, what the one who made
    it is told, after their character's name ("rested 40 minutes: …", ": doubled a round"); ``result``,
    the figures a client reads back (what a rest healed, say); and the prompt it leaves, if any."""

    state: BaseModel
    words: str
    notice: str
    result: Mapping[str, Any] = field(default_factory=dict)
    prompt: Prompt | None = None
    #: The parts it changed, when more than those it is made from (an open form of each goes stale).
    changed: tuple[str, ...] = ()
    #: The dice it rolled, for the campaign's log, in order.
    rolls: tuple[Rolled, ...] = ()
    #: Rolls of the sheet to make as the roll page makes them (a use of a round), in order, after the move.
    sheet_rolls: tuple[SheetRoll, ...] = ()
    #: The state once the move's rolls are in the log, given their numbers in order (the sheet rolls' first,
    #: then ``rolls``): a round records each use's roll, a table the roll a later reroll replaces.
    then: Callable[[BaseModel, tuple[int, ...]], BaseModel] | None = None
    #: A sheet move's new table, when it changes the campaign's table (a card drawn into a hand): saved with
    #: the sheet, its ``table_parts`` marked changed.
    table: BaseModel | None = None
    #: The numbers in the log of secret rolls the move shows to everyone (the GM's move only).
    reveals: tuple[int, ...] = ()


def always(options: Mapping[str, Any]) -> bool:
    """Every campaign offers the move."""
    return True


def _free(situation: Situation[Any]) -> str | None:
    return None


def _no_problems(situation: Situation[Any], values: Mapping[str, Any]) -> tuple[Problem, ...]:
    return ()


@dataclass(frozen=True, slots=True)
class Move(Generic[StateT]):
    """One move of a system (see the module's docstring).

    ``who``: the roles that may make it (the owner of the sheet, the GM); ``note`` says, in a player's
    words, why someone else may not. ``parts``: the sections (of a sheet) or parts (of the table) it is
    made from and changes: a move made from an older version of any of them is refused, nothing
    changed. ``offered``: whether a campaign's options have the move at all (a campaign without it
    answers that there is no such move). ``shows``: what the move's page shows of the state before it
    is made (the hit points before a rest, say), for its template. ``check``: every problem of the
    values given, at once, each at its field (a value ``None`` was refused by its field before, and the
    checks that read it keep quiet), so that a form shows them all in one answer. ``answers``: a sheet
    move made only as the answer to an open prompt that offers it, with one of its choices' inputs (the
    pipeline refuses it otherwise); a table's answers say so by their ``why_not``, its prompt being read
    from its state. ``table_parts``: the parts of the campaign's table a sheet move also reads and changes
    (a card drawn into the character's hand): the pipeline locks the table with the sheet, gives it in
    :attr:`Situation.table` and saves :attr:`Made.table`.
    """

    key: str
    label: str
    scope: Scope
    input: type[BaseModel]
    parts: tuple[str, ...]
    apply: Callable[[Situation[StateT], Any], Made]
    who: frozenset[Role] = frozenset({Role.OWNER, Role.GM})
    note: str = ""
    help: str = ""
    button: str = ""
    offered: Callable[[Mapping[str, Any]], bool] = always
    why_not: Callable[[Situation[StateT]], str | None] = _free
    check: Callable[[Situation[StateT], Mapping[str, Any]], tuple[Problem, ...]] = _no_problems
    shows: Callable[[Situation[StateT]], Mapping[str, Any]] = field(default=lambda situation: {})
    answers: bool = False
    table_parts: tuple[str, ...] = ()
    #: A sheet move that is a roll (its dice leave a decision): made only where a roll is made — the roll page,
    #: the answer to the GM's call, the API's roll — so that the roll's rules hold (who calls the rolls), never
    #: as a move of its own.
    rolled: bool = False

    @property
    def submit(self) -> str:
        """The words of the button that makes the move."""
        return self.button or self.label


def find(moves: tuple[Move[Any], ...], key: str) -> Move[Any] | None:
    """The move of ``moves`` with ``key``, if there is one."""
    return next((move for move in moves if move.key == key), None)
