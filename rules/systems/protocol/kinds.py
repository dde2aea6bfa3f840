"""A kind of roll and what the log keeps of one: the part of the protocol the chance interface needs.

It is kept apart from :mod:`rules.systems.protocol.rolls` (which re-exports it) because it loads no sheet
model: a system's roll kinds may be built from it alone, so ``python -m rules chance`` computes a roll's odds
without importing pydantic or the rest of the system (:func:`rules.systems.roll_kinds`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from fractions import Fraction
    from random import Random

__all__ = [
    "Recorded",
    "RollKind",
]


Spec = TypeVar("Spec")
Result = TypeVar("Result")
Chance = TypeVar("Chance")


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the roll log keeps of a roll: every die as rolled (JSON), the total and the outcome
    (``success``, ``margin``… as the system has them)."""

    dice: Any
    total: int | None
    outcome: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class RollKind(Generic[Spec, Result, Chance]):
    """One kind of roll: build its dice from a spec, roll them, or compute the exact chance.

    ``parse`` turns a plain mapping (a CLI spec, an API body, a form) into the dice to roll,
    raising :class:`SpecError`; ``record`` says what the roll log keeps of a result (every die,
    the total, the outcome); ``success`` reads the chance of success from the chance (None for
    a roll that has no success); ``chance_json`` gives the chance as the JSON object of the
    chance interface (rules README); ``describe`` says in words what a spec rolls.
    """

    key: str
    label: str
    fields: frozenset[str]
    parse: Callable[[Mapping[str, Any]], Spec]
    roll: Callable[[Spec, Random], Result]
    chance: Callable[[Spec], Chance]
    record: Callable[[Result], Recorded]
    success: Callable[[Chance], Fraction | None]
    chance_json: Callable[[Mapping[str, Any]], dict[str, Any]] = field(repr=False)
    describe: Callable[[Spec], str] = field(repr=False, default=lambda spec: "")
