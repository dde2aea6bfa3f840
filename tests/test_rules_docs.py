"""The coverage tables of ``docs/rules/<key>.md`` stay true as the code changes: every row has its
four cells, every ``path::name`` of the Code column names something in that file, every test of the
Test column exists, and a row without a test says why (not implemented, or not applicable)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOCS = sorted((ROOT / "docs" / "rules").glob("*.md"))
REFERENCE = re.compile(r"`([\w./-]+\.(?:py|html|md))::([\w.]+)")
NO_TEST = ("**not implemented**", "not applicable")


def rows(doc: Path) -> list[tuple[int, list[str]]]:
    """The rows of the doc's four-column tables (Mechanic | Passage | Code | Test), with line numbers."""
    found = []
    for number, line in enumerate(doc.read_text(encoding="utf-8").splitlines(), 1):
        if not line.startswith("| ") or line.startswith(("| Mechanic |", "|---")):
            continue
        cells = [cell.strip() for cell in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        found.append((number, cells))
    return found


def defines(path: Path, name: str) -> bool:
    """Whether the file defines ``name`` (``Class.method``: the method's name; a constant: its name)."""
    text = path.read_text(encoding="utf-8")
    last = name.split(".")[-1]
    if path.suffix != ".py":
        return last in text
    return (
        re.search(rf"^\s*(?:async\s+def|def|class)\s+{re.escape(last)}\b|^\s*{re.escape(last)}\b\s*[:=]", text, re.M)
        is not None
    )


@pytest.mark.parametrize("doc", DOCS, ids=[doc.stem for doc in DOCS])
def test_every_row_has_its_cells_and_every_reference_exists(doc: Path) -> None:
    problems = []
    table = rows(doc)
    assert table, f"{doc.name} has no coverage table"
    for number, cells in table:
        if len(cells) != 4 or not all(cells):
            problems.append(f"line {number}: a row needs four filled cells")
            continue
        _, _, code, test = cells
        if test == "—" and not code.startswith(NO_TEST):
            problems.append(f"line {number}: a row without a test says it is not implemented or not applicable")
        if "**no test yet**" in test:
            problems.append(f"line {number}: no test yet")
        for column, cell in (("code", code), ("test", test)):
            for path, name in REFERENCE.findall(cell):
                file = ROOT / path
                if not file.is_file():
                    problems.append(f"line {number}: {column} {path} does not exist")
                elif not defines(file, name):
                    problems.append(f"line {number}: {column} {path} defines no {name}")
    assert not problems, f"{doc.name}:\n" + "\n".join(problems)


@pytest.mark.parametrize("doc", DOCS, ids=[doc.stem for doc in DOCS])
def test_every_test_named_is_a_test_function(doc: Path) -> None:
    missing = [
        f"{path}::{name}"
        for _, cells in rows(doc)
        if len(cells) == 4
        for path, name in REFERENCE.findall(cells[3])
        if path.startswith("tests/") and not re.search(rf"^(?:async )?def {name}\(", (ROOT / path).read_text(), re.M)
        if (ROOT / path).is_file()
    ]
    assert not missing, f"{doc.name}: no such test function: {', '.join(missing)}"


#: The systems whose every mechanic is implemented: a row that says otherwise is a regression.
COMPLETE = ("lucky13", "d6")


@pytest.mark.parametrize("key", COMPLETE)
def test_a_complete_systems_rows_are_all_implemented(key: str) -> None:
    doc = ROOT / "docs" / "rules" / f"{key}.md"
    open_rows = [
        number for number, cells in rows(doc) if len(cells) == 4 and cells[2].startswith("**not implemented**")
    ]
    assert not open_rows, f"{doc.name}: rows not implemented at lines {open_rows}"
