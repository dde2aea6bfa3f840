"""The API's text takes what the pages' forms take (``web.fields.ONE_LINE`` and ``LINES``): a control
character is a 422 naming the field; a description keeps its lines."""

from __future__ import annotations

import pytest

from campaigns.models import Campaign

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"name": "Bell\x07"}, "name"),
        ({"name": "Two\nlines"}, "name"),
        ({"name": "Fine", "description": "escape\x1b"}, "description"),
        ({"name": "Fine", "description": "nul\x00"}, "description"),
    ],
)
def test_a_control_character_is_a_422_by_field(api, gm, body, field) -> None:
    response = api(gm).post("/campaigns", body)
    assert response.status_code == 422
    assert field in response.json()["errors"]
    assert not Campaign.objects.exists()


def test_a_description_keeps_its_lines_and_tabs(api, gm) -> None:
    response = api(gm).post("/campaigns", {"name": "Lines", "description": "One.\r\nTwo.\tThree."})
    assert response.status_code == 201
    assert Campaign.objects.get().description == "One.\r\nTwo.\tThree."
