"""Export and import: a sheet nobody vouches for, a character that arrives from another campaign, documents of
an export format older than the envelope, and the fields the JSON API's older clients read."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

from pydantic import BaseModel

from rules.document import Problem

__all__ = [
    "Arrival",
    "Exchange",
    "LegacyRead",
]


SheetT = TypeVar("SheetT")


@dataclass(frozen=True, slots=True)
class Arrival(Generic[SheetT]):
    """A character from another campaign as this campaign takes it in: the sheet, what plays differently here,
    in order, each in a player's words; ``changed``: what the sheet itself changes by, each in a few words for
    its history (the rest stays as it is)."""

    sheet: SheetT
    words: tuple[str, ...]
    changed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LegacyRead:
    """A document of an export format older than the envelope, read by its system: the sheet document
    it converts to (current version, JSON-ready), the character's name and status ("draft"/"active"),
    whether its rolls were checked against the document's own signature (``rolls_verified``), and what
    that check found (``problems``, at paths of the old document), for which the import is refused."""

    system: str
    name: str
    status: str
    sheet: dict[str, Any]
    rolls_verified: bool
    problems: tuple[Problem, ...] = field(default=())


class Exchange(Protocol):
    """A system's side of export and import (characters/exchange.py), and of the JSON API."""

    def named_fields(self, sheet: BaseModel, options: Mapping[str, Any]) -> dict[str, Any]:
        """The fields beside the sheet that the API's clients have read since before sheet documents
        (Lucky 13's export fields); ``{}`` for a system without such a past."""
        ...

    #: The ``schema`` strings of export documents older than the envelope (no ``format`` key,
    #: ``schema_version`` 1) that :meth:`read_legacy` reads; ``()`` for none.
    legacy_formats: tuple[str, ...]

    def fresh_problems(
        self, sheet: BaseModel, options: Mapping[str, Any], *, campaign: str, rolls_verified: bool
    ) -> tuple[Problem, ...]:
        """What a campaign with ``options`` (named ``campaign``, for the messages) refuses in a sheet
        nobody vouches for (an unsigned or changed export, a player's own document), before the creation
        steps it has passed are checked: what its creation does not allow, and any dice the server rolls
        unless the document's own signature vouched for them (``rolls_verified``). Each field is a path
        in the sheet, or ``"signature"`` for rolls that cannot be taken on trust."""
        ...

    def afresh(
        self, sheet: BaseModel, options: Mapping[str, Any], *, finished: bool
    ) -> tuple[BaseModel, tuple[str, ...]]:
        """The sheet of a document nobody vouches for as a fresh creation of the campaign: its played
        state started afresh (``finished``: a finished character), read again; and what changed, each in
        a player's words ("reputation from +2 to 0"). Currencies are the ledger's, not here."""
        ...

    #: The campaign's options that travel with an export of a sheet (``characters/exchange.py`` puts them
    #: in the envelope, under the signature): what the sheet's values were counted by and its items made
    #: with where it comes from (Lucky 13's hit points per Pulse step and skill list). ``()`` for none.
    carried_options: tuple[str, ...]

    def differences(
        self, sheet: BaseModel, options: Mapping[str, Any], origin: Mapping[str, Any] | None = None
    ) -> tuple[str, ...]:
        """What plays differently for a sheet made under other options in a campaign with ``options``, each
        in a player's words, its items matched to the campaign's by name, case and spacing aside (a skill of
        another spelling or link, one the campaign does not have, the skill that fights), and what
        :meth:`mapped` changes; ``origin`` is the :attr:`carried_options` of the campaign it comes from
        (None when the export does not say), what its values were counted by there. ``()`` when nothing
        plays differently."""
        ...

    def mapped(
        self, sheet: BaseModel, options: Mapping[str, Any], origin: Mapping[str, Any] | None = None
    ) -> tuple[BaseModel, tuple[str, ...]]:
        """The sheet as a campaign with ``options`` takes it in from one whose :attr:`carried_options` are
        ``origin``, read again: each item matched by name in the campaign's spelling and with its links,
        each value counted at the campaign's rate; and what changed, each in a few words for the sheet's
        history (:meth:`differences` has said each at length). ``(sheet, ())`` when nothing changes."""
        ...

    def moved(self, sheet: BaseModel) -> tuple[BaseModel, tuple[str, ...]]:
        """The sheet as it joins another campaign than the one it was exported from (before the GM's
        decision): whatever of it points into that campaign (a round in play there, its log's roll numbers)
        cleared, read again; and what changed, each in a player's words. ``(sheet, ())`` for a sheet that
        holds nothing of the kind."""
        ...

    def fresh_rules(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """What a document nobody vouches for must fit in a campaign with ``options``, and what starts
        afresh, in a player's words (the import page lists them)."""
        ...

    def read_legacy(
        self, document: Mapping[str, Any], options: Mapping[str, Any], *, verify: Callable[[str, str], bool]
    ) -> LegacyRead:
        """A document of one of :attr:`legacy_formats`, converted for a campaign with ``options``.
        ``verify(payload, integrity)`` says whether this server signed ``payload`` (the caller holds the
        key). :class:`SheetInvalid` names every bad field at its path in the old document."""
        ...
