"""Moves through the API: what a character's rules let the caller do now, and doing it, for every rules
system through the table's one pipeline (:mod:`play.moves`), as the sheet's pages do.

``GET /characters/{id}/moves`` lists the moves the character's campaign offers, each with why the
caller may not make it now (null when they may), the version to make it from and its input's JSON
Schema, and the decision that waits on the character (``prompt``: for the one it waits for and the GM,
its question and each choice's move, input, exact chance and version; for anyone else, whom it waits
for); ``POST /characters/{id}/moves/{key}`` makes one with ``{"version": …, "input": {…}}`` — answering
a decision is the POST of a choice's move with its input. Every
move answers a stale version the same way: a 409 ``{"code": "stale_version", "message", "now"}``
with the character as it is now.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from django.http import Http404, HttpRequest
from ninja import Field, Path, Router, Schema, Status
from pydantic import ConfigDict, StrictInt

from api.errors import Error, responses
from api.params import MAX_ID, PathId
from api.routers.characters import CharacterOut, character_out
from api.routers.rolls import RollOut, roll_out
from campaigns import access as campaign_access
from characters import access
from characters.models import Character
from play import moves, table
from play.models import Roll
from web import limits

router = Router(tags=["Moves"])

#: The most a move's input may hold, as JSON: moves ask for a few small values.
MAX_INPUT_KEYS: Final = 20


class MoveOut(Schema):
    key: str
    label: str
    scope: str = Field(description="What the move changes: `sheet` (this character's).")
    who: list[str] = Field(description="Who may make it: the player (`owner`), the GM (`gm`).")
    help: str
    why_not: str | None = Field(description="Why the caller may not make it now; null when they may.")
    version: int = Field(description="The version to make it from: what it depends on last changed then.")
    input: dict[str, Any] = Field(description="The JSON Schema of the move's `input`.")


class MoveList(Schema):
    moves: list[MoveOut]


class ChoiceOut(Schema):
    move: str
    label: str
    chance: str | None = Field(description='The exact chance of success the choice leaves, "p/q"; null if none.')
    input: dict[str, Any]


class SheetChoiceOut(ChoiceOut):
    version: int = Field(description="The version to make the choice's move from.")


class DecisionOut(Schema):
    waiting_for: str = Field(description="Whom the decision waits for (their username).")
    yours: bool = Field(description="Whether it waits for you.")
    decides: bool = Field(description="Whether you may make it: it waits for you, or you are the GM.")
    question: str | None = Field(description="The question; null unless you may make it.")
    choices: list[SheetChoiceOut] = Field(
        description="Each choice: POST its move with its input to make it. Empty unless you may make it."
    )
    follows: int | None = Field(description="The roll it follows (its number in the log); null unless you decide.")


class SheetMoves(MoveList):
    prompt: DecisionOut | None = Field(description="The decision that waits on the character; null if none.")


class MoveIn(Schema):
    model_config = ConfigDict(extra="forbid")
    version: StrictInt = Field(..., ge=0, le=MAX_ID, description="The version the move is made from.")
    input: dict[str, Any] = Field(
        default_factory=dict, max_length=MAX_INPUT_KEYS, description="The move's input, as its schema says."
    )


class Made(Schema):
    character: CharacterOut
    words: str = Field(description="The line the sheet's history keeps.")
    notice: str = Field(description="What the move did, in a sentence for the one who made it.")
    result: dict[str, Any] = Field(description="The figures the move gives back (what a rest healed, say).")
    rolls: list[RollOut] = Field(description="The rolls the move put in the campaign's log, in order.")
    prompt: DecisionOut | None = Field(description="The decision that waits on the character now; null if none.")


class Stale(Error):
    now: CharacterOut = Field(description="The character as it is now.")


def _move_out(offered: moves.Offered) -> dict[str, Any]:
    move = offered.move
    return {
        "key": move.key,
        "label": move.label,
        "scope": move.scope.value,
        "who": sorted(role.value for role in move.who),
        "help": move.help,
        "why_not": offered.why_not,
        "version": offered.version,
        "input": move.input.model_json_schema(),
    }


def _chance(chance: Any) -> str | None:
    return None if chance is None else f"{chance.numerator}/{chance.denominator}"


def _decision_out(character: Character, user: Any, *, is_gm: bool) -> dict[str, Any] | None:
    seen = moves.waiting(character, user, is_gm=is_gm)
    if seen is None:
        return None
    choices = [
        {"move": c.move, "label": c.label, "chance": _chance(c.chance), "input": dict(c.input), "version": c.version}
        for c in seen.choices
    ]
    question = seen.question if seen.decides else None
    return {"waiting_for": seen.who, "yours": seen.yours, "decides": seen.decides, "question": question,
            "choices": choices, "follows": seen.follows}  # fmt: skip


@router.get("/characters/{id}/moves", response=responses({200: SheetMoves}, 404), summary="A character's moves")
def list_moves(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """The moves the character's campaign offers (a rest, a luck point…), each with why you may not make
    it now (null when you may), the version to make it from, and its input's JSON Schema; and the decision
    that waits on the character, if any (its choices and their exact chances for the one it waits for and
    the GM; whom it waits for to anyone else)."""
    character = access.character_for(request.user, id)
    listed = [_move_out(offered) for offered in moves.offered(character, request.user)]
    return {"moves": listed, "prompt": _decision_out(character, request.user, is_gm=character.viewer_is_gm)}


@router.post(
    "/characters/{id}/moves/{key}",
    response=responses({200: Made, 409: Stale}, 400, 403, 404),
    summary="Make a move",
)
def make_move(request: HttpRequest, id: PathId, key: Annotated[str, Path(max_length=40)], body: MoveIn) -> Any:
    """Make the move `key` from `version` with its `input`: through the same pipeline as the sheet's
    pages; a decision's choice is made the same way, with the choice's move and input. A 400 names what
    is wrong with the input (or why the rules refuse the move now: a decision waits first, say), a 403
    says why you may not (a decision that is not yours to make), a 404 means no such character or move in
    its campaign, and a 409 gives the character as it is now when something the move depends on changed
    since `version`."""
    limits.check(request, limits.ROLLS)
    character = access.character_for(request.user, id, write=True)
    try:
        done = moves.make(character_id=character.pk, key=key, version=body.version, given=body.input,
                          by=request.user)  # fmt: skip
    except moves.StaleMove as stale:
        now = character_out(Character.objects.select_related("campaign", "owner").get(pk=stale.character.pk))
        return Status(409, {"code": "stale_version", "message": stale.message, "now": now})
    saved = Character.objects.select_related("campaign", "owner", "campaign").get(pk=character.pk)
    gm = character.viewer_is_gm
    return {
        "character": character_out(saved),
        "words": done.made.words,
        "notice": moves.told(saved.name, done.made),
        "result": dict(done.made.result),
        "rolls": [roll_out(Roll.objects.select_related("by", "reveal").get(pk=r.pk), gm=gm) for r in done.rolls],
        "prompt": _decision_out(saved, request.user, is_gm=gm),
    }


# --- The campaign's table --------------------------------------------------------------------------


class PromptOut(Schema):
    question: str
    choices: list[ChoiceOut]


class TableOut(Schema):
    version: int = Field(description="The table's version: make a move from it.")
    view: dict[str, Any] = Field(description="What you may see of the table, as its rules system shows it.")
    prompt: PromptOut | None = Field(description="The decision that waits for you, if any.")


class TableMade(Schema):
    table: TableOut
    words: str
    notice: str
    result: dict[str, Any]


class StaleTable(Error):
    now: TableOut = Field(description="The table as you may see it now.")


def _table_out(campaign: Any, user: Any) -> dict[str, Any]:
    seen = table.view_for(campaign, user)
    prompt = None
    if seen.prompt is not None:
        prompt = {
            "question": seen.prompt.question,
            "choices": [
                {"move": c.move, "label": c.label, "input": dict(c.input), "chance": _chance(c.chance)}
                for c in seen.prompt.choices
            ],
        }  # fmt: skip
    return {"version": seen.version, "view": dict(seen.view), "prompt": prompt}


def _campaign(request: HttpRequest, id: int) -> Any:
    campaign = campaign_access.campaign_for(request.user, id)
    if campaign.rules.table is None:
        raise Http404("This campaign's system keeps no table")
    return campaign


@router.get("/campaigns/{id}/table", response=responses({200: TableOut}, 404), summary="The campaign's table")
def get_table(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """What you may see of the campaign's table (its rules system removes what you must not: a deck's order,
    another player's hand), its version, and the decision that waits for you, if any."""
    return _table_out(_campaign(request, id), request.user)


@router.get("/campaigns/{id}/moves", response=responses({200: MoveList}, 404), summary="The table's moves")
def list_table_moves(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """The moves of the campaign's table, each with why you may not make it now (null when you may), the
    version to make it from, and its input's JSON Schema."""
    campaign = _campaign(request, id)
    return {"moves": [_move_out(o) for o in table.offered(campaign, request.user)]}  # type: ignore[arg-type]


@router.post(
    "/campaigns/{id}/moves/{key}",
    response=responses({200: TableMade, 409: StaleTable}, 400, 403, 404),
    summary="Make a move at the table",
)
def make_table_move(request: HttpRequest, id: PathId, key: Annotated[str, Path(max_length=40)], body: MoveIn) -> Any:
    """Make the table move `key` from `version` with its `input`, through the same pipeline as the table's
    page; a 409 gives the table as you may see it now."""
    limits.check(request, limits.ROLLS)
    campaign = _campaign(request, id)
    try:
        made = table.make(campaign_id=campaign.pk, key=key, version=body.version, given=body.input, by=request.user)
    except table.StaleTable as stale:
        return Status(
            409, {"code": "stale_version", "message": stale.message, "now": _table_out(campaign, request.user)}
        )
    return {"table": _table_out(campaign, request.user), "words": made.words, "notice": f"You {made.notice}.",
            "result": dict(made.result)}  # fmt: skip
