"""``.env.example`` is the list of settings the README points to: it names every variable ``config/settings.py``
reads from the environment, and no variable that settings no longer reads."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def read_by_settings() -> set[str]:
    """The names ``config/settings.py`` reads: ``os.environ.get("X", …)``, ``os.environ["X"]`` and its
    ``env_…("X", …)`` helpers."""
    names = set()
    for node in ast.walk(ast.parse((ROOT / "config" / "settings.py").read_text(encoding="utf-8"))):
        if isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant):
            called = ast.unparse(node.func)
            if called == "os.environ.get" or called.startswith("env_"):
                names.add(node.args[0].value)
        elif isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ":
            assert isinstance(node.slice, ast.Constant)
            names.add(node.slice.value)
    return names


def test_env_example_names_every_setting_read_from_the_environment_and_no_other() -> None:
    example = (ROOT / ".env.example").read_text(encoding="utf-8")
    read = read_by_settings()
    assert {"DATABASE_URL", "DB_POOL_TIMEOUT", "REDIS_URL", "STATIC_HASHED"} <= read  # the reading finds them
    assert sorted(name for name in read if not re.search(rf"\b{name}\b", example)) == []
    given = set(re.findall(r"^# ?([A-Z][A-Z0-9_]+)=|^([A-Z][A-Z0-9_]+)=", example, re.MULTILINE))
    assert {name for pair in given for name in pair if name} - read == set()
