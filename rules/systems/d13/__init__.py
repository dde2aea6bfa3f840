"""D13 of When Shadows Rise: d4 + d9 under ability plus skill, four difficulty levels played out, and a real
deck of cards at the table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from rules.lazy import exports, names

if TYPE_CHECKING:
    from rules.systems.d13.rolls import ROLL_KINDS  # noqa: F401
    from rules.systems.d13.system import SYSTEM  # noqa: F401

#: Where each name lives, imported on first use (:mod:`rules.lazy`): the chance of a spec needs only the roll
#: kinds (``ROLL_KINDS``, :func:`rules.systems.roll_kinds`), which load the odds and not the sheet models.
_PARTS: Final = {
    "rules.systems.d13.system": ("SYSTEM",),
    "rules.systems.d13.rolls": ("ROLL_KINDS",),
}

__all__ = names(_PARTS)
__getattr__, __dir__ = exports(__name__, _PARTS)
