"""What every capability refuses with: a bad field of a spec, or a sheet that breaks its system's rules."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # the chance interface refuses a spec with these errors, and loads no document model
    from rules.document import Problem

__all__ = [
    "SheetInvalid",
    "SpecError",
]


class SpecError(ValueError):
    """A roll or chance spec with a bad field; the message names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message

    def __reduce__(self) -> tuple[Any, tuple[type[SpecError], str, str]]:
        """Pickled as its kind and its two parts, whatever its kind's own constructor takes: a spec computed in a
        worker process raises it in the server's (a kind that could not be rebuilt would break the worker pool)."""
        return (_rebuilt, (type(self), self.field, self.message))


def _rebuilt(kind: type[SpecError], field: str, message: str) -> SpecError:
    """A :class:`SpecError` of ``kind`` with these parts, its kind's constructor not called (it may take others)."""
    error = kind.__new__(kind)
    SpecError.__init__(error, field, message)
    return error


class SheetInvalid(ValueError):
    """A sheet document (or a draft, or an edit's result) that breaks its system's rules:
    every problem, each with where it is and a message a player understands."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(f"{p.field}: {p.message}" for p in self.problems) or "the sheet is not valid")
