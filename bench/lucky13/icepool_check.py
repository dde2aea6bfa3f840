"""The same Lucky 13 chances computed with icepool, at its best: each die
explodes just deep enough to be exact for a target of 13, ``ceil(13/n) - 1``.

Used only by the benchmark and the tests, as an independent reference.
"""

from __future__ import annotations

import math
from fractions import Fraction
from functools import reduce
from typing import Any

import icepool

from rules.dice import StepDie
from rules.systems.lucky13 import TARGET, Difficulty

DEPTH_UNLIMITED = None


def _die(sides: int, explosions: int | None, *, no_implosion: bool) -> icepool.Die:
    depth = math.ceil(TARGET / sides) - 1 if explosions is None else explosions
    full = icepool.Die(range(1, sides + 1))
    if depth:
        full = full.explode([sides], depth=depth)
    if not no_implosion:
        return full
    # The first face is 2 … n; an explosion rolls the whole die again, 1 included.
    again = icepool.Die(range(1, sides + 1))
    if depth > 1:
        again = again.explode([sides], depth=depth - 1)
    first = icepool.Die(range(2, sides + 1))
    return first.map(lambda face: face + again if face == sides and depth else face)


def _step_die(label: str, explosions: int | None, *, no_implosion: bool) -> icepool.Die:
    sides = StepDie.parse(label).sides
    if not sides:
        return icepool.Die([0])
    return reduce(lambda a, b: a + b, (_die(s, explosions, no_implosion=no_implosion) for s in sides))


def _total(spec: dict[str, Any], *, no_implosion: bool) -> icepool.Die:
    explosion = spec.get("explosion", "cinematic")
    ability_x = {"none": 0, "cinematic": None, "gritty": 1}[explosion]
    other_x = None if explosion == "cinematic" else 0
    ability = _step_die(spec["ability"], ability_x, no_implosion=no_implosion)
    if spec.get("ability_roll", "normal") == "background":
        ability = icepool.highest(ability, ability)
    elif spec.get("ability_roll", "normal") == "impairment":
        ability = icepool.lowest(ability, ability)
    difficulty = spec["difficulty"]
    if difficulty in Difficulty.__members__.values():
        difficulty = Difficulty(difficulty).die.label
    return (
        ability
        + _step_die(spec["skill"], other_x, no_implosion=no_implosion)
        + _step_die(difficulty, other_x, no_implosion=no_implosion)
    )


def _p_at_least(die: icepool.Die, target: int) -> Fraction:
    return Fraction(die.quantity(">=", target), die.denominator())


def chance(spec: dict[str, Any]) -> dict[str, str]:
    """P(success), P(dilemma), P(success with a dilemma) for a check spec.

    A dilemma is any die rolled whose first face is 1. Without one, every die's
    first face is 2 … n: the chance of success with no dilemma is the chance
    of success with such dice, times the chance that no die shows a 1 first.
    """
    rolls = 2 if spec.get("ability_roll", "normal") != "normal" else 1
    difficulty = spec["difficulty"]
    if difficulty in Difficulty.__members__.values():
        difficulty = Difficulty(difficulty).die.label
    sides = [*StepDie.parse(spec["ability"]).sides * rolls, *StepDie.parse(spec["skill"]).sides]
    sides += StepDie.parse(difficulty).sides
    p_clean = Fraction(1)
    for s in sides:
        p_clean *= Fraction(s - 1, s)
    p_success = _p_at_least(_total(spec, no_implosion=False), TARGET)
    p_success_clean = _p_at_least(_total(spec, no_implosion=True), TARGET) * p_clean
    return {
        "p_success": f"{p_success.numerator}/{p_success.denominator}",
        "p_dilemma": f"{(1 - p_clean).numerator}/{(1 - p_clean).denominator}",
        "p_success_with_dilemma": str_ratio(p_success - p_success_clean),
    }


def str_ratio(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"
