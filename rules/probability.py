"""Exact distributions of dice totals, as whole-number weights over one denominator.

Every chance the product shows is a :class:`fractions.Fraction`. Exploding dice
have no largest total, but a check only asks whether the total reaches a
target, and ``min(a + b, cap) == min(min(a, cap) + min(b, cap), cap)`` for
totals that are never negative: so a distribution *capped* at the target is
exact and finite (rules README, "Exact odds"). The same capped form serves the
display of totals (everything at or above the cap in one last bucket) and the
bounded computation of opposed rolls.

A :class:`Capped` distribution also tracks, jointly with the total, whether any
die of the roll showed a 1 as its first face (an implosion, a *dilemma*).

Rolling twice and keeping one roll (:func:`keep`) is the one place where the cap
hides something: when both rolls reach it, which one is kept, and so whether
the kept roll has a dilemma, depends on their true totals.
:func:`kept_dilemma_over_cap` gives that chance exactly, as the sum of a series.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from operator import mul

from rules.dice import UNLIMITED

__all__ = [
    "PACK_FROM",
    "Capped",
    "add",
    "add_all",
    "capped_sum",
    "convolve",
    "die",
    "keep",
    "keep_totals",
    "kept_dilemma_over_cap",
    "success_split",
    "suffix_sums",
]


@dataclass(frozen=True, slots=True)
class Capped:
    """P(min(total, cap) = v and dilemma) = ``flagged[v] / den``; ``plain`` without a dilemma.

    ``at_least[v]`` and ``at_least_plain[v]`` are the weights of a total of ``v`` or more (without a dilemma,
    for the second), with a final 0: every check against a target reads them (:func:`success_split`), and a
    distribution is built once and read by many checks, so they are summed once, when it is built."""

    cap: int
    plain: tuple[int, ...]
    flagged: tuple[int, ...]
    den: int
    at_least: tuple[int, ...] = field(init=False, repr=False, compare=False)
    at_least_plain: tuple[int, ...] = field(init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "at_least", tuple(suffix_sums(self.merged())))
        object.__setattr__(self, "at_least_plain", tuple(suffix_sums(self.plain)))

    def probability(self, value: int) -> Fraction:
        return Fraction(self.plain[value] + self.flagged[value], self.den)

    def merged(self) -> list[int]:
        """Weights of each capped total, dilemma or not."""
        return [p + f for p, f in zip(self.plain, self.flagged, strict=True)]

    @property
    def tail(self) -> Fraction:
        """P(total ≥ cap)."""
        return self.probability(self.cap)


@lru_cache(maxsize=64)
def nothing(cap: int) -> Capped:
    """The total of no dice: always 0, never a dilemma."""
    zeros = (0,) * (cap + 1)
    return Capped(cap, (1, *zeros[1:]), zeros, 1)


@lru_cache(maxsize=1024)
def die(sides: int, explosions: int, cap: int) -> Capped:
    """One die, exploding on its highest face up to ``explosions`` times (or :data:`UNLIMITED`).

    A total of ``j·sides + r`` (``j`` explosions, then a last face ``r``) has
    probability ``sides**-(j+1)``. The last face is below ``sides`` unless the
    explosions ran out. A first face of 1 (``j = 0, r = 1``) is an implosion.
    """
    if sides < 2:
        raise ValueError("a die has at least two sides")
    if cap < 2:
        raise ValueError("the cap must be at least 2")
    # Deepest explosion that can still land below the cap; past it, the rest is the tail.
    deepest = (cap - 2) // sides if explosions == UNLIMITED else explosions
    den = sides ** (deepest + 1)
    plain = [0] * (cap + 1)
    flagged = [0] * (cap + 1)
    below = 0
    for j in range(deepest + 1):
        weight = sides ** (deepest - j)
        last = sides if explosions != UNLIMITED and j == explosions else sides - 1
        for r in range(1, last + 1):
            value = j * sides + r
            if value >= cap:
                break
            (flagged if j == 0 and r == 1 else plain)[value] += weight
            below += weight
    plain[cap] += den - below
    return Capped(cap, tuple(plain), tuple(flagged), den)


#: Below this many terms a plain double loop is quicker than packing into one integer.
PACK_FROM = 48


def convolve(x: Sequence[int], y: Sequence[int]) -> list[int]:
    """The full convolution ``c[k] = sum(x[i] * y[k - i])`` of whole-number weights ≥ 0.

    Long sequences are packed into one integer each, a slot per weight wide
    enough for any sum of products, so that one big-integer product does the
    work (Kronecker substitution): exact, and far quicker than a Python loop.
    """
    if not x or not y:
        return []
    if min(len(x), len(y)) < PACK_FROM:
        out = [0] * (len(x) + len(y) - 1)
        y_support = [(j, w) for j, w in enumerate(y) if w]
        for i, v in enumerate(x):
            if v:
                for j, w in y_support:
                    out[i + j] += v * w
        return out
    width = (max(x).bit_length() + max(y).bit_length() + min(len(x), len(y)).bit_length() + 8) // 8
    packed_x = int.from_bytes(b"".join(v.to_bytes(width, "little") for v in x), "little")
    packed_y = int.from_bytes(b"".join(v.to_bytes(width, "little") for v in y), "little")
    length = len(x) + len(y) - 1
    product = (packed_x * packed_y).to_bytes(length * width, "little")
    return [int.from_bytes(product[k * width : (k + 1) * width], "little") for k in range(length)]


def capped_sum(x: Sequence[int], y: Sequence[int], cap: int) -> list[int]:
    """Weights of ``min(i + j, cap)``; both inputs already capped, so their last entry is "cap or more"."""
    out = convolve(x[:cap], y[:cap])[:cap]
    out += [0] * (cap - len(out))
    out.append(sum(x) * sum(y) - sum(out))
    return out


def add(a: Capped, b: Capped) -> Capped:
    """The capped total of two independent rolls; a dilemma in either is a dilemma.

    Without a dilemma means without one in both rolls, so the plain weights are
    the sum of the plain parts, and the flagged ones are the rest.
    """
    cap = a.cap
    if b.cap != cap:
        raise ValueError("both distributions must have the same cap")
    every = capped_sum(a.merged(), b.merged(), cap)
    plain = capped_sum(a.plain, b.plain, cap)
    return Capped(cap, tuple(plain), tuple(e - p for e, p in zip(every, plain, strict=True)), a.den * b.den)


def add_all(parts: Iterable[Capped], cap: int) -> Capped:
    total = nothing(cap)
    for part in parts:
        total = add(total, part)
    return total


def keep_totals(weights: Sequence[int], *, higher: bool) -> list[int]:
    """Weights of the higher (or lower) total of two rolls with these weights, a dilemma or not.

    P(kept = v) = P(a = v, b ≤ v) + P(a < v, b = v) for the higher. Capping
    commutes with max and min, so capped weights stay exact; which of two equal
    totals is kept changes nothing here.
    """
    n = len(weights)
    order = range(n) if higher else range(n - 1, -1, -1)
    out = [0] * n
    before = 0
    for v in order:
        out[v] = weights[v] * (2 * before + weights[v])
        before += weights[v]
    return out


def keep(roll: Capped, *, higher: bool, over_cap: Fraction = Fraction(0)) -> Capped:
    """Roll twice and keep the higher (a background) or the lower (an impairment) total.

    Only the kept roll's dice can make a dilemma: the discarded roll never does,
    and on equal totals a background keeps the roll without a 1, an impairment
    the roll with one (rules README, "Dilemmas come only from dice that count").

    Below the cap every pair of totals is known, so those weights are exact; so
    is a pair with one roll below the cap, which keeps the other one. When both
    rolls reach the cap, which one is kept depends on totals that the capped form
    lumps together: ``over_cap`` is P(both reach the cap and the kept roll has a
    dilemma), from :func:`kept_dilemma_over_cap`. It is 0 exactly when no roll
    with a dilemma reaches the cap, and a roll that does without it is refused.
    """
    cap, den = roll.cap, roll.den
    plain, flagged = roll.plain, roll.flagged
    at_cap = plain[cap] + flagged[cap]
    if flagged[cap] and not over_cap:
        raise ValueError("rolls with a dilemma reach the cap: give the chance that the kept one has it (over_cap)")
    # P(both reach the cap) = (at_cap / den)²; over_cap is part of it, on the common denominator den² · scale.
    weighted = over_cap * den * den
    scale = weighted.denominator
    if not 0 <= weighted <= at_cap * at_cap:
        raise ValueError("over_cap must lie between 0 and the chance that both rolls reach the cap")
    out_plain = [0] * (cap + 1)
    out_flagged = [0] * (cap + 1)
    if higher:
        below = 0  # weight of the totals below v
        for v in range(cap):
            p, f = plain[v], flagged[v]
            # Kept v with a dilemma: it beat the other roll, or both had v and both a dilemma.
            out_flagged[v] = (2 * below + f) * f
            out_plain[v] = (2 * below + p + 2 * f) * p
            below += p + f
        out_flagged[cap] = 2 * flagged[cap] * below
        out_plain[cap] = 2 * plain[cap] * below
    else:
        above = at_cap  # weight of the totals above v, the capped bucket included
        for v in range(cap - 1, -1, -1):
            p, f = plain[v], flagged[v]
            # Kept v with a dilemma: it was below the other roll, or both had v and either a dilemma.
            out_flagged[v] = (2 * above + f + 2 * p) * f
            out_plain[v] = (2 * above + p) * p
            above += p + f
    out_flagged = [w * scale for w in out_flagged]
    out_plain = [w * scale for w in out_plain]
    out_flagged[cap] += weighted.numerator
    out_plain[cap] += at_cap * at_cap * scale - weighted.numerator
    return Capped(cap, tuple(out_plain), tuple(out_flagged), den * den * scale)


@lru_cache(maxsize=256)
def kept_dilemma_over_cap(sides: tuple[int, ...], explosions: int, cap: int, *, higher: bool) -> Fraction:
    """P(both of two rolls of these dice total ``cap`` or more, and the kept one has a dilemma).

    With F(v) = P(total = v with a dilemma), P(v) the same without one and
    T(v) = P(total ≥ v) for one roll, an impairment keeps a roll with a dilemma
    from such a pair with chance S = Σ_{v ≥ cap} F(v)·(2·T(v) − F(v)): the lower
    roll had it (2·F(v)·T(v + 1), either roll first), or both had v and at least
    one had it (F(v)² + 2·F(v)·P(v)). A background, with 2·T(cap)·Σ_{v ≥ cap} F(v) − S:
    of a pair with one dilemma, exactly one of the two keeps it; with two, both do.

    Without unlimited explosions S is a finite sum, taken past the largest total.
    With them, only two dice or more reach the cap with a dilemma (one die with a
    1 first totals 1), and S is a series, summed exactly by :func:`_series`.
    """
    if not sides:
        return Fraction(0)
    period, count = math.lcm(*sides), len(sides)
    if explosions == UNLIMITED:
        # From here on every sequence of :func:`_series` follows its recurrence.
        start = max(cap, period * (count // period + 1))
        top = start + period * count
    else:
        start = top = max(cap, sum(sides) * (explosions + 1) + 1)  # past the largest total
    roll = add_all((die(s, explosions, top) for s in sides), top)
    squared = roll.den * roll.den
    flagged, at_least = roll.flagged, suffix_sums(roll.merged())
    impairment = Fraction(sum(flagged[v] * (2 * at_least[v] - flagged[v]) for v in range(cap, start)), squared)
    if explosions == UNLIMITED:
        impairment += _series(sides, flagged, at_least, start, roll.den)
    if not higher:
        return impairment
    return Fraction(2 * at_least[cap] * sum(flagged[cap:]), squared) - impairment


def _series(sides: tuple[int, ...], flagged: Sequence[int], at_least: Sequence[int], start: int, den: int) -> Fraction:
    """Σ_{v ≥ start} F(v)·(2·T(v) − F(v)) for dice exploding without end, exactly, from
    ``flagged`` and ``at_least`` (F and T as weights over ``den``), exact on
    ``len(sides)`` blocks of L from ``start``, L the lcm of the sizes.

    Why it is exact. One exploding dN has the generating function
    (z + … + z^(N−1))/N ÷ (1 − z^N/N), and 1 − z^N/N divides 1 − c·z^L with
    c = N^(−L/N). The dice together, their rolls without a 1 first (each die's
    function less z/N), and P(total ≥ v) (one minus z times the function, over
    1 − z) have rational functions over Π(1 − c·z^L) whose numerators, split by
    the residue of v modulo L, stay below the denominator's degree in z^L from
    v = L·(⌊k/L⌋ + 1) on (k dice). So along each residue, v = start + t + L·m,
    F and T are Σ_c p_c(m)·c^m with p_c of degree below μ_c, how many dice give
    that c: they follow the recurrence of R₁(w) = Π(1 − c·w)^μ_c, of order k, which
    extends them past the blocks given. Their product is a sum over pairs of
    c·c′ with polynomials of degree below μ + μ′ − 1, and so are the block sums
    s_m of the terms: they follow the recurrence of R₂(w) = Π(1 − c·c′·w)^(μ + μ′ − 1),
    of order D. Their generating function is N(w)/R₂(w) with N = (R₂·s) mod w^D,
    and the series is its value at w = 1, N(1)/R₂(1): every root lies below 1.
    """
    period, count = math.lcm(*sides), len(sides)
    single: dict[Fraction, int] = {}
    for size in sides:
        c = Fraction(1, size ** (period // size))
        single[c] = single.get(c, 0) + 1
    paired: dict[Fraction, int] = {}
    roots = sorted(single.items())
    for i, (c, mu) in enumerate(roots):
        for c2, mu2 in roots[i:]:
            paired[c * c2] = max(paired.get(c * c2, 0), mu + mu2 - 1)
    one, two = _polynomial(single), _polynomial(paired)
    order = len(two) - 1  # at least ``count``: each c·c gives 2μ − 1
    # Scaled by scale^m, with scale the lcm of the 1/c, the weights along a residue stay whole
    # numbers and so does the recurrence of R₁: its i-th coefficient times scale^i.
    scale = math.lcm(*(c.denominator for c in single))
    steps = [int(a * scale**i) for i, a in enumerate(one)]
    blocks = [0] * order
    for t in range(period):
        f = [flagged[start + t + period * m] * scale**m for m in range(count)]
        g = [at_least[start + t + period * m] * scale**m for m in range(count)]
        for m in range(count, order):
            f.append(-sum(steps[i] * f[m - i] for i in range(1, count + 1)))
            g.append(-sum(steps[i] * g[m - i] for i in range(1, count + 1)))
        for m in range(order):
            blocks[m] += f[m] * (2 * g[m] - f[m])
    prefix = [Fraction(0)]
    for m, block in enumerate(blocks):
        prefix.append(prefix[-1] + Fraction(block, den * den * scale ** (2 * m)))
    return sum((two[i] * prefix[order - i] for i in range(order)), Fraction(0)) / sum(two, Fraction(0))


def _polynomial(roots: dict[Fraction, int]) -> list[Fraction]:
    """The coefficients, lowest first, of Π (1 − r·w)^times."""
    out = [Fraction(1)]
    for root, times in roots.items():
        for _ in range(times):
            out = [a - root * b for a, b in zip([*out, Fraction(0)], [Fraction(0), *out], strict=True)]
    return out


def success_split(a: Capped, b: Capped) -> tuple[Fraction, Fraction, Fraction]:
    """For the total of two rolls capped at the target: P(success), P(dilemma), P(both).

    One pass over ``a`` against the suffix sums of ``b`` (kept with it): the last step
    of every check, so it avoids building the full sum.
    """
    # a at i meets b at cap - i or more: b's suffix sums from the cap down, against a from 0 up.
    b_all = b.at_least[a.cap :: -1]
    b_plain = b.at_least_plain[a.cap :: -1]
    success_plain = sum(map(mul, a.plain, b_plain))
    success = sum(map(mul, a.plain, b_all)) + sum(map(mul, a.flagged, b_all))
    den = a.den * b.den
    no_dilemma = a.at_least_plain[0] * b.at_least_plain[0]
    return (
        Fraction(success, den),
        Fraction(den - no_dilemma, den),
        Fraction(success - success_plain, den),
    )


def suffix_sums(weights: Sequence[int]) -> list[int]:
    """``out[i] = sum(weights[i:])``, with a final 0."""
    out = [0] * (len(weights) + 1)
    running = 0
    for i in range(len(weights) - 1, -1, -1):
        running += weights[i]
        out[i] = running
    return out
