"""The same Lucky 13 chances computed with icepool, at its best: each die
explodes just deep enough to be exact for a target of 13, ``ceil(13/n) - 1``.

Every outcome carries, with its total, how many of its dice came up 1 first:
a roll is the whole number ``total·KEY + ones``. With a background or an
impairment the Ability die is rolled twice and one roll kept by the rule itself
(rules README, "Dilemmas come only from dice that count"): the higher total
(background) or the lower (impairment); on equal totals a background keeps the
roll without a 1, an impairment the roll with one. Only that roll's 1s count.

Without unlimited explosions every total is exact. With them, totals are held
at 13, which decides success; two rolls that both reach 13 are then equal, and
which one is kept depends on totals icepool cannot hold. For a single Ability
die nothing changes (a die with a 1 first totals 1); for a stepped one, the
chance that such a pair keeps a roll with a 1 comes from
:mod:`bench.lucky13.series`, fed with icepool's own deep explosions.

Used only by the benchmark and the tests, as an independent reference.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import cache, reduce
from typing import Any

import icepool

from bench.lucky13 import series
from rules.dice import StepDie
from rules.systems.lucky13 import TARGET, Difficulty

#: A roll is total·KEY + the number of its dice with a 1 first (at most five d12s and one die more).
KEY = 16


def _die(sides: int, depth: int) -> icepool.Die:
    """One die as total·KEY + (1 when its first face is 1), exploding ``depth`` times at most."""
    again = icepool.Die(range(1, sides + 1))
    if depth > 1:
        again = again.explode([sides], depth=depth - 1)
    again = again.map(lambda value: value * KEY)

    def keyed(face: int) -> Any:
        if face == 1:
            return KEY + 1
        if face == sides and depth:
            return face * KEY + again
        return face * KEY

    return icepool.Die(range(1, sides + 1)).map(keyed)


def _roll(sides: tuple[int, ...], depths: tuple[int, ...]) -> icepool.Die:
    if not sides:
        return icepool.Die([0])
    return reduce(lambda a, b: a + b, (_die(s, d) for s, d in zip(sides, depths, strict=True)))


def _depth(sides: int, explosions: int | None) -> int:
    return math.ceil(TARGET / sides) - 1 if explosions is None else explosions


def _kept(sides: tuple[int, ...], how: str, explosions: int | None) -> icepool.Die:
    """The Ability roll that counts, as total·KEY + (1 if it has a 1); its total held at 13 when unbounded."""
    once = _roll(sides, tuple(_depth(s, explosions) for s in sides))
    if how == "normal":
        return once
    held = TARGET if explosions is None else None

    def rank(key: int) -> int:
        total = key // KEY if held is None else min(key // KEY, held)
        return 2 * total + (key % KEY == 0)  # equal totals: the roll without a 1 ranks higher

    ranked = once.map(rank)
    pick = icepool.highest if how == "background" else icepool.lowest
    kept = pick(ranked, ranked).map(lambda r: (r // 2) * KEY + (1 - r % 2))
    if held is None or len(sides) < 2:
        return kept
    # Both rolls at 13 or more, held as equal: the background kept the roll without a 1 if either
    # had none, the impairment the roll with a 1 if either had one. The true share, from the series:
    mass = {k: Fraction(q, once.denominator()) for k, q in once.items()}
    reach = sum((p for k, p in mass.items() if k // KEY >= TARGET), Fraction(0))
    reach_clean = sum((p for k, p in mass.items() if k // KEY >= TARGET and k % KEY == 0), Fraction(0))
    reach_ones = reach - reach_clean
    held_share = reach_ones * reach_ones if how == "background" else reach * reach - reach_clean * reach_clean
    true_share = _kept_ones_over_13(sides, how == "background")
    weights = {k: Fraction(q, kept.denominator()) for k, q in kept.items()}
    weights[TARGET * KEY + 1] = weights.get(TARGET * KEY + 1, Fraction(0)) + true_share - held_share
    weights[TARGET * KEY] = weights.get(TARGET * KEY, Fraction(0)) - true_share + held_share
    den = math.lcm(*(p.denominator for p in weights.values()))
    return icepool.Die({k: int(p * den) for k, p in weights.items() if p})


@cache
def _kept_ones_over_13(sides: tuple[int, ...], higher: bool) -> Fraction:
    """P(both Ability rolls reach 13 and the kept one has a 1), from icepool's distribution of one
    roll exploded deep enough to be exact as far as :mod:`bench.lucky13.series` reads it."""
    total, ones, reach = _deep(sides)

    def exact(v: int) -> tuple[Fraction, Fraction]:
        if v >= reach:
            raise ValueError(f"the deep roll is exact below {reach}, not at {v}")
        return total.get(v, Fraction(0)), ones.get(v, Fraction(0))

    return series.kept_dilemma_over_cap(sides, exact, TARGET, higher=higher)


@cache
def _deep(sides: tuple[int, ...]) -> tuple[dict[int, Fraction], dict[int, Fraction], int]:
    """P(total = v) and P(total = v with a 1) of one roll, exact for every v below the returned bound."""
    period = math.lcm(*sides)
    reach = TARGET + 2 * period + period * (len(sides) + series.CHECKED) + 2
    # A die exploding d times at most is exact below (d + 1)·sides.
    deep = _roll(sides, tuple(math.ceil(reach / s) for s in sides))
    den = deep.denominator()
    total: dict[int, Fraction] = {}
    ones: dict[int, Fraction] = {}
    for key, q in deep.items():
        v = key // KEY
        total[v] = total.get(v, Fraction(0)) + Fraction(q, den)
        if key % KEY:
            ones[v] = ones.get(v, Fraction(0)) + Fraction(q, den)
    return total, ones, reach


def _label(value: str) -> str:
    return Difficulty(value).die.label if value in Difficulty.__members__.values() else value


def chance(spec: dict[str, Any]) -> dict[str, str]:
    """P(success), P(dilemma), P(success with a dilemma) for a check spec.

    A dilemma is a 1 first on a die that counts: the kept Ability roll's, the
    Skill's or the Difficulty's.
    """
    explosion = spec.get("explosion", "cinematic")
    ability_x = {"none": 0, "cinematic": None, "gritty": 1}[explosion]
    other_x = None if explosion == "cinematic" else 0
    ability = _kept(StepDie.parse(spec["ability"]).sides, spec.get("ability_roll", "normal"), ability_x)
    others = StepDie.parse(spec["skill"]).sides + StepDie.parse(_label(spec["difficulty"])).sides
    total = ability + _roll(others, tuple(_depth(s, other_x) for s in others))
    den = total.denominator()
    success = dilemma = both = 0
    for key, q in total.items():
        hit, ones = key // KEY >= TARGET, key % KEY > 0
        success += q * hit
        dilemma += q * ones
        both += q * (hit and ones)
    return {name: str_ratio(Fraction(n, den)) for name, n in zip(_NAMES, (success, dilemma, both), strict=True)}


_NAMES = ("p_success", "p_dilemma", "p_success_with_dilemma")


def str_ratio(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"
