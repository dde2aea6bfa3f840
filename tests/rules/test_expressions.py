"""Free dice expressions: parsing with bounds, rolling with every die shown, exact distributions."""

from __future__ import annotations

import itertools
import random
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules import expressions
from rules.dice import DieResult
from rules.expressions import (
    MAX_CHANCE_WORK,
    MAX_EXPLOSIONS,
    MAX_KEEP_WORK,
    Constant,
    DiceTerm,
    ExpressionError,
    chance_at_least,
    chance_work,
    distribution,
    parse,
    roll,
)


@pytest.mark.parametrize(
    ("text", "normal"),
    [
        ("2d6+1", "2d6+1"),
        ("d12+d4", "d12+d4"),
        ("4d6kh3", "4d6kh3"),
        ("4D6KL1", "4d6kl1"),
        ("3d6-2", "3d6-2"),
        ("d6!", "d6!"),
        (" 2d6 + 1d8 - d4 + 3 ", "2d6+d8-d4+3"),
        ("-1+d20", "-1+d20"),
        ("+d20", "d20"),
        ("50d1000+1000", "50d1000+1000"),
    ],
)
def test_good_expressions_read_and_print_back(text: str, normal: str) -> None:
    expression = parse(text)
    assert str(expression) == normal
    assert parse(normal) == expression


def test_the_terms_of_an_expression() -> None:
    assert parse("4d6kh3!-2").terms == (DiceTerm(1, 4, 6, "high", 3, True), Constant(-1, 2))
    assert parse("2d6-d4").terms == (DiceTerm(1, 2, 6), DiceTerm(-1, 1, 4))


def test_the_explode_flag_makes_every_die_explode() -> None:
    expression = parse("2d6+d4+1", explode=True)
    assert str(expression) == "2d6!+d4!+1"
    assert expression.explodes
    assert not parse("2d6+1").explodes


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "write the dice to roll"),
        ("   ", "write the dice to roll"),
        ("7", "rolls at least one die"),
        ("2d", "at position 2: a die needs its number of sides"),
        ("d6+x", "at position 4: 'x' is not part of a dice expression"),
        ("d6 d8", "at position 4: a + or - must come between two terms"),
        ("d6++1", "at position 4: two signs in a row"),
        ("d6+", "ends with a sign"),
        ("d1", "term 1 ('d1'): a die has from 2 to 1000 sides, not 1"),
        ("d6+d1001", "term 2 ('d1001'): a die has from 2 to 1000 sides, not 1001"),
        ("0d6", "term 1 ('0d6'): roll at least one die"),
        ("51d6", "term 1 ('51d6'): at most 50 dice in all"),
        ("30d6+21d6", "at most 50 dice in all; this rolls 51"),
        ("4d6kh5", "keep from 1 to 4 of the 4 dice, not 5"),
        ("4d6kh0", "keep from 1 to 4 of the 4 dice, not 0"),
        ("4d6kh", "say how many dice to keep"),
        ("d6!!", "at position 4: '!' is not part"),
        ("d6+1001", "term 2 ('1001'): a constant is at most 1000"),
        ("d6+1000+1", "the constants add up to 1001"),
        ("d6-1000-1", "the constants add up to -1001"),
        ("99999999999999d6", "far too large"),
        ("d6" + "+1" * 20, "at most 20 terms"),
        ("d6+" + "1" * 100, "at most 100 characters long; this one has 103"),
    ],
)
def test_bad_expressions_are_refused_with_the_problem_named(text: str, message: str) -> None:
    with pytest.raises(ExpressionError) as refused:
        parse(text)
    assert message in str(refused.value)


def test_a_non_string_is_refused() -> None:
    with pytest.raises(ExpressionError):
        parse(None)  # type: ignore[arg-type]


def test_a_seeded_roll_is_repeatable_and_shows_every_die() -> None:
    expression = parse("2d6+d4+3")
    first, second = roll(expression, random.Random(7)), roll(expression, random.Random(7))
    assert first == second
    rng = random.Random(7)
    faces = [rng.randint(1, 6), rng.randint(1, 6), rng.randint(1, 4)]
    assert [d.faces[0] for t in first.terms for d in t.dice] == faces
    assert first.total == sum(faces) + 3
    assert first.terms[-1].dice == ()


def test_subtracted_terms_count_against_the_total() -> None:
    rolled = roll(parse("d20-d4-2"), random.Random(3))
    d20, d4 = rolled.terms[0].dice[0].value, rolled.terms[1].dice[0].value
    assert rolled.total == d20 - d4 - 2


class Scripted(random.Random):
    """A random source that answers from a list, to pin down explosions and ties."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b
        return face


def test_exploding_dice_roll_again_on_their_highest_face_again_and_again() -> None:
    rolled = roll(parse("2d6!"), Scripted([6, 6, 2, 3]))
    assert rolled.terms[0].dice == (DieResult(6, (6, 6, 2)), DieResult(6, (3,)))
    assert rolled.total == 17
    plain = roll(parse("d6"), Scripted([6]))
    assert plain.terms[0].dice == (DieResult(6, (6,)),)


def test_an_explosion_chain_has_a_safety_limit() -> None:
    rolled = roll(parse("d2!"), Scripted([2] * (MAX_EXPLOSIONS + 1)))
    assert len(rolled.terms[0].dice[0].faces) == MAX_EXPLOSIONS + 1


def test_keep_highest_keeps_the_largest_dice_explosions_included_and_the_earlier_of_equals() -> None:
    rolled = roll(parse("4d6kh3!"), Scripted([5, 6, 1, 1, 5, 2]))
    term = rolled.terms[0]
    assert [d.value for d in term.dice] == [5, 7, 1, 5]
    assert term.kept == (True, True, False, True)
    assert rolled.total == 17
    ties = roll(parse("3d6kh1"), Scripted([4, 4, 4])).terms[0]
    assert ties.kept == (True, False, False)
    lowest = roll(parse("3d6kl2"), Scripted([3, 1, 3])).terms[0]
    assert lowest.kept == (True, True, False)
    assert roll(parse("3d6kl2"), Scripted([3, 1, 3])).total == 4


def brute_force(text: str) -> dict[int, Fraction]:
    """Every equally likely sequence of faces, rolled through the same code as the product."""
    expression = parse(text)
    sides = [t.sides for t in expression.terms if isinstance(t, DiceTerm) for _ in range(t.count)]
    counts: Counter[int] = Counter()
    for faces in itertools.product(*(range(1, s + 1) for s in sides)):
        counts[roll(expression, Scripted(list(faces))).total] += 1
    whole = sum(counts.values())
    return {total: Fraction(n, whole) for total, n in counts.items()}


@pytest.mark.parametrize(
    "text",
    ["2d6+1", "d12+d4", "4d6kh3", "4d6kl3", "3d6-2", "d8-d6", "5d4kh2", "3d6kl1+d4-1", "2d10kh1-2d4kl1", "d2+d3+d5"],
)
def test_exact_distributions_match_brute_force(text: str) -> None:
    assert distribution(parse(text)) == brute_force(text)


def test_chance_of_at_least_a_total() -> None:
    expression = parse("2d6+1")
    assert chance_at_least(expression, 13) == Fraction(1, 36)
    assert chance_at_least(expression, 3) == 1
    assert chance_at_least(expression, 14) == 0
    assert chance_at_least(parse("4d6kh3"), 18) == Fraction(21, 1296)


def test_no_distribution_when_unbounded_or_too_large() -> None:
    assert distribution(parse("d6!")) is None
    assert chance_at_least(parse("2d6!+1"), 7) is None
    assert distribution(parse("11d1000")) is None  # 10,991 totals
    assert distribution(parse("5d1000+d6")) is not None  # 5,000 totals, cheap: computed
    assert distribution(parse("50d100kh25")) is None  # too much work for the keep term
    assert sum(distribution(parse("50d6")).values()) == 1


@pytest.mark.parametrize("text", ["10d1000", "25d200+25d200", "20d500+d4", "12d100kh1", "20d20kh3+d6"])
def test_an_expression_beyond_the_work_budget_has_no_distribution(text: str) -> None:
    """Each of these took from 0.1 to 1 s of CPU: the budget refuses them before any work."""
    expression = parse(text)
    assert chance_work(expression) > MAX_CHANCE_WORK or any(
        isinstance(t, DiceTerm)
        and t.keep != "all"
        and t.sides * (t.count + 1) ** 2 * (t.kept * t.sides + 1) > MAX_KEEP_WORK
        for t in expression.terms
    )
    assert distribution(expression) is None


def test_the_work_budget_is_counted_before_any_work(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_work(*args: object) -> list[int]:
        raise AssertionError("the budget must refuse before convolving")

    monkeypatch.setattr(expressions, "convolve", no_work)
    assert distribution(parse("25d200+25d200")) is None
    assert chance_at_least(parse("25d200+25d200"), 2000) is None


@pytest.mark.parametrize("text", ["3d6", "2d6+1", "d20-3", "-3d4+10", "4d5kh4", "7-2d6"])
def test_one_group_of_dice_has_its_chance_in_closed_form(text: str) -> None:
    exact = brute_force(text)
    expression = parse(text)
    for total in range(min(exact) - 1, max(exact) + 2):
        assert chance_at_least(expression, total) == sum((p for v, p in exact.items() if v >= total), Fraction(0))


def test_the_largest_groups_of_dice_have_an_exact_chance_at_once() -> None:
    """50d1000 spans 49,951 totals and has no distribution, yet its chance is exact: P(total ≥ 50,000)
    is one roll of 1000**50, and P(total ≥ 49,999) adds the 50 rolls with one 999."""
    expression = parse("50d1000+7")
    assert distribution(expression) is None
    assert chance_at_least(expression, 50_007) == Fraction(1, 1000**50)
    assert chance_at_least(expression, 50_006) == Fraction(51, 1000**50)
    assert chance_at_least(expression, 57) == 1
    assert chance_at_least(parse("48d200"), 48 * 200 // 2) == 1 - chance_at_least(
        parse("-48d200"), -(48 * 200 // 2) + 1
    )


def test_an_expression_asked_again_is_a_cache_hit() -> None:
    expression = parse("3d20+2d12")
    chance_at_least(expression, 30)
    before = expressions.total_weights.cache_info().hits
    assert chance_at_least(parse(" 3D20 + 2d12 "), 31) == sum(
        (p for v, p in brute_force_sum([20, 20, 20, 12, 12]).items() if v >= 31), Fraction(0)
    )
    assert expressions.total_weights.cache_info().hits == before + 1


def brute_force_sum(sides: list[int]) -> dict[int, Fraction]:
    counts: Counter[int] = Counter(sum(faces) for faces in itertools.product(*(range(1, s + 1) for s in sides)))
    whole = sum(counts.values())
    return {total: Fraction(n, whole) for total, n in counts.items()}


@settings(max_examples=60, deadline=None)
@given(
    count=st.integers(1, 6),
    sides=st.integers(2, 8),
    keep=st.sampled_from(["", "kh", "kl"]),
    keep_n=st.integers(1, 6),
    modifier=st.integers(-5, 5),
    seed=st.integers(0, 10**6),
)
def test_every_roll_lands_on_a_possible_total(
    count: int, sides: int, keep: str, keep_n: int, modifier: int, seed: int
) -> None:
    keep_part = f"{keep}{min(keep_n, count)}" if keep else ""
    expression = parse(f"{count}d{sides}{keep_part}{modifier:+d}")
    rolled = roll(expression, random.Random(seed))
    dist = distribution(expression)
    assert dist is not None
    assert sum(dist.values()) == 1
    assert dist.get(rolled.total, 0) > 0
    assert sum(rolled.terms[0].kept) == (min(keep_n, count) if keep else count)
