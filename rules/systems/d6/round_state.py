"""The round a D6 character is in, as the sheet keeps it between pages (:class:`rules.systems.d6.sheet.Round`).

A round is declared (its actions, running, the preparation the last round made), then played step by
step: each declared action attempted, a reaction used, the character wounded or stunned, a luck point
spent to double. The rules of each step are :class:`rules.systems.d6.rounds.RoundPlan`'s; this module
turns the sheet's record into a plan and each step into the next record, and refuses a step the plan
refuses (:class:`rules.systems.d6.rounds.RoundError`, by field). Each function is pure: it gives the sheet
after the step, which the write path saves.

Readings (the rules README, "D6 die codes", fixes the rest):

- **Declared actions stay declared**: the declaration may be changed until the first use of the round is
  rolled, and not after ("All the skill uses you've declared … still have to be attempted").
- **Conditions mid-round.** The round keeps the conditions it began with. A wound or a stun set since
  (on the planner, on the sheet, or by a hit in a fight) counts from the moment it was set: after every
  step already taken, before every later one, and the next step records it.
- **A luck point before the round** doubles the round the character then declares; spent mid-round it
  doubles every later use. Doubling twice is refused: a round is doubled once.
- **Preparing**: a round ended with nothing at all done in it (no declared action, no reaction, no
  running) may prepare one stat or skill; the next round may take its +1d (one declared action of it),
  or give it up. Any other round's end prepares nothing.
- A character who declared nothing and reacts starts a round of no declared actions.
- **Stun clears by itself** (rules README, "Stun"): −1d on every use until the end of the character's
  next round, then it clears. A stun in force when the round began (or set before anything happened in
  it) clears at this round's end; one set mid-round lasts through the next round and clears at its end.
  A round that passes with nothing declared is the character's round too. The GM may clear it sooner.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any, Final, Literal

from rules.systems.base import SpecError
from rules.systems.d6 import options
from rules.systems.d6.rounds import MAX_NAME, REACTION_SKILLS, Action, RoundError, RoundPlan, Use
from rules.systems.d6.sheet import Declared, Round, RoundStep, Sheet

__all__ = [
    "USES",
    "Befalls",
    "befall",
    "begun",
    "declare",
    "doubled_now",
    "end",
    "luck_doubles",
    "plan_of",
    "prepared_for",
    "prepared_name",
    "prepared_use",
    "preview",
    "problem",
    "round_over",
    "stun_clears_now",
    "take",
    "use_of",
    "uses_so_far",
    "with_roll",
]

Befalls = Literal["wounded", "stunned"]


def _reaction_skills(sheet: Sheet, given: Mapping[str, Any]) -> frozenset[str]:
    names = {s.name for s in sheet.skills if s.reaction}
    return frozenset(names | (options.reaction_skills(given) if given else REACTION_SKILLS))


def _name(sheet: Sheet, item: int) -> str:
    thing = sheet.stat(item) or sheet.skill(item)
    if thing is None:
        raise SpecError("item", "that is not a stat or a skill of this character")
    return thing.name


def prepared_name(sheet: Sheet) -> str | None:
    """The stat or skill the last round prepared for, by its name now; None when nothing was prepared."""
    return None if sheet.prepared is None else _name(sheet, sheet.prepared)


def _code(sheet: Sheet, item: int, field: str) -> Any:
    found = sheet.code_of(item)
    if found is None:
        raise SpecError(field, f"{_name(sheet, item)} has no die code")
    return found


def _label(number: int, name: str) -> str:
    """``3. Firearms``, cut to fit a label (:data:`rules.systems.d6.rounds.MAX_NAME`)."""
    label = f"{number}. {name}"
    return label if len(label) <= MAX_NAME else label[: MAX_NAME - 1] + "…"


def _actions(sheet: Sheet, declared: Iterable[Declared]) -> tuple[Action, ...]:
    return tuple(
        Action(
            label=_label(i, _name(sheet, d.item)),
            skill=_name(sheet, d.item),
            code=_code(sheet, d.item, "item"),
            difficulty=d.difficulty,
        )
        for i, d in enumerate(declared, start=1)
    )


def _conditions(record: Round) -> tuple[bool, bool]:
    """Whether the round has the character wounded, and stunned, after its last step."""
    wounded, stunned = record.wounded, record.stunned
    for step in record.steps:
        if step.what in ("wounded", "healed"):
            wounded = step.what == "wounded"
        elif step.what in ("stunned", "unstunned"):
            stunned = step.what == "stunned"
    return wounded, stunned


def _unrecorded(sheet: Sheet, record: Round) -> list[RoundStep]:
    """The conditions set or taken back since the round's last step that no step records yet (by the sheet or
    a fight): they count from now."""
    wounded, stunned = _conditions(record)
    found = []
    if sheet.wounded != wounded:
        found.append(RoundStep(what="wounded" if sheet.wounded else "healed"))
    if sheet.stunned != stunned:
        found.append(RoundStep(what="stunned" if sheet.stunned else "unstunned"))
    return found


def _plan(sheet: Sheet, record: Round, steps: Sequence[RoundStep], given: Mapping[str, Any]) -> RoundPlan:
    plan = RoundPlan(
        actions=_actions(sheet, record.actions),
        wounded=record.wounded,
        stunned=record.stunned,
        running=record.running,
        doubled=record.doubled,
        prepared=prepared_name(sheet) if record.prepared else None,
        reaction_skills=_reaction_skills(sheet, given),
    )
    for step in steps:
        if step.what == "attempt":
            if step.action is None:
                raise RoundError("action", "an attempt names the declared action it rolls (from 0)")
            plan = plan.attempt(step.action)  # the plan checks the round declares it
        elif step.what in ("reaction", "extra"):
            if step.item is None:
                raise RoundError("item", "a reaction or a use not declared names a stat or a skill of this character")
            name = _name(sheet, step.item)
            code = _code(sheet, step.item, step.what)
            plan = plan.react(name, code, label=name, difficulty=step.difficulty, undeclared=step.what == "extra")
        elif step.what == "wounded":
            plan = plan.wound()
        elif step.what == "stunned":
            plan = plan.stun()
        elif step.what == "healed":
            plan = plan.heal()
        elif step.what == "unstunned":
            plan = plan.unstun()
        else:
            plan = plan.spend_luck()
    return plan


def plan_of(sheet: Sheet, given: Mapping[str, Any]) -> RoundPlan | None:
    """The declared round as it stands now, every condition set since its start counted from now; None
    when the character is between rounds (or has only spent a luck point on the next)."""
    record = sheet.round
    if record is None or not record.declared:
        return None
    return _plan(sheet, record, (*record.steps, *_unrecorded(sheet, record)), given)


def problem(sheet: Sheet, given: Mapping[str, Any]) -> SpecError | None:
    """Why the sheet's round no longer holds together (a code corrected past what a round takes, a step
    the rules refuse), or None: every write checks it, so a page never meets a round it cannot show."""
    try:
        plan_of(sheet, given)
    except SpecError as error:
        return error
    return None


def uses_so_far(sheet: Sheet, given: Mapping[str, Any]) -> int:
    """How many uses the declared round counts now (its declared actions and the reactions so far), at least 1:
    a roll of the sheet made mid-round takes the round's penalty."""
    plan = plan_of(sheet, given)
    if plan is None:
        return 1
    return max(1, len(plan.actions) + len(plan.reactions))


def prepared_for(sheet: Sheet, item: int) -> bool:
    """Whether a roll of ``item`` takes the +1d the last round prepared: it is the prepared one, and the round
    declared since (if any) took the preparation."""
    if sheet.prepared != item:
        return False
    return sheet.round is None or not sheet.round.declared or sheet.round.prepared


#: The steps that are uses of the round (rolled).
USES: Final = ("attempt", "reaction", "extra")


def begun(sheet: Sheet) -> bool:
    """Whether a use of the round has been rolled: its declaration is then fixed."""
    return sheet.round is not None and any(s.what in USES for s in sheet.round.steps)


def doubled_now(sheet: Sheet) -> bool:
    """Whether a luck point doubles what the character rolls now (this round)."""
    record = sheet.round
    return record is not None and (record.doubled or any(s.what == "luck" for s in record.steps))


def _checked(sheet: Sheet, record: Round, given: Mapping[str, Any]) -> Sheet:
    """The sheet with ``record`` as its round, the round's plan built to refuse what its rules refuse."""
    if record.declared:
        _plan(sheet, record, record.steps, given)
    return sheet.model_copy(update={"round": record})


def declare(sheet: Sheet, actions: Sequence[tuple[int, int | None]], *, running: bool, use_preparation: bool,
            given: Mapping[str, Any]) -> Sheet:  # fmt: skip
    """The round's declared actions (stat or skill id, difficulty), whether the character runs, and whether
    it takes the +1d the last round prepared. Refused once a use is rolled; a luck point already spent
    on this round keeps doubling it."""
    if begun(sheet):
        raise RoundError("actions", "this round has begun: its declared actions stay declared; end it first")
    if not sheet.can_act:
        raise RoundError("round", "a character who is incapacitated or dead does nothing this round")
    for i, (item, _) in enumerate(actions):
        skill = sheet.skill(item)
        if sheet.stat(item) is None and (skill is None or skill.reaction):
            raise RoundError(f"actions[{i}]", "declare a stat or a skill; a reaction skill is used mid-round")
    if use_preparation and sheet.prepared is None:
        raise RoundError("prepared", "the last round prepared nothing")
    record = Round(
        declared=True,
        actions=tuple(Declared(item=item, difficulty=difficulty) for item, difficulty in actions),
        running=running,
        doubled=doubled_now(sheet),
        prepared=use_preparation,
        wounded=sheet.wounded,
        stunned=sheet.stunned,
    )
    return _checked(sheet, record, given)


def preview(sheet: Sheet, actions: Sequence[tuple[int, int | None]], *, running: bool, use_preparation: bool,
            given: Mapping[str, Any]) -> RoundPlan:  # fmt: skip
    """The round as :func:`declare` would declare it now, for its chances before it is declared."""
    plan = plan_of(declare(sheet, actions, running=running, use_preparation=use_preparation, given=given), given)
    assert plan is not None
    return plan


def take(sheet: Sheet, step: RoundStep, given: Mapping[str, Any]) -> tuple[Sheet, Use]:
    """A use of the round rolled now: declared action ``step.action`` attempted, or reaction skill
    ``step.item`` used (which starts a round of no declared actions if none is declared). Gives the sheet
    with the step recorded (and the conditions set since, before it) and the use at its code now."""
    if not sheet.can_act:
        raise RoundError("round", "a character who is incapacitated or dead does nothing this round")
    record = sheet.round
    if step.what == "reaction":
        skill = sheet.skill(step.item) if step.item is not None else None
        if skill is None or not skill.reaction:
            raise RoundError("reaction", "only a reaction skill of this character is used mid-round")
        if record is None or not record.declared:
            record = Round(declared=True, doubled=doubled_now(sheet), wounded=sheet.wounded, stunned=sheet.stunned)
    elif step.what == "extra":
        if step.item is None or sheet.code_of(step.item) is None:
            raise RoundError("item", "a use not declared is of a stat or a skill of this character with a die code")
        if record is None or not record.declared:
            raise RoundError("round", "a use outside a declared round is rolled on its own")
    elif step.what != "attempt":
        raise RoundError("round", "a use of the round is an action attempted, a reaction or a use not declared")
    elif record is None or not record.declared:
        raise RoundError("round", "declare the round's actions first")
    steps = (*record.steps, *_unrecorded(sheet, record), step.model_copy(update={"roll": None}))
    plan = _plan(sheet, record, steps, given)
    use = plan.uses[sum(1 for s in steps if s.what in USES) - 1]
    return _checked(sheet, record.model_copy(update={"steps": steps}), given), use


def use_of(sheet: Sheet, item: int, difficulty: int | None, given: Mapping[str, Any]) -> tuple[Sheet, Use] | None:
    """A roll of ``item`` made now, from any page (the roll page, a GM's call answered, a fight), as a use of
    the declared round (the rules README, "The round is one"): the first declared action of it still to
    attempt; else, a reaction skill's use; else a use the round did not declare, which counts as one more
    use as a reaction does. Gives the sheet with the step recorded (:func:`take`) and the use at its code
    now; None when no round is declared (the roll is made on its own)."""
    record = sheet.round
    if record is None or not record.declared:
        return None
    plan = plan_of(sheet, given)
    assert plan is not None
    pending = (i for i in plan.pending if record.actions[i].item == item)
    action = next(pending, None)
    if action is not None:
        step = RoundStep(what="attempt", action=action, difficulty=difficulty)
    else:
        skill = sheet.skill(item)
        reacting = skill is not None and skill.reaction
        step = RoundStep(what="reaction" if reacting else "extra", item=item, difficulty=difficulty)
    return take(sheet, step, given)


def prepared_use(sheet: Sheet, item: int) -> Sheet | None:
    """The sheet once a roll of ``item`` made outside a declared round took the +1d the last round prepared
    for it (an aim's +1d applies once: the preparation is spent), or None when it took none."""
    if sheet.round is not None and sheet.round.declared:
        return None
    return sheet.model_copy(update={"prepared": None}) if prepared_for(sheet, item) else None


def with_roll(sheet: Sheet, roll: int) -> Sheet:
    """The sheet whose last step of the round records the roll made for it (its number in the log)."""
    record = sheet.round
    assert record is not None
    assert record.steps
    steps = (*record.steps[:-1], record.steps[-1].model_copy(update={"roll": roll}))
    return sheet.model_copy(update={"round": record.model_copy(update={"steps": steps})})


def befall(sheet: Sheet, what: Befalls, given: Mapping[str, Any]) -> Sheet:
    """The GM wounds or stuns the character now: the sheet's condition, and the round's step from this moment
    (the round's start when nothing has happened in it yet)."""
    if what == "wounded":
        if sheet.wounded:
            raise RoundError("wounds", "the character is already wounded")
        sheet = sheet.model_copy(update={"wounds": 1})
    elif what == "stunned":
        if sheet.stunned:
            raise RoundError("stunned", "the character is already stunned")
        sheet = sheet.model_copy(update={"stunned": True})
    else:
        raise RoundError("round", f"{what!r} is not a condition the GM sets mid-round")
    record = sheet.round
    if record is None or not record.declared:
        return sheet
    if not record.steps:
        return _checked(sheet, record.model_copy(update={what: True}), given)
    steps = (*record.steps, *_unrecorded(sheet, record))
    return _checked(sheet, record.model_copy(update={"steps": steps}), given)


def luck_doubles(sheet: Sheet, given: Mapping[str, Any]) -> Sheet:
    """A luck point spent to double: the round the character is in, from now on, or the next it declares."""
    if doubled_now(sheet):
        raise RoundError("kind", "a luck point already doubles this round")
    record = sheet.round
    if record is None:
        return sheet.model_copy(update={"round": Round(doubled=True)})
    if not record.steps:
        return _checked(sheet, record.model_copy(update={"doubled": True}), given)
    steps = (*record.steps, *_unrecorded(sheet, record), RoundStep(what="luck"))
    return _checked(sheet, record.model_copy(update={"steps": steps}), given)


def stun_clears_now(sheet: Sheet) -> bool:
    """Whether the stun clears when the round in play ends: it was in force when the round began (or no round
    was declared), so this round is the character's next since the stun ("until the end of the character's
    next round"); a stun set mid-round lasts through the next round."""
    if not sheet.stunned:
        return False
    record = sheet.round
    return record is None or not record.declared or record.stunned


def _after_round(sheet: Sheet, prepared: int | None) -> Sheet:
    """The sheet between rounds: no round in play, the preparation ``prepared``, and a stun cleared at its end."""
    update: dict[str, Any] = {"round": None, "prepared": prepared}
    if stun_clears_now(sheet):
        update["stunned"] = False
    return sheet.model_copy(update=update)


def round_over(sheet: Sheet, given: Mapping[str, Any]) -> Sheet:
    """The GM ends the round for everyone (in a fight): the character's round ends as :func:`end` ends it;
    a round of nothing keeps the preparation the character had, any other gives it up; a stun may clear."""
    plan = plan_of(sheet, given)
    keep = sheet.prepared if plan is None or plan.did_nothing else None
    return _after_round(sheet, keep)


def end(sheet: Sheet, prepare: int | None, given: Mapping[str, Any]) -> tuple[Sheet, str]:
    """The round is over: its doubling and its preparation end with it, and a stun at the end of the character's
    next round since it was set (:func:`stun_clears_now`). A round of nothing at all may prepare one stat or
    skill (``prepare``) for +1d in the next. Gives the sheet and the words its history keeps."""
    plan = plan_of(sheet, given)
    if prepare is not None:
        if plan is not None and not plan.did_nothing:
            raise RoundError("prepare", "only a round of nothing at all (no action, no reaction, no running) prepares "
                                        "the next")  # fmt: skip
        name = _name(sheet, prepare)
        skill = sheet.skill(prepare)
        if skill is not None and skill.reaction:
            raise RoundError("prepare", f"{name} is a reaction skill: prepare a stat or a skill to declare")
        if sheet.code_of(prepare) is None:
            raise RoundError("prepare", f"{name} has no die code")
        words = f"A round of nothing: {name} prepared (+1d next round)"
    else:
        words = "The round ended" if sheet.round is not None else "A round passed"
    if stun_clears_now(sheet):
        words += "; no longer stunned"
    return _after_round(sheet, prepare), words
