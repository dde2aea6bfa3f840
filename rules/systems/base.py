"""The protocol every rules system follows, so that campaigns, sheets, the ledger, the roll log,
encounters, the JSON API and the command line are written once for all of them.

A system is one package under ``rules/systems/<key>/`` that exports one object, ``SYSTEM``,
following :class:`RulesSystem`. The apps reach it only through the registry
(``rules.systems.get(key)``), never by name (ARCHITECTURE.md, "The system protocol").
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from fractions import Fraction
from random import Random
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar, runtime_checkable

from pydantic import BaseModel

from rules.document import Problem

if TYPE_CHECKING:
    from rules.systems.moves import Move, TableRules

__all__ = [
    "AttackPlan",
    "AttackRoll",
    "Awaiting",
    "Combat",
    "CombatAction",
    "CombatRefused",
    "CreationStep",
    "Currency",
    "EditRefused",
    "EditSection",
    "Effect",
    "Fighter",
    "Harm",
    "Initiative",
    "LegacyRead",
    "Logged",
    "Offer",
    "Option",
    "OptionsChange",
    "OptionsError",
    "Other",
    "Others",
    "Problem",
    "Recorded",
    "Role",
    "RollKind",
    "RulesSystem",
    "SheetInvalid",
    "SheetRoll",
    "SpecError",
    "Summary",
    "Totals",
    "Track",
    "Vitals",
    "nobody",
]

Spec = TypeVar("Spec")
Result = TypeVar("Result")
Chance = TypeVar("Chance")
SheetT = TypeVar("SheetT")


class SpecError(ValueError):
    """A roll or chance spec with a bad field; the message names the field."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(f"{field}: {message}")
        self.field = field
        self.message = message


class OptionsError(ValueError):
    """Campaign options that break a rule; ``errors`` maps each option to its message, and ``at`` each problem
    to the path it is at (``skills.2.name``), so that a form says it by the row and the field it is about."""

    def __init__(self, errors: dict[str, str], at: Mapping[str, str] | None = None) -> None:
        super().__init__("; ".join(f"{key}: {message}" for key, message in errors.items()))
        self.errors = errors
        self.at: dict[str, str] = dict(at) if at is not None else dict(errors)


class SheetInvalid(ValueError):
    """A sheet document (or a draft, or an edit's result) that breaks its system's rules:
    every problem, each with where it is and a message a player understands."""

    def __init__(self, problems: Sequence[Problem]) -> None:
        self.problems = tuple(problems)
        super().__init__("; ".join(f"{p.field}: {p.message}" for p in self.problems) or "the sheet is not valid")


class EditRefused(PermissionError):
    """An edit of a part of the sheet that this role may not change."""

    def __init__(self, section: str, message: str) -> None:
        super().__init__(message)
        self.section = section
        self.message = message


class CombatRefused(ValueError):
    """A move a fight does not allow now (the attacker is dying, the target already dead…),
    in words for the GM; the encounter answers it as a conflict."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


class Role(StrEnum):
    """Who is making a change: a sheet's owner (its player), the campaign's GM, or, at the campaign's
    table, any player of the campaign."""

    OWNER = "owner"
    GM = "gm"
    PLAYER = "player"


@dataclass(frozen=True, slots=True)
class Option:
    """A campaign option of a system, with its default and allowed values (for forms and docs): its choices,
    or for a whole number its bounds."""

    key: str
    label: str
    default: Any
    choices: tuple[tuple[str, str], ...] = ()
    help: str = ""
    minimum: int | None = None
    maximum: int | None = None


@dataclass(frozen=True, slots=True)
class Recorded:
    """What the roll log keeps of a roll: every die as rolled (JSON), the total and the outcome
    (``success``, ``margin``… as the system has them)."""

    dice: Any
    total: int | None
    outcome: Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Worded:
    """A roll's outcome in its system's words, for the log: the words ("Success", "Wins", "3 successes of 2
    needed", "Doubles: draw a card"), its ``tone`` (``success``, ``failure`` or ``draw``, for the eye), and
    anything more the roll calls for, each said on its own ("Dilemma!")."""

    words: str
    tone: str = ""
    more: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class RollKind(Generic[Spec, Result, Chance]):
    """One kind of roll: build its dice from a spec, roll them, or compute the exact chance.

    ``parse`` turns a plain mapping (a CLI spec, an API body, a form) into the dice to roll,
    raising :class:`SpecError`; ``record`` says what the roll log keeps of a result (every die,
    the total, the outcome); ``success`` reads the chance of success from the chance (None for
    a roll that has no success); ``chance_json`` gives the chance as the JSON object of the
    chance interface (rules README); ``describe`` says in words what a spec rolls.
    """

    key: str
    label: str
    fields: frozenset[str]
    parse: Callable[[Mapping[str, Any]], Spec]
    roll: Callable[[Spec, Random], Result]
    chance: Callable[[Spec], Chance]
    record: Callable[[Result], Recorded]
    success: Callable[[Chance], Fraction | None]
    chance_json: Callable[[Mapping[str, Any]], dict[str, Any]] = field(repr=False)
    describe: Callable[[Spec], str] = field(repr=False, default=lambda spec: "")


@dataclass(frozen=True, slots=True)
class CreationStep:
    """One step of guided creation, in order; ``server_rolls`` when the server rolls dice in it;
    ``fields``, the document's top-level fields the player fills in at it (:meth:`RulesSystem.fill_step`
    takes them; a page makes its form from the sheet model where the system has none of its own)."""

    key: str
    label: str
    server_rolls: bool = False
    fields: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class EditSection:
    """A part of a finished sheet that is edited as one, and who may edit it.

    ``fields`` are the document's top-level fields its value replaces (``(key,)`` when empty);
    ``region`` is where the sheet page shows it (its templates' ``section-<region>`` partial; the
    key when empty), which sections may share; ``note`` says, in a player's words, what in it only
    the GM may change (or, for a section only the GM edits, why)."""

    key: str
    label: str
    editors: frozenset[Role] = frozenset({Role.OWNER, Role.GM})
    fields: tuple[str, ...] = ()
    region: str = ""
    note: str = ""

    @property
    def replaces(self) -> tuple[str, ...]:
        """The document fields the section's value replaces."""
        return self.fields or (self.key,)

    @property
    def where(self) -> str:
        """The region of the sheet page that shows the section."""
        return self.region or self.key


@dataclass(frozen=True, slots=True)
class Track:
    """A number a dashboard and an encounter show: hit points, a health track, Luck…"""

    key: str
    label: str
    value: int
    maximum: int | None = None
    minimum: int | None = None
    #: A short unit a page writes after the value ("hp"); the label when empty.
    unit: str = ""
    #: The track drawn as rows of slots, first row first: (label, slots full, slots in the row).
    segments: tuple[tuple[str, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Vitals:
    """What the party view shows of a character, and whether the character can act now.

    ``state`` is a short word for the condition (``"up"``, ``"dying"``, ``"dead"``…) and
    ``why_not`` says, when the character cannot act, why (for the page).
    """

    tracks: tuple[Track, ...]
    state: str
    can_act: bool = True
    why_not: str = ""
    conditions: tuple[str, ...] = ()
    #: Facts a page shows beside the tracks, as (label, value): ("Pulse now", "d6").
    notes: tuple[tuple[str, str], ...] = ()


@dataclass(frozen=True, slots=True)
class Arrival(Generic[SheetT]):
    """A character from another campaign as this campaign takes it in: the sheet, what plays differently here,
    in order, each in a player's words; ``changed``: what the sheet itself changes by, each in a few words for
    its history (the rest stays as it is)."""

    sheet: SheetT
    words: tuple[str, ...]
    changed: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class LegacyRead:
    """A document of an export format older than the envelope, read by its system: the sheet document
    it converts to (current version, JSON-ready), the character's name and status ("draft"/"active"),
    whether its rolls were checked against the document's own signature (``rolls_verified``), and what
    that check found (``problems``, at paths of the old document), for which the import is refused."""

    system: str
    name: str
    status: str
    sheet: dict[str, Any]
    rolls_verified: bool
    problems: tuple[Problem, ...] = field(default=())


@dataclass(frozen=True, slots=True)
class OptionsChange:
    """What a change of a campaign's options does to its characters: each sheet after it (None where
    it does not change), in the words and sections of the sheet's history; or, in ``conflicts``, by
    option, what the characters have that forbids it (then nothing changes)."""

    conflicts: Mapping[str, str]
    sheets: tuple[BaseModel | None, ...]
    what: str = ""
    sections: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Summary:
    """A character in a few words, for lists: its concept ("" if the system has none), the creation
    step a draft was left at ("" once finished) and what the server rolled in creation, in words."""

    concept: str = ""
    step: str = ""
    rolls: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Awaiting:
    """An item of a sheet that waits for the GM's approval (a player's new gear): its id and, in the
    system's words, what it is ("Weapon: Halberd, accuracy d8, damage d10")."""

    item: str
    words: str
    #: The sheet's edit section the item is in: a form of it opened before the GM's decision is stale.
    section: str = ""


@dataclass(frozen=True, slots=True)
class Currency:
    """What a system's characters earn and spend (Lucky 13: Adventure Points), and what the rule text
    says of awarding it: the usual award per adventure (``typical_award``, low and high) and the
    reasons it gives, which the GM's award form offers."""

    key: str
    name: str
    abbreviation: str
    typical_award: tuple[int, int] | None = None
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Standing:
    """A number a sheet keeps that the GM moves with an award, within bounds (Lucky 13's reputation,
    −5 … +5): the sheet's top-level ``field``, in the edit ``section`` that holds it; its history is
    kept beside the ledger."""

    field: str
    section: str
    label: str
    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Effect:
    """How a purchase changes one roll: the exact chance before and after."""

    label: str
    before: Fraction
    after: Fraction

    @property
    def gain(self) -> Fraction:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Offer:
    """Something a character can buy now: its key (it names sheet items by id), a label for a
    player, its cost in a currency, and how it changes the odds."""

    key: str
    label: str
    currency: str
    cost: int
    effects: tuple[Effect, ...] = ()


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


@dataclass(frozen=True, slots=True)
class Other:
    """Another character in play, as a sheet roll may draw on one (Lucky 13: a helper's die)."""

    name: str
    sheet: BaseModel


#: Another character in play by its id, for a sheet roll (None: no such character in play).
Others = Callable[[int], Other | None]


def nobody(character_id: int) -> Other | None:
    """No other character (a roll made alone)."""
    return None


# --- Combat: what a system gives the generic encounter -----------------------------------------------


@dataclass(frozen=True, slots=True)
class Fighter:
    """A combatant as its system sees it.

    ``block`` is the stat block it fights with (the system's ``Combat.stat_block_model``: an NPC's
    whole stat sheet, or what a character brought to the fight); ``sheet`` is its character's sheet
    (None for an NPC), where a character's vitals live; ``state`` is the system's own per-encounter
    state for it (JSON-ready: Lucky 13 keeps whether a dying combatant is stabilized). ``key`` is
    the combatant's id in the encounter and ``sheet_key`` its character's (None for an NPC): a
    choice that names a sheet item says whose sheet (``"<sheet_key>:<item id>"``), because item ids
    are unique within a sheet only.
    """

    key: int
    name: str
    block: BaseModel
    sheet: BaseModel | None = None
    state: Mapping[str, Any] = field(default_factory=dict)
    sheet_key: int | None = None


@dataclass(frozen=True, slots=True)
class Logged:
    """A roll or a ruling of a fight, as the roll log records it: ``kind`` is one of the log's
    encounter kinds (``initiative``, ``attack``, ``damage``, ``adjustment``); ``fighter`` is the key
    of the combatant it belongs to (its character is the roll's character)."""

    kind: str
    label: str
    spec: Mapping[str, Any]
    fighter: int | None = None
    dice: Any = ()
    total: int | None = None
    outcome: Mapping[str, Any] = field(default_factory=dict)
    chance: Fraction | None = None
    chance_of: str = ""


@dataclass(frozen=True, slots=True)
class Initiative:
    """The initiative of an encounter: each fighter's value, the order (keys, first to act first)
    and every roll that made it, for the log."""

    values: Mapping[int, int]
    order: tuple[int, ...]
    logged: tuple[Logged, ...]


@dataclass(frozen=True, slots=True)
class Harm:
    """A fighter's vitals changed (damage, healing, a ruling): the block or the sheet after (a
    character's vitals change on its sheet, an NPC's on its block), its state after, and the
    JSON-ready outcome the log keeps (``before``, ``after``, ``condition`` at least)."""

    key: int
    block: BaseModel
    sheet: BaseModel | None
    state: Mapping[str, Any]
    outcome: Mapping[str, Any]
    words: str
    #: The sheet's edit sections the change touches: an open form of them goes stale.
    sections: tuple[str, ...] = ()

    @property
    def change(self) -> int:
        return int(self.outcome["after"]) - int(self.outcome["before"])


@dataclass(frozen=True, slots=True)
class AttackPlan:
    """An attack ready to roll, from the GM's choices: the exact chance before anyone rolls, the
    choices as they apply (what the form sends back to roll exactly what was shown), the words,
    what a page shows of it (``details``, for the system's template) and the dice (the engine's
    own, opaque to the apps)."""

    attacker: int
    target: int
    chance: Fraction
    chance_of: str
    choices: Mapping[str, str]
    label: str
    details: Mapping[str, Any]
    dice: Any = field(repr=False, default=None)


@dataclass(frozen=True, slots=True)
class AttackRoll:
    """A rolled attack: the log entry of the attack, and the harm it does (0 for a miss) with the
    log entry of the damage, whose outcome the encounter completes with the target's :class:`Harm`."""

    logged: Logged
    damage: int = 0
    damage_logged: Logged | None = None


@dataclass(frozen=True, slots=True)
class CombatAction:
    """A move of the GM's other than an attack: for one fighter (``per_fighter``: Lucky 13's
    "Stabilize") or for everyone at once ("A minute passes")."""

    key: str
    label: str
    help: str = ""
    per_fighter: bool = True


@runtime_checkable
class Combat(Protocol):
    """A system's fights, for the generic encounter (which keeps order, turns, rounds and the log).

    Dice are rolled with the ``rng`` passed in; every roll comes back as :class:`Logged` entries."""

    #: An NPC's stat block: a frozen document with ``schema_version``, like a sheet.
    stat_block_model: ClassVar[type[BaseModel]]
    #: The fields of the GM's attack form besides ``attacker`` and ``target``.
    attack_fields: frozenset[str]
    #: Those of them that are the GM's call (the situation, the other side): a player attacking on their
    #: turn chooses the rest, and may not set these to anything but what the attack takes without them.
    gm_attack_fields: frozenset[str]
    actions: tuple[CombatAction, ...]
    #: The track damage and the GM's changes move, as the log names it ("Hit points"): a GM's change
    #: is logged as "<track_label> of <combatant>: <reason>".
    track_label: str

    def amount_words(self, amount: int) -> str:
        """An amount of that track as the log writes it after a damage's or a change's arrow, from the
        ``after`` of its outcome (:attr:`Harm.outcome`, older entries' included): Lucky 13 "9 hit points".
        A change of condition (an outcome with ``was``) is written as its conditions instead."""
        ...

    def left_words(self, outcome: Mapping[str, Any]) -> str:
        """What a combatant left the fight with, as the log writes it after its name, from the vitals
        the log kept (each track's value by its key, and ``condition``): Lucky 13 "at 9 hit points"."""
        ...

    def npc(self, values: Mapping[str, str], options: Mapping[str, Any]) -> BaseModel:
        """An NPC's stat block from the GM's form (text values); :class:`SheetInvalid` names each bad field."""
        ...

    def read_block(self, document: Mapping[str, Any]) -> BaseModel:
        """A stored stat block, migrated if older; :class:`SheetInvalid`."""
        ...

    def joins(self, sheet: BaseModel, options: Mapping[str, Any]) -> BaseModel:
        """The stat block a character brings to a fight, from its sheet."""
        ...

    def vitals(self, fighter: Fighter, options: Mapping[str, Any]) -> Vitals:
        """What the initiative order shows of a fighter, and whether it can act."""
        ...

    def initiative(self, groups: Sequence[Sequence[Fighter]], options: Mapping[str, Any], rng: Random) -> Initiative:
        """Roll initiative; each group (identical NPCs added together, or one fighter) rolls once."""
        ...

    def join(
        self,
        groups: Sequence[Sequence[Fighter]],
        standing: Sequence[tuple[Fighter, int]],
        options: Mapping[str, Any],
        rng: Random,
    ) -> Initiative:
        """Newcomers join a fight whose initiative is rolled: each group rolls as in :meth:`initiative`,
        and each newcomer takes a place in the order as it stands (``standing``: those in it, first
        first, each with its initiative value), which keeps its own order. ``values`` are the
        newcomers', ``order`` the whole new order (keys, first first), ``logged`` every roll."""
        ...

    def attack_choices(self, fighters: Sequence[Fighter], options: Mapping[str, Any]) -> Mapping[str, Any]:
        """What the attack form offers (weapons, specializations…) for these fighters, for the
        system's template."""
        ...

    def plan_attack(
        self,
        attacker: Fighter,
        target: Fighter,
        choices: Mapping[str, str],
        options: Mapping[str, Any],
        others: Sequence[Fighter] = (),
    ) -> AttackPlan:
        """The attack of ``attacker`` on ``target`` with the GM's ``choices`` (form values), and
        its exact chance; ``others`` are everyone else in the fight, whom a choice may name (Lucky 13:
        a combatant who assists a side). :class:`SpecError` names a bad choice, :class:`CombatRefused`
        a move the fight does not allow now."""
        ...

    def roll_attack(self, plan: AttackPlan, options: Mapping[str, Any], rng: Random) -> AttackRoll: ...

    def harm(self, fighter: Fighter, amount: int, options: Mapping[str, Any]) -> Harm:
        """``amount`` healing (positive) or damage (negative) on the fighter's main track."""
        ...

    def act(self, action: str, fighter: Fighter, options: Mapping[str, Any]) -> Harm | None:
        """One of :attr:`actions` on a fighter; None when it does not apply to this one (an action
        for everyone skips them; for one fighter the encounter refuses with :meth:`why_not`)."""
        ...

    def why_not(self, action: str, fighter: Fighter, options: Mapping[str, Any]) -> str:
        """Why ``action`` does not apply to the fighter now ("" when it does)."""
        ...


@runtime_checkable
class RulesSystem(Protocol):
    """What a system's ``SYSTEM`` object gives the apps (ARCHITECTURE.md, "The system protocol").

    Sheets go in and out as JSON-ready dicts (``document``) or as the system's own frozen model
    (``sheet``); the apps never look inside either except through these methods.
    """

    # Identity, and what the system's license asks the product to say.
    key: str
    name: str
    attribution: str
    disclaimer: str
    license_name: str
    license_file: str

    # Campaign options: a validated model with defaults.
    options_model: ClassVar[type[BaseModel]]
    option_fields: tuple[Option, ...]

    def outcome_words(self, kind: str, spec: Mapping[str, Any], outcome: Mapping[str, Any]) -> Worded | None:
        """A roll of the log's ``kind`` worded as the system says its outcomes; None where the platform's
        own words do (a success or a failure, a hit or a miss)."""
        ...

    # Everything a player or the GM does with the rules besides building and rolling a sheet
    # (:mod:`rules.systems.moves`), performed by the table's one pipeline.
    moves: tuple[Move, ...]
    # The kinds of roll the system puts in the campaign's log, by key, with the words the log gives them
    # (the platform's own, such as a free roll or an attack, are the table app's).
    log_kinds: Mapping[str, str]
    # The campaign's table: a document every member shares, each seeing only their part (None: none).
    table: TableRules | None

    def default_options(self) -> dict[str, Any]: ...

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        """The options with defaults filled in; :class:`OptionsError` names every bad option."""
        ...

    def change_options(
        self,
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        renames: Mapping[str, str],
        characters: Sequence[tuple[str, BaseModel]],
    ) -> OptionsChange:
        """A change of the options (``after``: validated) against the campaign's characters (name and
        sheet each): the sheets it changes, or its conflicts; :class:`OptionsError` for a change that
        is wrong whatever the characters (Lucky 13: a skill renamed to a name the list lacks)."""
        ...

    def options_summary(self, options: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The options as the campaign page lists them: ``{"label", "value"}`` each, and ``"list"``
        for a value that is a list (such as the skills)."""
        ...

    # The sheet.
    sheet_model: ClassVar[type[BaseModel]]
    sheet_version: int

    def migrate(self, document: dict[str, Any], from_version: int) -> dict[str, Any]: ...

    def read_sheet(self, document: Mapping[str, Any]) -> BaseModel:
        """The sheet of a stored or imported document, migrated if older; :class:`SheetInvalid`."""
        ...

    def validate(self, sheet: BaseModel, options: Mapping[str, Any], *, finished: bool) -> tuple[Problem, ...]:
        """What breaks the campaign's rules in a sheet as it stands (a finished character must be
        complete; an advanced one is never re-checked as a fresh creation)."""
        ...

    # Creation.
    creation_steps: tuple[CreationStep, ...]

    def new_draft(self, options: Mapping[str, Any]) -> BaseModel: ...

    def check_step(self, sheet: BaseModel, step: str, options: Mapping[str, Any]) -> tuple[Problem, ...]:
        """What the draft still lacks or breaks at ``step`` (messages a player understands)."""
        ...

    def roll_step(self, sheet: BaseModel, step: str, options: Mapping[str, Any], rng: Random) -> BaseModel:
        """The draft with the server's dice of ``step`` rolled and recorded (only for steps that roll)."""
        ...

    def fill_step(self, sheet: BaseModel, step: str, value: Mapping[str, Any], options: Mapping[str, Any]) -> BaseModel:
        """The draft with what the player gives at ``step`` (its ``fields``, as JSON; a list item without
        an id is new) put in, checked as far as the step goes, and its progress moved past ``step``;
        :class:`SheetInvalid` names every problem at its path, and the draft stays as it was."""
        ...

    def finish(self, sheet: BaseModel, options: Mapping[str, Any]) -> BaseModel:
        """The draft made a finished character (its played state begun: Lucky 13's full hit points),
        whose :meth:`summary` names no step; :class:`SheetInvalid` says what it still lacks."""
        ...

    # Edits of a finished sheet.
    edit_sections: tuple[EditSection, ...]

    def edit(
        self, sheet: BaseModel, section: str, value: Mapping[str, Any], *, role: Role, options: Mapping[str, Any]
    ) -> BaseModel:
        """The sheet with ``section`` replaced by ``value`` (its ``replaces`` fields), validated whole;
        :class:`EditRefused` if ``role`` may not change it, :class:`SheetInvalid` if the result breaks
        a rule. A list item of ``value`` that comes without an id is new and gets a fresh one
        (:func:`rules.document.with_new_ids`)."""
        ...

    # The table.
    def vitals(self, sheet: BaseModel, options: Mapping[str, Any]) -> Vitals: ...

    def summary(self, sheet: BaseModel) -> Summary:
        """The character in a few words, for the lists of a campaign."""
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

    def sheet_roll(
        self, sheet: BaseModel, situation: Mapping[str, Any], options: Mapping[str, Any], others: Others = nobody
    ) -> SheetRoll:
        """The roll a sheet makes in a situation (what, against what, with which modifiers; another
        character in play by its id through ``others``); :class:`SpecError` names a bad part."""
        ...

    # The GM's calls ("roll requests"): the GM names what is rolled and against what, for one
    # character or several; each player rolls it from their own sheet.
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

    def end_adventure(self, sheet: BaseModel, options: Mapping[str, Any]) -> tuple[BaseModel, str] | None:
        """The sheet when the GM ends the adventure (D6: the heroic and dramatic luck points spent come
        back, with the extra ones the GM granted), and the words its history keeps; None when the end of
        an adventure changes nothing on it."""
        ...

    # Advancement.
    currencies: tuple[Currency, ...]
    #: The standing the GM awards beside the points (None: the sheet keeps none).
    standing: Standing | None
    #: What ``offers`` compares the odds at: each part of the situation with its choices (the values a
    #: form sends, as text) and its default (Lucky 13: the difficulty, Moderate to begin).
    offer_situation: tuple[Option, ...]

    def offers(self, sheet: BaseModel, options: Mapping[str, Any], situation: Mapping[str, Any]) -> tuple[Offer, ...]:
        """Everything the sheet can buy now, each labelled with what it buys in a player's words
        ("Teleport (Spellcasting) 2 → 3"), with its cost and how it changes the odds in ``situation``
        (keys of ``offer_situation``; each effect's label says at what)."""
        ...

    def offer_fields(self, sheet: BaseModel, offer: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """What a buy form sends with ``offer``'s key, by name: ``before``, a whole number for what the
        buyer sees now (Lucky 13: the level or the die's rung), which :meth:`buy` checks so that a second
        click buys nothing; and, as None, each choice the buyer gives (Lucky 13: a new specialization's
        ``name``). :class:`SpecError` on ``offer`` when the sheet has no such offer, buyable now or not."""
        ...

    def offer_note(self, sheet: BaseModel, offer: str, options: Mapping[str, Any]) -> str:
        """A few words on what ``offer`` does that its effects do not show ("" when they say it all)."""
        ...

    def buy(
        self, sheet: BaseModel, offer: str, options: Mapping[str, Any], choice: Mapping[str, Any] | None = None
    ) -> tuple[BaseModel, Offer]:
        """The sheet after buying ``offer`` (a key from :meth:`offers`), and what was bought (its label:
        the sheet history's words). ``choice`` holds the fields of :meth:`offer_fields`; a ``before``
        left out is not checked. :class:`SpecError` on ``offer`` or a choice is the buyer's mistake; on
        ``before``, the sheet shows something else now (the message says what); on anything else, the
        sheet cannot take the purchase now (at the top already, full)."""
        ...

    def receipt(
        self, before: BaseModel, after: BaseModel, offer: Offer, options: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        """What the ledger keeps of a purchase (the sheets before and after :meth:`buy`): its words
        and a JSON record naming what it bought by id, with its words at the time, which :meth:`refund`
        and :meth:`purchase_sections` read back."""
        ...

    def purchase_sections(self, purchase: Mapping[str, Any]) -> tuple[str, ...]:
        """The edit sections (keys of ``edit_sections``) a purchase, as :meth:`receipt` recorded it, changes."""
        ...

    def refund(self, sheet: BaseModel, purchase: Mapping[str, Any], options: Mapping[str, Any]) -> BaseModel:
        """The sheet with a purchase (as :meth:`receipt` recorded it) taken back; :class:`SpecError` if
        the sheet no longer shows it as the purchase left it, :class:`SheetInvalid` if the sheet cannot
        take it back as it stands."""
        ...

    # What waits for the GM.
    def awaiting(self, sheet: BaseModel) -> tuple[Awaiting, ...]:
        """The sheet's items that wait for the GM's approval, in the sheet's order; ``()`` for a system
        where nothing waits."""
        ...

    def decide(self, sheet: BaseModel, item: str, *, approve: bool) -> BaseModel:
        """The sheet with the GM's decision on the waiting ``item``: approved, or refused (taken off the
        sheet: it never came into play); :class:`SpecError` if no such item waits."""
        ...

    # The sheet's pages.
    def sheet_view(self, sheet: BaseModel, options: Mapping[str, Any]) -> dict[str, Any]:
        """What the system's sheet templates (``templates/systems/<key>/``) show beyond the document
        itself: values derived from it (Lucky 13: each specialization's effective die, the hit point
        rows), computed once per page."""
        ...

    # Export and import (characters/exchange.py), and the JSON API.
    def named_fields(self, sheet: BaseModel, options: Mapping[str, Any]) -> dict[str, Any]:
        """The fields beside the sheet that the API's clients have read since before sheet documents
        (Lucky 13's export fields); ``{}`` for a system without such a past."""
        ...

    #: The ``schema`` strings of export documents older than the envelope (no ``format`` key,
    #: ``schema_version`` 1) that :meth:`read_legacy` reads; ``()`` for none.
    legacy_formats: tuple[str, ...]

    def fresh_problems(
        self, sheet: BaseModel, options: Mapping[str, Any], *, campaign: str, rolls_verified: bool
    ) -> tuple[Problem, ...]:
        """What a campaign with ``options`` (named ``campaign``, for the messages) refuses in a sheet
        nobody vouches for (an unsigned or changed export, a player's own document), before the creation
        steps it has passed are checked: what its creation does not allow, and any dice the server rolls
        unless the document's own signature vouched for them (``rolls_verified``). Each field is a path
        in the sheet, or ``"signature"`` for rolls that cannot be taken on trust."""
        ...

    def afresh(
        self, sheet: BaseModel, options: Mapping[str, Any], *, finished: bool
    ) -> tuple[BaseModel, tuple[str, ...]]:
        """The sheet of a document nobody vouches for as a fresh creation of the campaign: its played
        state started afresh (``finished``: a finished character), read again; and what changed, each in
        a player's words ("reputation from +2 to 0"). Currencies are the ledger's, not here."""
        ...

    #: The campaign's options that travel with an export of a sheet (``characters/exchange.py`` puts them
    #: in the envelope, under the signature): what the sheet's values were counted by and its items made
    #: with where it comes from (Lucky 13's hit points per Pulse step and skill list). ``()`` for none.
    carried_options: tuple[str, ...]

    def differences(
        self, sheet: BaseModel, options: Mapping[str, Any], origin: Mapping[str, Any] | None = None
    ) -> tuple[str, ...]:
        """What plays differently for a sheet made under other options in a campaign with ``options``, each
        in a player's words, its items matched to the campaign's by name, case and spacing aside (a skill of
        another spelling or link, one the campaign does not have, the skill that fights), and what
        :meth:`mapped` changes; ``origin`` is the :attr:`carried_options` of the campaign it comes from
        (None when the export does not say), what its values were counted by there. ``()`` when nothing
        plays differently."""
        ...

    def mapped(
        self, sheet: BaseModel, options: Mapping[str, Any], origin: Mapping[str, Any] | None = None
    ) -> tuple[BaseModel, tuple[str, ...]]:
        """The sheet as a campaign with ``options`` takes it in from one whose :attr:`carried_options` are
        ``origin``, read again: each item matched by name in the campaign's spelling and with its links,
        each value counted at the campaign's rate; and what changed, each in a few words for the sheet's
        history (:meth:`differences` has said each at length). ``(sheet, ())`` when nothing changes."""
        ...

    def moved(self, sheet: BaseModel) -> tuple[BaseModel, tuple[str, ...]]:
        """The sheet as it joins another campaign than the one it was exported from (before the GM's
        decision): whatever of it points into that campaign (a round in play there, its log's roll numbers)
        cleared, read again; and what changed, each in a player's words. ``(sheet, ())`` for a sheet that
        holds nothing of the kind."""
        ...

    def fresh_rules(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """What a document nobody vouches for must fit in a campaign with ``options``, and what starts
        afresh, in a player's words (the import page lists them)."""
        ...

    def read_legacy(
        self, document: Mapping[str, Any], options: Mapping[str, Any], *, verify: Callable[[str, str], bool]
    ) -> LegacyRead:
        """A document of one of :attr:`legacy_formats`, converted for a campaign with ``options``.
        ``verify(payload, integrity)`` says whether this server signed ``payload`` (the caller holds the
        key). :class:`SheetInvalid` names every bad field at its path in the old document."""
        ...

    # Encounters: None for a system without fights.
    combat: Combat | None
