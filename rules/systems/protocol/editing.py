"""Edits of a finished sheet: who is making a change, the sections edited as one, and the items that wait for
the GM's approval."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from typing import Any, Protocol

from pydantic import BaseModel

__all__ = [
    "Awaiting",
    "EditRefused",
    "EditSection",
    "Editing",
    "Role",
]


class Role(StrEnum):
    """Who is making a change: a sheet's owner (its player), the campaign's GM, or, at the campaign's
    table, any player of the campaign."""

    OWNER = "owner"
    GM = "gm"
    PLAYER = "player"


class EditRefused(PermissionError):
    """An edit of a part of the sheet that this role may not change."""

    def __init__(self, section: str, message: str) -> None:
        super().__init__(message)
        self.section = section
        self.message = message


@dataclass(frozen=True, slots=True)
class EditSection:
    """A part of a finished sheet that is edited as one, and who may edit it.

    ``fields`` are the document's top-level fields its value replaces (``(key,)`` when empty);
    ``region`` is where the sheet page shows it (its templates' ``section-<region>`` partial; the
    key when empty), which sections may share; ``note`` says, in a player's words, what in it only
    the GM may change (or, for a section only the GM edits, why)."""

    key: str
    label: str
    editors: frozenset[Role] = frozenset({Role.OWNER, Role.GM})
    fields: tuple[str, ...] = ()
    region: str = ""
    note: str = ""

    @property
    def replaces(self) -> tuple[str, ...]:
        """The document fields the section's value replaces."""
        return self.fields or (self.key,)

    @property
    def where(self) -> str:
        """The region of the sheet page that shows the section."""
        return self.region or self.key


@dataclass(frozen=True, slots=True)
class Awaiting:
    """An item of a sheet that waits for the GM's approval (a player's new gear): its id and, in the
    system's words, what it is ("Weapon: Halberd, accuracy d8, damage d10")."""

    item: str
    words: str
    #: The sheet's edit section the item is in: a form of it opened before the GM's decision is stale.
    section: str = ""


class Editing(Protocol):
    """A system's edits of a finished sheet, and the GM's decisions on what waits."""

    edit_sections: tuple[EditSection, ...]

    def edit(
        self, sheet: BaseModel, section: str, value: Mapping[str, Any], *, role: Role, options: Mapping[str, Any]
    ) -> BaseModel:
        """The sheet with ``section`` replaced by ``value`` (its ``replaces`` fields), validated whole;
        :class:`EditRefused` if ``role`` may not change it, :class:`SheetInvalid` if the result breaks
        a rule. A list item of ``value`` that comes without an id is new and gets a fresh one
        (:func:`rules.document.with_new_ids`)."""
        ...

    def awaiting(self, sheet: BaseModel) -> tuple[Awaiting, ...]:
        """The sheet's items that wait for the GM's approval, in the sheet's order; ``()`` for a system
        where nothing waits."""
        ...

    def decide(self, sheet: BaseModel, item: str, *, approve: bool) -> BaseModel:
        """The sheet with the GM's decision on the waiting ``item``: approved, or refused (taken off the
        sheet: it never came into play); :class:`SpecError` if no such item waits."""
        ...
