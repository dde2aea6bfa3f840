"""Campaign options as the campaign page shows them: labels, not keys; and log entries that are
rulings rather than dice, in a sentence."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.timesince import timesince

from campaigns.models import Roll, RollKind
from rules import systems


def options_summary(system: str, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Each option of the campaign's rules system as ``{"label", "value"}``; a list value
    (the skills) comes as ``list``. Only the options that matter under the chosen methods."""
    rules = systems.get(system)
    if system != "lucky13":  # a system without a summary of its own lists its options' values
        return [{"label": o.label, "value": options.get(o.key, o.default)} for o in rules.OPTIONS]
    labels = {o.key: dict(o.choices) for o in rules.OPTIONS if o.choices}
    names = dict(zip(rules.ABILITY_KEYS, options["ability_names"], strict=True))
    skill_method = labels["skill_method"][options["skill_method"]]
    if options["skill_method"] == "array":
        skill_method += f": {' '.join(options['skill_array'])}"
    elif options["skill_method"] == "point_buy":
        skill_method += f": a budget of {options['skill_points']} points"
    return [
        {"label": "Play style", "value": labels["explosion"][options["explosion"]]},
        {"label": "Abilities", "value": ", ".join(options["ability_names"])},
        {
            "label": "Skills",
            "value": labels["skill_preset"].get(options["skill_preset"], "Custom"),
            "list": [f"{s['name']} ({names[s['ability']]})" if s["ability"] else s["name"] for s in options["skills"]],
        },
        {"label": "Hit points per Pulse step", "value": options["hit_points_per_step"]},
        {"label": "Ability methods", "value": labels["ability_methods"][options["ability_methods"]]},
        {"label": "Skill method", "value": skill_method},
        {"label": "Starting specializations", "value": options["starting_specializations"]},
    ]


def ago(moment: datetime, now: datetime | None = None) -> str:
    """ "just now", or "3 hours ago": how long since ``moment``, as the campaign list says it."""
    now = now or timezone.now()
    if now - moment < timedelta(minutes=1):
        return "just now"
    return f"{timesince(moment, now)} ago"


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
    if roll.kind == RollKind.DAMAGE:
        return f"{spec['target']} takes {roll.total}: {outcome['before']} → {_hp(outcome['after'])}."
    if roll.kind == RollKind.ADJUSTMENT and spec.get("amount") == 0:
        return f"{spec['combatant']} is {spec['reason']}."
    if roll.kind == RollKind.ADJUSTMENT:
        return f"{spec['combatant']}, {spec['reason']}: {outcome['before']} → {_hp(outcome['after'])}."
    if roll.kind == RollKind.REMOVAL:
        reason = f" ({spec['reason']})" if spec.get("reason") else ""
        return f"The GM took {spec['combatant']} out of the fight{reason}, at {_hp(outcome['hit_points'])}."
    return None
