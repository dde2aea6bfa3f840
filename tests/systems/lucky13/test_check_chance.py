"""Exact check chances against independent computations (rules README, "Exact odds").

Without explosions every face of every die is enumerated; with them, a
recursion over the dice still to roll, its total held at 13, gives the same
three chances exactly.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.dice import StepDie
from rules.systems.base import SpecError
from rules.systems.lucky13 import (
    AbilityRoll,
    Check,
    Difficulty,
    Explosion,
    check_chance,
    check_chance_json,
    check_distribution,
)
from tests.systems.lucky13.reference import (
    DIFFICULTIES,
    EXPLOSIONS,
    LADDER,
    ROLLS,
    brute_check,
    capped_check_totals,
    exploding_check,
    side_totals,
)

#: A difficulty name as the die label the brute force reads.
DIFFICULTY_LABELS = {
    "easy": "d12",
    "moderate": "d10",
    "difficult": "d8",
    "challenging": "d6",
    "extraordinary": "d4",
    "heroic": "none",
}


def make_check(ability: str, skill: str, difficulty: str, how: str = "normal", explosion: str = "none") -> Check:
    return Check(
        ability=StepDie.parse(ability),
        skill=StepDie.parse(skill),
        difficulty=Difficulty(difficulty).die,
        ability_roll=AbilityRoll(how),
        explosion=Explosion(explosion),
    )


def chances(check: Check) -> tuple[Fraction, Fraction, Fraction]:
    chance = check_chance(check)
    return chance.p_success, chance.p_dilemma, chance.p_success_with_dilemma


def test_readme_example_check() -> None:
    chance = check_chance(make_check("d10", "d12", "challenging"))

    assert chance.p_success == Fraction(13, 18)
    assert chance.p_dilemma == Fraction(5, 16)


@pytest.mark.parametrize("skill", list(LADDER))
@pytest.mark.parametrize("ability", list(LADDER))
def test_every_non_exploding_check_equals_enumeration(ability: str, skill: str) -> None:
    """All Ability × Skill on the ladder × every difficulty × normal/background/impairment."""
    for difficulty in DIFFICULTIES:
        for how in ROLLS:
            expected = brute_check(ability, skill, difficulty, how)
            assert chances(make_check(ability, skill, difficulty, how)) == expected, (difficulty, how)


@pytest.mark.parametrize("explosion", ["cinematic", "gritty"])
@pytest.mark.parametrize("ability", list(LADDER))
def test_exploding_checks_equal_the_capped_recursion(ability: str, explosion: str) -> None:
    for skill in LADDER:
        for difficulty in DIFFICULTIES:
            for how in ROLLS:
                expected = exploding_check(ability, skill, difficulty, how, explosion)
                assert chances(make_check(ability, skill, difficulty, how, explosion)) == expected, (
                    skill,
                    difficulty,
                    how,
                )


def test_the_recursion_agrees_with_enumeration_without_explosions() -> None:
    # The explosion reference, run without explosions, must give the enumeration again.
    for ability, skill, difficulty, how in [
        ("d12+d4", "d6", "moderate", "background"),
        ("d4", "d12+d12", "heroic", "impairment"),
        ("d8", "none", "easy", "normal"),
    ]:
        assert exploding_check(ability, skill, difficulty, how, "none") == brute_check(ability, skill, difficulty, how)


@pytest.mark.parametrize(
    ("spec", "ability", "skill", "difficulty"),
    [
        (
            {"ability": "d8", "ability_steps": 3, "skill": "d6", "skill_steps": -1, "difficulty": "moderate"},
            "d12+d4",
            "d4",
            "moderate",
        ),
        (
            {"ability": "d12", "ability_steps": 6, "skill": "d4", "skill_steps": -2, "difficulty": "d10"},
            "d12+d12+d4",
            "none",
            "moderate",
        ),
        (
            {"ability": "d6", "ability_steps": -1, "skill": "d12+d4", "difficulty": "d10", "difficulty_steps": -2},
            "d4",
            "d12+d4",
            "challenging",
        ),
        (
            {"ability": "d10", "skill": "d10", "difficulty": "heroic", "difficulty_steps": 1},
            "d10",
            "d10",
            "extraordinary",
        ),
    ],
)
@pytest.mark.parametrize("explosion", EXPLOSIONS)
@pytest.mark.parametrize("how", ROLLS)
def test_steps_in_a_spec_step_each_die_once(
    spec: dict, ability: str, skill: str, difficulty: str, explosion: str, how: str
) -> None:
    got = check_chance_json({"system": "lucky13", "roll": "check", **spec, "ability_roll": how, "explosion": explosion})
    p_success, p_dilemma, p_both = exploding_check(ability, skill, difficulty, how, explosion)

    assert Fraction(got["p_success"]) == p_success
    assert Fraction(got["p_dilemma"]) == p_dilemma
    assert Fraction(got["p_success_with_dilemma"]) == p_both


def test_a_named_difficulty_is_its_die() -> None:
    for name, label in DIFFICULTY_LABELS.items():
        by_name = check_chance_json({"ability": "d8", "skill": "d6", "difficulty": name, "explosion": "gritty"})
        by_die = check_chance_json({"ability": "d8", "skill": "d6", "difficulty": label, "explosion": "gritty"})
        assert by_name == by_die, name


def test_the_cli_defaults_are_no_steps_normal_and_cinematic() -> None:
    bare = check_chance_json({"ability": "d8", "skill": "d6", "difficulty": "moderate"})
    explicit = check_chance_json(
        {
            "ability": "d8",
            "skill": "d6",
            "difficulty": "moderate",
            "ability_steps": 0,
            "skill_steps": 0,
            "ability_roll": "normal",
            "explosion": "cinematic",
        }
    )
    assert bare == explicit


def test_the_difficulty_has_no_default() -> None:
    with pytest.raises(SpecError, match="difficulty: is required"):
        check_chance_json({"ability": "d8", "skill": "d6"})


# --- Distributions of totals ---------------------------------------------------------------------

DISTRIBUTION_SAMPLE = [
    (ability, skill, difficulty, how)
    for ability in LADDER
    for skill, difficulty in [("none", "heroic"), ("d4", "easy"), ("d10", "challenging"), ("d12+d6", "extraordinary")]
    for how in ROLLS
]


@pytest.mark.parametrize("explosion", ["none", "gritty"])
@pytest.mark.parametrize(("ability", "skill", "difficulty", "how"), DISTRIBUTION_SAMPLE)
def test_bounded_distribution_equals_enumeration(
    ability: str, skill: str, difficulty: str, how: str, explosion: str
) -> None:
    dist = check_distribution(make_check(ability, skill, difficulty, how, explosion))
    expected = side_totals([ability, skill, DIFFICULTY_LABELS[difficulty]], how, explosion)

    assert not dist.open_ended
    assert sum(p for _, p in dist.totals) == 1
    assert {v: p for v, p in dist.totals if p} == expected
    # In order, from the lowest possible total to the highest (Gritty leaves gaps: a d4 never totals 4).
    values = [v for v, _ in dist.totals]
    assert values == sorted(values)
    assert (values[0], values[-1]) == (min(expected), max(expected))


@pytest.mark.parametrize(
    ("ability", "skill", "difficulty", "how"),
    [
        ("d4", "d4", "extraordinary", "normal"),
        ("d8", "d6", "moderate", "background"),
        ("d12+d4", "d10", "heroic", "impairment"),
        ("d12+d12+d4", "d12", "easy", "background"),
        ("none", "d6", "challenging", "normal"),
        ("d6", "none", "heroic", "impairment"),
    ],
)
def test_cinematic_distribution_is_exact_with_an_open_last_bar(
    ability: str, skill: str, difficulty: str, how: str
) -> None:
    dist = check_distribution(make_check(ability, skill, difficulty, how, "cinematic"))
    last, p_last = dist.totals[-1]
    expected = capped_check_totals(ability, skill, difficulty, how, "cinematic", last)

    assert dist.open_ended
    assert sum(p for _, p in dist.totals) == 1
    # The last bar is P(total ≥ last); every other bar is P(total = v).
    assert p_last == expected[last]
    assert {v: p for v, p in dist.totals if p} == expected
    assert last > sum(LADDER[ability]) + sum(LADDER[skill]) + sum(DIFFICULTIES[difficulty])


def test_distribution_of_no_dice_is_a_certain_zero() -> None:
    for explosion in EXPLOSIONS:
        dist = check_distribution(make_check("none", "none", "heroic", "background", explosion))
        assert dist.totals == ((0, Fraction(1)),)


def test_distribution_in_the_cli_marks_the_open_bar() -> None:
    out = check_chance_json({"ability": "d6", "skill": "d4", "difficulty": "d4", "distribution": True})
    *_, last = out["distribution"]
    assert last.endswith("+")
    assert sum(Fraction(p) for p in out["distribution"].values()) == 1

    bounded = check_chance_json(
        {"ability": "d6", "skill": "d4", "difficulty": "d4", "explosion": "none", "distribution": True}
    )
    assert bounded["distribution"] == {
        str(v): f"{p.numerator}/{p.denominator}"
        for v, p in sorted(side_totals(["d6", "d4", "d4"], "normal", "none").items())
    }
