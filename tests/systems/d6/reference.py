"""Brute-force references for the D6 chances, written apart from the engine.

Every face of the plain dice is enumerated with ``itertools.product``; the wild die is
followed face by face to a depth ``k``: the chains of fewer than ``k`` sixes then a face of
1…5 are listed with their exact chance, and the rest — ``k`` sixes in a row, chance ``6^-k``,
a wild die of at least ``6k`` whose true value is not followed — is kept apart as the
*unknown* mass. A chance is then known to lie between what the listed outcomes give and that
plus the unknown mass; where every unknown outcome must succeed (``6k`` plus the least the
other dice make reaches the difficulty), the reference is exact.
"""

from __future__ import annotations

import itertools
from collections import Counter
from fractions import Fraction


def wild_chains(depth: int) -> tuple[list[tuple[int, Fraction]], Fraction]:
    """Every wild die of fewer than ``depth`` sixes, its value and chance; and the mass left out."""
    listed = [(6 * j + r, Fraction(1, 6 ** (j + 1))) for j in range(depth) for r in range(1, 6)]
    return listed, Fraction(1, 6**depth)


def plain_totals(dice: int) -> Counter[int]:
    """How many of the ``6**dice`` outcomes of plain dice give each total."""
    return Counter(sum(faces) for faces in itertools.product(range(1, 7), repeat=dice))


def totals(dice: int, pips: int, depth: int) -> tuple[dict[int, Fraction], Fraction, int]:
    """P(total = v) for the outcomes listed; the unknown mass; the least total an unknown outcome has."""
    if dice == 0:
        return {pips: Fraction(1)}, Fraction(0), pips
    rest = plain_totals(dice - 1)
    den = 6 ** (dice - 1)
    chains, unknown = wild_chains(depth)
    out: dict[int, Fraction] = {}
    for wild, p in chains:
        for s, n in rest.items():
            out[wild + s + pips] = out.get(wild + s + pips, Fraction(0)) + p * Fraction(n, den)
    return out, unknown, 6 * depth + (dice - 1) + pips


def at_least_bounds(dice: int, pips: int, difficulty: int, depth: int) -> tuple[Fraction, Fraction]:
    """Rigorous bounds on P(total ≥ difficulty); equal when every unknown outcome reaches it."""
    known, unknown, least_unknown = totals(dice, pips, depth)
    low = sum((p for v, p in known.items() if v >= difficulty), Fraction(0))
    if least_unknown >= difficulty:
        return low + unknown, low + unknown
    return low, low + unknown


def opposed_bounds(
    attacker: tuple[int, int], defender: tuple[int, int], depth: int
) -> tuple[Fraction, Fraction, Fraction, Fraction]:
    """P(attacker higher), P(tie), P(defender higher) over the pairs of listed outcomes, and the
    mass of the pairs where either side is unknown: each true chance lies in [value, value + mass]."""
    a, a_unknown, _ = totals(*attacker, depth)
    d, d_unknown, _ = totals(*defender, depth)
    win = tie = lose = Fraction(0)
    for va, pa in a.items():
        for vd, pd in d.items():
            if va > vd:
                win += pa * pd
            elif va == vd:
                tie += pa * pd
            else:
                lose += pa * pd
    return win, tie, lose, 1 - (1 - a_unknown) * (1 - d_unknown)
