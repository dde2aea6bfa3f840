"""A Lucky 13 campaign's options: play style, ability names, the skill list (with the skill that
fights marked), hit points per Pulse step, the creation methods, gear in play, healing by resting
and recovery from dying ("Abilities", "Skills", "Combat", "Cinematic", "Gritty", "Healing",
"Death & dying"), and the campaign's own tables of backgrounds and impairments ("Backgrounds",
"Impairments")."""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import Field, model_validator

from rules.dice import DiceError, StepDie
from rules.document import MAX_SHORT_TEXT, Document, Name, ShortText
from rules.reading import clean_name
from rules.systems.base import Option, OptionsError
from rules.systems.lucky13.checks import Explosion
from rules.systems.lucky13.sheet import AbilityKey, Die
from rules.systems.lucky13.vocabulary import (
    ABILITIES,
    ABILITY_KEYS,
    MAX_ABILITY,
    MAX_SKILLS,
    MAX_TABLE_ENTRIES,
    TABLE_OPTIONS,
)

#: "Skills example" presets. The rule text links no skill to an ability; these links are our
#: reading of what each skill leans on (recorded in the closing note); a GM can change them.
SKILL_PRESETS: Final = {
    "fantasy": (
        "Fantasy",
        (("Spellcasting", "intellect"), ("Scholarship", "intellect"), ("Healing", "will"), ("Sneaking", "reflex"),
         ("Fighting", "reflex")),
    ),
    "post_apocalyptic": (
        "Post-Apocalyptic",
        (("History", "intellect"), ("Communication", "charm"), ("Technology", "intellect"), ("Weaponry", "reflex")),
    ),
    "sci_fi": (
        "Sci-fi",
        (("Technology", "intellect"), ("Astrogation", "intellect"), ("Mysticism", "will"), ("Mechanics", "intellect"),
         ("Diplomacy", "charm"), ("Combat", "reflex")),
    ),
}  # fmt: skip

#: The skill of each preset that fights ("Combat": "you will need a skill that can be used whenever
#: combat occurs, whatever you name that skill"; rules README, "The Combat skill is a role").
PRESET_COMBAT_SKILLS: Final = {"fantasy": "Fighting", "post_apocalyptic": "Weaponry", "sci_fi": "Combat"}

#: The names that made a skill the Combat skill before the skill list marked it: an options document
#: without the mark gets it from them (:func:`validate_options`), so no stored campaign changes.
LEGACY_COMBAT_NAMES: Final = ("combat", "fighting", "weaponry")


def preset_skills(key: str) -> list[dict[str, Any]]:
    """A preset's skill list as the options hold it: each skill, its linked ability and whether it
    is the one that fights."""
    return [
        {"name": name, "ability": ability, "combat": name == PRESET_COMBAT_SKILLS[key]}
        for name, ability in SKILL_PRESETS[key][1]
    ]


ABILITY_METHODS: Final = (("either", "Random or array, as each player likes"), ("random", "Random"), ("array", "Array"))
SKILL_METHODS: Final = (
    ("ability", "Equal to the linked ability"),
    ("array", "Array"),
    ("random", "Random"),
    ("point_buy", "Point buy"),
)

#: "Healing": the optional rest of Top Secret NWO, or none (the GM and first aid heal).
RESTING: Final = (
    ("off", "No healing by resting: the GM heals (first aid, treatment)"),
    ("quarter_hours", "Rest heals 1 hit point per 15 minutes, at most 4 from resting alone"),
)
#: "Death & dying": cinematic, back at full strength once healed; gritty, rest and recuperation first.
RECOVERY: Final = (
    ("cinematic", "Cinematic: healed from dying, a character fights on with no penalty"),
    ("gritty", "Gritty: healed from dying, a character's Ability die is one step down until the GM says recovered"),
)


OPTIONS: Final = (
    Option("explosion", "Play style", Explosion.CINEMATIC.value,
           ((Explosion.CINEMATIC.value, "Cinematic: every die explodes, again and again"),
            (Explosion.GRITTY.value, "Gritty: only Ability dice explode, once"))),
    Option("ability_names", "Ability names", list(ABILITIES), help="Rename the five abilities to suit your game."),
    Option("skill_preset", "Skill list", "fantasy",
           (*((key, label) for key, (label, _) in SKILL_PRESETS.items()), ("custom", "Custom"))),
    Option("skills", "Skills", preset_skills("fantasy"),
           help="Mark the skill that fights: an encounter rolls it as the Combat skill, whatever its name."),
    Option("hit_points_per_step", "Hit points per Pulse step", 10, help="10 in the rule text; 1 to 100."),
    Option("ability_methods", "Ability methods", "either", ABILITY_METHODS),
    Option("skill_method", "Skill method", "ability", SKILL_METHODS),
    Option("skill_array", "Skill array", ["d4", "d6", "d6", "d8", "d10"],
           help="With the array method: the dice players assign to skills, one each."),
    Option("skill_points", "Skill point budget", 15,
           help="With point buy: d4 costs 1, d6 2, d8 3, d10 4, d12 5."),
    Option("starting_specializations", "Starting specializations", 3, help="0 to 10; one more for an impairment."),
    Option("gear", "Gear and assets in play", "approval",
           (("approval", "Players propose weapons, armor and assets above level 1; the GM approves"),
            ("free", "Players add them freely"))),
    Option("resting", "Resting", "off", RESTING,
           help="Healing: the text quotes Top Secret NWO's rule for reference."),
    Option("recovery", "Recovery from dying", "cinematic", RECOVERY,
           help="Death & dying: what a character healed from dying can do."),
    # "Backgrounds": "players may roll for or choose from during character creation"; "Impairments":
    # "either rolled for or selected". The engine text gives no table: a campaign may keep its own.
    Option("background_table", "Background table", [],
           help=f"Backgrounds players may roll for or choose from at creation; at most {MAX_TABLE_ENTRIES}. "
                "Leave it empty for no table."),
    Option("impairment_table", "Impairment table", [],
           help=f"Impairments players may roll for or choose from at creation; at most {MAX_TABLE_ENTRIES}. "
                "Leave it empty for no table."),
)  # fmt: skip


def default_options() -> dict[str, Any]:
    return {option.key: copy.deepcopy(option.default) for option in OPTIONS}


def _whole(value: Any, low: int, high: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return None
    return value


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Campaign options with defaults filled in; :class:`OptionsError` names every bad one.

    Each skill of the list says whether it is the skill that fights (``combat``; at most one is: rules
    README, "The Combat skill is a role"). A list in which no skill says so was stored before the list
    marked it: the skill named as the Combat skill used to be found by (:data:`LEGACY_COMBAT_NAMES`)
    gets the mark, so every stored campaign fights with the skill it always did (:func:`_clean_skills`)."""
    if not isinstance(options, Mapping):
        raise OptionsError({"options": "must be an object"})
    known = {option.key for option in OPTIONS}
    errors: dict[str, str] = {key: "is not an option of Lucky 13" for key in options if key not in known}
    out = default_options()
    preset = options.get("skill_preset")
    if "skills" not in options and isinstance(preset, str) and preset in SKILL_PRESETS:
        out["skills"] = preset_skills(preset)
    out.update({key: value for key, value in options.items() if key in known})
    choices = {option.key: {c for c, _ in option.choices} for option in OPTIONS if option.choices}
    for key, allowed in choices.items():
        if not isinstance(out[key], str) or out[key] not in allowed:  # a list or an object is no choice
            errors[key] = f"must be one of {', '.join(sorted(allowed))}"
    names = out["ability_names"]
    try:
        if not isinstance(names, list | tuple) or len(names) != len(ABILITY_KEYS):
            raise ValueError("five ability names are needed")
        out["ability_names"] = [clean_name(name, "Each ability") for name in names]
        if len({n.lower() for n in out["ability_names"]}) != len(ABILITY_KEYS):
            raise ValueError("the five abilities need different names")
    except ValueError as error:
        errors["ability_names"] = str(error)
    try:
        out["skills"] = _clean_skills(out["skills"])
    except ValueError as error:
        errors["skills"] = str(error)
    if _whole(out["hit_points_per_step"], 1, 100) is None:
        errors["hit_points_per_step"] = "must be a whole number from 1 to 100"
    if _whole(out["starting_specializations"], 0, 10) is None:
        errors["starting_specializations"] = "must be a whole number from 0 to 10"
    if _whole(out["skill_points"], 1, 5 * MAX_SKILLS) is None:
        errors["skill_points"] = f"must be a whole number from 1 to {5 * MAX_SKILLS}"
    try:
        array = [StepDie.parse(label) for label in out["skill_array"]]
        if not array or any(not StepDie.of(4) <= d <= MAX_ABILITY for d in array):
            raise DiceError("list the dice, each d4 … d12")
        out["skill_array"] = [d.label for d in array]
    except (DiceError, TypeError) as error:
        errors["skill_array"] = str(error)
    for kind, key in TABLE_OPTIONS.items():
        try:
            out[key] = clean_table(out[key], kind)
        except ValueError as error:
            errors[key] = str(error)
    # A rule across options is checked whenever the options it reads are right, whatever else is wrong.
    read = {"skill_method", "skill_array", "skills"}
    if not read & errors.keys() and out["skill_method"] == "array" and len(out["skill_array"]) < len(out["skills"]):
        errors["skill_array"] = f"needs a die for each of the {len(out['skills'])} skills"
    if errors:
        raise OptionsError(errors)
    return out


def _clean_skills(skills: Any) -> list[dict[str, Any]]:
    """The skill list, each skill with its name, its linked ability and whether it fights (``combat``:
    at most one does). A list where no skill says whether it fights was stored before the list marked
    the Combat skill: the first skill named as the Combat skill used to be found by its name
    (:data:`LEGACY_COMBAT_NAMES`) fights, so an older campaign fights as it always did."""
    if not isinstance(skills, list) or not skills:
        raise ValueError("list at least one skill")
    if len(skills) > MAX_SKILLS:
        raise ValueError(f"at most {MAX_SKILLS} skills")
    out: list[dict[str, Any]] = []
    for skill in skills:
        if not isinstance(skill, Mapping):
            raise ValueError("each skill has a name and, if it has one, a linked ability")
        ability = skill.get("ability") or None
        if ability is not None and ability not in ABILITY_KEYS:
            raise ValueError(f"{ability!r} is not an ability ({', '.join(ABILITY_KEYS)})")
        combat = skill.get("combat", False)
        if not isinstance(combat, bool):
            raise ValueError("whether a skill fights is true or false")
        out.append({"name": clean_name(skill.get("name"), "Each skill"), "ability": ability, "combat": combat})
    if len({s["name"].lower() for s in out}) != len(out):
        raise ValueError("two skills have the same name")
    if sum(s["combat"] for s in out) > 1:
        raise ValueError("mark at most one skill as the one that fights")
    if not any(isinstance(skill, Mapping) and "combat" in skill for skill in skills):
        legacy = next((s for s in out if s["name"].lower() in LEGACY_COMBAT_NAMES), None)
        if legacy is not None:
            legacy["combat"] = True
    return out


def _no_control(text: str, allowed: str = "") -> bool:
    return not any((ord(c) < 32 or 127 <= ord(c) < 160) and c not in allowed for c in text)


def clean_table(entries: Any, kind: str) -> list[dict[str, str]]:
    """A campaign's table of backgrounds or impairments (``kind``): each entry a name (unique in the
    table, case aside) and a short description, which may be empty; at most
    :data:`MAX_TABLE_ENTRIES`. An empty table is no table: players choose or invent, as without one.

    "Backgrounds": "we provide 20 backgrounds that players may roll for or choose from"; the engine
    text gives none, so the table is the campaign's own (our reading, in ``docs/rules/lucky13.md``)."""
    if not isinstance(entries, list | tuple):
        raise ValueError(f"list the {kind}s of the table, each with a name and, if you like, a description")
    if len(entries) > MAX_TABLE_ENTRIES:
        raise ValueError(f"a table holds at most {MAX_TABLE_ENTRIES} {kind}s; this one has {len(entries)}")
    out = []
    for entry in entries:
        if not isinstance(entry, Mapping):
            raise ValueError(f"each {kind} of the table has a name and, if you like, a description")
        unknown = sorted(str(key) for key in entry if key not in ("name", "description"))
        if unknown:
            raise ValueError(f"an entry of the table has a name and a description, nothing else ({unknown[0][:24]})")
        name = clean_name(entry.get("name"), f"Each {kind} of the table")
        if not _no_control(name):
            raise ValueError(f"{name[:24]}: keep the name on one line, without control characters")
        description = entry.get("description") or ""
        if not isinstance(description, str):
            raise ValueError(f"{name}: a description is text")
        description = " ".join(description.split())
        if len(description) > MAX_SHORT_TEXT:
            raise ValueError(f"{name}: keep the description under {MAX_SHORT_TEXT} characters")
        if not _no_control(description):
            raise ValueError(f"{name}: remove the control characters from the description")
        out.append({"name": name, "description": description})
    seen: set[str] = set()
    for entry in out:
        if entry["name"].casefold() in seen:
            raise ValueError(f"the table lists {entry['name']} twice: each {kind} once")
        seen.add(entry["name"].casefold())
    return out


def combat_skill_name(options: Mapping[str, Any]) -> str | None:
    """The name of the campaign's skill that fights (validated options), or None if no skill does."""
    return next((s["name"] for s in options["skills"] if s.get("combat")), None)


class SkillEntry(Document):
    """A skill of the campaign's list, the ability it is linked to (``None``: chosen at each roll) and
    whether it is the skill that fights (the Combat skill, whatever its name; at most one is)."""

    name: Name
    ability: AbilityKey | None = None
    combat: bool = False


class TableEntry(Document):
    """An entry of the campaign's table of backgrounds or of impairments: its name and a short
    description (which a trait rolled or chosen from the table takes with it)."""

    name: Name
    description: ShortText = ""


Table = Annotated[tuple[TableEntry, ...], Field(max_length=MAX_TABLE_ENTRIES)]


class Options(Document):
    """A Lucky 13 campaign's options, as :func:`validate_options` leaves them (its JSON Schema is the
    options' contract for the API and the command line)."""

    explosion: Literal["cinematic", "gritty"] = "cinematic"
    ability_names: tuple[Name, Name, Name, Name, Name] = ABILITIES
    skill_preset: Literal["fantasy", "post_apocalyptic", "sci_fi", "custom"] = "fantasy"
    skills: tuple[SkillEntry, ...] = Field(
        default=tuple(SkillEntry(**skill) for skill in preset_skills("fantasy")),
        min_length=1,
        max_length=MAX_SKILLS,
    )
    hit_points_per_step: Annotated[int, Field(ge=1, le=100, strict=True)] = 10
    ability_methods: Literal["either", "random", "array"] = "either"
    skill_method: Literal["ability", "array", "random", "point_buy"] = "ability"
    skill_array: tuple[Die, ...] = Field(default=("d4", "d6", "d6", "d8", "d10"), min_length=1)
    skill_points: Annotated[int, Field(ge=1, le=5 * MAX_SKILLS, strict=True)] = 15
    starting_specializations: Annotated[int, Field(ge=0, le=10, strict=True)] = 3
    gear: Literal["approval", "free"] = "approval"
    resting: Literal["off", "quarter_hours"] = "off"
    recovery: Literal["cinematic", "gritty"] = "cinematic"
    background_table: Table = ()
    impairment_table: Table = ()

    @model_validator(mode="after")
    def _one_combat_skill(self) -> Options:
        if sum(skill.combat for skill in self.skills) > 1:
            raise ValueError("mark at most one skill as the one that fights")
        return self

    @model_validator(mode="after")
    def _unique_table_entries(self) -> Options:
        for kind, key in TABLE_OPTIONS.items():
            names = [entry.name.casefold() for entry in getattr(self, key)]
            if len(set(names)) != len(names):
                raise ValueError(f"the {kind} table lists a name twice: each {kind} once")
        return self


def read_options(options: Mapping[str, Any]) -> Options:
    """A campaign's options as the typed model; :class:`OptionsError` names every bad one."""
    return Options.model_validate(validate_options(options))
