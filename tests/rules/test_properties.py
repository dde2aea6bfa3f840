"""Properties every check chance must have, over random dice, difficulties and play styles."""

from __future__ import annotations

from fractions import Fraction

from hypothesis import given
from hypothesis import strategies as st

from rules.dice import StepDie
from rules.systems.lucky13 import AbilityRoll, Check, Explosion, check_chance, check_distribution
from tests.rules.reference import PROPERTY

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
    # Two Ability rolls are two chances for a 1: the dilemma is never less likely.
    assert background.p_dilemma == impairment.p_dilemma >= normal.p_dilemma


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


@PROPERTY
@given(ability=dice, skill=dice, difficulty=difficulties, how=ability_rolls, explosion=explosions)
def test_the_dilemma_depends_only_on_how_many_dice_are_rolled(
    ability: StepDie, skill: StepDie, difficulty: StepDie, how: AbilityRoll, explosion: Explosion
) -> None:
    rolls = 1 if how is AbilityRoll.NORMAL else 2
    no_one = Fraction(1)
    for sides in ability.sides * rolls + skill.sides + difficulty.sides:
        no_one *= Fraction(sides - 1, sides)

    assert check_chance(Check(ability, skill, difficulty, how, explosion)).p_dilemma == 1 - no_one
