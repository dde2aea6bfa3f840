"""Making a D6 character: a draft with the campaign's stats and skills, the stat dice spent among
the stats (any die split into three pips), the skill dice spent raising skills above their stats up
to the campaign's cap, and the luck points a character starts with.

The text promises creation "later" and never gives it; the rules README fixes it: "by default 18d
among six stats and 7d among skills, a skill at most +2d above its stat at creation; campaign
options". "When creating your character, you can split 1d into three pips". Our readings (written in
``docs/rules/d6.md``): every stat die must be spent, no more and no less, within the campaign's lowest
and highest stat; skill dice may be left unspent (the page says how many) but never overspent."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Final

from rules.document import Problem
from rules.systems.d6.codes import PIPS_PER_DIE, DieCode, DieCodeError
from rules.systems.d6.sheet import Creation, Sheet, Skill, Stat, code, raised_by

#: The steps of creation, in order.
STEPS: Final = ("stats", "skills", "review")


@dataclass(frozen=True, slots=True)
class Budget:
    """Pips to spend and pips spent, for the running total ("12 of 54 pips: 14d left")."""

    total: int
    spent: int

    @property
    def left(self) -> int:
        return self.total - self.spent

    @property
    def words(self) -> str:
        """The pips left (or overspent) as a code: "4d+1 left", "1 pip too many"."""
        if self.left >= 0:
            return f"{DieCode.from_steps(self.left)} left"
        over = -self.left
        return (
            f"{DieCode.from_steps(over)} too many" if over >= PIPS_PER_DIE else f"{over} pip{'s' * (over > 1)} too many"
        )


def new_draft(options: Mapping[str, Any]) -> Sheet:
    """A draft with the campaign's stats and their skills, no codes yet, and the starting luck."""
    sheet = Sheet()
    stats: list[Stat] = []
    skills: list[Skill] = []
    for entry in options["stats"]:
        sheet, (stat_id,) = sheet.with_ids(1)
        stats.append(Stat(id=stat_id, name=entry["name"]))
        for skill in entry["skills"]:
            sheet, (skill_id,) = sheet.with_ids(1)
            skills.append(Skill(id=skill_id, name=skill["name"], stat=stat_id, reaction=skill["reaction"]))
    return sheet.model_copy(update={"stats": tuple(stats), "skills": tuple(skills)})


def stat_budget(sheet: Sheet, options: Mapping[str, Any]) -> Budget:
    spent = sum(code(stat.code).steps for stat in sheet.stats if stat.code is not None)
    return Budget(options["stat_dice"] * PIPS_PER_DIE, spent)


def skill_budget(sheet: Sheet, options: Mapping[str, Any]) -> Budget:
    spent = sum(raised_by(sheet, skill) for skill in sheet.skills)
    return Budget(options["skill_dice"] * PIPS_PER_DIE, spent)


def stat_problems(sheet: Sheet, options: Mapping[str, Any]) -> tuple[Problem, ...]:
    """Every stat has a code within the campaign's limits, and the stat dice are spent exactly."""
    low, high = DieCode.parse(options["stat_minimum"]), DieCode.parse(options["stat_maximum"])
    problems = []
    for stat in sheet.stats:
        where = f"stats.{stat.id}.code"
        if stat.code is None:
            problems.append(Problem(field=where, message=f"{stat.name} needs a die code"))
        elif not low <= code(stat.code) <= high:
            problems.append(Problem(field=where, message=f"{stat.name} is {stat.code}: a stat is {low} to {high}"))
    budget = stat_budget(sheet, options)
    if not problems and budget.left:
        problems.append(Problem(field="stats", message=f"Spend every stat die: {budget.words}"))
    return tuple(problems)


def skill_problems(sheet: Sheet, options: Mapping[str, Any]) -> tuple[Problem, ...]:
    """No skill rises more than the campaign's cap above its stat, and no more skill dice than the
    budget are spent (README: "a skill at most +2d above its stat at creation")."""
    cap = options["skill_cap"] * PIPS_PER_DIE
    problems = []
    for skill in sheet.skills:
        if skill.code is None:
            continue
        stat = sheet.stat(skill.stat)
        if stat is None or stat.code is None:
            problems.append(Problem(field=f"skills.{skill.id}.code", message=f"{skill.name}: set its stat first"))
        elif raised_by(sheet, skill) > cap:
            limit = code(stat.code).add_pips(cap)
            problems.append(Problem(field=f"skills.{skill.id}.code",
                                    message=f"{skill.name} may rise at most {options['skill_cap']}d above "
                                            f"{stat.name} at creation: {limit} at most"))  # fmt: skip
    budget = skill_budget(sheet, options)
    if budget.left < 0:
        problems.append(Problem(field="skills", message=f"More skill dice than the campaign gives: {budget.words}"))
    return tuple(problems)


def check_step(sheet: Sheet, step: str, options: Mapping[str, Any]) -> tuple[Problem, ...]:
    """What keeps a draft from leaving ``step`` (the steps before it included)."""
    if step not in STEPS:
        return (Problem(field="step", message=f"there is no step {step!r} in D6 creation"),)
    problems = stat_problems(sheet, options)
    if step in ("skills", "review") and not problems:
        problems += skill_problems(sheet, options)
    return problems


def _codes(value: Mapping[str, Any], field: str) -> dict[int, str | None]:
    """``{id: code}`` from a form or a client: a code, or "" / ``None`` for none (a skill at its stat)."""
    if not isinstance(value, Mapping):
        raise DieCodeError(field, "give the codes by id")
    out: dict[int, str | None] = {}
    for key, text in value.items():
        try:
            item = int(key)
        except (TypeError, ValueError):
            raise DieCodeError(field, f"{key!r} is not an item of the sheet") from None
        out[item] = None if text in (None, "") else str(DieCode.parse(text, field=f"{field}.{item}.code"))
    return out


def set_stats(sheet: Sheet, value: Mapping[str, Any]) -> Sheet:
    """The stats' codes (``{stat id: "3d+1"}``); a stat left out keeps its code."""
    codes = _codes(value, "stats")
    unknown = [i for i in codes if sheet.stat(i) is None]
    if unknown:
        raise DieCodeError(f"stats.{unknown[0]}.code", "that is not a stat of this character")
    stats = tuple(s.model_copy(update={"code": codes[s.id]}) if s.id in codes else s for s in sheet.stats)
    skills = tuple(_at_least_stat(skill, stats) for skill in sheet.skills)
    return Sheet.model_validate({**sheet.model_dump(), "stats": [s.model_dump() for s in stats],
                                 "skills": [s.model_dump() for s in skills]})  # fmt: skip


def _at_least_stat(skill: Skill, stats: tuple[Stat, ...]) -> Skill:
    """A skill that a lowered stat now reaches or passes goes back to rolling at its stat."""
    stat = next((s for s in stats if s.id == skill.stat), None)
    if skill.code is None or stat is None or stat.code is None or code(skill.code) > code(stat.code):
        return skill
    return skill.model_copy(update={"code": None})


def set_skills(sheet: Sheet, value: Mapping[str, Any]) -> Sheet:
    """The skills' codes (``{skill id: "4d"}``); a code at its stat's, or none, means not raised."""
    codes = _codes(value, "skills")
    unknown = [i for i in codes if sheet.skill(i) is None]
    if unknown:
        raise DieCodeError(f"skills.{unknown[0]}.code", "that is not a skill of this character")
    skills = []
    for skill in sheet.skills:
        if skill.id not in codes:
            skills.append(skill)
            continue
        wanted = codes[skill.id]
        stat = sheet.stat(skill.stat)
        base = None if stat is None or stat.code is None else code(stat.code)
        if wanted is not None and base is not None and code(wanted) < base:
            raise DieCodeError(f"skills.{skill.id}.code",
                               f"{skill.name} starts at {stat.name}'s {base}: a skill is never below its stat")  # type: ignore[union-attr]  # fmt: skip
        skills.append(
            skill.model_copy(update={"code": None if wanted is not None and code(wanted) == base else wanted})
        )
    return Sheet.model_validate({**sheet.model_dump(), "skills": [s.model_dump() for s in skills]})


def finish(sheet: Sheet, options: Mapping[str, Any]) -> Sheet:
    """A finished character: creation done and the starting luck points ("Every character starts with
    one Luck Point")."""
    return sheet.model_copy(update={"creation": Creation(step=""), "luck_points": options["starting_luck"]})
