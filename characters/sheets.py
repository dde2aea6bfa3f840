"""The Lucky 13 sheet as the pages show it: plain values computed once per request."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, QuerySet

from characters.models import Asset, Character, Skill
from rules.dice import StepDie
from rules.systems import lucky13


def with_sheet(characters: QuerySet[Character]) -> QuerySet[Character]:
    """Everything a sheet shows, in a fixed number of queries whatever its size."""
    return characters.select_related("campaign", "owner").prefetch_related(
        Prefetch("skills", queryset=Skill.objects.prefetch_related("specializations")),
        "traits",
        Prefetch("assets", queryset=Asset.objects.prefetch_related("skills")),
        "weapons",
        "armor",
    )


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


def hit_points(character: Character, per_step: int) -> HitPoints | None:
    if character.pulse is None or character.hit_points is None:
        return None
    base = StepDie(character.pulse)
    rows = tuple(
        (StepDie(step).label, min(max(character.hit_points - (step - 1) * per_step, 0), per_step), per_step)
        for step in range(1, base.rung + 1)
    )
    return HitPoints(character.hit_points, lucky13.max_hit_points(base, per_step), per_step, base, rows)


def abilities(character: Character, names: list[str]) -> list[dict[str, Any]]:
    return [
        {"key": key, "name": name, "die": character.ability(key)}
        for key, name in zip(lucky13.ABILITY_KEYS, names, strict=True)
    ]


def skills(character: Character, names: dict[str, str]) -> list[dict[str, Any]]:
    out = []
    for skill in character.skills.all():
        die = StepDie(skill.die)
        out.append(
            {
                "skill": skill,
                "die": die,
                "ability_name": names.get(skill.ability, ""),
                "specializations": [
                    {"specialization": s, "effective": lucky13.effective_skill_die(die, s.level)}
                    for s in skill.specializations.all()
                ],
            }
        )
    return out


def sheet(character: Character) -> dict[str, Any]:
    """The whole sheet for the template; the character must come from :func:`with_sheet`."""
    options = character.campaign.settings
    names = dict(zip(lucky13.ABILITY_KEYS, options["ability_names"], strict=True))
    traits = list(character.traits.all())
    return {
        "character": character,
        "options": options,
        "abilities": abilities(character, options["ability_names"]),
        "skills": skills(character, names),
        "backgrounds": [t for t in traits if t.kind == "background"],
        "impairments": [t for t in traits if t.kind == "impairment"],
        "assets": list(character.assets.all()),
        "weapons": list(character.weapons.all()),
        "armor": list(character.armor.all()),
        "hit_points": hit_points(character, options["hit_points_per_step"]),
        "charm_name": names["charm"],
        "reaction_charm": (
            lucky13.reaction_charm(StepDie(character.charm), character.reputation) if character.charm else None
        ),
    }
