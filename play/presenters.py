"""Log entries that are rulings rather than dice, in a sentence."""

from __future__ import annotations

from play.models import Roll, RollKind


def _hp(n: int) -> str:
    return f"{n} hit point{'' if abs(n) == 1 else 's'}"


def roll_summary(roll: Roll) -> str | None:
    """A sentence for an encounter's entry in the log, saying who and what the dice do not (whose
    initiative, who attacked whom, who took the damage), or recording a GM's ruling (the initiative
    order changed, a change of hit points, a combatant left the fight); None for every other roll,
    whose dice say it all."""
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
        return f"{spec['target']} takes {roll.total}: {outcome['before']} → {_hp(outcome['after'])}."
    if roll.kind == RollKind.ADJUSTMENT and spec.get("amount") == 0:
        return f"{spec['combatant']} is {spec['reason']}."
    if roll.kind == RollKind.ADJUSTMENT and "was" in outcome:
        return f"{spec['combatant']}, {spec['reason']}: {outcome['was']} → {outcome['condition']}."
    if roll.kind == RollKind.ADJUSTMENT:
        return f"{spec['combatant']}, {spec['reason']}: {outcome['before']} → {_hp(outcome['after'])}."
    if roll.kind == RollKind.REMOVAL:
        reason = f" ({spec['reason']})" if spec.get("reason") else ""
        return f"The GM took {spec['combatant']} out of the fight{reason}, at {_hp(outcome['hit_points'])}."
    return None
