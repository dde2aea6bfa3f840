"""Properties every check chance must have, over random dice, difficulties and play styles."""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from rules.dice import BASE_SIZES, StepDie
from rules.systems.lucky13 import AbilityRoll, Check, Explosion, check_chance, check_distribution
from tests.systems.lucky13.reference import PROPERTY

dice = st.integers(0, 13).map(StepDie)
difficulties = st.integers(0, 5).map(StepDie)
explosions = st.sampled_from(list(Explosion))
ability_rolls = st.sampled_from(list(AbilityRoll))


@PROPERTY
@given(ability=dice, skill=dice, difficulty=difficulties, how=ability_rolls, explosion=explosions)
def test_distributions_sum_to_one(
    ability: StepDie, skill: StepDie, difficulty: StepDie, how: AbilityRoll, explosion: Explosion
) -> None:
    dist = check_distribution(Check(ability, skill, difficulty, how, explosion))

    assert sum(p for _, p in dist.totals) == 1
    assert all(p >= 0 for _, p in dist.totals)
    values = [v for v, _ in dist.totals]
    assert values == sorted(set(values))


@PROPERTY
@given(ability=dice, skill=dice, difficulty=difficulties, how=ability_rolls, explosion=explosions)
def test_distribution_agrees_with_the_chance_of_success(
    ability: StepDie, skill: StepDie, difficulty: StepDie, how: AbilityRoll, explosion: Explosion
) -> None:
    check = Check(ability, skill, difficulty, how, explosion)
    dist = check_distribution(check)

    # The open last bar lies past 13 (it is at least 26), so P(total ≥ 13) is a plain sum.
    assert sum(p for v, p in dist.totals if v >= 13) == check_chance(check).p_success


@PROPERTY
@given(ability=dice, skill=dice, difficulty=difficulties, explosion=explosions)
def test_a_background_never_lowers_and_an_impairment_never_raises_success(
    ability: StepDie, skill: StepDie, difficulty: StepDie, explosion: Explosion
) -> None:
    normal = check_chance(Check(ability, skill, difficulty, AbilityRoll.NORMAL, explosion))
    background = check_chance(Check(ability, skill, difficulty, AbilityRoll.BACKGROUND, explosion))
    impairment = check_chance(Check(ability, skill, difficulty, AbilityRoll.IMPAIRMENT, explosion))

    assert impairment.p_success <= normal.p_success <= background.p_success
    # Only the kept roll's 1s count. A roll with a 1 is never likelier to be the higher of two
    # (each die with a 1 first shows its lowest), so a background keeps one at most as often as
    # a single roll shows one, and an impairment at least as often.
    assert background.p_dilemma <= normal.p_dilemma <= impairment.p_dilemma


@PROPERTY
@given(ability=dice, skill=dice, difficulty=difficulties, explosion=explosions)
def test_of_two_rolls_with_one_dilemma_the_background_or_the_impairment_keeps_it(
    ability: StepDie, skill: StepDie, difficulty: StepDie, explosion: Explosion
) -> None:
    # Whatever the totals, of two Ability rolls exactly one with a 1, exactly one of a background
    # and an impairment keeps that one; with two, both do. So the two keep a roll with a 1 as
    # often, together, as two single rolls show one: P_b + P_i = 2·P_n, and with the other dice'
    # chance c of no dilemma, P(no dilemma) = (1 − P)·c for each.
    normal, background, impairment = (
        check_chance(Check(ability, skill, difficulty, how, explosion)).p_dilemma for how in AbilityRoll
    )
    assert (1 - background) + (1 - impairment) == 2 * (1 - normal)


@PROPERTY
@given(ability=dice, skill=dice, difficulty=difficulties, how=ability_rolls, explosion=explosions)
def test_success_with_a_dilemma_is_at_most_either(
    ability: StepDie, skill: StepDie, difficulty: StepDie, how: AbilityRoll, explosion: Explosion
) -> None:
    chance = check_chance(Check(ability, skill, difficulty, how, explosion))

    assert 0 <= chance.p_success_with_dilemma <= min(chance.p_success, chance.p_dilemma)
    assert chance.p_success <= 1
    assert chance.p_dilemma <= 1
    # P(success or dilemma) is a probability too.
    assert chance.p_success + chance.p_dilemma - chance.p_success_with_dilemma <= 1


@PROPERTY
@given(ability=dice, skill=dice, difficulty=difficulties, how=ability_rolls)
def test_explosions_never_lower_the_chance_of_success(
    ability: StepDie, skill: StepDie, difficulty: StepDie, how: AbilityRoll
) -> None:
    # A player may always keep an explosion: it never lowers a total (rules README, "Cinematic").
    none, gritty, cinematic = (
        check_chance(Check(ability, skill, difficulty, how, e)).p_success
        for e in (Explosion.NONE, Explosion.GRITTY, Explosion.CINEMATIC)
    )
    assert none <= gritty <= cinematic


def no_one_first(step_dice: Iterable[StepDie]) -> Fraction:
    """P(no die of these shows a 1 first), every die rolled once."""
    out = Fraction(1)
    for sides in (s for step_die in step_dice for s in step_die.sides):
        out *= Fraction(sides - 1, sides)
    return out


@PROPERTY
@given(ability=dice, skill=dice, difficulty=difficulties, explosion=explosions)
def test_without_a_second_roll_the_dilemma_depends_only_on_the_dice_rolled(
    ability: StepDie, skill: StepDie, difficulty: StepDie, explosion: Explosion
) -> None:
    chance = check_chance(Check(ability, skill, difficulty, AbilityRoll.NORMAL, explosion))

    assert chance.p_dilemma == 1 - no_one_first([ability, skill, difficulty])


@PROPERTY
@given(sides=st.sampled_from(BASE_SIZES), skill=dice, difficulty=difficulties, how=ability_rolls, explosion=explosions)
def test_a_single_ability_die_with_a_1_is_kept_as_the_rule_says(
    sides: int, skill: StepDie, difficulty: StepDie, how: AbilityRoll, explosion: Explosion
) -> None:
    # One die with a 1 first totals 1, the lowest total: a background keeps it only when both
    # rolls show it, an impairment whenever either does (a tie at 1 has a 1 either way).
    clean = Fraction(sides - 1, sides)
    kept_one = {
        AbilityRoll.NORMAL: 1 - clean,
        AbilityRoll.BACKGROUND: (1 - clean) ** 2,
        AbilityRoll.IMPAIRMENT: 1 - clean**2,
    }[how]
    chance = check_chance(Check(StepDie.of(sides), skill, difficulty, how, explosion))

    assert chance.p_dilemma == 1 - (1 - kept_one) * no_one_first([skill, difficulty])
