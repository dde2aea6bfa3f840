"""The JSON a Lucky 13 roll keeps in the roll log: every die as rolled, the totals, the outcome."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Final

from rules.dice import DieResult, die_view
from rules.systems.lucky13.checks import (
    CHECK_FIELDS,
    OPPOSED_FIELDS,
    CheckRoll,
    OpposedRoll,
    Pool,
    PoolRoll,
    check_chance,
    check_chance_json,
    describe_check,
    describe_opposed,
    opposed_chance,
    opposed_chance_json,
    parse_check,
    parse_opposed,
    roll_check,
    roll_opposed,
)
from rules.systems.protocol.kinds import Recorded, RollKind


def _dice_view(label: str, dice: Sequence[DieResult]) -> dict[str, Any]:
    return {"label": label, "dice": [die_view(d) for d in dice], "total": sum(d.value for d in dice)}


def pool_view(pool: Pool, roll: PoolRoll, names: Sequence[str]) -> dict[str, Any]:
    """``names`` label the Ability die and then each other die of the pool."""
    ability_rolls = [
        {**_dice_view(pool.ability.label, dice), "kept": i == roll.kept} for i, dice in enumerate(roll.ability_rolls)
    ]
    # A side may have fewer dice than names (a contest has no weapon die) or more (the calculator's pools).
    labels = [*names[1:], *(f"Die {i}" for i in range(len(names), len(pool.others) + 1))][: len(pool.others)]
    others = [
        {**_dice_view(step_die.label, dice), "name": name}
        for step_die, dice, name in zip(pool.others, roll.others, labels, strict=True)
    ]
    return {
        "ability_name": names[0],
        "ability_rolls": ability_rolls,
        "two_ability_rolls": len(ability_rolls) == 2,
        "ability_roll": pool.ability_roll.value,
        "others": others,
        "total": roll.total,
        "dilemma": roll.dilemma,
    }


def check_roll_view(roll: CheckRoll) -> dict[str, Any]:
    check = roll.check
    return {
        "kind": "check",
        "dice": f"{check.ability} + {check.skill} + {check.difficulty}",
        "explosion": check.explosion.value,
        "pool": pool_view(check.pool, roll.dice, ("Ability", "Skill", "Difficulty")),
        "total": roll.total,
        "success": roll.success,
        "margin": roll.margin,
        "dilemma": roll.dilemma,
    }


def opposed_roll_view(roll: OpposedRoll) -> dict[str, Any]:
    opposed = roll.opposed
    names = ("Ability", "Skill", "Accuracy")
    return {
        "kind": "opposed",
        "explosion": opposed.explosion.value,
        "attacker": pool_view(opposed.attacker, roll.attacker, names),
        "defender": pool_view(opposed.defender, roll.defender, ("Ability", "Skill", "Defense")),
        "hit": roll.hit,
        "margin": roll.margin,
        "draw": opposed.draw.value,
        "winner": roll.winner,
        "dilemma": roll.attacker.dilemma or roll.defender.dilemma,
        "damage_dice": _dice_view(opposed.weapon.label, roll.damage_dice) if roll.hit else None,
        "damage": roll.damage,
    }


def check_recorded(rolled: CheckRoll) -> Recorded:
    """ "Skill checks": every die, the total, success at 13 or more, the margin and any dilemma."""
    outcome = {"success": rolled.success, "margin": rolled.margin, "dilemma": rolled.dilemma}
    return Recorded(check_roll_view(rolled), rolled.total, outcome)


def opposed_recorded(rolled: OpposedRoll) -> Recorded:
    """ "Combat", "Opposed rolls": both sides' dice, the attacker's total, whether it hit (a higher
    total), the margin and the damage; who prevails (``winner``: "attacker", "defender", or "" for a
    draw that goes to neither side); and each side's dilemma, called whichever side wins ("Dilemmas")."""
    outcome = {"hit": rolled.hit, "margin": rolled.margin, "damage": rolled.damage,
               "defender_total": rolled.defender.total, "winner": rolled.winner,
               "dilemma": rolled.attacker.dilemma or rolled.defender.dilemma,
               "attacker_dilemma": rolled.attacker.dilemma, "defender_dilemma": rolled.defender.dilemma}  # fmt: skip
    return Recorded(opposed_roll_view(rolled), rolled.attacker.total, outcome)


ROLL_KINDS: Final[Mapping[str, RollKind[Any, Any, Any]]] = {
    "check": RollKind(
        key="check",
        label="Skill check",
        fields=CHECK_FIELDS,
        parse=parse_check,
        roll=roll_check,
        chance=check_chance,
        record=check_recorded,
        success=lambda chance: chance.p_success,
        chance_json=check_chance_json,
        describe=describe_check,
    ),
    "opposed": RollKind(
        key="opposed",
        label="Opposed roll",
        fields=OPPOSED_FIELDS,
        parse=parse_opposed,
        roll=roll_opposed,
        chance=opposed_chance,
        record=opposed_recorded,
        success=lambda chance: chance.p_attacker_prevails,
        chance_json=opposed_chance_json,
        describe=describe_opposed,
    ),
}
