"""The registry of rules systems: ``rules.systems.get("lucky13")``.

Adding a system is one new module here plus its templates; every module
follows :class:`rules.systems.base.RulesSystem`.
"""

from __future__ import annotations

from importlib import import_module
from typing import cast

from rules.systems.base import RulesSystem, SpecError

__all__ = ["KEYS", "UnknownSystem", "all_systems", "get"]

#: Registered systems, in the order a menu offers them.
KEYS: tuple[str, ...] = ("lucky13",)


class UnknownSystem(SpecError):
    def __init__(self, key: object) -> None:
        known = ", ".join(KEYS)
        super().__init__("system", f"unknown rules system {key!r} (known: {known})")


def get(key: str) -> RulesSystem:
    """The module of the system ``key``; :class:`UnknownSystem` if there is none."""
    if key not in KEYS:
        raise UnknownSystem(key)
    return cast(RulesSystem, import_module(f"rules.systems.{key}"))


def all_systems() -> list[RulesSystem]:
    return [get(key) for key in KEYS]
