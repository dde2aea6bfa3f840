"""D6 in the JSON API: the round a character is in (read it, declare it, roll its uses, the GM's wound
and stun, its end), under ``/characters/{id}/d6/…`` (its luck points are moves: ``/characters/{id}/moves``).
Each endpoint does what the page does, through the same operations (:mod:`games.d6.round_play`), from
the version of the section it was read at: an older one is a 409 with the round as it is now; a choice
the rules refuse is a 400 naming its field; a user who may not is a 403 that says why; anyone outside
the campaign a 404."""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any, Final, Literal

from django.http import Http404, HttpRequest
from ninja import Field, Router, Schema, Status
from pydantic import ConfigDict, StrictBool, StrictInt

from api.errors import InvalidChange, responses
from api.extensions import SystemApi
from api.params import MAX_ID, PathId
from characters import access
from characters.models import Character
from characters.operations import StaleSection, section_version
from characters.write import sentence
from games.d6 import round_play
from rules.document import MAX_ITEM_ID
from rules.systems import d6
from rules.systems.base import SpecError
from rules.systems.d6 import round_state
from rules.systems.d6.chance import MAX_DIFFICULTY
from rules.systems.d6.luck_moves import LUCK
from rules.systems.d6.rounds import MAX_ACTIONS
from rules.systems.d6.sheet import RoundStep, Sheet

router = Router(tags=["D6"])

Version = Field(..., ge=0, le=MAX_ID, description="The version of the section this was read at (`version`).")
ItemRef = Field(..., ge=1, le=MAX_ITEM_ID, description="A stat or a skill, by its id on the sheet.")
STALE: Final = "The round changed since version {made}: nothing was done. Here it is as it is now."


class Declared(Schema):
    model_config = ConfigDict(extra="forbid")
    item: StrictInt = ItemRef
    difficulty: StrictInt | None = Field(None, ge=1, le=MAX_DIFFICULTY, description="The difficulty, if known.")


class Declare(Schema):
    """The round's declared actions, running, and whether it takes the +1d the last round prepared."""

    model_config = ConfigDict(extra="forbid")
    version: StrictInt = Version
    actions: list[Declared] = Field(..., max_length=MAX_ACTIONS)
    running: StrictBool = False
    use_preparation: StrictBool = False


class RollUse(Schema):
    """One use rolled now: declared `action` (from 0; `difficulty` names it if the declaration had none), or
    reaction skill `reaction` (by id) against `difficulty`."""

    model_config = ConfigDict(extra="forbid")
    version: StrictInt = Version
    action: StrictInt | None = Field(None, ge=0, lt=MAX_ACTIONS)
    reaction: StrictInt | None = Field(None, ge=1, le=MAX_ITEM_ID)
    difficulty: StrictInt | None = Field(None, ge=1, le=MAX_DIFFICULTY)


class Befall(Schema):
    model_config = ConfigDict(extra="forbid")
    version: StrictInt = Version
    what: Literal["wounded", "stunned"]


class End(Schema):
    model_config = ConfigDict(extra="forbid")
    version: StrictInt = Version
    prepare: StrictInt | None = Field(None, ge=1, le=MAX_ITEM_ID, description="What a round of nothing prepares.")


class UseOut(Schema):
    label: str
    code: str = Field(..., description="The code it was rolled at, or would be rolled at now.")
    base: str
    modifiers: list[str] = Field(..., description="Each change to the code, in the words the roll records.")
    difficulty: int | None
    chance: str | None = Field(..., description='The exact chance to meet the difficulty at that code, "p/q".')
    action: int | None = Field(..., description="The declared action's index; null for a reaction.")
    attempted: bool
    warning: str | None


class RoundOut(Schema):
    character: int
    version: int = Field(..., description="The round's version: send it back with the next step.")
    declared: bool
    begun: bool = Field(..., description="A use has been rolled: the declaration is fixed.")
    running: bool
    doubled: bool = Field(..., description="A luck point doubles every code this round.")
    prepared: str | None = Field(..., description="What the last round, a round of nothing, prepared.")
    takes_preparation: bool
    uses: list[UseOut]
    warnings: list[str]
    can_prepare: bool = Field(..., description="Ending the round now may prepare the next (a round of nothing).")
    luck_points: int
    luck_version: int = Field(..., description="The luck points' version, for a spend.")


class StaleRound(Schema):
    code: str
    message: str
    round: RoundOut


class Rolled(Schema):
    roll: dict[str, Any] = Field(..., description="The roll as the log gives it (`GET /campaigns/{id}/rolls`).")
    round: RoundOut


def _character(request: HttpRequest, pk: int, *, write: bool = False) -> Character:
    character = access.character_for(request.user, pk, write=write)
    if character.system != d6.KEY or character.status != Character.Status.ACTIVE:
        raise Http404("No D6 character in play here")
    return character


def round_out(character: Character) -> dict[str, Any]:
    """The round as a client sees it, every use with its code and exact chance now."""
    sheet: Sheet = character.document
    plan = round_state.plan_of(sheet, character.campaign.settings)
    record = sheet.round
    uses = []
    for use in plan.uses if plan is not None else ():
        chance = use.chance
        uses.append({
            "label": use.label, "code": str(use.code), "base": str(use.base),
            "modifiers": [str(m) for m in use.modifiers], "difficulty": use.difficulty,
            "chance": None if chance is None else f"{chance.numerator}/{chance.denominator}",
            "action": use.action, "attempted": use.attempted, "warning": use.warning,
        })  # fmt: skip
    return {
        "character": character.pk,
        "version": round_play.version_of(character),
        "declared": plan is not None,
        "begun": round_state.begun(sheet),
        "running": bool(record and record.running),
        "doubled": round_state.doubled_now(sheet),
        "prepared": round_state.prepared_name(sheet),
        "takes_preparation": bool(record and record.prepared),
        "uses": uses,
        "warnings": list(plan.warnings) if plan is not None else [],
        "can_prepare": plan is None or plan.did_nothing,
        "luck_points": sheet.luck_points,
        "luck_version": section_version(character, LUCK),
    }


def _now(pk: int) -> dict[str, Any]:
    return round_out(Character.objects.select_related("campaign").get(pk=pk))


def _refused(error: SpecError) -> InvalidChange:
    message = sentence(error.message)
    return InvalidChange(message, errors={error.field: message})


def _step(pk: int, version: int, act: Callable[[], object]) -> Any:
    """Do ``act`` (one operation, made from ``version``) and give the round after it: a 409 with the round as
    it is now when ``version`` is old, a 400 naming the field when the rules refuse it."""
    try:
        act()
    except StaleSection:
        return _stale(pk, version)
    except SpecError as error:
        raise _refused(error) from None
    return _now(pk)


def _stale(pk: int, made: int) -> Status[dict[str, Any]]:
    return Status(409, {"code": "stale_version", "message": STALE.format(made=made), "round": _now(pk)})


ROUND_RESPONSES: Final = responses({200: RoundOut, 409: StaleRound}, 400, 403, 404)


@router.get("/characters/{id}/d6/round", response=responses({200: RoundOut}, 404),
            summary="D6: the round a character is in")  # fmt: skip
def get_round(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """The declared round, every use at the code it was rolled at or would be now, with its exact chance;
    between rounds, what the last round prepared. Members of the campaign only (others 404)."""
    return round_out(_character(request, id))


@router.post("/characters/{id}/d6/round/declare", response=ROUND_RESPONSES,
             summary="D6: declare the round")  # fmt: skip
def declare_round(request: HttpRequest, id: PathId, body: Declare) -> Any:
    """The round's actions (stats and skills by id, a reaction skill is used mid-round instead), running, and
    the preparation taken. It may be declared again until its first roll, not after (a 400)."""
    character = _character(request, id, write=True)
    return _step(
        character.pk,
        body.version,
        lambda: round_play.declare(
            character_id=character.pk,
            version=body.version,
            running=body.running,
            actions=[(a.item, a.difficulty) for a in body.actions],
            use_preparation=body.use_preparation,
            by=request.user,
        ),
    )


@router.post("/characters/{id}/d6/round/roll", response=responses({201: Rolled, 409: StaleRound}, 400, 403, 404),
             summary="D6: roll a use of the round")  # fmt: skip
def roll_use(request: HttpRequest, id: PathId, body: RollUse) -> Any:
    """One use rolled on the server at its code now, its penalties recorded with the roll: a declared `action`,
    or a `reaction` skill against `difficulty` (one more use for it and every later one)."""
    character = _character(request, id, write=True)
    if (body.action is None) == (body.reaction is None):
        raise InvalidChange(
            "Name one use: an action or a reaction.", errors={"action": "Name an action or a reaction."}
        )
    if body.action is not None:
        step = RoundStep(what="attempt", action=body.action, difficulty=body.difficulty)
    else:
        step = RoundStep(what="reaction", item=body.reaction, difficulty=body.difficulty)
    try:
        rolled = round_play.roll(character_id=character.pk, version=body.version, step=step, by=request.user,
                                 rng=secrets.SystemRandom())  # fmt: skip
    except StaleSection:
        return _stale(character.pk, body.version)
    except SpecError as error:
        raise _refused(error) from None
    from api.routers.rolls import roll_out  # the rolls router reads every system's situation when imported

    return Status(201, {"roll": roll_out(rolled.roll, gm=character.viewer_is_gm), "round": _now(character.pk)})


@router.post("/characters/{id}/d6/round/befall", response=ROUND_RESPONSES,
             summary="D6: the GM wounds or stuns a character mid-round")  # fmt: skip
def befall(request: HttpRequest, id: PathId, body: Befall) -> Any:
    """Wounded (−1d) or stunned from now on, on the sheet and in the round. The GM only."""
    character = _character(request, id, write=True)
    return _step(
        character.pk,
        body.version,
        lambda: round_play.befall(character_id=character.pk, version=body.version, what=body.what, by=request.user),
    )


@router.post("/characters/{id}/d6/round/end", response=ROUND_RESPONSES,
             summary="D6: end the round")  # fmt: skip
def end_round(request: HttpRequest, id: PathId, body: End) -> Any:
    """The round is over, its doubling with it; a round of nothing at all may `prepare` a stat or a skill for
    +1d in the next."""
    character = _character(request, id, write=True)
    return _step(
        character.pk,
        body.version,
        lambda: round_play.end(character_id=character.pk, version=body.version, prepare=body.prepare, by=request.user),
    )


API: Final = SystemApi(router=router)
