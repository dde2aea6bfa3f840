"""The API's characters endpoints: a campaign's characters, an export, an import, and one
character, read and changed.

A character is read as its system's sheet document (``sheet``, which names its ``system``; every
item carries its id), with the fields clients have always read beside it (``abilities``,
``skills``, ``backgrounds``…, taken from the sheet). Characters load through
:mod:`characters.access` (and their campaign through :mod:`campaigns.access`). The export and the
import are :mod:`characters.exchange`, as on the export and import pages. A section of any system's
sheet is changed whole (``PUT …/sections/{key}``); a system may add the fields its characters show
beside the sheet and a PATCH of a partial character (:mod:`api.extensions`: Lucky 13's are in
:mod:`games.lucky13.api`).
"""

from __future__ import annotations

import re
from typing import Annotated, Any, Final, Literal, Union

from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.urls import reverse
from ninja import Field, Path, Query, Router, Schema, Status
from pydantic import (
    BaseModel,
    ConfigDict,
    StrictInt,
    StringConstraints,
    create_model,
)

from api import errors, extensions
from api.errors import Error, InvalidChange, InvalidDocument, refused_by_field, responses
from api.params import MAX_ID, ONE_LINE, PathId
from campaigns.access import campaign_for
from campaigns.errors import Conflict
from campaigns.presenters import MAX_KEY_NAME, NameKey, page_by_name
from characters import access, exchange, lifecycle, operations, write
from characters.models import Character
from rules import systems
from rules.systems.base import EditRefused, Role, RulesSystem, SheetInvalid

router = Router(tags=["Characters"])

#: The most fields a section's value may have (its sheet's own rules give the real limits: a 400 that says them).
ROWS: Final = 100


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


class Arrival(Schema):
    status: Literal["draft", "active", "archived"] = Field(description="The status it joins with once approved.")
    from_: str = Field(alias="from", description="Where it comes from, in words.")
    differs: list[str] = Field(
        default=[],
        description="What plays differently here, items matched by name (case and spacing aside): what the GM's "
        "approval changes (this campaign's spellings and links, values counted at its rates) and what stays.",
    )
    left: list[str] = Field(default=[], description="What of it stayed with the campaign it came from.")


class Waiting(Schema):
    item: str = Field(description="Its key: what `POST /characters/{id}/awaiting` names.")
    words: str = Field(description='What it is, in its system\'s words: "Weapon: Halberd, accuracy d8, damage d10".')
    section: str = Field(description="The section of the sheet it is in (`GET /characters/{id}/sections`).")


class CharacterCore(Schema):
    id: int
    system: str = Field(description="The rules system of the character (and of `sheet`).")
    status: Literal["draft", "active", "archived"]
    version: int = Field(description="The sheet's version: it rises with every save. A PATCH must send it.")
    name: str
    sheet: SheetDocument
    arrival: Arrival | None = Field(
        default=None,
        description="An import from elsewhere that waits, as a draft, for the GM: approved as it stands or "
        "checked as a fresh creation (`POST /characters/{id}/arrival`); null otherwise.",
    )
    awaiting: list[Waiting] = Field(
        default=[],
        description="The sheet's items that wait for the GM's approval (a player's new gear), in the sheet's "
        "order: the GM approves or refuses each (`POST /characters/{id}/awaiting`).",
    )


#: A character: its sheet (its system's document, every item with its id), and beside it the fields a
#: system adds (Lucky 13's export fields, which clients have always read and a PATCH changes); a
#: character of another system has only its sheet (those fields are null). Made from the systems
#: registered when the API is built.
CharacterOut = create_model(
    "CharacterOut",
    __base__=(CharacterCore, *(e.named_fields for e in extensions.registered() if e.named_fields is not None)),
    __doc__="A character: its sheet, every item with its id, and beside it the fields its system adds "
    "(a Lucky 13 character's export fields, which a PATCH changes; null for another system's).",
)


class StaleVersion(Error):
    now: CharacterOut = Field(description="The character as it is now, with its sheet.")


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
        "arrival": character.arrival,
        "awaiting": [
            {"item": entry.item, "words": entry.words, "section": entry.section}
            for entry in character.rules.awaiting(character.document)
        ],
        **character.rules.named_fields(character.document, character.campaign.settings),
    }


def _reread(pk: int) -> dict[str, Any]:
    return character_out(Character.objects.select_related("campaign", "owner").get(pk=pk))


# A sheet changed since the version a change was made from, wherever the API meets it (a purchase, say): the
# 409 gives the character as it is now, as every stale version's does.
errors.explain_now(write.StaleSheet, lambda stale: _reread(stale.character.pk))


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
    page, next_key = page_by_name(access.listed_characters(campaign, request.user), key, limit)
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
        raise refused_by_field(InvalidDocument, errors) from None
    response["Location"] = request.build_absolute_uri(reverse("api-v1:character", args=[character.pk]))
    return Status(201, _reread(character.pk))


# --- A PATCH, for a system that has one --------------------------------------------------------


def _stale(pk: int, version: int) -> Status:
    document = _reread(pk)
    message = (
        f"This character changed since version {version}: it is at version {document['version']}. "
        "Nothing was saved; here it is as it is now."
    )
    return Status(409, {"code": "stale_version", "message": message, "now": document})


#: The PATCH bodies of the systems that have one, registered when the API is built.
PATCHES: Final = [e.patch for e in extensions.registered() if e.patch is not None]

if PATCHES:
    CharacterPatch = PATCHES[0] if len(PATCHES) == 1 else Union[tuple(PATCHES)]  # noqa: UP007 (built at run time)

    @router.patch(
        "/characters/{id}",
        response=responses({200: CharacterOut, 409: StaleVersion}, 400, 403, 404, 413),
        by_alias=True,
        summary="Change a character",
    )
    def update_character(request: HttpRequest, id: PathId, changes: CharacterPatch) -> Any:  # type: ignore[valid-type]
        """A partial document with the `version` it was read at, for a character whose system takes
        one (Lucky 13's; any character's sheet changes a section at a time, by PUT). Each part of the
        sheet it changes is saved as the sheet saves it, with the same rules and permissions: the
        player changes the story (name, concept, backgrounds and impairments, equipment, notes, and
        the names of their specializations), the GM everything. A part you may not change is a 403
        that says why; a value that breaks a rule is a 400 with `errors` by the document's fields; a
        `version` that is not the sheet's is a 409 with the character and its sheet as they are now.
        Nothing is saved unless all of it is. Fields left out stay as they are; a list replaces the
        whole list (a row with an `id` is the sheet's item of that id; the others are matched to the
        sheet's items by name, then in order); `abilities` and each listed skill change only what
        they give; `sheet` and the other fields no part of the sheet holds may only come back as
        they are. Returns the character as it is now."""
        character = access.character_for(request.user, id, write=True)
        extension = extensions.of(character.system)
        if extension is None or extension.apply_patch is None or not isinstance(changes, extension.patch):
            raise InvalidChange(
                f"A {character.rules.name} character is changed a section at a time: "
                f"PUT /api/v1/characters/{character.pk}/sections/{{key}} (GET …/sections lists them)."
            )
        try:
            with transaction.atomic():
                locked = write.lock(character.pk)  # the campaign first, then the character
                extension.apply_patch(locked, changes, request.user, character_out(locked))
        except extensions.StalePatch:
            return _stale(character.pk, changes.version)
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
                "now": document,
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
        raise refused_by_field(InvalidChange, problems) from None
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
        return Status(409, {"code": "stale_version", "message": message, "now": document})
    except Conflict as conflict:  # already archived, not archived, its player gone: as it is now
        return Status(409, {"code": "conflict", "message": conflict.message, "now": _reread(character.pk)})
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


class ArrivalDecision(Schema):
    decision: Literal["approve", "fresh"] = Field(
        description="`approve`: as it stands; `fresh`: checked as a fresh creation under this campaign's rules."
    )


@router.post(
    "/characters/{id}/arrival",
    response=responses({200: CharacterOut}, 400, 403, 404, 409),
    by_alias=True,
    summary="Decide on an imported character that waits for the GM",
)
def decide_arrival(request: HttpRequest, id: PathId, body: ArrivalDecision) -> Any:
    """The GM approves an import from elsewhere as it stands, or has it checked as a fresh creation of
    this campaign (a 400 listing what its creation rules refuse, nothing changed). A 403 for anyone but
    the GM; a 409 when nothing waits. Returns the character as it is now."""
    character = access.character_for(request.user, id)
    try:
        exchange.decide_arrival(character_id=character.pk, approve=body.decision == "approve", by=request.user)
    except exchange.ArrivalRefused as refused:
        message = " ".join(write.sentence(m) for m in refused.messages)
        return Status(refused.status, {"code": "arrival_refused", "message": message})
    return _reread(character.pk)


class AwaitingDecision(Schema):
    model_config = ConfigDict(extra="forbid")

    item: Annotated[str, StringConstraints(min_length=1, max_length=operations.MAX_ITEM_LENGTH, pattern=ONE_LINE)] = (
        Field(description="The waiting item's key, from the character's `awaiting`.")
    )
    decision: Literal["approve", "refuse"] = Field(
        description="`approve`: it comes into play; `refuse`: it is taken off the sheet (it never came into play)."
    )


@router.post(
    "/characters/{id}/awaiting",
    response=responses({200: CharacterOut}, 400, 403, 404, 409),
    by_alias=True,
    summary="Approve or refuse a sheet's item that waits for the GM",
)
def decide_awaiting(request: HttpRequest, id: PathId, body: AwaitingDecision) -> Any:
    """The GM approves or refuses one of the items that wait on the sheet (its `awaiting`), as the
    campaign page and the dashboard do: through the sheet's one write path, in its history. A 403 for
    anyone but the GM; a 409 when the item no longer waits (decided already, or changed), or when the
    character or the campaign is archived. Returns the character as it is now."""
    character = access.character_for(request.user, id)
    operations.decide_awaiting(
        character_id=character.pk, item=body.item, approve=body.decision == "approve", by=request.user
    )
    return _reread(character.pk)
