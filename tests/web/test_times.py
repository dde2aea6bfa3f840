"""``{% time_of %}`` draws what Django's ``date`` filter drew in its place, in whatever time zone is current."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django.template import Context, Template
from django.utils import timezone

FILTERED = (
    """<time datetime="{{ value|date:'c' }}">{{ value|date:"j M Y, H:i" }}</time>"""
    """<time datetime="{{ value|date:'c' }}">{{ value|date:"j M Y" }}</time>"""
)
TAGGED = "{% load times %}{% time_of value %}{% time_of value date=True %}"


def drawn(source: str, value: datetime | None) -> str:
    return Template(source).render(Context({"value": value}))


MOMENTS = [
    datetime(2026, 11, 30, 11, 40, 5, 123456, tzinfo=UTC),
    datetime(2026, 1, 1, 0, 5, tzinfo=UTC),  # still 31 Dec in New York
    datetime(2024, 2, 29, 23, 59, 59, tzinfo=UTC),
    datetime(2026, 7, 4, 9, 3),  # naive, as a naive setting would keep it
]


@pytest.mark.parametrize("zone", ["UTC", "America/New_York", "Asia/Kolkata"])
@pytest.mark.parametrize("value", MOMENTS)
def test_the_tag_draws_what_the_date_filter_drew(zone: str, value: datetime) -> None:
    with timezone.override(zone):
        assert drawn(TAGGED, value) == drawn(FILTERED, value)


def test_no_moment_draws_nothing() -> None:
    assert drawn(TAGGED, None) == ""
