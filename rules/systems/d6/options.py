"""A D6 campaign's options: its stats and their skills (reaction skills marked), the creation budgets
and limits, the luck points a character starts with, and what advancement costs.

The text gives no list of stats and no creation rules ("More on that later"); the rules README fixes
the readings: "by default 18d among six stats and 7d among skills, a skill at most +2d above its
stat at creation; campaign options", and advancement "raising a skill by one pip costs the number
of whole dice in its current code". The preset of six stats is the common D6 set, with skills a
table expects; the text's three reaction skills are marked ("Dodge, melee parry, and brawling parry
are reaction skills"), and the skills a fight uses are marked by their role, not their name: which attack
(melee, ranged, brawling) and which defend (dodge, parry), as Lucky 13 marks its Combat skill."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import Field, model_validator

from rules.document import Document, Name
from rules.reading import clean_name
from rules.systems.base import Option, OptionsError
from rules.systems.d6.codes import DieCode, DieCodeError

#: Enough stats and skills for any table; a bound on what a campaign may hold.
MAX_STATS: Final = 12
MAX_SKILLS_PER_STAT: Final = 30
MAX_SKILLS: Final = 120

#: The preset: six stats, each with skills a table expects. ``True`` marks a reaction skill.
STAT_PRESETS: Final = {
    "six": (
        "Six common stats",
        (
            ("Dexterity", (("Dodge", True), ("Firearms", False), ("Melee combat", False), ("Melee parry", True),
                           ("Missile weapons", False), ("Running", False), ("Thrown weapons", False))),
            ("Knowledge", (("Languages", False), ("Scholar", False), ("Streetwise", False), ("Survival", False),
                           ("Willpower", False))),
            ("Mechanical", (("Driving", False), ("Navigation", False), ("Piloting", False), ("Riding", False))),
            ("Perception", (("Con", False), ("Hide", False), ("Investigation", False), ("Persuasion", False),
                            ("Search", False), ("Sneak", False))),
            ("Strength", (("Brawling", False), ("Brawling parry", True), ("Climbing", False), ("Lifting", False),
                          ("Stamina", False), ("Swimming", False))),
            ("Technical", (("Computers", False), ("Demolitions", False), ("First aid", False), ("Repair", False),
                           ("Security", False))),
        ),
    ),
}  # fmt: skip


#: What a skill does in a fight: it attacks (in melee, at range, or bare-handed) or it defends (a dodge answers
#: anything, a parry melee or brawling; rules README, "A dodge or a parry is the defender's choice"), or
#: nothing ("").
ATTACKS: Final = ("melee", "ranged", "brawling")
DEFENCES: Final = ("dodge", "parry")
COMBAT_ROLES: Final = ("", *ATTACKS, *DEFENCES)

#: The roles of the preset's skills, and the names that gave a skill its role before the skill list marked
#: roles: an options document with no role marked anywhere gets them from these names (:func:`validate_options`),
#: so no stored campaign changes.
NAMED_ROLES: Final = {"firearms": "ranged", "melee combat": "melee", "missile weapons": "ranged",
                      "thrown weapons": "ranged", "brawling": "brawling", "dodge": "dodge", "melee parry": "parry",
                      "brawling parry": "parry"}  # fmt: skip


def preset_stats(key: str) -> list[dict[str, Any]]:
    """A preset's stats as the options hold them: each stat's name and its skills (each marked reaction or not,
    and with its role in a fight)."""
    return [
        {"name": name, "skills": [{"name": skill, "reaction": reaction, "combat": NAMED_ROLES.get(skill.casefold(), "")}
                                  for skill, reaction in skills]}
        for name, skills in STAT_PRESETS[key][1]
    ]  # fmt: skip


OPTIONS: Final = (
    Option("stat_preset", "Stats and skills", "six",
           (*((key, label) for key, (label, _) in STAT_PRESETS.items()), ("custom", "Custom"))),
    Option("stats", "Stats", preset_stats("six"),
           help="Each stat and its skills; mark the reaction skills (used mid-round, not declared), the skills that "
                "attack (melee, ranged, brawling) and the ones that defend (dodge, parry)."),
    Option("stat_dice", "Stat dice at creation", 18, help="Spent among the stats, a die split into pips as you like."),
    Option("skill_dice", "Skill dice at creation", 7, help="Spent raising skills above their stats."),
    Option("skill_cap", "Most dice a skill rises above its stat at creation", 2, help="0 to 10."),
    Option("stat_minimum", "Lowest stat at creation", "1d", help="A die code: 1d, 2d+1 …"),
    Option("stat_maximum", "Highest stat at creation", "5d", help="A die code: 4d, 5d …"),
    Option("starting_luck", "Luck points at the start", 1, help="One in the rule text; 0 to 10."),
    Option("initiative_stat", "Initiative stat", "Perception",
           help="The stat a character rolls for initiative in a fight; left empty, each character's highest."),
    Option("pip_cost", "Character points per pip", 1,
           help="Raising a skill one pip costs its whole dice times this (at least once): 3d+2 → 4d costs 3."),
)  # fmt: skip


def default_options() -> dict[str, Any]:
    return {option.key: copy.deepcopy(option.default) for option in OPTIONS}


def _whole(value: Any, low: int, high: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return None
    return value


def _clean_stats(stats: Any) -> list[dict[str, Any]]:
    """The stats, each with a name and its skills (each a name and whether it is a reaction skill);
    names unique across all stats and skills, case aside."""
    if not isinstance(stats, list) or not stats:
        raise ValueError("list at least one stat")
    if len(stats) > MAX_STATS:
        raise ValueError(f"at most {MAX_STATS} stats")
    out: list[dict[str, Any]] = []
    for stat in stats:
        if not isinstance(stat, Mapping):
            raise ValueError("each stat has a name and a list of skills")
        skills = stat.get("skills", [])
        if not isinstance(skills, list):
            raise ValueError("each stat has a list of skills")
        if len(skills) > MAX_SKILLS_PER_STAT:
            raise ValueError(f"at most {MAX_SKILLS_PER_STAT} skills for one stat")
        cleaned = []
        for skill in skills:
            if not isinstance(skill, Mapping):
                raise ValueError("each skill has a name and whether it is a reaction skill")
            reaction = skill.get("reaction", False)
            if not isinstance(reaction, bool):
                raise ValueError("whether a skill is a reaction skill is true or false")
            name = clean_name(skill.get("name"), "Each skill")
            combat = skill.get("combat", "")
            if not isinstance(combat, str) or combat not in COMBAT_ROLES:
                raise ValueError(f"{name}: a skill attacks ({', '.join(ATTACKS)}), defends ({', '.join(DEFENCES)}), "
                                 "or neither")  # fmt: skip
            if combat in ATTACKS and reaction:
                raise ValueError(f"{name} attacks, so it is declared with the round: it is not a reaction skill")
            cleaned.append({"name": name, "reaction": reaction or combat in DEFENCES, "combat": combat})
        out.append({"name": clean_name(stat.get("name"), "Each stat"), "skills": cleaned})
    marked = any(isinstance(k, Mapping) and "combat" in k for s in stats if isinstance(s, Mapping)
                 for k in (s.get("skills") or []) if isinstance(s.get("skills"), list))  # fmt: skip
    if not marked:  # a list from before roles were marked: the names give them
        for stat in out:
            for skill in stat["skills"]:
                role = NAMED_ROLES.get(skill["name"].casefold(), "")
                if role in ATTACKS and skill["reaction"]:
                    role = ""
                skill["combat"] = role
                skill["reaction"] = skill["reaction"] or role in DEFENCES
    names = [s["name"].casefold() for s in out] + [k["name"].casefold() for s in out for k in s["skills"]]
    if len(names) - len(out) > MAX_SKILLS:
        raise ValueError(f"at most {MAX_SKILLS} skills in all")
    repeated = next((name for i, name in enumerate(names) if name in names[:i]), None)
    if repeated is not None:
        raise ValueError(f"two stats or skills are called {repeated}")
    return out


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Campaign options with defaults filled in; :class:`OptionsError` names every bad one."""
    if not isinstance(options, Mapping):
        raise OptionsError({"options": "must be an object"})
    known = {option.key for option in OPTIONS}
    errors: dict[str, str] = {key: "is not an option of D6" for key in options if key not in known}
    out = default_options()
    preset = options.get("stat_preset")
    if "stats" not in options and isinstance(preset, str) and preset in STAT_PRESETS:
        out["stats"] = preset_stats(preset)
    out.update({key: value for key, value in options.items() if key in known})
    allowed = {*STAT_PRESETS, "custom"}
    if not isinstance(out["stat_preset"], str) or out["stat_preset"] not in allowed:
        errors["stat_preset"] = f"must be one of {', '.join(sorted(allowed))}"
    try:
        out["stats"] = _clean_stats(out["stats"])
    except ValueError as error:
        errors["stats"] = str(error)
    for key, low, high in (("stat_dice", 1, 200), ("skill_dice", 0, 200), ("skill_cap", 0, 10),
                           ("starting_luck", 0, 10), ("pip_cost", 1, 10)):  # fmt: skip
        if _whole(out[key], low, high) is None:
            errors[key] = f"must be a whole number from {low} to {high}"
    if not isinstance(out["initiative_stat"], str) or len(out["initiative_stat"]) > 60:
        errors["initiative_stat"] = "must be the name of one of the stats, or empty"
    elif "stats" not in errors and out["initiative_stat"].strip():
        names = {stat["name"].casefold(): stat["name"] for stat in out["stats"]}
        wanted = " ".join(out["initiative_stat"].split())
        if wanted.casefold() not in names and "initiative_stat" not in options:
            out["initiative_stat"] = ""  # the default names a stat this list lacks: each character's highest
        elif wanted.casefold() not in names:
            errors["initiative_stat"] = f"{wanted} is not one of the stats: name one of them, or leave it empty"
        else:
            out["initiative_stat"] = names[wanted.casefold()]
    else:
        out["initiative_stat"] = ""
    codes: dict[str, DieCode] = {}
    for key in ("stat_minimum", "stat_maximum"):
        try:
            codes[key] = DieCode.parse(out[key], field=key)
            out[key] = str(codes[key])
        except DieCodeError as error:
            errors[key] = error.message
    if len(codes) == 2 and codes["stat_minimum"] > codes["stat_maximum"]:
        errors["stat_maximum"] = f"must be at least the lowest stat, {codes['stat_minimum']}"
    # A rule across options is checked whenever the options it reads are right, whatever else is wrong.
    if not {"stats", "stat_dice", "stat_minimum", "stat_maximum"} & errors.keys():
        stats = len(out["stats"])
        pips = out["stat_dice"] * 3
        if codes["stat_minimum"].steps * stats > pips:
            errors["stat_dice"] = f"{out['stat_dice']}d cannot give {stats} stats {codes['stat_minimum']} each"
        elif codes["stat_maximum"].steps * stats < pips:
            errors["stat_dice"] = f"{out['stat_dice']}d is more than {stats} stats at {codes['stat_maximum']} can hold"
    if errors:
        raise OptionsError(errors)
    return out


def reaction_skills(options: Mapping[str, Any]) -> frozenset[str]:
    """The names of the campaign's reaction skills, case folded (validated options)."""
    return frozenset(s["name"].casefold() for stat in options["stats"] for s in stat["skills"] if s["reaction"])


def combat_roles(options: Mapping[str, Any]) -> dict[str, str]:
    """Each skill's role in a fight by its name, case folded (validated options): only the skills with one."""
    return {s["name"].casefold(): s["combat"] for stat in options["stats"] for s in stat["skills"] if s.get("combat")}


class SkillEntry(Document):
    name: Name
    reaction: bool = False
    combat: Literal["", "melee", "ranged", "brawling", "dodge", "parry"] = ""


class StatEntry(Document):
    name: Name
    skills: tuple[SkillEntry, ...] = Field(default=(), max_length=MAX_SKILLS_PER_STAT)


Code = Annotated[str, Field(pattern=r"^[0-9]{1,2}d(\+[12])?$")]


class Options(Document):
    """A D6 campaign's options, as :func:`validate_options` leaves them (its JSON Schema is the
    options' contract for the API and the command line)."""

    stat_preset: Literal["six", "custom"] = "six"
    stats: tuple[StatEntry, ...] = Field(
        default=tuple(StatEntry(**stat) for stat in preset_stats("six")), min_length=1, max_length=MAX_STATS
    )
    stat_dice: Annotated[int, Field(ge=1, le=200, strict=True)] = 18
    skill_dice: Annotated[int, Field(ge=0, le=200, strict=True)] = 7
    skill_cap: Annotated[int, Field(ge=0, le=10, strict=True)] = 2
    stat_minimum: Code = "1d"
    stat_maximum: Code = "5d"
    starting_luck: Annotated[int, Field(ge=0, le=10, strict=True)] = 1
    pip_cost: Annotated[int, Field(ge=1, le=10, strict=True)] = 1
    initiative_stat: Annotated[str, Field(max_length=60)] = "Perception"

    @model_validator(mode="after")
    def _checked(self) -> Options:
        validate_options(self.model_dump(mode="json"))
        return self


def read_options(options: Mapping[str, Any]) -> Options:
    """A campaign's options as the typed model; :class:`OptionsError` names every bad one."""
    return Options.model_validate(validate_options(options))
