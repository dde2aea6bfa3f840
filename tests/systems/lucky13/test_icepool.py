"""Agreement with icepool, an independent dice library, on a sample of the whole Lucky 13 table."""

from __future__ import annotations

import itertools
from fractions import Fraction

import pytest

from bench.lucky13.icepool_check import chance as icepool_chance
from bench.lucky13.table import specs
from rules.systems.lucky13 import check_chance_json

#: Every 37th spec of the table: 37 is prime to the table's dimensions, so the sample walks all of them.
SAMPLE = list(itertools.islice(specs(), 0, None, 37))


def test_the_sample_spans_the_table() -> None:
    assert {s["explosion"] for s in SAMPLE} == {"none", "cinematic", "gritty"}
    assert {s["ability_roll"] for s in SAMPLE} == {"normal", "background", "impairment"}
    assert len({s["difficulty"] for s in SAMPLE}) == 6
    assert "d12+d12+d4" in {s["ability"] for s in SAMPLE}
    assert "d12+d12+d4" in {s["skill"] for s in SAMPLE}
    # A stepped Ability die rolled twice, exploding without end: where a 1 can reach 13.
    stepped_twice = {s["ability_roll"] for s in SAMPLE if s["explosion"] == "cinematic" and "+" in s["ability"]} - {
        "normal"
    }
    assert stepped_twice == {"background", "impairment"}


@pytest.mark.parametrize("spec", SAMPLE, ids=lambda s: "-".join(str(v) for v in list(s.values())[2:]))
def test_engine_agrees_with_icepool(spec: dict) -> None:
    ours = check_chance_json(spec)
    theirs = icepool_chance(spec)

    for key in ("p_success", "p_dilemma", "p_success_with_dilemma"):
        assert Fraction(ours[key]) == Fraction(theirs[key]), key
