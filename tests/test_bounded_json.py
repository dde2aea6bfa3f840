"""JSON read from outside has its nesting measured before it is parsed (web.bounded_json)."""

from __future__ import annotations

import json

import pytest

from web.bounded_json import MAX_DEPTH, TooDeep, depth_exceeds, loads


def test_the_limit_is_exact() -> None:
    assert loads("[" * MAX_DEPTH + "]" * MAX_DEPTH) == json.loads("[" * MAX_DEPTH + "]" * MAX_DEPTH)
    with pytest.raises(TooDeep):
        loads("[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1))


def test_brackets_in_strings_nest_nothing() -> None:
    text = json.dumps({"a": "[{" * 1000, "b": ['\\"[[[', "\\\\"], "c": "]]]"})
    assert not depth_exceeds(text)
    assert loads(text) == json.loads(text)


def test_far_too_deep_is_refused_without_recursion() -> None:
    with pytest.raises(TooDeep):
        loads(b"[" * 1_000_000)


def test_bytes_are_read_as_json_reads_them_and_bad_json_is_a_value_error() -> None:
    assert loads('{"é": 1}'.encode("utf-16")) == {"é": 1}
    with pytest.raises(ValueError):
        loads(b"\xff\xfe\xfd")
    with pytest.raises(ValueError):
        loads("{")
