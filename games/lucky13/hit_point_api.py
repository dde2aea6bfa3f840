"""Lucky 13's own endpoints in the JSON API, under ``/characters/{id}/lucky13/``: a rest ("Healing",
campaign option ``resting``) and the GM's word that a character healed from dying has recovered (``recovery``,
gritty), through the same operations as the sheet's buttons (:mod:`games.lucky13.hit_points`), made from
the sheet's ``version``: an older one is a 409, a rest that heals nothing a 400 that says why, a player
marking recovery a 403, a campaign without the option or anyone outside it a 404."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from django.http import Http404, HttpRequest
from ninja import Field, Router, Schema, Status
from pydantic import ConfigDict, StrictInt

from api.errors import InvalidChange, responses
from api.params import MAX_ID, PathId
from characters import access
from characters.models import Character
from characters.operations import StaleSection
from characters.write import sentence
from games.lucky13 import hit_points
from rules.systems import lucky13
from rules.systems.base import SpecError
from rules.systems.lucky13.recovery import gritty, resting_allowed

router = Router(tags=["Lucky 13"])

#: The longest rest one call asks for: a day.
MAX_MINUTES: Final = 24 * 60


class Rest(Schema):
    model_config = ConfigDict(extra="forbid")
    version: StrictInt = Field(..., ge=0, le=MAX_ID, description="The sheet's version this was read at.")
    minutes: StrictInt = Field(..., ge=1, le=MAX_MINUTES, description="How long the character rests.")


class Recovered(Schema):
    model_config = ConfigDict(extra="forbid")
    version: StrictInt = Field(..., ge=0, le=MAX_ID, description="The sheet's version this was read at.")


class HitPoints(Schema):
    character: int
    version: int = Field(..., description="The sheet's version now.")
    hit_points: int | None
    recovering: bool
    healed: int = Field(0, description="What the rest healed.")


class Stale(Schema):
    code: str
    message: str
    now: HitPoints


def _character(request: HttpRequest, pk: int, offered: Callable[[Mapping[str, Any]], bool]) -> Character:
    character = access.character_for(request.user, pk, write=True)
    if character.system != lucky13.KEY or not offered(character.campaign.settings):
        raise Http404("No such action in this campaign")
    return character


def _now(pk: int, healed: int = 0) -> dict[str, Any]:
    character = Character.objects.get(pk=pk)
    sheet = character.document
    return {"character": pk, "version": character.version, "hit_points": sheet.hit_points,
            "recovering": bool(sheet.recovering), "healed": healed}  # fmt: skip


def _stale(pk: int, made: int) -> Status[dict[str, Any]]:
    message = f"The hit points changed since version {made}: nothing was done. Here they are as they are now."
    return Status(409, {"code": "stale_version", "message": message, "now": _now(pk)})


RESPONSES: Final = responses({200: HitPoints, 409: Stale}, 400, 403, 404)


@router.post("/characters/{id}/lucky13/rest", response=RESPONSES, summary="Lucky 13: rest")
def rest(request: HttpRequest, id: PathId, body: Rest) -> Any:
    """The character rests `minutes`: 1 hit point per whole 15 minutes, at most 4 since last at full, in a
    campaign that heals by resting. The player and the GM."""
    character = _character(request, id, resting_allowed)
    try:
        _, rested = hit_points.rest(character_id=character.pk, version=body.version, minutes=body.minutes,
                                    by=request.user)  # fmt: skip
    except StaleSection:
        return _stale(character.pk, body.version)
    except SpecError as error:
        message = sentence(error.message)
        raise InvalidChange(message, errors={error.field: message}) from None
    return _now(character.pk, rested.healed)


@router.post("/characters/{id}/lucky13/recovered", response=RESPONSES, summary="Lucky 13: recovered")
def mark_recovered(request: HttpRequest, id: PathId, body: Recovered) -> Any:
    """The GM says a character healed from dying has rested and recuperated (gritty recovery): its Ability
    dice are no longer a step down."""
    character = _character(request, id, gritty)
    try:
        hit_points.mark_recovered(character_id=character.pk, version=body.version, by=request.user)
    except StaleSection:
        return _stale(character.pk, body.version)
    except SpecError as error:
        message = sentence(error.message)
        raise InvalidChange(message, errors={error.field: message}) from None
    return _now(character.pk)
