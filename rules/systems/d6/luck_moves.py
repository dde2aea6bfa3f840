"""D6's luck points as moves (rules text, "luck points"; :mod:`rules.systems.d6.luck` keeps the points
and the spends): spending one, from the sheet, by the player or the GM; the GM's call on how heroic a
spend was; and the GM's extra point for a dramatic spend. The table's one pipeline performs them, from
the version of the luck points they were made from."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, StrictBool

from rules.document import MAX_ITEM_ID, Problem
from rules.systems.base import Role, SheetInvalid
from rules.systems.d6 import luck, round_state
from rules.systems.d6.luck import MAX_EXPLANATION
from rules.systems.d6.sheet import MAX_LUCK, MAX_WOUNDS, WOUND_LEVELS, LuckSpend, Sheet
from rules.systems.moves import Made, Move, Scope, Situation

__all__ = [
    "GRANT",
    "JUDGE",
    "LUCK",
    "LUCK_HEROISM",
    "MOVES",
    "SPEND",
    "grant_extra",
    "judge_luck",
    "luck_state",
    "spend_luck",
    "spend_problems",
]

#: The sheet's section of the luck points: a move on them is made from its version.
LUCK: Final = "luck"
#: The sheet's section of the round in play: a point spent to double changes it too.
ROUND: Final = "round"
#: The sheet's section of the wounds: escaping certain death leaves a dead character incapacitated.
CONDITIONS: Final = "conditions"

#: The GM's call on a spend, in the sheet's words.
LUCK_HEROISM: Final = (("unheroic", "Unheroic: gone"), ("heroic", "Heroic: back at the adventure's end"),
                       ("dramatic", "Heroic at a dramatic moment: back, perhaps with one more"))  # fmt: skip
#: What a point does, in the spend page's words.
LUCK_KINDS: Final = (
    ("double", "Double every stat and skill for this round (penalties apply after; stun is ignored)"),
    ("escape", "Escape certain death, after a failed roll (explain how)"),
)


def luck_state(sheet: Sheet) -> luck.LuckState:
    """The sheet's points and spends, as :mod:`rules.systems.d6.luck` counts them."""
    spends = [luck.Spend(s.id, luck.Kind(s.kind), None if s.heroism is None else luck.Heroism(s.heroism),
                         s.explanation) for s in sheet.luck_spends]  # fmt: skip
    return luck.state_of(sheet.luck_points, spends, sheet.luck_spent)


def spend_problems(sheet: Sheet, kind: str | None, explanation: str | None) -> tuple[Problem, ...]:
    """Every reason :func:`spend_luck` would refuse, at once, each at its field (``points``, ``kind``,
    ``explanation``). A ``kind`` or an ``explanation`` given as ``None`` was refused before: the checks
    that read it keep quiet (whether an escape is explained needs the kind)."""
    problems = []
    if len(sheet.luck_spends) >= MAX_LUCK:
        problems.append(
            Problem(field="points", message=f"{MAX_LUCK} luck points are spent this adventure already: "
                                            "the most one holds")
        )  # fmt: skip
    if sheet.luck_points == 0:
        try:
            luck.spend(luck_state(sheet), luck.Kind.DOUBLE)  # says what comes back at the adventure's end
        except luck.LuckError as error:
            problems.append(Problem(field=error.field, message=error.message))
    use = None
    if kind is not None:
        try:
            use = luck.Kind(kind)
        except ValueError:
            problems.append(Problem(field="kind", message=f"{kind!r} is not a use of a luck point (double or escape)"))
    if use is luck.Kind.DOUBLE and round_state.doubled_now(sheet):
        problems.append(Problem(field="kind", message="a luck point already doubles this round"))
    if explanation is not None:
        try:  # the explanation alone, on a state with a point to spend; an escape's needs it said
            luck.spend(luck.LuckState(1, (), 0), use or luck.Kind.DOUBLE, explanation)
        except luck.LuckError as error:
            problems.append(Problem(field=error.field, message=error.message))
    return tuple(problems)


def spend_luck(sheet: Sheet, kind: str, explanation: str = "",
               given: Mapping[str, Any] | None = None) -> tuple[Sheet, str]:  # fmt: skip
    """One luck point spent (rules text, "luck points"): the sheet after it, and the words its history
    keeps; :class:`rules.systems.d6.luck.LuckError` when none is left or an escape has no explanation.
    How heroic it was is the GM's call (:func:`judge_luck`). Doubling doubles the round the character is
    in from now on, or the next it declares (:func:`rules.systems.d6.round_state.luck_doubles`; refused
    when a point already doubles it). Escaping certain death leaves the character alive: a character the
    blow left dead is incapacitated instead (rules README: "never Dead"; the GM may put them elsewhere)."""
    if len(sheet.luck_spends) >= MAX_LUCK:
        raise luck.LuckError("points", f"{MAX_LUCK} luck points are spent this adventure already: the most one holds")
    state, entry = luck.spend(luck_state(sheet), kind, explanation)
    update: dict[str, Any] = {}
    words = luck.spend_words(entry)
    if entry.kind is luck.Kind.DOUBLE:
        sheet = round_state.luck_doubles(sheet, given or {})
    elif sheet.wounds == MAX_WOUNDS:
        update["wounds"] = MAX_WOUNDS - 1
        words += f"; alive, {WOUND_LEVELS[MAX_WOUNDS - 1]}"
    spends = (*sheet.luck_spends, LuckSpend(id=entry.id, kind=entry.kind.value, explanation=entry.explanation))
    after = sheet.model_copy(update={"luck_points": state.points, "luck_spends": spends,
                                     "luck_spent": state.spent, **update})  # fmt: skip
    return _valid(after), words


def _valid(sheet: Sheet) -> Sheet:
    """``sheet`` read again through its model, so that every rule of the model holds on it."""
    try:
        return Sheet.model_validate(sheet.model_dump(mode="json"))
    except ValueError as error:  # pydantic's ValidationError
        raise SheetInvalid([Problem(field="sheet", message=str(error))]) from None


def judge_luck(sheet: Sheet, spend_id: int, heroism: str) -> tuple[Sheet, str]:
    """The GM's call on a luck point spent this adventure: unheroic, heroic, or heroic at a dramatic
    moment (rules README, "Heroism is the GM's call"); it may change until the adventure ends. A spend no
    longer dramatic loses the extra point granted for it."""
    _, entry = luck.judge(luck_state(sheet), spend_id, heroism)
    assert entry.heroism is not None
    spends = tuple(
        s.model_copy(update={"heroism": entry.heroism.value, "extra": s.extra and entry.heroism.value == "dramatic"})
        if s.id == spend_id
        else s
        for s in sheet.luck_spends
    )
    return sheet.model_copy(update={"luck_spends": spends}), luck.judged_words(entry)


def grant_extra(sheet: Sheet, spend_id: int, granted: bool = True) -> tuple[Sheet, str]:
    """The GM grants (or takes back) one more point for a dramatic spend ("probably another one as well");
    it comes with the spend at the adventure's end."""
    found = next((s for s in sheet.luck_spends if s.id == spend_id), None)
    if found is None or found.heroism != "dramatic":
        raise luck.LuckError("spend", "only a spend judged dramatic this adventure can earn one more point")
    spends = tuple(s.model_copy(update={"extra": granted}) if s.id == spend_id else s for s in sheet.luck_spends)
    words = "one more luck point granted" if granted else "the extra luck point taken back"
    return sheet.model_copy(update={"luck_spends": spends}), f"Dramatic spend {spend_id}: {words}"


# --- The moves ------------------------------------------------------------------------------------


class Spend(BaseModel):
    """What the point does, and, for an escape, how the character got away."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    kind: Literal["double", "escape"] = Field(
        ..., title="What it does", json_schema_extra={"labels": dict(LUCK_KINDS), "suggested": "double"}
    )
    explanation: str = Field(
        "", max_length=MAX_EXPLANATION, title="How the character got away (for an escape)",
        json_schema_extra={"lines": True},
    )  # fmt: skip


SpendRef = Annotated[int, Field(ge=1, le=MAX_ITEM_ID, strict=True, title="Luck point")]


class Judge(BaseModel):
    """Which spend, and how heroic the GM judges it."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spend: SpendRef
    heroism: Literal["unheroic", "heroic", "dramatic"] = Field(
        ..., title="How heroic", json_schema_extra={"labels": dict(LUCK_HEROISM)}
    )


class Grant(BaseModel):
    """Which dramatic spend, and whether it earns one more point (or no longer does)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    spend: SpendRef
    granted: StrictBool = Field(True, title="One more point")


def _spend(situation: Situation[Sheet], given: Spend) -> Made:
    sheet, words = spend_luck(situation.state, given.kind, given.explanation, situation.options)
    changed = (LUCK, ROUND) if given.kind == "double" else (LUCK, CONDITIONS)
    return Made(sheet, words=words, notice=f": {words}", changed=changed)


def _spend_check(situation: Situation[Sheet], values: Mapping[str, Any]) -> tuple[Problem, ...]:
    return spend_problems(situation.state, values.get("kind"), values.get("explanation"))


def _judge(situation: Situation[Sheet], given: Judge) -> Made:
    sheet, words = judge_luck(situation.state, given.spend, given.heroism)
    named = dict(LUCK_HEROISM)[given.heroism]
    return Made(sheet, words=words, notice=f": luck point {given.spend}, {named[:1].lower()}{named[1:]}")


def _grant(situation: Situation[Sheet], given: Grant) -> Made:
    sheet, words = grant_extra(situation.state, given.spend, given.granted)
    said = "one more luck point at the adventure's end" if given.granted else "the extra point is taken back"
    return Made(sheet, words=words, notice=f": {said}")


def _shown(situation: Situation[Sheet]) -> dict[str, Any]:
    sheet = situation.state
    return {"points": sheet.luck_points, "doubled": round_state.doubled_now(sheet)}


SPEND: Final = Move(
    key="spend-luck",
    label="Spend a luck point",
    scope=Scope.SHEET,
    input=Spend,
    parts=(LUCK,),
    apply=_spend,
    button="Spend it",
    help="Anytime at all during a scenario: double every stat and skill for a round, or escape certain death. "
    "The GM judges how heroic it was, which decides whether it comes back at the adventure's end.",
    check=_spend_check,
    shows=_shown,
)

JUDGE: Final = Move(
    key="judge-luck",
    label="How heroic was it",
    scope=Scope.SHEET,
    input=Judge,
    parts=(LUCK,),
    apply=_judge,
    who=frozenset({Role.GM}),
    note="only the GM says how heroic a luck point's spend was",
    button="Judge",
)

GRANT: Final = Move(
    key="grant-luck",
    label="One more luck point",
    scope=Scope.SHEET,
    input=Grant,
    parts=(LUCK,),
    apply=_grant,
    who=frozenset({Role.GM}),
    note="only the GM grants an extra luck point",
    button="Save",
)

#: D6's moves, in the order a sheet offers them.
MOVES: Final[tuple[Move[Sheet], ...]] = (SPEND, JUDGE, GRANT)
