"""The API's characters endpoints: a campaign's characters, an import, and one character as the
JSON document of ``docs/character-schema.md``, read and changed.

Characters load through :mod:`characters.access` (and their campaign through
:mod:`campaigns.access`). An import is :func:`characters.exchange.import_character`, as on the
import page. A PATCH is a partial document: each part of the sheet it changes is saved through
:func:`characters.operations.save_section`, as the sheet's Save buttons do, all in one transaction.

How the document's fields map to the sheet's sections (``characters.operations.SECTIONS``):

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

The other fields (``schema``, ``schema_version``, ``system``, ``ability_names``,
``ability_method``, ``creation_rolls``, ``took_impairment``, ``integrity``, and a skill's
``name`` and ``ability``) are not on any section: a PATCH may repeat them as they are, and
anything else there is a 400. A list replaces the list; its rows are matched to the rows on the
sheet first by name, then in order, so that a row renamed in place stays the same row.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, TypeVar

from django.db import transaction
from django.http import HttpRequest, HttpResponse
from django.urls import reverse
from ninja import Field, Router, Schema, Status
from pydantic import ConfigDict, StrictBool, StrictInt, StringConstraints

from api.errors import Error, responses
from api.params import NO_NUL, PathId
from campaigns.access import campaign_for, listed_characters
from campaigns.operations import Refused
from characters import access, exchange, operations, sheets
from characters.models import Asset, Character, Specialization, Trait, Weapon
from characters.operations import ArmorRow, AssetRow, Details, Equipment, SpecializationRow, TraitRow, WeaponRow
from rules.dice import DiceError, StepDie
from rules.systems import lucky13

router = Router(tags=["Characters"])

# Bounds that keep absurd input out (a 422); the sheet's own rules give the real limits (a 400 that says them).
NAME: Final = 200
DIE: Final = 20
CONCEPT: Final = 1000
DESCRIPTION: Final = 10_000
NOTES: Final = 100_000
ROWS: Final = 100

Text = Annotated[str, StringConstraints(max_length=NAME, pattern=NO_NUL)]
DieLabel = Annotated[str, StringConstraints(max_length=DIE, pattern=NO_NUL)]


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def optional(**constraints: Any) -> Any:
    """A field that a PATCH may leave out, but not send as null (what the document never holds)."""
    return Field(None, json_schema_extra=_no_default, **constraints)


# --- The document (docs/character-schema.md) ----------------------------------------------------


class SpecializationEntry(Schema):
    name: str
    level: int = Field(description="1–5: the skill die steps up once per level.")


class SkillEntry(Schema):
    name: str
    ability: str | None = Field(description="The linked ability's key, as the campaign links it.")
    die: str = Field(description='"d4" … "d12".')
    specializations: list[SpecializationEntry]


class TraitEntry(Schema):
    name: str
    description: str


class AssetEntry(Schema):
    name: str
    kind: Literal["thing", "person"]
    level: int = Field(description="1 Inferior … 5 Perfect.")
    skills: list[str] = Field(description="The skills it helps, by name.")
    description: str


class WeaponEntry(Schema):
    name: str
    accuracy: str
    damage: str


class ArmorEntry(Schema):
    name: str
    defense: str


class Abilities(Schema):
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


assert tuple(Abilities.model_fields) == tuple(AbilityNames.model_fields) == lucky13.ABILITY_KEYS


class CharacterDocument(Schema):
    """A character as one JSON document (schema `dicehall.character`, version 1): see docs/character-schema.md."""

    schema_: Literal["dicehall.character"] = Field(alias="schema")
    schema_version: int
    system: str
    version: int = Field(description="The sheet's version: it rises with every save. A PATCH must send it.")
    name: str
    concept: str
    ability_names: AbilityNames
    abilities: Abilities
    ability_method: Literal["random", "balanced", "specialized"] | None
    creation_rolls: dict[str, list[int]]
    skills: list[SkillEntry]
    took_impairment: bool
    backgrounds: list[TraitEntry]
    impairments: list[TraitEntry]
    assets: list[AssetEntry]
    weapons: list[WeaponEntry]
    armor: list[ArmorEntry]
    hit_points: int | None
    reputation: int
    notes: str
    integrity: str | None


class StaleVersion(Error):
    document: CharacterDocument = Field(description="The character as it is now.")


class CharacterSummary(Schema):
    id: int
    name: str
    concept: str
    status: Literal["draft", "active", "archived"]
    owner: str = Field(description="The player's username.")
    version: int
    hit_points: int | None


# --- A PATCH: a partial document ----------------------------------------------------------------


class _In(Schema):
    model_config = ConfigDict(extra="forbid")


class SpecializationPatch(_In):
    name: Text
    level: StrictInt | None = Field(None, description="Left out: as it is (1 for a new one).")


class SkillPatch(_In):
    name: Text = Field(description="Which of the character's skills (they are the campaign's).")
    ability: Annotated[str, StringConstraints(max_length=DIE, pattern=NO_NUL)] | None = optional()
    die: DieLabel = optional()
    specializations: list[SpecializationPatch] = optional(max_length=ROWS)


class TraitPatch(_In):
    name: Text
    description: Annotated[str, StringConstraints(max_length=DESCRIPTION, pattern=NO_NUL)] = optional()


class AssetPatch(_In):
    name: Text
    level: StrictInt = optional()
    kind: Annotated[str, StringConstraints(max_length=DIE, pattern=NO_NUL)] = optional()
    skills: list[Text] = optional(max_length=ROWS)
    description: Annotated[str, StringConstraints(max_length=DESCRIPTION, pattern=NO_NUL)] = optional()


class WeaponPatch(_In):
    name: Text
    accuracy: DieLabel = optional()
    damage: DieLabel = optional()


class ArmorPatch(_In):
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
    """Any fields of the document, with the `version` it was read at. A field left out stays as it is;
    a list replaces the list; `abilities` and a skill merge key by key."""

    version: StrictInt = Field(
        ge=1, le=2**31 - 1, description="The `version` of the document these changes were made to."
    )
    schema_: Text = optional(alias="schema")
    schema_version: StrictInt = optional()
    system: Text = optional()
    name: Text = optional()
    concept: Annotated[str, StringConstraints(max_length=CONCEPT, pattern=NO_NUL)] = optional()
    ability_names: dict[Text, Text] = optional(max_length=len(lucky13.ABILITY_KEYS) + 1)
    abilities: AbilitiesPatch = optional()
    ability_method: Text | None = optional()
    creation_rolls: dict[Text, list[StrictInt]] = optional(max_length=3)
    skills: list[SkillPatch] = optional(max_length=ROWS)
    took_impairment: StrictBool = optional()
    backgrounds: list[TraitPatch] = optional(max_length=ROWS)
    impairments: list[TraitPatch] = optional(max_length=ROWS)
    assets: list[AssetPatch] = optional(max_length=ROWS)
    weapons: list[WeaponPatch] = optional(max_length=ROWS)
    armor: list[ArmorPatch] = optional(max_length=ROWS)
    hit_points: StrictInt | None = optional(ge=-10_000, le=10_000)
    reputation: StrictInt = optional(ge=-1000, le=1000)
    notes: Annotated[str, StringConstraints(max_length=NOTES, pattern=NO_NUL)] = optional()
    integrity: Text | None = optional()


#: Fields no section of the sheet holds: a PATCH may only repeat them.
FIXED: Final = (
    "schema",
    "schema_version",
    "system",
    "ability_names",
    "ability_method",
    "creation_rolls",
    "took_impairment",
    "integrity",
)


# --- Errors --------------------------------------------------------------------------------------


class InvalidDocument(Refused):
    code = "invalid_document"


class InvalidChange(Refused):
    code = "invalid"


def _refused(kind: type[Refused], errors: dict[str, list[str]]) -> Refused:
    """Every problem by its field of the document; nothing was saved."""
    joined = {field: " ".join(messages) for field, messages in errors.items()}
    (field, first), more = next(iter(joined.items())), len(joined) - 1
    also = f" (and {more} more problem{'s' if more > 1 else ''}, listed in errors)" if more else ""
    return kind(f"Nothing was saved: {field}: {first}{also}", errors=joined)


class _Stale(Exception):
    """The sheet is not at the version the changes were made to."""


# --- Reading and listing -------------------------------------------------------------------------


def _document(pk: int) -> dict[str, Any]:
    return exchange.export_character(sheets.with_sheet(Character.objects.filter(pk=pk)).get())


@router.get(
    "/campaigns/{id}/characters",
    response=responses({200: list[CharacterSummary]}, 404),
    summary="A campaign's characters",
)
def list_characters(request: HttpRequest, id: PathId) -> list[dict[str, Any]]:
    """What the campaign page lists for you: every active character, your own drafts, and for the
    GM every draft and the archived characters too."""
    campaign = campaign_for(request.user, id)
    return [
        {
            "id": c.pk,
            "name": c.name,
            "concept": c.concept,
            "status": c.status,
            "owner": c.owner.get_username(),
            "version": c.version,
            "hit_points": c.hit_points,
        }
        for c in listed_characters(campaign, request.user)
    ]


@router.get(
    "/characters/{id}",
    response=responses({200: CharacterDocument}, 404),
    by_alias=True,
    url_name="character",
    summary="A character, as its document",
)
def get_character(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """The character as one document of the export schema (docs/character-schema.md), with its
    `version`. The campaign's members see its characters, except other players' drafts (404)."""
    return _document(access.character_for(request.user, id).pk)


# --- Import --------------------------------------------------------------------------------------

_DOCUMENT = {"$ref": "#/components/schemas/CharacterDocument"}
_DOCUMENT_BODY = {"required": True, "content": {"application/json": {"schema": _DOCUMENT}}}
_LOCATION = {"description": "The new character's URL in the API.", "schema": {"type": "string"}}


@router.post(
    "/campaigns/{id}/characters",
    response=responses({201: CharacterDocument}, 400, 404, 413),
    by_alias=True,
    summary="Import a character into a campaign",
    openapi_extra={"requestBody": _DOCUMENT_BODY, "responses": {201: {"headers": {"Location": _LOCATION}}}},
)
def import_character(request: HttpRequest, id: PathId, response: HttpResponse) -> Status:
    """The body is a character document (docs/character-schema.md), at most 256 KB. It becomes
    a new character of yours in this campaign, made as a fresh creation there: every creation
    rule of this campaign applies, and specializations, reputation, hit points and Adventure
    Points start afresh. Any problem is a 400 whose `errors` name the document's fields, and
    nothing is created. The new character's URL is in `Location`."""
    campaign = campaign_for(request.user, id)
    try:
        document = exchange.load_document(request.body)
        character = exchange.import_character(campaign=campaign, owner=request.user, document=document)
    except exchange.DocumentError as problem:
        errors: dict[str, list[str]] = {}
        for field, message in problem.errors:
            errors.setdefault(field, []).append(operations.sentence(message))
        raise _refused(InvalidDocument, errors) from None
    response["Location"] = request.build_absolute_uri(reverse("api-v1:character", args=[character.pk]))
    return Status(201, _document(character.pk))


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


def _given_die(row: Schema, field: str, current: int | None) -> StepDie:
    """A die a row of the PATCH gives, or the die on the sheet (a rung) if it leaves it out."""
    if field in row.model_fields_set:
        return _die(getattr(row, field))
    return StepDie(current or 0)


def _given(row: Schema, field: str, current: Any) -> Any:
    """What a row of the PATCH says for ``field``, or ``current`` if it leaves it out."""
    return getattr(row, field) if field in row.model_fields_set else current


Row = TypeVar("Row")


def _pair(
    given: Sequence[Schema], existing: Sequence[Row], name: Callable[[Row], str]
) -> tuple[list[Row | None], list[Row]]:
    """The sheet's row each given row is (None: a new row), and the rows left over (removed).

    A given row is the first unclaimed row of the same name, else the next unclaimed row in
    order: a row renamed in place stays itself, one taken out of the middle is removed."""
    claimed: set[int] = set()
    matches: list[int | None] = []
    for row in given:
        match = next((j for j, e in enumerate(existing) if j not in claimed and name(e) == row.name), None)
        if match is not None:
            claimed.add(match)
        matches.append(match)
    free = [j for j in range(len(existing)) if j not in claimed]
    for i, match in enumerate(matches):
        if match is None and free:
            matches[i] = free.pop(0)
            claimed.add(matches[i])
    left = [row for j, row in enumerate(existing) if j not in claimed]
    return [existing[j] if j is not None else None for j in matches], left


def _rows_where(fallback: str) -> Callable[[str], str]:
    """A message about a row's field (``skills[0].specializations[1]-name``) at that field of the
    document (``skills[0].specializations[1].name``); one about the whole section at ``fallback``."""

    def where(key: str) -> str:
        if not key:
            return fallback
        row, _, field = key.rpartition("-")
        return f"{row}.{field}" if row and "[" in row else key

    return where


def _details(character: Character, changes: CharacterPatch) -> Save | None:
    name = _given(changes, "name", character.name)
    concept = _given(changes, "concept", character.concept)
    if (name, concept) == (character.name, character.concept):
        return None
    return Save("details", Details(name=name, concept=concept), lambda key: key or "name")


def _abilities(character: Character, changes: CharacterPatch) -> Save | None:
    if "abilities" not in changes.model_fields_set:
        return None
    given = changes.abilities
    dice = {key: _given_die(given, key, getattr(character, key)) for key in lucky13.ABILITY_KEYS}
    if all(die.rung == (getattr(character, key) or 0) for key, die in dice.items()):
        return None
    return Save("abilities", dice, lambda key: f"abilities.{key}" if key in dice else "abilities")


def _skills(character: Character, changes: CharacterPatch, problems: dict[str, list[str]]) -> list[Save]:
    """The skill dice and the specializations: two sections, as on the sheet."""
    if "skills" not in changes.model_fields_set:
        return []
    skills = {skill.name: skill for skill in character.skills.all()}
    at: dict[str, int] = {}
    for i, given in enumerate(changes.skills):
        if given.name not in skills:
            problems.setdefault(f"skills[{i}].name", []).append(
                f"{given.name} is not one of {character.name}'s skills: they are the campaign's "
                f"({', '.join(skills)}); list any of them by name."
            )
        elif given.name in at:
            problems.setdefault(f"skills[{i}].name", []).append(f"{given.name} is listed twice.")
        else:
            at[given.name] = i
            if _given(given, "ability", skills[given.name].ability or None) != (skills[given.name].ability or None):
                problems.setdefault(f"skills[{i}].ability", []).append(
                    "A skill's linked ability is the campaign's: the GM sets it in the campaign's options."
                )
    dice = {
        name: _die(changes.skills[i].die)
        for name, i in at.items()
        if "die" in changes.skills[i].model_fields_set and _die(changes.skills[i].die).rung != skills[name].die
    }
    rows: list[SpecializationRow] = []
    for name, i in at.items():
        given = changes.skills[i]
        if "specializations" not in given.model_fields_set:
            continue
        existing = list(skills[name].specializations.all())
        matches, removed = _pair(given.specializations, existing, lambda s: s.name)
        for j, (row, current) in enumerate(zip(given.specializations, matches, strict=True)):
            level = row.level if row.level is not None else (current.level if current else 1)
            rows.append(
                SpecializationRow(
                    at=f"skills[{i}].specializations[{j}]", id=current.pk if current else None,
                    name=row.name, skill=name, level=level,
                )
            )  # fmt: skip
        rows.extend(
            SpecializationRow(at=f"skills[{i}].specializations", id=s.pk, name=s.name, remove=True) for s in removed
        )
    specializations = {s.pk: s for skill in skills.values() for s in skill.specializations.all()}
    saves = []
    if dice:
        saves.append(Save("skills", dice, lambda key: f"skills[{at[key]}].die" if key in at else "skills"))
    if any(_changed_specialization(row, specializations) for row in rows):
        saves.append(Save("specializations", rows, _rows_where("skills")))
    return saves


def _changed_specialization(row: SpecializationRow, existing: dict[int, Specialization]) -> bool:
    current = existing.get(row.id) if row.id is not None else None
    return current is None or row.remove or (row.name, row.level) != (current.name, current.level)


def _traits(character: Character, changes: CharacterPatch) -> Save | None:
    rows: list[TraitRow] = []
    traits = list(character.traits.all())
    for field, kind in (("backgrounds", Trait.Kind.BACKGROUND), ("impairments", Trait.Kind.IMPAIRMENT)):
        if field not in changes.model_fields_set:
            continue
        given = getattr(changes, field)
        matches, removed = _pair(given, [t for t in traits if t.kind == kind], lambda t: t.name)
        for j, (row, current) in enumerate(zip(given, matches, strict=True)):
            description = _given(row, "description", current.description if current else "")
            rows.append(TraitRow(at=f"{field}[{j}]", id=current.pk if current else None, kind=kind, name=row.name,
                                 description=description))  # fmt: skip
        rows.extend(TraitRow(at=field, id=t.pk, kind=kind, name=t.name, remove=True) for t in removed)
    existing = {t.pk: t for t in traits}
    if not any(row.id is None or row.remove or _trait_changed(row, existing[row.id]) for row in rows):
        return None
    fallback = "impairments" if "impairments" in changes.model_fields_set else "backgrounds"
    return Save("traits", rows, _rows_where(fallback))


def _trait_changed(row: TraitRow, current: Trait) -> bool:
    return (row.name, row.description) != (current.name, current.description)


def _equipment(character: Character, changes: CharacterPatch) -> Save | None:
    assets: list[AssetRow] = []
    weapons: list[WeaponRow] = []
    armor: list[ArmorRow] = []
    changed = False
    if "assets" in changes.model_fields_set:
        matches, removed = _pair(changes.assets, list(character.assets.all()), lambda a: a.name)
        for j, (row, current) in enumerate(zip(changes.assets, matches, strict=True)):
            skills = [s.name for s in current.skills.all()] if current else []
            new = AssetRow(
                at=f"assets[{j}]", id=current.pk if current else None, name=row.name,
                level=_given(row, "level", current.level if current else None),
                kind=_given(row, "kind", current.kind if current else Asset.Kind.THING),
                skills=tuple(_given(row, "skills", skills)),
                description=_given(row, "description", current.description if current else ""),
            )  # fmt: skip
            assets.append(new)
            changed |= current is None or _asset_changed(new, current, skills)
        assets.extend(AssetRow(at="assets", id=a.pk, name=a.name, level=a.level, remove=True) for a in removed)
        changed |= bool(removed)
    if "weapons" in changes.model_fields_set:
        matches, removed = _pair(changes.weapons, list(character.weapons.all()), lambda w: w.name)
        for j, (row, current) in enumerate(zip(changes.weapons, matches, strict=True)):
            new = WeaponRow(
                at=f"weapons[{j}]", id=current.pk if current else None, name=row.name,
                accuracy=_given_die(row, "accuracy", current.accuracy if current else None),
                damage=_given_die(row, "damage", current.damage if current else None),
            )  # fmt: skip
            weapons.append(new)
            changed |= current is None or _weapon_changed(new, current)
        weapons.extend(
            WeaponRow(at="weapons", id=w.pk, name=w.name, accuracy=StepDie.none(), damage=StepDie.none(), remove=True)
            for w in removed
        )
        changed |= bool(removed)
    if "armor" in changes.model_fields_set:
        matches, removed = _pair(changes.armor, list(character.armor.all()), lambda a: a.name)
        for j, (row, current) in enumerate(zip(changes.armor, matches, strict=True)):
            new = ArmorRow(
                at=f"armor[{j}]", id=current.pk if current else None, name=row.name,
                defense=_given_die(row, "defense", current.defense if current else None),
            )  # fmt: skip
            armor.append(new)
            changed |= current is None or (new.name, new.defense.rung) != (current.name, current.defense)
        armor.extend(ArmorRow(at="armor", id=a.pk, name=a.name, defense=StepDie.none(), remove=True) for a in removed)
        changed |= bool(removed)
    if not changed:
        return None
    fallback = next(field for field in ("assets", "weapons", "armor") if field in changes.model_fields_set)
    return Save("equipment", Equipment(assets=assets, weapons=weapons, armor=armor), _rows_where(fallback))


def _asset_changed(new: AssetRow, current: Asset, skills: list[str]) -> bool:
    return (new.name, new.level, new.kind, set(new.skills), new.description) != (
        current.name, current.level, current.kind, set(skills), current.description
    )  # fmt: skip


def _weapon_changed(new: WeaponRow, current: Weapon) -> bool:
    return (new.name, new.accuracy.rung, new.damage.rung) != (current.name, current.accuracy, current.damage)


def _single(changes: CharacterPatch, field: str, section: str, current: Any) -> Save | None:
    if field not in changes.model_fields_set or getattr(changes, field) == current:
        return None
    return Save(section, getattr(changes, field), lambda key: field)


def _fixed(document: dict[str, Any], changes: CharacterPatch, problems: dict[str, list[str]]) -> None:
    """The fields no section holds may come back only as they are."""
    given = changes.model_dump(by_alias=True, exclude_unset=True)
    for field in FIXED:
        if field in given and given[field] != document[field]:
            problems.setdefault(field, []).append(
                "No part of the sheet holds this, so it cannot change here: send it as it is, or leave it out."
            )


def _saves(character: Character, document: dict[str, Any], changes: CharacterPatch) -> list[Save]:
    """Each section the PATCH changes, in the sheet's order, or a 400 for what no section can take."""
    problems: dict[str, list[str]] = {}
    _fixed(document, changes, problems)
    skills = _skills(character, changes, problems)
    if problems:
        raise _refused(InvalidChange, problems)
    saves = [
        _details(character, changes),
        _abilities(character, changes),
        *skills,
        _traits(character, changes),
        _equipment(character, changes),
        _single(changes, "hit_points", "hit-points", character.hit_points),
        _single(changes, "reputation", "reputation", character.reputation),
        _single(changes, "notes", "notes", character.notes),
    ]
    saves = [save for save in saves if save is not None]
    sections = [save.section for save in saves]
    if "hit-points" in sections and "abilities" in sections:
        # Each save checks the hit points against the Pulse die as it then is; when the Pulse
        # shrinks, the hit points must come down first (when it grows, they go up after it).
        pulse = next(save for save in saves if save.section == "abilities").data["pulse"]
        if character.pulse and pulse.rung and pulse.rung < character.pulse:
            saves.sort(key=lambda save: save.section != "hit-points")
    return saves


@router.patch(
    "/characters/{id}",
    response=responses({200: CharacterDocument, 409: StaleVersion}, 400, 403, 404, 413),
    by_alias=True,
    summary="Change a character",
)
def update_character(request: HttpRequest, id: PathId, changes: CharacterPatch) -> Any:
    """A partial document with the `version` it was read at. Each part of the sheet it changes is
    saved as the sheet saves it, with the same rules and permissions: the player changes the
    story (name, concept, backgrounds and impairments, equipment, notes, and the names of their
    specializations), the GM everything. A part you may not change is a 403 that says why; a
    value that breaks a rule is a 400 with `errors` by the document's fields; a `version` that
    is not the sheet's is a 409 with the document as it is now. Nothing is saved unless all of
    it is. Fields left out stay as they are; a list replaces the whole list (its rows are
    matched to the sheet's by name, then in order); `abilities` and each listed skill change
    only what they give. Returns the new document."""
    character = access.character_for(request.user, id, write=True)
    try:
        with transaction.atomic():
            version = Character.objects.lock(character.pk).version  # the campaign first, then the character
            if changes.version != version:
                raise _Stale
            full = sheets.with_sheet(Character.objects.filter(pk=character.pk)).get()
            saves = _saves(full, exchange.export_character(full), changes)
            problems: dict[str, list[str]] = {}
            for save in saves:
                try:
                    operations.save_section(
                        character_id=character.pk, section=save.section, version=changes.version, data=save.data,
                        by=request.user,
                    )  # fmt: skip
                except operations.InvalidSection as problem:
                    for key, messages in problem.errors.items():
                        problems.setdefault(save.where(key), []).extend(messages)
                except operations.StaleSection:
                    raise _Stale from None
            if problems:
                raise _refused(InvalidChange, problems)  # and every section saved above is rolled back
    except _Stale:
        document = _document(character.pk)
        return Status(
            409,
            {
                "code": "stale_version",
                "message": f"This character changed since version {changes.version}: it is at version "
                f"{document['version']}. Nothing was saved; here is the document as it is now.",
                "document": document,
            },
        )
    return _document(character.pk)
