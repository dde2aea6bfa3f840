"""Hit points, the current Pulse die, dying and death ("Hit points", "Death & dying")."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from rules.dice import BASE_SIZES, StepDie


def max_hit_points(pulse: StepDie, per_step: int = 10) -> int:
    """ "Hit points": each Pulse step holds ``per_step`` hit points (d4 10 … d12 50)."""
    return pulse.rung * per_step


def current_pulse(hit_points: int, per_step: int = 10) -> StepDie:
    """The Pulse die the remaining hit points reach (d8 Pulse: 21–30 d8, 11–20 d6, 1–10 d4)."""
    if hit_points <= 0:
        return StepDie.none()
    return StepDie(min(-(-hit_points // per_step), len(BASE_SIZES)))


def death_threshold(base_pulse: StepDie) -> int:
    """ "Death & dying": death at minus the base Pulse die's size (d8: −8)."""
    return -base_pulse.sides[0]


class Condition(StrEnum):
    """ "Death & dying": up above 0 hit points, dying at 0 or less, dead at minus the base Pulse size."""

    UP = "up"
    DYING = "dying"
    DEAD = "dead"


def condition(hit_points: int, base_pulse: StepDie) -> Condition:
    if hit_points <= death_threshold(base_pulse):
        return Condition.DEAD
    return Condition.DYING if hit_points <= 0 else Condition.UP


@dataclass(frozen=True, slots=True)
class HitPointChange:
    before: int
    after: int
    pulse_before: StepDie
    pulse_after: StepDie
    condition: Condition


def change_hit_points(hit_points: int, amount: int, base_pulse: StepDie, per_step: int = 10) -> HitPointChange:
    """ "Hit points": damage (negative ``amount``) empties slots and the current Pulse steps down;
    healing fills them and it steps back up, never above the base Pulse's maximum; the total
    never goes below the death threshold (dead is dead; the GM heals from there)."""
    low, high = death_threshold(base_pulse), max_hit_points(base_pulse, per_step)
    if amount >= 0:
        after = max(hit_points, min(hit_points + amount, high))
    else:
        after = min(hit_points, max(hit_points + amount, low))
    return HitPointChange(
        hit_points,
        after,
        current_pulse(hit_points, per_step),
        current_pulse(after, per_step),
        condition(after, base_pulse),
    )


def minute_passes(hit_points: int, base_pulse: StepDie, *, stabilized: bool) -> int:
    """ "Death & dying": a dying character who is not stabilized loses one hit point per minute."""
    if stabilized or condition(hit_points, base_pulse) is not Condition.DYING:
        return hit_points
    return hit_points - 1
