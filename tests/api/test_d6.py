"""D6 through the JSON API: a roll from the sheet (the situation D6 reads), a character's sheet as a
document, and the system's description, all from the generic routers."""

from __future__ import annotations

import pytest

from play.models import Roll
from rules.systems.d6.chance import p_at_least
from rules.systems.d6.codes import DieCode
from tests.characters.test_d6_pages import d6_campaign, made  # noqa: F401 (a fixture)

pytestmark = pytest.mark.django_db


def test_the_api_rolls_for_a_d6_character(api, client, d6_campaign, player) -> None:  # noqa: F811
    talia = made(client, d6_campaign, player)
    dodge = next(s.id for s in talia.document.skills if s.name == "Dodge")
    response = api(player).post(f"/characters/{talia.pk}/rolls", {"item": dodge, "difficulty": 12})
    assert response.status_code == 201, response.text
    body = response.json()
    p = p_at_least(DieCode.parse("4d"), 12)
    assert body["chance"] == f"{p.numerator}/{p.denominator}"
    bad = api(player).post(f"/characters/{talia.pk}/rolls", {"item": dodge, "band": "moderate", "difficulty": 40})
    assert bad.status_code == 400
    assert "not in Moderate" in bad.text
    assert Roll.objects.count() == 1


def test_the_api_gives_the_d6_sheet_and_describes_the_system(api, client, d6_campaign, player) -> None:  # noqa: F811
    talia = made(client, d6_campaign, player)
    sheet = api(player).get(f"/characters/{talia.pk}")
    assert sheet.status_code == 200
    assert sheet.json()["sheet"]["luck_points"] == 1
    systems = api(player).get("/systems").json()
    d6 = next(s for s in (systems["items"] if isinstance(systems, dict) else systems) if s["key"] == "d6")
    assert {kind["key"] for kind in d6["roll_kinds"]} == {"check", "opposed"}
    assert d6["currencies"][0]["key"] == "cp"
