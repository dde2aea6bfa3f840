"""Rolls: the kinds of roll a system's log keeps (dice, exact chances, outcomes in its words), the roll a sheet
makes in a situation, and the GM's calls for one."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any, ClassVar, Generic, Protocol

from pydantic import BaseModel

from rules.systems.protocol.kinds import Recorded, RollKind
from rules.systems.protocol.sheets import SheetT

__all__ = [
    "Calls",
    "Kept",
    "Other",
    "Others",
    "Recorded",
    "RollKind",
    "Rolls",
    "SheetRoll",
    "Totals",
    "Worded",
    "nobody",
]


@dataclass(frozen=True, slots=True)
class Worded:
    """A roll's outcome in its system's words, for the log: the words ("Success", "Wins", "3 successes of 2
    needed", "Doubles: draw a card"), its ``tone`` (``success``, ``failure`` or ``draw``, for the eye), and
    anything more the roll calls for, each said on its own ("Dilemma!")."""

    words: str
    tone: str = ""
    more: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Totals:
    """The chance of each outcome of a roll, for a chart before the roll, of any shape: a total to reach
    (roll-over, the default: the bars from ``target`` up are highlighted), a total to stay under
    (``succeeds`` says which values win), successes counted, or a distribution with its ``expectation``.
    With ``open_ended`` the last bar is "that value or more". ``value`` names what the bars count (a total,
    heads, successes) and ``caption`` says, in the system's words, what the chart shows and which bars win
    ("" for the platform's roll-over words)."""

    totals: tuple[tuple[int, Fraction], ...]
    target: int
    open_ended: bool = False
    succeeds: frozenset[int] | None = None
    value: str = "Total"
    caption: str = ""
    expectation: Fraction | None = None

    def wins(self, value: int) -> bool:
        """Whether a roll that comes to ``value`` succeeds."""
        return value in self.succeeds if self.succeeds is not None else value >= self.target

    @property
    def words(self) -> str:
        """The chart's caption: the system's, else the roll-over words."""
        return self.caption or f"Chance of each total; the highlighted bars reach {self.target}."


@dataclass(frozen=True, slots=True)
class SheetRoll:
    """A roll built from a sheet and the situation: its kind, the spec its roll kind rolls
    (a chance-interface spec), and the words that say what is rolled.

    ``log_kind`` is the roll log's kind for it (``check``, or Lucky 13's ``reaction``);
    ``details`` is what the log keeps of the sheet as it was (item ids with their words at the
    time); ``steps`` says, for the player, each thing that changed the dice; ``chances`` are exact
    chances a page shows beside (or, where there is no single chance of success, instead of) it, each
    with its words (D6, a band the GM has not narrowed: "At 11, the low end of Moderate")."""

    kind: str
    spec: Mapping[str, Any]
    label: str
    log_kind: str = "check"
    details: Mapping[str, Any] = field(default_factory=dict)
    steps: tuple[str, ...] = ()
    chances: tuple[tuple[str, Fraction], ...] = ()
    #: The chance of each total, for a chart before the roll (None: the page draws none).
    totals: Totals | None = None
    #: What rolling it changes on the sheet it was built from (None: nothing).
    kept: Kept | None = None
    #: The sheet move that makes this roll, with its input (None: the roll kind rolls once): a roll whose
    #: dice leave a decision (keep or reroll?) is made by that move wherever it is asked for — the roll page,
    #: an answer to the GM's call, the API — so every path is the move's one path.
    move: tuple[str, Mapping[str, Any]] | None = None


@dataclass(frozen=True, slots=True)
class Kept:
    """What rolling a sheet roll changes on the sheet it was built from (D6: the use recorded in the declared
    round with the roll's number, an aim's +1d spent): ``sheet(seq)`` is the sheet once the roll has its
    number in the log; ``words`` are what the sheet's history says; ``sections`` are the parts it changes.
    The roll is refused (a 409) when the sheet changed since it was built."""

    sheet: Callable[[int], BaseModel]
    words: str
    sections: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class Other(Generic[SheetT]):
    """Another character in play, as a sheet roll may draw on one (Lucky 13: a helper's die); ``Other[Sheet]``
    has a system's ``Sheet``."""

    name: str
    sheet: SheetT


#: Another character in play by its id, for a sheet roll (None: no such character in play); ``Others[Sheet]``
#: gives them with a system's ``Sheet``.
Others = Callable[[int], Other[SheetT] | None]


def nobody(character_id: int) -> Other[Any] | None:
    """No other character (a roll made alone)."""
    return None


class Rolls(Protocol):
    """A system's rolls: the kinds its log keeps, and the roll a sheet makes in a situation."""

    def outcome_words(self, kind: str, spec: Mapping[str, Any], outcome: Mapping[str, Any]) -> Worded | None:
        """A roll of the log's ``kind`` worded as the system says its outcomes; None where the platform's
        own words do (a success or a failure, a hit or a miss)."""
        ...

    roll_kinds: Mapping[str, RollKind[Any, Any, Any]]

    #: Parts of a sheet roll's situation only the GM may set (Lucky 13: extra steps).
    gm_situation: frozenset[str]
    #: A sheet roll's situation as a JSON body (the API validates it before :meth:`sheet_roll` reads it).
    situation_model: ClassVar[type[BaseModel]]
    #: Parts of the situation that name another character in play by id (Lucky 13: a helper, an
    #: opponent): a roll page offers the characters in play for them.
    situation_characters: frozenset[str]

    def situation_choices(
        self, sheet: BaseModel, options: Mapping[str, Any]
    ) -> Mapping[str, Sequence[tuple[Any, str]]]:
        """The choices of the situation's parts that depend on the sheet or the campaign, each with its
        words (D6: its stats and skills by id, "Firearms 4d+1"; the bands, "Moderate (11–15)"), for a
        roll page to offer as lists; a choice may be a group, ``(words, [(value, words), …])``."""
        ...

    def situation_fixed(self, sheet: BaseModel, options: Mapping[str, Any]) -> frozenset[str]:
        """The parts of the situation the sheet fixes as it stands, which a roll page leaves out (D6: the uses
        and the running, while a declared round sets them)."""
        ...

    def sheet_roll(
        self,
        sheet: BaseModel,
        situation: Mapping[str, Any],
        options: Mapping[str, Any],
        others: Others = nobody,
        table: Mapping[str, Any] | None = None,
    ) -> SheetRoll:
        """The roll a sheet makes in a situation (what, against what, with which modifiers; another
        character in play by its id through ``others``; what the campaign's table holds for the character,
        :attr:`TableRules.for_sheet`, for a system that keeps one: D13's boosts); :class:`SpecError` names a
        bad part."""
        ...


class Calls(Protocol):
    """The GM's calls ("roll requests"): the GM names what is rolled and against what, for one character
    or several; each player rolls it from their own sheet."""

    #: A call as a JSON body, validated at the edge; its fields are what the GM names (Lucky 13: the
    #: kind of check, the skill by the name the campaign's list gives it, the ability where the GM
    #: names one, the difficulty, a background or impairment, extra steps).
    call_model: ClassVar[type[BaseModel]]
    #: Parts of a sheet roll's situation a call fixes: a player answering one cannot change them, and
    #: without one a player sets them only where the campaign lets players call their own rolls. The
    #: rest of a situation is what only the sheet adds (Lucky 13: a specialization, an asset, a
    #: helper): the player's when answering, and carried beside the call when proposing.
    called_situation: frozenset[str]

    def call_choices(self, options: Mapping[str, Any]) -> Mapping[str, Sequence[tuple[str, str]]]:
        """The choices of the call's fields that depend on the campaign (Lucky 13: its skills), and
        each choice's words where the value alone says too little ("hard" → "Hard (d10)")."""
        ...

    def call_situation(self, sheet: BaseModel, call: BaseModel, options: Mapping[str, Any]) -> dict[str, Any]:
        """The parts of a sheet roll's situation ``call`` fixes, for this sheet, naming its items by id
        (Lucky 13: the skill of the call's name by its id on the sheet, and the ability: the call's, else
        the skill's linked one); a request keeps them, so a later rename changes nothing.
        :class:`SpecError` when the sheet cannot make it (Lucky 13: a skill linked to no ability, where
        the call names none)."""
        ...

    def call_words(self, call: BaseModel, options: Mapping[str, Any]) -> str:
        """What a call asks for, in a player's words ("Stealth check, Hard, with a background")."""
        ...

    def situation_call(self, sheet: BaseModel, situation: Mapping[str, Any], options: Mapping[str, Any]) -> BaseModel:
        """The call that would ask this sheet for the roll ``situation`` makes: a player proposing a
        roll to the GM. The inverse of :meth:`call_situation` on the called parts (Lucky 13: the skill
        by its name in the campaign's list, not its id on the sheet; the ability where it is not the
        skill's linked one); what only the sheet adds (a specialization, an asset, a helper) is not a
        call's: the proposal carries it beside. :class:`SpecError` names a part a call cannot say
        (Lucky 13: a skill not on the campaign's list)."""
        ...
