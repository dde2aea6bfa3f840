"""Combat maths: initiative order and its tie-breaks, hit points and the Pulse stepping with them,
the dying tick and the death threshold (Lucky 13, "Initiative", "Hit points", "Death & dying")."""

from __future__ import annotations

import random

import pytest

from rules.dice import StepDie
from rules.systems.lucky13 import (
    Condition,
    Explosion,
    change_hit_points,
    condition,
    initiative_order,
    minute_passes,
)

D = StepDie.parse


def test_initiative_highest_roll_goes_first():
    order = initiative_order([(1, 5, D("d6")), (2, 11, D("d8")), (3, 7, D("d4"))], Explosion.NONE, random.Random(1))
    assert [e.key for e in order] == [2, 3, 1]
    assert all(e.rolloffs == () for e in order)


def test_a_tie_goes_to_the_higher_reflex_without_a_roll_off():
    order = initiative_order([(1, 6, D("d6")), (2, 6, D("d10"))], Explosion.NONE, random.Random(1))
    assert [e.key for e in order] == [2, 1]
    assert all(e.rolloffs == () for e in order)


@pytest.mark.parametrize("seed", range(30))
def test_a_tie_with_equal_reflex_is_settled_by_a_roll_off(seed):
    order = initiative_order(
        [(1, 4, D("d6")), (2, 4, D("d6")), (3, 9, D("d4"))], Explosion.CINEMATIC, random.Random(seed)
    )
    assert order[0].key == 3
    assert order[0].rolloffs == ()
    first, second = order[1], order[2]
    assert {first.key, second.key} == {1, 2}
    assert len(first.rolloffs) == len(second.rolloffs) >= 1
    # Every round of the roll-off but the last tied; the last decided, higher first.
    assert first.rolloffs[:-1] == second.rolloffs[:-1]
    assert first.rolloffs[-1] > second.rolloffs[-1]


def test_a_roll_off_is_repeatable_with_the_same_seed():
    rolls = [(1, 4, D("d6")), (2, 4, D("d6")), (3, 4, D("d6"))]
    assert initiative_order(rolls, Explosion.NONE, random.Random(7)) == initiative_order(
        rolls, Explosion.NONE, random.Random(7)
    )


def test_damage_steps_the_pulse_down_as_slots_empty():
    # The rule text's example: Casimir, d8 Pulse, 30 hp, takes 10 and is at 20 with a d6 Pulse.
    change = change_hit_points(30, -10, D("d8"))
    assert (change.before, change.after) == (30, 20)
    assert (change.pulse_before, change.pulse_after) == (D("d8"), D("d6"))
    assert change.condition is Condition.UP
    assert change_hit_points(21, -1, D("d8")).pulse_after == D("d6")
    assert change_hit_points(11, -1, D("d8")).pulse_after == D("d4")


def test_healing_steps_the_pulse_back_up_and_stops_at_the_maximum():
    change = change_hit_points(5, 100, D("d8"))
    assert change.after == 30
    assert change.pulse_after == D("d8")
    assert change_hit_points(10, 1, D("d8")).pulse_after == D("d6")


def test_a_custom_number_of_hit_points_per_step():
    change = change_hit_points(10, -6, D("d6"), per_step=5)
    assert change.after == 4
    assert change.pulse_after == D("d4")
    assert change_hit_points(10, -4, D("d6"), per_step=5).pulse_after == D("d6")
    assert change_hit_points(1, 99, D("d6"), per_step=5).after == 10


def test_zero_is_dying_and_minus_the_base_pulse_size_is_dead():
    assert change_hit_points(4, -4, D("d8")).condition is Condition.DYING
    assert change_hit_points(4, -4, D("d8")).pulse_after == StepDie.none()
    assert change_hit_points(4, -11, D("d8")).condition is Condition.DYING  # -7
    dead = change_hit_points(4, -12, D("d8"))
    assert (dead.after, dead.condition) == (-8, Condition.DEAD)
    # Never below the threshold: dead is dead.
    assert change_hit_points(4, -100, D("d12")).after == -12


@pytest.mark.parametrize(("pulse", "dead_at"), [("d4", -4), ("d6", -6), ("d8", -8), ("d10", -10), ("d12", -12)])
def test_death_threshold_follows_the_base_pulse(pulse, dead_at):
    assert condition(dead_at, D(pulse)) is Condition.DEAD
    assert condition(dead_at + 1, D(pulse)) is Condition.DYING
    assert condition(0, D(pulse)) is Condition.DYING
    assert condition(1, D(pulse)) is Condition.UP


def test_a_minute_passing_costs_a_dying_unstabilized_character_one_hit_point():
    assert minute_passes(0, D("d6"), stabilized=False) == -1
    assert minute_passes(-3, D("d6"), stabilized=False) == -4
    assert minute_passes(0, D("d6"), stabilized=True) == 0
    assert minute_passes(5, D("d6"), stabilized=False) == 5  # not dying
    assert minute_passes(-6, D("d6"), stabilized=False) == -6  # dead


def test_bleeding_out_takes_base_pulse_size_minutes_from_zero():
    hp, minutes = 0, 0
    while condition(hp, D("d4")) is Condition.DYING:
        hp, minutes = minute_passes(hp, D("d4"), stabilized=False), minutes + 1
    assert (hp, minutes) == (-4, 4)
