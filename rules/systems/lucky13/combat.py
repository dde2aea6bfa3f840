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
