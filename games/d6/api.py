"""D6 in the JSON API: the round a character is in, read as its planner shows it (every use at its code,
with its exact chance, and the versions to make its moves from), under ``/characters/{id}/d6/round``. The
round's steps and the luck points are moves, made through the one pipeline
(``POST /characters/{id}/moves/{key}``)."""

from __future__ import annotations

from typing import Any, Final

from django.http import Http404, HttpRequest
from ninja import Field, Router, Schema

from api.errors import responses
from api.extensions import SystemApi
from api.params import PathId
from characters import access
from characters.models import Character
from characters.operations import section_version
from play import moves
from rules.systems import d6
from rules.systems.d6 import round_moves, round_state
from rules.systems.d6.luck_moves import LUCK
from rules.systems.d6.sheet import Sheet

router = Router(tags=["D6"])


class UseOut(Schema):
    label: str
    code: str = Field(..., description="The code it was rolled at, or would be rolled at now.")
    base: str
    modifiers: list[str] = Field(..., description="Each change to the code, in the words the roll records.")
    difficulty: int | None
    chance: str | None = Field(..., description='The exact chance to meet the difficulty at that code, "p/q".')
    action: int | None = Field(
        ..., description="The declared action's index; null for a reaction or a use not declared."
    )
    undeclared: bool = Field(..., description="A use the round did not declare (a GM's call mid-round).")
    attempted: bool
    roll: int | None = Field(..., description="The roll's number (seq) in the campaign's log, once rolled.")
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
    numbers = [step.roll for step in record.steps if step.what in round_state.USES] if record is not None else []
    for i, use in enumerate(plan.uses if plan is not None else ()):
        chance = use.chance
        uses.append({
            "label": use.label, "code": str(use.code), "base": str(use.base),
            "modifiers": [str(m) for m in use.modifiers], "difficulty": use.difficulty,
            "chance": None if chance is None else f"{chance.numerator}/{chance.denominator}",
            "action": use.action, "undeclared": use.undeclared, "attempted": use.attempted,
            "roll": numbers[i] if use.attempted and i < len(numbers) else None, "warning": use.warning,
        })  # fmt: skip
    return {
        "character": character.pk,
        "version": moves.made_from(character, round_moves.DECLARE),
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


@router.get("/characters/{id}/d6/round", response=responses({200: RoundOut}, 404),
            summary="D6: the round a character is in")  # fmt: skip
def get_round(request: HttpRequest, id: PathId) -> dict[str, Any]:
    """The declared round, every use at the code it was rolled at or would be now, with its exact chance;
    between rounds, what the last round prepared; and the versions to make its moves from
    (`POST /characters/{id}/moves/declare-round`, `roll-use`, `befall`, `end-round`, `spend-luck`). Members of
    the campaign only (others 404)."""
    return round_out(_character(request, id))


API: Final = SystemApi(router=router)
