"""Lucky 13 combat: the dice of each side of an attack, and initiative ("Combat", "Initiative")."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from random import Random
from typing import Final

from rules.dice import DiceError, StepDie
from rules.systems.lucky13.checks import AbilityRoll, Explosion, Pool, roll_pool
from rules.systems.lucky13.modifiers import NO_MODIFIERS, Modifiers, check_modifiers
from rules.systems.lucky13.vocabulary import SheetError


def combat_pool(
    reflex: StepDie,
    combat: StepDie,
    third: StepDie,
    modifiers: Modifiers = NO_MODIFIERS,
    *,
    ability_roll: AbilityRoll = AbilityRoll.NORMAL,
) -> Pool:
    """One side of an attack ("Combat"): Reflex + Combat + the weapon's Accuracy die for the attacker,
    or the Defensive die for the defender, each die stepped once by the net of its modifiers ("Modifiers":
    "stepping up one of their dice, or giving them an advantage or disadvantage").

    A Combat specialization steps the Combat die up by its level, as any specialization steps its
    skill's die ("Specializations"); Reflex is the Ability die, rolled twice with the higher kept when a
    background applies and the lower when an impairment does ("Backgrounds", "Impairments"). Reputation
    belongs to reaction checks, never to a fight.
    """
    check_modifiers(modifiers)
    if modifiers.reputation is not None:
        raise SheetError("reputation", "reputation steps Charm in reaction checks, not a fight")
    try:
        how = AbilityRoll(ability_roll)  # "background" as text too: the chances test identity with the enum
    except ValueError:
        raise SheetError("ability_roll", "choose normal, background or impairment") from None
    try:
        return Pool(reflex.step(modifiers.ability_total()), (combat.step(modifiers.skill_total()), third), how)
    except DiceError as error:
        raise SheetError("steps", str(error)) from None


@dataclass(frozen=True, slots=True)
class InitiativeEntry:
    """One place in the initiative order: the Reflex roll, and the roll-off totals if a tie needed them."""

    key: int
    total: int
    reflex: StepDie
    rolloffs: tuple[int, ...] = ()


#: A roll-off that keeps tying is settled by the key (who was added first) after this many rounds.
MAX_ROLLOFFS: Final = 20


def initiative_order(
    rolls: Sequence[tuple[int, int, StepDie]], explosion: Explosion, rng: Random
) -> tuple[InitiativeEntry, ...]:
    """ "Initiative": highest Reflex roll first; a tie goes to the higher Reflex die, then to a
    roll-off of the tied Reflex dice (again while they still tie). ``rolls`` are (key, total, Reflex)."""
    entries = [InitiativeEntry(key, total, reflex) for key, total, reflex in rolls]
    groups: dict[tuple[int, int], list[InitiativeEntry]] = {}
    for entry in entries:
        groups.setdefault((entry.total, entry.reflex.rung), []).append(entry)
    settled: list[InitiativeEntry] = []
    for tied in groups.values():
        settled.extend(_roll_off(tied, explosion, rng) if len(tied) > 1 else tied)
    return tuple(sorted(settled, key=lambda e: (-e.total, -e.reflex.rung, tuple(-r for r in e.rolloffs), e.key)))


def _roll_off(tied: list[InitiativeEntry], explosion: Explosion, rng: Random) -> list[InitiativeEntry]:
    """Each tied combatant rolls Reflex again until no two of them have the same roll-off totals."""
    for _ in range(MAX_ROLLOFFS):
        tied = [
            InitiativeEntry(e.key, e.total, e.reflex, (*e.rolloffs, roll_pool(Pool(e.reflex), explosion, rng).total))
            for e in tied
        ]
        if len({e.rolloffs for e in tied}) == len(tied):
            break
    return tied


@dataclass(frozen=True, slots=True)
class RollOff:
    """A tie between a newcomer and a combatant already in the order, settled by rolling both Reflex
    dice again (each side's totals, in order, until they differ)."""

    newcomer: int
    standing: int
    newcomer_totals: tuple[int, ...]
    standing_totals: tuple[int, ...]

    @property
    def newcomer_first(self) -> bool:
        return self.newcomer_totals[-1] > self.standing_totals[-1]


def _outranks(newcomer: InitiativeEntry, other: InitiativeEntry) -> bool | None:
    """Whether the newcomer goes before ``other`` by the roll, then the Reflex die; None on a full tie."""
    mine, theirs = (newcomer.total, newcomer.reflex.rung), (other.total, other.reflex.rung)
    return None if mine == theirs else mine > theirs


def _pair_roll_off(newcomer: InitiativeEntry, other: InitiativeEntry, explosion: Explosion, rng: Random) -> RollOff:
    mine: list[int] = []
    theirs: list[int] = []
    for _ in range(MAX_ROLLOFFS):
        mine.append(roll_pool(Pool(newcomer.reflex), explosion, rng).total)
        theirs.append(roll_pool(Pool(other.reflex), explosion, rng).total)
        if mine[-1] != theirs[-1]:
            break
    return RollOff(newcomer.key, other.key, tuple(mine), tuple(theirs))


def join_order(
    standing: Sequence[InitiativeEntry], newcomers: Sequence[InitiativeEntry], explosion: Explosion, rng: Random
) -> tuple[tuple[InitiativeEntry, ...], tuple[RollOff, ...]]:
    """ "Initiative" for combatants who join a fight already under way: the order as it stands stays as
    it is ("the initiative order remains the same for the entire encounter"), and each newcomer takes
    the place its roll earns in it, by the rules of :func:`initiative_order`.

    ``standing`` is the order now, first first (the GM may have moved anyone); ``newcomers`` are the
    newcomers in their own order (settled among themselves by :func:`initiative_order`). Each
    newcomer, in turn, goes just before the first combatant after the previous newcomer that it
    outranks: a higher roll, or an equal roll with a higher Reflex die, or, with the same roll and the
    same Reflex die, a roll-off of the two Reflex dice that the newcomer wins (rolled again while they
    tie; after :data:`MAX_ROLLOFFS` ties the one already in the order stays ahead). A newcomer that
    outranks nobody goes last. Returns the whole new order and the roll-offs made.
    """
    order = list(standing)
    rolloffs: list[RollOff] = []
    start = 0
    for newcomer in newcomers:
        place = len(order)
        for index in range(start, len(order)):
            ahead = _outranks(newcomer, order[index])
            if ahead is None:
                rolloff = _pair_roll_off(newcomer, order[index], explosion, rng)
                rolloffs.append(rolloff)
                ahead = rolloff.newcomer_first
            if ahead:
                place = index
                break
        order.insert(place, newcomer)
        start = place + 1
    return tuple(order), tuple(rolloffs)
