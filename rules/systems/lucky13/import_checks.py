"""A Lucky 13 character that joins a campaign from a document nobody vouches for (unsigned, or
changed since it was signed): it must be a **fresh creation** of that campaign, and its played
state starts afresh ("Character creation", "Abilities", "Skills", "Specializations", "Hit points",
"Reputation").

Dice are rolled on the server only, so a document cannot bring rolled dice unless a signature of
this server vouches for its rolls. What the creation steps check (the arrays, the skill dice, the
starting specializations…) is the creation's own :meth:`~rules.systems.lucky13.system.Lucky13.check_step`;
this module adds what only an import needs: the campaign's ability methods and skill list, and
what a fresh start resets.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from rules.dice import StepDie
from rules.document import Problem
from rules.systems.defaults import options_of
from rules.systems.lucky13.health import max_hit_points
from rules.systems.lucky13.options import Options
from rules.systems.lucky13.sheet import Sheet

#: How a player turns rolled abilities into an array, said wherever rolls are refused.
ARRAY_ADVICE: Final = (
    "to use the array method, give the abilities the dice of the balanced or the specialized array, "
    'set "ability_method" to "balanced" or "specialized", and leave out the rolls'
)
#: The field of a problem with rolls that nothing vouches for: the document's signature.
SIGNATURE: Final = "signature"


def allowed_methods(options: Mapping[str, Any]) -> tuple[str, ...]:
    """The ability methods a campaign's option allows (``ability_methods``)."""
    return {"random": ("random",), "array": ("balanced", "specialized")}.get(
        options["ability_methods"], ("random", "balanced", "specialized")
    )


def fresh_problems(sheet: Sheet, options: Mapping[str, Any], *, campaign: str, rolls_verified: bool) -> list[Problem]:
    """What a campaign (named ``campaign``, for the messages) refuses in a sheet nobody vouches for,
    before its creation steps are checked: its ability method, dice that claim the server rolled
    them (unless the document's own signature vouched for its rolls: ``rolls_verified``), and its
    skill list. Fields are paths in the sheet, or :data:`SIGNATURE` for rolls taken on trust."""
    found: list[Problem] = []
    method = sheet.creation.ability_method
    allowed = allowed_methods(options)
    if method and method not in allowed:
        found.append(
            Problem(
                field="creation.ability_method",
                message=f"{campaign} allows only the array method for abilities: {ARRAY_ADVICE}"
                if method == "random"
                else f"{campaign} rolls every character's abilities on the server, so a character cannot join "
                "it with chosen dice: create the character in the campaign instead",
            )
        )
    elif (method == "random" or sheet.creation.ability_rolls) and not rolls_verified:
        found.append(
            Problem(
                field=SIGNATURE,
                message="these rolls were not made by this Dicehall, or the document was changed since; dice are "
                f"rolled on the server only, so rolls cannot be taken on trust: {ARRAY_ADVICE}",
            )
        )
    if any(skill.rolled is not None for skill in sheet.skills) and not rolls_verified:
        found.append(
            Problem(
                field=SIGNATURE,
                message="these skill rolls were not made by this Dicehall, or the document was changed since; dice "
                "are rolled on the server only: create the character in the campaign instead",
            )
        )
    elif (
        options["skill_method"] == "random"
        and not any(skill.rolled is not None for skill in sheet.skills)
        and any(skill.die is not None for skill in sheet.skills)
    ):
        found.append(
            Problem(
                field="skills",
                message=f"{campaign} rolls skill dice on the server, and this document brings no skill rolls made "
                "here: create the character in the campaign instead",
            )
        )
    listed = [s["name"] for s in options["skills"]]
    seen = {skill.name for skill in sheet.skills}
    for i, skill in enumerate(sheet.skills):
        if skill.name not in listed:
            found.append(
                Problem(
                    field=f"skills.{i}.name",
                    message=f"{campaign} has no skill {skill.name} (its skills: {', '.join(listed)})",
                )
            )
    missing = [name for name in listed if name not in seen]
    if missing:
        found.append(
            Problem(field="skills", message=f"{campaign} also has {', '.join(missing)}: give each of its skills a die")
        )
    return found


def afresh(sheet: Sheet, options: Mapping[str, Any], *, finished: bool) -> tuple[Sheet, list[str]]:
    """The sheet as a fresh creation of the campaign: each skill linked to its ability as the
    campaign links it, specializations at level 1, reputation 0, hit points full (a finished
    character, so nothing healed by resting yet, and not recovering from dying); and what changed, in
    words. The result is not validated yet."""
    links = {s["name"]: s["ability"] for s in options["skills"]}
    changes: list[str] = []
    skills = []
    for skill in sheet.skills:
        specs = []
        for spec in skill.specializations:
            if spec.level != 1:
                changes.append(f"{spec.name} ({skill.name}) from level {spec.level} to level 1")
            specs.append(spec.model_copy(update={"level": 1}))
        skills.append(skill.model_copy(update={"ability": links.get(skill.name), "specializations": tuple(specs)}))
    if sheet.reputation:
        changes.append(f"reputation from {sheet.reputation:+d} to 0")
    hit_points = sheet.hit_points
    if finished and sheet.abilities.pulse is not None:
        full = max_hit_points(StepDie.parse(sheet.abilities.pulse), options["hit_points_per_step"])
        if hit_points is not None and hit_points != full:
            changes.append(f"hit points from {hit_points} to {full} (full)")
        hit_points = full
    if sheet.recovering:
        changes.append("recovering from dying no more")
    fresh = sheet.model_copy(
        update={"skills": tuple(skills), "reputation": 0, "hit_points": hit_points, "rested_hit_points": 0,
                "recovering": False}
    )  # fmt: skip
    return fresh, changes


def fresh_rules(options: Mapping[str, Any]) -> tuple[str, ...]:
    """What a document nobody vouches for must fit in a campaign with ``options``, and what starts
    afresh, in a player's words (the import page lists them before anything is sent)."""
    labels = {o.key: dict(o.choices) for o in options_of(Options) if o.choices}
    count = options["starting_specializations"]
    return (
        f"Abilities: {labels['ability_methods'][options['ability_methods']].lower()}. Rolled dice cannot be taken on "
        "trust from a changed document: use the array method.",
        f"Skills: {', '.join(s['name'] for s in options['skills'])} "
        f"({labels['skill_method'][options['skill_method']].lower()}).",
        f"At most {count} specialization{'' if count == 1 else 's'}, one more with an impairment.",
        "Such a character starts its play afresh: every specialization at level 1, reputation 0, full hit points, "
        "no Adventure Points.",
    )
