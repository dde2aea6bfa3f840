"""The layering contract (ARCHITECTURE.md, "The layers, and which way they point"): the
import-linter contracts in pyproject.toml, and the one rule import-linter cannot express,
that no module uses another module's private (``_name``) helpers.

Tests are held to the private rule too: a test that needs a helper is a sign the helper
deserves a public name.
"""

from __future__ import annotations

import ast
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

#: Neither project code nor worth reading: environments, caches, data, generated migrations.
SKIPPED_DIRS = frozenset({"migrations", "__pycache__", "node_modules", "staticfiles", "var"})

#: Private helpers used across modules: (importer, the private it uses). A line that no longer
#: matches fails the test, so this set only shrinks.
KNOWN_EXCEPTIONS: frozenset[tuple[str, str]] = frozenset()


def test_import_contracts() -> None:
    # The same check as `lint-imports` in CI and `make lint`, so `make test` enforces it too.
    program = "from importlinter.cli import lint_imports_command; lint_imports_command()"
    result = subprocess.run(
        [sys.executable, "-c", program, "--no-cache"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert result.returncode == 0, result.stdout + result.stderr


def is_private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(
    source: str, module: str, *, package: bool, is_module: Callable[[str], bool]
) -> Iterator[tuple[int, str]]:
    """(line, dotted name) of each private name of another module that ``module`` imports or uses.

    A private name belongs to the module that defines it, and a private module (or a name in a
    package's ``__init__``) to its package: ``module`` may use those of itself and of the
    packages it is in. ``x._y`` counts as much as ``from x import _y`` when ``x`` is one of the
    project's modules; an attribute of anything else (``Model._meta``) is not a module's helper.
    """

    def outside(dotted: str) -> str | None:
        """``dotted`` up to its first private part, if that part belongs to a module other than ``module``."""
        parts = dotted.split(".")
        for i, part in enumerate(parts):
            if is_private(part):
                owner = ".".join(parts[:i])
                return None if module == owner or module.startswith(owner + ".") else ".".join(parts[: i + 1])
        return None

    def absolute(node: ast.ImportFrom) -> str:
        if not node.level:
            return node.module or ""
        parts = module.split(".") if package else module.split(".")[:-1]
        parts = parts[: len(parts) - (node.level - 1)]
        return ".".join([*parts, *([node.module] if node.module else [])])

    tree = ast.parse(source)
    modules: dict[str, str] = {}  # a name bound to one of the project's modules -> that module
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if (hit := outside(alias.name)) is not None:
                    yield node.lineno, hit
                bound = alias.name if alias.asname else alias.name.split(".")[0]
                if is_module(bound):
                    modules[alias.asname or bound] = bound
        elif isinstance(node, ast.ImportFrom):
            base = absolute(node)
            for alias in node.names:
                if (hit := outside(f"{base}.{alias.name}")) is not None:
                    yield node.lineno, hit
                if is_module(f"{base}.{alias.name}"):
                    modules[alias.asname or alias.name] = f"{base}.{alias.name}"
    for node in ast.walk(tree):
        if not isinstance(node, ast.Attribute) or not is_private(node.attr):
            continue
        chain = [node.attr]
        value = node.value
        while isinstance(value, ast.Attribute):
            chain.insert(0, value.attr)
            value = value.value
        if not isinstance(value, ast.Name) or value.id not in modules:
            continue
        # Follow the chain while it names modules; the next part is an attribute of a module.
        dotted = modules[value.id]
        for part in chain:
            if is_private(part):
                if (hit := outside(f"{dotted}.{part}")) is not None:
                    yield node.lineno, hit
                break
            if not is_module(f"{dotted}.{part}"):
                break
            dotted = f"{dotted}.{part}"


def project_module(dotted: str) -> bool:
    path = ROOT.joinpath(*dotted.split("."))
    return path.with_suffix(".py").is_file() or (path / "__init__.py").is_file()


def project_files() -> Iterator[Path]:
    for directory, dirs, files in os.walk(ROOT):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d not in SKIPPED_DIRS)
        for name in sorted(files):
            if name.endswith(".py"):
                yield Path(directory, name).relative_to(ROOT)


def test_no_module_uses_another_modules_private_helpers() -> None:
    found: dict[tuple[str, str], int] = {}
    for path in project_files():
        package = path.name == "__init__.py"
        module = ".".join(path.parent.parts if package else path.with_suffix("").parts)
        for line, name in private_uses(path.read_text(), module, package=package, is_module=project_module):
            found.setdefault((path.as_posix(), name), line)

    unexpected = [
        f"{path}:{line}: {name}" for (path, name), line in sorted(found.items()) if (path, name) not in KNOWN_EXCEPTIONS
    ]
    assert not unexpected, "private helpers of another module (give them a public name):\n" + "\n".join(unexpected)
    stale = sorted(KNOWN_EXCEPTIONS - found.keys())
    assert not stale, f"no longer used, remove from KNOWN_EXCEPTIONS: {stale}"


@pytest.mark.parametrize(
    ("source", "expected"),
    [
        ("from pkg.mod import _helper", ["pkg.mod._helper"]),
        ("from pkg import _private_module", ["pkg._private_module"]),
        ("import pkg._private_module.part", ["pkg._private_module"]),
        ("from pkg import mod\nmod._helper()", ["pkg.mod._helper"]),
        ("import pkg.mod\npkg.mod._helper()", ["pkg.mod._helper"]),
        ("import pkg.mod as m\nm._helper", ["pkg.mod._helper"]),
        ("from pkg.mod import Model\nModel._meta", []),
        ("from pkg import mod\nmod.Model._meta", []),
        ("from third_party import thing\nthing._x", []),
        ("from . import _sibling_helper", []),  # the importer's own package
        ("from .mod import _helper", ["app.mod._helper"]),
        ("from app import _package_helper", []),
        ("from __future__ import annotations\nimport os\nos.__name__", []),
        ("def _own(): ...\n_own()", []),
    ],
)
def test_the_private_check_tells_anothers_helpers_from_ones_own(source: str, expected: list[str]) -> None:
    known_modules = {"pkg", "pkg.mod", "pkg._private_module", "pkg._private_module.part", "app", "app.mod", "app.view"}

    found = private_uses(source, "app.view", package=False, is_module=known_modules.__contains__)

    assert [name for _, name in found] == expected
