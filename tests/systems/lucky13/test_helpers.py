"""Character creation and hit points (rules README, "Ability arrays", "Advancement", "Hit points")."""

from __future__ import annotations

import pytest

from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import (
    ability_from_percentile,
    ability_raise_cost,
    current_pulse,
    death_threshold,
    max_hit_points,
)


@pytest.mark.parametrize(
    ("roll", "label"),
    [
        (1, "d4"),
        (20, "d4"),
        (21, "d6"),
        (40, "d6"),
        (41, "d8"),
        (60, "d8"),
        (61, "d10"),
        (80, "d10"),
        (81, "d12"),
        (100, "d12"),
    ],
)
def test_ability_from_percentile_boundaries(roll: int, label: str) -> None:
    assert ability_from_percentile(roll).label == label


@pytest.mark.parametrize("roll", [0, -1, 101, 1000])
def test_ability_from_percentile_out_of_range(roll: int) -> None:
    with pytest.raises(ValueError):
        ability_from_percentile(roll)


@pytest.mark.parametrize(("label", "cost"), [("d4", 16), ("d6", 24), ("d8", 32), ("d10", 40)])
def test_ability_raise_cost(label: str, cost: int) -> None:
    assert ability_raise_cost(StepDie.parse(label)) == cost


@pytest.mark.parametrize("label", ["d12", "d12+d4", "none"])
def test_d12_and_beyond_cannot_be_raised(label: str) -> None:
    with pytest.raises(ValueError):
        ability_raise_cost(StepDie.parse(label))


@pytest.mark.parametrize(("label", "hit_points"), [("d4", 10), ("d6", 20), ("d8", 30), ("d10", 40), ("d12", 50)])
def test_max_hit_points(label: str, hit_points: int) -> None:
    assert max_hit_points(StepDie.parse(label)) == hit_points


def test_max_hit_points_with_a_campaign_step() -> None:
    assert max_hit_points(StepDie.parse("d8"), per_step=5) == 15


@pytest.mark.parametrize(
    ("hit_points", "label"),
    [
        (30, "d8"),
        (25, "d8"),
        (21, "d8"),
        (20, "d6"),
        (11, "d6"),
        (10, "d4"),
        (1, "d4"),
        (0, "none"),
        (-3, "none"),
        (-8, "none"),
    ],
)
def test_current_pulse_of_a_d8_pulse(hit_points: int, label: str) -> None:
    assert current_pulse(hit_points).label == label


def test_current_pulse_with_a_campaign_step() -> None:
    assert current_pulse(15, per_step=5).label == "d8"
    assert current_pulse(16, per_step=5).label == "d10"


def test_full_hit_points_give_back_the_pulse() -> None:
    for label in ("d4", "d6", "d8", "d10", "d12"):
        pulse = StepDie.parse(label)
        assert current_pulse(max_hit_points(pulse)) == pulse


@pytest.mark.parametrize(("label", "threshold"), [("d4", -4), ("d6", -6), ("d8", -8), ("d10", -10), ("d12", -12)])
def test_death_threshold_is_minus_the_base_pulse_size(label: str, threshold: int) -> None:
    assert death_threshold(StepDie.parse(label)) == threshold


def test_ability_arrays() -> None:
    assert [d.label for d in lucky13.BALANCED_ARRAY] == ["d4", "d6", "d6", "d8", "d10"]
    assert [d.label for d in lucky13.SPECIALIZED_ARRAY] == ["d4", "d4", "d6", "d6", "d6", "d10", "d12"]


def test_attribution_and_campaign_defaults() -> None:
    assert lucky13.ATTRIBUTION == "The Lucky 13 Game Engine was originally created by Solarian Games."
    assert lucky13.default_options()["explosion"] == "cinematic"
    assert lucky13.default_options()["hit_points_per_step"] == 10
