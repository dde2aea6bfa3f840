"""The Lucky 13 character sheet as one document: abilities, skills with their specializations,
backgrounds and impairments, equipment and assets, hit points, reputation, notes, and how far
creation has come.

Every list item carries a stable id (ARCHITECTURE.md, "References"): an asset names the skills
it helps by id, a skill keeps the d100 the server rolled for it at creation, and renaming a
skill changes neither. A draft may leave dice empty; :func:`incomplete` says what a finished
character still lacks. Limits the rule text sets (dice d4 … d12, levels 1 … 5, reputation −5 …
+5) are checked here, whatever the edge the document came through.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Final, Literal

from pydantic import Field, model_validator

from rules.dice import StepDie
from rules.document import Document, ItemId, LongText, Name, ShortText, fresh_id, require_unique
from rules.systems.lucky13.health import MAX_REST_HEALING
from rules.systems.lucky13.vocabulary import ABILITY_KEYS, MAX_SPECIALIZATION_LEVEL, MAX_TABLE_ENTRIES

#: The version of the document this code writes; older documents go through :func:`migrate`.
SCHEMA_VERSION: Final = 1

MAX_DESCRIPTION: Final = 2000
MAX_NOTES: Final = 20_000
#: More rows of one kind than any sheet needs, and a bound on what an import may hold.
MAX_ITEMS: Final = 50
#: The most rolls on the campaign's tables a draft keeps (each roll adds a trait; far past any sheet).
MAX_TABLE_ROLLS: Final = 100

#: A die of the sheet: abilities, skills, weapons and armor use d4 … d12.
Die = Literal["d4", "d6", "d8", "d10", "d12"]
AbilityKey = Literal["will", "charm", "pulse", "intellect", "reflex"]
Description = Annotated[LongText, Field(max_length=MAX_DESCRIPTION)]
Level = Annotated[int, Field(ge=1, le=MAX_SPECIALIZATION_LEVEL, strict=True)]
Percentile = Annotated[int, Field(ge=1, le=100, strict=True)]


def die(label: str | None) -> StepDie | None:
    """A sheet's die label as the engine's die (``None`` stays ``None``)."""
    return None if label is None else StepDie.parse(label)


class Specialization(Document):
    """ "Specializations": a narrower skill; each level steps the skill die up once."""

    id: ItemId
    name: Name
    level: Level = 1


class Skill(Document):
    id: ItemId
    name: Name
    #: The campaign's link from skill to ability (``None``: the ability is chosen at each roll).
    ability: AbilityKey | None = None
    die: Die | None = None  # empty in a draft before the skills step
    #: The d100 the server rolled for this skill at creation (random skill method).
    rolled: Percentile | None = None
    specializations: tuple[Specialization, ...] = Field(default=(), max_length=MAX_ITEMS)

    @model_validator(mode="after")
    def _unique(self) -> Skill:
        require_unique(self.specializations, f"specializations of {self.name}")
        return self


class Trait(Document):
    """A background (roll the Ability die twice, keep the higher) or an impairment (the lower)."""

    id: ItemId
    kind: Literal["background", "impairment"]
    name: Name
    description: Description = ""


class Asset(Document):
    """ "Equipment / assets": a thing or a person that steps the skill die up by its level."""

    id: ItemId
    name: Name
    kind: Literal["thing", "person"] = "thing"
    level: Level = 1
    #: The skills it helps, by id.
    skills: tuple[ItemId, ...] = Field(default=(), max_length=MAX_ITEMS)
    description: Description = ""
    #: False while a player's proposal waits for the GM (the campaign's ``gear`` option): it steps no die.
    approved: bool = True


class Weapon(Document):
    id: ItemId
    name: Name
    accuracy: Die
    damage: Die
    #: False while a player's proposal waits for the GM: it is not fought with.
    approved: bool = True


class Armor(Document):
    id: ItemId
    name: Name
    defense: Die
    #: False while a player's proposal waits for the GM: it is not worn in a fight.
    approved: bool = True


class Abilities(Document):
    will: Die | None = None
    charm: Die | None = None
    pulse: Die | None = None
    intellect: Die | None = None
    reflex: Die | None = None

    def dice(self) -> dict[str, StepDie]:
        """The abilities that have a die, as the engine's dice."""
        return {key: StepDie.parse(label) for key in ABILITY_KEYS if (label := getattr(self, key)) is not None}


class TableRoll(Document):
    """A roll the server made on the campaign's table of backgrounds or of impairments at creation
    ("Backgrounds": "players may roll for"; "Impairments": "either rolled for or selected"): the
    entry drawn, as its place in the table (``roll`` of ``of`` entries) and its name as rolled, and
    the trait it became, by id (a rename of the trait changes no record)."""

    kind: Literal["background", "impairment"]
    roll: Annotated[int, Field(ge=1, le=MAX_TABLE_ENTRIES, strict=True)]
    of: Annotated[int, Field(ge=1, le=MAX_TABLE_ENTRIES, strict=True)]
    name: Name
    trait: ItemId

    @model_validator(mode="after")
    def _in_the_table(self) -> TableRoll:
        if self.roll > self.of:
            raise ValueError(f"a roll of {self.roll} is past the table's {self.of} entries")
        return self


class Creation(Document):
    """Where creation stands and what the server rolled, kept so that a draft is finished later
    and a finished character shows how it was made."""

    #: The step a draft was saved at; "" once the character is finished.
    step: Literal["", "abilities", "skills", "specializations", "traits", "equipment", "review"] = "abilities"
    ability_method: Literal["", "random", "balanced", "specialized"] = ""
    #: The five d100s of the random ability method, in the order of the abilities.
    ability_rolls: tuple[Percentile, ...] = Field(default=(), max_length=len(ABILITY_KEYS))
    #: Taking an impairment at creation buys one more starting specialization ("Impairments").
    took_impairment: bool = False
    #: The server's rolls on the campaign's tables of backgrounds and impairments, in order.
    table_rolls: tuple[TableRoll, ...] = Field(default=(), max_length=MAX_TABLE_ROLLS)


class Sheet(Document):
    """A whole Lucky 13 character, draft or finished (the name lives with the character)."""

    schema_version: Literal[1] = SCHEMA_VERSION
    concept: ShortText = ""
    abilities: Abilities = Abilities()
    skills: tuple[Skill, ...] = Field(default=(), max_length=MAX_ITEMS)
    traits: tuple[Trait, ...] = Field(default=(), max_length=MAX_ITEMS)
    assets: tuple[Asset, ...] = Field(default=(), max_length=MAX_ITEMS)
    weapons: tuple[Weapon, ...] = Field(default=(), max_length=MAX_ITEMS)
    armor: tuple[Armor, ...] = Field(default=(), max_length=MAX_ITEMS)
    #: Hit points left; bounded by the campaign's hit points per step (see :func:`problems`).
    hit_points: Annotated[int, Field(ge=-12, le=5 * 100, strict=True)] | None = None
    #: Hit points healed by resting since the character was last at full (the campaign's ``resting``
    #: option: at most :data:`~rules.systems.lucky13.health.MAX_REST_HEALING`; back at full, 0).
    rested_hit_points: Annotated[int, Field(ge=0, le=MAX_REST_HEALING, strict=True)] = 0
    #: Healed from dying in a campaign of gritty recovery: every Ability die one step down until the
    #: GM marks the character recovered (the campaign's ``recovery`` option).
    recovering: bool = False
    reputation: Annotated[int, Field(ge=-5, le=5, strict=True)] = 0
    notes: Annotated[LongText, Field(max_length=MAX_NOTES)] = ""
    creation: Creation = Creation()
    #: Ids are never reused: a new item takes this id (or a larger one) and it moves past it.
    next_id: Annotated[int, Field(ge=1, strict=True)] = 1

    @model_validator(mode="after")
    def _consistent(self) -> Sheet:
        require_unique(self.skills, "skills")
        require_unique(self.weapons, "weapons")
        require_unique(self.armor, "pieces of armor")
        require_unique(self.assets, "assets")
        for kind in ("background", "impairment"):
            require_unique([t for t in self.traits if t.kind == kind], f"{kind}s")
        if len({t.id for t in self.traits}) != len(self.traits):
            raise ValueError("two backgrounds or impairments have the same id")
        skill_ids = {skill.id for skill in self.skills}
        for asset in self.assets:
            unknown = [i for i in asset.skills if i not in skill_ids]
            if unknown:
                raise ValueError(f"{asset.name} helps a skill the sheet does not have (id {unknown[0]})")
        spec_ids = [spec.id for skill in self.skills for spec in skill.specializations]
        if len(set(spec_ids)) != len(spec_ids):
            raise ValueError("two specializations have the same id")
        if self.next_id < fresh_id(1, self.item_lists()):
            raise ValueError("next_id must be past every id on the sheet")
        if any(roll.trait >= self.next_id for roll in self.creation.table_rolls):
            raise ValueError("a roll on a table names a trait this sheet never had")
        return self

    def item_lists(self) -> Iterator[tuple[Any, ...]]:
        yield self.skills
        yield tuple(spec for skill in self.skills for spec in skill.specializations)
        yield self.traits
        yield self.assets
        yield self.weapons
        yield self.armor

    def skill(self, item_id: int) -> Skill | None:
        return next((skill for skill in self.skills if skill.id == item_id), None)

    def specialization(self, item_id: int) -> tuple[Skill, Specialization] | None:
        for skill in self.skills:
            for spec in skill.specializations:
                if spec.id == item_id:
                    return skill, spec
        return None

    def with_ids(self, count: int) -> tuple[Sheet, tuple[int, ...]]:
        """``count`` fresh ids, and the sheet that has handed them out."""
        start = fresh_id(self.next_id, self.item_lists())
        return self.model_copy(update={"next_id": start + count}), tuple(range(start, start + count))


def incomplete(sheet: Sheet) -> tuple[str, ...]:
    """What a finished character must have and this sheet lacks (empty when it may be active)."""
    missing = [f"abilities.{key}" for key in ABILITY_KEYS if getattr(sheet.abilities, key) is None]
    missing += [f"skills.{skill.id}.die" for skill in sheet.skills if skill.die is None]
    if sheet.hit_points is None:
        missing.append("hit_points")
    return tuple(missing)


def migrate(document: dict[str, Any], from_version: int) -> dict[str, Any]:
    """An older document brought up to :data:`SCHEMA_VERSION`, one step per version.

    Version 1 is the first: there is nothing older to upgrade yet. A field added with a default
    (``rested_hit_points``, ``recovering``) needs no step: a document without it reads as the default.
    """
    if from_version > SCHEMA_VERSION:
        raise ValueError(f"sheet version {from_version} is newer than this server reads ({SCHEMA_VERSION})")
    if from_version < 1:
        raise ValueError(f"there is no sheet version {from_version}")
    return document
