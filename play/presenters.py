"""Log entries that are rulings rather than dice, in a sentence."""

from __future__ import annotations

from typing import Any

from play.models import Roll, RollKind
from play.rolls import system_of
from rules import systems
from rules.systems.base import Combat, SpecError


def _combat(roll: Roll) -> Combat | None:
    """The fights of the roll's system, whose words the log says a change of vitals in; None for a
    system no longer known here."""
    try:
        return systems.get(system_of(roll)).combat
    except SpecError:
        return None


def _amount(combat: Combat | None, amount: Any) -> str:
    return combat.amount_words(amount) if combat else str(amount)


def _left(combat: Combat | None, outcome: dict[str, Any]) -> str:
    left = combat.left_words(outcome) if combat else str(outcome.get("condition", ""))
    return f", {left}" if left else ""


def roll_summary(roll: Roll) -> str | None:
    """A sentence for an encounter's entry in the log, saying who and what the dice do not (whose
    initiative, who attacked whom, who took the damage), or recording a GM's ruling (the initiative
    order changed, a change of vitals, a combatant left the fight); None for every other roll,
    whose dice say it all. Vitals are said in the words of the roll's system."""
    spec, outcome = roll.spec, roll.outcome
    if not isinstance(spec, dict) or "encounter" not in spec:
        return None
    if roll.kind == RollKind.INITIATIVE and spec.get("reorder"):
        tie = f" (both rolled {outcome['initiative']}: a tie settled by the GM)" if outcome.get("tie") else ""
        return (
            f"The GM moved {spec['combatant']} {spec['direction']} the initiative order, past {outcome['passed']}, "
            f"to place {outcome['place']}{tie}."
        )
    if roll.kind == RollKind.INITIATIVE and spec.get("roll_off"):
        return f"A roll-off settles a tie: {', '.join(spec['for'])} takes place {outcome['place']}."
    if roll.kind == RollKind.INITIATIVE:
        return f"Initiative for {', '.join(spec['for'])}."
    if roll.kind == RollKind.ATTACK:
        weapon = f" with the {spec['weapon']}" if spec.get("weapon") else ""
        return f"{spec['attacker']} attacks {spec['target']}{weapon}."
    if roll.kind == RollKind.DAMAGE and "was" in outcome:  # a system of conditions, not of points
        return f"{spec['target']} is hit: {outcome['was']} → {outcome['condition']}."
    if roll.kind == RollKind.DAMAGE:
        after = _amount(_combat(roll), outcome["after"])
        return f"{spec['target']} takes {roll.total}: {outcome['before']} → {after}."
    if roll.kind == RollKind.ADJUSTMENT and spec.get("amount") == 0:
        return f"{spec['combatant']} is {spec['reason']}."
    if roll.kind == RollKind.ADJUSTMENT and "was" in outcome:
        return f"{spec['combatant']}, {spec['reason']}: {outcome['was']} → {outcome['condition']}."
    if roll.kind == RollKind.ADJUSTMENT:
        after = _amount(_combat(roll), outcome["after"])
        return f"{spec['combatant']}, {spec['reason']}: {outcome['before']} → {after}."
    if roll.kind == RollKind.REMOVAL:
        reason = f" ({spec['reason']})" if spec.get("reason") else ""
        return f"The GM took {spec['combatant']} out of the fight{reason}{_left(_combat(roll), outcome)}."
    return None
