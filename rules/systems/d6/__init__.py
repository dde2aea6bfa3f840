"""The D6 die-code system (rules text ``d6-die-codes.md``, key ``d6``).

- :mod:`rules.systems.d6.codes`: die codes (``3d+2``), parsing, formatting and arithmetic;
- :mod:`rules.systems.d6.chance`: exact odds of a total against a difficulty, the totals for a chart,
  the difficulty bands, and opposed rolls;
- :mod:`rules.systems.d6.rolling`: rolling a code with an injected random source;
- :mod:`rules.systems.d6.rounds`: the combat round planner, each declared action's code after the
  round's penalties, reactions mid-round, preparing, doubling;
- :mod:`rules.systems.d6.luck`: luck points, spending one and the return at the adventure's end;
- :mod:`rules.systems.d6.rolls`: the roll kinds (a check, an opposed roll) and the chance interface;
- :mod:`rules.systems.d6.options`, :mod:`.sheet`, :mod:`.creation`, :mod:`.advancement`: the campaign's
  options, the sheet document, creation and what character points buy;
- :mod:`rules.systems.d6.system`: all of it behind the system protocol (``SYSTEM``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from rules.lazy import exports, names

if TYPE_CHECKING:
    from rules.systems.d6.rolls import ROLL_KINDS  # noqa: F401
    from rules.systems.d6.system import D6, KEY, NAME, SYSTEM  # noqa: F401

#: Where each name lives, imported on first use (:mod:`rules.lazy`): the chance of a spec needs only the roll
#: kinds (``ROLL_KINDS``, :func:`rules.systems.roll_kinds`), which load the odds and not the sheet models.
_PARTS: Final = {
    "rules.systems.d6.system": ("D6", "KEY", "NAME", "SYSTEM"),
    "rules.systems.d6.rolls": ("ROLL_KINDS",),
}

__all__ = names(_PARTS)
__getattr__, __dir__ = exports(__name__, _PARTS)
