"""An exact route, apart from the engine's, to the one Lucky 13 chance that needs an infinite sum:
whether the kept Ability roll has a dilemma when both rolls of a background or an impairment
reach the cap (rules README, "Dilemmas come only from dice that count").

Used by the icepool reference and by the tests; it imports nothing of the engine. The engine
sums the series through the recurrence its terms follow (``rules.probability``); this module
fits each sequence instead and sums the fitted terms in closed form:

- Along each residue of the total v modulo L (the lcm of the dice sizes), v = start + t + L·m,
  P(total = v), P(total = v with a dilemma) and P(total ≥ v) of dice exploding without end are
  Σ_c p_c(m)·c^m, with c = N^(−L/N) for each size N and p_c a polynomial of degree below the
  number of dice of that size. The coefficients are solved exactly from the first values
  and checked on more values than they were fitted on.
- The chance is then a sum of terms a·m^k·q^m (q a product of two c's, or a c alone) over all
  m ≥ 0, and Σ_{m ≥ 0} m^k·q^m has a closed form: S_0 = 1/(1 − q), and
  S_k = q/(1 − q) · Σ_{j < k} C(k, j)·S_j.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache

#: Values past those a fit is solved from, on which it must hold too.
CHECKED: int = 6

Term = tuple[Fraction, int]  # (q, k): the sequence m^k · q^m


class FitError(ArithmeticError):
    """The values do not follow the expected form: the data or the reasoning is wrong."""


def _basis(sides: Sequence[int]) -> list[Term]:
    period = math.lcm(*sides)
    counts: dict[Fraction, int] = {}
    for size in sides:
        c = Fraction(1, size ** (period // size))
        counts[c] = counts.get(c, 0) + 1
    return [(c, k) for c, times in sorted(counts.items()) for k in range(times)]


def _solve(matrix: list[list[Fraction]], rhs: list[Fraction]) -> list[Fraction]:
    """Gauss–Jordan elimination over the rationals."""
    n = len(rhs)
    rows = [[*row, value] for row, value in zip(matrix, rhs, strict=True)]
    for col in range(n):
        pivot = next((r for r in range(col, n) if rows[r][col]), None)
        if pivot is None:
            raise FitError("the basis values are not independent")
        rows[col], rows[pivot] = rows[pivot], rows[col]
        lead = rows[col][col]
        rows[col] = [x / lead for x in rows[col]]
        for r in range(n):
            if r != col and rows[r][col]:
                factor = rows[r][col]
                rows[r] = [x - factor * y for x, y in zip(rows[r], rows[col], strict=True)]
    return [row[n] for row in rows]


def _value(term: Term, m: int) -> Fraction:
    q, k = term
    return Fraction(m**k) * q**m


def fit(values: Sequence[Fraction], basis: Sequence[Term]) -> dict[Term, Fraction]:
    """The coefficients of ``values[m] = Σ a·m^k·q^m``, solved on the first values and checked on the rest."""
    n = len(basis)
    if len(values) < n + CHECKED:
        raise FitError(f"{n} coefficients need {n + CHECKED} values, not {len(values)}")
    coefficients = _solve([[_value(b, m) for b in basis] for m in range(n)], list(values[:n]))
    for m in range(len(values)):
        if sum(a * _value(b, m) for a, b in zip(coefficients, basis, strict=True)) != values[m]:
            raise FitError(f"the fitted form misses value {m}")
    return dict(zip(basis, coefficients, strict=True))


def _times(x: dict[Term, Fraction], y: dict[Term, Fraction]) -> dict[Term, Fraction]:
    out: dict[Term, Fraction] = {}
    for (q1, k1), a in x.items():
        for (q2, k2), b in y.items():
            key = (q1 * q2, k1 + k2)
            out[key] = out.get(key, Fraction(0)) + a * b
    return out


def _plus(*parts: tuple[Fraction, dict[Term, Fraction]]) -> dict[Term, Fraction]:
    out: dict[Term, Fraction] = {}
    for weight, part in parts:
        for key, a in part.items():
            out[key] = out.get(key, Fraction(0)) + weight * a
    return out


@cache
def power_sum(q: Fraction, k: int) -> Fraction:
    """Σ_{m ≥ 0} m^k·q^m for 0 ≤ q < 1, in closed form."""
    if not 0 <= q < 1:
        raise ValueError("the series converges only for 0 ≤ q < 1")
    if k == 0:
        return 1 / (1 - q)
    return q / (1 - q) * sum(math.comb(k, j) * power_sum(q, j) for j in range(k))


def _sum(sequence: dict[Term, Fraction]) -> Fraction:
    return sum((a * power_sum(q, k) for (q, k), a in sequence.items()), Fraction(0))


def kept_dilemma_over_cap(
    sides: Sequence[int],
    exact: Callable[[int], tuple[Fraction, Fraction]],
    cap: int,
    *,
    higher: bool,
) -> Fraction:
    """P(both rolls total ``cap`` or more, and the kept one has a dilemma), dice exploding without end.

    ``exact(v)`` gives (P(total = v), P(total = v with a dilemma)) of one roll, exact for every
    v below ``cap + 2·L + L·(len(basis) + CHECKED)``. Each pair of totals is judged by the rule
    itself: a background keeps the higher total, an impairment the lower; on equal totals, a
    background keeps the roll without a 1 and an impairment the roll with one.
    """
    period = math.lcm(*sides)
    basis = _basis(sides)
    start = cap + 2 * period  # well past where every sequence takes its form
    count = len(basis) + CHECKED
    stop = start + period * count
    mass = {v: exact(v) for v in range(cap, stop + 1)}
    clean = math.prod(Fraction(n - 1, n) for n in sides)
    at_least_cap = 1 - sum(exact(v)[0] for v in range(cap))
    flagged_from_cap = (1 - clean) - sum(exact(v)[1] for v in range(cap))

    at_least: dict[int, Fraction] = {cap: at_least_cap}
    for v in range(cap, stop):
        at_least[v + 1] = at_least[v] - mass[v][0]

    def pair_term(v: int, total: Fraction, flagged: Fraction, above: Fraction) -> Fraction:
        """The pairs whose kept roll totals v and has a dilemma (``above`` = P(total > v), from the cap on)."""
        plain = total - flagged
        if higher:
            # Higher than the other roll (which reached the cap too), or tied and both with a 1.
            return 2 * flagged * (at_least_cap - above - total) + flagged * flagged
        # Lower than the other roll, or tied with a 1 on either.
        return 2 * flagged * above + total * total - plain * plain

    head = sum(
        (pair_term(v, mass[v][0], mass[v][1], at_least[v + 1]) for v in range(cap, start)),
        Fraction(0),
    )
    series = Fraction(0)
    constant = {(Fraction(1), 0): Fraction(1)}
    for t in range(period):
        points = [start + t + period * m for m in range(count)]
        total = fit([mass[v][0] for v in points], basis)
        flagged = fit([mass[v][1] for v in points], basis)
        above = fit([at_least[v + 1] for v in points], basis)
        if higher:
            below_from_cap = _plus((at_least_cap, constant), (Fraction(-1), above), (Fraction(-1), total))
            sequence = _plus((Fraction(2), _times(flagged, below_from_cap)), (Fraction(1), _times(flagged, flagged)))
        else:
            plain = _plus((Fraction(1), total), (Fraction(-1), flagged))
            sequence = _plus(
                (Fraction(2), _times(flagged, above)),
                (Fraction(1), _times(total, total)),
                (Fraction(-1), _times(plain, plain)),
            )
        series += _sum(sequence)
    result = head + series
    if not 0 <= result <= min(at_least_cap * at_least_cap, 2 * flagged_from_cap):
        raise FitError("the sum lies outside what the chances allow")
    return result
