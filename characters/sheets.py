"""The Lucky 13 sheet as the pages show it: plain values computed once per request, from the
character's sheet document (no query beyond the character and its campaign)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import QuerySet

from characters.models import Character
from rules.dice import StepDie
from rules.systems import lucky13


def with_sheet(characters: QuerySet[Character]) -> QuerySet[Character]:
    """Everything a sheet shows: the document is on the row, and the balances are read with it,
    so one query whatever its size."""
    return characters.select_related("campaign", "owner").with_balances()


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
        return lucky13.current_pulse(self.current, self.per_step)

    @property
    def death_at(self) -> int:
        return lucky13.death_threshold(self.base_pulse)

    @property
    def dead(self) -> bool:
        return self.current <= self.death_at

    @property
    def dying(self) -> bool:
        return self.death_at < self.current <= 0


def _die(label: str | None) -> StepDie | None:
    return None if label is None else StepDie.parse(label)


def hit_points(character: Character, per_step: int) -> HitPoints | None:
    doc = character.document
    if doc.abilities.pulse is None or doc.hit_points is None:
        return None
    base = StepDie.parse(doc.abilities.pulse)
    current = doc.hit_points
    rows = tuple(
        (StepDie(step).label, min(max(current - (step - 1) * per_step, 0), per_step), per_step)
        for step in range(1, base.rung + 1)
    )
    return HitPoints(current, lucky13.max_hit_points(base, per_step), per_step, base, rows)


def abilities(character: Character, names: list[str]) -> list[dict[str, Any]]:
    doc = character.document
    return [
        {"key": key, "name": name, "die": _die(getattr(doc.abilities, key))}
        for key, name in zip(lucky13.ABILITY_KEYS, names, strict=True)
    ]


def skills(character: Character, names: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for skill in character.document.skills:
        die = _die(skill.die)
        out.append(
            {
                "skill": skill,
                "die": die,
                "ability_name": names.get(skill.ability or "", ""),
                "specializations": [
                    {"specialization": s, "effective": lucky13.effective_skill_die(die, s.level) if die else None}
                    for s in skill.specializations
                ],
            }
        )
    return out


def assets(character: Character) -> list[dict[str, Any]]:
    """Each asset with its level in words ("Standard") and the names of the skills it helps
    (it names them by id)."""
    doc = character.document
    names = {skill.id: skill.name for skill in doc.skills}
    levels = dict(lucky13.ASSET_LEVELS)
    return [
        {"asset": a, "level_name": levels.get(a.level, ""), "skills": [names[i] for i in a.skills if i in names]}
        for a in doc.assets
    ]


def sheet(character: Character) -> dict[str, Any]:
    """The whole sheet for the template; the character must come from :func:`with_sheet`."""
    options = character.campaign.settings
    names = dict(zip(lucky13.ABILITY_KEYS, options["ability_names"], strict=True))
    doc = character.document
    charm = _die(doc.abilities.charm)
    return {
        "character": character,
        "document": doc,
        "options": options,
        "abilities": abilities(character, options["ability_names"]),
        "skills": skills(character, names),
        "backgrounds": [t for t in doc.traits if t.kind == "background"],
        "impairments": [t for t in doc.traits if t.kind == "impairment"],
        "assets": assets(character),
        "weapons": list(doc.weapons),
        "armor": list(doc.armor),
        "hit_points": hit_points(character, options["hit_points_per_step"]),
        "charm_name": names["charm"],
        "reaction_charm": lucky13.reaction_charm(charm, doc.reputation) if charm else None,
    }
