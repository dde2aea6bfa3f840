"""The engine is plain Python: importing it never pulls in Django (STYLE.md, "The rules engine")."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

#: Every module under rules/.
ENGINE_MODULES = (
    "rules",
    "rules.dice",
    "rules.document",
    "rules.expressions",
    "rules.lazy",
    "rules.probability",
    "rules.reading",
    "rules.systems",
    "rules.systems.base",
    "rules.systems.protocol",
    *(
        f"rules.systems.protocol.{name}"
        for name in (
            "advancement",
            "combat",
            "creation",
            "editing",
            "errors",
            "exchange",
            "kinds",
            "options",
            "rolls",
            "sheets",
            "system",
            "table",
        )
    ),
    "rules.systems.moves",
    "rules.systems.lucky13.moves",
    "rules.systems.d6.luck_moves",
    "rules.systems.d6.round_moves",
    "rules.systems.defaults",
    "rules.systems.lucky13",
    *(
        f"rules.systems.lucky13.{name}"
        for name in (
            "advancement",
            "arrival",
            "campaign",
            "checks",
            "combat",
            "creation",
            "encounter",
            "health",
            "identity",
            "import_checks",
            "legacy",
            "modifiers",
            "options",
            "record",
            "recovery",
            "sheet",
            "situation",
            "system",
            "view",
            "vocabulary",
        )
    ),
    "rules.systems.d6",
    *(
        f"rules.systems.d6.{name}"
        for name in (
            "advancement",
            "arrival",
            "chance",
            "codes",
            "combat",
            "creation",
            "luck",
            "options",
            "round_state",
            "rolling",
            "rolls",
            "rounds",
            "sheet",
            "system",
        )
    ),
    "rules.systems.d13",
    "rules.systems.d13.cards",
    "rules.systems.d13.chance",
    "rules.systems.d13.moves",
    "rules.systems.d13.options",
    "rules.systems.d13.rolls",
    "rules.systems.d13.sheet",
    "rules.systems.d13.system",
    "rules.systems.d13.table",
    "rules.__main__",
)


def test_the_module_list_covers_the_engine() -> None:
    found = {
        ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        for path in (ROOT / "rules").rglob("*.py")
        if "migrations" not in path.parts
    }
    assert found == set(ENGINE_MODULES)


def test_importing_every_engine_module_leaves_django_out() -> None:
    program = (
        "import importlib, sys\n"
        f"for name in {ENGINE_MODULES!r}:\n"
        "    importlib.import_module(name)\n"
        "loaded = sorted(m for m in sys.modules if m == 'django' or m.startswith('django.'))\n"
        "print(','.join(loaded))\n"
        "sys.exit(1 if 'django' in sys.modules else 0)\n"
    )
    result = subprocess.run(
        [sys.executable, "-c", program], cwd=ROOT, capture_output=True, text=True, timeout=60, check=False
    )

    assert result.stderr == ""
    assert result.returncode == 0, f"django modules imported: {result.stdout}"
    assert result.stdout.strip() == ""
