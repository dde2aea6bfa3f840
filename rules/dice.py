"""Dice, the step ladder and rolling.

Pure Python: no Django, no I/O. Randomness is injected: the product passes
``secrets.SystemRandom()``, tests pass ``random.Random(seed)``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final

if TYPE_CHECKING:  # rolling takes a source of randomness; the chance of a roll needs none
    from random import Random

__all__ = [
    "BASE_SIZES",
    "UNLIMITED",
    "DiceError",
    "DieResult",
    "StepDie",
    "roll_die",
]

#: The five die sizes of the step ladder, smallest first.
BASE_SIZES: Final = (4, 6, 8, 10, 12)

#: An explosion limit meaning "again and again".
UNLIMITED: Final = -1

#: The highest rung a label or a step may reach: five d12s. The rules let a die step
#: up forever; a bound far past any table (d12+d12+d4 stepped up ten more times is
#: rung 21) keeps a spec like ``ability_steps: 10**9`` from eating the server.
MAX_RUNG: Final = 25

_LABEL = re.compile(r"d([1-9][0-9]{0,2})")


class DiceError(ValueError):
    """A die label or a dice expression that does not name real dice."""


def _quoted(text: str) -> str:
    """A label as an error message shows it: quoted, and cut short if long."""
    return repr(text) if len(text) <= 40 else repr(text[:40]) + "…"


@dataclass(frozen=True, slots=True, order=True)
class StepDie:
    """A rung of the step ladder: no die, d4 … d12, d12+d4, …, d12+d12, d12+d12+d4, …

    Lucky 13, "Stepping dice": stepping up a d12 adds a d4 to the pool, stepping
    down a d4 removes the die. Rung 0 is "no die" (it adds 0); rung 1 is d4,
    rung 5 d12, rung 6 d12+d4, rung 10 d12+d12, rung 11 d12+d12+d4.
    """

    rung: int

    def __post_init__(self) -> None:
        if not 0 <= self.rung <= MAX_RUNG:
            raise DiceError(f"a die can be stepped from no die up to {StepDie._largest()}, not further")

    @staticmethod
    def _largest() -> str:
        return "+".join(["d12"] * (MAX_RUNG // 5))

    @classmethod
    def none(cls) -> StepDie:
        return cls(0)

    @classmethod
    def of(cls, sides: int) -> StepDie:
        """The single die d``sides`` (one of d4 … d12)."""
        if sides not in BASE_SIZES:
            raise DiceError(f"d{sides} is not a die on the step ladder (d4, d6, d8, d10, d12)")
        return cls(BASE_SIZES.index(sides) + 1)

    @classmethod
    def parse(cls, label: object) -> StepDie:
        """Read a label such as ``d8``, ``d12+d4`` or ``none``.

        A stepped die is written as its dice, the d12s first: ``d12+d12+d6``.
        Anything that is not a rung of the ladder is refused with a reason.
        """
        if not isinstance(label, str):
            raise DiceError("a die label must be text such as 'd8' or 'd12+d4'")
        return _known_label(label) if len(label) <= MAX_KEPT_LABEL else _parse_label(label)

    @property
    def sides(self) -> tuple[int, ...]:
        """The dice to roll, largest first: d12+d4 is ``(12, 4)``; no die is ``()``."""
        if self.rung == 0:
            return ()
        twelves, index = divmod(self.rung - 1, 5)
        return (12,) * twelves + (BASE_SIZES[index],)

    @property
    def label(self) -> str:
        return "+".join(f"d{s}" for s in self.sides) or "none"

    @property
    def maximum(self) -> int:
        """The highest total without explosions."""
        return sum(self.sides)

    def step(self, steps: int) -> StepDie:
        """Step up (positive) or down (negative); below d4 there is no die.

        Steps from several sources are added first and the die is stepped once
        by the net amount (rules README, "The ladder").
        """
        return StepDie(max(self.rung + steps, 0)) if steps else self

    def __str__(self) -> str:
        return self.label


def _parse_label(label: str) -> StepDie:
    """:meth:`StepDie.parse` of a text label."""
    text = label.strip().lower().replace(" ", "")
    if text == "none":
        return StepDie.none()
    parts = text.split("+")
    if len(parts) > MAX_RUNG // 5 + 1:
        raise DiceError(f"{_quoted(label)} has more dice than the largest die, {StepDie._largest()}")
    sides: list[int] = []
    for part in parts:
        match = _LABEL.fullmatch(part)
        if match is None:
            raise DiceError(f"{_quoted(label)} is not a die label (write d4 … d12, d12+d4 for a stepped die, or none)")
        sides.append(int(match.group(1)))
    *twelves, last = sides
    if any(s != 12 for s in twelves) or last not in BASE_SIZES:
        raise DiceError(
            f"{_quoted(label)} is not a die on the step ladder: a stepped die is d12s then one of d4 … d12, "
            "such as d12+d4 or d12+d12+d6"
        )
    rung = 5 * len(twelves) + BASE_SIZES.index(last) + 1
    if rung > MAX_RUNG:
        raise DiceError(f"{_quoted(label)} is larger than the largest die, {StepDie._largest()}")
    return StepDie(rung)


#: The longest label :meth:`StepDie.parse` keeps its die for (the largest die, ``d12+d12+d12+d12+d12``, is
#: 19 characters): a long label, spaces and all, is read again each time, so none can fill the cache.
MAX_KEPT_LABEL: Final = 32


@lru_cache(maxsize=256)
def _known_label(label: str) -> StepDie:
    """A label read before, with its die: a batch of chance specs names the same few dice thousands of times,
    and a die is a frozen value. A refused label raises, and is not kept."""
    return _parse_label(label)


@dataclass(frozen=True, slots=True)
class DieResult:
    """One physical die as rolled: its first face, then each explosion."""

    sides: int
    faces: tuple[int, ...]

    @property
    def value(self) -> int:
        return sum(self.faces)

    @property
    def imploded(self) -> bool:
        """Lucky 13, "Exploding & imploding dice": a first face of 1 is a dilemma."""
        return self.faces[0] == 1

    @property
    def exploded(self) -> bool:
        return len(self.faces) > 1


def roll_die(sides: int, rng: Random, explosions: int = 0) -> DieResult:
    """Roll one die; on its highest face roll again and add, up to ``explosions`` times.

    ``explosions`` is 0 for none, 1 for "at most once" (Gritty), or
    :data:`UNLIMITED` (Cinematic: again and again).
    """
    faces = [rng.randint(1, sides)]
    while faces[-1] == sides and (explosions == UNLIMITED or len(faces) <= explosions):
        faces.append(rng.randint(1, sides))
    return DieResult(sides, tuple(faces))


def die_view(die: DieResult) -> dict[str, Any]:
    """A die as rolled, JSON-ready (as the roll log keeps it)."""
    return {
        "sides": die.sides,
        "faces": list(die.faces),
        "value": die.value,
        "imploded": die.imploded,
        "exploded": die.exploded,
    }
