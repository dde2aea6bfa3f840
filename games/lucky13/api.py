"""Lucky 13 in the JSON API: the fields a character shows beside its sheet (the export document's,
which clients have always read), and a PATCH of a partial character, each part of the sheet it
changes saved through :func:`games.lucky13.sections.save_section`, as the sheet's Save buttons do,
all in the caller's transaction.

How the document's fields map to the sections of a Lucky 13 sheet (its system's ``edit_sections``):

=================================== ===================
``name``, ``concept``                ``details``
``abilities``                        ``abilities``
``skills[].die``                     ``skills``
``skills[].specializations``         ``specializations``
``backgrounds``, ``impairments``     ``traits``
``assets``, ``weapons``, ``armor``   ``equipment``
``hit_points``                       ``hit-points``
``reputation``                       ``reputation``
``notes``                            ``notes``
=================================== ===================

The other fields (``id``, ``system``, ``status``, ``sheet``, ``arrival``, ``awaiting``,
``ability_names``, ``ability_method``, ``took_impairment``, and a skill's ``name`` and ``ability``)
are not on any section: a PATCH may repeat them as they are, and anything else there is a 400. A
list replaces the list; each of its rows is the sheet's item with the row's ``id`` when it gives
one, else the first unclaimed item of its name, else the next unclaimed item in order, so a row
renamed in place stays itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, Protocol, TypeVar

from django.contrib.auth.models import AbstractBaseUser
from ninja import Field, Schema
from pydantic import ConfigDict, StrictBool, StrictInt, StringConstraints

from api.errors import InvalidChange, refused_by_field
from api.extensions import StalePatch, SystemApi
from api.params import LINES, ONE_LINE
from characters import operations, write
from characters.models import Character
from games.lucky13 import contest_api, sections
from games.lucky13.sections import ArmorRow, AssetRow, Details, Equipment, SpecializationRow, TraitRow, WeaponRow
from rules.dice import DiceError, StepDie
from rules.document import MAX_ITEM_ID
from rules.systems.base import SheetInvalid

# Bounds that keep absurd input out (a 422); the sheet's own rules give the real limits (a 400 that says them).
NAME: Final = 200
DIE: Final = 20
CONCEPT: Final = 1000
DESCRIPTION: Final = 10_000
NOTES: Final = 100_000
ROWS: Final = 100
#: The five abilities of the export document, by the keys it uses whatever a campaign calls them.
ABILITY_KEYS: Final = ("will", "charm", "pulse", "intellect", "reflex")

Text = Annotated[str, StringConstraints(max_length=NAME, pattern=ONE_LINE)]
DieLabel = Annotated[str, StringConstraints(max_length=DIE, pattern=ONE_LINE)]
ItemId = Annotated[StrictInt, Field(ge=1, le=MAX_ITEM_ID)]


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def optional(**constraints: Any) -> Any:
    """A field that a PATCH may leave out, but not send as null (what the document never holds)."""
    return Field(None, json_schema_extra=_no_default, **constraints)


# --- The fields beside the sheet ---------------------------------------------------------------


class SpecializationEntry(Schema):
    id: int
    name: str
    level: int = Field(description="1–5: the skill die steps up once per level.")


class SkillEntry(Schema):
    id: int
    name: str
    ability: str | None = Field(description="The linked ability's key, as the campaign links it.")
    die: str | None = Field(description='"d4" … "d12"; null in a draft that has not given it one yet.')
    specializations: list[SpecializationEntry]


class TraitEntry(Schema):
    id: int
    name: str
    description: str


class AssetEntry(Schema):
    id: int
    name: str
    kind: Literal["thing", "person"]
    level: int = Field(description="1 Inferior … 5 Perfect.")
    skills: list[str] = Field(description="The skills it helps, by name (by id in `sheet`).")
    description: str


class WeaponEntry(Schema):
    id: int
    name: str
    accuracy: str
    damage: str


class ArmorEntry(Schema):
    id: int
    name: str
    defense: str


class AbilityDice(Schema):
    """The five ability dice by key, whatever the campaign calls them; null in a draft that has none yet."""

    will: str | None
    charm: str | None
    pulse: str | None
    intellect: str | None
    reflex: str | None


class AbilityNames(Schema):
    will: str
    charm: str
    pulse: str
    intellect: str
    reflex: str


assert tuple(AbilityDice.model_fields) == tuple(AbilityNames.model_fields) == ABILITY_KEYS


class NamedFields(Schema):
    """A Lucky 13 character's fields beside its sheet, taken from it, which a PATCH changes."""

    concept: str | None = None
    ability_names: AbilityNames | None = Field(None, description="The campaign's names for the abilities.")
    abilities: AbilityDice | None = None
    ability_method: Literal["random", "balanced", "specialized"] | None = None
    took_impairment: bool | None = None
    skills: list[SkillEntry] | None = None
    backgrounds: list[TraitEntry] | None = None
    impairments: list[TraitEntry] | None = None
    assets: list[AssetEntry] | None = None
    weapons: list[WeaponEntry] | None = None
    armor: list[ArmorEntry] | None = None
    hit_points: int | None = None
    reputation: int | None = None
    notes: str | None = None


# --- A PATCH: a partial document ----------------------------------------------------------------


class _In(Schema):
    model_config = ConfigDict(extra="forbid")


ROW_ID: Final = "The item's id on the sheet (`sheet`): this row is that item. Left out: matched by name, then in order."


class SpecializationPatch(_In):
    id: ItemId = optional(description=ROW_ID)
    name: Text
    level: StrictInt | None = Field(None, description="Left out: as it is (1 for a new one).")


class SkillPatch(_In):
    id: ItemId = optional(description="The skill's id on the sheet; or name the skill.")
    name: Text = optional(description="Which of the character's skills (they are the campaign's); or give its `id`.")
    ability: Annotated[str, StringConstraints(max_length=DIE, pattern=ONE_LINE)] | None = optional()
    die: DieLabel | None = optional(
        description="Null as a draft's document has it: a finished character's needs a die."
    )
    specializations: list[SpecializationPatch] = optional(max_length=ROWS)


class TraitPatch(_In):
    id: ItemId = optional(description=ROW_ID)
    name: Text
    description: Annotated[str, StringConstraints(max_length=DESCRIPTION, pattern=LINES)] = optional()


class AssetPatch(_In):
    id: ItemId = optional(description=ROW_ID)
    name: Text
    level: StrictInt = optional()
    kind: Annotated[str, StringConstraints(max_length=DIE, pattern=ONE_LINE)] = optional()
    skills: list[ItemId | Text] = optional(max_length=ROWS, description="The skills it helps, by name or by id.")
    description: Annotated[str, StringConstraints(max_length=DESCRIPTION, pattern=LINES)] = optional()


class WeaponPatch(_In):
    id: ItemId = optional(description=ROW_ID)
    name: Text
    accuracy: DieLabel = optional()
    damage: DieLabel = optional()


class ArmorPatch(_In):
    id: ItemId = optional(description=ROW_ID)
    name: Text
    defense: DieLabel = optional()


class AbilitiesPatch(_In):
    """Null as a draft's document has it: a finished character's ability needs a die."""

    will: DieLabel | None = optional()
    charm: DieLabel | None = optional()
    pulse: DieLabel | None = optional()
    intellect: DieLabel | None = optional()
    reflex: DieLabel | None = optional()


class CharacterPatch(_In):
    """Any fields of the character, with the `version` it was read at. A field left out stays as it
    is; a list replaces the list; `abilities` and a skill merge key by key."""

    version: StrictInt = Field(
        ge=1, le=2**31 - 1, description="The `version` of the document these changes were made to."
    )
    id: StrictInt = optional()
    system: Text = optional()
    status: Text = optional()
    name: Text = optional()
    sheet: dict[Text, Any] = optional(description="Read only: it may come back only as it is.")
    arrival: dict[Text, Any] | None = optional(description="Read only: it may come back only as it is.")
    awaiting: list[dict[Text, Any]] = optional(
        max_length=ROWS, description="Read only: it may come back only as it is."
    )
    concept: Annotated[str, StringConstraints(max_length=CONCEPT, pattern=ONE_LINE)] = optional()
    ability_names: dict[Text, Text] = optional(max_length=len(ABILITY_KEYS) + 1)
    abilities: AbilitiesPatch = optional()
    ability_method: Text | None = optional()
    took_impairment: StrictBool = optional()
    skills: list[SkillPatch] = optional(max_length=ROWS)
    backgrounds: list[TraitPatch] = optional(max_length=ROWS)
    impairments: list[TraitPatch] = optional(max_length=ROWS)
    assets: list[AssetPatch] = optional(max_length=ROWS)
    weapons: list[WeaponPatch] = optional(max_length=ROWS)
    armor: list[ArmorPatch] = optional(max_length=ROWS)
    hit_points: StrictInt | None = optional(ge=-10_000, le=10_000)
    reputation: StrictInt = optional(ge=-1000, le=1000)
    notes: Annotated[str, StringConstraints(max_length=NOTES, pattern=LINES)] = optional()


#: Fields no section of the sheet holds: a PATCH may only repeat them.
FIXED: Final = (
    "id",
    "system",
    "status",
    "sheet",
    "arrival",
    "awaiting",
    "ability_names",
    "ability_method",
    "took_impairment",
)


# --- A PATCH, section by section -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Save:
    """One section to save: its data for ``save_section``, and where on the document each of its
    messages belongs (``InvalidSection`` keys are fields, or ``<row>-<field>`` with the row's ``at``)."""

    section: str
    data: Any
    where: Callable[[str], str]


def _die(label: str | None) -> StepDie:
    """A die label as the sheet's forms read it: anything but d4 … d12 is no die, which every rule refuses."""
    try:
        return StepDie.parse(label) if label else StepDie.none()
    except DiceError:
        return StepDie.none()


def _rung(label: str | None) -> int:
    """The rung of a die on the sheet (0: none)."""
    return _die(label).rung


def _given_die(row: Schema, field: str, current: str | None) -> StepDie:
    """A die a row of the PATCH gives, or the die on the sheet if it leaves it out."""
    return _die(getattr(row, field) if field in row.model_fields_set else current)


def _given(row: Schema, field: str, current: Any) -> Any:
    """What a row of the PATCH says for ``field``, or ``current`` if it leaves it out."""
    return getattr(row, field) if field in row.model_fields_set else current


class _Item(Protocol):
    @property
    def id(self) -> int: ...

    @property
    def name(self) -> str: ...


Item = TypeVar("Item", bound=_Item)


class _Problems:
    """What no section can take, by field of the document, to refuse all at once."""

    def __init__(self, character: Character) -> None:
        self.character = character
        self.errors: dict[str, list[str]] = {}

    def add(self, where: str, message: str) -> None:
        self.errors.setdefault(where, []).append(message)


def _pair(
    given: Sequence[Any], existing: Sequence[Item], at: str, problems: _Problems
) -> tuple[list[Item | None], list[Item]]:
    """The sheet's item each given row is (None: a new item), and the items left over (removed).

    A row with an ``id`` is the item of that id; any other row is the first unclaimed item of
    the same name, else the next unclaimed item in order: a row renamed in place stays itself,
    one taken out of the middle is removed."""
    by_id = {item.id: j for j, item in enumerate(existing)}
    claimed: set[int] = set()
    matches: list[int | None] = [None] * len(given)
    for i, row in enumerate(given):
        if "id" not in row.model_fields_set:
            continue
        match = by_id.get(row.id)
        if match is None:
            problems.add(
                f"{at}[{i}].id", f"This is not on {problems.character.name}'s sheet (any more): read it again."
            )
        elif match in claimed:
            problems.add(f"{at}[{i}].id", "Another row of this list is the same item.")
        else:
            claimed.add(match)
            matches[i] = match
    for i, row in enumerate(given):
        if "id" in row.model_fields_set:
            continue
        match = next((j for j, e in enumerate(existing) if j not in claimed and e.name == row.name), None)
        if match is not None:
            claimed.add(match)
            matches[i] = match
    free = [j for j in range(len(existing)) if j not in claimed]
    for i, row in enumerate(given):
        if matches[i] is None and "id" not in row.model_fields_set and free:
            matches[i] = free.pop(0)
            claimed.add(matches[i])
    left = [item for j, item in enumerate(existing) if j not in claimed]
    return [existing[j] if j is not None else None for j in matches], left


def _rows_where(fallback: str) -> Callable[[str], str]:
    """A message about a row's field (``skills[0].specializations[1]-name``) at that field of the
    document (``skills[0].specializations[1].name``); one about the whole section at ``fallback``."""

    def where(key: str) -> str:
        if not key:
            return fallback
        row, _, field = key.rpartition("-")
        if row and "[" in row:
            return f"{row}.{field}"
        return key if "[" in key else fallback

    return where


def _details(character: Character, changes: CharacterPatch) -> Save | None:
    concept = character.document.concept
    name = _given(changes, "name", character.name)
    new_concept = _given(changes, "concept", concept)
    if (name, new_concept) == (character.name, concept):
        return None
    return Save("details", Details(name=name, concept=new_concept), lambda key: key if key == "concept" else "name")


def _abilities(character: Character, changes: CharacterPatch) -> Save | None:
    if "abilities" not in changes.model_fields_set:
        return None
    current = character.document.abilities
    dice = {key: _given_die(changes.abilities, key, getattr(current, key)) for key in ABILITY_KEYS}
    if all(die.rung == _rung(getattr(current, key)) for key, die in dice.items()):
        return None

    def where(key: str) -> str:
        key = key.removeprefix("abilities.")
        return f"abilities.{key}" if key in dice else "abilities"

    return Save("abilities", dice, where)


def _skills(character: Character, changes: CharacterPatch, problems: _Problems) -> list[Save]:
    """The skill dice and the specializations: two sections, as on the sheet."""
    if "skills" not in changes.model_fields_set:
        return []
    sheet = character.document
    names = {skill.name: skill for skill in sheet.skills}
    at: dict[int, int] = {}  # skill id: where it is in the PATCH
    for i, given in enumerate(changes.skills):
        fields = given.model_fields_set
        skill = sheet.skill(given.id) if "id" in fields else names.get(given.name) if "name" in fields else None
        if "id" not in fields and "name" not in fields:
            problems.add(f"skills[{i}].name", "Name the skill, or give its id.")
        elif skill is None and "id" in fields:
            problems.add(f"skills[{i}].id", f"This is not one of {character.name}'s skills.")
        elif skill is None:
            problems.add(
                f"skills[{i}].name",
                f"{character.name} has no skill called {given.name}: the skills are the campaign's "
                f"({', '.join(names)}); list any of them by name.",
            )
        elif "name" in fields and "id" in fields and given.name != skill.name:
            problems.add(f"skills[{i}].name", "A skill's name is the campaign's: the GM renames it in the options.")
        elif skill.id in at:
            problems.add(f"skills[{i}].{'id' if 'id' in fields else 'name'}", f"{skill.name} is listed twice.")
        else:
            at[skill.id] = i
            if _given(given, "ability", skill.ability) != skill.ability:
                problems.add(
                    f"skills[{i}].ability",
                    "A skill's linked ability is the campaign's: the GM sets it in the campaign's options.",
                )
    dice = {
        skill_id: _die(changes.skills[i].die)
        for skill_id, i in at.items()
        if "die" in changes.skills[i].model_fields_set
        and _die(changes.skills[i].die).rung != _rung(sheet.skill(skill_id).die)
    }
    rows: list[SpecializationRow] = []
    changed = False
    for skill_id, i in at.items():
        given = changes.skills[i]
        if "specializations" not in given.model_fields_set:
            continue
        existing = list(sheet.skill(skill_id).specializations)
        where = f"skills[{i}].specializations"
        matches, removed = _pair(given.specializations, existing, where, problems)
        for j, (row, current) in enumerate(zip(given.specializations, matches, strict=True)):
            level = row.level if row.level is not None else (current.level if current else 1)
            rows.append(
                SpecializationRow(at=f"{where}[{j}]", id=current.id if current else None, name=row.name,
                                  skill=skill_id, level=level)
            )  # fmt: skip
            changed |= current is None or (row.name, level) != (current.name, current.level)
        rows.extend(SpecializationRow(at=where, id=s.id, name=s.name, remove=True) for s in removed)
        changed |= bool(removed)
    saves = []
    if dice:
        by_name = {sheet.skill(skill_id).name: i for skill_id, i in at.items()}
        by_id = {str(skill_id): i for skill_id, i in at.items()}

        def where(key: str) -> str:
            i = by_name.get(key, by_id.get(key))
            return f"skills[{i}].die" if i is not None else "skills"

        saves.append(Save("skills", dice, where))
    if changed:
        saves.append(Save("specializations", rows, _rows_where("skills")))
    return saves


def _traits(character: Character, changes: CharacterPatch, problems: _Problems) -> Save | None:
    rows: list[TraitRow] = []
    changed = False
    traits = character.document.traits
    for field, kind in (("backgrounds", "background"), ("impairments", "impairment")):
        if field not in changes.model_fields_set:
            continue
        given = getattr(changes, field)
        matches, removed = _pair(given, [t for t in traits if t.kind == kind], field, problems)
        for j, (row, current) in enumerate(zip(given, matches, strict=True)):
            description = _given(row, "description", current.description if current else "")
            rows.append(TraitRow(at=f"{field}[{j}]", id=current.id if current else None, kind=kind, name=row.name,
                                 description=description))  # fmt: skip
            changed |= current is None or (row.name, description) != (current.name, current.description)
        rows.extend(TraitRow(at=field, id=t.id, kind=kind, name=t.name, remove=True) for t in removed)
        changed |= bool(removed)
    if not changed:
        return None
    fallback = "impairments" if "impairments" in changes.model_fields_set else "backgrounds"
    return Save("traits", rows, _rows_where(fallback))


def _asset_skills(character: Character, given: Sequence[int | str], where: str, problems: _Problems) -> tuple[int, ...]:
    """The skills an asset of the PATCH helps, by name or by id, as the sheet's skill ids."""
    skills = character.document.skills
    by_name = {skill.name: skill.id for skill in skills}
    ids = {skill.id for skill in skills}
    found = [by_name.get(s) if isinstance(s, str) else s if s in ids else None for s in given]
    unknown = [str(s) for s, i in zip(given, found, strict=True) if i is None]
    if unknown:
        problems.add(where, f"{', '.join(unknown)} is not one of {character.name}'s skills.")
    return tuple(dict.fromkeys(i for i in found if i is not None))


def _equipment(character: Character, changes: CharacterPatch, problems: _Problems) -> Save | None:
    sheet = character.document
    assets: list[AssetRow] = []
    weapons: list[WeaponRow] = []
    armor: list[ArmorRow] = []
    changed = False
    if "assets" in changes.model_fields_set:
        matches, removed = _pair(changes.assets, sheet.assets, "assets", problems)
        for j, (row, current) in enumerate(zip(changes.assets, matches, strict=True)):
            helped = list(current.skills) if current else []
            new = AssetRow(
                at=f"assets[{j}]", id=current.id if current else None, name=row.name,
                level=_given(row, "level", current.level if current else None),
                kind=_given(row, "kind", current.kind if current else "thing"),
                skills=_asset_skills(character, _given(row, "skills", helped), f"assets[{j}].skills", problems),
                description=_given(row, "description", current.description if current else ""),
            )  # fmt: skip
            assets.append(new)
            changed |= current is None or (new.name, new.level, new.kind, set(new.skills), new.description) != (
                current.name, current.level, current.kind, set(current.skills), current.description
            )  # fmt: skip
        assets.extend(AssetRow(at="assets", id=a.id, name=a.name, level=a.level, remove=True) for a in removed)
        changed |= bool(removed)
    if "weapons" in changes.model_fields_set:
        matches, removed = _pair(changes.weapons, sheet.weapons, "weapons", problems)
        for j, (row, current) in enumerate(zip(changes.weapons, matches, strict=True)):
            new = WeaponRow(
                at=f"weapons[{j}]", id=current.id if current else None, name=row.name,
                accuracy=_given_die(row, "accuracy", current.accuracy if current else None),
                damage=_given_die(row, "damage", current.damage if current else None),
            )  # fmt: skip
            weapons.append(new)
            changed |= current is None or (new.name, new.accuracy.rung, new.damage.rung) != (
                current.name, _rung(current.accuracy), _rung(current.damage)
            )  # fmt: skip
        weapons.extend(
            WeaponRow(at="weapons", id=w.id, name=w.name, accuracy=StepDie.none(), damage=StepDie.none(), remove=True)
            for w in removed
        )
        changed |= bool(removed)
    if "armor" in changes.model_fields_set:
        matches, removed = _pair(changes.armor, sheet.armor, "armor", problems)
        for j, (row, current) in enumerate(zip(changes.armor, matches, strict=True)):
            new = ArmorRow(
                at=f"armor[{j}]", id=current.id if current else None, name=row.name,
                defense=_given_die(row, "defense", current.defense if current else None),
            )  # fmt: skip
            armor.append(new)
            changed |= current is None or (new.name, new.defense.rung) != (current.name, _rung(current.defense))
        armor.extend(ArmorRow(at="armor", id=a.id, name=a.name, defense=StepDie.none(), remove=True) for a in removed)
        changed |= bool(removed)
    if not changed:
        return None
    fallback = next(field for field in ("assets", "weapons", "armor") if field in changes.model_fields_set)
    return Save("equipment", Equipment(assets=assets, weapons=weapons, armor=armor), _rows_where(fallback))


def _single(changes: CharacterPatch, field: str, section: str, current: Any) -> Save | None:
    if field not in changes.model_fields_set or getattr(changes, field) == current:
        return None
    return Save(section, getattr(changes, field), lambda key: field)


def _fixed(current: Mapping[str, Any], changes: CharacterPatch, problems: _Problems) -> None:
    """The fields no section holds may come back only as they are."""
    given = changes.model_dump(by_alias=True, exclude_unset=True)
    for field in FIXED:
        if field in given and given[field] != current[field]:
            problems.add(
                field, "No part of the sheet holds this, so it cannot change here: send it as it is, or leave it out."
            )


def _saves(character: Character, changes: CharacterPatch, current: Mapping[str, Any]) -> list[Save]:
    """Each section the PATCH changes, in the sheet's order, or a 400 for what no section can take."""
    problems = _Problems(character)
    _fixed(current, changes, problems)
    document = character.document
    saves = [
        _details(character, changes),
        _abilities(character, changes),
        *_skills(character, changes, problems),
        _traits(character, changes, problems),
        _equipment(character, changes, problems),
        _single(changes, "hit_points", "hit-points", document.hit_points),
        _single(changes, "reputation", "reputation", document.reputation),
        _single(changes, "notes", "notes", document.notes),
    ]
    if problems.errors:
        raise refused_by_field(InvalidChange, problems.errors)
    saves = [save for save in saves if save is not None]
    changed = [save.section for save in saves]
    if "hit-points" in changed and "abilities" in changed:
        # Each save checks the hit points against the Pulse die as it then is; when the Pulse
        # shrinks, the hit points must come down first (when it grows, they go up after it).
        pulse = next(save for save in saves if save.section == "abilities").data["pulse"]
        if pulse.rung and pulse.rung < _rung(document.abilities.pulse):
            saves.sort(key=lambda save: save.section != "hit-points")
    return saves


def apply_patch(locked: Character, changes: CharacterPatch, by: AbstractBaseUser, current: Mapping[str, Any]) -> None:
    """Save each section the PATCH changes (the caller holds the lock and the transaction); every
    problem is refused at once, by its field of the document, and nothing is then kept."""
    if write.is_stale(locked, changes.version):
        raise StalePatch
    problems: dict[str, list[str]] = {}
    for save in _saves(locked, changes, current):
        try:
            sections.save_section(
                character_id=locked.pk, section=save.section, version=changes.version, data=save.data,
                by=by,
            )  # fmt: skip
        except operations.InvalidSection as problem:
            for key, messages in problem.errors.items():
                problems.setdefault(save.where(key), []).extend(messages)
        except SheetInvalid as problem:
            for found in problem.problems:
                problems.setdefault(save.where(found.field), []).append(write.sentence(found.message))
        except (operations.StaleSection, write.StaleSheet):
            raise StalePatch from None
    if problems:
        raise refused_by_field(InvalidChange, problems)


#: Lucky 13's own endpoints (a contest) are on :mod:`games.lucky13.contest_api`'s router; its rest and recovery
#: are moves (:mod:`api.routers.moves`).
API: Final = SystemApi(
    named_fields=NamedFields, patch=CharacterPatch, apply_patch=apply_patch, router=contest_api.router
)
