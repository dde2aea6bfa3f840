"""A Lucky 13 character that joins a campaign from another one (a signed export of elsewhere, or a
document the GM brings): what plays differently here, and the sheet as the GM's approval takes it in.

The sheet's skills are matched to the campaign's skill list by name, case and spacing aside
(:func:`rules.document.match_names`): a matched skill takes the campaign's spelling and the ability
the campaign links it to, so the skill that fights here ("Combat": "whatever you name that skill")
is the sheet's skill of that name. A skill the campaign does not list stays as it is, and is said.
Hit points were counted at the hit points per Pulse step of the campaign the character comes from
(which travels with the export: ``origin``); here they are counted at this campaign's rate
(:func:`rules.systems.lucky13.health.recount`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from rules.dice import StepDie
from rules.document import match_names, name_key
from rules.systems.base import Arrival
from rules.systems.lucky13.health import max_hit_points, recount
from rules.systems.lucky13.sheet import Sheet
from rules.systems.lucky13.vocabulary import ABILITY_KEYS

#: The campaign options that travel with an export: what a sheet's hit points were counted by, and the
#: skill list its skills were made with (which of them fought there).
CARRIED: Final = ("hit_points_per_step", "skills")


def origin_step(origin: Mapping[str, Any] | None) -> int | None:
    """The hit points per Pulse step where the character comes from; None when the export does not say."""
    step = (origin or {}).get("hit_points_per_step")
    if isinstance(step, bool) or not isinstance(step, int) or not 1 <= step <= 100:
        return None
    return step


def origin_fights(origin: Mapping[str, Any] | None) -> tuple[bool, str | None]:
    """Whether the export says which skill fought where the character comes from, and that skill's name
    (None: none did)."""
    skills = (origin or {}).get("skills")
    if not isinstance(skills, list | tuple) or not all(isinstance(row, Mapping) for row in skills):
        return False, None
    fought = next((row.get("name") for row in skills if row.get("combat") is True), None)
    return True, fought if isinstance(fought, str) else None


def _hit_points(sheet: Sheet, here: int, there: int) -> tuple[str, str, int | None]:
    """The words for hit points counted at another rate, the few for the history, and the sheet's new
    hit points (None: it has none yet)."""
    words = f"hit points are counted at {here} a Pulse step here and at {there} where the character comes from"
    if sheet.hit_points is None or sheet.abilities.pulse is None:
        return f"{words}: the sheet has none yet", "", None
    base = StepDie.parse(sheet.abilities.pulse)
    before, full_before = sheet.hit_points, max_hit_points(base, there)
    after, full_after = recount(before, base, there, here), max_hit_points(base, here)
    taken = full_before - before
    if before <= 0:
        why = "below 0 counts the same at any rate"
    elif full_after - taken < 1:
        why = f"the {taken} taken stay taken, and a character who is up stays up"
    elif taken:
        why = f"the {taken} taken stay taken"
    else:
        why = "full stays full"
    return (
        f"{words}: {before} of {full_before} become {after} of {full_after} ({why})",
        f"hit points counted at {here} a Pulse step: {before} of {full_before} now {after} of {full_after}",
        after,
    )


def arrive(sheet: Sheet, options: Mapping[str, Any], origin: Mapping[str, Any] | None) -> Arrival[Sheet]:
    """The sheet as a campaign with ``options`` takes it in from one whose carried options are ``origin``
    (None when the export does not carry them): each skill matched by name takes the campaign's spelling
    and link, hit points are counted at this campaign's rate; and everything that plays differently here,
    in words. The result is not validated yet."""
    names = options["ability_names"]

    def link(key: str | None) -> str:
        return names[ABILITY_KEYS.index(key)] if key else "no ability"

    words: list[str] = []
    changed: list[str] = []
    update: dict[str, Any] = {}
    there, here = origin_step(origin), int(options["hit_points_per_step"])
    if there is not None and there != here:
        said, short, hit_points = _hit_points(sheet, here, there)
        words.append(said)
        if hit_points is not None:
            changed.append(short)
            update["hit_points"] = hit_points
    rows = list(options["skills"])
    pairs = match_names([skill.name for skill in sheet.skills], [row["name"] for row in rows])
    skills = []
    for i, skill in enumerate(sheet.skills):
        j = pairs.get(i)
        if j is None:
            words.append(f"{skill.name} is not a skill here")
            skills.append(skill)
            continue
        row = rows[j]
        renamed, relinked = row["name"] != skill.name, row["ability"] != skill.ability
        relink = f"linked to {link(row['ability'])} here ({link(skill.ability)} on the sheet)"
        if renamed and relinked:
            said = f"{skill.name} takes this campaign's spelling, {row['name']}, and is {relink}"
            short = f"{skill.name} now {row['name']}, linked to {link(row['ability'])}"
        elif renamed:
            said = f"{skill.name} takes this campaign's spelling, {row['name']}"
            short = f"{skill.name} now {row['name']}"
        elif relinked:
            said = f"{skill.name} is {relink}"
            short = f"{skill.name} linked to {link(row['ability'])}"
        else:
            skills.append(skill)
            continue
        words.append(said)
        changed.append(short)
        skills.append(skill.model_copy(update={"name": row["name"], "ability": row["ability"]}))
    matched = set(pairs.values())
    words += [f"the sheet has no {row['name']}, a skill here" for j, row in enumerate(rows) if j not in matched]
    fights = next((j for j, row in enumerate(rows) if row.get("combat")), None)
    known, fought = origin_fights(origin)
    if fights is not None and fights not in matched:
        words.append(f"no skill of the sheet fights here: {rows[fights]['name']} is the skill that does")
    elif fights is not None and known and name_key(fought or "") != name_key(rows[fights]["name"]):
        was = f"{fought} fought" if fought else "no skill fought"
        words.append(f"{rows[fights]['name']} is the skill that fights here ({was} where the character comes from)")
    elif fights is None and known and fought is not None:
        words.append(f"no skill fights here ({fought} fought where the character comes from)")
    if skills != list(sheet.skills):
        update["skills"] = tuple(skills)
    taken_in = Sheet.model_validate({**sheet.model_dump(mode="json"), **_dumped(update)}) if update else sheet
    return Arrival(taken_in, tuple(words), tuple(changed))


def _dumped(update: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: [item.model_dump(mode="json") for item in value] if isinstance(value, tuple) else value
        for key, value in update.items()
    }
