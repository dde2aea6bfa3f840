"""A sheet document's refusals in a player's words (``rules.document.problems_of``): never pydantic's
own ("Input should be …", "String should have …", "Field required"), never a value in quotes."""

from __future__ import annotations

from typing import Annotated, Literal

import pytest
from pydantic import BaseModel, ConfigDict, Field, ValidationError

from rules.document import Name, Problem, problems_of
from rules.systems import lucky13
from rules.systems.base import SheetInvalid


class Item(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    kind: Literal["thing", "person"] = "thing"
    step: Literal["", "nerve", "tricks"] = ""
    version: Literal[2] = 2
    level: Annotated[int, Field(ge=1, le=5, strict=True)] = 1
    name: Name = "Rope"
    code: Annotated[str, Field(min_length=3, max_length=4)] = "abc"
    note: Annotated[str, Field(min_length=1)] = "x"
    tags: tuple[int, ...] = Field(default=(), max_length=2)
    more: tuple[int, ...] = Field(default=(1,), min_length=1)
    flag: bool = False
    ratio: float = 0.5


def refused(**fields) -> list[Problem]:
    with pytest.raises(ValidationError) as error:
        Item.model_validate(fields)
    return list(problems_of(error.value))


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({"kind": "dragon"}, "kind", "must be thing or person"),
        ({"step": "flipping"}, "step", "must be empty, nerve or tricks"),
        ({"version": 3}, "version", "must be 2"),
        ({"level": 9}, "level", "must be at most 5"),
        ({"level": 0}, "level", "must be at least 1"),
        ({"level": "two"}, "level", "must be a whole number"),
        ({"level": 1.5}, "level", "must be a whole number"),
        ({"name": "x" * 61}, "name", "must be at most 60 characters"),
        ({"name": "   "}, "name", "needs a name"),  # the type's own validator, as it says it
        ({"name": "two\nlines"}, "name", "must be on one line"),
        ({"name": 5}, "name", "must be text"),
        ({"code": "ab"}, "code", "must be at least 3 characters"),
        ({"code": "abcde"}, "code", "must be at most 4 characters"),
        ({"note": ""}, "note", "must not be empty"),
        ({"tags": [1, 2, 3]}, "tags", "must have at most 2 entries"),
        ({"tags": "1"}, "tags", "must be a list"),
        ({"more": []}, "more", "must have at least 1 entries"),
        ({"flag": "maybe"}, "flag", "must be yes or no"),
        ({"ratio": "half"}, "ratio", "must be a number"),
        ({"colour": "red"}, "colour", "is not expected here"),
    ],
)
def test_pydantic_refusals_are_said_in_words(fields, field, message) -> None:
    assert refused(**fields) == [Problem(field=field, message=message)]


def test_a_missing_field_is_missing() -> None:
    class Named(BaseModel):
        name: Name

    with pytest.raises(ValidationError) as error:
        Named.model_validate({})

    assert problems_of(error.value) == (Problem(field="name", message="is missing"),)


def test_a_lucky13_sheet_refuses_in_words() -> None:
    sheet = lucky13.SYSTEM.new_draft(lucky13.default_options()).model_dump(mode="json")
    sheet["traits"] = [{"id": 99, "kind": "curse", "name": "Hex"}]
    sheet["reputation"] = 9

    with pytest.raises(SheetInvalid) as error:
        lucky13.SYSTEM.read_sheet(sheet)

    problems = {p.field: p.message for p in error.value.problems}

    assert problems["traits.0.kind"] == "must be background or impairment"
    assert all("should" not in m and "'" not in m for m in problems.values()), problems
