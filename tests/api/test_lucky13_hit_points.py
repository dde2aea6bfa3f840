"""Lucky 13's rest and recovery through the JSON API (``/characters/{id}/lucky13/…``): the same operations as
the sheet's buttons, from the sheet's version, with the same refusals."""

from __future__ import annotations

import pytest

from characters.models import Character
from tests.characters.conftest import make_character

pytestmark = pytest.mark.django_db


@pytest.fixture
def table(campaign):
    campaign.options = {**campaign.options, "resting": "quarter_hours", "recovery": "gritty"}
    campaign.save(update_fields=["options"])
    return campaign


def test_the_api_rests_a_character_and_the_gm_marks_recovery(api, table, gm, player) -> None:
    brunella = make_character(table, player, hit_points=20)
    url = f"/characters/{brunella.pk}/lucky13"
    rested = api(player).post(f"{url}/rest", {"version": brunella.version, "minutes": 40})
    assert rested.status_code == 200, rested.text
    assert (rested.json()["hit_points"], rested.json()["healed"]) == (22, 2)  # two whole quarter hours
    stale = api(player).post(f"{url}/rest", {"version": brunella.version, "minutes": 15})
    assert stale.status_code == 409
    assert stale.json()["now"]["hit_points"] == 22
    bad = api(player).post(f"{url}/rest", {"version": rested.json()["version"], "minutes": 10})
    assert bad.status_code == 400  # less than a quarter hour heals nothing
    assert "minutes" in bad.json()["errors"]
    Character.objects.filter(pk=brunella.pk).update(sheet={**brunella.sheet, "hit_points": 20, "recovering": True})
    brunella.refresh_from_db()
    refused = api(player).post(f"{url}/recovered", {"version": brunella.version})
    assert refused.status_code == 403
    marked = api(gm).post(f"{url}/recovered", {"version": brunella.version})
    assert marked.status_code == 200, marked.text
    assert marked.json()["recovering"] is False
    again = api(gm).post(f"{url}/recovered", {"version": marked.json()["version"]})
    assert again.status_code == 400


def test_a_campaign_without_resting_has_no_rest_endpoint(api, campaign, player) -> None:
    brunella = make_character(campaign, player, hit_points=20)
    response = api(player).post(f"/characters/{brunella.pk}/lucky13/rest", {"version": brunella.version,
                                                                            "minutes": 30})  # fmt: skip
    assert response.status_code == 404
