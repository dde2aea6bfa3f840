"""D6 die codes: ``3d``, ``3d+2``, ``0d+2``, and their arithmetic.

Rules text, "die codes": "A typical die code would look like this: 3d. This means you roll
three six-sided dice and add the numbers you roll together. If the die code had a plus at the
end, like 3d+2, you would roll all the dice, add the numbers rolled, then add 2 to the total.
Die codes go in steps. 2d, 2d+1, 2d+2, 3d...." Rules README, "D6 die codes": "three pips make
one die (2d+2 → +1 pip → 3d)".

A :class:`DieCode` is always normalised (pips 0, 1 or 2), so two codes are equal exactly when
they are the same step, and they order by step: 2d < 2d+1 < 2d+2 < 3d.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Final

from rules.systems.protocol.errors import SpecError

__all__ = ["MAX_DICE", "PIPS_PER_DIE", "DieCode", "DieCodeError"]

#: Three pips make one die (rules README, "D6 die codes").
PIPS_PER_DIE: Final = 3

#: The most dice a code may have. The text sets no top; a starting character has 18d among
#: six stats, and a luck point doubles a code (30d+2 → 60d+4 would not fit, 29d+2 → 58d+4 does),
#: so 60 is far past any table while keeping a spec like ``10**9d`` from tying up the server.
MAX_DICE: Final = 60

_CODE = re.compile(r"([0-9]{1,3})d(?:\+([0-9]{1,3}))?")


class DieCodeError(SpecError):
    """A die code that is not one: the message names the field it came from."""


def _quoted(text: str) -> str:
    return repr(text) if len(text) <= 40 else repr(text[:40]) + "…"


@dataclass(frozen=True, slots=True, order=True)
class DieCode:
    """``dice`` six-sided dice plus ``pips``; normalised (``0 ≤ pips < 3``), at most :data:`MAX_DICE` dice.

    Build one from any count of pips with :meth:`of`, which carries three pips into a die.
    """

    dice: int
    pips: int = 0

    def __post_init__(self) -> None:
        if any(isinstance(n, bool) or not isinstance(n, int) for n in (self.dice, self.pips)):
            raise DieCodeError("code", "dice and pips are whole numbers")
        if not 0 <= self.pips < PIPS_PER_DIE:
            raise DieCodeError("code", f"a die code has 0, 1 or 2 pips, not {self.pips} (three pips make a die)")
        if not 0 <= self.dice <= MAX_DICE:
            raise DieCodeError("code", f"a die code has from 0d to {MAX_DICE}d, not {self.dice}d")

    @classmethod
    def of(cls, dice: int, pips: int = 0, *, field: str = "code") -> DieCode:
        """The code of ``dice`` dice and ``pips`` pips, three pips carried into a die (2d+3 is 3d).

        Rules README, "D6 die codes": "three pips make one die (2d+2 → +1 pip → 3d)".
        """
        if dice < 0 or pips < 0:
            raise DieCodeError(field, "a die code has no negative dice or pips")
        carried, pips = divmod(pips, PIPS_PER_DIE)
        if dice + carried > MAX_DICE:
            raise DieCodeError(field, f"a die code has at most {MAX_DICE}d, not {dice + carried}d")
        return cls(dice + carried, pips)

    @classmethod
    def from_steps(cls, steps: int, *, field: str = "code") -> DieCode:
        """The code ``steps`` pips above 0d: 0 is 0d, 1 is 0d+1, 3 is 1d, 7 is 2d+1."""
        return cls.of(0, steps, field=field)

    @classmethod
    def parse(cls, text: object, *, field: str = "code") -> DieCode:
        """Read ``3d``, ``3d+2`` or ``0d+2``; case and spaces do not matter (``2D + 1``).

        Pips are written as +1 or +2 ("Die codes go in steps. 2d, 2d+1, 2d+2, 3d"): ``3d+3`` is
        refused with the code it means (4d) rather than silently carried. Anything else is a
        :class:`DieCodeError` naming ``field``.
        """
        if not isinstance(text, str):
            raise DieCodeError(field, "a die code is text such as '3d' or '3d+2'")
        compact = "".join(text.split()).lower()
        match = _CODE.fullmatch(compact)
        if match is None:
            raise DieCodeError(field, f"{_quoted(text)} is not a die code (write 3d, 3d+1 or 3d+2)")
        dice, pips = int(match.group(1)), int(match.group(2) or 0)
        if dice > MAX_DICE:
            raise DieCodeError(field, f"{_quoted(text)} has more than {MAX_DICE}d, the most a die code may have")
        if pips >= PIPS_PER_DIE:
            carried = cls.of(dice, pips, field=field)
            raise DieCodeError(field, f"{_quoted(text)} has {pips} pips: three pips make a die, so write {carried}")
        return cls(dice, pips)

    @property
    def steps(self) -> int:
        """How many pips above 0d: the code's place in "2d, 2d+1, 2d+2, 3d...."."""
        return self.dice * PIPS_PER_DIE + self.pips

    @property
    def minimum(self) -> int:
        """The lowest total: every die a 1."""
        return self.dice + self.pips

    @property
    def has_wild_die(self) -> bool:
        """Rules README: "Exactly one of the dice is the wild die"; "A code at 0d+p has no wild die"."""
        return self.dice > 0

    def add_dice(self, dice: int) -> DieCode:
        """More dice (preparing adds 1d) or fewer (a penalty), never below 0d; the pips stay.

        Rules README, "D6 die codes": "Penalties (running, wounded, each extra action) remove
        whole dice from the code, never below 0d; preparing adds 1d."
        """
        return DieCode.of(max(self.dice + dice, 0), self.pips)

    def remove_dice(self, dice: int) -> DieCode:
        """A penalty of ``dice`` whole dice, never below 0d: 1d+2 less 2d is 0d+2."""
        if dice < 0:
            raise ValueError("a penalty removes a number of dice ≥ 0")
        return self.add_dice(-dice)

    def add_pips(self, pips: int) -> DieCode:
        """``pips`` pips more (or fewer), three carried into a die: 2d+2 plus one pip is 3d.

        Never below 0d: 0d+1 less two pips is 0d.
        """
        return DieCode.from_steps(max(self.steps + pips, 0))

    def doubled(self) -> DieCode:
        """Dice and pips doubled, as a luck point does: 3d+1 → 6d+2, and 3d+2 → 6d+4 = 7d+1.

        Rules text, "luck points": "you double all your stats and skills for a short moment";
        rules README, "D6 die codes": "Doubling with a luck point doubles dice and pips
        (3d+1 → 6d+2)". Doubled pips past two carry into a die like any three pips.
        """
        return DieCode.of(2 * self.dice, 2 * self.pips)

    def __str__(self) -> str:
        return f"{self.dice}d+{self.pips}" if self.pips else f"{self.dice}d"
