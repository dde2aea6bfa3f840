"""Lucky 13's moves on a sheet, two optional rules of the text, each a campaign option: a rest
("Healing", option ``resting``) and the GM's word that a character healed from dying has recovered
("Death & dying", gritty, option ``recovery``). Both change the hit points section and are made from
its version; the table's one pipeline performs them."""

from __future__ import annotations

from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field, StrictInt

from rules.systems.base import Role
from rules.systems.lucky13.encounter import HIT_POINTS_SECTION
from rules.systems.lucky13.health import MAX_REST_HEALING, MAX_REST_MINUTES, MIN_REST_MINUTES, REST_MINUTES_PER_POINT
from rules.systems.lucky13.recovery import gritty, recovered, rest_sheet, resting_allowed
from rules.systems.lucky13.sheet import Sheet
from rules.systems.lucky13.view import hit_points
from rules.systems.moves import Made, Move, NoInput, Scope, Situation

__all__ = ["MOVES", "RECOVERED", "REST", "Rest"]


class Rest(BaseModel):
    """How long the character rests."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    minutes: StrictInt = Field(
        ...,
        ge=MIN_REST_MINUTES,
        le=MAX_REST_MINUTES,
        title="Minutes of rest",
        description=f"1 hit point for each whole {REST_MINUTES_PER_POINT} minutes, at most {MAX_REST_HEALING} from "
        "resting alone.",
        json_schema_extra={
            "refused": f"Rest for a whole number of minutes from {MIN_REST_MINUTES} to {MAX_REST_MINUTES}."
        },
    )


def _points(count: int) -> str:
    return f"{count} hit point{'' if count == 1 else 's'}"


def _rest(situation: Situation[Sheet], given: Rest) -> Made:
    """1 hit point per whole 15 minutes, at most 4 since the character was last at full
    (:func:`rules.systems.lucky13.health.rest`); a rest that heals nothing is refused with the reason."""
    sheet, rested = rest_sheet(situation.state, given.minutes, situation.options)
    healed = _points(rested.healed)
    return Made(
        sheet,
        words=f"Rested {given.minutes} minutes: {healed} healed",
        notice=f"rested {given.minutes} minutes: {healed} healed, {rested.after} now",
        result={"healed": rested.healed, "hit_points": rested.after},
    )


def _recovered(situation: Situation[Sheet], given: NoInput) -> Made:
    """The GM judges the character rested and recuperated: full strength again."""
    return Made(
        recovered(situation.state),
        words="Recovered: back at full strength",
        notice="has recovered: back at full strength",
    )


def _not_recovering(situation: Situation[Sheet]) -> str | None:
    return None if situation.state.recovering else "the character is not recovering"


def _shown(situation: Situation[Sheet]) -> dict[str, Any]:
    """The hit points before the move, as the hit points region shows them."""
    sheet = situation.state
    return {
        "hit_points": hit_points(sheet, int(situation.options["hit_points_per_step"])),
        "rested": sheet.rested_hit_points,
        "most": MAX_REST_HEALING,
        "recovering": bool(sheet.recovering),
    }


REST: Final = Move(
    key="rest",
    label="Rest",
    scope=Scope.SHEET,
    input=Rest,
    parts=(HIT_POINTS_SECTION,),
    apply=_rest,
    help=f"Resting heals 1 hit point per {REST_MINUTES_PER_POINT} minutes, at most {MAX_REST_HEALING} from resting "
    "alone since the character was last at full.",
    offered=resting_allowed,
    shows=_shown,
)

RECOVERED: Final = Move(
    key="recovered",
    label="Recovered",
    scope=Scope.SHEET,
    input=NoInput,
    parts=(HIT_POINTS_SECTION,),
    apply=_recovered,
    who=frozenset({Role.GM}),
    note="only the GM can say a character has recovered",
    help="A character healed from dying rolls every Ability die one step down until the GM judges they have had "
    "rest and recuperation enough.",
    button="Mark recovered",
    offered=gritty,
    why_not=_not_recovering,
    shows=_shown,
)

#: Lucky 13's moves, in the order a sheet offers them.
MOVES: Final[tuple[Move[Sheet], ...]] = (REST, RECOVERED)
