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
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

from rules.dice import UNLIMITED

__all__ = ["Capped", "add", "add_all", "convolve", "die", "keep", "success_split", "suffix_sums"]


@dataclass(frozen=True, slots=True)
class Capped:
    """P(min(total, cap) = v and dilemma) = ``flagged[v] / den``; ``plain`` without a dilemma."""

    cap: int
    plain: tuple[int, ...]
    flagged: tuple[int, ...]
    den: int

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
_PACK_FROM = 48


def convolve(x: Sequence[int], y: Sequence[int]) -> list[int]:
    """The full convolution ``c[k] = sum(x[i] * y[k - i])`` of whole-number weights ≥ 0.

    Long sequences are packed into one integer each, a slot per weight wide
    enough for any sum of products, so that one big-integer product does the
    work (Kronecker substitution): exact, and far quicker than a Python loop.
    """
    if not x or not y:
        return []
    if min(len(x), len(y)) < _PACK_FROM:
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


def _capped_sum(x: Sequence[int], y: Sequence[int], cap: int) -> list[int]:
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
    every = _capped_sum(a.merged(), b.merged(), cap)
    plain = _capped_sum(a.plain, b.plain, cap)
    return Capped(cap, tuple(plain), tuple(e - p for e, p in zip(every, plain, strict=True)), a.den * b.den)


def add_all(parts: Iterable[Capped], cap: int) -> Capped:
    total = nothing(cap)
    for part in parts:
        total = add(total, part)
    return total


def _keep(x: Sequence[int], y: Sequence[int], higher: bool) -> list[int]:
    """Weights of max (or min) of two independent values: P(a = v, b ≤ v) + P(a < v, b = v)."""
    n = len(x)
    order = range(n) if higher else range(n - 1, -1, -1)
    out = [0] * n
    x_before = y_through = 0
    for v in order:
        y_through += y[v]
        out[v] = x[v] * y_through + y[v] * x_before
        x_before += x[v]
    return out


def keep(a: Capped, b: Capped, *, higher: bool) -> Capped:
    """Roll twice and keep the higher (or lower) total; a dilemma in either roll counts.

    Both rolls are made in full, so an implosion on the roll that is not kept
    is still a die that came up 1 (our reading, recorded in the closing note).
    Capping commutes with max and min, so the result stays exact.
    """
    every = _keep(a.merged(), b.merged(), higher)
    plain = _keep(a.plain, b.plain, higher)
    return Capped(a.cap, tuple(plain), tuple(e - p for e, p in zip(every, plain, strict=True)), a.den * b.den)


def success_split(a: Capped, b: Capped) -> tuple[Fraction, Fraction, Fraction]:
    """For the total of two rolls capped at the target: P(success), P(dilemma), P(both).

    One pass over ``a`` against the suffix sums of ``b``: the last step of every
    check, so it avoids building the full sum.
    """
    cap = a.cap
    tail_all = suffix_sums(b.merged())
    tail_plain = suffix_sums(b.plain)
    success = 0
    success_plain = 0
    for i in range(cap + 1):
        ap, af = a.plain[i], a.flagged[i]
        if ap or af:
            need = cap - i
            success += (ap + af) * tail_all[need]
            success_plain += ap * tail_plain[need]
    den = a.den * b.den
    no_dilemma = sum(a.plain) * sum(b.plain)
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
