"""Guided creation: the ordered steps of a draft, what each lacks, the server's dice, and the finish."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from random import Random
from typing import Any, Protocol

from pydantic import BaseModel

from rules.document import Problem

__all__ = [
    "Creation",
    "CreationStep",
    "StartField",
]


@dataclass(frozen=True, slots=True)
class CreationStep:
    """One step of guided creation, in order; ``server_rolls`` when the server rolls dice in it;
    ``fields``, what the player fills in at it (the keys :meth:`Creation.fill_step` takes: a page
    makes its form from the sheet model's fields of those names where the system has no form of its
    own); ``rolls``, the other rolls a player may ask the server for at it, each a key and the words of
    its button (Lucky 13's rolls on a campaign's tables: :meth:`Creation.roll_at`)."""

    key: str
    label: str
    server_rolls: bool = False
    fields: tuple[str, ...] = ()
    rolls: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class StartField:
    """A line of text the first page of creation asks with the name (Lucky 13's concept): the document's
    top-level field, its label, a hint, how the page's introduction says it, and its longest."""

    key: str
    label: str
    hint: str = ""
    said: str = ""
    max_length: int = 200


class Creation(Protocol):
    """A system's guided creation."""

    creation_steps: tuple[CreationStep, ...]

    def new_draft(self, options: Mapping[str, Any]) -> BaseModel: ...

    def check_step(self, sheet: BaseModel, step: str, options: Mapping[str, Any]) -> tuple[Problem, ...]:
        """What the draft still lacks or breaks at ``step`` (messages a player understands)."""
        ...

    def roll_step(self, sheet: BaseModel, step: str, options: Mapping[str, Any], rng: Random) -> BaseModel:
        """The draft with the server's dice of ``step`` rolled and recorded (only for steps that roll)."""
        ...

    def fill_step(self, sheet: BaseModel, step: str, value: Mapping[str, Any], options: Mapping[str, Any]) -> BaseModel:
        """The draft with what the player gives at ``step`` (its ``fields``, as JSON; a list item without
        an id is new) put in, checked as far as the step goes, and its progress moved past ``step``;
        :class:`SheetInvalid` names every problem at its path, and the draft stays as it was."""
        ...

    def roll_at(
        self, sheet: BaseModel, step: str, roll: str, value: Mapping[str, Any], options: Mapping[str, Any],
        rng: Random,
    ) -> BaseModel:  # fmt: skip
        """The draft after a roll the player asks for at ``step``: the step's own dice (``roll`` "": what
        :meth:`roll_step` rolls, with the draft's progress) or one of the step's ``rolls``, with ``value``
        (what the player had typed at the step, as :meth:`fill_step` takes it) kept in the same save;
        :class:`SpecError` says why not."""
        ...

    #: What the first page of creation asks with the name (``()``: the name alone).
    start_fields: tuple[StartField, ...]

    def start_draft(self, options: Mapping[str, Any], given: Mapping[str, str]) -> BaseModel:
        """A fresh draft with the first page's ``start_fields`` put in (``given`` also holds the ``name``, for
        a system that says its own words about it); :class:`SheetInvalid` names each problem at its field."""
        ...

    def creation_words(
        self, before: BaseModel, after: BaseModel, step: str, roll: str | None, options: Mapping[str, Any]
    ) -> str:
        """What a save at ``step`` did, for the sheet's history ("Abilities: the balanced array"): after a
        fill (``roll`` None) or a roll (``roll`` as :meth:`roll_at` takes it); "" for the platform's words."""
        ...

    def finish(self, sheet: BaseModel, options: Mapping[str, Any]) -> BaseModel:
        """The draft made a finished character (its played state begun: Lucky 13's full hit points),
        whose :meth:`summary` names no step; :class:`SheetInvalid` says what it still lacks."""
        ...
