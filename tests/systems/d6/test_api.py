"""D6 through the JSON API: a roll from the sheet (the situation D6 reads), a character's sheet as a
document, and the system's description, all from the generic routers."""

from __future__ import annotations

import pytest

from play.models import Roll
from rules.systems.d6.chance import p_at_least
from rules.systems.d6.codes import DieCode
from tests.systems.d6.helpers import made

pytestmark = pytest.mark.django_db


def test_the_api_rolls_for_a_d6_character(api, client, d6_campaign, player) -> None:
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


def test_the_api_gives_the_d6_sheet_and_describes_the_system(api, client, d6_campaign, player) -> None:
    talia = made(client, d6_campaign, player)
    sheet = api(player).get(f"/characters/{talia.pk}")
    assert sheet.status_code == 200
    assert sheet.json()["sheet"]["luck_points"] == 1
    systems = api(player).get("/systems").json()
    d6 = next(s for s in (systems["items"] if isinstance(systems, dict) else systems) if s["key"] == "d6")
    assert {kind["key"] for kind in d6["roll_kinds"]} == {"check", "opposed"}
    assert d6["currencies"][0]["key"] == "cp"


def test_the_api_changes_a_d6_section_and_refuses_what_a_player_may_not(api, client, d6_campaign, gm,
                                                                        player) -> None:  # fmt: skip
    talia = made(client, d6_campaign, player)
    talia.refresh_from_db()
    notes = api(player).put(f"/characters/{talia.pk}/sections/notes",
                            {"version": talia.version, "value": {"notes": "Owes the ferryman."}})  # fmt: skip
    assert notes.status_code == 200, notes.text
    talia.refresh_from_db()
    assert talia.document.notes == "Owes the ferryman."
    luck = api(player).put(f"/characters/{talia.pk}/sections/luck",
                           {"version": talia.version, "value": {"luck_points": 5}})  # fmt: skip
    assert luck.status_code == 403
    wounded = api(gm).put(f"/characters/{talia.pk}/sections/conditions",
                          {"version": talia.version, "value": {"wounds": 1, "stunned": False}})  # fmt: skip
    assert wounded.status_code == 200, wounded.text
    talia.refresh_from_db()
    assert (talia.document.wounds, talia.document.luck_points) == (1, 1)


def test_the_api_plays_a_d6_round_and_spends_a_luck_point(api, client, d6_campaign, gm, player) -> None:
    """Talia's round through the API: declared (two shots), a shot rolled, a luck point spent mid-round, the
    GM's wound, the second shot doubled and wounded, the round's end; every step a move, made from the
    version the round was read at."""
    talia = made(client, d6_campaign, player)
    ids = {s.name: s.id for s in talia.document.skills}
    url, moves = f"/characters/{talia.pk}/d6/round", f"/characters/{talia.pk}/moves"

    def move(user, key: str, version: int, **given):
        return api(user).post(f"{moves}/{key}", {"version": version, "input": given})

    start = api(player).get(url).json()
    assert start["declared"] is False
    assert start["uses"] == []
    assert start["can_prepare"] is True
    shots = [{"item": ids["Firearms"], "difficulty": 8}] * 2
    declared = move(player, "declare-round", start["version"], actions=shots)
    assert declared.status_code == 200, declared.text
    body = api(player).get(url).json()
    p = p_at_least(DieCode.parse("3d+1"), 8)
    assert [(u["code"], u["chance"]) for u in body["uses"]] == [("3d+1", f"{p.numerator}/{p.denominator}")] * 2
    stale = move(player, "roll-use", start["version"], action=0)
    assert stale.status_code == 409
    assert stale.json()["code"] == "stale_version"
    assert stale.json()["now"]["version"] == declared.json()["character"]["version"]
    rolled = move(player, "roll-use", body["version"], action=0)
    assert rolled.status_code == 200, rolled.text
    assert [r["spec"]["code"] for r in rolled.json()["rolls"]] == ["3d+1"]
    body = api(player).get(url).json()
    spent = move(player, "spend-luck", body["luck_version"], kind="double")
    assert spent.status_code == 200, spent.text
    assert spent.json()["character"]["sheet"]["luck_points"] == 0
    body = api(player).get(url).json()
    assert body["doubled"] is True
    assert body["luck_points"] == 0
    refused = move(player, "befall", body["version"], what="wounded")
    assert refused.status_code == 403
    wounded = move(gm, "befall", body["version"], what="wounded")
    assert wounded.status_code == 200, wounded.text
    body = api(player).get(url).json()
    assert body["uses"][1]["code"] == "6d+2"  # 4d+1 doubled, −1d for two actions, −1d wounded
    rolled = move(player, "roll-use", body["version"], action=1)
    assert rolled.json()["rolls"][0]["spec"]["steps"] == ["luck point: doubled", "2 actions: −1d", "wounded: −1d"]
    body = api(player).get(url).json()
    both = move(player, "roll-use", body["version"], action=0, reaction=ids["Dodge"])
    assert both.status_code == 400
    no_prep = move(player, "end-round", body["version"], prepare=ids["Firearms"])
    assert no_prep.status_code == 400
    assert "only a round of nothing" in no_prep.json()["message"].lower()
    ended = move(player, "end-round", body["version"])
    assert ended.status_code == 200
    body = api(player).get(url).json()
    assert body["declared"] is False
    assert body["doubled"] is False
    assert Roll.objects.count() == 2
    lucky13 = api(player).get("/characters/999999/d6/round")
    assert lucky13.status_code == 404


def test_the_gm_judges_a_luck_points_spend_through_the_api(api, client, d6_campaign, gm, player) -> None:
    talia = made(client, d6_campaign, player)
    url = f"/characters/{talia.pk}/moves"
    start = api(player).get(f"/characters/{talia.pk}/d6/round").json()
    chose = api(player).post(f"{url}/spend-luck", {"version": start["luck_version"],
                                                  "input": {"kind": "double", "heroism": "heroic"}})  # fmt: skip
    assert chose.status_code == 400  # the player does not say how heroic it was
    assert "heroism" in chose.json()["errors"]
    spent = api(player).post(f"{url}/spend-luck", {"version": start["luck_version"], "input": {"kind": "double"}})
    assert spent.status_code == 200, spent.text
    version = spent.json()["character"]["version"]
    refused = api(player).post(f"{url}/judge-luck", {"version": version, "input": {"spend": 1, "heroism": "dramatic"}})
    assert refused.status_code == 403
    judged = api(gm).post(f"{url}/judge-luck", {"version": version, "input": {"spend": 1, "heroism": "dramatic"}})
    assert judged.status_code == 200, judged.text
    missing = api(gm).post(f"{url}/judge-luck", {"version": judged.json()["character"]["version"],
                                                 "input": {"spend": 5, "heroism": "heroic"}})  # fmt: skip
    assert missing.status_code == 400
    granted = api(gm).post(f"{url}/grant-luck", {"version": judged.json()["character"]["version"],
                                                 "input": {"spend": 1, "granted": True}})  # fmt: skip
    assert granted.status_code == 200, granted.text
    talia.refresh_from_db()
    assert [(s.id, s.heroism, s.extra) for s in talia.document.luck_spends] == [(1, "dramatic", True)]


def test_escaping_certain_death_through_the_api_leaves_the_character_alive(api, client, d6_campaign, player) -> None:
    talia = made(client, d6_campaign, player)
    talia.sheet = {**talia.sheet, "wounds": 3}  # the blow that killed her
    talia.save()
    start = api(player).get(f"/characters/{talia.pk}/d6/round").json()
    body = {"version": start["luck_version"],
            "input": {"kind": "escape", "explanation": "The floor gave way into a subway."}}  # fmt: skip
    escaped = api(player).post(f"/characters/{talia.pk}/moves/spend-luck", body)
    assert escaped.status_code == 200, escaped.text
    talia.refresh_from_db()
    assert (talia.document.wounds, talia.document.luck_points) == (2, 0)  # incapacitated, never dead


def test_the_api_rolls_a_d6_opposed_roll_against_another_character_in_play(api, client, d6_campaign, player,
                                                                           other_player) -> None:  # fmt: skip
    """The situation's ``opponent`` (D6's character in play) is loaded by its id, as the roll page loads it."""
    talia = made(client, d6_campaign, player)
    jericho = made(client, d6_campaign, other_player, name="Jericho")
    strength = next(s.id for s in talia.document.stats if s.name == "Strength")
    response = api(player).post(f"/characters/{talia.pk}/rolls", {"kind": "opposed", "item": strength,
                                                                  "opponent": jericho.pk})  # fmt: skip
    assert response.status_code == 201, response.text
    assert response.json()["spec"]["defender"] == "3d"
    assert "Jericho" in response.json()["label"]


def test_a_systems_own_endpoints_stay_under_its_name() -> None:
    from ninja import Router

    from api.extensions import SystemApi, register

    stray = Router()

    @stray.get("/characters/{id}/round")
    def nowhere(request, id: int) -> None:  # pragma: no cover - never mounted
        return None

    with pytest.raises(ValueError, match="must be under /characters/\\{id\\}/elsewhere/"):
        register("elsewhere", SystemApi(router=stray))


def test_the_roll_page_and_a_gms_call_mid_round_are_uses_of_the_declared_round(api, client, d6_campaign, gm,
                                                                                player) -> None:  # fmt: skip
    """The rules README, "The round is one": Talia declares two shots; a shot from the roll page is the first
    declared action, a GM's call for her Perception is a use the round did not declare (one more use from
    then on), and the round's page shows both rolled, the last shot at −2d; a roll built from a sheet that
    changed since is refused (409) and nothing is rolled."""
    from play import requests as calls
    from play.models import RollAsked

    talia = made(client, d6_campaign, player)
    ids = {s.name: s.id for s in (*talia.document.stats, *talia.document.skills)}
    round_url = f"/characters/{talia.pk}/d6/round"
    start = api(player).get(round_url).json()
    shots = [{"item": ids["Firearms"], "difficulty": 8}] * 2
    declared = api(player).post(f"/characters/{talia.pk}/moves/declare-round",
                                {"version": start["version"], "input": {"actions": shots}})  # fmt: skip
    assert declared.status_code == 200, declared.text
    shot = api(player).post(f"/characters/{talia.pk}/rolls", {"item": ids["Firearms"], "difficulty": 8})
    assert shot.status_code == 201, shot.text
    assert shot.json()["spec"]["code"] == "3d+1"  # 4d+1, −1d for two declared actions
    request = calls.call_for_roll(campaign_id=d6_campaign.pk, by=gm, call={"item": "Perception", "difficulty": 10},
                                  characters=[talia.pk], secret=False)  # fmt: skip
    asked = RollAsked.objects.get(request=request)
    answered = api(player).post(
        f"/characters/{talia.pk}/rolls?asked={asked.pk}", {"item": ids["Perception"], "difficulty": 10}
    )
    assert answered.status_code == 201, answered.text
    assert answered.json()["spec"]["steps"] == ["2 actions: −1d", "a use not declared: −1d"]
    body = api(player).get(round_url).json()
    rolled = [(u["label"], u["attempted"], u["roll"]) for u in body["uses"]]
    assert rolled == [
        ("1. Firearms", True, shot.json()["seq"]),
        ("Perception", True, answered.json()["seq"]),
        ("2. Firearms", False, None),
    ]
    assert body["uses"][2]["code"] == "2d+1"  # the call was one more use: −2d for the last shot
    talia.refresh_from_db()
    assert talia.document.round.steps[-1].what == "extra"


def test_a_roll_built_before_the_round_moved_on_is_refused_and_nothing_is_rolled(client, d6_campaign,
                                                                                 player) -> None:  # fmt: skip
    import random

    from characters.write import StaleSheet
    from play import sheet_rolls
    from rules.systems.d6 import round_state

    talia = made(client, d6_campaign, player)
    firearms = next(s.id for s in talia.document.skills if s.name == "Firearms")
    declared = round_state.declare(talia.document, [(firearms, 8)] * 2, running=False, use_preparation=False,
                                   given=d6_campaign.settings)  # fmt: skip
    from characters import write

    talia = write.write(write.lock(talia.pk), declared, by=player, what="declared", sections=["round"])
    built = sheet_rolls.build(talia, [], {"item": firearms, "difficulty": 8}, gm=False)
    sheet_rolls.roll(talia, built, by=player, rng=random.Random(1))
    with pytest.raises(StaleSheet):
        sheet_rolls.roll(talia, built, by=player, rng=random.Random(1))
    assert Roll.objects.count() == 1
