"""The step ladder: labels, stepping, difficulty names (rules README, "The ladder")."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from rules.dice import MAX_RUNG, DiceError, DieResult, StepDie
from rules.systems.lucky13 import Difficulty
from tests.systems.lucky13.reference import LADDER, PROPERTY, RUNGS


@pytest.mark.parametrize("label", list(LADDER))
def test_every_ladder_label_reads_and_prints_back(label: str) -> None:
    die = StepDie.parse(label)

    assert die.label == label
    assert str(die) == label
    assert die.rung == RUNGS[label]
    assert die.sides == LADDER[label]
    assert die.maximum == sum(LADDER[label])


def test_labels_past_the_table_follow_the_same_pattern() -> None:
    assert StepDie.parse("d12+d12+d12+d8").rung == 18
    assert StepDie(18).sides == (12, 12, 12, 8)
    assert StepDie(15).label == "d12+d12+d12"


@pytest.mark.parametrize("sides", [4, 6, 8, 10, 12])
def test_single_die_by_size(sides: int) -> None:
    assert StepDie.of(sides) == StepDie.parse(f"d{sides}")


@pytest.mark.parametrize("sides", [0, 2, 3, 5, 7, 20, 100])
def test_single_die_off_the_ladder_is_refused(sides: int) -> None:
    with pytest.raises(DiceError):
        StepDie.of(sides)


@pytest.mark.parametrize(
    "label",
    [
        "d7",
        "d4+d12",  # the d12s come first
        "d12+d5",
        "d6+d6",  # only d12s may precede the last die
        "d12+d12+d7",
        "garbage",
        "d",
        "12",
        "2d6",
        "d12+",
        "+d4",
        "d12++d4",
        "d0",
        "d-4",
        "d12+d4+d12",
    ],
)
def test_invalid_labels_are_refused(label: str) -> None:
    with pytest.raises(DiceError):
        StepDie.parse(label)


@pytest.mark.parametrize("value", [8, 8.0, None, ["d8"], b"d8", {"die": "d8"}])
def test_labels_that_are_not_text_are_refused(value: object) -> None:
    with pytest.raises(DiceError):
        StepDie.parse(value)  # type: ignore[arg-type]


def test_dice_error_is_a_value_error() -> None:
    # Callers that only know ValueError (form cleaning) still catch a bad label.
    assert issubclass(DiceError, ValueError)


@pytest.mark.parametrize("rung", [-1, MAX_RUNG + 1])
def test_rungs_off_the_ladder_are_refused(rung: int) -> None:
    with pytest.raises(DiceError):
        StepDie(rung)


@pytest.mark.parametrize(
    ("label", "steps", "expected"),
    [
        ("d8", 1, "d10"),
        ("d8", -1, "d6"),
        ("d12", 1, "d12+d4"),
        ("d12+d4", -1, "d12"),
        ("d10", 3, "d12+d6"),
        ("d12", 5, "d12+d12"),
        ("d12+d12", 1, "d12+d12+d4"),
        ("d12+d12+d4", -11, "none"),
        ("d4", -1, "none"),  # below d4 there is no die
        ("d6", -5, "none"),
        ("none", -3, "none"),
        ("none", 1, "d4"),
        ("none", 6, "d12+d4"),
        ("d6", 0, "d6"),
    ],
)
def test_step_by_n(label: str, steps: int, expected: str) -> None:
    assert StepDie.parse(label).step(steps).label == expected


def test_stepping_past_the_highest_rung_is_refused_with_a_reason() -> None:
    top = StepDie(MAX_RUNG)
    assert StepDie(MAX_RUNG - 1).step(1) == top
    with pytest.raises(DiceError, match="not further"):
        top.step(1)
    with pytest.raises(DiceError, match="not further"):
        StepDie(MAX_RUNG - 1).step(5)


@PROPERTY
@given(rung=st.integers(1, MAX_RUNG), n=st.integers(0, MAX_RUNG))
def test_step_up_then_down_is_the_identity_from_d4_up(rung: int, n: int) -> None:
    assume(rung + n <= MAX_RUNG)
    die = StepDie(rung)
    assert die.step(n).step(-n) == die
    assert die.step(n).rung == rung + n


@PROPERTY
@given(rung=st.integers(0, MAX_RUNG), n=st.integers(-MAX_RUNG, MAX_RUNG))
def test_one_step_of_n_equals_n_single_steps(rung: int, n: int) -> None:
    assume(rung + n <= MAX_RUNG)
    die = StepDie(rung)
    one_by_one = die
    for _ in range(abs(n)):
        one_by_one = one_by_one.step(1 if n > 0 else -1)
    assert die.step(n) == one_by_one
    assert die.step(n).rung == max(rung + n, 0)


@pytest.mark.parametrize(
    ("name", "label"),
    [
        ("easy", "d12"),
        ("moderate", "d10"),
        ("difficult", "d8"),
        ("challenging", "d6"),
        ("extraordinary", "d4"),
        ("heroic", "none"),
    ],
)
def test_difficulty_names_give_their_dice(name: str, label: str) -> None:
    assert Difficulty(name).die.label == label


def test_die_result_value_and_implosion() -> None:
    exploded = DieResult(6, (6, 6, 2))
    assert exploded.value == 14
    assert exploded.exploded
    assert not exploded.imploded
    assert DieResult(8, (1,)).imploded
    # Only the first face counts as an implosion.
    assert not DieResult(4, (4, 1)).imploded
