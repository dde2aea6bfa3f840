"""A D6 campaign's options: its stats and their skills (reaction skills marked), the creation budgets
and limits, the luck points a character starts with, and what advancement costs.

The text gives no list of stats and no creation rules ("More on that later"); the rules README fixes
the readings: "by default 18d among six stats and 7d among skills, a skill at most +2d above its
stat at creation; campaign options", and advancement "raising a skill by one pip costs the number
of whole dice in its current code". The preset of six stats is the common D6 set, with skills a
table expects; the text's three reaction skills are marked ("Dodge, melee parry, and brawling parry
are reaction skills"), and the skills a fight uses are marked by their role, not their name: which attack
(melee, ranged, brawling) and which defend (dodge, parry), as Lucky 13 marks its Combat skill.

One model (:class:`Options`) says it all: its defaults, bounds, words and rules are what the options form,
the summary, the API's schema and :func:`validate_options` read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import Field, ValidationInfo, field_validator, model_validator

from rules.document import Document, Name
from rules.systems.base import OptionsError as OptionsError
from rules.systems.d6.codes import DieCode, DieCodeError
from rules.systems.defaults import read_options_with, validate_options_with

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
#: roles: an options document with no role marked anywhere gets them from these names (:meth:`Options._roles_by_name`),
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


#: What each role says, in the options form and the summary.
ROLE_WORDS: Final = (
    ("", "None"), ("melee", "Attacks in melee"), ("ranged", "Attacks at range"), ("brawling", "Attacks bare-handed"),
    ("dodge", "Defends: dodge"), ("parry", "Defends: parry"),
)  # fmt: skip
STAT_LISTS: Final = (*((key, label) for key, (label, _) in STAT_PRESETS.items()), ("custom", "Custom"))
NAME: Final = "D6 die codes"


class SkillEntry(Document):
    """A skill of a stat: its name, whether it is a reaction skill (used mid-round, not declared) and its role
    in a fight. A skill that defends is a reaction skill; one that attacks is declared, so never one."""

    name: Name = Field(title="Skill")
    reaction: Annotated[bool, Field(strict=True)] = Field(False, title="Reaction")
    combat: Literal["", "melee", "ranged", "brawling", "dodge", "parry"] = Field(
        "", title="In a fight", json_schema_extra={"labels": dict(ROLE_WORDS)}
    )

    @model_validator(mode="before")
    @classmethod
    def _a_defence_is_a_reaction(cls, data: Any) -> Any:
        if isinstance(data, Mapping) and data.get("combat") in DEFENCES:
            return {**data, "reaction": True}
        return data

    @model_validator(mode="after")
    def _an_attack_is_declared(self) -> SkillEntry:
        if self.combat in ATTACKS and self.reaction:
            raise ValueError(f"{self.name} attacks, so it is declared with the round: it is not a reaction skill")
        return self


class StatEntry(Document):
    """A stat and its skills."""

    name: Name = Field(title="Stat")
    skills: tuple[SkillEntry, ...] = Field(
        default=(), title="Its skills", max_length=MAX_SKILLS_PER_STAT, json_schema_extra={"noun": "skill"}
    )


def _code(value: Any, info: ValidationInfo) -> str:
    try:
        return str(DieCode.parse(value, field=info.field_name or "code"))
    except DieCodeError as error:
        raise ValueError(error.message) from None


Code = Annotated[str, Field(max_length=12)]
Whole = Annotated[int, Field(strict=True)]


class Options(Document):
    """A D6 campaign's options (see the module's docstring); its JSON Schema is the options' contract for the API
    and the command line."""

    stat_preset: Literal["six", "custom"] = Field(
        "six",
        title="Stats and skills",
        description="A preset fills the stats below; nothing is saved until you save the form.",
        json_schema_extra={"labels": dict(STAT_LISTS), "fills": "stats", "otherwise": "custom", "group": "Stats"},
    )
    stats: tuple[StatEntry, ...] = Field(
        default=tuple(StatEntry(**stat) for stat in preset_stats("six")),
        title="Stats",
        min_length=1,
        max_length=MAX_STATS,
        description="Each stat and its skills. Mark the reaction skills (used mid-round, not declared), the skills "
        "that attack (melee, ranged, brawling) and the ones that defend (dodge, parry: always reaction skills). A "
        "fight offers only the attack skills. Characters keep the stats and skills they were made with.",
        json_schema_extra={"noun": "stat", "group": "Stats"},
    )
    stat_minimum: Code = Field(
        "1d", title="Lowest stat at creation", description="A die code: 1d, 2d+1 …",
        json_schema_extra={"group": "Character creation"},
    )  # fmt: skip
    stat_maximum: Code = Field(
        "5d", title="Highest stat at creation", description="A die code: 4d, 5d …",
        json_schema_extra={"group": "Character creation"},
    )  # fmt: skip
    stat_dice: Annotated[Whole, Field(ge=1, le=200)] = Field(
        18, title="Stat dice at creation", description="Spent among the stats, a die split into pips as you like.",
        json_schema_extra={"group": "Character creation"},
    )  # fmt: skip
    skill_dice: Annotated[Whole, Field(ge=0, le=200)] = Field(
        7, title="Skill dice at creation", description="Spent raising skills above their stats.",
        json_schema_extra={"group": "Character creation"},
    )  # fmt: skip
    skill_cap: Annotated[Whole, Field(ge=0, le=10)] = Field(
        2, title="Most dice a skill rises above its stat at creation", description="0 to 10.",
        json_schema_extra={"group": "Character creation"},
    )  # fmt: skip
    starting_luck: Annotated[Whole, Field(ge=0, le=10)] = Field(
        1, title="Luck points at the start", description="One in the rule text; 0 to 10.",
        json_schema_extra={"group": "Character creation"},
    )  # fmt: skip
    initiative_stat: Annotated[str, Field(max_length=60)] = Field(
        "Perception", title="Initiative stat",
        description="The stat a character rolls for initiative in a fight; left empty, each character's highest.",
        json_schema_extra={"group": "Fights"},
    )  # fmt: skip
    pip_cost: Annotated[Whole, Field(ge=1, le=10)] = Field(
        1, title="Character points per pip",
        description="Raising a skill one pip costs its whole dice times this (at least once): 3d+2 → 4d costs 3.",
        json_schema_extra={"group": "Advancement"},
    )  # fmt: skip

    @model_validator(mode="before")
    @classmethod
    def _preset_and_initiative(cls, data: Any) -> Any:
        """A preset named without a list of stats brings its own; the default initiative stat, when the stats
        lack it, gives way to each character's highest."""
        if not isinstance(data, Mapping):
            return data
        if "stats" not in data and isinstance(data.get("stat_preset"), str) and data["stat_preset"] in STAT_PRESETS:
            data = {**data, "stats": preset_stats(data["stat_preset"])}
        stats = data.get("stats")
        if "initiative_stat" not in data and isinstance(stats, list | tuple):
            names = {" ".join(str(s.get("name", "")).split()).casefold() for s in stats if isinstance(s, Mapping)}
            if "perception" not in names:
                data = {**data, "initiative_stat": ""}
        return data

    @field_validator("stats", mode="before")
    @classmethod
    def _roles_by_name(cls, stats: Any) -> Any:
        """A list from before roles were marked (no skill says its role) gets them from the skills' names, so
        every stored campaign fights as it always did (an attack by name stays no role if marked reaction)."""
        if not isinstance(stats, list | tuple) or not all(isinstance(s, Mapping) for s in stats):
            return stats
        lists = [s.get("skills") or [] for s in stats]
        rows = all(isinstance(skills, list | tuple) and all(isinstance(k, Mapping) for k in skills) for skills in lists)
        if not rows:
            return stats
        if any("combat" in k for skills in lists for k in skills):
            return stats
        out = []
        for stat, skills in zip(stats, lists, strict=True):
            marked = []
            for skill in skills:
                role = NAMED_ROLES.get(" ".join(str(skill.get("name", "")).split()).casefold(), "")
                if role in ATTACKS and skill.get("reaction") is True:
                    role = ""
                marked.append({**skill, "combat": role})
            out.append({**stat, "skills": marked})
        return out

    @field_validator("stats")
    @classmethod
    def _each_name_once(cls, stats: tuple[StatEntry, ...]) -> tuple[StatEntry, ...]:
        skills = [skill.name for stat in stats for skill in stat.skills]
        if len(skills) > MAX_SKILLS:
            raise ValueError(f"at most {MAX_SKILLS} skills in all")
        names = [stat.name for stat in stats] + skills
        folded = [name.casefold() for name in names]
        repeated = next((names[i] for i, name in enumerate(folded) if name in folded[:i]), None)
        if repeated is not None:
            raise ValueError(f"two stats or skills are called {repeated}")
        return stats

    @field_validator("stat_minimum", "stat_maximum")
    @classmethod
    def _a_code(cls, value: str, info: ValidationInfo) -> str:
        code = _code(value, info)
        low = info.data.get("stat_minimum")
        if info.field_name == "stat_maximum" and low is not None and DieCode.parse(low) > DieCode.parse(code):
            raise ValueError(f"must be at least the lowest stat, {low}")
        return code

    @field_validator("stat_dice")
    @classmethod
    def _the_stats_hold_the_dice(cls, dice: int, info: ValidationInfo) -> int:
        """A rule across options, checked whenever the options it reads are right, whatever else is wrong."""
        stats, low, high = (info.data.get(key) for key in ("stats", "stat_minimum", "stat_maximum"))
        if stats is None or low is None or high is None:
            return dice
        if DieCode.parse(low).steps * len(stats) > dice * 3:
            raise ValueError(f"{dice}d cannot give {len(stats)} stats {low} each")
        if DieCode.parse(high).steps * len(stats) < dice * 3:
            raise ValueError(f"{dice}d is more than {len(stats)} stats at {high} can hold")
        return dice

    @field_validator("initiative_stat")
    @classmethod
    def _one_of_the_stats(cls, wanted: str, info: ValidationInfo) -> str:
        wanted = " ".join(wanted.split())
        stats = info.data.get("stats")
        if not wanted or stats is None:
            return wanted
        names = {stat.name.casefold(): stat.name for stat in stats}
        if wanted.casefold() not in names:
            raise ValueError(f"{wanted} is not one of the stats: name one of them, or leave it empty")
        return names[wanted.casefold()]


def default_options() -> dict[str, Any]:
    return Options().model_dump(mode="json")


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Campaign options with defaults filled in, as :class:`Options` reads them; :class:`OptionsError` names
    every bad one, by its option and at its path."""
    return validate_options_with(Options, options, system=NAME)


def read_options(options: Mapping[str, Any]) -> Options:
    """A campaign's options as the typed model; :class:`OptionsError` names every bad one."""
    return read_options_with(Options, options, system=NAME)


def reaction_skills(options: Mapping[str, Any]) -> frozenset[str]:
    """The names of the campaign's reaction skills, case folded (validated options)."""
    return frozenset(s["name"].casefold() for stat in options["stats"] for s in stat["skills"] if s["reaction"])


def combat_roles(options: Mapping[str, Any]) -> dict[str, str]:
    """Each skill's role in a fight by its name, case folded (validated options): only the skills with one."""
    return {s["name"].casefold(): s["combat"] for stat in options["stats"] for s in stat["skills"] if s.get("combat")}
