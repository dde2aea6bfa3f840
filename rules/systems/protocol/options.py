"""A campaign's options: one validated model with defaults, and what changing them does to its characters."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Protocol

from pydantic import BaseModel

__all__ = [
    "CampaignOptions",
    "Option",
    "OptionsChange",
    "OptionsError",
]


class OptionsError(ValueError):
    """Campaign options that break a rule; ``errors`` maps each option to its message, and ``at`` each problem
    to the path it is at (``skills.2.name``), so that a form says it by the row and the field it is about."""

    def __init__(self, errors: dict[str, str], at: Mapping[str, str] | None = None) -> None:
        super().__init__("; ".join(f"{key}: {message}" for key, message in errors.items()))
        self.errors = errors
        self.at: dict[str, str] = dict(at) if at is not None else dict(errors)


@dataclass(frozen=True, slots=True)
class Option:
    """A campaign option of a system, with its default and allowed values (for forms and docs): its choices,
    or for a whole number its bounds."""

    key: str
    label: str
    default: Any
    choices: tuple[tuple[str, str], ...] = ()
    help: str = ""
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True, slots=True)
class OptionsChange:
    """What a change of a campaign's options does to its characters: each sheet after it (None where
    it does not change), in the words and sections of the sheet's history; or, in ``conflicts``, by
    option, what the characters have that forbids it (then nothing changes)."""

    conflicts: Mapping[str, str]
    sheets: tuple[BaseModel | None, ...]
    what: str = ""
    sections: tuple[str, ...] = ()


class CampaignOptions(Protocol):
    """A system's campaign options: a validated model with defaults."""

    options_model: ClassVar[type[BaseModel]]
    option_fields: tuple[Option, ...]

    def default_options(self) -> dict[str, Any]: ...

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options with defaults filled in; :class:`OptionsError` names every bad option."""
        ...

    def change_options(
        self,
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        renames: Mapping[str, str],
        characters: Sequence[tuple[str, BaseModel]],
    ) -> OptionsChange:
        """A change of the options (``after``: validated) against the campaign's characters (name and
        sheet each): the sheets it changes, or its conflicts; :class:`OptionsError` for a change that
        is wrong whatever the characters (Lucky 13: a skill renamed to a name the list lacks)."""
        ...

    def options_summary(self, options: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The options as the campaign page lists them: ``{"label", "value"}`` each, and ``"list"``
        for a value that is a list (such as the skills)."""
        ...
