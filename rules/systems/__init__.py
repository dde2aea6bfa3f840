"""The registry of rules systems: ``rules.systems.get("lucky13")``.

Adding a system is one new package here plus its templates: ``rules/systems/<key>/`` exports
``SYSTEM``, an object following :class:`rules.systems.protocol.RulesSystem`. Nothing outside the
system's own package names it; everything else asks this registry.

The registry knows the systems by key and imports none of them until one is asked for: ``get(key)``
imports ``rules.systems.<key>`` then, and only that one. Its own imports are light on purpose (the
protocol's names load on first use, :mod:`rules.lazy`), so ``python -m rules chance`` over one
system's specs loads that system's dice and odds (:func:`roll_kinds`) and nothing of another system,
of the sheet models or of pydantic; ``tests/rules/test_chance_imports.py`` holds it to that.
"""

from __future__ import annotations

from collections.abc import Mapping
from importlib import import_module
from typing import TYPE_CHECKING, Any, cast

from rules.systems.protocol.errors import SpecError

if TYPE_CHECKING:
    from rules.systems.protocol.kinds import RollKind
    from rules.systems.protocol.system import RulesSystem

__all__ = [
    "KEYS",
    "UnknownSystem",
    "all_systems",
    "default_key",
    "describe",
    "describe_all",
    "get",
    "register",
    "registered_keys",
    "roll_kinds",
    "unregister",
]

#: The systems that ship, in the order a menu offers them.
KEYS: tuple[str, ...] = ("lucky13", "d6", "d13")

#: Systems registered at run time (a test's own system), by key.
_EXTRA: dict[str, RulesSystem] = {}

#: The shipped systems loaded so far, by key: a page asks for its campaign's a dozen times, and looking the
#: module up again each time cost more than the rest of the lookup.
_LOADED: dict[str, RulesSystem] = {}

#: The roll kinds of the shipped systems loaded so far, by key: a batch of chance specs asks for them once
#: a spec, and looking a module up again each time is a measurable part of a spec's cost.
_ROLL_KINDS: dict[str, Mapping[str, RollKind[Any, Any, Any]]] = {}


class UnknownSystem(SpecError):
    def __init__(self, key: object) -> None:
        known = ", ".join(registered_keys())
        super().__init__("system", f"unknown rules system {key!r} (known: {known})")


def default_key() -> str:
    """The system a campaign or a chance spec gets when it names none: the first that ships."""
    return KEYS[0]


def registered_keys() -> tuple[str, ...]:
    """Every registered system's key, in menu order."""
    return (*KEYS, *_EXTRA)


def get(key: object) -> RulesSystem:
    """The system ``key``; :class:`UnknownSystem` if there is none."""
    if isinstance(key, str):
        known = _LOADED.get(key) or _EXTRA.get(key)
        if known is not None:
            return known
    if not isinstance(key, str) or key not in KEYS:
        raise UnknownSystem(key)
    system = _LOADED[key] = cast("RulesSystem", import_module(f"rules.systems.{key}").SYSTEM)
    return system


def roll_kinds(key: object) -> Mapping[str, RollKind[Any, Any, Any]]:
    """The roll kinds of the system ``key`` (its ``roll_kinds``), loading no more of it than they need.

    A system's package may give them as ``ROLL_KINDS``, from modules that load no sheet model (the
    chance interface's part of the protocol, :mod:`rules.systems.protocol.kinds`): the chance of a
    spec then loads the dice and the odds alone, not the whole system. A package that does not gives
    its full system's. :class:`UnknownSystem` if there is no such system.
    """
    if isinstance(key, str):
        if key in _ROLL_KINDS:
            return _ROLL_KINDS[key]
        if key in _EXTRA:
            return _EXTRA[key].roll_kinds
    if not isinstance(key, str) or key not in KEYS:
        raise UnknownSystem(key)
    package = import_module(f"rules.systems.{key}")
    kinds = getattr(package, "ROLL_KINDS", None)
    if kinds is None:
        kinds = package.SYSTEM.roll_kinds
    _ROLL_KINDS[key] = kinds
    return cast("Mapping[str, RollKind[Any, Any, Any]]", kinds)


def all_systems() -> list[RulesSystem]:
    return [get(key) for key in registered_keys()]


def register(system: RulesSystem) -> None:
    """Adds a system that does not ship (the test suite's own); its key must be new."""
    if system.key in registered_keys():
        raise ValueError(f"a system {system.key!r} is already registered")
    _EXTRA[system.key] = system


def unregister(key: str) -> None:
    _EXTRA.pop(key, None)


def describe(system: RulesSystem) -> dict[str, Any]:
    """A system as ``python -m rules systems`` and the API list it: its key and name, roll kinds,
    currencies, and the JSON Schemas of its sheet document and its campaign options."""
    return {
        "key": system.key,
        "name": system.name,
        "roll_kinds": [{"key": kind.key, "label": kind.label} for kind in system.roll_kinds.values()],
        "currencies": [{"key": c.key, "name": c.name, "abbreviation": c.abbreviation} for c in system.currencies],
        "sheet_version": system.sheet_version,
        "sheet_schema": system.sheet_model.model_json_schema(),
        "options_schema": system.options_model.model_json_schema(),
    }


def describe_all() -> list[dict[str, Any]]:
    return [describe(system) for system in all_systems()]
