"""The GM's calls in the API: a request made, listed for the GM and for the player asked, and answered."""

from __future__ import annotations

import pytest

from tests.characters.conftest import FIGHTING, LONGSWORD_SPEC, SNEAKING, make_character

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


def test_the_api_call_names_the_ability_and_a_request_names_the_skill_by_id(api, campaign, gm, player) -> None:
    """Issue 23: "Roll a d10 plus your Pulse and your Fighting dice"; a skill linked to no ability asks
    the call for one (a 400 on `ability`, nobody asked); an open request survives the GM renaming the
    skill, and a player answering it adds the specialization."""
    from characters import campaign_changes

    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    brunella = make_character(campaign, player, name="Brunella")
    skills = [{"id": FIGHTING, "name": "Fighting", "ability": None, "die": "d10", "specializations": []}]
    loner = make_character(campaign, player, name="Loner", skills=skills, assets=[])
    as_gm, as_player = api(gm), api(player)
    url = f"/campaigns/{campaign.pk}/roll-requests"
    fighting = {"kind": "check", "skill": "Fighting", "difficulty": "moderate"}
    refused = as_gm.post(url, {"call": fighting, "characters": [brunella.pk, loner.pk]})
    assert refused.status_code == 400, refused.content
    assert "no linked ability" in refused.json()["errors"]["ability"]
    assert as_gm.get(url).json()["requests"] == []
    made = as_gm.post(url, {"call": {**fighting, "ability": "pulse"}, "characters": [brunella.pk, loner.pk]})
    assert made.status_code == 201, made.content
    assert made.json()["label"] == "Pulse + Fighting check, Moderate (d10)"
    assert made.json()["call"]["ability"] == "pulse"

    skills = [{"name": "Swordplay" if s["name"] == "Fighting" else s["name"], "ability": s["ability"]}
              for s in campaign.settings["skills"]]  # fmt: skip
    campaign_changes.update_campaign(
        campaign_id=campaign.pk,
        by=gm,
        name=campaign.name,
        description=campaign.description,
        options={**campaign.options, "skills": skills},
        renames={"Fighting": "Swordplay"},
    )
    asked = next(a["id"] for a in made.json()["asked"] if a["character"] == brunella.pk)
    body = {"skill": FIGHTING, "specialization": LONGSWORD_SPEC}
    rolled = as_player.post(f"/characters/{brunella.pk}/rolls?asked={asked}", body)
    assert rolled.status_code == 201, rolled.content
    sheet = rolled.json()["spec"]["sheet"]
    assert (sheet["skill_name"], sheet["ability"], sheet["specialization"]["id"]) == ("Swordplay", "pulse",
                                                                                      LONGSWORD_SPEC)  # fmt: skip
