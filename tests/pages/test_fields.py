"""The field types shared at the edge (``web.fields``): what each accepts and refuses."""

from __future__ import annotations

import pytest
from django import forms

from web.fields import TextField, name_start, version_number, whole_number


@pytest.mark.parametrize("typed", ["٣", "²", "1e3", "+4", "4.0", "0x10", "1" * 13, "- 3"])
def test_a_whole_number_is_ascii_digits_with_an_optional_minus(typed) -> None:
    field = whole_number("Luck", minimum=None, maximum=None, required=True)
    with pytest.raises(forms.ValidationError, match=r"Enter a whole number\."):
        field.clean(typed)


def test_a_whole_number_within_its_bounds() -> None:
    field = whole_number("Luck", minimum=-5, maximum=5, required=False)
    assert field.clean(" -5 ") == -5
    assert field.clean("") is None
    with pytest.raises(forms.ValidationError, match="less than or equal to 5"):
        field.clean("6")


def test_a_text_refuses_control_characters_and_keeps_lines_where_allowed() -> None:
    one_line = TextField(max_length=10, required=False)
    with pytest.raises(forms.ValidationError, match="Keep it on one line"):
        one_line.clean("a\nb")
    with pytest.raises(forms.ValidationError, match="at most 10"):
        one_line.clean("x" * 11)
    lines = TextField(lines=True, required=False, strip=False)
    assert lines.clean("a\r\nb\tc") == "a\r\nb\tc"
    with pytest.raises(forms.ValidationError, match="control characters"):
        lines.clean("bell\x07")


@pytest.mark.parametrize(("typed", "read"), [("0", 0), ("7", 7), ("", None), ("-1", None), ("²", None), ("٣", None),
                                             ("1e3", None), (" 7", None), ("1" * 13, None)])  # fmt: skip
def test_a_version_is_ascii_digits_from_zero(typed, read) -> None:
    assert version_number(typed) == read


@pytest.mark.parametrize(("typed", "read"), [(" Hero ", "Hero"), ("", ""), ("Zoë", "Zoë"), ("a\nb", None),
                                             ("a\x00b", None), ("a\tb", None), ("x" * 7, None)])  # fmt: skip
def test_a_name_search_is_one_printable_line_within_its_limit(typed, read) -> None:
    assert name_start(typed, 6) == read
