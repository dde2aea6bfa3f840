"""D6's round as moves (:mod:`rules.systems.d6.round_state` keeps the round on the sheet): declaring it,
rolling each use in its turn, the GM's wound and stun mid-round, and its end (a round of nothing prepares
the next). The table's one pipeline performs them, from the version of the round they were made from: the
round itself, the codes the GM corrects, the conditions and the luck points, whose change changes what the
round rolls. A use is rolled by the same path as the roll page's rolls, and recorded in the round with its
roll's number."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from rules.document import MAX_ITEM_ID
from rules.systems.base import Role, SheetRoll
from rules.systems.d6 import round_state
from rules.systems.d6.chance import MAX_DIFFICULTY
from rules.systems.d6.luck_moves import LUCK, ROUND
from rules.systems.d6.rounds import MAX_ACTIONS, RoundError, Use
from rules.systems.d6.sheet import RoundStep, Sheet
from rules.systems.moves import Made, Move, Scope, Situation

__all__ = ["BEFALL", "DECLARE", "END", "MOVES", "ROLL", "ROUND_SECTIONS"]

#: The sections whose change changes what the round rolls: the round itself, the codes the GM corrects, the
#: conditions (wounds, stun) and the luck points (a point spent doubles the round).
ROUND_SECTIONS: Final = (ROUND, "codes", "conditions", LUCK)
#: The system's key, as a roll's spec names it.
KEY: Final = "d6"
#: Who plays the round: the player and the GM.
PLAYERS: Final = frozenset({Role.OWNER, Role.GM})

ItemRef = Annotated[int, Field(ge=1, le=MAX_ITEM_ID, strict=True)]
Difficulty = Annotated[int, Field(ge=1, le=MAX_DIFFICULTY, strict=True)]


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class Declared(_In):
    item: ItemRef = Field(..., description="A stat or a skill, by its id on the sheet.")
    difficulty: Difficulty | None = Field(None, description="The difficulty, if known.")


class Declare(_In):
    """The round's declared actions, running, and whether it takes the +1d the last round prepared."""

    actions: tuple[Declared, ...] = Field(..., max_length=MAX_ACTIONS)
    running: StrictBool = False
    use_preparation: StrictBool = False


class RollUse(_In):
    """One use rolled now: declared ``action`` (from 0; ``difficulty`` names it if the declaration had none), or
    reaction skill ``reaction`` (by id) against ``difficulty``."""

    action: Annotated[int, Field(ge=0, lt=MAX_ACTIONS, strict=True)] | None = None
    reaction: ItemRef | None = None
    difficulty: Difficulty | None = None


class Befall(_In):
    what: Literal["wounded", "stunned"]


class End(_In):
    prepare: ItemRef | None = Field(None, description="What a round of nothing prepares.")


def _declare(situation: Situation[Sheet], given: Declare) -> Made:
    actions = [(a.item, a.difficulty) for a in given.actions]
    sheet = round_state.declare(situation.state, actions, running=given.running,
                                use_preparation=given.use_preparation, given=situation.options)  # fmt: skip
    count = len(actions)
    words = f"The round declared: {count} action{'s' if count != 1 else ''}{', running' if given.running else ''}"
    return Made(sheet, words=words, notice=": the round is declared", changed=(ROUND,))


def _step(sheet: Sheet, given: RollUse) -> RoundStep:
    if (given.action is None) == (given.reaction is None):
        raise RoundError("round", "roll one declared action or one reaction, not both or neither")
    if given.action is not None:
        return RoundStep(what="attempt", action=given.action, difficulty=given.difficulty)
    if given.difficulty is None:
        raise RoundError("difficulty", "name the difficulty the reaction is rolled against")
    return RoundStep(what="reaction", item=given.reaction, difficulty=given.difficulty)


def _named(sheet: Sheet, step: RoundStep) -> Sheet:
    """A declared action whose difficulty the declaration left open, named now."""
    record = sheet.round
    if step.what != "attempt" or step.difficulty is None or record is None or step.action is None:
        return sheet
    actions = record.actions
    if not 0 <= step.action < len(actions) or actions[step.action].difficulty is not None:
        return sheet
    named = actions[step.action].model_copy(update={"difficulty": step.difficulty})
    renamed = (*actions[: step.action], named, *actions[step.action + 1 :])
    return sheet.model_copy(update={"round": record.model_copy(update={"actions": renamed})})


def round_roll(use: Use, item: int) -> SheetRoll:
    """The roll of one use of the round, as the log keeps it."""
    if use.difficulty is None:
        raise RoundError("difficulty", f"name the difficulty of {use.label} to roll it")
    spec: dict[str, Any] = {"system": KEY, "roll": "check", "code": str(use.code), "difficulty": use.difficulty}
    steps = tuple(str(m) for m in use.modifiers)
    if steps:
        spec["steps"] = list(steps)
    name = use.label.split(". ", 1)[-1]
    label = f"{name} {use.code} against {use.difficulty} ({'a reaction' if use.reaction else 'a round'})"
    return SheetRoll("check", spec, label, details={"round": True, "item": item, "name": name}, steps=steps)


def _roll(situation: Situation[Sheet], given: RollUse) -> Made:
    sheet = situation.state
    step = _step(sheet, given)
    sheet, use = round_state.take(_named(sheet, step), step, situation.options)
    record = sheet.round
    assert record is not None
    item = step.item if step.what == "reaction" else record.actions[step.action or 0].item
    made = round_roll(use, item or 0)

    def recorded(state: Any, seqs: tuple[int, ...]) -> Any:
        return round_state.with_roll(state, seqs[0])

    return Made(sheet, words=f"The round: {use.label} rolled at {use.code}", notice=f": {use.label} rolled",
                changed=(ROUND,), sheet_rolls=(made,), then=recorded)  # fmt: skip


def _befall(situation: Situation[Sheet], given: Befall) -> Made:
    sheet = round_state.befall(situation.state, given.what, situation.options)
    return Made(sheet, words=f"{given.what.capitalize()} mid-round", notice=f" is {given.what}: every later use "
                "takes it", changed=(ROUND, "conditions"))  # fmt: skip


def _end(situation: Situation[Sheet], given: End) -> Made:
    sheet, words = round_state.end(situation.state, given.prepare, situation.options)
    return Made(sheet, words=words, notice=f": {words[:1].lower()}{words[1:]}", changed=(ROUND,))


def _shown(situation: Situation[Sheet]) -> Mapping[str, Any]:
    return {"declared": situation.state.round is not None}


DECLARE: Final = Move("declare-round", "Declare the round", Scope.SHEET, Declare, ROUND_SECTIONS, _declare,
                      who=PLAYERS, button="Declare the round", shows=_shown)  # fmt: skip
ROLL: Final = Move("roll-use", "Roll a use of the round", Scope.SHEET, RollUse, ROUND_SECTIONS, _roll, who=PLAYERS,
                   button="Roll")  # fmt: skip
BEFALL: Final = Move("befall", "Wounded or stunned mid-round", Scope.SHEET, Befall, ROUND_SECTIONS, _befall,
                     who=frozenset({Role.GM}), note="only the GM wounds or stuns a character")  # fmt: skip
END: Final = Move("end-round", "End the round", Scope.SHEET, End, ROUND_SECTIONS, _end, who=PLAYERS,
                  button="End the round")  # fmt: skip

#: The round's moves, in the order a round takes them.
MOVES: Final[tuple[Move[Sheet], ...]] = (DECLARE, ROLL, BEFALL, END)
