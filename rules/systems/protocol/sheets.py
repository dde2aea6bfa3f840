"""The sheet document: its model, version and migrations, its checks, and what dashboards, lists and the
sheet's pages show of it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel
from typing_extensions import TypeVar

from rules.document import Problem

__all__ = [
    "SheetDocuments",
    "SheetT",
    "Summary",
    "Track",
    "Vitals",
]

#: A system's sheet model, where a value carries a sheet of one system (``Other[Sheet]``, ``Fighter[StatBlock,
#: Sheet]``); a value that names none carries any sheet.
SheetT = TypeVar("SheetT", bound=BaseModel, default=BaseModel)


@dataclass(frozen=True, slots=True)
class Track:
    """A number a dashboard and an encounter show: hit points, a health track, Luck…"""

    key: str
    label: str
    value: int
    maximum: int | None = None
    minimum: int | None = None
    #: A short unit a page writes after the value ("hp"); the label when empty.
    unit: str = ""
    #: The track drawn as rows of slots, first row first: (label, slots full, slots in the row).
    segments: tuple[tuple[str, int, int], ...] = ()


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
    #: Facts a page shows beside the tracks, as (label, value): ("Pulse now", "d6").
    notes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Summary:
    """A character in a few words, for lists: its concept ("" if the system has none), the creation
    step a draft was left at ("" once finished) and what the server rolled in creation, in words."""

    concept: str = ""
    step: str = ""
    rolls: tuple[str, ...] = ()


class SheetDocuments(Protocol):
    """A system's sheet document, read, checked and shown."""

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

    def vitals(self, sheet: BaseModel, options: Mapping[str, Any]) -> Vitals: ...

    def summary(self, sheet: BaseModel) -> Summary:
        """The character in a few words, for the lists of a campaign."""
        ...

    def sheet_view(self, sheet: BaseModel, options: Mapping[str, Any]) -> dict[str, Any]:
        """What the system's sheet templates (``templates/systems/<key>/``) show beyond the document
        itself: values derived from it (Lucky 13: each specialization's effective die, the hit point
        rows), computed once per page."""
        ...
