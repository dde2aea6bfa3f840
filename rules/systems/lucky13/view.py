"""A Lucky 13 sheet as its pages show it: plain values computed once, from the sheet document
(the effective die of each specialization, the hit point rows, the asset levels in words, the
reaction check's Charm), for ``templates/systems/lucky13/``."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from rules.dice import StepDie
from rules.systems.lucky13.health import MAX_REST_HEALING, current_pulse, death_threshold, max_hit_points
from rules.systems.lucky13.modifiers import effective_skill_die, reaction_charm
from rules.systems.lucky13.recovery import recovering, resting_allowed
from rules.systems.lucky13.sheet import Sheet
from rules.systems.lucky13.vocabulary import ABILITY_KEYS, ASSET_LEVELS


@dataclass(frozen=True, slots=True)
class HitPoints:
    """ "Hit points" and "Death & dying": a row of slots per Pulse step, emptied as damage is taken."""

    current: int
    maximum: int
    per_step: int
    base_pulse: StepDie
    rows: tuple[tuple[str, int, int], ...]  # (die label, slots full, slots in the row), d4 first

    @property
    def pulse(self) -> StepDie:
        return current_pulse(self.current, self.per_step)

    @property
    def death_at(self) -> int:
        return death_threshold(self.base_pulse)

    @property
    def dead(self) -> bool:
        return self.current <= self.death_at

    @property
    def dying(self) -> bool:
        return self.death_at < self.current <= 0


def _die(label: str | None) -> StepDie | None:
    return None if label is None else StepDie.parse(label)


def hit_points(sheet: Sheet, per_step: int) -> HitPoints | None:
    if sheet.abilities.pulse is None or sheet.hit_points is None:
        return None
    base = StepDie.parse(sheet.abilities.pulse)
    current = sheet.hit_points
    rows = tuple(
        (StepDie(step).label, min(max(current - (step - 1) * per_step, 0), per_step), per_step)
        for step in range(1, base.rung + 1)
    )
    return HitPoints(current, max_hit_points(base, per_step), per_step, base, rows)


def hit_point_chart(hit_points: HitPoints | None) -> list[dict[str, Any]]:
    """The rulebook's chart, one row per Pulse step, d4 first: every slot drawn, full or lost."""
    if hit_points is None:
        return []
    return [
        {"label": label, "full": full, "slots": [i < full for i in range(slots)], "total": step * hit_points.per_step}
        for step, (label, full, slots) in enumerate(hit_points.rows, start=1)
    ]


def sheet_view(sheet: Sheet, options: Mapping[str, Any]) -> dict[str, Any]:
    """Everything the sheet's templates show beyond the document itself."""
    names = dict(zip(ABILITY_KEYS, options["ability_names"], strict=True))
    skill_names = {skill.id: skill.name for skill in sheet.skills}
    levels = dict(ASSET_LEVELS)
    charm = _die(sheet.abilities.charm)
    points = hit_points(sheet, options["hit_points_per_step"])
    skills = []
    for skill in sheet.skills:
        die = _die(skill.die)
        skills.append(
            {
                "skill": skill,
                "die": die,
                "ability_name": names.get(skill.ability or "", ""),
                "specializations": [
                    {"specialization": s, "effective": effective_skill_die(die, s.level) if die else None}
                    for s in skill.specializations
                ],
            }
        )
    return {
        "abilities": [
            {"key": key, "name": names[key], "die": _die(getattr(sheet.abilities, key))} for key in ABILITY_KEYS
        ],
        "skills": skills,
        "backgrounds": [t for t in sheet.traits if t.kind == "background"],
        "impairments": [t for t in sheet.traits if t.kind == "impairment"],
        "assets": [
            {
                "asset": a,
                "level_name": levels.get(a.level, ""),
                "skills": [skill_names[i] for i in a.skills if i in skill_names],
            }
            for a in sheet.assets
        ],
        "weapons": list(sheet.weapons),
        "armor": list(sheet.armor),
        "gear_pending": any(not item.approved for item in sheet.assets)
        or any(not item.approved for item in sheet.weapons)
        or any(not item.approved for item in sheet.armor),
        "hit_points": points,
        "hp_rows": hit_point_chart(points),
        "charm_name": names["charm"],
        "reaction_charm": reaction_charm(charm, sheet.reputation) if charm else None,
        # "Healing" (the campaign's resting option): what rests have healed since the last time at full.
        "resting": {"healed": sheet.rested_hit_points, "most": MAX_REST_HEALING} if resting_allowed(options) else None,
        # "Death & dying", gritty: healed from dying, a step down until the GM says recovered.
        "recovering": recovering(sheet, options),
    }
