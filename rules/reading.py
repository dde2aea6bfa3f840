"""Reading a JSON document field by field, for a player who should see every problem at once: the
exchange's envelope and a system's older export formats use the same reader, with the same words."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, Final

from rules.document import MAX_NAME

#: At most this many problems are reported for one document.
MAX_ERRORS: Final = 20
#: A field the document leaves out: the reader reports it if it is required, and reads nothing.
MISSING: Final = object()
#: Text with ``\u0000`` in it: PostgreSQL cannot store it, and no form of the site takes it.
NUL: Final = "must not contain the NUL character (\\u0000)"


def shown(key: str) -> str:
    """A key as a path shows it: a long one cut short."""
    return key if len(key) <= 40 else key[:40] + "…"


def field_at(at: str, name: str) -> str:
    """The path of a field of the object at ``at``."""
    return f"{at}.{shown(name)}" if at else shown(name)


def item_at(at: str, index: int) -> str:
    """The path of an entry of the list at ``at``."""
    return f"{at}[{index}]"


def clean_name(value: Any, what: str) -> str:
    """A name a player typed: trimmed, not empty, not too long."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} needs a name")
    name = " ".join(value.split())
    if len(name) > MAX_NAME:
        raise ValueError(f"{name[:24]}…: names are at most {MAX_NAME} characters")
    return name


class Reader:
    """Reads a document field by field, collecting every problem so that the player sees them all.

    Each method returns the value read, or None after recording why it could not (or silently,
    for a value that is :data:`MISSING`: ``fields`` reported it already).
    """

    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []

    def fail(self, at: str, message: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append((at, message))

    def fields(self, value: Any, at: str, required: Sequence[str], optional: Sequence[str] = ()) -> dict[str, Any]:
        """The object's fields; ``{}`` if it is not an object. Unknown and missing fields are refused."""
        if value is MISSING:
            return {}
        if not isinstance(value, dict):
            self.fail(at or "document", "must be an object ({…})")
            return {}
        known = (*required, *optional)
        for name in value:
            if name not in known:
                self.fail(field_at(at, name), f"is not a field here (the fields are {', '.join(known)})")
        for name in required:
            if name not in value:
                self.fail(field_at(at, name), "is missing")
        return value

    def rows(self, value: Any, at: str, limit: int) -> list[Any]:
        """The list's entries; ``[]`` if it is not a list or is too long (its entries are not read)."""
        if value is MISSING:
            return []
        if not isinstance(value, list):
            self.fail(at, "must be a list ([…])")
            return []
        if len(value) > limit:
            self.fail(at, f"at most {limit} entries; this list has {len(value)}")
            return []
        return value

    def text(self, value: Any, at: str, limit: int) -> str | None:
        if value is MISSING:
            return None
        if not isinstance(value, str):
            self.fail(at, "must be text")
            return None
        if "\x00" in value:
            self.fail(at, NUL)
            return None
        if len(value) > limit:
            self.fail(at, f"at most {limit:,} characters; this has {len(value):,}")
            return None
        return value

    def name(self, value: Any, at: str, what: str) -> str | None:
        """A name: one line, trimmed, not empty, at most :data:`~rules.document.MAX_NAME` characters."""
        if value is MISSING:
            return None
        if not isinstance(value, str):
            self.fail(at, "must be text")
            return None
        if "\x00" in value:
            self.fail(at, NUL)
            return None
        if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in value):
            self.fail(at, "must be one line, without control characters")
            return None
        try:
            return clean_name(value, what)
        except ValueError as problem:
            self.fail(at, str(problem))
            return None

    def whole(self, value: Any, at: str, low: int, high: int) -> int | None:
        if value is MISSING:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(at, "must be a whole number")
            return None
        if not low <= value <= high:
            self.fail(at, f"must be from {low} to {high}")
            return None
        return value

    def flag(self, value: Any, at: str) -> bool | None:
        if not isinstance(value, bool):
            self.fail(at, "must be true or false")
            return None
        return value

    def choice(self, value: Any, at: str, allowed: Sequence[str]) -> str | None:
        if value is MISSING:
            return None
        if not isinstance(value, str) or value not in allowed:
            self.fail(at, f"must be one of {', '.join(json.dumps(a) for a in allowed)}")
            return None
        return value
