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
]


@dataclass(frozen=True, slots=True)
class CreationStep:
    """One step of guided creation, in order; ``server_rolls`` when the server rolls dice in it;
    ``fields``, the document's top-level fields the player fills in at it (:meth:`RulesSystem.fill_step`
    takes them; a page makes its form from the sheet model where the system has none of its own)."""

    key: str
    label: str
    server_rolls: bool = False
    fields: tuple[str, ...] = ()


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

    def finish(self, sheet: BaseModel, options: Mapping[str, Any]) -> BaseModel:
        """The draft made a finished character (its played state begun: Lucky 13's full hit points),
        whose :meth:`summary` names no step; :class:`SheetInvalid` says what it still lacks."""
        ...
