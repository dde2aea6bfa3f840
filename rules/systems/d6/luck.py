"""Luck points: how many a character has, spending one, and getting them back at the adventure's end.

Rules text, "luck points": "Every character starts with one Luck Point. Anytime at all during a
scenario … you can say that you're using a Luck Point. This will have one of two effects -- you
double all your stats and skills for a short moment or you can avoid certain death." and "When
you're unheroic, you spend the point and it's gone. Heroic, you'll get it back at the end of the
adventure. Heroic at a dramatically appropriate moment, you'll get the luck point back and
probably another one as well."

A :class:`LuckState` is the character's points and the spends owed back; :func:`spend` and
:func:`end_adventure` return a new one. What a doubling does to the round is
:mod:`rules.systems.d6.rounds` (``doubled``, :meth:`~rules.systems.d6.rounds.RoundPlan.spend_luck`).

Readings:

- **Escaping certain death** is spent after a failed roll ("roll to try to get out of the way and
  completely fail … spend that Luck Point. Poof. You're automatically safe. But you have to
  explain why"): the explanation is required, one to :data:`MAX_EXPLANATION` characters. A
  doubling may carry a note, not required.
- **Heroism** is the GM's judgement, recorded with the spend.
- **"Probably another one as well"**: a dramatic spend is always returned; the GM decides at the
  adventure's end whether it earns one more point (``extra_for``). Only a dramatic spend can.
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
    """When it was spent: "by being unheroic, being heroic, and being heroic at a dramatically appropriate moment"."""

    UNHEROIC = "unheroic"
    HEROIC = "heroic"
    DRAMATIC = "dramatic"


@dataclass(frozen=True, slots=True)
class Spend:
    """One luck point spent: its id (from 1, in the order spent), what it did, when, and the player's words."""

    id: int
    kind: Kind
    heroism: Heroism
    explanation: str = ""

    def __post_init__(self) -> None:
        _count(self.id, "id", 1, 10**9)
        object.__setattr__(self, "kind", _kind(self.kind))
        object.__setattr__(self, "heroism", _heroism(self.heroism))
        if not isinstance(self.explanation, str):
            raise LuckError("explanation", "the explanation is text")

    @property
    def returned(self) -> bool:
        """Whether the point comes back at the adventure's end: "Heroic, you'll get it back"."""
        return self.heroism is not Heroism.UNHEROIC


def _kind(value: object) -> Kind:
    try:
        return Kind(value)
    except ValueError:
        raise LuckError("kind", f"{value!r} is not a use of a luck point (double or escape)") from None


def _heroism(value: object) -> Heroism:
    try:
        return Heroism(value)
    except ValueError:
        raise LuckError("heroism", f"{value!r} is not one of unheroic, heroic, dramatic") from None


def _count(value: object, field: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise LuckError(field, "a whole number is needed")
    if not low <= value <= high:
        raise LuckError(field, f"is from {low} to {high}, not {value}")
    return value


@dataclass(frozen=True, slots=True)
class LuckState:
    """A character's luck points, the spends owed back at the adventure's end, and how many were spent.

    ``spent`` counts every spend so far (the last spend's id), so ids never repeat.
    """

    points: int = STARTING_POINTS
    owed: tuple[Spend, ...] = ()
    spent: int = 0

    def __post_init__(self) -> None:
        _count(self.points, "points", 0, MAX_POINTS)
        _count(self.spent, "spent", 0, 10**9)
        object.__setattr__(self, "owed", tuple(self.owed))
        if not all(isinstance(s, Spend) and s.returned for s in self.owed):
            raise LuckError("owed", "only heroic and dramatic spends are owed back")
        ids = [s.id for s in self.owed]
        if len(set(ids)) != len(ids) or any(not 1 <= i <= self.spent for i in ids):
            raise LuckError("owed", "each owed spend has its own id, from 1 to the number spent")


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


def spend(state: LuckState, kind: Kind | str, heroism: Heroism | str, explanation: str = "") -> tuple[LuckState, Spend]:
    """Spend one luck point: the new state and the spend, to record.

    Rules text, "luck points": "Anytime at all during a scenario … you can say that you're using
    a Luck Point." A heroic or dramatic spend is owed back at the adventure's end; an unheroic
    one is gone. Refused with no point left, or an escape without an explanation.
    """
    kind, heroism = _kind(kind), _heroism(heroism)
    text = _explanation(kind, explanation)
    if state.points == 0:
        owed = len(state.owed)
        back = f"; {owed} come{'s' if owed == 1 else ''} back at the adventure's end" if owed else ""
        raise LuckError("points", f"no luck point left to spend{back}")
    entry = Spend(state.spent + 1, kind, heroism, text)
    owed = (*state.owed, entry) if entry.returned else state.owed
    return LuckState(state.points - 1, owed, state.spent + 1), entry


def end_adventure(state: LuckState, extra_for: Iterable[int] = frozenset()) -> LuckState:
    """The adventure's end: every heroic and dramatic spend comes back, and the GM's extra points.

    Rules text, "luck points": "Heroic, you'll get it back at the end of the adventure. Heroic
    at a dramatically appropriate moment, you'll get the luck point back and probably another one
    as well." ``extra_for`` holds the ids of the dramatic spends the GM grants one more point
    (our reading of "probably"); any other id is refused. Nothing is owed afterwards.
    """
    if isinstance(extra_for, (str, bytes)) or not isinstance(extra_for, Iterable):
        raise LuckError("extra_for", "the spends granted an extra point are a set of ids")
    extra = set(extra_for)
    owed = {s.id: s for s in state.owed}
    for spend_id in sorted(extra, key=repr):
        found = owed.get(spend_id) if isinstance(spend_id, int) and not isinstance(spend_id, bool) else None
        if found is None:
            raise LuckError("extra_for", f"{spend_id!r} is not a spend owed back this adventure")
        if found.heroism is not Heroism.DRAMATIC:
            raise LuckError(
                "extra_for",
                f"spend {spend_id} was {found.heroism}: only a spend at a dramatically appropriate moment earns "
                "another point",
            )
    points = state.points + len(state.owed) + len(extra)
    if points > MAX_POINTS:
        raise LuckError("points", f"a character holds at most {MAX_POINTS} luck points")
    return LuckState(points, (), state.spent)


# --- On the sheet -----------------------------------------------------------------------------------


def state_of(points: int, owed: Iterable[Spend], spent: int) -> LuckState:
    """The luck state a sheet holds (its points, the spends owed back, how many were ever spent)."""
    return LuckState(points, tuple(owed), max(spent, *(s.id for s in owed)) if owed else spent)


def spend_words(entry: Spend) -> str:
    """A spend as the sheet's history says it: "Luck point spent (heroic): doubled for the round"."""
    did = "doubled every code for the round" if entry.kind is Kind.DOUBLE else "escaped certain death"
    back = {Heroism.UNHEROIC: "gone", Heroism.HEROIC: "back at the adventure's end",
            Heroism.DRAMATIC: "back at the adventure's end, perhaps with one more"}[entry.heroism]  # fmt: skip
    why = f": {entry.explanation}" if entry.explanation else ""
    return f"Luck point spent, {entry.heroism.value} ({back}): {did}{why}"
