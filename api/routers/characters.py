"""The API's characters endpoints: a campaign's characters, an export, an import, and one
character, read and changed.

A character is read as its system's sheet document (``sheet``, which names its ``system``; every
item carries its id), with the fields clients have always read beside it (``abilities``,
``skills``, ``backgrounds``…, taken from the sheet). Characters load through
:mod:`characters.access` (and their campaign through :mod:`campaigns.access`). The export and the
import are :mod:`characters.exchange`, as on the export and import pages. A PATCH is a partial
character: each part of the sheet it changes is saved through
:func:`games.lucky13.sections.save_section`, as the sheet's Save buttons do, all in one transaction.

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

The other fields (``id``, ``system``, ``status``, ``sheet``, ``ability_names``, ``ability_method``,
``took_impairment``, and a skill's ``name`` and ``ability``) are not on any section: a PATCH may
repeat them as they are, and anything else there is a 400. A list replaces the list; each of its
rows is the sheet's item with the row's ``id`` when it gives one, else the first unclaimed item
of its name, else the next unclaimed item in order, so a row renamed in place stays itself.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, Final, Literal, Protocol, TypeVar, Union

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from ninja import Field, Path, Query, Router, Schema, Status
from pydantic import (
    BaseModel,
    ConfigDict,
    StrictBool,
    StrictInt,
    StringConstraints,
    create_model,
)

from api.errors import Error, responses
from api.params import MAX_ID, NO_NUL, PathId
from campaigns.access import campaign_for, listed_characters
from campaigns.errors import Conflict, Refused
from campaigns.presenters import MAX_KEY_NAME, NameKey, page_by_name
from characters import access, exchange, lifecycle, operations, write
from characters.models import Character
from games.lucky13 import sections
from games.lucky13.sections import ArmorRow, AssetRow, Details, Equipment, SpecializationRow, TraitRow, WeaponRow
from rules import systems
from rules.dice import DiceError, StepDie
from rules.document import MAX_ITEM_ID
from rules.systems.base import EditRefused, Role, RulesSystem, SheetInvalid

router = Router(tags=["Characters"])

# Bounds that keep absurd input out (a 422); the sheet's own rules give the real limits (a 400 that says them).
NAME: Final = 200
DIE: Final = 20
CONCEPT: Final = 1000
DESCRIPTION: Final = 10_000
NOTES: Final = 100_000
ROWS: Final = 100
#: The five abilities of the export document, by the keys it uses whatever a campaign calls them.
ABILITY_KEYS: Final = ("will", "charm", "pulse", "intellect", "reflex")

Text = Annotated[str, StringConstraints(max_length=NAME, pattern=NO_NUL)]
DieLabel = Annotated[str, StringConstraints(max_length=DIE, pattern=NO_NUL)]
ItemId = Annotated[StrictInt, Field(ge=1, le=MAX_ITEM_ID)]


def _no_default(schema: dict[str, Any]) -> None:
    schema.pop("default", None)


def optional(**constraints: Any) -> Any:
    """A field that a PATCH may leave out, but not send as null (what the document never holds)."""
    return Field(None, json_schema_extra=_no_default, **constraints)


# --- The sheet: each system's document, naming its system ----------------------------------------


def _named_sheet(system: RulesSystem) -> type[BaseModel]:
    """The system's sheet model with a ``system`` field holding its key, to tell the systems apart."""
    title = "".join(part.capitalize() for part in re.split(r"[^A-Za-z0-9]+", system.key))
    return create_model(
        f"{title}Sheet",
        __base__=system.sheet_model,
        __doc__=f"A {system.name} character's sheet: the document its system validates, with its items' ids.",
        system=(Literal[system.key], Field(description="The rules system whose document this is.")),
    )


#: A sheet of any system this server plays, told apart by its ``system`` (the systems registered when
#: the API is built, at start-up).
SheetDocument = Annotated[
    Union[tuple(_named_sheet(system) for system in systems.all_systems())],  # noqa: UP007 (built at run time)
    Field(discriminator="system", description="The character's sheet: its system's document, by `system`."),
]


def sheet_of(character: Character) -> dict[str, Any]:
    """The character's sheet as its system's JSON document, naming the system."""
    return {"system": character.system, **character.document.model_dump(mode="json")}


# --- The character: its sheet, and the fields clients read beside it ---------------------------


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


class CharacterOut(Schema):
    """A character: its sheet (its system's document, every item with its id), and beside it, for a
    Lucky 13 character, the fields clients have always read (taken from the sheet), which a PATCH
    changes; a character of another system has only its sheet (those fields are null)."""

    id: int
    system: str = Field(description="The rules system of the character (and of `sheet`).")
    status: Literal["draft", "active", "archived"]
    version: int = Field(description="The sheet's version: it rises with every save. A PATCH must send it.")
    name: str
    sheet: SheetDocument
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


class StaleVersion(Error):
    document: CharacterOut = Field(description="The character as it is now, with its sheet.")


class CharacterSummary(Schema):
    id: int
    name: str
    concept: str
    status: Literal["draft", "active", "archived"]
    owner: str = Field(description="The player's username.")
    version: int
    hit_points: int | None


#: Characters on one page of a campaign's list unless the client asks for fewer (or up to MAX_PAGE).
PAGE: Final = 100
MAX_PAGE: Final = 500


class CharacterPage(Schema):
    characters: list[CharacterSummary] = Field(description="In order of name, then id: one page, `limit` at most.")
    next: str | None = Field(
        description="Pass as `after` for the next page; null on the last page. The list is read by key, so a "
        "character added or removed meanwhile moves no other one to another page."
    )


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
    ability: Annotated[str, StringConstraints(max_length=DIE, pattern=NO_NUL)] | None = optional()
    die: DieLabel | None = optional(
        description="Null as a draft's document has it: a finished character's needs a die."
    )
    specializations: list[SpecializationPatch] = optional(max_length=ROWS)


class TraitPatch(_In):
    id: ItemId = optional(description=ROW_ID)
    name: Text
    description: Annotated[str, StringConstraints(max_length=DESCRIPTION, pattern=NO_NUL)] = optional()


class AssetPatch(_In):
    id: ItemId = optional(description=ROW_ID)
    name: Text
    level: StrictInt = optional()
    kind: Annotated[str, StringConstraints(max_length=DIE, pattern=NO_NUL)] = optional()
    skills: list[ItemId | Text] = optional(max_length=ROWS, description="The skills it helps, by name or by id.")
    description: Annotated[str, StringConstraints(max_length=DESCRIPTION, pattern=NO_NUL)] = optional()


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
    concept: Annotated[str, StringConstraints(max_length=CONCEPT, pattern=NO_NUL)] = optional()
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
    notes: Annotated[str, StringConstraints(max_length=NOTES, pattern=NO_NUL)] = optional()


#: Fields no section of the sheet holds: a PATCH may only repeat them.
FIXED: Final = ("id", "system", "status", "sheet", "ability_names", "ability_method", "took_impairment")


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


def character_out(character: Character) -> dict[str, Any]:
    """The character as the API reads it: its sheet, and beside it the named fields its system has
    always shown clients (Lucky 13's export fields; none for a newer system)."""
    return {
        "id": character.pk,
        "system": character.system,
        "status": character.status,
        "version": character.version,
        "name": character.name,
        "sheet": sheet_of(character),
        **character.rules.named_fields(character.document, character.campaign.settings),
    }


def _reread(pk: int) -> dict[str, Any]:
    return character_out(Character.objects.select_related("campaign", "owner").get(pk=pk))


@router.get(
    "/campaigns/{id}/characters",
    response=responses({200: CharacterPage}, 400, 404),
    summary="A campaign's characters",
)
def list_characters(
    request: HttpRequest,
    id: PathId,
    after: str = Query("", max_length=MAX_KEY_NAME + 20, description="The `next` of the page before."),
    limit: int = Query(PAGE, ge=1, le=MAX_PAGE, description="Characters on the page."),
) -> dict[str, Any]:
    """What the campaign page lists for you, a page at a time in order of name: every active
    character, your own drafts, and for the GM every draft and the archived characters too."""
    campaign = campaign_for(request.user, id)
    rules, options = campaign.rules, campaign.settings
    key = NameKey.parse(after, "characters") if after else None
    page, next_key = page_by_name(listed_characters(campaign, request.user), key, limit)
    characters = [
        {
            "id": c.pk,
            "name": c.name,
            "concept": rules.summary(c.document).concept,
            "status": c.status,
            "owner": c.owner.get_username(),
            "version": c.version,
            "hit_points": rules.named_fields(c.document, options).get("hit_points"),
        }
        for c in page
    ]
    return {"characters": characters, "next": str(next_key) if next_key else None}


@router.get(
    "/characters/{id}",
    response=responses({200: CharacterOut}, 404),
    by_alias=True,
    url_name="character",
    summary="A character, with its sheet",
)
def get_character(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """The character's sheet (`sheet`, its system's document, with the id of every item), and
    beside it the fields of its export document (docs/character-schema.md) with its `version`.
    The campaign's members see its characters, except other players' drafts (404)."""
    return character_out(access.character_for(request.user, id))


# --- Export and import ---------------------------------------------------------------------------

#: The body is read as raw JSON (so that every problem is a 400 by field), and described here.
_DOCUMENT_BODY = {"required": True, "content": {"application/json": {"schema": exchange.Envelope.model_json_schema()}}}
_LOCATION = {"description": "The new character's URL in the API.", "schema": {"type": "string"}}


@router.get(
    "/characters/{id}/export",
    response=responses({200: exchange.Envelope}, 404),
    summary="A character, as a document to import",
)
def export_character(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """The character as the export page downloads it (docs/character-schema.md): its sheet in a
    signed envelope, which imports again (here or into another campaign) as it stands."""
    return exchange.export_character(access.character_for(request.user, id))


@router.post(
    "/campaigns/{id}/characters",
    response=responses({201: CharacterOut}, 400, 404, 413),
    by_alias=True,
    summary="Import a character into a campaign",
    openapi_extra={"requestBody": _DOCUMENT_BODY, "responses": {201: {"headers": {"Location": _LOCATION}}}},
)
def import_character(request: HttpRequest, id: PathId, response: HttpResponse) -> Status:
    """The body is a character document (docs/character-schema.md; the older format of named
    fields is read too), at most 256 KB. It becomes a new character of yours in this campaign: a
    signed, unchanged export of this server as it stands, anything else as a fresh creation under
    every creation rule of this campaign. Any problem is a 400 whose `errors` name the document's
    fields, and nothing is created. The new character's URL is in `Location`."""
    campaign = campaign_for(request.user, id)
    try:
        document = exchange.load_document(request.body)
        character = exchange.import_character(campaign=campaign, owner=request.user, document=document)
    except exchange.DocumentError as problem:
        errors: dict[str, list[str]] = {}
        for field, message in problem.errors:
            errors.setdefault(field, []).append(write.sentence(message))
        raise _refused(InvalidDocument, errors) from None
    response["Location"] = request.build_absolute_uri(reverse("api-v1:character", args=[character.pk]))
    return Status(201, _reread(character.pk))


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


def _fixed(current: dict[str, Any], changes: CharacterPatch, problems: _Problems) -> None:
    """The fields no section holds may come back only as they are."""
    given = changes.model_dump(by_alias=True, exclude_unset=True)
    for field in FIXED:
        if field in given and given[field] != current[field]:
            problems.add(
                field, "No part of the sheet holds this, so it cannot change here: send it as it is, or leave it out."
            )


def _saves(character: Character, changes: CharacterPatch) -> list[Save]:
    """Each section the PATCH changes, in the sheet's order, or a 400 for what no section can take."""
    problems = _Problems(character)
    _fixed(character_out(character), changes, problems)
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
        raise _refused(InvalidChange, problems.errors)
    saves = [save for save in saves if save is not None]
    sections = [save.section for save in saves]
    if "hit-points" in sections and "abilities" in sections:
        # Each save checks the hit points against the Pulse die as it then is; when the Pulse
        # shrinks, the hit points must come down first (when it grows, they go up after it).
        pulse = next(save for save in saves if save.section == "abilities").data["pulse"]
        if pulse.rung and pulse.rung < _rung(document.abilities.pulse):
            saves.sort(key=lambda save: save.section != "hit-points")
    return saves


@router.patch(
    "/characters/{id}",
    response=responses({200: CharacterOut, 409: StaleVersion}, 400, 403, 404, 413),
    by_alias=True,
    summary="Change a character",
)
def update_character(request: HttpRequest, id: PathId, changes: CharacterPatch) -> Any:
    """A partial document with the `version` it was read at. Each part of the sheet it changes is
    saved as the sheet saves it, with the same rules and permissions: the player changes the
    story (name, concept, backgrounds and impairments, equipment, notes, and the names of their
    specializations), the GM everything. A part you may not change is a 403 that says why; a
    value that breaks a rule is a 400 with `errors` by the document's fields; a `version` that
    is not the sheet's is a 409 with the character and its sheet as they are now. Nothing is
    saved unless all of it is. Fields left out stay as they are; a list replaces the whole list
    (a row with an `id` is the sheet's item of that id; the others are matched to the sheet's
    items by name, then in order); `abilities` and each listed skill change only what they give;
    `sheet` and the other fields no part of the sheet holds may only come back as they are.
    Returns the character as it is now."""
    character = access.character_for(request.user, id, write=True)
    try:
        with transaction.atomic():
            locked = write.lock(character.pk)  # the campaign first, then the character
            if write.is_stale(locked, changes.version):
                raise _Stale
            problems: dict[str, list[str]] = {}
            for save in _saves(locked, changes):
                try:
                    sections.save_section(
                        character_id=character.pk, section=save.section, version=changes.version, data=save.data,
                        by=request.user,
                    )  # fmt: skip
                except operations.InvalidSection as problem:
                    for key, messages in problem.errors.items():
                        problems.setdefault(save.where(key), []).extend(messages)
                except SheetInvalid as problem:
                    for found in problem.problems:
                        problems.setdefault(save.where(found.field), []).append(write.sentence(found.message))
                except (operations.StaleSection, write.StaleSheet):
                    raise _Stale from None
            if problems:
                raise _refused(InvalidChange, problems)  # and every section saved above is rolled back
    except _Stale:
        document = _reread(character.pk)
        return Status(
            409,
            {
                "code": "stale_version",
                "message": f"This character changed since version {changes.version}: it is at version "
                f"{document['version']}. Nothing was saved; here it is as it is now.",
                "document": document,
            },
        )
    return _reread(character.pk)


# --- A section, for every system -----------------------------------------------------------------


class SectionEdit(Schema):
    """One section of the sheet, whole, with the sheet's `version` it was read at."""

    model_config = ConfigDict(extra="forbid")

    version: StrictInt = Field(..., ge=0, le=MAX_ID, description="The sheet's version this was read at.")
    value: dict[str, Any] = Field(
        ...,
        max_length=ROWS,
        description="The section's part of the sheet (`sheet`), as the system's document holds it: "
        'Lucky 13\'s `notes` section is `{"notes": "…"}`.',
    )


class Sections(Schema):
    sections: list[dict[str, Any]] = Field(
        ..., description="Each section of the sheet: its `key`, its `label`, and who may change it (`editors`)."
    )


@router.get(
    "/characters/{id}/sections",
    response=responses({200: Sections}, 404),
    summary="The sections of a character's sheet",
)
def list_sections(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """The parts of the sheet that are changed as one, as its rules system has them, and who may
    change each: the player (`owner`), the GM (`gm`)."""
    character = access.character_for(request.user, id)
    return {
        "sections": [
            {"key": s.key, "label": s.label, "editors": sorted(role.value for role in s.editors)}
            for s in character.rules.edit_sections
        ]
    }


@router.put(
    "/characters/{id}/sections/{section}",
    response=responses({200: CharacterOut, 409: StaleVersion}, 400, 403, 404, 413),
    by_alias=True,
    summary="Change one section of a character's sheet",
)
def edit_section(
    request: HttpRequest, id: PathId, section: Annotated[str, Path(max_length=40)], edit: SectionEdit
) -> Any:
    """The section replaced by `value`, through the sheet's one write path, for a character of any
    rules system: validated on the whole sheet the change makes (a 400 whose `errors` name the
    sheet's fields), refused to a role the system does not let change it (a 403 that says why),
    and refused when the sheet is no longer at `version` (a 409 with the character as it is now).
    Nothing is saved unless all of it is. Returns the character as it is now."""
    character = access.character_for(request.user, id, write=True)
    spec = next((s for s in character.rules.edit_sections if s.key == section), None)
    if spec is None:
        raise Http404("No such section")
    role = Role.GM if character.viewer_is_gm else Role.OWNER

    def edited(locked: Character) -> Any:
        rules = locked.rules
        return rules.edit(locked.document, section, edit.value, role=role, options=locked.campaign.settings)

    try:
        write.change(
            character.pk, version=edit.version, by=request.user, what=f"{spec.label.capitalize()} changed (API)",
            sections=[section], edit=edited,
        )  # fmt: skip
    except write.StaleSheet:
        document = _reread(character.pk)
        return Status(
            409,
            {
                "code": "stale_version",
                "message": f"This character changed since version {edit.version}: it is at version "
                f"{document['version']}. Nothing was saved; here it is as it is now.",
                "document": document,
            },
        )
    except EditRefused as refused:
        raise PermissionDenied(write.sentence(refused.message)) from None
    except SheetInvalid as problem:
        problems: dict[str, list[str]] = {}
        for found in problem.problems:
            problems.setdefault(f"sheet.{found.field}" if found.field else "sheet", []).append(
                write.sentence(found.message)
            )
        raise _refused(InvalidChange, problems) from None
    return _reread(character.pk)


class Move(Schema):
    """A move of the character, made from the sheet's `version`."""

    model_config = ConfigDict(extra="forbid")

    version: StrictInt = Field(..., ge=0, le=MAX_ID, description="The sheet's version this was read at.")


def _moved(request: HttpRequest, id: int, move: Move, *, restoring: bool) -> Any:
    character = access.character_for(request.user, id)
    act = lifecycle.restore if restoring else lifecycle.archive
    try:
        act(character_id=character.pk, version=move.version, by=request.user)
    except write.StaleSheet:
        document = _reread(character.pk)
        message = (
            f"This character changed since version {move.version}: it is at version {document['version']}. "
            "Nothing was changed; here it is as it is now."
        )
        return Status(409, {"code": "stale_version", "message": message, "document": document})
    except Conflict as conflict:  # already archived, not archived, its player gone: as it is now
        return Status(409, {"code": "conflict", "message": conflict.message, "document": _reread(character.pk)})
    return _reread(character.pk)


@router.post(
    "/characters/{id}/archive",
    response=responses({200: CharacterOut, 409: StaleVersion}, 400, 403, 404),
    by_alias=True,
    summary="Archive a character",
)
def archive_character(request: HttpRequest, id: PathId, move: Move) -> Any:
    """The character leaves play, kept whole (its sheet read-only, its history, ledger and rolls
    kept): by its player or the GM. A 409 when it is already archived, or when the sheet is no longer
    at `version` (with the character as it is now). Returns the character as it is now."""
    return _moved(request, id, move, restoring=False)


@router.post(
    "/characters/{id}/restore",
    response=responses({200: CharacterOut, 409: StaleVersion}, 400, 403, 404),
    by_alias=True,
    summary="Restore an archived character",
)
def restore_character(request: HttpRequest, id: PathId, move: Move) -> Any:
    """The GM brings an archived character back: into play if it was ever finished, else as the draft
    it was. A 409 when it is not archived, when its player is no longer in the campaign (invite them
    back first), or when the sheet is no longer at `version`. Returns the character as it is now."""
    return _moved(request, id, move, restoring=True)
