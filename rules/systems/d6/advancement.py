"""Advancement: skills improve with character points the GM awards; stats never do ("You can't
improve your stats during the game, but you can improve your skills").

The text gives no cost; the rules README fixes it: "raising a skill by one pip costs the number of
whole dice in its current code (3d+2 → 4d costs 3; from 0d or 1d costs 1); stats never advance. A
campaign option." The campaign's ``pip_cost`` multiplies that cost (1 by default, the README's)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from rules.systems.base import SpecError
from rules.systems.d6.chance import p_at_least
from rules.systems.d6.codes import DieCode
from rules.systems.d6.sheet import Sheet

#: The character points a D6 campaign awards.
CURRENCY: Final = "cp"


def pip_cost(current: DieCode, per_pip: int = 1) -> int:
    """What raising a code by one pip costs: its whole dice (at least 1), times the campaign's ``pip_cost``."""
    return max(current.dice, 1) * per_pip


def raise_skill(sheet: Sheet, skill_id: int, options: Mapping[str, Any]) -> tuple[Sheet, int, DieCode, DieCode]:
    """The sheet with the skill one pip higher, its cost, and its code before and after.

    A skill not yet raised starts from its stat's code and from then on keeps a code of its own."""
    skill = sheet.skill(skill_id)
    if skill is None:
        if sheet.stat(skill_id) is not None:
            raise SpecError("skill", "stats never improve: only skills do")
        raise SpecError("skill", "that is not a skill of this character")
    before = sheet.code_of(skill_id)
    if before is None:
        raise SpecError("skill", f"{skill.name} has no code yet: finish creation first")
    after = before.add_pips(1)
    cost = pip_cost(before, options["pip_cost"])
    skills = tuple(s.model_copy(update={"code": str(after)}) if s.id == skill_id else s for s in sheet.skills)
    return sheet.model_copy(update={"skills": skills}), cost, before, after


def lower_skill(sheet: Sheet, skill_id: int, to: DieCode) -> Sheet:
    """A purchase undone: the skill back at ``to`` (its stat's code again if it equals the stat's)."""
    skill = sheet.skill(skill_id)
    if skill is None:
        raise SpecError("skill", "that is not a skill of this character")
    stat = sheet.stat(skill.stat)
    base = None if stat is None or stat.code is None else DieCode.parse(stat.code)
    kept = None if base is not None and to <= base else str(to)
    skills = tuple(s.model_copy(update={"code": kept}) if s.id == skill_id else s for s in sheet.skills)
    return sheet.model_copy(update={"skills": skills})


def gain(before: DieCode, after: DieCode, difficulty: int) -> tuple[Fraction, Fraction]:
    """The exact chance to reach ``difficulty`` before and after a purchase (What should I buy?)."""
    return p_at_least(before, difficulty), p_at_least(after, difficulty)
