"""Free dice expressions: ``2d6+1``, ``d12+d4``, ``4d6kh3``, ``3d6-2``, ``d6!``.

The free dice box rolls anything the rules systems do not name. An expression
is a sum of terms, each a constant or a group of dice; a term may be
subtracted. A dice term is ``[count]d<sides>``, then optionally ``kh<n>`` or
``kl<n>`` (keep the highest or lowest ``n`` dice, ``n`` from 1 to the count),
then optionally ``!`` (each die explodes on its highest face: roll again and
add, again and again). Spaces are ignored; ``D`` reads as ``d``.

Bounds keep a request from eating the server and are checked while parsing,
each refusal naming the term or the position at fault: at most
:data:`MAX_LENGTH` characters, :data:`MAX_TERMS` terms, :data:`MAX_DICE` dice
in all, sides from 2 to :data:`MAX_SIDES`, constants up to
:data:`MAX_MODIFIER` each and in sum.

Exact chances have a budget too, counted before any work is done. One group
of dice kept whole (``50d1000+7``, the usual roll) has a closed form, exact
and cheap at every size (:func:`chance_at_least`). Any other expression needs
its whole distribution (:func:`distribution`): it is computed when its totals
span at most :data:`MAX_OUTCOMES` values, its keep terms are cheap
(:data:`MAX_KEEP_WORK`) and the whole computation is estimated below
:data:`MAX_CHANCE_WORK` (:func:`chance_work`); beyond that, or with explosions
(the total has no upper bound), there is none and the product says so rather
than simulate. Distributions are cached (:data:`CHANCE_CACHE_SIZE`), so the
same expression asked again costs a look-up.

Pure Python: no Django, no I/O; randomness injected.
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache
from math import comb, log2
from random import Random
from typing import Final, Literal

from rules.dice import DiceError, DieResult
from rules.probability import PACK_FROM, convolve

__all__ = [
    "CHANCE_CACHE_SIZE",
    "MAX_CHANCE_WORK",
    "MAX_DICE",
    "MAX_EXPLOSIONS",
    "MAX_KEEP_WORK",
    "MAX_LENGTH",
    "MAX_MODIFIER",
    "MAX_OUTCOMES",
    "MAX_SIDES",
    "MAX_TERMS",
    "Constant",
    "DiceTerm",
    "Expression",
    "ExpressionError",
    "ExpressionRoll",
    "TermRoll",
    "chance_at_least",
    "chance_work",
    "distribution",
    "parse",
    "roll",
    "total_weights",
]

MAX_LENGTH: Final = 100
MAX_TERMS: Final = 20
MAX_DICE: Final = 50
MIN_SIDES: Final = 2
MAX_SIDES: Final = 1000
MAX_MODIFIER: Final = 1000
#: A die explodes again and again, but a chain stops after this many extra rolls.
#: Even a d2 reaches it with probability 2**-100: never, in practice.
MAX_EXPLOSIONS: Final = 100
#: The widest spread of totals whose exact distribution we compute (10d1000 spans 9,991).
MAX_OUTCOMES: Final = 10_000
#: Steps of the keep-highest/lowest computation allowed for one term (4d6kh3 takes about 3,000;
#: 10d20kh3 about 150,000; each step is about 80 ns): past it there is no exact distribution.
MAX_KEEP_WORK: Final = 500_000
#: The estimated cost of a whole distribution, in nanoseconds of one core of a small server
#: (:func:`chance_work`), beyond which there is none: every exact chance a request asks for takes
#: at most about 50 ms, so no one's expression can keep the server from everyone else's pages.
MAX_CHANCE_WORK: Final = 40_000_000
#: Distributions kept for expressions asked again (each at most ``MAX_OUTCOMES`` whole numbers).
CHANCE_CACHE_SIZE: Final = 64

Keep = Literal["all", "high", "low"]


class ExpressionError(DiceError):
    """An expression that cannot be rolled; the message says where and why, for people."""


@dataclass(frozen=True, slots=True)
class Constant:
    sign: int
    value: int

    def __str__(self) -> str:
        return str(self.value)


@dataclass(frozen=True, slots=True)
class DiceTerm:
    sign: int
    count: int
    sides: int
    keep: Keep = "all"
    keep_count: int = 0
    explode: bool = False

    @property
    def kept(self) -> int:
        return self.count if self.keep == "all" else self.keep_count

    def __str__(self) -> str:
        count = "" if self.count == 1 else str(self.count)
        keep = {"all": "", "high": f"kh{self.keep_count}", "low": f"kl{self.keep_count}"}[self.keep]
        return f"{count}d{self.sides}{keep}{'!' if self.explode else ''}"


Term = Constant | DiceTerm


@dataclass(frozen=True, slots=True)
class Expression:
    terms: tuple[Term, ...]

    @property
    def explodes(self) -> bool:
        return any(isinstance(t, DiceTerm) and t.explode for t in self.terms)

    @property
    def dice_count(self) -> int:
        return sum(t.count for t in self.terms if isinstance(t, DiceTerm))

    @property
    def modifier(self) -> int:
        return sum(t.sign * t.value for t in self.terms if isinstance(t, Constant))

    def __str__(self) -> str:
        """The normal form: ``4d6kh3+d6!-2``; parsing it gives the same expression."""
        out = []
        for i, term in enumerate(self.terms):
            if term.sign < 0:
                out.append("-")
            elif i:
                out.append("+")
            out.append(str(term))
        return "".join(out)


_TOKEN = re.compile(
    r"(?P<dice>(?P<count>\d+)?[dD](?P<sides>\d+)(?:(?P<keep>[kK][hHlL])(?P<keep_n>\d+)?)?(?P<bang>!)?)"
    r"|(?P<number>\d+)|(?P<op>[+-])"
)


def _number(text: str, what: str, where: str) -> int:
    if len(text) > 7:  # no bound we check is anywhere near 7 digits; int() of a long string is slow
        raise ExpressionError(f"{where}: {what} {text[:7]}… is far too large")
    return int(text)


def parse(text: str, *, explode: bool = False) -> Expression:
    """Read a free dice expression; with ``explode``, every die explodes as if written with ``!``.

    Refusals name the character position (counting from 1) or the term at fault.
    """
    if not isinstance(text, str):
        raise ExpressionError("write the dice as text, such as 2d6+1")
    if len(text) > MAX_LENGTH:
        raise ExpressionError(f"an expression is at most {MAX_LENGTH} characters long; this one has {len(text)}")
    if not text.strip():
        raise ExpressionError("write the dice to roll, such as 2d6+1, d12+d4 or 4d6kh3")
    terms: list[Term] = []
    pos = 0
    sign = 1
    expect_term = True  # after an operator (or at the start) a term must follow
    signed = False
    while True:
        while pos < len(text) and text[pos].isspace():
            pos += 1
        if pos == len(text):
            break
        match = _TOKEN.match(text, pos)
        where = f"at position {pos + 1}"
        if match is None and text[pos] in "dD":
            raise ExpressionError(f"{where}: a die needs its number of sides, as in d6")
        if match is None:
            raise ExpressionError(
                f"{where}: {text[pos]!r} is not part of a dice expression "
                "(write terms such as 2d6, d12, 4d6kh3, d6! or 3, joined by + or -)"
            )
        if match.group("op"):
            if signed:
                raise ExpressionError(f"{where}: two signs in a row")
            sign = -1 if match.group("op") == "-" else 1
            expect_term = signed = True
        else:
            if not expect_term:
                raise ExpressionError(f"{where}: a + or - must come between two terms")
            if len(terms) == MAX_TERMS:
                raise ExpressionError(f"an expression has at most {MAX_TERMS} terms")
            label = f"term {len(terms) + 1} ({match.group(0)!r})"
            terms.append(_term(match, sign, explode, label))
            sign, expect_term, signed = 1, False, False
        pos = match.end()
    if expect_term:
        if terms or signed:
            raise ExpressionError("the expression ends with a sign: a term must follow it")
        raise ExpressionError("write the dice to roll, such as 2d6+1, d12+d4 or 4d6kh3")
    expression = Expression(tuple(terms))
    if not any(isinstance(t, DiceTerm) for t in terms):
        raise ExpressionError("an expression rolls at least one die, such as d20+5")
    if expression.dice_count > MAX_DICE:
        raise ExpressionError(f"at most {MAX_DICE} dice in all; this rolls {expression.dice_count}")
    if abs(expression.modifier) > MAX_MODIFIER:
        raise ExpressionError(f"the constants add up to {expression.modifier}; keep them within ±{MAX_MODIFIER}")
    return expression


def _term(match: re.Match[str], sign: int, explode: bool, label: str) -> Term:
    if match.group("number"):
        value = _number(match.group("number"), "the number", label)
        if value > MAX_MODIFIER:
            raise ExpressionError(f"{label}: a constant is at most {MAX_MODIFIER}")
        return Constant(sign, value)
    count = _number(match.group("count"), "the count", label) if match.group("count") else 1
    sides = _number(match.group("sides"), "the die", label)
    if count < 1:
        raise ExpressionError(f"{label}: roll at least one die")
    if count > MAX_DICE:
        raise ExpressionError(f"{label}: at most {MAX_DICE} dice in all")
    if not MIN_SIDES <= sides <= MAX_SIDES:
        raise ExpressionError(f"{label}: a die has from {MIN_SIDES} to {MAX_SIDES} sides, not {sides}")
    keep: Keep = "all"
    keep_count = 0
    if match.group("keep"):
        keep = "high" if match.group("keep").lower() == "kh" else "low"
        if match.group("keep_n") is None:
            raise ExpressionError(f"{label}: say how many dice to keep, as in 4d6kh3")
        keep_count = _number(match.group("keep_n"), "the number kept", label)
        if not 1 <= keep_count <= count:
            raise ExpressionError(f"{label}: keep from 1 to {count} of the {count} dice, not {keep_count}")
    return DiceTerm(sign, count, sides, keep, keep_count, explode or bool(match.group("bang")))


# --- Rolling ---------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class TermRoll:
    term: Term
    dice: tuple[DieResult, ...]
    kept: tuple[bool, ...]

    @property
    def value(self) -> int:
        """The term's signed contribution to the total: its kept dice, or its constant."""
        if isinstance(self.term, Constant):
            return self.term.sign * self.term.value
        return self.term.sign * sum(d.value for d, k in zip(self.dice, self.kept, strict=True) if k)


@dataclass(frozen=True, slots=True)
class ExpressionRoll:
    expression: Expression
    terms: tuple[TermRoll, ...]

    @property
    def total(self) -> int:
        return sum(t.value for t in self.terms)


def _roll_die(sides: int, rng: Random, explode: bool) -> DieResult:
    faces = [rng.randint(1, sides)]
    while explode and faces[-1] == sides and len(faces) <= MAX_EXPLOSIONS:
        faces.append(rng.randint(1, sides))
    return DieResult(sides, tuple(faces))


def _kept(dice: tuple[DieResult, ...], term: DiceTerm) -> tuple[bool, ...]:
    """Which dice count. Keep-highest keeps the ``n`` largest totals (explosions included);
    among equal dice the earlier-rolled one is kept, so the choice is deterministic."""
    if term.keep == "all":
        return (True,) * len(dice)
    direction = -1 if term.keep == "high" else 1
    order = sorted(range(len(dice)), key=lambda i: (direction * dice[i].value, i))
    chosen = set(order[: term.keep_count])
    return tuple(i in chosen for i in range(len(dice)))


def roll(expression: Expression, rng: Random) -> ExpressionRoll:
    """Roll every die of every term, in order, each with its explosion chain."""
    rolled = []
    for term in expression.terms:
        if isinstance(term, Constant):
            rolled.append(TermRoll(term, (), ()))
            continue
        dice = tuple(_roll_die(term.sides, rng, term.explode) for _ in range(term.count))
        rolled.append(TermRoll(term, dice, _kept(dice, term)))
    return ExpressionRoll(expression, tuple(rolled))


# --- Exact distributions ---------------------------------------------------------------------------


def _keep_weights(term: DiceTerm) -> tuple[int, list[int]]:
    """(lowest kept sum, weights of each kept sum from it) over ``sides**count`` equally likely rolls.

    The faces are visited from the best (highest for kh) to the worst; ``c`` of the
    ``n - m`` still unplaced dice show the face in ``C(n - m, c)`` ways, and the
    first ``k`` dice placed are the kept ones.
    """
    n, s, k = term.count, term.sides, term.kept
    faces = range(s, 0, -1) if term.keep == "high" else range(1, s + 1)
    states: dict[tuple[int, int], int] = {(0, 0): 1}
    for face in faces:
        following: defaultdict[tuple[int, int], int] = defaultdict(int)
        for (placed, total), weight in states.items():
            room = max(k - placed, 0)
            for c in range(n - placed + 1):
                following[(placed + c, total + min(c, room) * face)] += weight * comb(n - placed, c)
        states = following
    sums = {total: w for (placed, total), w in states.items() if placed == n}
    low = min(sums)
    return low, [sums.get(v, 0) for v in range(low, max(sums) + 1)]


def _term_weights(term: DiceTerm) -> tuple[int, list[int]]:
    if term.keep != "all" and term.keep_count < term.count:
        return _keep_weights(term)
    weights = [1]
    for _ in range(term.count):
        weights = convolve(weights, [1] * term.sides)
    return term.count, weights


def _keep_work(term: DiceTerm) -> int:
    return term.sides * (term.count + 1) ** 2 * (term.kept * term.sides + 1)


#: The cost model of :func:`chance_work`, measured on one core: a step of a short convolution
#: (a plain double loop) or of the keep-highest/lowest count, in nanoseconds; a long convolution is
#: one product of two big integers (Karatsuba: the longer's bits times the shorter's to the 0.585),
#: plus a pass over the weights to pack and unpack them.
_LOOP_STEP_NS: Final = 85
_KEEP_STEP_NS: Final = 85
_KARATSUBA_NS: Final = 0.025
_KARATSUBA_POWER: Final = 0.585
_PACK_NS: Final = 300


def _convolution_work(x_len: int, x_bits: float, y_len: int, y_bits: float) -> float:
    """Nanoseconds :func:`rules.probability.convolve` takes, about, for weights of these lengths and sizes."""
    if min(x_len, y_len) < PACK_FROM:
        return _LOOP_STEP_NS * x_len * y_len
    width = x_bits + y_bits + min(x_len, y_len).bit_length() + 8
    longer, shorter = max(x_len, y_len) * width, min(x_len, y_len) * width
    return _KARATSUBA_NS * longer * shorter**_KARATSUBA_POWER + _PACK_NS * (x_len + y_len)


def chance_work(expression: Expression) -> float:
    """The estimated cost of :func:`distribution`, in nanoseconds, from the sizes alone: the same
    convolutions and keep counts, each priced by :func:`_convolution_work`, none of them done."""
    total_len, total_bits, work = 1, 0.0, 0.0
    for term in expression.terms:
        if not isinstance(term, DiceTerm):
            continue
        side_bits = log2(term.sides)
        if term.keep != "all" and term.keep_count < term.count:
            work += _KEEP_STEP_NS * _keep_work(term)
            term_len = term.kept * (term.sides - 1) + 1
        else:
            term_len = 1
            for done in range(term.count):
                work += _convolution_work(term_len, done * side_bits, term.sides, 0)
                term_len += term.sides - 1
        term_bits = term.count * side_bits
        work += _convolution_work(total_len, total_bits, term_len, term_bits)
        total_len, total_bits = total_len + term_len - 1, total_bits + term_bits
    return work


def span(expression: Expression) -> tuple[int, int] | None:
    """The lowest and highest total, or None when dice explode (no highest)."""
    if expression.explodes:
        return None
    low = high = 0
    for term in expression.terms:
        if isinstance(term, Constant):
            low += term.sign * term.value
            high += term.sign * term.value
            continue
        least, most = term.kept, term.kept * term.sides
        low += least if term.sign > 0 else -most
        high += most if term.sign > 0 else -least
    return low, high


def _within_budget(expression: Expression) -> bool:
    bounds = span(expression)
    if bounds is None or bounds[1] - bounds[0] + 1 > MAX_OUTCOMES:
        return False
    dice = [t for t in expression.terms if isinstance(t, DiceTerm)]
    if any(t.keep != "all" and _keep_work(t) > MAX_KEEP_WORK for t in dice):
        return False
    return chance_work(expression) <= MAX_CHANCE_WORK


@lru_cache(maxsize=CHANCE_CACHE_SIZE)
def total_weights(expression: Expression) -> tuple[int, tuple[int, ...], int] | None:
    """(lowest total, the weight of each total from it, their denominator), or None beyond the budget."""
    if not _within_budget(expression):
        return None
    offset = expression.modifier
    weights = [1]
    den = 1
    for term in expression.terms:
        if not isinstance(term, DiceTerm):
            continue
        low, term_weights = _term_weights(term)
        if term.sign < 0:
            low, term_weights = -(low + len(term_weights) - 1), term_weights[::-1]
        offset += low
        weights = convolve(weights, term_weights)
        den *= term.sides**term.count
    return offset, tuple(weights), den


def distribution(expression: Expression) -> dict[int, Fraction] | None:
    """P(total = v) for every reachable total, exactly; None when there is no finite, cheap answer.

    None when any die explodes (the total has no upper bound), when the totals
    span more than :data:`MAX_OUTCOMES` values, when a keep term needs more
    than :data:`MAX_KEEP_WORK` steps, or when the whole is estimated to cost more
    than :data:`MAX_CHANCE_WORK` (:func:`chance_work`).
    """
    found = total_weights(expression)
    if found is None:
        return None
    offset, weights, den = found
    return {offset + i: Fraction(w, den) for i, w in enumerate(weights) if w}


def _at_most(count: int, sides: int, total: int) -> int:
    """How many of the ``sides**count`` rolls of ``count`` dice total at most ``total``.

    Inclusion–exclusion over the dice that show more than their faces allow: with ``j`` dice
    shifted down by ``sides``, the rolls are the ways to share what is left among ``count``
    dice of at least 1, ``C(total − j·sides, count)``.
    """
    if total < count:
        return 0
    if total >= count * sides:
        return sides**count
    return sum(
        (-1) ** j * comb(count, j) * comb(total - j * sides, count)
        for j in range(min(count, (total - count) // sides) + 1)
    )


def _single_group(expression: Expression) -> DiceTerm | None:
    """The expression's one group of dice when it is its only dice and all of them count; else None."""
    dice = [t for t in expression.terms if isinstance(t, DiceTerm)]
    if len(dice) != 1 or dice[0].explode or (dice[0].keep != "all" and dice[0].keep_count < dice[0].count):
        return None
    return dice[0]


def chance_at_least(expression: Expression, total: int) -> Fraction | None:
    """P(the expression's total ≥ ``total``), exactly, or None where :func:`distribution` is None.

    One group of dice that all count, with constants, needs no distribution: its chance is a
    closed form (:func:`_at_most`), a few dozen terms at most, whatever the size of the dice.
    """
    group = _single_group(expression)
    if group is not None:
        need = total - expression.modifier
        den = group.sides**group.count
        if group.sign > 0:  # the dice total at least ``need``
            return Fraction(den - _at_most(group.count, group.sides, need - 1), den)
        return Fraction(_at_most(group.count, group.sides, -need), den)  # the dice total at most ``-need``
    found = total_weights(expression)
    if found is None:
        return None
    offset, weights, den = found
    return Fraction(sum(weights[max(total - offset, 0) :]), den)
