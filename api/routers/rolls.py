"""Rolls: a roll from a character's sheet, a campaign's log read a page at a time, and the check
of the log's hash chain.

A sheet roll is built by :mod:`play.sheet_rolls`, exactly as the sheet's roll page builds
it: the body only names the skill, specialization and asset (by their ids on the sheet), the
helper (a character's id) and the options; the dice come from the sheet and are rolled here,
with ``secrets.SystemRandom``.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Annotated, Any, Final, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema, Status
from ninja.errors import ValidationError
from pydantic import StringConstraints
from pydantic import ValidationError as PydanticError

from api import parsing
from api.errors import responses
from api.params import MAX_ID, ONE_LINE, PathId
from campaigns import access as campaign_access
from campaigns.errors import NotAllowed, NotFound, Refused
from campaigns.models import Membership
from characters import access
from characters.write import sentence
from play import chain, proposals, requests, sheet_rolls
from play.models import Roll, RollProposal, RollRequest
from play.rolls import label_of, system_of
from rules import systems
from rules.systems.base import SpecError
from web import bounded_json, limits

router = Router(tags=["Rolls"])

#: Rolls on a page of the log when the request does not say; at most MAX_LIMIT.
DEFAULT_LIMIT: Final = 50
MAX_LIMIT: Final = 200


def _inlined(schema: dict[str, Any]) -> dict[str, Any]:
    """A model's JSON Schema with its ``$defs`` written in place: in the OpenAPI document a
    ``#/$defs/…`` reference would point at the document's root, not at the schema."""
    defs = schema.pop("$defs", {})

    def resolve(node: Any) -> Any:
        if isinstance(node, dict):
            ref = node.get("$ref", "")
            if ref.startswith("#/$defs/"):
                return resolve({**defs[ref.removeprefix("#/$defs/")], **{k: v for k, v in node.items() if k != "$ref"}})
            return {key: resolve(value) for key, value in node.items()}
        if isinstance(node, list):
            return [resolve(item) for item in node]
        return node

    return resolve(schema)


def _situation_schemas() -> list[dict[str, Any]]:
    """The situation of a sheet roll as each registered system reads one: a schema per system."""
    return [_inlined(system.situation_model.model_json_schema()) for system in systems.all_systems()]


def _situation_body() -> dict[str, Any]:
    """The request body as the OpenAPI document describes it: the situation of a sheet roll, as the
    character's system reads one (one schema per registered system)."""
    schemas = _situation_schemas()
    examples = [example for schema in schemas for example in schema.get("examples", ())]
    content = {"schema": {"oneOf": schemas} if len(schemas) > 1 else schemas[0]}
    if examples:
        content["example"] = examples[0]
    return {"required": True, "content": {"application/json": content}}


class InvalidRoll(Refused):
    code = "invalid_roll"


def _situation(character: Any, body: bytes) -> dict[str, Any]:
    """The body read as the character's system's situation: not JSON, or a field of the wrong shape,
    is a 422 naming the field (as every schema of the API answers); the sheet's rules come after."""
    try:
        data = parsing.loads(body or b"{}")
    except bounded_json.TooDeep:
        raise  # the API's 400 too_deep, as for every body
    except (ValueError, UnicodeDecodeError):
        raise ValidationError([{"loc": ("body",), "msg": "The body is not JSON."}]) from None
    return situation_of(character, data, ("body", "roll"))


def _fits_a_system(data: Any) -> bool:
    """Whether ``data`` is the situation of some system the server plays: what the schema, one situation
    per system, calls valid."""
    for system in systems.all_systems():
        try:
            system.situation_model.model_validate(data)
        except PydanticError:
            continue
        return True
    return False


def situation_of(character: Any, data: Any, loc: tuple[str, ...]) -> dict[str, Any]:
    """``data`` read as the character's system's situation; a field of the wrong shape is a 422 naming it
    (under ``loc``). A situation the schema allows, another system's, is a 400 of the rules instead: the
    request is well formed, but this character's system rolls no such thing."""
    try:
        situation = character.rules.situation_model.model_validate(data)
    except PydanticError as error:
        if _fits_a_system(data):
            where = {".".join(str(part) for part in p["loc"]) or "body": p["msg"] for p in error.errors()}
            raise InvalidRoll(
                f"Not a roll of {character.rules.name}: {next(iter(where))}: {next(iter(where.values()))}",
                errors=where,
            ) from None
        raise ValidationError(
            [{"loc": (*loc, *problem["loc"]), "msg": problem["msg"]} for problem in error.errors()]
        ) from None
    return situation.model_dump(mode="json", exclude_none=True)


class RollOut(Schema):
    """A roll of the log. A secret roll the GM has not revealed shows to players only as a placeholder:
    ``hidden`` true, and nothing but its number and time."""

    id: int
    seq: int = Field(..., description="Its number in the campaign's log: 1, 2, 3 …")
    hidden: bool
    secret: bool
    revealed_at: datetime | None
    created_at: datetime
    kind: str | None
    system: str | None = Field(..., description="The campaign's rules system the roll followed, e.g. `lucky13`.")
    label: str | None = Field(
        ..., description='What was rolled, in the words said when it was rolled: "Reflex + Fighting vs Difficult".'
    )
    by: str | None = Field(..., description="Who rolled: a username.")
    character: int | None = Field(..., description="The character's id, for a roll made for one.")
    spec: dict[str, Any] | None = Field(..., description="What was rolled, in full.")
    dice: list[Any] | dict[str, Any] | None = Field(
        ..., description="Every die as rolled: its faces, the first and then each explosion."
    )
    total: int | None
    success: bool | None
    margin: int | None
    dilemma: bool | None
    outcome: dict[str, Any] | None
    chance: str | None = Field(..., description='The exact chance computed before the roll, "p/q".')
    chance_of: str | None = Field(..., description="What the chance is the chance of, or why there is none.")
    follows: int | None = Field(None, description="A reroll: the number (`seq`) of the roll it replaces.")


class RollPage(Schema):
    rolls: list[RollOut]
    next: int | None = Field(
        ..., description="Pass as `after` for the next page; null when this page reached the newest roll."
    )


class ChainOut(Schema):
    count: int = Field(..., description="Rolls checked, up to and including the first broken link.")
    broken: int | None = Field(..., description="The seq of the first roll that does not match; null if none.")
    ok: bool
    reason: str = Field(
        "",
        description="What is wrong at `broken`, in words (a roll changed or missing, a cut tail, a key the server no "
        "longer holds); empty when the chain holds.",
    )
    complete: bool = Field(
        True,
        description="False when this Verify stopped at its budget with rolls still to check: ask again to go on.",
    )


def _typed(value: Any, kind: type) -> Any:
    return value if type(value) is kind else None


def roll_out(roll: Roll, *, gm: bool) -> dict[str, Any]:
    """What a member sees of one roll: everything, or for a player a placeholder of a secret one."""
    hidden = roll.secret and not gm and roll.revealed_at is None
    shown: dict[str, Any] = {
        "id": roll.pk,
        "seq": roll.seq,
        "hidden": hidden,
        "secret": roll.secret,
        "revealed_at": None if hidden else roll.revealed_at,
        "created_at": roll.created_at,
    }
    if hidden:
        # The words too: a secret roll's label says as much as its dice.
        empty = ("kind", "system", "label", "by", "character", "spec", "dice", "total", "success", "margin")
        return {**shown, **dict.fromkeys((*empty, "dilemma", "outcome", "chance", "chance_of", "follows"))}
    outcome = roll.outcome if isinstance(roll.outcome, dict) else {}
    return {
        **shown,
        "kind": roll.kind,
        "system": system_of(roll),
        "label": label_of(roll),
        "by": roll.by.get_username(),
        "character": roll.character_id,
        "spec": roll.spec,
        "dice": roll.dice,
        "total": roll.total,
        "success": _typed(outcome.get("success"), bool),
        "margin": _typed(outcome.get("margin"), int),
        "dilemma": _typed(outcome.get("dilemma"), bool),
        "outcome": outcome,
        "chance": roll.chance,
        "chance_of": roll.chance_of,
        "follows": roll.follows,
    }


@router.post(
    "/characters/{id}/rolls",
    response=responses({201: RollOut}, 400, 403, 404, 409, 413),
    summary="Roll from a character's sheet",
    openapi_extra={"requestBody": _situation_body()},
    description="Builds the roll from the sheet as it is now (as the sheet's roll page does), computes its exact "
    "chance, rolls it on the server and records it in the campaign's log, with `label` saying in words what was "
    "rolled. The body is the situation as the character's rules system reads it (Lucky 13: the skill, "
    "specialization and asset by their ids on the sheet, the helper by the character's id, the difficulty…). The "
    "owner and the GM roll; other members get 403, anyone else 404. A field of the wrong shape is a 422, a choice "
    "the sheet does not offer a 400, each naming the field; the GM's part of a situation (Lucky 13: extra steps) "
    "from anyone else is a 403. Unless the campaign lets players call their own rolls, a player rolls only in "
    "answer to the GM's roll request (`asked`, from `GET /campaigns/{id}/roll-requests`), whose called parts "
    "replace the body's (what the sheet adds is the body's: Lucky 13's specialization, asset and helper; where "
    "the GM called a player's proposal, what it proposed to add stands unless the body names its own); "
    "otherwise a 403. The GM may roll in `secret`; a secret request's answer is secret, and "
    "its player gets the placeholder.",
)
def roll_from_sheet(
    request: HttpRequest,
    id: PathId,
    asked: int | None = Query(None, ge=1, le=MAX_ID, description="The roll request this roll answers."),
    secret: bool = Query(False, description="GM only: roll in secret."),
) -> Status[dict[str, Any]]:
    limits.check(request, limits.ROLLS)
    character = access.character_for(request.user, id, write=True)
    situation = _situation(character, request.body)
    answering = requests.asked_of(request.user, asked, character) if asked is not None else None
    if answering is not None:  # a called proposal's additions, unless the body names its own
        sent = parsing.loads(request.body or b"{}")
        given = {key: value for key, value in situation.items() if key in sent}
        situation = {**sheet_rolls.added_of(character, answering), **given}
    if secret and not character.viewer_is_gm:
        raise NotAllowed("Only the GM can roll in secret.")
    # Only the helper the situation names, if any: one query by its key, never the whole party.
    helpers = sheet_rolls.helpers_for(character, helper=sheet_rolls.named_in(character, situation), limit=0)
    try:
        made = sheet_rolls.build(character, helpers, situation, gm=character.viewer_is_gm, asked=answering)
    except SpecError as problem:
        message = sentence(problem.message)
        raise InvalidRoll(message, errors={problem.field: message}) from None
    rolled = sheet_rolls.roll(
        character,
        made,
        by=request.user,
        rng=secrets.SystemRandom(),
        asked=answering,
        secret=secret,
        is_gm=character.viewer_is_gm,
    )
    return Status(201, roll_out(rolled.roll, gm=character.viewer_is_gm))


@router.get(
    "/campaigns/{id}/rolls",
    response=responses({200: RollPage}, 404),
    summary="The campaign's roll log, oldest first",
    description="A page of the log from the oldest roll, or from the roll after `after` (a `seq`). "
    "Follow `next` until it is null; later, ask again with the last `seq` you have to get newer rolls. "
    "Players see a secret roll the GM has not revealed only as a placeholder. Members only (others 404).",
)
def roll_log(
    request: HttpRequest,
    id: PathId,
    after: int = Query(0, ge=0, le=MAX_ID, description="The seq of the last roll you have; 0 for the first."),
    limit: int = Query(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Rolls on the page."),
) -> dict[str, Any]:
    campaign = campaign_access.campaign_for(request.user, id)
    gm = campaign.viewer.role == Membership.Role.GM  # type: ignore[attr-defined]
    # One query: the page by the (campaign, seq) index, one more than asked to know whether there is a next.
    rows = (
        Roll.objects.filter(campaign=campaign, seq__gt=after)
        .for_viewer(gm=gm)
        .select_related("by", "reveal")
        .order_by("seq")[: limit + 1]
    )
    page = list(rows)
    more = len(page) > limit
    page = page[:limit]
    for roll in page:  # the campaign at hand, for an old row's system: no query per row
        roll.campaign = campaign
    return {"rolls": [roll_out(r, gm=gm) for r in page], "next": page[-1].seq if more else None}


@router.get(
    "/campaigns/{id}/rolls/verify",
    response=responses({200: ChainOut}, 404, 503),
    summary="Verify the roll log's hash chain",
    description="Checks every roll's signature (HMAC-SHA256 with the server's key) in order, as the log page's Verify "
    "does, from where the last Verify found the log whole: `broken` is the first roll that was changed, removed or "
    "inserted (or the first missing one, when the log is shorter than it was), or null when the chain holds. "
    f"One Verify hashes at most {chain.VERIFY_BUDGET:,} rolls: on a longer stretch not yet verified it answers "
    "`complete: false` with `count` the rolls found whole so far, and the next Verify goes on from there. "
    "One Verify runs at a time: another waits briefly, then is a 503 `busy` with `Retry-After`. "
    "Members only (others 404).",
)
def verify_log(request: HttpRequest, id: PathId) -> dict[str, Any]:
    limits.check(request, limits.VERIFY)
    campaign = campaign_access.campaign_for(request.user, id)
    report = chain.verify(campaign)
    return {
        "count": report.count,
        "broken": report.broken,
        "ok": report.broken is None,
        "reason": report.reason,
        "complete": report.complete,
    }


# --- Roll requests: the GM's calls -----------------------------------------------------------------


class CallIn(Schema):
    call: dict[str, Any] = Field(
        ...,
        description="What the GM calls for, as the campaign's rules system reads it (Lucky 13: `kind`, `skill` by its "
        "name in the campaign's list, `ability` (`will`, `charm`, `pulse`, `intellect`, `reflex`; without one, the "
        "skill's linked ability, and a 400 on `ability` for a skill linked to none), `difficulty`, `ability_roll`, "
        "`ability_steps`, `skill_steps`). Each character's request names the skill by its id on their sheet, so "
        "renaming it later leaves the request open as called.",
    )
    characters: list[int] = Field(..., min_length=1, max_length=requests.MAX_ASKED, description="Who rolls, by id.")
    secret: bool = Field(False, description="The answers are secret rolls until the GM reveals them.")


class AskedOut(Schema):
    id: int = Field(..., description="What `POST /characters/{character}/rolls?asked=` names.")
    character: int
    roll: int | None = Field(None, description="The seq of the roll that answered it; null while it waits.")


class RequestOut(Schema):
    id: int
    label: str
    call: dict[str, Any]
    by: str
    secret: bool
    created_at: datetime
    open: bool
    asked: list[AskedOut]


class RequestList(Schema):
    requests: list[RequestOut]


def request_out(request: RollRequest, asked: list[Any]) -> dict[str, Any]:
    return {
        "id": request.pk,
        "label": request.label,
        "call": request.call,
        "by": request.by.get_username(),
        "secret": request.secret,
        "created_at": request.created_at,
        "open": request.is_open,
        "asked": [{"id": a.pk, "character": a.character_id, "roll": a.roll.seq if a.roll else None} for a in asked],
    }


@router.post(
    "/campaigns/{id}/roll-requests",
    response=responses({201: RequestOut}, 400, 403, 404, 409),
    summary="Call for a roll (GM)",
    description="The GM asks characters in play to roll what `call` names. A bad call or a character who is not in "
    "play, or whose sheet cannot make the roll, is a 400 naming it, and nobody is asked.",
)
def call_for_roll(request: HttpRequest, id: PathId, body: CallIn) -> Status[dict[str, Any]]:
    campaign_access.campaign_for(request.user, id, gm=True)
    made = requests.call_for_roll(
        campaign_id=id, by=request.user, call=body.call, characters=body.characters, secret=body.secret
    )
    return Status(201, request_out(made, list(made.asked.select_related("roll"))))


@router.get(
    "/campaigns/{id}/roll-requests",
    response=responses({200: RequestList}, 404),
    summary="Open roll requests",
    description="The GM gets the newest open requests (at most 20), each with every character asked; a player the "
    "open requests that still wait for one of their characters, with those characters only.",
)
def open_roll_requests(request: HttpRequest, id: PathId) -> dict[str, Any]:
    campaign = campaign_access.campaign_for(request.user, id)
    if campaign.viewer.role == Membership.Role.GM:  # type: ignore[attr-defined]
        return {"requests": [request_out(r, list(r.asked.all())) for r in requests.open_requests(campaign.pk)]}
    by_request: dict[int, tuple[RollRequest, list[Any]]] = {}
    for asked in requests.waiting_for(request.user, campaign.pk):
        by_request.setdefault(asked.request_id, (asked.request, []))[1].append(asked)
    return {"requests": [request_out(r, asked) for r, asked in by_request.values()]}


# --- Roll proposals: a player proposes, the GM calls or declines -----------------------------------


class ProposalIn(Schema):
    character: int = Field(..., ge=1, le=MAX_ID, description="The player's character in play, by id.")
    situation: dict[str, Any] = Field(
        ...,
        json_schema_extra=lambda schema: schema.update(anyOf=_situation_schemas()),
        description="The roll, as `POST /characters/{id}/rolls` takes it (Lucky 13: `skill` by its id on the sheet, "
        "`kind`, `ability`, `difficulty`, `ability_roll`, `specialization`, `asset`, `helper`…). What a call can say "
        "becomes `call`; what only the sheet adds (the specialization, asset and helper) goes beside it, in `added`, "
        "and the GM calls the roll with it.",
    )
    note: Annotated[str, StringConstraints(max_length=proposals.NOTE_LENGTH, pattern=ONE_LINE)] = Field(
        "", description="Why, in a line for the GM."
    )


class ProposalCallIn(Schema):
    call: dict[str, Any] | None = Field(
        None, description="What the GM calls for instead of what was proposed (as `POST …/roll-requests` takes it)."
    )
    characters: list[int] | None = Field(
        None,
        min_length=1,
        max_length=requests.MAX_ASKED,
        description="Who rolls, by id, instead of the character the proposal is for.",
    )
    secret: bool = Field(False, description="The answers are secret rolls until the GM reveals them.")


class ProposalOut(Schema):
    id: int
    character: int
    by: str = Field(..., description="Who proposed it: a username.")
    label: str = Field(..., description="What is proposed, in words: the call's.")
    call: dict[str, Any] = Field(..., description="What is proposed, as a call for the roll.")
    added: dict[str, Any] = Field(
        ..., description="What only the sheet adds to the call, as the situation names it (by ids on the sheet)."
    )
    roll: str | None = Field(
        ..., description="The roll as proposed, call and additions, in words, while it waits (null once answered)."
    )
    steps: list[str] = Field(
        ..., description="What steps the dice as proposed (a specialization, an asset, a helper…)."
    )
    note: str
    state: Literal["open", "called", "declined", "withdrawn"]
    created_at: datetime
    closed_at: datetime | None
    request: int | None = Field(..., description="The roll request the GM made of it, once called.")
    chance: str | None = Field(
        ...,
        description='The exact chance of success as called, "p/q", while it waits; null once answered, or when '
        "the sheet cannot make it now.",
    )


class ProposalList(Schema):
    proposals: list[ProposalOut]


def proposal_out(proposal: RollProposal) -> dict[str, Any]:
    chance, words, steps = sheet_rolls.as_proposed(proposal) if proposal.is_open else (None, None, ())
    return {
        "id": proposal.pk,
        "character": proposal.character_id,
        "by": proposal.by.get_username(),
        "label": proposal.label,
        "call": proposal.call,
        "added": proposal.added,
        "roll": words,
        "steps": list(steps),
        "note": proposal.note,
        "state": proposal.state,
        "created_at": proposal.created_at,
        "closed_at": proposal.closed_at,
        "request": proposal.request_id,
        "chance": f"{chance.numerator}/{chance.denominator}" if chance is not None else None,
    }


@router.post(
    "/campaigns/{id}/roll-proposals",
    response=responses({201: ProposalOut}, 400, 403, 404, 409),
    summary="Propose a roll to the GM (player)",
    description="Where the GM calls the rolls, a player proposes one for their character in play: the roll the "
    "situation makes from the sheet, said as a call, with an optional note. Anyone but the character's player gets "
    "403 (non-members 404); a situation of the wrong shape is a 422, one the sheet cannot roll or a call cannot say "
    "a 400 naming the field. Where players call their own rolls, for the same roll proposed already, or beyond "
    f"{proposals.MAX_OPEN} waiting for a character, a 409. Nothing is proposed when refused.",
)
def propose_roll(request: HttpRequest, id: PathId, body: ProposalIn) -> Status[dict[str, Any]]:
    campaign_access.campaign_for(request.user, id)
    character = access.character_for(request.user, body.character, write=True)
    if character.campaign_id != id:
        raise NotFound("There is no such character in this campaign.")
    situation = situation_of(character, body.situation, ("body", "situation"))
    made = proposals.propose(character_id=character.pk, by=request.user, situation=situation, note=body.note)
    made.character = character
    return Status(201, proposal_out(made))


@router.get(
    "/campaigns/{id}/roll-proposals",
    response=responses({200: ProposalList}, 404),
    summary="Roll proposals",
    description=f"The GM gets the newest open proposals (at most {proposals.SHOWN}); a player their own, waiting or "
    "answered in the last hours, newest first.",
)
def roll_proposals(request: HttpRequest, id: PathId) -> dict[str, Any]:
    campaign = campaign_access.campaign_for(request.user, id)
    gm = campaign.viewer.role == Membership.Role.GM  # type: ignore[attr-defined]
    rows = proposals.open_proposals(campaign.pk) if gm else proposals.proposals_of(request.user, campaign.pk)
    listed = []
    for proposal in rows:
        proposal.character.campaign = campaign
        listed.append(proposal_out(proposal))
    return {"proposals": listed}


@router.post(
    "/campaigns/{id}/roll-proposals/{pid}/call",
    response=responses({201: RequestOut}, 400, 403, 404, 409),
    summary="Call a proposed roll (GM)",
    description="The GM calls what was proposed: an ordinary roll request (as `POST …/roll-requests` makes) of the "
    "proposal's character, or of `call` and `characters` where given. The proposal closes as called. Refused as a "
    "call is; a proposal answered or withdrawn already is a 409.",
)
def call_proposal(request: HttpRequest, id: PathId, pid: PathId, body: ProposalCallIn) -> Status[dict[str, Any]]:
    campaign_access.campaign_for(request.user, id, gm=True)
    made = proposals.call_proposal(
        campaign_id=id, proposal_id=pid, by=request.user, call=body.call, characters=body.characters, secret=body.secret
    )
    return Status(201, request_out(made, list(made.asked.select_related("roll"))))


def _closed(closed: RollProposal) -> dict[str, Any]:
    return proposal_out(RollProposal.objects.select_related("character", "by").get(pk=closed.pk))


@router.post(
    "/campaigns/{id}/roll-proposals/{pid}/decline",
    response=responses({200: ProposalOut}, 403, 404, 409),
    summary="Decline a proposed roll (GM)",
    description="Nothing is asked; the player sees it declined. Only the GM (players 403); a proposal answered or "
    "withdrawn already is a 409.",
)
def decline_proposal(request: HttpRequest, id: PathId, pid: PathId) -> dict[str, Any]:
    campaign_access.campaign_for(request.user, id, gm=True)
    return _closed(proposals.decline(campaign_id=id, proposal_id=pid, by=request.user))


@router.post(
    "/campaigns/{id}/roll-proposals/{pid}/withdraw",
    response=responses({200: ProposalOut}, 403, 404, 409),
    summary="Withdraw a roll proposal (its player)",
    description="The player takes back their own proposal while it waits; anyone else's is a 404, and the GM, who "
    "declines instead, gets 403.",
)
def withdraw_proposal(request: HttpRequest, id: PathId, pid: PathId) -> dict[str, Any]:
    campaign = campaign_access.campaign_for(request.user, id)
    if campaign.viewer.role == Membership.Role.GM:  # type: ignore[attr-defined]
        raise NotAllowed("The GM declines a proposal rather than withdrawing it.")
    return _closed(proposals.withdraw(campaign_id=id, proposal_id=pid, by=request.user))
