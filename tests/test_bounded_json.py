"""JSON read from outside has its nesting measured before it is parsed (web.bounded_json)."""

from __future__ import annotations

import json
import random

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


def naive_depth(value: object) -> int:
    if isinstance(value, dict):
        return 1 + max(map(naive_depth, value.values()), default=0)
    if isinstance(value, list):
        return 1 + max(map(naive_depth, value), default=0)
    return 0


def random_document(rng: random.Random, depth: int) -> object:
    if depth == 0 or rng.random() < 0.2:
        return rng.choice([1, "[{", "}]", None, "\\"])
    if rng.random() < 0.5:
        return [random_document(rng, depth - 1) for _ in range(rng.randint(0, 3))]
    return {f"k{n}": random_document(rng, depth - 1) for n in range(rng.randint(0, 3))}


def test_the_measure_agrees_with_the_documents_depth() -> None:
    rng = random.Random(13)
    for _ in range(500):
        document = random_document(rng, rng.randint(0, 12))
        depth, text = naive_depth(document), json.dumps(document)
        for limit in {max(depth - 1, 0), depth, depth + 1}:
            assert depth_exceeds(text, limit) is (depth > limit), (text, limit)


def test_a_string_left_open_hides_no_bracket_before_it_and_is_read_in_one_pass() -> None:
    # Brackets before an open string still count; what follows it is the string's (and no parser reads past it).
    assert depth_exceeds("[" * (MAX_DEPTH + 1) + '"' + "]" * 10)
    assert not depth_exceeds("[" * MAX_DEPTH + '"' + "[" * 100)
    # A frame of escaped quotes never closed: one match to its end (it once restarted at every quote).
    opened = '"' + '\\"' * 32_768
    assert not depth_exceeds(opened)
    with pytest.raises(ValueError) as refused:
        loads(opened)
    assert not isinstance(refused.value, TooDeep)
