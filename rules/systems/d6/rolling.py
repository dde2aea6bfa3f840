"""Rolling a D6 die code, with an injected random source.

Rules text, "the wild die": "If you get a six on the wild die, you get to keep re-rolling that
die and adding it to your total. Keep getting sixes, you keep rolling and adding." and "in the
chatroom, we'll use the first die that comes up in your roll": the wild die is the first die,
rolled (with its whole chain) before the others. Views pass ``secrets.SystemRandom()``, tests
``random.Random(seed)``.
"""

from __future__ import annotations

from dataclasses import dataclass
from random import Random

from rules.dice import UNLIMITED, DieResult, roll_die
from rules.systems.d6.codes import DieCode

__all__ = ["D6Roll", "roll"]


@dataclass(frozen=True, slots=True)
class D6Roll:
    """Every die of a roll, which one is wild, the pips and the total.

    ``dice[wild]`` is the wild die (``wild`` is None for 0d+p, which has none); its ``faces`` are
    its chain: the first face, then the face rolled after each 6. Every other die has one face.
    """

    code: DieCode
    dice: tuple[DieResult, ...]
    wild: int | None
    pips: int

    @property
    def wild_chain(self) -> tuple[int, ...]:
        """The wild die's faces in order: each 6 and the roll after it; empty without a wild die."""
        return () if self.wild is None else self.dice[self.wild].faces

    @property
    def total(self) -> int:
        """Rules text: "roll all the dice, add the numbers rolled, then add 2 to the total"."""
        return sum(d.value for d in self.dice) + self.pips

    def margin(self, difficulty: int) -> int:
        """How far the total is over (≥ 0: success) or under (< 0) the difficulty.

        Rules text, "difficulty numbers": "you're attempting to equal or roll higher than a
        difficulty number": a margin of 0 succeeds.
        """
        return self.total - difficulty

    def succeeds(self, difficulty: int) -> bool:
        return self.total >= difficulty


def roll(code: DieCode, rng: Random) -> D6Roll:
    """Roll ``code``: the wild die first (rerolled and added on every 6), then N − 1 plain dice.

    Rules README, "D6 die codes": "Exactly one of the dice is the wild die: on a 6 it is rolled
    again and added, again and again. ``1d`` is the wild die alone; ``0d+2`` is just 2."
    """
    if not code.has_wild_die:
        return D6Roll(code, (), None, code.pips)
    wild = roll_die(6, rng, UNLIMITED)
    plain = tuple(roll_die(6, rng) for _ in range(code.dice - 1))
    return D6Roll(code, (wild, *plain), 0, code.pips)
