"""D13 through the JSON API: a task rolled from the sheet is the move that leaves its decision, answered
through the moves' endpoint; the table as each role sees it; the sheet's and the dashboard's cost in
queries, whatever the party; the print sheet; export and import into another campaign."""

from __future__ import annotations

import json

import pytest
from django.urls import reverse

from characters.models import Character
from play.models import Roll, Table
from tests.systems.d13.helpers import campaign_of, fresh, made, skill

pytestmark = pytest.mark.django_db


@pytest.fixture
def parish(gm, player, other_player):
    return campaign_of(gm, player, other_player)


@pytest.fixture
def maud(parish, player):
    return made(parish, player)


def test_a_task_rolled_through_the_api_leaves_its_decision_answered_through_the_moves(
    api,
    gm,
    player,
    other_player,
    maud,
    dice,
) -> None:
    dice(3, 7)  # 10 over 8: the player may reroll
    situation = {"level": "average", "ability": "wits", "skill": skill(maud, "Occult")}
    rolled = api(gm).post(f"/characters/{maud.pk}/rolls", situation)
    assert rolled.status_code == 201, rolled.json()
    assert rolled.json()["spec"]["difficulty"] == "average"
    listed = api(player).get(f"/characters/{maud.pk}/moves").json()
    prompt = listed["prompt"]
    assert [c["label"].split(" (")[0] for c in prompt["choices"]] == ["Keep it", "Reroll the d4", "Reroll the d9"]
    assert api(other_player).get(f"/characters/{maud.pk}/moves").json()["prompt"].get("choices") in (None, [])
    reroll = next(c for c in prompt["choices"] if c["input"] == {"die": "d9"})
    refused = api(other_player).post(f"/characters/{maud.pk}/moves/d13-reroll",
                                     {"version": reroll["version"], "input": {"die": "d9"}})  # fmt: skip
    assert refused.status_code == 403
    dice(1)  # 3 + 1 = 4
    made_move = api(player).post(f"/characters/{maud.pk}/moves/d13-reroll",
                                 {"version": reroll["version"], "input": {"die": "d9"}})  # fmt: skip
    assert made_move.status_code == 200, made_move.json()
    assert fresh(maud).document.last.total == 4
    first, second = Roll.objects.filter(character=maud).order_by("seq")
    assert second.follows == first.seq


def test_the_table_through_the_api_hides_the_deck_and_the_other_hands(
    api, gm, player, other_player, maud, dice
) -> None:
    dice(1, 1)  # doubles: a card
    api(gm).post(f"/characters/{maud.pk}/rolls", {"level": "easy", "ability": "will"})
    document = Table.objects.get(campaign=maud.campaign).document
    held = document["hands"][0]["cards"]
    for user, sees in ((gm, True), (player, True), (other_player, False)):
        view = api(user).get(f"/campaigns/{maud.campaign_id}/table").json()["view"]
        said = json.dumps(view)
        assert (held[0] in said) is sees
        assert not any(f'"{code}"' in said for code in document["draw"])  # the deck's order: nobody's
        assert view["draw"] == len(document["draw"])


@pytest.mark.parametrize("viewer", ["gm", "player", "other_player"])
def test_the_d13_sheet_costs_the_same_queries_and_prints(client, parish, player, request, viewer,
                                                         django_assert_num_queries) -> None:  # fmt: skip
    maud = made(parish, player)
    client.force_login(request.getfixturevalue(viewer))
    # the session with its user, the character (its sheet on the row) with its campaign, owner, the viewer's role,
    # its balances, its newest ledger entry, whether a decision waits on it, and what the viewer's view of the
    # campaign's table is made of (its version, their characters in play); the first time, the table's row for
    # that view, drawn afresh, then kept
    for queries in (3, 2):
        with django_assert_num_queries(queries):
            sheet = client.get(reverse("characters:sheet", args=[maud.pk]))
    assert sheet.status_code == 200
    assert "Abilities and skills" in sheet.text
    printed = client.get(reverse("characters:print", args=[maud.pk]))
    assert printed.status_code == 200
    assert "Occult" in printed.text


@pytest.mark.parametrize("party", [1, 3])
def test_the_d13_dashboard_costs_the_same_queries_for_any_party(client, parish, gm, player, party,
                                                                django_assert_num_queries) -> None:  # fmt: skip
    for i in range(party):
        made(parish, player, f"Hero {i}")
    client.force_login(gm)
    with django_assert_num_queries(4):  # as Lucky 13's dashboard (tests/play/test_party_pages.py)
        page = client.get(reverse("play:dashboard", args=[parish.pk]))
    assert page.status_code == 200
    assert page.text.count("Wounds") >= party


def test_a_d13_character_exports_and_imports_into_another_campaign(client, gm, player, other_player, maud) -> None:
    client.force_login(player)
    exported = client.get(reverse("characters:export", args=[maud.pk]))
    assert exported.status_code == 200
    other = campaign_of(gm, player)
    upload = exported.content
    from django.core.files.uploadedfile import SimpleUploadedFile

    sent = SimpleUploadedFile("maud.json", upload, content_type="application/json")
    response = client.post(reverse("characters:import", args=[other.pk]), {"file": sent})
    assert response.status_code in (200, 302), response.content[:500]
    arrived = Character.objects.get(campaign=other, name="Maud")
    assert next(s for s in arrived.document.skills if s.name == "Occult").rating == 4
