"""Packages whose names load on first use (PEP 562), so importing one part loads no more than that part.

A package's ``__init__`` runs whenever any of its modules is imported: ``rules.systems.lucky13.checks`` runs
``rules/systems/lucky13/__init__.py`` first. A package that re-exported its parts eagerly would make the
chance of one roll (``python -m rules chance``) load the whole system, its sheet models (pydantic) and all.
So a package lists where each of its names lives, once, in a table of parts: :func:`names` gives its
``__all__`` from that table, and :func:`exports` the ``__getattr__`` and ``__dir__`` that import a name's
module the first time the name is asked for. The type checker reads no table, so the package also imports
the same names under ``typing.TYPE_CHECKING`` (marked ``noqa: F401``: they are re-exported, not used);
``tests/rules/test_chance_imports.py`` checks that those imports and the table agree.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from importlib import import_module
from typing import Any

__all__ = ["exports", "names"]


def names(parts: Mapping[str, Iterable[str]]) -> list[str]:
    """The ``__all__`` of a package whose ``parts`` map a module's full name to the names it gives: every
    name of the table, in its order."""
    return [name for given in parts.values() for name in given]


def exports(package: str, parts: Mapping[str, Iterable[str]]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """The ``__getattr__`` and ``__dir__`` of ``package``, which gives each name of ``parts`` (a module's full
    name → the names it gives) from that module, imported on first use. A name asked for once is
    kept in the package, so the next use is a plain attribute. Any other name is an :class:`AttributeError`,
    which is also how ``from package import submodule`` learns to import the submodule."""
    where = {name: module for module, names in parts.items() for name in names}
    namespace = sys.modules[package].__dict__

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module), name)
        namespace[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*namespace, *where})

    return __getattr__, __dir__
