"""A D6 character that joins a campaign from another one (a signed export of elsewhere, or a document
the GM brings): what plays differently here, and the sheet as the GM's approval takes it in.

The sheet's stats and skills are matched to the campaign's by name, case and spacing aside
(:func:`rules.document.match_names`). A matched stat takes the campaign's spelling; a matched skill
takes the campaign's spelling, its place under the campaign's stat (when the sheet has that stat, and
the skill's own code is not below it: "All skills start with the same die code as the stat") and
whether it is a reaction skill here. A skill's part in a fight (attack, dodge, parry) is the
campaign's, found by the skill's name, so it follows the spelling; where the export says what it was
where the character comes from (``origin``), a change is said. Anything not matched stays as it is,
and is said.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from rules.document import match_names
from rules.systems.base import Arrival
from rules.systems.d6.sheet import Sheet, code

#: The campaign options that travel with an export: the stats and skills it was made with (each skill's
#: part in a fight there).
CARRIED: Final = ("stats",)

#: A skill's part in a fight, in words (the campaign's ``combat`` role of the skill).
ROLE_WORDS: Final = {
    "": "has no part in a fight",
    "melee": "attacks in melee",
    "ranged": "attacks at range",
    "brawling": "attacks bare-handed",
    "dodge": "defends with a dodge",
    "parry": "defends with a parry",
}


def _and(parts: Sequence[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _origin_roles(origin: Mapping[str, Any] | None) -> list[tuple[str, str]] | None:
    """Each skill of the campaign the character comes from, with its part in a fight; None when the
    export does not say."""
    stats = (origin or {}).get("stats")
    if not isinstance(stats, list | tuple):
        return None
    roles = []
    for stat in stats:
        skills = stat.get("skills") if isinstance(stat, Mapping) else None
        if not isinstance(skills, list | tuple):
            return None
        for skill in skills:
            if not isinstance(skill, Mapping) or not isinstance(skill.get("name"), str):
                return None
            role = skill.get("combat", "")
            roles.append((skill["name"], role if role in ROLE_WORDS else ""))
    return roles


def arrive(sheet: Sheet, given: Mapping[str, Any], origin: Mapping[str, Any] | None) -> Arrival[Sheet]:
    """The sheet as a campaign with options ``given`` takes it in from one whose carried options are
    ``origin`` (None when the export does not carry them), and everything that plays differently here,
    in words. The result is not validated yet."""
    words: list[str] = []
    changed: list[str] = []
    stat_rows = list(given["stats"])
    skill_rows = [(s, row) for s, stat in enumerate(stat_rows) for row in stat["skills"]]
    stat_pairs = match_names([stat.name for stat in sheet.stats], [stat["name"] for stat in stat_rows])
    skill_pairs = match_names([skill.name for skill in sheet.skills], [row["name"] for _, row in skill_rows])
    # A stat and a skill never share a name, case aside: a spelling another item of the sheet has is not taken.
    held = [stat.name.casefold() for stat in sheet.stats] + [skill.name.casefold() for skill in sheet.skills]

    def free(old: str, new: str) -> bool:
        return new.casefold() == old.casefold() or new.casefold() not in held

    stat_pairs = {i: j for i, j in stat_pairs.items() if free(sheet.stats[i].name, stat_rows[j]["name"])}
    skill_pairs = {i: j for i, j in skill_pairs.items() if free(sheet.skills[i].name, skill_rows[j][1]["name"])}
    stats = []
    for i, stat in enumerate(sheet.stats):
        j = stat_pairs.get(i)
        if j is None:
            words.append(f"{stat.name} is not a stat here")
        elif stat_rows[j]["name"] != stat.name:
            words.append(f"{stat.name} takes this campaign's spelling, {stat_rows[j]['name']}")
            changed.append(f"{stat.name} now {stat_rows[j]['name']}")
            stat = stat.model_copy(update={"name": stat_rows[j]["name"]})
        stats.append(stat)
    on_sheet = {j: sheet.stats[i] for i, j in stat_pairs.items()}  # the campaign's stat → the sheet's
    roles_there = _origin_roles(origin)
    skills = []
    for i, skill in enumerate(sheet.skills):
        j = skill_pairs.get(i)
        if j is None:
            words.append(f"{skill.name} is not a skill here")
            skills.append(skill)
            continue
        stat_index, row = skill_rows[j]
        parts: list[str] = []
        shorts: list[str] = []
        update: dict[str, Any] = {}
        if row["name"] != skill.name:
            parts.append(f"takes this campaign's spelling, {row['name']}")
            shorts.append(f"now {row['name']}")
            update["name"] = row["name"]
        under = sheet.stat(skill.stat)
        here = stat_rows[stat_index]["name"]
        target = on_sheet.get(stat_index)
        kept = ""
        if under is not None and (target is None or target.id != under.id):
            if target is None:
                kept = f"{skill.name} belongs to {here} here, a stat the sheet lacks: it stays under {under.name}"
            elif skill.code is not None and target.code is not None and code(skill.code) < code(target.code):
                kept = (
                    f"{skill.name} belongs to {here} here: it stays under {under.name}, as its {skill.code} is below "
                    f"{target.name}'s {target.code}"
                )
            else:
                parts.append(f"belongs to {here} here ({under.name} on the sheet)")
                shorts.append(f"under {here}")
                update["stat"] = target.id
        if row["reaction"] != skill.reaction:
            parts.append("is a reaction skill here" if row["reaction"] else "is not a reaction skill here")
            shorts.append("a reaction skill" if row["reaction"] else "not a reaction skill")
            update["reaction"] = row["reaction"]
        if parts:
            words.append(f"{skill.name} {_and(parts)}")
            changed.append(f"{skill.name} {', '.join(shorts)}")
        if kept:
            words.append(kept)
        if roles_there is not None:
            there = match_names([skill.name], [name for name, _ in roles_there]).get(0)
            was = roles_there[there][1] if there is not None else ""
            role = row.get("combat", "")
            if role != was:
                words.append(
                    f"{row['name']} {ROLE_WORDS[role]} here (where the character comes from it {ROLE_WORDS[was]})"
                )
        skills.append(skill.model_copy(update=update) if update else skill)
    matched = set(skill_pairs.values())
    words += [
        f"the sheet has no {row['name']}, a skill here" for j, (_, row) in enumerate(skill_rows) if j not in matched
    ]
    if stats == list(sheet.stats) and skills == list(sheet.skills):
        return Arrival(sheet, tuple(words), tuple(changed))
    document = sheet.model_dump(mode="json")
    document["stats"] = [stat.model_dump(mode="json") for stat in stats]
    document["skills"] = [skill.model_dump(mode="json") for skill in skills]
    return Arrival(Sheet.model_validate(document), tuple(words), tuple(changed))
