"""Hit points, the current Pulse die, dying and death ("Hit points", "Death & dying")."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum
from typing import Final

from rules.dice import BASE_SIZES, StepDie
from rules.systems.base import SpecError


def max_hit_points(pulse: StepDie, per_step: int = 10) -> int:
    """ "Hit points": each Pulse step holds ``per_step`` hit points (d4 10 … d12 50)."""
    return pulse.rung * per_step


def current_pulse(hit_points: int, per_step: int = 10) -> StepDie:
    """The Pulse die the remaining hit points reach (d8 Pulse: 21–30 d8, 11–20 d6, 1–10 d4)."""
    if hit_points <= 0:
        return StepDie.none()
    return StepDie(min(-(-hit_points // per_step), len(BASE_SIZES)))


def recount(hit_points: int, base_pulse: StepDie, counted_at: int, per_step: int) -> int:
    """Hit points counted at ``counted_at`` a Pulse step, counted again at ``per_step`` (a character that
    joins a campaign of another rate). "Hit points": the maximum is the Pulse steps times the hit points
    per step, so it becomes ``rung × per_step``; our reading keeps the wounds as taken (a character 3
    short of full stays 3 short). Two bounds keep the move itself from hurting anyone: a character who is
    up stays up (at least 1 hit point, however much was taken), and one at 0 or below keeps the hit
    points they have ("Death & dying" counts below 0 by the base Pulse's size, the same at any rate)."""
    if hit_points <= 0:
        return hit_points
    taken = max(max_hit_points(base_pulse, counted_at) - hit_points, 0)
    return max(max_hit_points(base_pulse, per_step) - taken, 1)


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


#: "Healing", quoted for reference from Top Secret NWO: "a rate of 1 hp every 15 minutes".
REST_MINUTES_PER_POINT: Final = 15
#: … "a maximum of 4 hp from resting alone".
MAX_REST_HEALING: Final = 4
#: A rest is asked for in whole minutes: at least one period, at most a day (which the cap reaches long before).
MIN_REST_MINUTES: Final = REST_MINUTES_PER_POINT
MAX_REST_MINUTES: Final = 24 * 60


class RestRefused(SpecError):
    """A rest that heals nothing, and why (``field``: ``minutes`` or ``hit_points``), in a player's words."""


@dataclass(frozen=True, slots=True)
class Rested:
    """A rest: the hit points before and after, what it healed, and the hit points healed by resting
    since the character was last at full, counting this rest (0 once back at full)."""

    before: int
    after: int
    healed: int
    rested: int


def rest(hit_points: int, rested_so_far: int, minutes: int, base_pulse: StepDie, per_step: int = 10) -> Rested:
    """ "Healing" (the optional Top Secret NWO rule the text quotes for reference): resting heals
    1 hit point for every whole 15 minutes, and no more than 4 hit points from resting alone;
    "additional healing requires either first aid or more involved medical treatment".

    Our reading: the 4 count from the last time the character was at full hit points
    (``rested_so_far`` is what rests have healed since; new damage does not reset it, being back at
    full does, so a rest that fills the last slot leaves 0). Minutes left over from a period are
    lost. A dying character needs first aid to stabilize ("Death & dying") and a dead one is
    dead: neither heals by resting. :class:`RestRefused` says why a rest heals nothing."""
    if isinstance(minutes, bool) or not isinstance(minutes, int) or not MIN_REST_MINUTES <= minutes <= MAX_REST_MINUTES:
        raise RestRefused(
            "minutes", f"rest for a whole number of minutes from {MIN_REST_MINUTES} to {MAX_REST_MINUTES}"
        )
    state = condition(hit_points, base_pulse)
    if state is Condition.DEAD:
        raise RestRefused("hit_points", "the character is dead: resting heals nothing")
    if state is Condition.DYING:
        raise RestRefused(
            "hit_points", "the character is dying: resting heals nothing until first aid or treatment brings them up"
        )
    full = max_hit_points(base_pulse, per_step)
    if hit_points >= full:
        raise RestRefused("hit_points", "the character is at full hit points: there is nothing to heal")
    room = MAX_REST_HEALING - rested_so_far
    if room <= 0:
        raise RestRefused(
            "hit_points",
            f"resting alone has healed its {MAX_REST_HEALING} hit points since the character was last at full: "
            "more needs first aid or treatment",
        )
    healed = min(minutes // REST_MINUTES_PER_POINT, room, full - hit_points)
    after = hit_points + healed
    return Rested(hit_points, after, healed, 0 if after >= full else rested_so_far + healed)
