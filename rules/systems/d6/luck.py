"""Luck points: how many a character has, spending one, the GM's call on how heroic it was, and getting
them back at the adventure's end.

Rules text, "luck points": "Every character starts with one Luck Point. Anytime at all during a
scenario … you can say that you're using a Luck Point. This will have one of two effects -- you
double all your stats and skills for a short moment or you can avoid certain death." and "When
you're unheroic, you spend the point and it's gone. Heroic, you'll get it back at the end of the
adventure. Heroic at a dramatically appropriate moment, you'll get the luck point back and
probably another one as well."

A :class:`LuckState` is the character's points and the spends of this adventure; :func:`spend`,
:func:`judge` and :func:`end_adventure` return a new one. What a doubling does to the round is
:mod:`rules.systems.d6.rounds` (``doubled``, :meth:`~rules.systems.d6.rounds.RoundPlan.spend_luck`).

Readings:

- **Heroism is the GM's call** (rules README, "Heroism is the GM's call"): the player spends; the GM
  marks the spend unheroic, heroic or heroic at a dramatic moment (:func:`judge`), and may change the
  mark until the adventure ends. A spend the GM has not marked by then was not judged heroic: it is
  gone, as an unheroic one ("you spend the point and it's gone").
- **Escaping certain death** is spent after a failed roll ("roll to try to get out of the way and
  completely fail … spend that Luck Point. Poof. You're automatically safe. But you have to
  explain why"): the explanation is required, one to :data:`MAX_EXPLANATION` characters. A
  doubling may carry a note, not required.
- **"Probably another one as well"**: a dramatic spend is always returned; the GM decides whether it
  earns one more point (``extra_for``). Only a dramatic spend can.
- The text sets no most points a character may hold; :data:`MAX_POINTS` only keeps the numbers sane.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from rules.systems.base import SpecError

__all__ = [
    "MAX_EXPLANATION",
    "MAX_POINTS",
    "STARTING_POINTS",
    "Heroism",
    "Kind",
    "LuckError",
    "LuckState",
    "Spend",
    "end_adventure",
    "judge",
    "judged_words",
    "spend",
    "spend_words",
    "state_of",
]

#: Rules text: "Every character starts with one Luck Point."
STARTING_POINTS: Final = 1

#: The longest explanation of an escape: a few sentences, like the text's falling building.
MAX_EXPLANATION: Final = 500

#: Far more than a long campaign of dramatic spends could earn.
MAX_POINTS: Final = 99

# Control characters other than the newline and the tab an explanation may hold.
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


class LuckError(SpecError):
    """A spend or an adventure's end that is refused: the message names the field and why."""


class Kind(StrEnum):
    """What the point does: "you double all your stats and skills for a short moment or you can avoid certain death"."""

    DOUBLE = "double"
    ESCAPE = "escape"


class Heroism(StrEnum):
    """When it was spent, as the GM judges it: "by being unheroic, being heroic, and being heroic at a dramatically
    appropriate moment"."""

    UNHEROIC = "unheroic"
    HEROIC = "heroic"
    DRAMATIC = "dramatic"


@dataclass(frozen=True, slots=True)
class Spend:
    """One luck point spent: its id (from 1, in the order spent), what it did, how heroic the GM judged it
    (None until the GM says), and the player's words."""

    id: int
    kind: Kind
    heroism: Heroism | None = None
    explanation: str = ""

    def __post_init__(self) -> None:
        _count(self.id, "id", 1, 10**9)
        object.__setattr__(self, "kind", _kind(self.kind))
        if self.heroism is not None:
            object.__setattr__(self, "heroism", _heroism(self.heroism))
        if not isinstance(self.explanation, str):
            raise LuckError("explanation", "the explanation is text")

    @property
    def returned(self) -> bool:
        """Whether the point comes back at the adventure's end: "Heroic, you'll get it back"."""
        return self.heroism in (Heroism.HEROIC, Heroism.DRAMATIC)


def _kind(value: object) -> Kind:
    if not isinstance(value, str) or value not in tuple(Kind):
        raise LuckError("kind", f"{value!r} is not a use of a luck point (double or escape)")
    return Kind(value)


def _heroism(value: object) -> Heroism:
    if not isinstance(value, str) or value not in tuple(Heroism):
        raise LuckError("heroism", f"{value!r} is not one of unheroic, heroic, dramatic")
    return Heroism(value)


def _count(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LuckError(field, "a whole number is needed")
    if not low <= value <= high:
        raise LuckError(field, f"is from {low} to {high}, not {value}")
    return value


@dataclass(frozen=True, slots=True)
class LuckState:
    """A character's luck points, the spends of this adventure (each as the GM judged it), and how many were
    ever spent.

    ``spent`` counts every spend so far (the last spend's id), so ids never repeat.
    """

    points: int = STARTING_POINTS
    spends: tuple[Spend, ...] = ()
    spent: int = 0

    def __post_init__(self) -> None:
        _count(self.points, "points", 0, MAX_POINTS)
        _count(self.spent, "spent", 0, 10**9)
        object.__setattr__(self, "spends", tuple(self.spends))
        if not all(isinstance(s, Spend) for s in self.spends):
            raise LuckError("spends", "each spend of the adventure is a Spend")
        ids = [s.id for s in self.spends]
        if len(set(ids)) != len(ids) or any(not 1 <= i <= self.spent for i in ids):
            raise LuckError("spends", "each spend has its own id, from 1 to the number spent")

    @property
    def owed(self) -> tuple[Spend, ...]:
        """The spends that come back at the adventure's end, as the GM has judged them so far."""
        return tuple(s for s in self.spends if s.returned)


def _explanation(kind: Kind, value: object) -> str:
    if not isinstance(value, str):
        raise LuckError("explanation", "the explanation is text")
    text = value.replace("\r\n", "\n").strip()
    if _CONTROL.search(text):
        raise LuckError("explanation", "the explanation holds no control characters")
    if len(text) > MAX_EXPLANATION:
        raise LuckError("explanation", f"the explanation is at most {MAX_EXPLANATION} characters, not {len(text)}")
    if kind is Kind.ESCAPE and not text:
        raise LuckError(
            "explanation",
            "escaping certain death needs the player to explain how the character got away "
            '("you have to explain why", rules text, "luck points")',
        )
    return text


def spend(state: LuckState, kind: Kind | str, explanation: str = "") -> tuple[LuckState, Spend]:
    """Spend one luck point: the new state and the spend, to record; how heroic it was is the GM's call
    (:func:`judge`).

    Rules text, "luck points": "Anytime at all during a scenario … you can say that you're using
    a Luck Point." Refused with no point left, or an escape without an explanation.
    """
    kind = _kind(kind)
    text = _explanation(kind, explanation)
    if state.points == 0:
        owed = len(state.owed)
        back = f"; {owed} come{'s' if owed == 1 else ''} back at the adventure's end" if owed else ""
        raise LuckError("points", f"no luck point left to spend{back}")
    entry = Spend(state.spent + 1, kind, None, text)
    return LuckState(state.points - 1, (*state.spends, entry), state.spent + 1), entry


def judge(state: LuckState, spend_id: int, heroism: Heroism | str) -> tuple[LuckState, Spend]:
    """The GM's call on a spend of this adventure: unheroic (gone), heroic (back at the adventure's end) or
    heroic at a dramatic moment (back, perhaps with one more); it may be changed until the adventure ends."""
    heroism = _heroism(heroism)
    found = next((s for s in state.spends if s.id == spend_id), None)
    if found is None:
        raise LuckError("spend", f"{spend_id!r} is not a luck point spent this adventure")
    entry = Spend(found.id, found.kind, heroism, found.explanation)
    spends = tuple(entry if s.id == spend_id else s for s in state.spends)
    return LuckState(state.points, spends, state.spent), entry


def end_adventure(state: LuckState, extra_for: Iterable[int] = frozenset()) -> LuckState:
    """The adventure's end: every spend the GM judged heroic or dramatic comes back, and the GM's extra points;
    a spend judged unheroic, or not judged at all, is gone.

    Rules text, "luck points": "Heroic, you'll get it back at the end of the adventure. Heroic
    at a dramatically appropriate moment, you'll get the luck point back and probably another one
    as well." ``extra_for`` holds the ids of the dramatic spends the GM grants one more point
    (our reading of "probably"); any other id is refused. No spend is kept afterwards.
    """
    if isinstance(extra_for, (str, bytes)) or not isinstance(extra_for, Iterable):
        raise LuckError("extra_for", "the spends granted an extra point are a set of ids")
    extra = set(extra_for)
    spends = {s.id: s for s in state.spends}
    for spend_id in sorted(extra, key=repr):
        found = spends.get(spend_id) if isinstance(spend_id, int) and not isinstance(spend_id, bool) else None
        if found is None:
            raise LuckError("extra_for", f"{spend_id!r} is not a spend of this adventure")
        if found.heroism is not Heroism.DRAMATIC:
            was = found.heroism or "not judged"
            raise LuckError(
                "extra_for",
                f"spend {spend_id} was {was}: only a spend at a dramatically appropriate moment earns another point",
            )
    points = state.points + len(state.owed) + len(extra)
    if points > MAX_POINTS:
        raise LuckError("points", f"a character holds at most {MAX_POINTS} luck points")
    return LuckState(points, (), state.spent)


# --- On the sheet -----------------------------------------------------------------------------------


def state_of(points: int, spends: Iterable[Spend], spent: int) -> LuckState:
    """The luck state a sheet holds (its points, the spends of this adventure, how many were ever spent)."""
    spends = tuple(spends)
    return LuckState(points, spends, max(spent, *(s.id for s in spends)) if spends else spent)


#: What comes back of a spend, by the GM's call.
BACK: Final = {None: "the GM says how heroic it was", Heroism.UNHEROIC: "gone",
               Heroism.HEROIC: "back at the adventure's end",
               Heroism.DRAMATIC: "back at the adventure's end, perhaps with one more"}  # fmt: skip


def spend_words(entry: Spend) -> str:
    """A spend as the sheet's history says it: "Luck point 2 spent: doubled every code for the round"."""
    did = "doubled every code for the round" if entry.kind is Kind.DOUBLE else "escaped certain death"
    why = f": {entry.explanation}" if entry.explanation else ""
    return f"Luck point {entry.id} spent ({BACK[None]}): {did}{why}"


def judged_words(entry: Spend) -> str:
    """The GM's call as the sheet's history says it: "Luck point 2 judged heroic: back at the adventure's end"."""
    assert entry.heroism is not None
    named = "heroic at a dramatic moment" if entry.heroism is Heroism.DRAMATIC else entry.heroism.value
    return f"Luck point {entry.id} judged {named}: {BACK[entry.heroism]}"
