"""Campaign options come from forms and from the JSON API, so any JSON at all may arrive: the
engine either cleans it or names each bad option (OptionsError), and never fails otherwise."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules.systems import lucky13
from tests.systems.lucky13.reference import PROPERTY

KEYS = list(lucky13.Options.model_fields)

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=8),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=12,
)


@PROPERTY
@given(st.dictionaries(st.sampled_from([*KEYS, "flying"]), json_values, max_size=5))
def test_any_json_is_cleaned_or_named_option_by_option(options) -> None:
    cleaned, errors = None, {}
    try:
        cleaned = lucky13.validate_options(options)
    except lucky13.OptionsError as error:
        errors = error.errors
    if cleaned is None:
        assert errors
        assert set(errors) <= {*options, "skill_array"}  # the array is checked against the skills
    else:
        assert set(cleaned) == set(KEYS)


@pytest.mark.parametrize("key", ["explosion", "skill_preset", "ability_methods", "skill_method"])
@pytest.mark.parametrize("value", [[], ["gritty"], {"gritty": True}])
def test_a_list_or_an_object_is_no_choice(key, value) -> None:
    with pytest.raises(lucky13.OptionsError) as error:
        lucky13.validate_options({key: value})
    assert set(error.value.errors) == {key}


def test_a_rule_across_options_is_checked_whatever_else_is_wrong() -> None:
    # Every message at once: the array is too short for the skills though the hit points are wrong too.
    with pytest.raises(lucky13.OptionsError) as error:
        lucky13.validate_options({"hit_points_per_step": 0, "skill_method": "array", "skill_array": ["d6"]})
    assert set(error.value.errors) == {"hit_points_per_step", "skill_array"}


def test_a_rule_across_options_waits_for_the_options_it_reads() -> None:
    with pytest.raises(lucky13.OptionsError) as error:
        lucky13.validate_options({"skills": None, "skill_method": "array", "skill_array": ["d6"]})
    assert set(error.value.errors) == {"skills"}
