"""The protocol every rules system follows, so that campaigns, sheets, roll
widgets, the JSON API and the command line are written once for all of them.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any, Generic, Protocol, TypeVar

__all__ = ["Option", "RollKind", "RulesSystem", "SpecError"]

Spec = TypeVar("Spec")
Result = TypeVar("Result")
Chance = TypeVar("Chance")


class SpecError(ValueError):
    """A roll or chance spec with a bad field; the message names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


@dataclass(frozen=True, slots=True)
class Option:
    """A campaign option of a system, with its default and allowed values."""

    key: str
    label: str
    default: Any
    choices: tuple[tuple[str, str], ...] = ()
    help: str = ""


@dataclass(frozen=True, slots=True)
class RollKind(Generic[Spec, Result, Chance]):
    """One kind of roll: build its dice from a spec, roll them, or compute the exact chance.

    ``parse`` turns a plain mapping (a CLI spec, an API body, a form) into the
    dice to roll, raising :class:`SpecError`; ``chance_json`` gives the chance
    as the JSON object of the chance interface (rules README).
    """

    key: str
    label: str
    fields: frozenset[str]
    parse: Callable[[Mapping[str, Any]], Spec]
    roll: Callable[[Spec, Random], Result]
    chance: Callable[[Spec], Chance]
    chance_json: Callable[[Mapping[str, Any]], dict[str, Any]] = field(repr=False)


class RulesSystem(Protocol):
    """What a module in ``rules.systems`` provides."""

    KEY: str
    NAME: str
    #: What the system's license asks the product to say, and the license text's file in LICENSES/.
    ATTRIBUTION: str
    DISCLAIMER: str
    LICENSE_NAME: str
    LICENSE_FILE: str
    OPTIONS: tuple[Option, ...]
    ROLL_KINDS: Mapping[str, RollKind[Any, Any, Any]]

    def default_options(self) -> dict[str, Any]: ...

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options with defaults filled in; raises an error that names every bad option."""
        ...
