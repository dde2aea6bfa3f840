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


def stat_problems(
    sheet: Sheet, options: Mapping[str, Any], *, unread: frozenset[int] = frozenset()
) -> tuple[Problem, ...]:
    """Every stat has a code within the campaign's limits, and the stat dice are spent exactly. A stat
    in ``unread`` (its code as typed could not be read: that problem is said already) is not checked,
    and neither are the dice spent, which it would count in."""
    low, high = DieCode.parse(options["stat_minimum"]), DieCode.parse(options["stat_maximum"])
    problems = []
    for stat in sheet.stats:
        where = f"stats.{stat.id}.code"
        if stat.id in unread:
            continue
        if stat.code is None:
            problems.append(Problem(field=where, message=f"{stat.name} needs a die code"))
        elif not low <= code(stat.code) <= high:
            problems.append(Problem(field=where, message=f"{stat.name} is {stat.code}: a stat is {low} to {high}"))
    budget = stat_budget(sheet, options)
    # The dice spent are counted whenever every stat has a code the count can read, whatever else is wrong.
    if not unread and all(stat.code is not None for stat in sheet.stats) and budget.left:
        problems.append(Problem(field="stats", message=f"Spend every stat die: {budget.words}"))
    return tuple(problems)


def skill_problems(sheet: Sheet, options: Mapping[str, Any], *, unread: frozenset[int] = frozenset()
                   ) -> tuple[Problem, ...]:  # fmt: skip
    """No skill rises more than the campaign's cap above its stat, and no more skill dice than the
    budget are spent (README: "a skill at most +2d above its stat at creation"). A skill in ``unread``
    (its code as typed could not be read) is not checked, nor the budget it would count in."""
    cap = options["skill_cap"] * PIPS_PER_DIE
    problems = []
    for skill in sheet.skills:
        if skill.code is None or skill.id in unread:
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
    if not unread and budget.left < 0:
        problems.append(Problem(field="skills", message=f"More skill dice than the campaign gives: {budget.words}"))
    return tuple(problems)


def check_step(sheet: Sheet, step: str, options: Mapping[str, Any], *, unread: Mapping[str, frozenset[int]] = {}
               ) -> tuple[Problem, ...]:  # fmt: skip
    """What keeps a draft from leaving ``step`` (the steps before it included); ``unread``: by part
    (``stats``, ``skills``), the items whose typed code could not be read, left out of the checks."""
    if step not in STEPS:
        return (Problem(field="step", message=f"there is no step {step!r} in D6 creation"),)
    problems = stat_problems(sheet, options, unread=unread.get("stats", frozenset()))
    if step in ("skills", "review") and not problems:
        problems += skill_problems(sheet, options, unread=unread.get("skills", frozenset()))
    return problems


@dataclass(frozen=True, slots=True)
class Filled:
    """Codes typed into a sheet: the sheet with every code that could be read, every problem of
    what was typed, and the items whose code could not be read (they keep the code they had)."""

    sheet: Sheet
    problems: tuple[Problem, ...] = ()
    unread: frozenset[int] = frozenset()

    def sheet_or_first_problem(self) -> Sheet:
        if self.problems:
            raise DieCodeError(self.problems[0].field, self.problems[0].message)
        return self.sheet


def _codes(value: Mapping[str, Any], field: str) -> tuple[dict[int, str | None], list[Problem], set[int]]:
    """``{id: code}`` from a form or a client: a code, or "" / ``None`` for none (a skill at its stat).
    Every code is read: each that cannot be is a problem at its path, and its id is in the third part."""
    if not isinstance(value, Mapping):
        return {}, [Problem(field=field, message="give the codes by id")], set()
    out: dict[int, str | None] = {}
    problems: list[Problem] = []
    unread: set[int] = set()
    for key, text in value.items():
        try:
            item = int(key)
        except (TypeError, ValueError):
            problems.append(Problem(field=field, message=f"{key!r} is not an item of the sheet"))
            continue
        try:
            out[item] = None if text in (None, "") else str(DieCode.parse(text, field=f"{field}.{item}.code"))
        except DieCodeError as error:
            problems.append(Problem(field=error.field, message=error.message))
            unread.add(item)
    return out, problems, unread


def set_stats(sheet: Sheet, value: Mapping[str, Any]) -> Sheet:
    """The stats' codes (``{stat id: "3d+1"}``); a stat left out keeps its code. The first problem of
    what was typed is a :class:`DieCodeError` (:func:`fill_stats` gives them all)."""
    return fill_stats(sheet, value).sheet_or_first_problem()


def fill_stats(sheet: Sheet, value: Mapping[str, Any]) -> Filled:
    """The stats' codes (``{stat id: "3d+1"}``) with every problem of what was typed; a stat left out,
    or whose code cannot be read, keeps its code."""
    codes, problems, unread = _codes(value, "stats")
    for item in [i for i in [*codes, *unread] if sheet.stat(i) is None]:
        problems.append(Problem(field=f"stats.{item}.code", message="that is not a stat of this character"))
        codes.pop(item, None)
        unread.discard(item)
    stats = tuple(s.model_copy(update={"code": codes[s.id]}) if s.id in codes else s for s in sheet.stats)
    skills = tuple(_at_least_stat(skill, stats) for skill in sheet.skills)
    filled = Sheet.model_validate({**sheet.model_dump(), "stats": [s.model_dump() for s in stats],
                                   "skills": [s.model_dump() for s in skills]})  # fmt: skip
    return Filled(filled, tuple(problems), frozenset(unread))


def _at_least_stat(skill: Skill, stats: tuple[Stat, ...]) -> Skill:
    """A skill that a lowered stat now reaches or passes goes back to rolling at its stat."""
    stat = next((s for s in stats if s.id == skill.stat), None)
    if skill.code is None or stat is None or stat.code is None or code(skill.code) > code(stat.code):
        return skill
    return skill.model_copy(update={"code": None})


def set_skills(sheet: Sheet, value: Mapping[str, Any]) -> Sheet:
    """The skills' codes (``{skill id: "4d"}``); a code at its stat's, or none, means not raised. The
    first problem of what was typed is a :class:`DieCodeError` (:func:`fill_skills` gives them all)."""
    return fill_skills(sheet, value).sheet_or_first_problem()


def fill_skills(sheet: Sheet, value: Mapping[str, Any], *, unread_stats: frozenset[int] = frozenset()) -> Filled:
    """The skills' codes (``{skill id: "4d"}``) with every problem of what was typed; a code at its
    stat's, or none, means not raised. A skill whose code cannot be read, or is below its stat, keeps
    its code; one whose stat is in ``unread_stats`` is not compared with it."""
    codes, problems, unread = _codes(value, "skills")
    for item in [i for i in [*codes, *unread] if sheet.skill(i) is None]:
        problems.append(Problem(field=f"skills.{item}.code", message="that is not a skill of this character"))
        codes.pop(item, None)
        unread.discard(item)
    skills = []
    for skill in sheet.skills:
        if skill.id not in codes:
            skills.append(skill)
            continue
        wanted = codes[skill.id]
        stat = sheet.stat(skill.stat)
        base = None if stat is None or stat.code is None else code(stat.code)
        if (stat is not None and wanted is not None and base is not None and code(wanted) < base
                and skill.stat not in unread_stats):  # fmt: skip
            problems.append(Problem(field=f"skills.{skill.id}.code",
                                    message=f"{skill.name} starts at {stat.name}'s {base}: "
                                            "a skill is never below its stat"))  # fmt: skip
            unread.add(skill.id)
            skills.append(skill)
            continue
        skills.append(
            skill.model_copy(update={"code": None if wanted is not None and code(wanted) == base else wanted})
        )
    filled = Sheet.model_validate({**sheet.model_dump(), "skills": [s.model_dump() for s in skills]})
    return Filled(filled, tuple(problems), frozenset(unread))


def finish(sheet: Sheet, options: Mapping[str, Any]) -> Sheet:
    """A finished character: creation done and the starting luck points ("Every character starts with
    one Luck Point")."""
    return sheet.model_copy(update={"creation": Creation(step=""), "luck_points": options["starting_luck"]})
