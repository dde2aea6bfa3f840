"""A move's input form (``characters.generated.input_form``): its fields made once for each input model, and
each form with copies of its own, so that what one page does to its form (a link's starting value, an error)
reaches no other."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, Field

from characters.generated import input_form


class Marks(BaseModel):
    marks: int = Field(1, ge=-3, le=3, title="Marks", description="How many boxes to mark.")
    side: Literal["left", "right"] = Field(title="Side", json_schema_extra={"suggested": "left"})


def test_each_form_has_fields_of_its_own() -> None:
    first, second = input_form(Marks), input_form(Marks)
    first.fields["marks"].initial = "3"
    first.fields["side"].error_messages["required"] = "Changed."

    assert second.fields["marks"].initial == 1
    assert input_form(Marks).fields["marks"].initial == 1
    assert input_form(Marks).fields["side"].error_messages["required"] != "Changed."


def test_the_fields_are_the_schemas_and_read_what_was_sent() -> None:
    form = input_form(Marks, {"marks": "2", "side": "right"})

    assert list(form.fields) == ["marks", "side"]
    assert form.fields["marks"].help_text == "How many boxes to mark."
    assert form.fields["side"].initial == "left"
    assert form.is_valid(), form.errors
    assert form.cleaned_data == {"marks": 2, "side": "right"}
    refused = input_form(Marks, {"marks": "9", "side": "up"})
    assert not refused.is_valid()
    assert set(refused.errors) == {"marks", "side"}


def test_one_class_for_each_model() -> None:
    assert type(input_form(Marks)) is type(input_form(Marks, {"marks": "1"}))
