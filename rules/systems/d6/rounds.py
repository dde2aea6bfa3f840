"""The combat round planner: one character's round, its declared actions and what each is rolled at.

Rules text, "using more than one skill": "You have do decide which skills you'll use at the
beginning of the round. Every skill use after the first one costs you 1d. If you use two skills,
all skill codes are reduced by 1d; three skills, a 2d penalty … This applies to every skill use
in that combat round." "reaction skills": a reaction "counts as an extra skill use. All the skill
uses you've declared after this reaction skill still have to be attempted, but because you just
used a reaction skill, all those following are reduced by an additional 1d." "game time": a
prepared roll gets +1d, running and being wounded cost 1d each. "luck points": doubling "only
lasts for that combat round", and a doubled character ignores being stunned.

A round is a sequence of events over a :class:`RoundPlan`: the actions declared at its start
(and the conditions the GM set), then, in order, each declared action attempted
(:meth:`RoundPlan.attempt`), a reaction used (:meth:`RoundPlan.react`), the character wounded or
stunned (:meth:`RoundPlan.wound`, :meth:`RoundPlan.stun`) or a luck point spent
(:meth:`RoundPlan.spend_luck`). An action attempted is rolled at the code of that moment and keeps
it; an action still to attempt is shown at the code it would be rolled at now.

Readings (the rules README, "D6 die codes", fixes the rest):

- **Running** is declared with the round and costs 1d on every skill use of the round, reactions
  included, whenever the run happens ("If you run in the same combat round you use a skill"). It
  is not itself a skill use: it does not add to the count of actions.
- **Wounded** costs 1d on every skill use from the moment the character is wounded; a round that
  starts wounded costs it on every use. The text knows one level of wound.
- **Stunned**: the text gives no effect beyond "if you somehow become stunned during the round you
  ignore stun effects" when doubled. The rules README reads it: stunned costs 1d on every skill use
  from the moment it is set, like a wound, unless the round is doubled by a luck point at that
  moment, which ignores it; it clears by itself at the end of the character's next round
  (:func:`rules.systems.d6.round_state.stun_clears_now`).
- **Preparing**: the text counts each use as a skill ("now he's using four skills this round" for
  three shots and a dodge), so "You can only use one skill or stat in the next round" allows one
  declared action, of the prepared skill or stat. A plan that declares more, or another skill, is
  refused with the reason. A reaction used later in that round is a second use: it is allowed (a
  reaction is used "whenever you need to") but spoils the preparation: the prepared action, if
  still to attempt, loses its +1d.
- **Luck**: spent before the round, every code is doubled first and the round's penalties then
  apply (README). Spent mid-round, it doubles every use from that moment; what was attempted keeps
  its code.
- **The count**: with N declared actions and R reactions so far, a use is at −(N + R − 1)d: every
  declared action is at −(N − 1)d, and each reaction adds 1d from its moment on, to itself and
  every later use. With no declared action the first reaction is free, as the only use.
- Penalties and the bonus are netted before they apply, so a code never goes below 0d and keeps
  its pips (1d+2 less 2d is 0d+2), and a bonus is not lost to that floor.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, replace
from enum import StrEnum
from fractions import Fraction
from typing import Final

from rules.systems.base import SpecError
from rules.systems.d6.chance import MAX_DIFFICULTY, p_at_least
from rules.systems.d6.codes import MAX_DICE, DieCode

__all__ = [
    "MAX_ACTIONS",
    "MAX_CODE_DICE",
    "MAX_NAME",
    "MAX_REACTIONS",
    "REACTION_SKILLS",
    "Action",
    "Attempt",
    "Became",
    "Event",
    "Happening",
    "Modifier",
    "Reaction",
    "RoundError",
    "RoundPlan",
    "Use",
    "one_use",
    "skill_key",
]

#: The most actions a round may declare. The text stops its table at four ("four skills, a 3d
#: penalty") and warns that beginners can barely do two; ten at −9d is far past any use.
MAX_ACTIONS: Final = 10

#: The most reactions in one round: each is a die off every later use, so ten leaves nothing.
MAX_REACTIONS: Final = 10

#: The largest code a plan takes: doubled by a luck point and prepared (+1d), 29d+2 is 60d+1,
#: still a die code (:data:`rules.systems.d6.codes.MAX_DICE`).
MAX_CODE_DICE: Final = (MAX_DICE - 1) // 2

#: The longest label or skill name.
MAX_NAME: Final = 60

#: Rules text, "reaction skills": "Dodge, melee parry, and brawling parry are reaction skills."
#: A campaign may name others; the caller passes them.
REACTION_SKILLS: Final = frozenset({"dodge", "melee parry", "brawling parry"})

_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
_MINUS = "\u2212"


class RoundError(SpecError):
    """A round plan or a step of the round that is refused: the message names the field and why."""


def skill_key(name: str) -> str:
    """How two skill names are compared: case and spacing do not matter (``Melee  Parry`` is ``melee parry``)."""
    return " ".join(name.split()).casefold()


def _name(value: object, field_name: str) -> str:
    if not isinstance(value, str):
        raise RoundError(field_name, "a name is text")
    if _CONTROL.search(value):
        raise RoundError(field_name, "a name is one line, without control characters")
    collapsed = " ".join(value.split())
    if not collapsed:
        raise RoundError(field_name, "a name is needed")
    if len(collapsed) > MAX_NAME:
        raise RoundError(field_name, f"a name is at most {MAX_NAME} characters")
    return collapsed


def _code(value: object, field_name: str) -> DieCode:
    if not isinstance(value, DieCode):
        raise RoundError(field_name, "a die code such as 3d+2 is needed")
    if value.dice > MAX_CODE_DICE:
        raise RoundError(
            field_name, f"a code in a round is at most {MAX_CODE_DICE}d+2, so that doubled and prepared it still fits"
        )
    return value


def _difficulty(value: object, field_name: str) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int):
        raise RoundError(field_name, "a difficulty is a whole number")
    if not 1 <= value <= MAX_DIFFICULTY:
        raise RoundError(field_name, f"a difficulty is from 1 to {MAX_DIFFICULTY}, not {value}")
    return value


@dataclass(frozen=True, slots=True)
class Action:
    """One declared skill or stat use: what the player calls it, the skill, its code, the difficulty if known.

    The label tells apart two uses of one skill ("Shot 1", "Shot 2"); names are trimmed, one line.
    """

    label: str
    skill: str
    code: DieCode
    difficulty: int | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", _name(self.label, "label"))
        object.__setattr__(self, "skill", _name(self.skill, "skill"))
        _code(self.code, "code")
        _difficulty(self.difficulty, "difficulty")


@dataclass(frozen=True, slots=True)
class Attempt:
    """The declared action ``index`` (from 0) is rolled now."""

    index: int


@dataclass(frozen=True, slots=True)
class Reaction:
    """A reaction skill used now: it is rolled at once. Its fields are checked as an :class:`Action`'s.

    ``undeclared``: a use of a skill the round did not declare, which the GM called or allowed mid-round;
    it counts as one more use, as a reaction does (the rules README, "The round is one")."""

    label: str
    skill: str
    code: DieCode
    difficulty: int | None = None
    undeclared: bool = False

    def __post_init__(self) -> None:
        object.__setattr__(self, "label", _name(self.label, "reaction.label"))
        object.__setattr__(self, "skill", _name(self.skill, "reaction.skill"))
        _code(self.code, "reaction.code")
        _difficulty(self.difficulty, "reaction.difficulty")


class Happening(StrEnum):
    """What can befall the character mid-round and change every later use."""

    WOUNDED = "wounded"
    STUNNED = "stunned"
    LUCK = "luck point"
    #: The GM takes a wound or a stun back mid-round (a heal, a correction): later uses are free of it.
    HEALED = "healed"
    UNSTUNNED = "no longer stunned"


@dataclass(frozen=True, slots=True)
class Became:
    """The character is wounded, stunned, or spends a luck point to double, from now on."""

    what: Happening


Event = Attempt | Reaction | Became

#: The plan's field each happening sets from the round's start.
_FIELD_OF: Final = {Happening.WOUNDED: "wounded", Happening.STUNNED: "stunned", Happening.LUCK: "doubled",
                    Happening.HEALED: "wounded", Happening.UNSTUNNED: "stunned"}  # fmt: skip
#: What a happening takes back.
_UNDOES: Final = {Happening.HEALED: Happening.WOUNDED, Happening.UNSTUNNED: Happening.STUNNED}


@dataclass(frozen=True, slots=True)
class Modifier:
    """One reason a use is rolled at other than its code: whole dice (−2d, +1d), or the doubling.

    ``str()`` gives the words the roll records: ``3 actions: −2d``, ``prepared: +1d``,
    ``luck point: doubled``; a modifier of no dice (``stunned, ignored by the luck point``) is its
    words alone.
    """

    words: str
    dice: int = 0
    doubles: bool = False

    def __str__(self) -> str:
        if self.doubles:
            return f"{self.words}: doubled"
        if not self.dice:
            return self.words
        sign = "+" if self.dice > 0 else _MINUS
        return f"{self.words}: {sign}{abs(self.dice)}d"


@dataclass(frozen=True, slots=True)
class Use:
    """One skill use of the round and the code it is (or would now be) rolled at.

    ``action`` is the index of the declared action, None for a reaction. ``attempted`` is False
    for a declared action still to attempt: its ``code`` is what it would be rolled at now, and
    may still change.
    """

    label: str
    skill: str
    base: DieCode
    code: DieCode
    modifiers: tuple[Modifier, ...]
    difficulty: int | None
    action: int | None
    attempted: bool
    #: A use the round did not declare (the GM's call mid-round), counted as a reaction is.
    undeclared: bool = False

    @property
    def reaction(self) -> bool:
        return self.action is None

    @property
    def penalty(self) -> int:
        """The modifiers' whole dice, netted: below 0 a penalty, above 0 a bonus (applied after any doubling)."""
        return sum(m.dice for m in self.modifiers)

    @property
    def warning(self) -> str | None:
        """Said when the code has no dice left (rules README: "A code at 0d+p has no wild die: it is just p")."""
        if self.code.dice:
            return None
        after = " after penalties" if self.base.dice else ""
        if self.code.pips:
            return f"{self.label} is {self.code}{after}: no wild die"
        return f"{self.label} is 0d{after}: nothing to roll"

    @property
    def chance(self) -> Fraction | None:
        """The exact chance to meet the difficulty at this code (:func:`chance.p_at_least`); None without one."""
        return None if self.difficulty is None else p_at_least(self.code, self.difficulty)


@dataclass(frozen=True, slots=True)
class _Moment:
    """The round's state between two events."""

    reactions: int
    wounded: bool
    stunned: bool
    doubled: bool
    preparation_spoiled: bool
    #: How many of ``reactions`` were uses the round did not declare.
    undeclared: int = 0


@dataclass(frozen=True, slots=True)
class RoundPlan:
    """One character's combat round: the declared actions, the conditions, and what has happened since.

    ``wounded``, ``stunned`` and ``doubled`` (a luck point spent for the round) hold from the round's
    start; ``running`` for the whole round. ``prepared`` names the one skill or stat the character
    prepared for by doing nothing last round (see :attr:`did_nothing`): it gets +1d. Reaction
    skills are those of ``reaction_skills`` (the text's three by default), compared by
    :func:`skill_key`. Every step returns a new plan; a refused step raises :class:`RoundError`.
    """

    actions: tuple[Action, ...] = ()
    wounded: bool = False
    stunned: bool = False
    running: bool = False
    doubled: bool = False
    prepared: str | None = None
    reaction_skills: frozenset[str] = REACTION_SKILLS
    events: tuple[Event, ...] = ()

    def __post_init__(self) -> None:
        if isinstance(self.actions, (str, bytes)) or not isinstance(self.actions, Iterable):
            raise RoundError("actions", "the declared actions are a list")
        actions = tuple(self.actions)
        if len(actions) > MAX_ACTIONS:
            raise RoundError("actions", f"a round declares at most {MAX_ACTIONS} actions, not {len(actions)}")
        for i, action in enumerate(actions):
            if not isinstance(action, Action):
                raise RoundError(f"actions[{i}]", "each declared action is an Action")
        object.__setattr__(self, "actions", actions)
        for name in ("wounded", "stunned", "running", "doubled"):
            if not isinstance(getattr(self, name), bool):
                raise RoundError(name, "is true or false")
        if isinstance(self.reaction_skills, str) or not isinstance(self.reaction_skills, Iterable):
            raise RoundError("reaction_skills", "the reaction skills are a set of names")
        keys = frozenset(skill_key(_name(s, "reaction_skills")) for s in self.reaction_skills)
        object.__setattr__(self, "reaction_skills", keys)
        if self.prepared is not None:
            object.__setattr__(self, "prepared", _name(self.prepared, "prepared"))
            self._check_preparation()
        object.__setattr__(self, "events", tuple(self.events))
        self._check_events()

    def _check_preparation(self) -> None:
        """Rules text, "game time": "You can only use one skill or stat in the next round"."""
        prepared = self.prepared
        if len(self.actions) > 1:
            raise RoundError(
                "prepared",
                f"preparing gives +1d to one roll of {prepared}, and a prepared character uses only one skill "
                f"or stat that round; this round declares {len(self.actions)} actions: declare one, or give up "
                "the preparation",
            )
        if self.actions and skill_key(self.actions[0].skill) != skill_key(prepared or ""):
            raise RoundError(
                "prepared",
                f"the character prepared to use {prepared}, not {self.actions[0].skill}: the +1d goes only to "
                "the prepared skill or stat; declare it, or give up the preparation",
            )

    def _check_events(self) -> None:
        attempted: set[int] = set()
        reactions = 0
        seen = {
            Happening.WOUNDED: self.wounded,
            Happening.STUNNED: self.stunned,
            Happening.LUCK: self.doubled,
        }
        for event in self.events:
            if isinstance(event, Attempt):
                i = event.index
                if isinstance(i, bool) or not isinstance(i, int) or not 0 <= i < len(self.actions):
                    count = len(self.actions)
                    raise RoundError("action", f"there is no action {i!r}: this round declares {count} (from 0)")
                if i in attempted:
                    raise RoundError("action", f"{self.actions[i].label} (action {i}) was already attempted")
                attempted.add(i)
            elif isinstance(event, Reaction):
                if not event.undeclared and skill_key(event.skill) not in self.reaction_skills:
                    raise RoundError(
                        "reaction.skill",
                        f"{event.skill} is not a reaction skill: a skill that is not one is declared at the "
                        "start of the round",
                    )
                reactions += 1
                if reactions > MAX_REACTIONS:
                    raise RoundError("reaction", f"a round has at most {MAX_REACTIONS} reactions")
            elif isinstance(event, Became):
                if event.what not in _FIELD_OF:
                    raise RoundError("events", f"{event.what!r} is not something that befalls a character mid-round")
                what = Happening(event.what)
                if what in _UNDOES:
                    if not seen[_UNDOES[what]]:
                        raise RoundError(_FIELD_OF[what], f"not {_UNDOES[what]}: nothing to take back")
                    seen[_UNDOES[what]] = False
                    continue
                if seen[what]:
                    already = "a luck point already doubles this round" if what is Happening.LUCK else f"already {what}"
                    raise RoundError(_FIELD_OF[what], already)
                seen[what] = True
            else:
                raise RoundError("events", f"{event!r} is not a step of the round")

    # The steps of the round.

    def attempt(self, index: int) -> RoundPlan:
        """Declared action ``index`` is rolled now, at the code it has at this moment, which it keeps."""
        return replace(self, events=(*self.events, Attempt(index)))

    def react(
        self,
        skill: str,
        code: DieCode,
        *,
        label: str | None = None,
        difficulty: int | None = None,
        undeclared: bool = False,
    ) -> RoundPlan:
        """A reaction skill used now (rules text, "reaction skills": "you can use them whenever you need to").

        It "counts as an extra skill use": it and every use after it take one more −1d; what was
        already attempted keeps its code, and every declared action must still be attempted. ``undeclared``:
        a use of any other skill or stat the round did not declare (the GM's call mid-round), counted the
        same way.
        """
        reaction = Reaction(skill if label is None else label, skill, code, difficulty, undeclared)
        return replace(self, events=(*self.events, reaction))

    def wound(self) -> RoundPlan:
        """Wounded from now on: −1d on every later use (rules text, "game time")."""
        return replace(self, events=(*self.events, Became(Happening.WOUNDED)))

    def stun(self) -> RoundPlan:
        """Stunned from now on: −1d on every later use, unless doubled (our reading; module docstring)."""
        return replace(self, events=(*self.events, Became(Happening.STUNNED)))

    def heal(self) -> RoundPlan:
        """No longer wounded from now on (the GM heals or corrects it): later uses are free of the −1d."""
        return replace(self, events=(*self.events, Became(Happening.HEALED)))

    def unstun(self) -> RoundPlan:
        """No longer stunned from now on."""
        return replace(self, events=(*self.events, Became(Happening.UNSTUNNED)))

    def spend_luck(self) -> RoundPlan:
        """A luck point spent mid-round: every later use is doubled, and stun ignored (rules text, "luck points")."""
        return replace(self, events=(*self.events, Became(Happening.LUCK)))

    # What the round looks like.

    @property
    def did_nothing(self) -> bool:
        """Whether this round prepares the next: no action, no reaction, no running.

        Rules text, "game time": "You do nothing at all during one round and in the next, you make
        your skill roll, but get to add 1d to the roll."
        """
        return not self.actions and not self.running and not any(isinstance(e, Reaction) for e in self.events)

    @staticmethod
    def _more_words(moment: _Moment) -> str:
        """The words of the uses added mid-round: reactions, uses the round did not declare, or both."""
        count, undeclared = moment.reactions, moment.undeclared
        if not undeclared:
            return "reaction" if count == 1 else f"{count} reactions"
        if undeclared == count:
            return "a use not declared" if count == 1 else f"{count} uses not declared"
        return f"{count} uses more"

    def _modifiers(self, moment: _Moment, *, reaction: bool) -> tuple[Modifier, ...]:
        mods: list[Modifier] = []
        if moment.doubled:
            mods.append(Modifier("luck point", doubles=True))
        declared, reactions = len(self.actions), moment.reactions
        if declared > 1:
            mods.append(Modifier(f"{declared} actions", -(declared - 1)))
        if declared and reactions:
            mods.append(Modifier(self._more_words(moment), -reactions))
        elif reactions > 1:
            mods.append(Modifier(self._more_words(moment), -(reactions - 1)))
        if self.running:
            mods.append(Modifier("running", -1))
        if moment.wounded:
            mods.append(Modifier("wounded", -1))
        if moment.stunned:
            mods.append(Modifier("stunned, ignored by the luck point") if moment.doubled else Modifier("stunned", -1))
        if self.prepared is not None and not reaction:
            spoiled = moment.preparation_spoiled
            mods.append(Modifier("prepared, spoiled by the reaction") if spoiled else Modifier("prepared", 1))
        return tuple(mods)

    def _use(
        self,
        moment: _Moment,
        *,
        label: str,
        skill: str,
        base: DieCode,
        difficulty: int | None,
        action: int | None,
        attempted: bool,
        undeclared: bool = False,
    ) -> Use:
        mods = self._modifiers(moment, reaction=action is None)
        start = base.doubled() if moment.doubled else base
        code = start.add_dice(sum(m.dice for m in mods))
        return Use(label, skill, base, code, mods, difficulty, action, attempted, undeclared)

    def _walk(self) -> tuple[list[Use], _Moment]:
        """Every use made so far, in order, and the state after the last event."""
        moment = _Moment(0, self.wounded, self.stunned, self.doubled, preparation_spoiled=False)
        made: list[Use] = []
        for event in self.events:
            if isinstance(event, Attempt):
                action = self.actions[event.index]
                made.append(
                    self._use(
                        moment,
                        label=action.label,
                        skill=action.skill,
                        base=action.code,
                        difficulty=action.difficulty,
                        action=event.index,
                        attempted=True,
                    )
                )
            elif isinstance(event, Reaction):
                spoiled = moment.preparation_spoiled or self.prepared is not None
                moment = replace(moment, reactions=moment.reactions + 1, preparation_spoiled=spoiled,
                                 undeclared=moment.undeclared + event.undeclared)  # fmt: skip
                made.append(
                    self._use(
                        moment,
                        label=event.label,
                        skill=event.skill,
                        base=event.code,
                        difficulty=event.difficulty,
                        action=None,
                        attempted=True,
                        undeclared=event.undeclared,
                    )
                )
            else:
                what = Happening(event.what)
                if what is Happening.WOUNDED:
                    moment = replace(moment, wounded=True)
                elif what is Happening.STUNNED:
                    moment = replace(moment, stunned=True)
                elif what is Happening.HEALED:
                    moment = replace(moment, wounded=False)
                elif what is Happening.UNSTUNNED:
                    moment = replace(moment, stunned=False)
                else:
                    moment = replace(moment, doubled=True)
        return made, moment

    @property
    def pending(self) -> tuple[int, ...]:
        """The declared actions still to attempt ("still have to be attempted"), in declared order."""
        done = {e.index for e in self.events if isinstance(e, Attempt)}
        return tuple(i for i in range(len(self.actions)) if i not in done)

    @property
    def finished(self) -> bool:
        """Whether every declared action has been attempted."""
        return not self.pending

    @property
    def uses(self) -> tuple[Use, ...]:
        """Every use of the round: those made, in the order made, then the declared ones still to attempt."""
        made, moment = self._walk()
        pending = set(self.pending)
        waiting = [
            self._use(
                moment,
                label=a.label,
                skill=a.skill,
                base=a.code,
                difficulty=a.difficulty,
                action=i,
                attempted=False,
            )
            for i, a in enumerate(self.actions)
            if i in pending
        ]
        return (*made, *waiting)

    @property
    def declared(self) -> tuple[Use, ...]:
        """Each declared action, in declared order: at the code it was rolled at, or would be now."""
        by_action = {u.action: u for u in self.uses if u.action is not None}
        return tuple(by_action[i] for i in range(len(self.actions)))

    @property
    def reactions(self) -> tuple[Use, ...]:
        """Each reaction used so far, in order, at the code it was rolled at."""
        return tuple(u for u in self.uses if u.reaction)

    def action(self, index: int) -> Use:
        """Declared action ``index``: its code (as rolled, or as it stands now), the modifiers that make it."""
        if isinstance(index, bool) or not isinstance(index, int) or not 0 <= index < len(self.actions):
            raise RoundError("action", f"there is no action {index!r}: this round declares {len(self.actions)}")
        return self.declared[index]

    def chance(self, index: int) -> Fraction | None:
        """The exact chance that declared action ``index`` meets its difficulty at its code; None without one."""
        return self.action(index).chance

    @property
    def warnings(self) -> tuple[str, ...]:
        """What the player should know before rolling: a code with no dice left, a preparation spoiled."""
        found = [w for u in self.uses if (w := u.warning) is not None]
        made, moment = self._walk()
        if moment.preparation_spoiled and self.actions:
            first = next(u for u in made if u.reaction)
            found.append(
                f"{first.label} was a second skill use in a prepared round: "
                f"the +1d for {self.prepared} is lost from then on"
            )
        return tuple(found)


def one_use(
    skill: str,
    code: DieCode,
    uses: int = 1,
    *,
    wounded: bool = False,
    stunned: bool = False,
    running: bool = False,
    doubled: bool = False,
    prepared: bool = False,
    reacting: bool = False,
    reaction_skills: Iterable[str] = REACTION_SKILLS,
) -> tuple[DieCode, tuple[str, ...]]:
    """The code of one use of ``skill`` in a round of ``uses`` declared uses of it, and the words of each
    change (and the warning at 0d), as a sheet roll or an attack records them: the first declared use,
    or, ``reacting``, a reaction used on top of them ("this counts as an extra skill use")."""
    labels = [skill] if uses == 1 else [f"{skill} ({i} of {uses})" for i in range(1, uses + 1)]
    plan = RoundPlan(
        actions=tuple(Action(label=label, skill=skill, code=code) for label in labels),
        wounded=wounded,
        stunned=stunned,
        running=running,
        doubled=doubled,
        prepared=skill if prepared else None,
        reaction_skills=frozenset({*reaction_skills, skill}) if reacting else frozenset(reaction_skills),
    )
    use = plan.react(skill, code).reactions[0] if reacting else plan.action(0)
    words = tuple(str(modifier) for modifier in use.modifiers)
    return use.code, (*words, use.warning) if use.warning else words
