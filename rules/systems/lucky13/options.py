"""A Lucky 13 campaign's options, in one model (:class:`Options`): play style, ability names, the skill
list (with the skill that fights marked), hit points per Pulse step, the creation methods, gear in
play, healing by resting and recovery from dying ("Abilities", "Skills", "Combat", "Cinematic",
"Gritty", "Healing", "Death & dying"), and the campaign's own tables of backgrounds and impairments
("Backgrounds", "Impairments"). Its defaults, bounds, words and rules are the options' only statement:
the options form, the summary, the API's schema and :func:`validate_options` are all read from it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from rules.document import Document, Name, ShortText
from rules.systems.base import OptionsError as OptionsError
from rules.systems.defaults import read_options_with, validate_options_with
from rules.systems.lucky13.checks import Explosion
from rules.systems.lucky13.identity import NAME
from rules.systems.lucky13.sheet import AbilityKey, Die
from rules.systems.lucky13.vocabulary import ABILITIES, ABILITY_KEYS, MAX_SKILLS, MAX_TABLE_ENTRIES, TABLE_OPTIONS

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
#: without the mark gets it from them (:meth:`Options._legacy_combat_mark`), so no stored campaign changes.
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
EXPLOSIONS: Final = (
    (Explosion.CINEMATIC.value, "Cinematic: every die explodes, again and again"),
    (Explosion.GRITTY.value, "Gritty: only Ability dice explode, once"),
)
GEAR: Final = (
    ("approval", "Players propose weapons, armor and assets above level 1; the GM approves"),
    ("free", "Players add them freely"),
)
SKILL_LISTS: Final = (*((key, label) for key, (label, _) in SKILL_PRESETS.items()), ("custom", "Custom"))


def _said(choices: tuple[tuple[str, str], ...], **extra: Any) -> dict[str, Any]:
    """The schema's words for a choice's values (the form and the summary show them), and ``extra``."""
    return {"labels": dict(choices), **extra}


class SkillEntry(Document):
    """A skill of the campaign's list, the ability it is linked to (``None``: chosen at each roll) and
    whether it is the skill that fights (the Combat skill, whatever its name; at most one is)."""

    name: Name = Field(title="Skill")
    #: Said in the campaign's ability names (``labels_from``: the option ``ability_names``, in the order of
    #: ``ABILITY_KEYS``, which is :data:`AbilityKey`'s), the default names where none is given.
    ability: AbilityKey | None = Field(
        None,
        title="Linked ability",
        json_schema_extra=_said(tuple(zip(ABILITY_KEYS, ABILITIES, strict=True)), labels_from="ability_names"),
    )
    combat: Annotated[bool, Field(strict=True)] = Field(False, title="Fights")

    @field_validator("ability", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return value or None


class TableEntry(Document):
    """An entry of the campaign's table of backgrounds or of impairments: its name and a short
    description (which a trait rolled or chosen from the table takes with it)."""

    name: Name = Field(title="Name")
    description: ShortText = Field("", title="Description")

    @field_validator("description", mode="before")
    @classmethod
    def _none_is_empty(cls, value: Any) -> Any:
        return "" if value is None else value


def _table(kind: str) -> Any:
    return Field(
        (),
        title=f"{kind.capitalize()} table",
        max_length=MAX_TABLE_ENTRIES,
        description=f"{kind.capitalize()}s players may roll for or choose from at creation; at most "
        f"{MAX_TABLE_ENTRIES}. Leave it empty for no table.",
        json_schema_extra={"group": f"The campaign's {kind}s", "noun": kind},
    )


class Options(Document):
    """A Lucky 13 campaign's options (see the module's docstring); its JSON Schema is the options' contract
    for the API and the command line."""

    explosion: Literal["cinematic", "gritty"] = Field(
        "cinematic", title="Play style", json_schema_extra=_said(EXPLOSIONS, group="Play")
    )
    ability_names: tuple[Name, Name, Name, Name, Name] = Field(
        ABILITIES,
        title="Ability names",
        description="Rename the five abilities to suit your game; characters keep their dice whatever the names.",
        json_schema_extra={"each": [f"{name} is called" for name in ABILITIES], "group": "Play"},
    )
    skill_preset: Literal["fantasy", "post_apocalyptic", "sci_fi", "custom"] = Field(
        "fantasy",
        title="Skill list",
        description="A preset fills the skill list below; nothing is saved until you save the form.",
        json_schema_extra=_said(SKILL_LISTS, fills="skills", otherwise="custom", group="Skills"),
    )
    skills: tuple[SkillEntry, ...] = Field(
        default=tuple(SkillEntry(**skill) for skill in preset_skills("fantasy")),
        title="Skills",
        min_length=1,
        max_length=MAX_SKILLS,
        description="Add a skill in a blank row, rename one by editing its name, tick Remove to drop it. A linked "
        "ability is optional. Tick Fights on the skill that fights (the Combat skill, whatever its name): an "
        "encounter rolls it with Reflex in every attack; at most one skill fights. A skill that characters have "
        "can be renamed, not removed.",
        json_schema_extra={"renames": True, "ordered": True, "noun": "skill", "group": "Skills"},
    )
    hit_points_per_step: Annotated[int, Field(ge=1, le=100, strict=True)] = Field(
        10,
        title="Hit points per Pulse step",
        description="10 in the rule text; 1 to 100.",
        json_schema_extra={"group": "Character creation"},
    )
    ability_methods: Literal["either", "random", "array"] = Field(
        "either", title="Ability methods", json_schema_extra=_said(ABILITY_METHODS, group="Character creation")
    )
    skill_method: Literal["ability", "array", "random", "point_buy"] = Field(
        "ability", title="Skill method", json_schema_extra=_said(SKILL_METHODS, group="Character creation")
    )
    skill_array: tuple[Die, ...] = Field(
        default=("d4", "d6", "d6", "d8", "d10"),
        title="Skill array",
        min_length=1,
        max_length=MAX_SKILLS,
        description="With the array method: the dice players assign to skills, one each (d4 … d12).",
        json_schema_extra={"group": "Character creation"},
    )
    skill_points: Annotated[int, Field(ge=1, le=5 * MAX_SKILLS, strict=True)] = Field(
        15,
        title="Skill point budget",
        description="With point buy: d4 costs 1, d6 2, d8 3, d10 4, d12 5.",
        json_schema_extra={"group": "Character creation"},
    )
    starting_specializations: Annotated[int, Field(ge=0, le=10, strict=True)] = Field(
        3,
        title="Starting specializations",
        description="0 to 10; one more for an impairment.",
        json_schema_extra={"group": "Character creation"},
    )
    gear: Literal["approval", "free"] = Field(
        "approval", title="Gear and assets in play", json_schema_extra=_said(GEAR, group="Gear and assets in play")
    )
    resting: Literal["off", "quarter_hours"] = Field(
        "off",
        title="Resting",
        description="Healing: the text quotes Top Secret NWO's rule for reference.",
        json_schema_extra=_said(RESTING, group="Healing and recovery"),
    )
    recovery: Literal["cinematic", "gritty"] = Field(
        "cinematic",
        title="Recovery from dying",
        description="Death & dying: what a character healed from dying can do.",
        json_schema_extra=_said(RECOVERY, group="Healing and recovery"),
    )
    # "Backgrounds": "players may roll for or choose from during character creation"; "Impairments":
    # "either rolled for or selected". The engine text gives no table: a campaign may keep its own.
    background_table: tuple[TableEntry, ...] = _table("background")
    impairment_table: tuple[TableEntry, ...] = _table("impairment")

    @model_validator(mode="before")
    @classmethod
    def _preset_fills_the_list(cls, data: Any) -> Any:
        """A preset named without a list of skills brings its own list."""
        preset = data.get("skill_preset") if isinstance(data, Mapping) else None
        if isinstance(data, Mapping) and "skills" not in data and isinstance(preset, str) and preset in SKILL_PRESETS:
            return {**data, "skills": preset_skills(preset)}
        return data

    @field_validator("ability_names")
    @classmethod
    def _different_names(cls, names: tuple[str, ...]) -> tuple[str, ...]:
        if len({name.casefold() for name in names}) != len(names):
            raise ValueError("the five abilities need different names")
        return names

    @field_validator("skills", mode="before")
    @classmethod
    def _legacy_combat_mark(cls, skills: Any) -> Any:
        """A list where no skill says whether it fights was stored before the list marked the Combat skill:
        the first skill named as the Combat skill used to be found by its name (:data:`LEGACY_COMBAT_NAMES`)
        fights, so an older campaign fights as it always did."""
        if not isinstance(skills, list | tuple) or not all(isinstance(skill, Mapping) for skill in skills):
            return skills
        if any("combat" in skill for skill in skills):
            return skills
        names = [" ".join(str(skill.get("name", "")).split()).casefold() for skill in skills]
        first = next((i for i, name in enumerate(names) if name in LEGACY_COMBAT_NAMES), None)
        return [{**skill, "combat": i == first} for i, skill in enumerate(skills)]

    @field_validator("skills")
    @classmethod
    def _one_list(cls, skills: tuple[SkillEntry, ...]) -> tuple[SkillEntry, ...]:
        names = [skill.name.casefold() for skill in skills]
        repeated = next((skills[i].name for i, name in enumerate(names) if name in names[:i]), None)
        if repeated is not None:
            raise ValueError(f"two skills are called {repeated}: each skill once")
        if sum(skill.combat for skill in skills) > 1:
            raise ValueError("mark at most one skill as the one that fights")
        return skills

    @field_validator("skill_array", mode="before")
    @classmethod
    def _dice_as_typed(cls, dice: Any) -> Any:
        if isinstance(dice, list | tuple):
            return [die.strip().lower() if isinstance(die, str) else die for die in dice]
        return dice

    @field_validator("skill_array")
    @classmethod
    def _a_die_for_each_skill(cls, dice: tuple[str, ...], info: ValidationInfo) -> tuple[str, ...]:
        """A rule across options, checked whenever the options it reads are right, whatever else is wrong."""
        skills, method = info.data.get("skills"), info.data.get("skill_method")
        if skills is not None and method == "array" and len(dice) < len(skills):
            raise ValueError(f"needs a die for each of the {len(skills)} skills")
        return dice

    @field_validator("background_table", "impairment_table")
    @classmethod
    def _each_entry_once(cls, entries: tuple[TableEntry, ...], info: ValidationInfo) -> tuple[TableEntry, ...]:
        kind = next(kind for kind, key in TABLE_OPTIONS.items() if key == info.field_name)
        names = [entry.name.casefold() for entry in entries]
        repeated = next((entries[i].name for i, name in enumerate(names) if name in names[:i]), None)
        if repeated is not None:
            raise ValueError(f"the table lists {repeated} twice: each {kind} once")
        return entries


def default_options() -> dict[str, Any]:
    return Options().model_dump(mode="json")


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Campaign options with defaults filled in, as :class:`Options` reads them; :class:`OptionsError` names
    every bad one, by its option and at its path."""
    return validate_options_with(Options, options, system=NAME)


def read_options(options: Mapping[str, Any]) -> Options:
    """A campaign's options as the typed model; :class:`OptionsError` names every bad one."""
    return read_options_with(Options, options, system=NAME)


def combat_skill_name(options: Mapping[str, Any]) -> str | None:
    """The name of the campaign's skill that fights (validated options), or None if no skill does."""
    return next((s["name"] for s in options["skills"] if s.get("combat")), None)
