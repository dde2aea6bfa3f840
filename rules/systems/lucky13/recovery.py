"""After the fight: healing by resting and gritty recovery from dying, two optional rules of the text
("Healing", "Death & dying"), each a campaign option (``resting``, ``recovery``).

Every change of a sheet's hit points goes through :func:`settle` (a GM's edit, a heal or a wound in
an encounter, a Pulse bought or refunded, a rest), which keeps what these rules remember on the sheet
true: the hit points healed by resting since the character was last at full (0 again once at full),
and whether a character healed from dying is still recovering.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from rules.dice import StepDie
from rules.systems.base import SpecError
from rules.systems.lucky13.health import Rested, max_hit_points, rest
from rules.systems.lucky13.sheet import Sheet

#: Gritty recovery: a recovering character's Ability die steps down once, a situational step added
#: to the roll's other steps before the die is stepped (rules README, "The ladder").
RECOVERING_STEPS: Final = -1


def resting_allowed(options: Mapping[str, Any]) -> bool:
    """Whether the campaign heals by resting (option ``resting``)."""
    return options.get("resting", "off") == "quarter_hours"


def gritty(options: Mapping[str, Any]) -> bool:
    """Whether the campaign's recovery from dying is gritty (option ``recovery``)."""
    return options.get("recovery", "cinematic") == "gritty"


def recovering(sheet: Any, options: Mapping[str, Any]) -> bool:
    """Whether the character's Ability dice are a step down for now: healed from dying under gritty
    recovery and not yet marked recovered by the GM. A mark left from a campaign that has gone back to
    cinematic recovery steps nothing."""
    return gritty(options) and bool(getattr(sheet, "recovering", False))


def ability_steps(sheet: Any, options: Mapping[str, Any]) -> int:
    """The steps gritty recovery puts on the character's Ability die: :data:`RECOVERING_STEPS` or 0."""
    return RECOVERING_STEPS if recovering(sheet, options) else 0


def settle(before: Sheet, after: Sheet, options: Mapping[str, Any]) -> Sheet:
    """``after`` with what the hit points' change means for the optional rules.

    "Death & dying", gritty: "the character [requires] some period of rest and recuperation before
    they are able to perform at full strength again". Our reading: a character at 0 hit points or
    fewer (dying, or dead and brought back by the GM) whose hit points come back above 0 is
    recovering, until the GM marks them recovered (:func:`recovered`); under cinematic recovery
    nothing is marked. "Healing", resting: the count of hit points healed by resting starts again
    whenever the character is at full hit points, however they got there."""
    if after.hit_points is None or after.abilities.pulse is None:
        return after
    update: dict[str, Any] = {}
    full = max_hit_points(StepDie.parse(after.abilities.pulse), int(options["hit_points_per_step"]))
    if after.hit_points >= full and after.rested_hit_points:
        update["rested_hit_points"] = 0
    was = before.hit_points
    if gritty(options) and was is not None and was <= 0 < after.hit_points and not after.recovering:
        update["recovering"] = True
    return after.model_copy(update=update) if update else after


def rest_sheet(sheet: Sheet, minutes: int, options: Mapping[str, Any]) -> tuple[Sheet, Rested]:
    """The sheet after a rest of ``minutes`` (:func:`~rules.systems.lucky13.health.rest`), in a
    campaign that heals by resting; :class:`~rules.systems.lucky13.health.RestRefused` (a
    :class:`SpecError`) says why a rest heals nothing."""
    if not resting_allowed(options):
        raise SpecError("minutes", "this campaign does not heal by resting: the GM heals")
    if sheet.creation.step or sheet.hit_points is None or sheet.abilities.pulse is None:
        raise SpecError("hit_points", "the character is not finished")
    rested = rest(
        sheet.hit_points,
        sheet.rested_hit_points,
        minutes,
        StepDie.parse(sheet.abilities.pulse),
        int(options["hit_points_per_step"]),
    )
    after = sheet.model_copy(update={"hit_points": rested.after, "rested_hit_points": rested.rested})
    return settle(sheet, after, options), rested


def recovered(sheet: Sheet) -> Sheet:
    """The sheet of a character the GM judges rested and recuperated: full strength again ("Death &
    dying", gritty). :class:`SpecError` if they were not recovering."""
    if not sheet.recovering:
        raise SpecError("recovering", "the character is not recovering")
    return sheet.model_copy(update={"recovering": False})
