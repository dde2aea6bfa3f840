"""Exact D6 chances against brute force (rules README, "D6 die codes", "Exact odds", "Bands", "Opposed")."""

from __future__ import annotations

from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import UNLIMITED
from rules.probability import add_all, die
from rules.systems.base import SpecError
from rules.systems.d6.chance import (
    DIFFICULTY_BANDS,
    MAX_DIFFICULTY,
    RANGE_BANDS,
    band,
    band_chance,
    distribution,
    opposed_chance,
    p_at_least,
)
from rules.systems.d6.codes import DieCode
from tests.systems.d6 import reference

PROPERTY = settings(max_examples=40, deadline=None, derandomize=True, database=None)

#: Small enough to enumerate every face of the plain dice.
small_codes = st.builds(DieCode, st.integers(0, 4), st.integers(0, 2))


def test_hand_computed_small_cases() -> None:
    # 1d is the wild die alone. 7 or more needs a 6 first (1/6); whatever follows adds at least 1.
    assert p_at_least(DieCode(1), 7) == Fraction(1, 6)
    # 8 or more: a 6, then 2 or more (5/6): 1/6 · 5/6.
    assert p_at_least(DieCode(1), 8) == Fraction(5, 36)
    # 12 or more: a 6, then a 6 (the 1…5 after one six make 7…11): 1/36.
    assert p_at_least(DieCode(1), 12) == Fraction(1, 36)
    # 6 or more on 1d: only a 6 (1/6); 13 or more: two sixes then anything, 1/36.
    assert p_at_least(DieCode(1), 6) == Fraction(1, 6)
    assert p_at_least(DieCode(1), 13) == Fraction(1, 36)
    # 0d+2 is just 2: it makes 2, never 3.
    assert p_at_least(DieCode(0, 2), 2) == 1
    assert p_at_least(DieCode(0, 2), 3) == 0
    # 2d vs 13: the plain die p and the wild die w with p + w ≥ 13. w ≤ 5 gives at most 11. With a 6
    # first (1/6), w = 6 + x and 6 + x + p ≥ 13 means x + p ≥ 7, x the wild die again: x = 6 (1/6)
    # always reaches it; x = 1…5 (1/6 each) needs p ≥ 7 − x, chance x/6: (1+2+3+4+5)/36 = 15/36.
    # So 1/6 · (1/6 + 15/36) = 1/6 · 21/36 = 7/72.
    assert p_at_least(DieCode(2), 13) == Fraction(7, 72)
    # At or below the least total, certain.
    assert p_at_least(DieCode(3, 2), 5) == 1
    assert p_at_least(DieCode(3, 2), -4) == 1


def test_a_difficulty_beyond_the_bound_is_refused() -> None:
    assert p_at_least(DieCode(3), MAX_DIFFICULTY) > 0
    with pytest.raises(SpecError, match=r"^difficulty: "):
        p_at_least(DieCode(3), MAX_DIFFICULTY + 1)
    with pytest.raises(SpecError, match=r"^difficulty: "):
        p_at_least(DieCode(3), "15")  # type: ignore[arg-type]


@PROPERTY
@given(small_codes, st.integers(-2, 60))
def test_p_at_least_lies_within_the_brute_force_bounds(code: DieCode, difficulty: int) -> None:
    low, high = reference.at_least_bounds(code.dice, code.pips, difficulty, depth=4)
    assert low <= p_at_least(code, difficulty) <= high


@pytest.mark.parametrize("dice", [0, 1, 2, 3, 4])
@pytest.mark.parametrize("pips", [0, 1, 2])
def test_p_at_least_equals_brute_force_where_deep_chains_cannot_matter(dice: int, pips: int) -> None:
    # With the wild die followed 8 sixes deep, every difficulty up to 48 + the least of the rest is exact.
    code = DieCode(dice, pips)
    for difficulty in range(0, 6 * 8 + dice + pips):
        low, high = reference.at_least_bounds(dice, pips, difficulty, depth=8)
        assert low == high
        assert p_at_least(code, difficulty) == low, difficulty


def test_high_difficulties_shrink_six_times_every_six_points() -> None:
    # The shortcut for high difficulties against the plain capped sum at the difficulty itself.
    code = DieCode(2, 1)
    low, high = reference.at_least_bounds(2, 1, 100, depth=17)
    assert low == high == p_at_least(code, 100)
    assert p_at_least(code, 106) == p_at_least(code, 100) / 6


@pytest.mark.parametrize("code", [DieCode(1), DieCode(2, 1), DieCode(3, 2), DieCode(4)])
def test_distribution_matches_brute_force_and_sums_to_one(code: DieCode) -> None:
    chart = distribution(code)
    assert chart.open_ended
    assert sum(p for _, p in chart.totals) == 1
    known, _, _ = reference.totals(code.dice, code.pips, depth=8)
    *bars, (last, tail) = chart.totals
    assert last == 6 * code.dice + code.pips + 6
    for v, p in bars:
        assert p == known.get(v, 0), v
    assert tail == p_at_least(code, last)
    assert chart.totals[0][0] == code.minimum


def test_distribution_of_0d_is_one_bar() -> None:
    chart = distribution(DieCode(0, 2))
    assert chart.totals == ((2, Fraction(1)),)
    assert not chart.open_ended


def test_distribution_cap_is_bounded() -> None:
    assert distribution(DieCode(2), cap=9).totals[-1] == (9, p_at_least(DieCode(2), 9))
    with pytest.raises(SpecError, match=r"^cap: "):
        distribution(DieCode(2), cap=2)
    with pytest.raises(SpecError, match=r"^cap: "):
        distribution(DieCode(2), cap=10**6)


def test_bands_as_the_text_gives_them() -> None:
    ends = {b.key: (b.low, b.high) for b in (*DIFFICULTY_BANDS, *RANGE_BANDS)}
    assert ends == {
        "very_easy": (3, 5),
        "easy": (6, 10),
        "moderate": (11, 15),
        "difficult": (16, 20),
        "very_difficult": (21, 30),
        "impossible": (31, None),
        "point_blank": (3, 5),
        "short": (6, 10),
        "medium": (11, 15),
        "long": (16, 20),
    }
    with pytest.raises(SpecError, match=r"^band: "):
        band("heroic")


def test_band_chance_at_both_ends() -> None:
    code = DieCode(3, 2)
    moderate = band_chance(code, band("moderate"))
    assert (moderate.at_low, moderate.at_high) == (p_at_least(code, 11), p_at_least(code, 15))
    impossible = band_chance(code, band("impossible"))
    assert impossible.at_low == p_at_least(code, 31)
    assert impossible.at_high is None


@PROPERTY
@given(small_codes, small_codes)
def test_opposed_lies_within_brute_force_bounds_and_sums_to_one(attacker: DieCode, defender: DieCode) -> None:
    chance = opposed_chance(attacker, defender)
    assert chance.exact
    assert chance.p_attacker_wins + chance.p_tie + chance.p_defender_wins == 1
    win, tie, lose, unknown = reference.opposed_bounds(
        (attacker.dice, attacker.pips), (defender.dice, defender.pips), 5
    )
    assert win <= chance.p_attacker_wins <= win + unknown
    assert tie <= chance.p_tie <= tie + unknown
    assert lose <= chance.p_defender_wins <= lose + unknown
    assert unknown < Fraction(1, 3000)


@pytest.mark.parametrize(
    ("attacker", "defender"), [((1, 0), (1, 0)), ((2, 1), (1, 2)), ((3, 0), (2, 2)), ((0, 2), (1, 0))]
)
def test_opposed_converges_on_brute_force_within_1e_12(attacker: tuple[int, int], defender: tuple[int, int]) -> None:
    # Followed 17 sixes deep, what brute force leaves out is below 2·6^-17 < 1e-12.
    chance = opposed_chance(DieCode(*attacker), DieCode(*defender))
    win, tie, lose, unknown = reference.opposed_bounds(attacker, defender, 17)
    assert unknown < 1e-12
    assert win <= chance.p_attacker_wins <= win + unknown
    assert tie <= chance.p_tie <= tie + unknown
    assert lose <= chance.p_defender_wins <= lose + unknown


def test_opposed_by_hand() -> None:
    # 0d+2 against 0d+2 is always a tie; 0d+2 against 1d: the wild die beats 2 unless it shows 1 or 2.
    assert opposed_chance(DieCode(0, 2), DieCode(0, 2)).p_tie == 1
    one = opposed_chance(DieCode(1), DieCode(0, 2))
    assert (one.p_attacker_wins, one.p_tie, one.p_defender_wins) == (Fraction(4, 6), Fraction(1, 6), Fraction(1, 6))
    # A resisting defender keeps the tie.
    assert one.resisting_side_holds() == Fraction(2, 6)
    assert one.attacker_wins_against_resistance() == Fraction(4, 6)
    # Symmetric codes: each side wins equally often.
    same = opposed_chance(DieCode(3, 1), DieCode(3, 1))
    assert same.p_attacker_wins == same.p_defender_wins


def test_the_largest_codes_are_answered() -> None:
    """The bounds a spec may reach (60 dice, difficulty 1000) are answered, as chances (their speed is
    the benchmarks' business, never a timed test's)."""
    assert 0 < p_at_least(DieCode(12, 2), 45) < 1
    assert 0 < p_at_least(DieCode(60, 2), MAX_DIFFICULTY) < 1
    big = opposed_chance(DieCode(10, 1), DieCode(9, 2))
    assert big.p_attacker_wins + big.p_tie + big.p_defender_wins == 1
    largest = opposed_chance(DieCode(60, 2), DieCode(60, 0))
    assert largest.p_attacker_wins + largest.p_tie + largest.p_defender_wins == 1


codes = st.builds(DieCode, st.integers(0, 20), st.integers(0, 2))


@PROPERTY
@given(codes, st.integers(0, 150))
def test_a_higher_difficulty_or_a_lower_code_never_does_better(code: DieCode, difficulty: int) -> None:
    chance = p_at_least(code, difficulty)
    assert 0 <= chance <= 1
    assert p_at_least(code, difficulty + 1) <= chance
    assert p_at_least(code.add_pips(1), difficulty) >= chance


@PROPERTY
@given(codes, codes)
def test_opposed_swapped_sides_swap_the_chances(attacker: DieCode, defender: DieCode) -> None:
    there = opposed_chance(attacker, defender)
    back = opposed_chance(defender, attacker)
    assert (there.p_attacker_wins, there.p_tie, there.p_defender_wins) == (
        back.p_defender_wins,
        back.p_tie,
        back.p_attacker_wins,
    )
    assert 0 <= there.p_attacker_wins <= 1
    assert 0 <= there.p_tie <= 1
    assert 0 <= there.p_defender_wins <= 1


@PROPERTY
@given(codes, st.integers(0, 2))
def test_opposed_against_a_fixed_total_is_p_at_least(attacker: DieCode, pips: int) -> None:
    # Against 0d+q the defender's total is q: the attacker wins with a total of q + 1 or more.
    defender = DieCode(0, pips)
    chance = opposed_chance(attacker, defender)
    assert chance.p_attacker_wins == p_at_least(attacker, pips + 1)
    assert chance.p_tie == p_at_least(attacker, pips) - p_at_least(attacker, pips + 1)


def _deep_weights(code: DieCode, cap: int) -> tuple[list[int], int]:
    """min(total, cap) straight from rules.probability, without the d6 module's shortcuts."""
    if not code.dice:
        return [1 if v == min(code.pips, cap) else 0 for v in range(cap + 1)], 1
    rolled = add_all([die(6, UNLIMITED, cap), *(die(6, 0, cap) for _ in range(code.dice - 1))], cap)
    weights = [0] * (cap + 1)
    for v, w in enumerate(rolled.merged()):
        weights[min(v + code.pips, cap)] += w
    return weights, rolled.den


@pytest.mark.parametrize(
    ("attacker", "defender"), [(DieCode(10, 1), DieCode(9, 2)), (DieCode(4, 2), DieCode(6)), (DieCode(1), DieCode(12))]
)
def test_opposed_closed_form_matches_a_deep_direct_sum(attacker: DieCode, defender: DieCode) -> None:
    # Summed term by term to a cap of 160: every pair with both totals below the cap is counted; the
    # pairs left out have a side at the cap or more, a chance below 1e-12 (asserted); the closed form
    # must lie within that of the direct sum.
    cap = 160
    a, a_den = _deep_weights(attacker, cap)
    d, d_den = _deep_weights(defender, cap)
    win = sum(d[v] * sum(a[v + 1 : cap]) for v in range(cap))
    tie = sum(d[v] * a[v] for v in range(cap))
    left_out = Fraction(a[cap], a_den) + Fraction(d[cap], d_den)
    assert left_out < Fraction(1, 10**12)
    chance = opposed_chance(attacker, defender)
    assert 0 <= chance.p_attacker_wins - Fraction(win, a_den * d_den) <= left_out
    assert 0 <= chance.p_tie - Fraction(tie, a_den * d_den) <= left_out
