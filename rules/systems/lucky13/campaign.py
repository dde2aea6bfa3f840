"""A change of a Lucky 13 campaign's options against the characters it already has: a skill that
characters have can be renamed (their sheets follow) but not removed, and the hit points per Pulse
step are fixed once characters have hit points. Ability names are free: sheets store abilities
by key."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from rules.systems.base import OptionsChange, OptionsError
from rules.systems.lucky13.sheet import Sheet


def skill_changes(old: list[str], new: list[str], renames: Mapping[str, str]) -> tuple[dict[str, str], list[str]]:
    """Which of the old skills are renamed and which removed.

    ``renames`` maps an old name to the name its row now carries. An old skill
    whose name is still listed (and is not the new name of another skill) is kept.
    """
    renamed = {old_name: new_name for old_name, new_name in renames.items() if old_name in old and old_name != new_name}
    targets = set(renamed.values())
    removed = [name for name in old if name not in renamed and (name not in new or name in targets)]
    return renamed, removed


def _and(names: Sequence[str]) -> str:
    """ "A", "A and B", "A, B and C"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def change_options(
    before: Mapping[str, Any],
    after: Mapping[str, Any],
    renames: Mapping[str, str],
    characters: Sequence[tuple[str, Sheet]],
) -> OptionsChange:
    """The characters' sheets after the change (each renamed skill follows its new name), or what
    stops it: a rename to a name the new list lacks (:class:`OptionsError`), or the characters that
    depend on what would change (``conflicts``)."""
    old_skills = [s["name"] for s in before["skills"]]
    new_skills = [s["name"] for s in after["skills"]]
    renamed, removed = skill_changes(old_skills, new_skills, renames)
    # Characters' skills follow a rename, so it must land on a name the new list has.
    strays = [name for name in dict.fromkeys(renamed.values()) if name not in new_skills]
    if strays:
        raise OptionsError({"skills": f"{_and(strays)}: a skill can only be renamed to a name in the new skill list."})
    conflicts: dict[str, str] = {}
    holders: dict[str, list[str]] = {}
    for name, sheet in characters:
        for skill in sheet.skills:
            if skill.name in removed:
                holders.setdefault(skill.name, []).append(name)
    if holders:
        conflicts["skills"] = " ".join(
            f"{skill} can't be removed: {_and(names)} {'has' if len(names) == 1 else 'have'} it. "
            "Rename it instead, or keep it."
            for skill, names in sorted(holders.items())
        )
    if after["hit_points_per_step"] != before["hit_points_per_step"] and any(
        sheet.hit_points is not None for _, sheet in characters
    ):
        conflicts["hit_points_per_step"] = (
            f"Characters already have hit points counted at {before['hit_points_per_step']} a Pulse step, "
            "so this can't change any more."
        )
    sheets: list[Sheet | None] = []
    for _, sheet in characters:
        if conflicts or not any(skill.name in renamed for skill in sheet.skills):
            sheets.append(None)
            continue
        skills = tuple(skill.model_copy(update={"name": renamed.get(skill.name, skill.name)}) for skill in sheet.skills)
        sheets.append(Sheet.model_validate({**sheet.model_dump(mode="json"), "skills": [
            s.model_dump(mode="json") for s in skills
        ]}))  # fmt: skip
    return OptionsChange(
        conflicts=conflicts,
        sheets=tuple(sheets),
        what="Skills renamed with the campaign's skill list",
        sections=("skills", "specializations"),
    )
