"""Exact odds of D6 rolls: a total against a difficulty, the totals for a chart, the bands,
and opposed rolls.

Rules README, "D6 die codes": "Exactly one of the dice is the wild die: on a 6 it is rolled
again and added, again and again. ``1d`` is the wild die alone; ``0d+2`` is just 2. Success:
the total equals or beats the difficulty number." Rules README, "Exact odds": "Every chance
the product shows is exact (``fractions.Fraction``) … only ``min(running total, target)``
matters."

Every distribution here is built from :mod:`rules.probability` (whole-number weights over one
denominator, capped: the last bucket holds "this total or more"). One more fact makes every
chance exact and cheap however high the number asked about:

**The wild die's tail repeats.** One wild die totals ``6j + r`` (``j`` sixes, then a last face
``r`` of 1…5) with probability ``6^-(j+1)``, so P(W = w + 6) = P(W = w)/6 for every w ≥ 1. A
code ``Nd+p`` (N ≥ 1) is W plus a rest R (N − 1 plain dice and the pips) of at most
``6(N − 1) + p``; from ``v ≥ 6(N − 1) + p + 1`` on (:func:`settled_from`), every value of R
leaves W ≥ 1, so P(total = v + 6) = P(total = v)/6, and summing, P(total ≥ v + 6) = P(total ≥ v)/6.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from typing import Final

from rules.dice import UNLIMITED
from rules.probability import add_all, die, suffix_sums
from rules.systems.d6.codes import DieCode
from rules.systems.protocol.errors import SpecError

__all__ = [
    "DIFFICULTY_BANDS",
    "MAX_DIFFICULTY",
    "RANGE_BANDS",
    "Band",
    "BandChance",
    "Distribution",
    "OpposedChance",
    "band",
    "band_chance",
    "distribution",
    "opposed_chance",
    "p_at_least",
    "settled_from",
]

SIDES: Final = 6

#: The highest difficulty a spec may name. The text's top band, Impossible, is "31 and up"
#: with no end; every difficulty is exact (see :func:`p_at_least`), but the chance's
#: denominator grows by a factor of 6 every 6 points, so a bound keeps a spec of
#: ``10**9`` from building a number of millions of digits. 1000 is far past any table.
MAX_DIFFICULTY: Final = 1000

#: The most bars a chart of totals may ask for.
MAX_DISPLAY_CAP: Final = 1000


def settled_from(code: DieCode) -> int:
    """The total from which the chances repeat, shrunk six times, every six points.

    One more than the most the code makes without its wild die: ``6(N − 1) + p + 1`` with a wild
    die, ``p + 1`` for 0d+p (past p every chance is 0, which repeats too).
    """
    if not code.has_wild_die:
        return code.pips + 1
    return SIDES * (code.dice - 1) + code.pips + 1


# Each entry is at most a few hundred big integers; 256 keeps the cache to a few megabytes.
@lru_cache(maxsize=256)
def _capped(code: DieCode, cap: int) -> tuple[tuple[int, ...], int]:
    """Weights of ``min(total, cap)`` over a denominator: N − 1 plain dice, one wild die, the pips.

    Rules README, "D6 die codes": "Exactly one of the dice is the wild die: on a 6 it is rolled
    again and added, again and again." Capping is exact for every question about totals up to
    the cap (rules README, "Exact odds").
    """
    dice_cap = max(cap, 2)  # rules.probability wants a cap of at least 2; the pips shift it below
    if code.has_wild_die:
        parts = [die(SIDES, UNLIMITED, dice_cap), *(die(SIDES, 0, dice_cap) for _ in range(code.dice - 1))]
        rolled = add_all(parts, dice_cap)
        weights, den = rolled.merged(), rolled.den
    else:
        weights, den = [1] + [0] * dice_cap, 1
    out = [0] * (max(cap, 0) + 1)
    for value, weight in enumerate(weights):
        out[min(value + code.pips, max(cap, 0))] += weight
    return tuple(out), den


def p_at_least(code: DieCode, difficulty: int) -> Fraction:
    """P(total ≥ difficulty), exact for every difficulty up to :data:`MAX_DIFFICULTY`.

    Rules text, "difficulty numbers": "Each time you roll the dice, you're attempting to equal or
    roll higher than a difficulty number." Only ``min(total, difficulty)`` matters, so the
    distribution is capped at the difficulty and the exploding tail folds into the last bucket
    (rules README, "Exact odds"). Past :func:`settled_from` the chance shrinks six times every
    six points (module docstring), so a high difficulty ``d`` is answered from ``d − 6k`` and a
    factor ``6^-k``: the work is the same for 31 and for 1000.
    """
    if isinstance(difficulty, bool) or not isinstance(difficulty, int):
        raise SpecError("difficulty", "a difficulty is a whole number")
    if difficulty > MAX_DIFFICULTY:
        raise SpecError("difficulty", f"a difficulty is at most {MAX_DIFFICULTY}, not {difficulty}")
    if difficulty <= code.minimum:
        return Fraction(1)
    start = settled_from(code)
    if not code.has_wild_die:
        return Fraction(0)  # difficulty > p, the only total
    shrink = max(0, (difficulty - start) // SIDES)
    cap = difficulty - SIDES * shrink
    weights, den = _capped(code, cap)
    return Fraction(weights[cap], den * SIDES**shrink)


@dataclass(frozen=True, slots=True)
class Distribution:
    """P(total = v) for each total that can happen; when ``open_ended`` the last entry is P(total ≥ v)."""

    totals: tuple[tuple[int, Fraction], ...]
    open_ended: bool


def distribution(code: DieCode, cap: int | None = None) -> Distribution:
    """The chance of each total, for a chart: every total up to ``cap``, then "``cap`` or more".

    By default the cap is six past the most the code makes without explosions (``6N + p + 6``):
    every bar a roll with at most one six on the wild die can reach, the rest of the exploding
    tail in the last. ``0d+p`` is a single bar at p (rules README: "A code at 0d+p has no wild
    die: it is just p"). Exact: the capped form loses nothing below the cap.
    """
    if not code.has_wild_die:
        return Distribution(((code.pips, Fraction(1)),), open_ended=False)
    if cap is None:
        cap = SIDES * code.dice + code.pips + SIDES
    if not code.minimum < cap <= MAX_DISPLAY_CAP:
        raise SpecError(
            "cap", f"a chart's last bar lies above the lowest total ({code.minimum}) and at most at {MAX_DISPLAY_CAP}"
        )
    weights, den = _capped(code, cap)
    totals = tuple((v, Fraction(weights[v], den)) for v in range(code.minimum, cap + 1) if weights[v] or v == cap)
    return Distribution(totals, open_ended=True)


@dataclass(frozen=True, slots=True)
class Band:
    """A named range of difficulty numbers; ``high`` is None where the text gives no top."""

    key: str
    name: str
    low: int
    high: int | None


#: Rules text, "difficulty numbers": "Something Very Easy would fall in the 3 to 5 range. Easy
#: tasks are between 6 and 10. Moderate, between 11 and 15. Difficult, 16 to 20. Very Difficult
#: tasks are between 21 and 30. Impossible tasks are 31 and up."
DIFFICULTY_BANDS: Final = (
    Band("very_easy", "Very Easy", 3, 5),
    Band("easy", "Easy", 6, 10),
    Band("moderate", "Moderate", 11, 15),
    Band("difficult", "Difficult", 16, 20),
    Band("very_difficult", "Very Difficult", 21, 30),
    Band("impossible", "Impossible", 31, None),
)

#: Rules text: "Ranged weapon combat is similar -- Point Blank Range: 3-5, Short Range: 6-10,
#: Medium Range: 11-15, Long Range: 16-20."
RANGE_BANDS: Final = (
    Band("point_blank", "Point Blank", 3, 5),
    Band("short", "Short", 6, 10),
    Band("medium", "Medium", 11, 15),
    Band("long", "Long", 16, 20),
)

_BANDS: Final = {b.key: b for b in (*DIFFICULTY_BANDS, *RANGE_BANDS)}


def band(key: object, *, field: str = "band") -> Band:
    """The band named ``key`` (``"moderate"``, ``"point_blank"``…), its ends as the text gives them."""
    if not isinstance(key, str) or key not in _BANDS:
        raise SpecError(field, f"{key!r} is not a band (one of {', '.join(_BANDS)})")
    return _BANDS[key]


@dataclass(frozen=True, slots=True)
class BandChance:
    """The chance at the band's low end, and at its high end (None where the band has no top)."""

    band: Band
    at_low: Fraction
    at_high: Fraction | None


def band_chance(code: DieCode, which: Band) -> BandChance:
    """The chance to succeed at both ends of a band.

    Rules README, "Bands": "a band names a range (Moderate 11–15); the GM picks the number. When
    only a band is known, the page shows the chance at both ends." Impossible is "31 and up",
    with no top: only the chance at 31 is given.
    """
    high = None if which.high is None else p_at_least(code, which.high)
    return BandChance(which, p_at_least(code, which.low), high)


@dataclass(frozen=True, slots=True)
class OpposedChance:
    """P(the attacker's total is higher), P(a tie), P(the defender's total is higher), exact.

    Rules README, "Opposed": "the higher total wins; on a tie the side that resists (or the
    status quo) wins; in a contest with no resisting side (arm wrestling) a tie is a draw, with
    its own chance." The tie is kept apart here; :meth:`attacker_wins_against_resistance` and
    :meth:`resisting_side_holds` give it to the side that resists.
    """

    p_attacker_wins: Fraction
    p_tie: Fraction
    p_defender_wins: Fraction
    exact: bool  # always True: the series is summed in closed form (see opposed_chance)

    def attacker_wins_against_resistance(self) -> Fraction:
        """When the defender resists, a tie is the defender's: the attacker needs a higher total."""
        return self.p_attacker_wins

    def resisting_side_holds(self) -> Fraction:
        """When the defender resists: P(the defender wins, ties included)."""
        return self.p_defender_wins + self.p_tie


@lru_cache(maxsize=1024)
def opposed_chance(attacker: DieCode, defender: DieCode) -> OpposedChance:
    """Who rolls higher, exactly, though both wild dice can explode without end.

    Rules text, "difficulty numbers": "For opposed tests, generally who rolls higher wins."

    The README allows a bounded sum with an error below 1e-12 here; none is needed. With A
    and D the two totals, P(A > D) = Σ_v P(D = v)·P(A ≥ v + 1) and P(tie) = Σ_v P(D = v)·P(A = v).
    From K = the larger :func:`settled_from` of the two codes on, each factor shrinks six
    times every six points (module docstring: P(D = v + 6) = P(D = v)/6 for v ≥ K, and
    P(A ≥ v + 7) = P(A ≥ v + 1)/6, P(A = v + 6) = P(A = v)/6 as v + 1 > v ≥ K; a side without a
    wild die has chance 0 there, which repeats too). So every term from K on is 1/36 of the
    term six before it, and the sum of all of them is the six terms v = K … K + 5 times
    1 + 1/36 + 1/36² + … = 36/35: a closed form, exact. Everything below K + 7 comes from one
    capped distribution per side; the defender's chance is 1 less the other two.
    """
    start = max(settled_from(attacker), settled_from(defender))
    cap = start + SIDES + 1
    a, a_den = _capped(attacker, cap)
    d, d_den = _capped(defender, cap)
    a_at_least = suffix_sums(a)  # a_at_least[u] = weight of A ≥ u, exact for u ≤ cap

    def summed(term: list[int]) -> Fraction:
        below = sum(term[:start])
        block = sum(term[start : start + SIDES])
        return Fraction(below, a_den * d_den) + Fraction(block * 36, a_den * d_den * 35)

    win = [d[v] * a_at_least[v + 1] for v in range(start + SIDES)]
    tie = [d[v] * a[v] for v in range(start + SIDES)]
    p_win, p_tie = summed(win), summed(tie)
    return OpposedChance(p_win, p_tie, 1 - p_win - p_tie, exact=True)
