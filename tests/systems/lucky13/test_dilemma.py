"""Dilemmas come only from dice that count (rules README): with a background or an impairment
the discarded Ability roll never makes one, and on equal totals a background keeps the roll
without a 1, an impairment the roll with one. The chance shown before the roll follows the same
rule, exactly, in every explosion mode and for every die, stepped dice included.

The expected values come from :mod:`tests.systems.lucky13.reference`, which judges every pair of Ability
rolls by the rule itself: by enumeration when the totals are bounded; when they are not, the pairs
that both reach 13 by a fitted series (:mod:`bench.lucky13.series`), and, as a second route, by
following the totals deep enough that what is left undecided is below 1e-12.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.dice import UNLIMITED, StepDie
from rules.probability import Capped, add_all, die, keep, kept_dilemma_over_cap
from rules.systems.lucky13 import AbilityRoll, Check, Explosion, check_chance, check_chance_json
from tests.systems.lucky13.reference import (
    EXPLOSIONS,
    every_total,
    exploding_check,
    kept,
    kept_over_cap,
    largest,
    truncated_check,
)

#: The README's chance-interface example with a stepped die, a background and Cinematic play.
README_CINEMATIC = {
    "system": "lucky13",
    "roll": "check",
    "ability": "d12+d4",
    "skill": "d8",
    "difficulty": "none",
    "ability_roll": "background",
    "explosion": "cinematic",
}

#: Stepped Ability dice: two to five dice, every size as the last one.
STEPPED = ["d12+d4", "d12+d6", "d12+d8", "d12+d10", "d12+d12", "d12+d12+d4", "d12+d12+d12+d6", "d12+d12+d12+d12+d4"]

#: A few Skill and Difficulty dice (difficulty names as the reference reads them).
OTHERS = [("d8", "challenging"), ("none", "heroic"), ("d12+d4", "extraordinary"), ("d4", "easy")]


def chances(spec: dict) -> tuple[Fraction, Fraction, Fraction]:
    out = check_chance_json(spec)
    return Fraction(out["p_success"]), Fraction(out["p_dilemma"]), Fraction(out["p_success_with_dilemma"])


def test_the_readme_cinematic_example() -> None:
    expected = exploding_check("d12+d4", "d8", "heroic", "background", "cinematic")

    assert chances(README_CINEMATIC) == expected
    assert check_chance_json(README_CINEMATIC) == {
        "p_success": "1963687/2359296",
        "p_dilemma": "593286587/2021640192",
        "p_success_with_dilemma": "52231489771/258769944576",
    }


@pytest.mark.parametrize(
    ("ability", "skill", "difficulty", "p_dilemma", "p_success_with_dilemma"),
    [
        # d12+d4 with a background: about 0.41 (it was 8053/12288, about 0.66, counting the discarded roll).
        ("d12+d4", "d8", "challenging", "4988073127/12129841152", "1156272942287/3105239334912"),
        ("d12+d12+d6", "d10", "difficult", "261006578775262561/720887692307447808", None),
    ],
)
def test_representative_background_checks(
    ability: str, skill: str, difficulty: str, p_dilemma: str, p_success_with_dilemma: str | None
) -> None:
    spec = {"ability": ability, "skill": skill, "difficulty": difficulty, "ability_roll": "background"}
    got = chances({**spec, "explosion": "cinematic"})

    assert got == exploding_check(ability, skill, difficulty, "background", "cinematic")
    assert got[1] == Fraction(p_dilemma)
    if p_success_with_dilemma is not None:
        assert got[2] == Fraction(p_success_with_dilemma)


@pytest.mark.parametrize("how", ["background", "impairment"])
@pytest.mark.parametrize("ability", STEPPED)
def test_cinematic_stepped_checks_agree_with_totals_followed_deep(ability: str, how: str) -> None:
    for skill, difficulty in OTHERS:
        spec = {"ability": ability, "skill": skill, "difficulty": difficulty, "ability_roll": how}
        engine = chances({**spec, "explosion": "cinematic"})
        deep, undecided = truncated_check(ability, skill, difficulty, how, "cinematic", 140)

        assert undecided < Fraction(1, 10**12)
        for ours, theirs in zip(engine, deep, strict=True):
            assert abs(ours - theirs) <= undecided, (skill, difficulty)


@pytest.mark.parametrize(
    "sides",
    [(12, 4), (12, 6), (12, 8), (12, 10), (12, 12), (12, 12, 4), (12, 12, 8), (12, 12, 12), (12, 12, 12, 12, 12)],
)
@pytest.mark.parametrize("higher", [True, False])
def test_the_engines_series_agrees_with_the_fitted_series(sides: tuple[int, ...], higher: bool) -> None:
    # Two exact routes apart: the engine sums the terms' recurrence; the reference fits each
    # sequence (checked on more values than it was fitted on) and sums it in closed form.
    caps = [2, 13, 29] if len(sides) < 3 and 10 not in sides else [13]
    for cap in caps:
        assert kept_dilemma_over_cap(sides, UNLIMITED, cap, higher=higher) == kept_over_cap(sides, cap, higher), cap


@pytest.mark.parametrize("explosions", [0, 1])
@pytest.mark.parametrize("sides", [(12, 4), (12, 10), (12, 12, 6)])
def test_without_unlimited_explosions_the_pairs_past_the_cap_are_counted_one_by_one(
    sides: tuple[int, ...], explosions: int
) -> None:
    rolls = every_total(sides, explosions)
    for cap in (2, 9, 13, 20, largest(sides, explosions) + 3):
        for how in ("background", "impairment"):
            pairs = [(r1, r2, p1 * p2) for r1, p1 in rolls.items() for r2, p2 in rolls.items()]
            both_over = [(r1, r2, p) for r1, r2, p in pairs if min(r1[0], r2[0]) >= cap]
            expected = sum((p for r1, r2, p in both_over if kept(r1, r2, how)[1]), Fraction(0))
            assert kept_dilemma_over_cap(sides, explosions, cap, higher=how == "background") == expected, (cap, how)


def test_keep_refuses_to_guess_which_roll_past_the_cap_is_kept() -> None:
    roll = add_all((die(12, UNLIMITED, 13), die(4, UNLIMITED, 13)), 13)
    assert roll.flagged[13]  # a d12 showing 12 then more, and a d4 showing 1, reach 13 with a 1

    with pytest.raises(ValueError, match="over_cap"):
        keep(roll, higher=True)
    with pytest.raises(ValueError, match="between 0 and"):
        keep(roll, higher=False, over_cap=Fraction(1))

    single = die(8, UNLIMITED, 13)
    assert keep(single, higher=True) == keep(single, higher=True, over_cap=Fraction(0))


def test_the_kept_roll_is_a_distribution() -> None:
    roll = add_all((die(12, UNLIMITED, 13), die(4, UNLIMITED, 13)), 13)
    for higher in (True, False):
        both = keep(roll, higher=higher, over_cap=kept_dilemma_over_cap((12, 4), UNLIMITED, 13, higher=higher))
        assert isinstance(both, Capped)
        assert sum(both.merged()) == both.den
        assert all(w >= 0 for w in both.plain + both.flagged)


@pytest.mark.parametrize("explosion", EXPLOSIONS)
def test_every_stepped_ability_in_every_mode_is_exact(explosion: str) -> None:
    for ability in ("d12+d4", "d12+d12+d4"):
        for how in ("background", "impairment"):
            dice = (StepDie.parse(ability), StepDie.parse("d6"), StepDie.parse("d10"))
            check = Check(*dice, AbilityRoll(how), Explosion(explosion))
            chance = check_chance(check)
            expected = exploding_check(ability, "d6", "moderate", how, explosion)
            assert (chance.p_success, chance.p_dilemma, chance.p_success_with_dilemma) == expected, (ability, how)
