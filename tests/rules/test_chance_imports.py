"""``python -m rules chance`` loads only what a spec needs (issue 27, "a quick engine from the shell"): the
system the spec names, and of it only its roll kinds. No sheet model (pydantic), no other system, no Django.

Each case runs the real command line in a fresh interpreter, then reads ``sys.modules``: a later import
that pulls any of them back into the chance path fails here, whatever the timings say.
"""

from __future__ import annotations

import ast
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import rules.systems
from rules.systems import KEYS, get, roll_kinds
from tests.systems.coin import system as coin

ROOT = Path(__file__).resolve().parents[2]

#: One spec of each shipped system's every roll kind, as the chance interface takes them.
SPECS: dict[str, list[dict[str, Any]]] = {
    "lucky13": [
        {"system": "lucky13", "roll": "check", "ability": "d12+d4", "skill": "d8", "difficulty": "difficult"},
        {
            "system": "lucky13",
            "roll": "check",
            "ability": "d8",
            "skill": "d6",
            "difficulty": "moderate",
            "ability_roll": "background",
            "distribution": True,
        },
        {
            "system": "lucky13",
            "roll": "opposed",
            "attacker": ["d8", "d6"],
            "defender": ["d6", "d6"],
            "weapon_die": "d6",
            "explosion": "none",
        },
    ],
    "d6": [
        {"system": "d6", "roll": "check", "code": "3d+2", "difficulty": 12},
        {"system": "d6", "roll": "opposed", "attacker": "4d", "defender": "3d+1"},
    ],
    "d13": [{"system": "d13", "roll": "check", "target": 9, "difficulty": "difficult"}],
}

#: What the chance path must never load, by what it is: the prefixes of module names.
HEAVY = {
    "pydantic": ("pydantic", "pydantic_core"),
    "Django": ("django",),
    "the sheet documents": ("rules.document", "rules.systems.base", "rules.systems.defaults", "rules.systems.moves"),
}

#: Runs the command line in process, as ``python -m rules`` does, then prints the output and the modules
#: loaded; ``sys.argv[1]`` is the batch, given on stdin.
RUNNER = """
import contextlib, io, json, sys
from rules.__main__ import main
out = io.StringIO()
with contextlib.redirect_stdout(out):
    status = main(["chance", "--batch", "-"])
print(json.dumps({"status": status, "output": out.getvalue(), "modules": sorted(sys.modules)}))
"""


def _chance_modules(specs: list[dict[str, Any]]) -> tuple[str, list[str]]:
    """The output of ``python -m rules chance --batch -`` over ``specs``, and every module it loaded."""
    done = subprocess.run(
        [sys.executable, "-c", RUNNER],
        cwd=ROOT,
        input="".join(json.dumps(spec) + "\n" for spec in specs),
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["status"] == 0
    return report["output"], report["modules"]


def _loaded(modules: list[str], prefixes: tuple[str, ...]) -> list[str]:
    return [m for m in modules if any(m == p or m.startswith(p + ".") for p in prefixes)]


@pytest.mark.parametrize("key", KEYS)
def test_a_spec_loads_its_system_s_dice_and_odds_and_nothing_heavier(key: str) -> None:
    output, modules = _chance_modules(SPECS[key])

    assert len(output.splitlines()) == len(SPECS[key])
    for what, prefixes in HEAVY.items():
        assert _loaded(modules, prefixes) == [], f"a {key} spec loads {what}"
    others = tuple(f"rules.systems.{other}" for other in KEYS if other != key)
    assert _loaded(modules, others) == []
    # Of its own system, not the system object (its sheet, options, moves…): its roll kinds alone.
    assert f"rules.systems.{key}.system" not in modules
    assert f"rules.systems.{key}" in modules


def test_the_chance_path_prints_what_the_whole_system_gives() -> None:
    """The light path is the same roll kinds as the system's: identical output, spec for spec."""
    for key in KEYS:
        output, _ = _chance_modules(SPECS[key])
        expected = [json.dumps(get(key).roll_kinds[spec["roll"]].chance_json(spec)) for spec in SPECS[key]]
        assert output.splitlines() == expected


def test_a_system_s_roll_kinds_are_its_system_s() -> None:
    for key in KEYS:
        assert roll_kinds(key) is get(key).roll_kinds


def test_a_registered_system_gives_its_roll_kinds_too() -> None:
    rules.systems.register(coin.SYSTEM)
    try:
        assert roll_kinds(coin.SYSTEM.key) is coin.SYSTEM.roll_kinds
    finally:
        rules.systems.unregister(coin.SYSTEM.key)


def test_an_unknown_system_is_refused_by_the_light_path_too() -> None:
    with pytest.raises(rules.systems.UnknownSystem):
        roll_kinds("chess")
    with pytest.raises(rules.systems.UnknownSystem):
        roll_kinds(["lucky13"])


def test_listing_the_systems_imports_none() -> None:
    """The registry knows the keys without loading a system; the first ``get`` loads that one alone."""
    program = (
        "import sys\n"
        "import rules.systems as registry\n"
        "before = [k for k in registry.KEYS if f'rules.systems.{k}' in sys.modules]\n"
        "registry.registered_keys(); registry.default_key()\n"
        "registry.get('d13')\n"
        "after = [k for k in registry.KEYS if f'rules.systems.{k}' in sys.modules]\n"
        "print(before, after)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["[]", "['d13']"]


# --- The lazy packages ------------------------------------------------------------------------------

#: The packages whose names load on first use (:mod:`rules.lazy`).
LAZY_PACKAGES = ("rules.systems.protocol", *(f"rules.systems.{key}" for key in KEYS))


def _source(package: str) -> ast.Module:
    return ast.parse((ROOT / package.replace(".", "/") / "__init__.py").read_text(encoding="utf-8"))


def _type_checking_imports(tree: ast.Module) -> dict[str, set[str]]:
    """What the package imports for the type checker, module by module."""
    found: dict[str, set[str]] = {}
    for node in tree.body:
        if isinstance(node, ast.If) and isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING":
            for statement in node.body:
                assert isinstance(statement, ast.ImportFrom)
                assert statement.module
                found.setdefault(statement.module, set()).update(alias.name for alias in statement.names)
    return found


def _lazy_parts(tree: ast.Module) -> dict[str, set[str]]:
    """Where the package's lazy ``__getattr__`` finds each name, read from its source."""
    for node in tree.body:
        if isinstance(node, ast.AnnAssign) and isinstance(node.value, ast.Dict):
            parts = ast.literal_eval(node.value)
            return {module: set(names) for module, names in parts.items()}
    raise AssertionError("no map of parts")


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_a_lazy_package_gives_at_run_time_what_it_declares_for_the_type_checker(package: str) -> None:
    tree = _source(package)
    assert _lazy_parts(tree) == _type_checking_imports(tree)


@pytest.mark.parametrize("package", LAZY_PACKAGES)
def test_every_name_of_a_lazy_package_resolves_to_its_module_s_object(package: str) -> None:
    module = __import__(package, fromlist=["__all__"])
    parts = _lazy_parts(_source(package))
    where = {name: source for source, names in parts.items() for name in names}
    # Its ``__all__`` is the table's names, each given by one module alone.
    assert sorted(module.__all__) == sorted(where)
    for name, source in where.items():
        assert getattr(module, name) is getattr(__import__(source, fromlist=[name]), name)
        assert name in dir(module)
    with pytest.raises(AttributeError):
        module.no_such_name  # noqa: B018
