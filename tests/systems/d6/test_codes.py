"""D6 die codes: reading, writing and arithmetic (rules text, "die codes"; rules README, "D6 die codes")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.systems.base import SpecError
from rules.systems.d6.codes import MAX_DICE, DieCode, DieCodeError

PROPERTY = settings(max_examples=80, deadline=None, derandomize=True, database=None)

codes = st.builds(DieCode, st.integers(0, MAX_DICE), st.integers(0, 2))
small_codes = st.builds(DieCode, st.integers(0, MAX_DICE // 2 - 1), st.integers(0, 2))


@pytest.mark.parametrize(
    ("text", "dice", "pips"),
    [
        ("3d", 3, 0),
        ("3d+2", 3, 2),
        ("0d+2", 0, 2),
        ("0d", 0, 0),
        ("1d", 1, 0),
        ("2D+1", 2, 1),
        (" 2 d + 1 ", 2, 1),
        ("12d+1", 12, 1),
        (f"{MAX_DICE}d+2", MAX_DICE, 2),
        ("3d+0", 3, 0),
    ],
)
def test_parse_reads_a_die_code(text: str, dice: int, pips: int) -> None:
    assert DieCode.parse(text) == DieCode(dice, pips)


@pytest.mark.parametrize(
    "text",
    ["", "3", "d", "d+2", "3d6", "3d-1", "3d+", "+2", "3x+1", "3d+1+1", "-1d", "3d+3", "1d+7", "61d", "1000d", "3.5d"],
)
def test_parse_refuses_anything_else_naming_the_field(text: str) -> None:
    with pytest.raises(DieCodeError) as caught:
        DieCode.parse(text, field="attacker")
    assert caught.value.field == "attacker"
    assert str(caught.value).startswith("attacker: ")
    assert isinstance(caught.value, SpecError)


@pytest.mark.parametrize("value", [3, None, ["3d"], b"3d"])
def test_parse_refuses_what_is_not_text(value: object) -> None:
    with pytest.raises(DieCodeError, match=r"^code: "):
        DieCode.parse(value)


def test_three_pips_are_refused_with_the_code_they_mean() -> None:
    with pytest.raises(DieCodeError, match="write 4d"):
        DieCode.parse("3d+3")
    with pytest.raises(DieCodeError, match="write 5d\\+1"):
        DieCode.parse("3d+7")


def test_a_code_is_always_normalised() -> None:
    with pytest.raises(DieCodeError):
        DieCode(2, 3)
    with pytest.raises(DieCodeError):
        DieCode(-1, 0)
    with pytest.raises(DieCodeError):
        DieCode(3.0, 0)  # type: ignore[arg-type]
    with pytest.raises(DieCodeError):
        DieCode(True, 0)
    with pytest.raises(DieCodeError):
        DieCode(MAX_DICE + 1, 0)
    with pytest.raises(DieCodeError):
        DieCode.of(MAX_DICE, 3)
    assert DieCode.of(2, 3) == DieCode(3, 0)
    assert DieCode.of(0, 8) == DieCode(2, 2)


def test_format() -> None:
    assert str(DieCode(3, 0)) == "3d"
    assert str(DieCode(3, 2)) == "3d+2"
    assert str(DieCode(0, 2)) == "0d+2"
    assert str(DieCode(0, 0)) == "0d"


def test_pips_carry_into_a_die() -> None:
    # Rules README: "three pips make one die (2d+2 → +1 pip → 3d)".
    assert DieCode(2, 2).add_pips(1) == DieCode(3, 0)
    assert DieCode(2, 0).add_pips(5) == DieCode(3, 2)
    assert DieCode(0, 1).add_pips(-2) == DieCode(0, 0)
    assert DieCode(3, 0).add_pips(-1) == DieCode(2, 2)


def test_penalties_remove_whole_dice_never_below_0d() -> None:
    # The text's example: a blaster of 4d+2 at a 2d penalty is 2d+2, at 3d it is 1d+2; dodge 4d at 3d is 1d.
    assert DieCode(4, 2).remove_dice(2) == DieCode(2, 2)
    assert DieCode(4, 2).remove_dice(3) == DieCode(1, 2)
    assert DieCode(4, 0).remove_dice(3) == DieCode(1, 0)
    assert DieCode(1, 2).remove_dice(2) == DieCode(0, 2)
    assert DieCode(0, 1).remove_dice(1) == DieCode(0, 1)
    with pytest.raises(ValueError):
        DieCode(3, 0).remove_dice(-1)


def test_preparing_adds_a_die() -> None:
    # The text's example: a missile weapons skill of 3d+1, aimed, rolls 4d+1.
    assert DieCode(3, 1).add_dice(1) == DieCode(4, 1)


def test_doubling_doubles_dice_and_pips() -> None:
    assert DieCode(3, 1).doubled() == DieCode(6, 2)
    assert DieCode(3, 2).doubled() == DieCode(7, 1)
    assert DieCode(0, 2).doubled() == DieCode(1, 1)
    assert DieCode(MAX_DICE // 2 - 1, 2).doubled() == DieCode(MAX_DICE - 1, 1)
    with pytest.raises(DieCodeError):
        DieCode(MAX_DICE // 2, 2).doubled()


def test_codes_order_by_step() -> None:
    ladder = [DieCode(2, 0), DieCode(2, 1), DieCode(2, 2), DieCode(3, 0)]
    assert sorted(reversed(ladder)) == ladder
    assert DieCode(0, 2) < DieCode(1, 0)


@PROPERTY
@given(codes)
def test_format_then_parse_is_the_same_code(code: DieCode) -> None:
    assert DieCode.parse(str(code)) == code
    assert DieCode.parse(str(code).upper().replace("+", " + ")) == code


@PROPERTY
@given(codes, codes)
def test_order_is_the_order_of_steps(a: DieCode, b: DieCode) -> None:
    assert (a < b) == (a.steps < b.steps)
    assert (a == b) == (a.steps == b.steps)


@PROPERTY
@given(codes, st.integers(-200, 200))
def test_adding_pips_moves_by_steps(code: DieCode, pips: int) -> None:
    steps = max(code.steps + pips, 0)
    if steps // 3 > MAX_DICE:
        with pytest.raises(DieCodeError):
            code.add_pips(pips)
        return
    moved = code.add_pips(pips)
    assert moved.steps == steps
    assert 0 <= moved.pips <= 2


@PROPERTY
@given(codes, st.integers(0, 80))
def test_a_penalty_keeps_the_pips_and_never_goes_below_0d(code: DieCode, dice: int) -> None:
    lowered = code.remove_dice(dice)
    assert lowered.pips == code.pips
    assert lowered.dice == max(code.dice - dice, 0)


@PROPERTY
@given(small_codes)
def test_doubling_doubles_the_steps(code: DieCode) -> None:
    assert code.doubled().steps == 2 * code.steps
