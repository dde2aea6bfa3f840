"""What every capability refuses with: a bad field of a spec, or a sheet that breaks its system's rules."""

from __future__ import annotations

from collections.abc import Sequence

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

    def __reduce__(self) -> tuple[type[SpecError], tuple[str, str]]:
        """Pickled as its two parts: a spec computed in a worker process raises it in the server's."""
        return (type(self), (self.field, self.message))


class SheetInvalid(ValueError):
    """A sheet document (or a draft, or an edit's result) that breaks its system's rules:
    every problem, each with where it is and a message a player understands."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(f"{p.field}: {p.message}" for p in self.problems) or "the sheet is not valid")
