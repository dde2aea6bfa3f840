"""Moves through the API: what a character's rules let the caller do now, and doing it, for every rules
system through the table's one pipeline (:mod:`play.moves`), as the sheet's pages do.

``GET /characters/{id}/moves`` lists the moves the character's campaign offers, each with why the
caller may not make it now (null when they may), the version to make it from and its input's JSON
Schema; ``POST /characters/{id}/moves/{key}`` makes one with ``{"version": …, "input": {…}}``. Every
move answers a stale version the same way: a 409 ``{"code": "stale_version", "message", "now"}``
with the character as it is now.
"""

from __future__ import annotations

from typing import Annotated, Any, Final

from django.http import HttpRequest
from ninja import Field, Path, Router, Schema, Status
from pydantic import ConfigDict, StrictInt

from api.errors import Error, responses
from api.params import MAX_ID, PathId
from api.routers.characters import CharacterOut, character_out
from characters import access
from characters.models import Character
from play import moves

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


@router.get("/characters/{id}/moves", response=responses({200: MoveList}, 404), summary="A character's moves")
def list_moves(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """The moves the character's campaign offers (a rest, a luck point…), each with why you may not make
    it now (null when you may), the version to make it from, and its input's JSON Schema."""
    character = access.character_for(request.user, id)
    return {"moves": [_move_out(offered) for offered in moves.offered(character, request.user)]}


@router.post(
    "/characters/{id}/moves/{key}",
    response=responses({200: Made, 409: Stale}, 400, 403, 404),
    summary="Make a move",
)
def make_move(request: HttpRequest, id: PathId, key: Annotated[str, Path(max_length=40)], body: MoveIn) -> Any:
    """Make the move `key` from `version` with its `input`: through the same pipeline as the sheet's
    pages. A 400 names what is wrong with the input (or why the rules refuse the move now), a 403 says
    why you may not, a 404 means no such character or move in its campaign, and a 409 gives the
    character as it is now when something the move depends on changed since `version`."""
    character = access.character_for(request.user, id, write=True)
    try:
        _, made = moves.make(character_id=character.pk, key=key, version=body.version, given=body.input,
                             by=request.user)  # fmt: skip
    except moves.StaleMove as stale:
        now = character_out(Character.objects.select_related("campaign", "owner").get(pk=stale.character.pk))
        return Status(409, {"code": "stale_version", "message": stale.message, "now": now})
    saved = Character.objects.select_related("campaign", "owner").get(pk=character.pk)
    return {
        "character": character_out(saved),
        "words": made.words,
        "notice": moves.told(saved.name, made),
        "result": dict(made.result),
    }
