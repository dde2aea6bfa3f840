"""Combat: what a system gives the generic encounter (stat blocks, initiative, attacks, defences, damage)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from fractions import Fraction
from random import Random
from typing import Any, ClassVar, Generic, Protocol, runtime_checkable

from pydantic import BaseModel
from typing_extensions import TypeVar

from rules.systems.protocol.rolls import Kept
from rules.systems.protocol.sheets import SheetT, Vitals

__all__ = [
    "AttackPlan",
    "AttackRoll",
    "BlockT",
    "Combat",
    "CombatAction",
    "CombatRefused",
    "Defence",
    "Fighter",
    "Fights",
    "Harm",
    "Initiative",
    "Logged",
]

#: A system's stat block model, where a fighter or a fight carries the blocks of one system
#: (``Fighter[StatBlock, Sheet]``); one that names none carries any.
BlockT = TypeVar("BlockT", bound=BaseModel, default=BaseModel)


class CombatRefused(ValueError):
    """A move a fight does not allow now (the attacker is dying, the target already dead…),
    in words for the GM; the encounter answers it as a conflict."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True, slots=True)
class Fighter(Generic[BlockT, SheetT]):
    """A combatant as its system sees it.

    ``block`` is the stat block it fights with (the system's ``Combat.stat_block_model``: an NPC's
    whole stat sheet, or what a character brought to the fight); ``sheet`` is its character's sheet
    (None for an NPC), where a character's vitals live; ``state`` is the system's own per-encounter
    state for it (JSON-ready: Lucky 13 keeps whether a dying combatant is stabilized). ``key`` is
    the combatant's id in the encounter and ``sheet_key`` its character's (None for an NPC): a
    choice that names a sheet item says whose sheet (``"<sheet_key>:<item id>"``), because item ids
    are unique within a sheet only. ``Fighter[StatBlock, Sheet]`` has a system's stat block and sheet.
    """

    key: int
    name: str
    block: BlockT
    sheet: SheetT | None = None
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
    #: The defender's choices before the attack is rolled (D6: dodge, parry, or let the range's number
    #: stand), each with the attack's exact chance if chosen. Non-empty while the choice is still to make:
    #: the attack then waits for the target's side, whose answer is the choice ``defence_field``.
    defences: tuple[Defence, ...] = ()
    defence_field: str = ""


@dataclass(frozen=True, slots=True)
class Defence:
    """One way a target may answer an attack, the defender's choice: the value of the attack's
    :attr:`AttackPlan.defence_field` it sets, its words, and the attack's exact chance of ``chance_of`` (a hit)
    if it is chosen."""

    value: str
    label: str
    chance: Fraction


@dataclass(frozen=True, slots=True)
class AttackRoll:
    """A rolled attack: the log entry of the attack, and the harm it does (0 for a miss) with the
    log entry of the damage, whose outcome the encounter completes with the target's :class:`Harm`.
    ``kept`` is what the attack changes on the sheets of those who took part, by their combatant's key
    (D6: the attack recorded in the attacker's round, a dodge in the target's), each once the attack has
    its number in the log."""

    logged: Logged
    damage: int = 0
    damage_logged: Logged | None = None
    kept: Mapping[int, Kept] = field(default_factory=dict)


@dataclass(frozen=True, slots=True)
class CombatAction:
    """A move of the GM's other than an attack: for one fighter (``per_fighter``: Lucky 13's
    "Stabilize") or for everyone at once ("A minute passes")."""

    key: str
    label: str
    help: str = ""
    per_fighter: bool = True


@runtime_checkable
class Combat(Protocol[BlockT, SheetT]):
    """A system's fights, for the generic encounter (which keeps order, turns, rounds and the log).

    Dice are rolled with the ``rng`` passed in; every roll comes back as :class:`Logged` entries.
    ``Combat[StatBlock, Sheet]`` fights with a system's stat blocks and sheets."""

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

    def npc(self, values: Mapping[str, str], options: Mapping[str, Any]) -> BlockT:
        """An NPC's stat block from the GM's form (text values); :class:`SheetInvalid` names each bad field."""
        ...

    def read_block(self, document: Mapping[str, Any]) -> BlockT:
        """A stored stat block, migrated if older; :class:`SheetInvalid`."""
        ...

    def joins(self, sheet: SheetT, options: Mapping[str, Any]) -> BlockT:
        """The stat block a character brings to a fight, from its sheet."""
        ...

    def vitals(self, fighter: Fighter[BlockT, SheetT], options: Mapping[str, Any]) -> Vitals:
        """What the initiative order shows of a fighter, and whether it can act."""
        ...

    def initiative(
        self, groups: Sequence[Sequence[Fighter[BlockT, SheetT]]], options: Mapping[str, Any], rng: Random
    ) -> Initiative:
        """Roll initiative; each group (identical NPCs added together, or one fighter) rolls once."""
        ...

    def join(
        self,
        groups: Sequence[Sequence[Fighter[BlockT, SheetT]]],
        standing: Sequence[tuple[Fighter[BlockT, SheetT], int]],
        options: Mapping[str, Any],
        rng: Random,
    ) -> Initiative:
        """Newcomers join a fight whose initiative is rolled: each group rolls as in :meth:`initiative`,
        and each newcomer takes a place in the order as it stands (``standing``: those in it, first
        first, each with its initiative value), which keeps its own order. ``values`` are the
        newcomers', ``order`` the whole new order (keys, first first), ``logged`` every roll."""
        ...

    def attack_choices(
        self, fighters: Sequence[Fighter[BlockT, SheetT]], options: Mapping[str, Any]
    ) -> Mapping[str, Any]:
        """What the attack form offers (weapons, specializations…) for these fighters, for the
        system's template."""
        ...

    def plan_attack(
        self,
        attacker: Fighter[BlockT, SheetT],
        target: Fighter[BlockT, SheetT],
        choices: Mapping[str, str],
        options: Mapping[str, Any],
        others: Sequence[Fighter[BlockT, SheetT]] = (),
    ) -> AttackPlan:
        """The attack of ``attacker`` on ``target`` with the GM's ``choices`` (form values), and
        its exact chance; ``others`` are everyone else in the fight, whom a choice may name (Lucky 13:
        a combatant who assists a side). :class:`SpecError` names a bad choice, :class:`CombatRefused`
        a move the fight does not allow now."""
        ...

    def roll_attack(self, plan: AttackPlan, options: Mapping[str, Any], rng: Random) -> AttackRoll: ...

    def harm(self, fighter: Fighter[BlockT, SheetT], amount: int, options: Mapping[str, Any]) -> Harm:
        """``amount`` healing (positive) or damage (negative) on the fighter's main track."""
        ...

    def act(self, action: str, fighter: Fighter[BlockT, SheetT], options: Mapping[str, Any]) -> Harm | None:
        """One of :attr:`actions` on a fighter; None when it does not apply to this one (an action
        for everyone skips them; for one fighter the encounter refuses with :meth:`why_not`)."""
        ...

    def why_not(self, action: str, fighter: Fighter[BlockT, SheetT], options: Mapping[str, Any]) -> str:
        """Why ``action`` does not apply to the fighter now ("" when it does)."""
        ...


class Fights(Protocol):
    """A system's fights, for encounters: ``combat`` is None for a system without fights."""

    combat: Combat[Any, Any] | None
