"""Opposed rolls and combat (rules README, "Opposed rolls and combat", "Exact odds").

The first die of each side is its Ability die; the higher total wins, a draw
fails the attack, and a hit deals the weapon's damage die + the margin.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

import pytest

from rules.dice import StepDie
from rules.systems.base import SpecError
from rules.systems.lucky13 import (
    AbilityRoll,
    Check,
    Draw,
    Explosion,
    Opposed,
    Pool,
    check_chance,
    opposed_chance,
    opposed_chance_json,
    pool_dilemma,
)
from tests.systems.lucky13.reference import brute_opposed, cinematic_opposed, enumerate_ability, enumerate_plain

TOLERANCE = 1e-12


def make_opposed(
    attacker: list[str],
    defender: list[str],
    weapon: str,
    explosion: str,
    attacker_roll: str = "normal",
    defender_roll: str = "normal",
) -> Opposed:
    def pool(dice: list[str], how: str) -> Pool:
        first, *rest = (StepDie.parse(label) for label in dice)
        return Pool(first, tuple(rest), AbilityRoll(how))

    return Opposed(
        pool(attacker, attacker_roll), pool(defender, defender_roll), StepDie.parse(weapon), Explosion(explosion)
    )


def test_readme_example_opposed() -> None:
    out = opposed_chance_json(
        {
            "system": "lucky13",
            "roll": "opposed",
            "attacker": ["d8", "d6"],
            "defender": ["d6", "d6"],
            "weapon_die": "d6",
            "explosion": "none",
        }
    )

    assert out["p_attacker_wins"] == "119/216"
    assert out["p_draw"] == "19/192"
    assert out["damage_given_hit"]["2"] == "11/357"
    assert out["exact"] is True


#: (attacker, defender, weapon, attacker roll, defender roll)
SHAPES = [
    (["d8", "d6"], ["d6", "d6"], "d6", "normal", "normal"),
    (["d8", "d6"], ["d6", "d6"], "none", "normal", "normal"),
    (["d12+d4", "d8"], ["d10", "d6", "d4"], "d12+d4", "normal", "normal"),
    (["d4"], ["d12"], "none", "normal", "normal"),
    (["d6", "d6", "d6"], ["d8"], "d8", "background", "normal"),
    (["d10", "d4"], ["d8", "d8"], "d10", "normal", "impairment"),
    (["d6", "d12"], ["d12", "d6"], "d4", "impairment", "background"),
    (["none", "d6"], ["d6"], "d4", "normal", "normal"),
]


@pytest.mark.parametrize("explosion", ["none", "gritty"])
@pytest.mark.parametrize(("attacker", "defender", "weapon", "attacker_roll", "defender_roll"), SHAPES)
def test_bounded_opposed_equals_enumeration(
    attacker: list[str], defender: list[str], weapon: str, attacker_roll: str, defender_roll: str, explosion: str
) -> None:
    chance = opposed_chance(make_opposed(attacker, defender, weapon, explosion, attacker_roll, defender_roll))
    expected = brute_opposed(attacker, defender, weapon, explosion, attacker_roll, defender_roll)

    assert chance.exact
    assert chance.p_attacker_wins == expected["win"]
    assert chance.p_draw == expected["draw"]
    assert chance.p_defender_wins == expected["lose"]
    assert dict(chance.damage_given_hit) == expected["damage"]
    assert chance.expected_damage_given_hit == expected["expected"]


def test_a_hit_with_a_weapon_deals_at_least_two() -> None:
    chance = opposed_chance(make_opposed(["d8", "d6"], ["d6", "d6"], "d6", "none"))
    assert min(x for x, _ in chance.damage_given_hit) == 2
    assert sum(p for _, p in chance.damage_given_hit) == 1


def test_an_attack_that_cannot_hit_has_no_damage() -> None:
    chance = opposed_chance(make_opposed(["none"], ["d4"], "d12", "none"))

    assert chance.p_attacker_wins == 0
    assert chance.p_defender_wins == 1
    assert chance.damage_given_hit == ()
    assert chance.expected_damage_given_hit == 0


def test_equal_sides_draw_and_fail() -> None:
    # Identical dice: wins and losses mirror each other, and the draw is not a win.
    chance = opposed_chance(make_opposed(["d6", "d8"], ["d6", "d8"], "d4", "none"))
    assert chance.p_attacker_wins == chance.p_defender_wins
    assert chance.p_attacker_wins + chance.p_draw + chance.p_defender_wins == 1
    assert chance.p_draw > 0


def test_gritty_explodes_only_the_first_die_of_each_side() -> None:
    d4_first = opposed_chance(make_opposed(["d4", "d12"], ["d10", "d6"], "none", "gritty"))
    d12_first = opposed_chance(make_opposed(["d12", "d4"], ["d10", "d6"], "none", "gritty"))

    # Which die may explode depends on the order: the same dice give different chances.
    assert d4_first.p_attacker_wins != d12_first.p_attacker_wins
    assert d4_first.p_attacker_wins == brute_opposed(["d4", "d12"], ["d10", "d6"], "none", "gritty")["win"]
    assert d12_first.p_attacker_wins == brute_opposed(["d12", "d4"], ["d10", "d6"], "none", "gritty")["win"]


CINEMATIC_SHAPES = [
    (["d8", "d6"], ["d6", "d6"], "d6", "normal", "normal"),
    (["d4"], ["d4"], "none", "normal", "normal"),
    (["d12+d12+d4", "d6"], ["d4", "d4", "d4"], "d12+d4", "background", "normal"),
    (["d10", "d8", "d4"], ["d12+d6", "d8"], "d8", "normal", "impairment"),
    (["d6"], ["d12+d12"], "d12", "impairment", "background"),
    (["d4"], ["d12+d12"], "d4", "impairment", "normal"),  # a hit needs the attacker's far tail
    (["d4", "d4"], ["d12+d12+d4"], "d6", "normal", "background"),
]


@pytest.mark.parametrize(("attacker", "defender", "weapon", "attacker_roll", "defender_roll"), CINEMATIC_SHAPES)
def test_cinematic_opposed_is_within_1e_12(
    attacker: list[str], defender: list[str], weapon: str, attacker_roll: str, defender_roll: str
) -> None:
    chance = opposed_chance(make_opposed(attacker, defender, weapon, "cinematic", attacker_roll, defender_roll))
    expected = cinematic_opposed(attacker, defender, weapon, attacker_roll, defender_roll)

    assert not chance.exact
    assert abs(chance.p_attacker_wins - Fraction(expected["win"])) < TOLERANCE
    assert abs(chance.p_draw - Fraction(expected["draw"])) < TOLERANCE
    assert abs(chance.p_defender_wins - Fraction(expected["lose"])) < TOLERANCE
    damage = dict(chance.damage_given_hit)
    for x in set(damage) | set(expected["damage"]):
        assert abs(damage.get(x, 0) - Fraction(expected["damage"].get(x, 0.0))) < TOLERANCE, x
    assert abs(chance.expected_damage_given_hit - Fraction(expected["expected"])) < TOLERANCE * expected["expected"]


@pytest.mark.parametrize(("attacker", "defender", "weapon", "attacker_roll", "defender_roll"), CINEMATIC_SHAPES)
def test_cinematic_opposed_probabilities_sum_to_one(
    attacker: list[str], defender: list[str], weapon: str, attacker_roll: str, defender_roll: str
) -> None:
    chance = opposed_chance(make_opposed(attacker, defender, weapon, "cinematic", attacker_roll, defender_roll))

    assert abs(chance.p_attacker_wins + chance.p_draw + chance.p_defender_wins - 1) < TOLERANCE
    assert abs(sum(p for _, p in chance.damage_given_hit) - 1) < TOLERANCE
    assert all(p >= 0 for _, p in chance.damage_given_hit)
    for p in (chance.p_attacker_wins, chance.p_draw, chance.p_defender_wins):
        assert 0 <= p <= 1


def test_cinematic_opposed_json_is_marked_inexact() -> None:
    out = opposed_chance_json({"attacker": ["d8"], "defender": ["d8"], "weapon_die": "d4"})
    assert out["exact"] is False
    assert abs(Fraction(out["p_attacker_wins"]) - Fraction(out["p_defender_wins"])) < TOLERANCE


# --- Who a draw goes to, and each side's dilemma (rules README, "Contests outside combat") -----------


def _side(dice: list[str], how: str) -> tuple[Counter, int]:
    """Counts of (total, dilemma) of one side over every face (both Ability rolls with a background or
    an impairment, the one that counts kept), scaled to a common denominator."""
    ability_sides = StepDie.parse(dice[0]).sides
    ability, ability_den = enumerate_ability(ability_sides, how, cap=None)
    rest_sides = tuple(s for label in dice[1:] for s in StepDie.parse(label).sides)
    rest, rest_den = enumerate_plain(rest_sides, cap=None)
    out: Counter = Counter()
    for (a, a_one), n in ability.items():
        for (r, r_one), m in rest.items():
            out[a + r, a_one or r_one] += n * m
    return out, ability_den * rest_den


@pytest.mark.parametrize("draw", list(Draw))
@pytest.mark.parametrize(("attacker", "defender", "weapon", "attacker_roll", "defender_roll"), SHAPES[:7])
def test_who_prevails_and_each_sides_dilemma_equal_enumeration(
    attacker: list[str], defender: list[str], weapon: str, attacker_roll: str, defender_roll: str, draw: Draw
) -> None:
    a, a_den = _side(attacker, attacker_roll)
    d, d_den = _side(defender, defender_roll)
    den = a_den * d_den
    prevails = {"attacker": 0, "defender": 0, "": 0}
    for (ta, _), n in a.items():
        for (td, _), m in d.items():
            winner = "attacker" if ta > td else "defender" if td > ta else ("" if draw is Draw.NONE else draw.value)
            prevails[winner] += n * m
    opposed = make_opposed(attacker, defender, weapon, "none", attacker_roll, defender_roll)
    chance = opposed_chance(Opposed(opposed.attacker, opposed.defender, opposed.weapon, opposed.explosion, draw))
    assert chance.p_attacker_prevails == Fraction(prevails["attacker"], den)
    assert chance.p_defender_prevails == Fraction(prevails["defender"], den)
    assert 1 - chance.p_attacker_prevails - chance.p_defender_prevails == Fraction(prevails[""], den)
    assert chance.p_attacker_dilemma == Fraction(sum(n for (_, one), n in a.items() if one), a_den)
    assert chance.p_defender_dilemma == Fraction(sum(n for (_, one), n in d.items() if one), d_den)


@pytest.mark.parametrize("how", ["normal", "background", "impairment"])
@pytest.mark.parametrize("explosion", ["cinematic", "gritty"])
def test_a_sides_dilemma_with_explosions_is_a_checks(how: str, explosion: str) -> None:
    """Only first faces make a dilemma, so with explosions a side's chance of one is exact, and it is
    the chance of a check's dilemma with the same dice (the Difficulty die as the side's last die)."""
    ability, skill, last = StepDie.parse("d12+d4"), StepDie.parse("d8"), StepDie.parse("d6")
    pool = Pool(ability, (skill, last), AbilityRoll(how))
    check = Check(ability, skill, last, AbilityRoll(how), Explosion(explosion))
    assert pool_dilemma(pool, Explosion(explosion)) == check_chance(check).p_dilemma
    chance = opposed_chance(Opposed(pool, Pool(StepDie.parse("d6")), StepDie.none(), Explosion(explosion)))
    assert chance.p_defender_dilemma == Fraction(1, 6)
    assert chance.p_attacker_dilemma == check_chance(check).p_dilemma


def test_a_race_a_draw_and_holding_the_door_in_the_chance_interface() -> None:
    spec = {"system": "lucky13", "roll": "opposed", "attacker": ["d8", "d6"], "defender": ["d6", "d6"],
            "weapon_die": "none", "explosion": "none"}  # fmt: skip
    fight = opposed_chance_json(spec)
    assert fight["p_attacker_prevails"] == fight["p_attacker_wins"]
    held = opposed_chance_json({**spec, "draw": "attacker"})
    assert Fraction(held["p_attacker_prevails"]) == Fraction(fight["p_attacker_wins"]) + Fraction(fight["p_draw"])
    race = opposed_chance_json({**spec, "draw": "none"})
    assert Fraction(race["p_attacker_prevails"]) + Fraction(race["p_defender_prevails"]) + Fraction(race["p_draw"]) == 1
    assert race["p_attacker_dilemma"] == str(1 - Fraction(7, 8) * Fraction(5, 6))
    assert race["p_defender_dilemma"] == str(1 - Fraction(5, 6) ** 2)
    with pytest.raises(SpecError, match="draw"):
        opposed_chance_json({**spec, "draw": "attacker?"})
