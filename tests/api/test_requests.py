"""The GM's calls in the API: a request made, listed for the GM and for the player asked, and answered."""

from __future__ import annotations

import pytest

from tests.characters.conftest import SNEAKING, make_character

pytestmark = pytest.mark.django_db

SNEAK_HARD = {"kind": "check", "skill": "Sneaking", "difficulty": "difficult", "ability_roll": "background"}


def test_the_api_calls_lists_and_answers(api, campaign, gm, player) -> None:
    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    brunella = make_character(campaign, player, name="Brunella")
    as_gm, as_player = api(gm), api(player)
    body = {"call": SNEAK_HARD, "characters": [brunella.pk], "secret": False}
    response = as_gm.post(f"/campaigns/{campaign.pk}/roll-requests", body)
    assert response.status_code == 201, response.content
    made = response.json()
    assert made["label"].startswith("Sneaking check")
    assert made["asked"][0]["roll"] is None
    refused = as_gm.post(f"/campaigns/{campaign.pk}/roll-requests", {**body, "call": {**SNEAK_HARD, "skill": 3}})
    assert refused.status_code == 400
    assert as_player.post(f"/campaigns/{campaign.pk}/roll-requests", body).status_code == 403

    listed = as_player.get(f"/campaigns/{campaign.pk}/roll-requests").json()["requests"]
    assert [r["id"] for r in listed] == [made["id"]]
    asked_id = listed[0]["asked"][0]["id"]
    assert as_player.post(f"/characters/{brunella.pk}/rolls", {"skill": SNEAKING}).status_code == 403
    answer = f"/characters/{brunella.pk}/rolls?asked={asked_id}"
    rolled = as_player.post(answer, {"skill": SNEAKING, "difficulty": "easy"})
    assert rolled.status_code == 201, rolled.content
    assert rolled.json()["spec"]["difficulty"] == "d8"  # Difficult, as called
    assert rolled.json()["spec"]["call"]["request"] == made["id"]
    assert as_player.get(f"/campaigns/{campaign.pk}/roll-requests").json()["requests"] == []
    again = as_player.post(answer, {"skill": SNEAKING})
    assert again.status_code == 404
