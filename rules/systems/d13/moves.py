"""D13's sheet moves: the roll and the decisions its difficulty leaves, the host's reveal of a secret d4, the
cards a player plays, and the turn number.

The roll (``d13-roll``): the host names the difficulty, the ability and the skill (a call, answered from the
sheet or the dashboard; the roll page and the API make the same move), or a player rolls their own where the
campaign lets them. d4 + d9 against ability + skill + the scene's boosts on the skill. What comes next is the
difficulty's (rules README, "D13"):

- **Easy**, **Difficult**: the roll stands.
- **Average**: after any result but a 13 the player decides — keep it, or reroll the d4 or the d9 once, each
  with the exact chance of success and of a card it leaves (``d13-keep``, ``d13-reroll``).
- **Monstrous**: after a success the host, seeing the dice, decides — let it stand, or force a reroll of
  the d4 or the d9, each with the chance it leaves (``d13-stand``, ``d13-force``).
- **Unclear**: the host rolls the d4 in secret (the roll is secret in the log; the d4 waits on the table, the
  host's alone). The player sees the d9 and the chance given it; at Average they may ask a reroll before the
  reveal, which is rolled at the reveal (a hidden 13 stands, and nothing shows before whether it was one); the
  host reveals (``d13-reveal``), and a card for doubles is drawn then. At Monstrous the host's decision is also
  the reveal: every unclear Monstrous roll waits for it, a failure too (its one choice: it stands), so that the
  sheet says nothing of the hidden d4.

Doubles and the 13 are judged on the roll that stands; doubles that stand draw the top card of the deck into
the character's hand. The last roll settled stays on the sheet for what a card may still do with it
(``d13-card``): a number card replaces the roll (its value is the total; no doubles), sets the effect, or the
turn number; a face card boosts a skill until the host ends the scene (the last roll too, judged again, when
it tested that skill); a joker is any of them; a card whose suit is not the tested ability's asks for the
player's rationale, which the campaign's log keeps with the play (a card drawn is logged too, without saying
which). The host also declares a task automatic (``d13-automatic``: no roll, no card) and marks the condition
track (``d13-mark``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from fractions import Fraction
from random import Random
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.document import ItemId, LongText, Problem
from rules.systems.d13 import cards, chance
from rules.systems.d13 import table as d13_table
from rules.systems.d13.chance import LEVEL_WORDS, Level, Roll
from rules.systems.d13.options import ABILITY_NAMES, SUIT_WORDS, suit_of
from rules.systems.d13.sheet import Ability, Last, Pending, Sheet, Task
from rules.systems.d13.table import Table
from rules.systems.moves import Choice, Made, Move, NoInput, Prompt, Rolled, Scope, Situation
from rules.systems.protocol.editing import Role

#: The parts of the sheet every roll move is made from and changes: the roll waiting, and the last settled.
PARTS: Final = ("roll",)
#: The parts of the table a roll or a card changes: the deck (a draw, a discard), the hands, the secret d4s,
#: the boosts and the turn order.
TABLE_PARTS: Final = ("deck", "hands", "secrets", "boosts", "turns")
HOST: Final = frozenset({Role.GM})
LEVEL_LABELS: Final[dict[str, Any]] = {level.value: words for level, words in LEVEL_WORDS.items()}


class RollInput(BaseModel):
    """What a roll tests: the difficulty, the ability and the skill (by its id on the sheet; none: the ability
    alone), and whether the host rolls the d4 in secret (an unclear task: the host's call)."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    level: Level = Field(..., title="Difficulty", json_schema_extra={"labels": LEVEL_LABELS})
    ability: Ability = Field(..., title="Ability", json_schema_extra={"labels": dict[str, Any](ABILITY_NAMES)})
    skill: ItemId | None = Field(None, title="Skill", description="The skill, by its id on the sheet.")
    unclear: bool = Field(False, title="Unclear task", description="The host rolls the d4 in secret.")


class Die(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    die: Literal["d4", "d9"] = Field(..., title="Which die", json_schema_extra={"labels": {"d4": "The d4",
                                                                                      "d9": "The d9"}})  # fmt: skip


# --- The task and its words ------------------------------------------------------------------------


def target_of(sheet: Sheet, ability: str, skill: int | None, table: Table | None, character: int | None) -> int:
    """Ability + skill + what the scene's face cards add to that skill: the highest total that succeeds."""
    found = sheet.skill(skill)
    boost = table.boost(character, skill) if table is not None and character is not None else 0
    return sheet.ability(ability) + (found.rating if found is not None else 0) + boost


def task_words(sheet: Sheet, task: Task) -> str:
    """A task in a few words: "Average Wits + Occult (7)"."""
    found = sheet.skill(task.skill)
    skill = f" + {found.name}" if found is not None else ""
    return f"{LEVEL_WORDS[task.level]} {ABILITY_NAMES[task.ability]}{skill} ({task.target})"


def _dice(d4: int | None, d9: int) -> str:
    return f"d4 {d4 if d4 is not None else '?'} + d9 {d9}"


def _said(roll: Roll, target: int, level: Level) -> str:
    """What a roll that stands came to: "8, a success (doubles: a card)"."""
    won = chance.succeeds(roll, target, level)
    extra = ": doubles, a card" if roll.doubles else (": a 13 always fails" if roll.total == 13 else "")
    return f"{roll.total}, {'a success' if won else 'a failure'}{extra}"


def _spec(task: Task, sheet: Sheet, **more: Any) -> dict[str, Any]:
    found = sheet.skill(task.skill)
    return {"system": "d13", "roll": "check", "difficulty": task.level.value, "target": task.target,
            "ability": task.ability, "skill": found.name if found is not None else None, **more}  # fmt: skip


def _rolled(task: Task, sheet: Sheet, roll: Roll, label: str, *, p: Fraction, secret: bool = False,
            follows: int | None = None, **more: Any) -> Rolled:  # fmt: skip
    outcome = {"success": chance.succeeds(roll, task.target, task.level), "doubles": roll.doubles}
    return Rolled("check", label, _spec(task, sheet, **more), {"d4": roll.d4, "d9": roll.d9}, roll.total, outcome,
                  p, "success", follows=follows, secret=secret)  # fmt: skip


def _ratio(p: Fraction) -> str:
    """A chance in a choice's words: "certain", "none", or a whole percent, rounded from the exact fraction
    (``Fraction`` takes no format spec before Python 3.12) and kept off 0% and 100%, which only those two are."""
    if p in (0, 1):
        return "certain" if p == 1 else "none"
    return f"{min(max(round(p * 100), 1), 99)}%"


# --- Settling a roll ---------------------------------------------------------------------------------


def _settle(situation: Situation[Sheet], table: Table | None, task: Task, roll: Roll, seq: int | None,
            ) -> tuple[Sheet, Table | None, str]:  # fmt: skip
    """The roll stands: the sheet's last roll, a card drawn on doubles, and the words for it."""
    sheet = situation.state
    won = chance.succeeds(roll, task.target, task.level)
    last = Last(task=task, total=roll.total, success=won, doubles=roll.doubles, effect=roll.total, roll=seq)
    words = f"{task_words(sheet, task)}: {_said(roll, task.target, task.level)}"
    if roll.doubles and table is not None and situation.character is not None:
        table, code, deck_said = d13_table.draw(table, situation.character, situation.dice(), situation.name)
        if code is None:  # the deck says so: "no card is left in the deck or the discard pile"
            words += f"; {deck_said or 'no card was left to draw'}"
        else:
            words += f"; {deck_said + ', ' if deck_said else ''}drew a card"
    return sheet.model_copy(update={"last": last, "pending": None}), table, words


def _then_last(state: BaseModel, seqs: tuple[int, ...]) -> BaseModel:
    """The sheet with its roll's number in the log: the last roll settled, or the one waiting."""
    sheet = Sheet.model_validate(state.model_dump()) if not isinstance(state, Sheet) else state
    if not seqs:
        return sheet
    if sheet.pending is not None:
        pending = sheet.pending
        secret_rolls = (*pending.secret_rolls, seqs[-1]) if pending.secret else pending.secret_rolls
        return sheet.model_copy(
            update={"pending": pending.model_copy(update={"roll": seqs[-1], "secret_rolls": secret_rolls})}
        )
    if sheet.last is not None and sheet.last.roll is None:
        return sheet.model_copy(update={"last": sheet.last.model_copy(update={"roll": seqs[-1]})})
    return sheet  # fmt: skip


def _choice_label(key: str, option: chance.Option, host: bool) -> str:
    """A choice in words, with the chance of a card it leaves (the page shows its exact chance of success)."""
    card = f" (a card: {_ratio(option.card)})" if option.card else ""
    if key == "keep":
        return f"{'Let it stand' if host else 'Keep it'}{card}"
    verb = "Force a reroll of" if host else "Reroll"
    return f"{verb} the {key}{card}"


def _decider(*users: int | None) -> int:
    """The first user named: the one a decision waits for."""
    found = next((user for user in users if user is not None), None)
    if found is None:
        raise ValueError("a decision waits for someone")
    return found


def _player_prompt(situation: Situation[Sheet], pending: Pending, options: tuple[chance.Option, ...]) -> Prompt:
    to = _decider(situation.owner, situation.by.user if situation.by else None)
    given = {"keep": ("d13-keep", {}), "d4": ("d13-reroll", {"die": "d4"}), "d9": ("d13-reroll", {"die": "d9"})}
    choices = tuple(Choice(given[o.key][0], _choice_label(o.key, o, host=False), o.success, given[o.key][1])
                    for o in options)  # fmt: skip
    seen = _dice(pending.d4, pending.d9)
    question = f"{seen}: keep the roll, or reroll one die once? The new roll stands."
    return Prompt(to, question, choices)


def _host_prompt(situation: Situation[Sheet], pending: Pending, roll: Roll, options: tuple[chance.Option, ...],
                 ) -> Prompt:  # fmt: skip
    to = _decider(situation.gm, situation.by.user if situation.by else None)
    given = {"keep": ("d13-stand", {}), "d4": ("d13-force", {"die": "d4"}), "d9": ("d13-force", {"die": "d9"})}
    choices = tuple(Choice(given[o.key][0], _choice_label(o.key, o, host=True), o.success, given[o.key][1])
                    for o in options)  # fmt: skip
    secretly = " (the d4 is secret: your decision reveals it)" if pending.secret else ""
    if len(choices) == 1:  # an unclear roll that fails: it stands, and letting it stand reveals it
        return Prompt(to, f"{_dice(roll.d4, roll.d9)} fails{secretly}: it stands.", choices)
    return Prompt(to, f"{_dice(roll.d4, roll.d9)} succeeds{secretly}: let it stand, or force a reroll?", choices)


def _reveal_prompt(situation: Situation[Sheet], pending: Pending) -> Prompt:
    to = _decider(situation.gm, situation.by.user if situation.by else None)
    return Prompt(to, f"The d4 of this unclear task is secret ({_dice(None, pending.d9)}): reveal it when the "
                      "story does.", (Choice("d13-reveal", "Reveal the d4", None),))  # fmt: skip


Rerolled = Literal["", "d4", "d9", "kept"]


def _after_dice(
    situation: Situation[Sheet], table: Table | None, task: Task, roll: Roll, *, secret: bool,
    rerolled: Rerolled = "", seq: int | None = None,
) -> tuple[Sheet, Table | None, str, Prompt | None]:  # fmt: skip
    """Where a roll goes once its dice fall (first or rerolled): the decision its difficulty leaves, or the
    roll settled. A secret d4 waits on the table for the host's reveal (on a Monstrous task, the host's
    decision, success or failure)."""
    sheet = situation.state
    character = situation.character or 0
    won = chance.succeeds(roll, task.target, task.level)
    if secret:
        pending = Pending(task=task, d4=None, d9=roll.d9, secret=True, stage="reveal", rerolled=rerolled, roll=seq)
        if table is not None:
            secrets = tuple(s for s in table.secrets if s.character != character)
            table = table.model_copy(update={"secrets": (*secrets, d13_table.Secret(character=character, d4=roll.d4))})
        prompt: Prompt
        if task.level is Level.AVERAGE and not rerolled:
            pending = pending.model_copy(update={"stage": "player"})
            prompt = _player_prompt(situation, pending, chance.unclear_choices(roll.d9, task.target, task.level))
        elif task.level is Level.MONSTROUS and rerolled == "":
            # The host decides on every unclear Monstrous roll, a failure too (the one choice: it stands), so
            # that the sheet, which the player reads, shows nothing of the secret d4 (rules text, "Unclear
            # Tasks": the player judges "likely success by the d9 result alone").
            pending = pending.model_copy(update={"stage": "host"})
            prompt = _host_prompt(situation, pending, roll, chance.host_choices(roll, task.target))
        else:
            prompt = _reveal_prompt(situation, pending)
        return sheet.model_copy(update={"pending": pending}), table, f"{task_words(sheet, task)}: " \
            f"{_dice(None, roll.d9)}, the d4 rolled in secret", prompt  # fmt: skip
    if not rerolled and task.level is Level.AVERAGE and roll.total != chance.ALWAYS_FAILS:
        pending = Pending(task=task, d4=roll.d4, d9=roll.d9, stage="player", roll=seq)
        prompt = _player_prompt(situation, pending, chance.player_choices(roll, task.target))
        words = f"{task_words(sheet, task)}: {_dice(roll.d4, roll.d9)} = {roll.total}, the player may reroll a die"
        return sheet.model_copy(update={"pending": pending}), table, words, prompt
    if not rerolled and task.level is Level.MONSTROUS and won:
        pending = Pending(task=task, d4=roll.d4, d9=roll.d9, stage="host", roll=seq)
        prompt = _host_prompt(situation, pending, roll, chance.host_choices(roll, task.target))
        words = f"{task_words(sheet, task)}: {_dice(roll.d4, roll.d9)} = {roll.total}, the host may force a reroll"
        return sheet.model_copy(update={"pending": pending}), table, words, prompt
    after, table, words = _settle(situation, table, task, roll, seq)
    return after, table, words, None


# --- The roll ------------------------------------------------------------------------------------------


def _table(situation: Situation[Sheet]) -> Table | None:
    state = situation.table
    if state is None:
        return None
    return state if isinstance(state, Table) else Table.model_validate(state.model_dump())


def _cannot_roll(situation: Situation[Sheet]) -> str | None:
    sheet = situation.state
    if sheet.brawn is None or sheet.step:
        return "the character is not finished yet"
    if sheet.pending is not None:
        return "the last roll waits for a decision"
    helpless = situation.options.get("helpless_at")
    if isinstance(helpless, int) and sheet.condition >= helpless:
        return f"at {sheet.condition} on the {situation.options.get('condition', 'condition')} track the character " \
               "is helpless and cannot act"  # fmt: skip
    return None


def _check_roll(situation: Situation[Sheet], values: Mapping[str, Any]) -> tuple[Problem, ...]:
    problems = []
    skill = values.get("skill")
    if skill is not None and situation.state.skill(skill) is None:
        problems.append(Problem(field="skill", message="there is no such skill on this sheet"))
    if values.get("unclear") and situation.role is not Role.GM and not situation.called:
        problems.append(Problem(field="unclear", message="only the host rolls the d4 in secret"))
    return tuple(problems)


def _roll(situation: Situation[Sheet], given: RollInput) -> Made:
    sheet, table = situation.state, _table(situation)
    target = target_of(sheet, given.ability, given.skill, table, situation.character)
    task = Task(level=given.level, ability=given.ability, skill=given.skill, target=target)
    rng = situation.dice()
    roll = Roll(rng.randint(1, 4), rng.randint(0, 9))
    p = chance.check(target, given.level).success
    label = f"{task_words(sheet, task)}{' (unclear)' if given.unclear else ''}"
    rolled = _rolled(task, sheet, roll, label, p=p, secret=given.unclear, unclear=given.unclear)
    after, table, words, prompt = _after_dice(situation, table, task, roll, secret=given.unclear)
    notice = f"rolled {words[words.index(':') + 2 :]}" if not given.unclear else "rolled: the host keeps the d4 secret"
    return Made(after, words=words, notice=notice, rolls=(rolled,), prompt=prompt, then=_then_last, table=table,
                result={"d9": roll.d9, **({} if given.unclear else {"d4": roll.d4, "total": roll.total})})  # fmt: skip


# --- The decisions ----------------------------------------------------------------------------------------


def _waiting(stage: str) -> Any:
    def why_not(situation: Situation[Sheet]) -> str | None:
        pending = situation.state.pending
        return None if pending is not None and pending.stage == stage else "no roll waits for this decision"

    return why_not


def _cannot_force(situation: Situation[Sheet]) -> str | None:
    """The host forces a reroll of a Monstrous success only (an unclear roll that fails waits for the host
    too, to be let stand: :func:`_after_dice`)."""
    why = _waiting("host")(situation)
    pending, table = situation.state.pending, _table(situation)
    if why is not None or pending is None:
        return why
    d4 = pending.d4 if pending.d4 is not None else (table.secret(situation.character or 0) if table else None)
    if d4 is not None and not chance.succeeds(Roll(d4, pending.d9), pending.task.target, pending.task.level):
        return "the roll fails and stands: the host forces a reroll of a success only"
    return None


def _dice_of(situation: Situation[Sheet], pending: Pending) -> Roll:
    """The dice waiting, the secret d4 read from the table."""
    table = _table(situation)
    d4 = pending.d4 if pending.d4 is not None else (table.secret(situation.character or 0) if table else None)
    if d4 is None:
        raise ValueError("the secret d4 is missing from the table")
    return Roll(d4, pending.d9)


def _keep(situation: Situation[Sheet], given: NoInput) -> Made:
    """The player keeps the roll (Average): it stands, or, secret, waits for the host's reveal."""
    sheet, pending = situation.state, situation.state.pending
    assert pending is not None
    roll, table = _dice_of(situation, pending), _table(situation)
    if pending.secret:
        waiting = pending.model_copy(update={"stage": "reveal", "rerolled": "kept"})
        words = f"{task_words(sheet, pending.task)}: kept the roll, the d4 still secret"
        return Made(sheet.model_copy(update={"pending": waiting}), words=words, notice="kept the roll",
                    prompt=_reveal_prompt(situation, waiting))  # fmt: skip
    after, table, words = _settle(situation, table, pending.task, roll, pending.roll)
    said = _said(roll, pending.task.target, pending.task.level)
    return Made(after, words=f"Kept {words[0].lower()}{words[1:]}", notice=f"kept the roll: {said}", table=table,
                result={"total": roll.total})  # fmt: skip


def _reroll(situation: Situation[Sheet], given: Die, *, host: bool) -> Made:
    sheet, pending = situation.state, situation.state.pending
    assert pending is not None
    before, table = _dice_of(situation, pending), _table(situation)
    task = pending.task
    rng = situation.dice()
    who = "The host forced a reroll of" if host else "Rerolled"
    if pending.secret and not host:
        # Asked before the reveal, the reroll is rolled at the reveal (rules README: "an Average reroll may be asked
        # before the reveal"): nothing of the secret d4 shows until then, not even whether it made a 13, which
        # cannot be rerolled and so stands.
        waiting = pending.model_copy(update={"stage": "reveal", "rerolled": given.die})
        words = f"{task_words(sheet, task)}: asked to reroll the {given.die}, rolled when the host reveals the d4"
        return Made(sheet.model_copy(update={"pending": waiting}), words=words,
                    notice=f"asked to reroll the {given.die}: it is rolled at the reveal",
                    prompt=_reveal_prompt(situation, waiting))  # fmt: skip
    roll = _rerolled(before, given.die, rng)
    options = (chance.host_choices if host else chance.player_choices)(before, task.target)
    p = next(o.success for o in options if o.key == given.die)
    secret_d4 = False
    label = f"{task_words(sheet, task)}: the {given.die} rerolled{' (the host forced it)' if host else ''}"
    rolled = _rolled(task, sheet, roll, label, p=p, secret=secret_d4, rerolled=given.die)
    reveals: tuple[int, ...] = ()
    if host and pending.secret:
        # The host's decision on an unclear Monstrous task is the reveal: the secret roll is shown.
        reveals = pending.secret_rolls
        table = _without_secret(table, situation.character or 0)
        pending = pending.model_copy(update={"secret": False, "d4": before.d4})
    after_situation = replace(situation, state=sheet.model_copy(update={"pending": pending}), table=table)
    after, table, _, prompt = _after_dice(after_situation, table, task, roll, secret=secret_d4, rerolled=given.die)
    if secret_d4 and after.pending is not None:
        after = after.model_copy(update={"pending": after.pending.model_copy(
            update={"secret_rolls": pending.secret_rolls})})  # fmt: skip
    told = f"{who} the {given.die}: " + (
        f"{_dice(None, roll.d9)}" if secret_d4 else _said(roll, task.target, task.level)
    )
    return Made(after, words=f"{task_words(sheet, task)}: {told[0].lower()}{told[1:]}" if not host else
                f"{task_words(sheet, task)}: {told}", notice=told[0].lower() + told[1:], rolls=(rolled,),
                prompt=prompt, then=_then_last, table=table, reveals=reveals,
                result={"d9": roll.d9, **({} if secret_d4 else {"d4": roll.d4, "total": roll.total})})  # fmt: skip


def _rerolled(before: Roll, die: str, rng: Random) -> Roll:
    """The roll with ``die`` rolled again."""
    return Roll(rng.randint(1, 4), before.d9) if die == "d4" else Roll(before.d4, rng.randint(0, 9))


def _without_secret(table: Table | None, character: int) -> Table | None:
    if table is None:
        return None
    return table.model_copy(update={"secrets": tuple(s for s in table.secrets if s.character != character)})


def _stand(situation: Situation[Sheet], given: NoInput) -> Made:
    """The host lets a Monstrous success stand (and, for an unclear task, reveals it)."""
    pending = situation.state.pending
    assert pending is not None
    roll, table = _dice_of(situation, pending), _table(situation)
    reveals = pending.secret_rolls if pending.secret else ()
    table = _without_secret(table, situation.character or 0) if pending.secret else table
    after, table, words = _settle(situation, table, pending.task, roll, pending.roll)
    said = _said(roll, pending.task.target, pending.task.level)
    return Made(after, words=f"The host let it stand: {words}", notice=f"'s roll stands: {said}", table=table,
                reveals=reveals, result={"total": roll.total})  # fmt: skip


def _reveal(situation: Situation[Sheet], given: NoInput) -> Made:
    """The host reveals the secret d4. A reroll the player asked for before the reveal is rolled now (unless the
    d4 made a 13, which stands) and the new roll stands; a card for doubles is drawn now."""
    sheet, pending = situation.state, situation.state.pending
    assert pending is not None
    roll = _dice_of(situation, pending)
    table = _without_secret(_table(situation), situation.character or 0)
    task, said = pending.task, f"The host revealed the d4 ({roll.d4})"
    rolls: tuple[Rolled, ...] = ()
    if pending.rerolled in ("d4", "d9") and roll.total != chance.ALWAYS_FAILS:
        p = next(o.success for o in chance.player_choices(roll, task.target) if o.key == pending.rerolled)
        first, roll = roll, _rerolled(roll, pending.rerolled, situation.dice())
        label = f"{task_words(sheet, task)}: the {pending.rerolled} rerolled, as asked before the reveal"
        rolls = (_rolled(task, sheet, roll, label, p=p, rerolled=pending.rerolled),)
        said += f"; {_dice(first.d4, first.d9)} = {first.total}, and the {pending.rerolled} rerolled as asked"
    elif pending.rerolled in ("d4", "d9"):
        said += "; a 13 cannot be rerolled, so the roll asked for was not made"
    after, table, words = _settle(situation, table, task, roll, None if rolls else pending.roll)
    return Made(after, words=f"{said}: {words}", notice=f"'s d4 is revealed: {roll.d4}, so "
                f"{_said(roll, task.target, task.level)}", table=table, reveals=pending.secret_rolls, rolls=rolls,
                then=_then_last if rolls else None, result={"d4": roll.d4, "total": roll.total})  # fmt: skip


# --- Cards and turn numbers -------------------------------------------------------------------------------


class PlayCard(BaseModel):
    """A card from the hand, and what it does."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    card: cards.Code = Field(..., title="Card", description="The card's code, from the hand.")
    use: Literal["roll", "effect", "turn", "boost"] = Field(
        ..., title="Play it on",
        json_schema_extra={"labels": {"roll": "The roll: its value is the total", "effect": "The effect",
                                      "turn": "The turn number", "boost": "A skill: a boost until the scene ends"}},
    )  # fmt: skip
    value: Annotated[int, Field(ge=1, le=10, strict=True)] | None = Field(
        None, title="A joker's value", description="A joker played as a number card: 1 (an ace) to 10."
    )
    skill: ItemId | None = Field(None, title="Skill to boost", description="By default the last roll's skill.")
    rationale: Annotated[LongText, Field(max_length=500)] = Field(
        "", title="Rationale", description="How a card of another suit than the ability's fits the story."
    )


def _no_cards(situation: Situation[Sheet]) -> str | None:
    table = _table(situation)
    if table is None or not table.hand(situation.character or 0):
        return "there is no card in the hand"
    if situation.state.pending is not None:
        return "the last roll waits for a decision: play the card once it stands"
    return None


def _ability_tested(sheet: Sheet) -> str | None:
    return sheet.last.task.ability if sheet.last is not None else None


def _check_card(situation: Situation[Sheet], values: Mapping[str, Any]) -> tuple[Problem, ...]:
    sheet, table = situation.state, _table(situation)
    code, use = values.get("card"), values.get("use")
    if code is None or use is None:
        return ()
    if table is None or code not in table.hand(situation.character or 0):
        return (Problem(field="card", message="that card is not in the hand"),)
    played = cards.card(code)
    problems = []
    if played.kind == "number" and use == "boost":
        problems.append(Problem(field="use", message=f"the {played.name} is a number card: a face card boosts"))
    if played.kind == "face" and use != "boost":
        problems.append(Problem(field="use", message=f"the {played.name} is a face card: it boosts a skill"))
    if played.kind == "joker" and use != "boost" and values.get("value") is None:
        problems.append(Problem(field="value", message="say which number the joker is played as"))
    if use in ("roll", "effect") and sheet.last is None:
        problems.append(Problem(field="use", message="there is no roll yet to play it on"))
    if use == "boost":
        skill = values.get("skill") or (sheet.last.task.skill if sheet.last is not None else None)
        if skill is None or sheet.skill(skill) is None:
            problems.append(Problem(field="skill", message="name a skill on this sheet to boost"))
    ability = _ability_tested(sheet)
    wanted = suit_of(situation.options, ability) if ability is not None else None
    if (
        played.suit is not None
        and wanted is not None
        and played.suit != wanted
        and not str(values.get("rationale") or "").strip()
    ):
        said = f"the {played.name} is not of {ABILITY_NAMES[str(ability)]}'s suit ({SUIT_WORDS[wanted]})"
        problems.append(Problem(field="rationale", message=f"{said}: say how it fits the story"))
    return tuple(problems)


def _play_card(situation: Situation[Sheet], given: PlayCard) -> Made:
    sheet, table = situation.state, _table(situation)
    assert table is not None
    character = situation.character or 0
    played = cards.card(given.card)
    value = played.value if played.value is not None else given.value
    why = f" ({given.rationale.strip()})" if given.rationale.strip() else ""
    table = d13_table.discard(table, character, given.card)
    if given.use == "boost":
        skill_id = given.skill or (sheet.last.task.skill if sheet.last is not None else None)
        skill = sheet.skill(skill_id)
        assert skill is not None
        size = int(situation.options.get("boost", 2))
        held = list(table.discard)
        held.remove(given.card)  # a boost's card lies on the boost until the scene ends
        boost = d13_table.Boost(character=character, skill=skill.id, size=size, card=given.card,
                                name=situation.name, skill_name=skill.name)  # fmt: skip
        table = table.model_copy(update={"discard": tuple(held), "boosts": (*table.boosts, boost)})
        words = f"Played the {played.name}: {skill.name} +{size} until the scene ends{why}"
        after, judged = _boosted(sheet, skill.id, size)
        result: dict[str, Any] = {"boost": size, "skill": skill.id}
        if judged is not None:
            words += f"; the last roll {'now succeeds' if judged else 'still fails'}"
            result["success"] = judged
        return Made(after, words=words, notice=f"played the {played.name}: {skill.name} +{size}", table=table,
                    result=result)  # fmt: skip
    assert value is not None
    if given.use == "turn":
        table = d13_table.with_turn(table, character, _name(situation), value)
        words = f"Played the {played.name}: turn number {value}{why}"
        return Made(sheet, words=words, notice=f"played the {played.name}: turn number {value}", table=table,
                    result={"turn": value})  # fmt: skip
    last = sheet.last
    assert last is not None
    if given.use == "effect":
        after = sheet.model_copy(update={"last": last.model_copy(update={"effect": value})})
        words = f"Played the {played.name}: the effect is {value}{why}"
        return Made(after, words=words, notice=f"played the {played.name}: effect {value}", table=table,
                    result={"effect": value})  # fmt: skip
    won = card_succeeds(value, last.task)
    replaced = last.model_copy(update={"total": value, "success": won, "doubles": False, "effect": value,
                                       "replaced_by": given.card})  # fmt: skip
    outcome = "a success" if won else "a failure"
    words = f"Played the {played.name} on the roll: {value}, {outcome}{why}"
    return Made(sheet.model_copy(update={"last": replaced}), words=words, notice=f"played the {played.name}: "
                f"{value}, {outcome}", table=table, result={"total": value, "success": won})  # fmt: skip


def _logged_play(situation: Situation[Sheet], given: PlayCard) -> Made:
    """A card played, in the campaign's log as well as the table's history: its name, what it was played on,
    and the rationale of a card of another suit, for the whole table to read."""
    made = _play_card(situation, given)
    played = cards.card(given.card)
    value = played.value if played.value is not None else given.value
    spec = {"system": "d13", "roll": "card", "card": given.card, "use": given.use,
            **({"value": value} if played.kind == "joker" and given.use != "boost" else {}),
            **({"rationale": given.rationale.strip()} if given.rationale.strip() else {})}  # fmt: skip
    outcome = {"success": made.result["success"]} if "success" in made.result else {}
    logged = Rolled("card", made.words, spec, [given.card], value if given.use != "boost" else None, outcome)
    return replace(made, rolls=(*made.rolls, logged))


def _drawing(apply: Any) -> Any:
    """``apply``, with each card its roll drew in the campaign's log after its dice: that a card was drawn, not
    which (the hand is its player's and the host's)."""

    def drawn(situation: Situation[Sheet], given: Any) -> Made:
        made = apply(situation, given)
        before, after = _table(situation), made.table
        character = situation.character or 0
        grew = 0
        if before is not None and isinstance(after, Table):
            grew = len(after.hand(character)) - len(before.hand(character))
        if grew <= 0:
            return made
        spec = {"system": "d13", "roll": "draw"}
        draws = tuple(Rolled("draw", f"{situation.name or 'A character'} drew a card", spec, [], None, {})
                      for _ in range(grew))  # fmt: skip
        counted, then = len(made.rolls), made.then
        # The state's roll numbers are its own rolls', not the draws' after them.
        kept = (lambda state, seqs: then(state, seqs[:counted])) if then is not None else None
        return replace(made, rolls=(*made.rolls, *draws), then=kept)

    return drawn


def _boosted(sheet: Sheet, skill: int, size: int) -> tuple[Sheet, bool | None]:
    """A face card played on the skill the last roll tested boosts that test: the last roll is judged again
    against the raised target (a 13 still fails, doubles still succeed; rules README, "D13": "a face card
    adds +2 to the tested skill"), as the sheet shows before it is played (:meth:`D13.sheet_view`). The
    sheet after, and the last roll's success (None: the card boosts another skill, or there is no roll)."""
    last = sheet.last
    if last is None or last.task.skill != skill:
        return sheet, None
    task = last.task.model_copy(update={"target": last.task.target + size})
    won = last.total != chance.ALWAYS_FAILS and (last.doubles or card_succeeds(last.total, task))
    return sheet.model_copy(update={"last": last.model_copy(update={"task": task, "success": won})}), won


def card_succeeds(value: int, task: Task) -> bool:
    """Whether a number card's value, as the roll's total, succeeds: no doubles, never a 13."""
    return task.level is Level.EASY or value <= task.target


def _name(situation: Situation[Sheet]) -> str:
    return situation.name or f"Character {situation.character}"


def _no_last(situation: Situation[Sheet]) -> str | None:
    if situation.state.pending is not None:
        return "the last roll waits for a decision"
    return None if situation.state.last is not None else "there is no roll yet to take a turn number from"


def _take_turn(situation: Situation[Sheet], given: NoInput) -> Made:
    sheet, table = situation.state, _table(situation)
    assert sheet.last is not None
    assert table is not None
    character, number = situation.character or 0, sheet.last.total
    after = d13_table.with_turn(table, character, _name(situation), number)
    return Made(sheet, words=f"Took turn number {number}", notice=f"takes turn number {number}", table=after,
                result={"turn": number})  # fmt: skip


class Automatic(BaseModel):
    """A task the host declares automatic: its ability and skill, for the history."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    ability: Ability = Field(..., title="Ability", json_schema_extra={"labels": dict[str, Any](ABILITY_NAMES)})
    skill: ItemId | None = Field(None, title="Skill", description="The skill, by its id on the sheet.")


def _check_automatic(situation: Situation[Sheet], values: Mapping[str, Any]) -> tuple[Problem, ...]:
    skill = values.get("skill")
    if skill is not None and situation.state.skill(skill) is None:
        return (Problem(field="skill", message="there is no such skill on this sheet"),)
    return ()


def _automatic(situation: Situation[Sheet], given: Automatic) -> Made:
    """The host declares the task automatic: it succeeds, with no roll and no card (rules text: "Sometimes
    success may be automatic"); the last roll settled is left as it was."""
    sheet = situation.state
    skill = sheet.skill(given.skill)
    named = f"{ABILITY_NAMES[given.ability]}{f' + {skill.name}' if skill is not None else ''}"
    words = f"The host declared {named} automatic: a success, with no roll and no card"
    spec = {"system": "d13", "roll": "automatic", "ability": given.ability, "skill": skill.name if skill else None}
    return Made(
        sheet,
        words=words,
        notice=f" succeeds at {named}: the host declared it automatic",
        rolls=(Rolled("automatic", words, spec, [], None, {"success": True}),),
        result={"success": True},
    )


class Marks(BaseModel):
    """Marks the host puts on (or takes off) a character's condition track."""

    model_config = ConfigDict(extra="forbid", frozen=True)
    marks: Annotated[int, Field(ge=-30, le=30, strict=True)] = Field(
        ..., title="Marks", description="Damage marks on the track (a recovery takes them off: a negative number)."
    )


def _check_marks(situation: Situation[Sheet], values: Mapping[str, Any]) -> tuple[Problem, ...]:
    if values.get("marks") == 0:
        return (Problem(field="marks", message="mark at least one, or take at least one off"),)
    return ()


def _mark(situation: Situation[Sheet], given: Marks) -> Made:
    """The host marks the condition track (the text's damage chapter is missing: the host says how much a blow
    or an effect costs), never past its ends."""
    sheet, options = situation.state, situation.options
    track, most = str(options.get("condition", "Wounds")), int(options.get("condition_max", 6))
    helpless = int(options.get("helpless_at", most))
    now = min(max(sheet.condition + given.marks, 0), most)
    state = " (helpless)" if now >= helpless else ""
    words = f"{'Marked' if given.marks > 0 else 'Took off'} {abs(given.marks)} on the {track} track: {now} of {most}" \
            f"{state}"  # fmt: skip
    return Made(sheet.model_copy(update={"condition": now}), words=words, notice=f": {words[0].lower()}{words[1:]}",
                result={"condition": now, "helpless": now >= helpless})  # fmt: skip


MOVES: Final[tuple[Move[Any], ...]] = (
    Move("d13-roll", "Roll d4 + d9", Scope.SHEET, RollInput, PARTS, _drawing(_roll), why_not=_cannot_roll,
         check=_check_roll, table_parts=TABLE_PARTS, button="Roll", rolled=True,
         help="d4 + d9 against ability + skill: at or under succeeds, doubles always succeed and draw a card, a 13 "
              "always fails."),
    Move("d13-keep", "Keep the roll", Scope.SHEET, NoInput, PARTS, _drawing(_keep), why_not=_waiting("player"),
         answers=True, table_parts=TABLE_PARTS, button="Keep it"),
    Move("d13-reroll", "Reroll a die", Scope.SHEET, Die, PARTS, _drawing(lambda s, g: _reroll(s, g, host=False)),
         why_not=_waiting("player"), answers=True, table_parts=TABLE_PARTS, button="Reroll"),
    Move("d13-stand", "Let the roll stand", Scope.SHEET, NoInput, PARTS, _drawing(_stand), who=HOST,
         note="only the host decides on a Monstrous roll", why_not=_waiting("host"), answers=True,
         table_parts=TABLE_PARTS, button="Let it stand"),
    Move("d13-force", "Force a reroll", Scope.SHEET, Die, PARTS, _drawing(lambda s, g: _reroll(s, g, host=True)),
         who=HOST,
         note="only the host forces a reroll", why_not=_cannot_force, answers=True, table_parts=TABLE_PARTS,
         button="Force it"),
    Move("d13-reveal", "Reveal the d4", Scope.SHEET, NoInput, PARTS, _drawing(_reveal), who=HOST,
         note="only the host reveals a secret d4", why_not=_waiting("reveal"), answers=True,
         table_parts=TABLE_PARTS, button="Reveal"),
    Move("d13-card", "Play a card", Scope.SHEET, PlayCard, PARTS, _logged_play, why_not=_no_cards,
         check=_check_card,
         table_parts=TABLE_PARTS, button="Play it",
         help="A number card replaces the roll (its value is the total), or sets the effect or the turn number; a "
              "face card boosts a skill until the scene ends; a joker is any of them."),
    Move("d13-automatic", "Declare a task automatic", Scope.SHEET, Automatic, PARTS, _automatic, who=HOST,
         note="only the host declares a task automatic", why_not=_cannot_roll, check=_check_automatic,
         button="It succeeds", help="No roll, no card: the task simply succeeds."),
    Move("d13-mark", "Mark the condition track", Scope.SHEET, Marks, ("condition",), _mark, who=HOST,
         note="only the host marks the condition track", check=_check_marks, button="Mark it",
         help="Damage or a recovery, in marks: the host says what a blow or an effect costs."),
    Move("d13-turn", "Take the turn number", Scope.SHEET, NoInput, PARTS, _take_turn, why_not=_no_last,
         table_parts=("turns",), button="Take it",
         help="The last roll's total is the character's place in the scene's turn order."),
)  # fmt: skip
