"""``web.drawn.shown`` writes a value as ``{{ value }}`` does (localization off), whatever the value."""

from __future__ import annotations

from typing import Any

import pytest
from django.template import Context, Template
from django.utils.safestring import mark_safe
from django.utils.translation import gettext_lazy

from web import drawn


class Marked:
    """Not text, and safe: a template takes its ``__html__``."""

    def __html__(self) -> str:
        return "<b>kept as it is</b>"

    def __str__(self) -> str:
        return "<b>written as text</b>"


VALUES: list[Any] = [
    "plain",
    "<script>alert('x') & \"y\"</script>",
    mark_safe("<em>safe</em>"),
    gettext_lazy("Hit points"),
    0,
    12345,
    -3.5,
    None,
    True,
    Marked(),
    ["a", "<b>"],
]


@pytest.mark.parametrize("value", VALUES, ids=[type(value).__name__ + str(n) for n, value in enumerate(VALUES)])
def test_a_value_is_shown_as_its_template_shows_it(value: Any) -> None:
    expected = Template("{% load l10n %}{% localize off %}{{ value }}{% endlocalize %}").render(
        Context({"value": value})
    )
    assert drawn.shown(value) == expected


def test_a_missing_name_shows_nothing() -> None:
    assert drawn.shown(drawn.MISSING) == ""
