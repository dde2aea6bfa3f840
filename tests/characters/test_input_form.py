"""A move's input form (``characters.generated.input_form``): its fields made once for each input model, and
each form with copies of its own, so that what one page does to its form (a link's starting value, an error)
reaches no other."""

from __future__ import annotations

from typing import Literal

from django import forms
from pydantic import BaseModel, Field

from characters.generated import input_form


class Marks(BaseModel):
    marks: int = Field(1, ge=-3, le=3, title="Marks", description="How many boxes to mark.")
    side: Literal["left", "right"] = Field(title="Side", json_schema_extra={"suggested": "left"})


def test_each_form_has_fields_of_its_own() -> None:
    first, second = input_form(Marks), input_form(Marks)
    first.fields["marks"].initial = "3"
    first.fields["marks"].widget.attrs["autofocus"] = True
    first.fields["side"].error_messages["required"] = "Changed."
    first.fields["side"].choices = [("left", "Changed")]

    for other in (second, input_form(Marks)):
        assert other.fields["marks"].initial == 1
        assert "autofocus" not in other.fields["marks"].widget.attrs
        assert other.fields["side"].error_messages["required"] != "Changed."
        assert [value for value, _ in other.fields["side"].choices] == ["left", "right"]


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
    made = type(input_form(Marks))

    assert made is type(input_form(Marks, {"marks": "1"}))
    assert made is not forms.Form  # a class of its own, its fields made once
    assert list(made.base_fields) == ["marks", "side"]
