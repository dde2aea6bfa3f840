"""Combat maths: the two sides of an attack with their modifiers, initiative order and its
tie-breaks, hit points and the Pulse stepping with them, the dying tick and the death threshold
(Lucky 13, "Combat", "Modifiers", "Initiative", "Hit points", "Death & dying")."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from rules.dice import StepDie
from rules.systems.lucky13 import (
    AbilityRoll,
    Condition,
    Explosion,
    Modifiers,
    Opposed,
    Pool,
    SheetError,
    change_hit_points,
    combat_pool,
    condition,
    initiative_order,
    minute_passes,
    opposed_chance,
)
from tests.systems.lucky13.reference import LADDER, RUNGS, brute_opposed, cinematic_opposed

D = StepDie.parse


def stepped(label: str, steps: int) -> str:
    """The reference's own ladder, written out by hand: ``label`` stepped up ``steps`` times."""
    return list(LADDER)[RUNGS[label] + steps]


def test_a_combat_specialization_steps_the_combat_die_only():
    # The rule text's Brunella (Reflex d8, Combat d6, broadsword d8) with Broadsword 2.
    pool = combat_pool(D("d8"), D("d6"), D("d8"), Modifiers(specialization_level=2))
    assert pool == Pool(D("d8"), (D("d10"), D("d8")))
    assert combat_pool(D("d10"), D("d12"), D("none"), Modifiers(specialization_level=1)).others == (
        D("d12+d4"),
        D("none"),
    )
    assert combat_pool(D("d8"), D("d6"), D("d8")) == Pool(D("d8"), (D("d6"), D("d8")))


def test_a_background_or_an_impairment_rolls_reflex_twice():
    assert (
        combat_pool(D("d8"), D("d6"), D("d8"), ability_roll=AbilityRoll.BACKGROUND).ability_roll
        is AbilityRoll.BACKGROUND
    )
    # Given as text, it is still the enum the chances compare by identity.
    assert combat_pool(D("d6"), D("d10"), D("d6"), ability_roll="impairment").ability_roll is AbilityRoll.IMPAIRMENT


@pytest.mark.parametrize(
    ("modifiers", "field"),
    [
        (Modifiers(specialization_level=6), "specialization level"),
        (Modifiers(reputation=2), "reputation"),
        (Modifiers(skill_steps=99), "skill_steps"),
    ],
)
def test_combat_modifiers_out_of_bounds_are_refused(modifiers, field):
    with pytest.raises(SheetError) as refused:
        combat_pool(D("d8"), D("d6"), D("d8"), modifiers)
    assert refused.value.field == field
    with pytest.raises(SheetError) as refused:
        combat_pool(D("d8"), D("d6"), D("d8"), ability_roll="twice")
    assert refused.value.field == "ability_roll"


#: Attacker (Reflex, Combat, Accuracy, specialization level, roll) against defender (Reflex, Combat,
#: Defensive die, specialization level, roll), and the weapon's damage die.
ATTACKS = [
    (("d8", "d6", "d8", 1, "normal"), ("d6", "d10", "d6", 0, "normal"), "d10"),  # the rule text's example
    (("d8", "d6", "d8", 2, "background"), ("d6", "d10", "d6", 0, "normal"), "d10"),
    (("d6", "d4", "d6", 0, "impairment"), ("d8", "d6", "none", 2, "background"), "d8"),
    (("d10", "d12", "d4", 1, "normal"), ("d4", "d8", "d12", 1, "impairment"), "d6"),
    (("d4", "d6", "d4", 3, "background"), ("d12", "d4", "d4", 0, "impairment"), "d4"),
]


@pytest.mark.parametrize("explosion", ["none", "gritty"])
@pytest.mark.parametrize(("attacker", "defender", "weapon"), ATTACKS)
def test_an_attack_with_its_modifiers_equals_enumeration(attacker, defender, weapon, explosion):
    def side(dice: tuple[str, str, str, int, str]) -> tuple[Pool, list[str]]:
        reflex, combat, third, level, how = dice
        pool = combat_pool(
            D(reflex), D(combat), D(third), Modifiers(specialization_level=level), ability_roll=AbilityRoll(how)
        )
        return pool, [reflex, stepped(combat, level), third]

    (attacking, attacker_dice), (defending, defender_dice) = side(attacker), side(defender)
    chance = opposed_chance(Opposed(attacking, defending, D(weapon), Explosion(explosion)))
    expected = brute_opposed(attacker_dice, defender_dice, weapon, explosion, attacker[4], defender[4])

    assert chance.exact
    assert chance.p_attacker_wins == expected["win"]
    assert chance.p_draw == expected["draw"]
    assert chance.p_defender_wins == expected["lose"]
    assert dict(chance.damage_given_hit) == expected["damage"]
    assert chance.expected_damage_given_hit == expected["expected"]


def test_a_cinematic_attack_with_its_modifiers_is_within_1e_12():
    attacking = combat_pool(D("d8"), D("d6"), D("d8"), Modifiers(specialization_level=2), ability_roll="background")
    defending = combat_pool(D("d6"), D("d10"), D("d6"), ability_roll=AbilityRoll.IMPAIRMENT)
    chance = opposed_chance(Opposed(attacking, defending, D("d10"), Explosion.CINEMATIC))
    expected = cinematic_opposed(["d8", "d10", "d8"], ["d6", "d10", "d6"], "d10", "background", "impairment")
    assert abs(chance.p_attacker_wins - Fraction(expected["win"])) < 1e-12
    assert abs(chance.p_draw - Fraction(expected["draw"])) < 1e-12


def test_a_specialization_and_a_background_raise_the_chance_to_hit():
    def p_hit(level: int, how: AbilityRoll) -> Fraction:
        attacking = combat_pool(D("d8"), D("d6"), D("d8"), Modifiers(specialization_level=level), ability_roll=how)
        defending = combat_pool(D("d6"), D("d10"), D("d6"))
        return opposed_chance(Opposed(attacking, defending, D("d10"), Explosion.NONE)).p_attacker_wins

    plain = p_hit(0, AbilityRoll.NORMAL)
    assert p_hit(0, AbilityRoll.IMPAIRMENT) < plain < p_hit(1, AbilityRoll.NORMAL) < p_hit(2, AbilityRoll.NORMAL)
    assert plain < p_hit(0, AbilityRoll.BACKGROUND) < p_hit(2, AbilityRoll.BACKGROUND)


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
