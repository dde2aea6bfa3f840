"""Roll proposals in the API: a player proposes, lists their own and withdraws; the GM lists the open
ones with their exact chance, calls one (as proposed or changed) or declines it; who may do which,
and bad input refused with nothing changed."""

from __future__ import annotations

from fractions import Fraction

import pytest

from play import sheet_rolls
from play.models import RollProposal, RollRequest
from tests.characters.conftest import FIGHTING, LONGSWORD_SPEC, SNEAKING, UNCLE_OTTO, make_character

pytestmark = pytest.mark.django_db

SNEAK = {"kind": "check", "skill": SNEAKING, "difficulty": "difficult", "ability_roll": "background"}


@pytest.fixture
def table(campaign):
    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    return campaign


@pytest.fixture
def brunella(table, player):
    return make_character(table, player, name="Brunella")


def url(campaign, *rest) -> str:
    return "/".join([f"/campaigns/{campaign.pk}/roll-proposals", *map(str, rest)])


def test_a_player_proposes_and_the_gm_calls_it(api, table, gm, player, brunella) -> None:
    as_gm, as_player = api(gm), api(player)
    body = {"character": brunella.pk, "situation": SNEAK, "note": "Quietly"}
    response = as_player.post(url(table), body)
    assert response.status_code == 201, response.content
    made = response.json()
    assert made["label"] == "Sneaking check, Difficult (d8), with a background"
    assert made["call"]["skill"] == "Sneaking"
    assert (made["state"], made["note"], made["by"], made["request"]) == ("open", "Quietly", "player", None)
    expected = sheet_rolls.chance_of(brunella, sheet_rolls.build_proposed(brunella, made["call"], made["added"]))
    assert Fraction(made["chance"]) == expected

    listed = as_gm.get(url(table)).json()["proposals"]
    assert [p["id"] for p in listed] == [made["id"]]
    assert listed[0]["chance"] == made["chance"]
    assert [p["id"] for p in as_player.get(url(table)).json()["proposals"]] == [made["id"]]

    called = as_gm.post(url(table, made["id"], "call"), {})
    assert called.status_code == 201, called.content
    request = called.json()
    assert request["call"] == made["call"]
    assert [a["character"] for a in request["asked"]] == [brunella.pk]
    assert as_gm.get(url(table)).json()["proposals"] == []
    mine = as_player.get(url(table)).json()["proposals"]
    assert (mine[0]["state"], mine[0]["request"], mine[0]["chance"]) == ("called", request["id"], None)
    assert as_gm.post(url(table, made["id"], "call"), {}).status_code == 409
    assert RollRequest.objects.count() == 1


def test_the_gm_changes_the_call_or_declines(api, table, gm, player, other_player, brunella) -> None:
    otto = make_character(table, other_player, name="Otto")
    as_gm, as_player = api(gm), api(player)
    first = as_player.post(url(table), {"character": brunella.pk, "situation": SNEAK}).json()
    second = as_player.post(url(table), {"character": brunella.pk, "situation": {**SNEAK, "skill": FIGHTING}}).json()
    changed = {"call": {**first["call"], "difficulty": "easy"}, "characters": [brunella.pk, otto.pk], "secret": True}
    called = as_gm.post(url(table, first["id"], "call"), changed)
    assert called.status_code == 201, called.content
    assert called.json()["secret"] is True
    assert called.json()["call"]["difficulty"] == "easy"
    declined = as_gm.post(url(table, second["id"], "decline"))
    assert declined.status_code == 200
    assert declined.json()["state"] == "declined"
    assert as_gm.post(url(table, second["id"], "decline")).status_code == 409
    assert {p["state"] for p in as_player.get(url(table)).json()["proposals"]} == {"called", "declined"}


def test_the_player_withdraws_their_own(api, table, gm, player, other_player, brunella) -> None:
    made = api(player).post(url(table), {"character": brunella.pk, "situation": SNEAK}).json()
    assert api(other_player).post(url(table, made["id"], "withdraw")).status_code == 404
    assert api(gm).post(url(table, made["id"], "withdraw")).status_code == 403
    assert api(other_player).get(url(table)).json()["proposals"] == []
    withdrawn = api(player).post(url(table, made["id"], "withdraw"))
    assert withdrawn.status_code == 200
    assert withdrawn.json()["state"] == "withdrawn"
    assert api(player).post(url(table, made["id"], "withdraw")).status_code == 409
    assert api(player).get(url(table)).json()["proposals"] == []


def test_who_may_do_what(api, table, gm, player, other_player, outsider, brunella) -> None:
    body = {"character": brunella.pk, "situation": SNEAK}
    assert api(other_player).post(url(table), body).status_code == 403
    assert api(outsider).post(url(table), body).status_code == 404
    assert api(gm).post(url(table), body).status_code == 403
    assert not RollProposal.objects.exists()
    made = api(player).post(url(table), body).json()
    for user, status in ((player, 403), (other_player, 403), (outsider, 404)):
        assert api(user).post(url(table, made["id"], "call"), {}).status_code == status
        assert api(user).post(url(table, made["id"], "decline")).status_code == status
    assert api(outsider).get(url(table)).status_code == 404
    assert RollProposal.objects.get().is_open
    assert not RollRequest.objects.exists()


@pytest.mark.parametrize(
    ("changes", "status"),
    [
        ({"character": None}, 422),
        ({"situation": {**SNEAK, "skill": "Sneaking"}}, 422),  # the skill by its id, not its name
        ({"situation": {**SNEAK, "difficulty": "trivial"}}, 422),
        ({"situation": {**SNEAK, "colour": "red"}}, 422),
        ({"note": "x" * 201}, 422),
        ({"note": "two\nlines"}, 422),
        ({"situation": {**SNEAK, "skill": 99}}, 400),
        ({"situation": {**SNEAK, "ability": "luck"}}, 422),
        ({"situation": {**SNEAK, "skill_steps": 2}}, 403),  # the GM's part
        ({"character": 999999}, 404),
    ],
)
def test_bad_input_is_refused_and_nothing_is_proposed(api, table, player, brunella, changes, status) -> None:
    body = {"character": brunella.pk, "situation": SNEAK, **changes}
    response = api(player).post(url(table), {key: value for key, value in body.items() if value is not None})
    assert response.status_code == status, response.content
    assert not RollProposal.objects.exists()


def test_a_character_of_another_campaign_is_not_found(api, table, gm, player) -> None:
    from campaigns.models import Campaign, Membership

    elsewhere = Campaign.objects.create(name="Elsewhere", system="lucky13", players_call_rolls=False)
    Membership.objects.create(campaign=elsewhere, user=player, role=Membership.Role.PLAYER)
    stranger = make_character(elsewhere, player, name="Stranger")
    response = api(player).post(url(table), {"character": stranger.pk, "situation": SNEAK})
    assert response.status_code == 404
    assert not RollProposal.objects.exists()


def test_where_players_call_their_own_rolls_nothing_is_proposed(api, campaign, player) -> None:
    brunella = make_character(campaign, player, name="Brunella")
    response = api(player).post(url(campaign), {"character": brunella.pk, "situation": SNEAK})
    assert response.status_code == 409
    assert not RollProposal.objects.exists()


def test_a_proposal_carries_what_the_sheet_adds_and_the_answer_rolls_it(api, table, gm, player, brunella) -> None:
    """Issue 23: Fighting with the Longsword specialization and Uncle Otto, proposed with another ability,
    reaches the GM whole, at the chance of the roll itself; the GM calls it, and the player's answer
    (naming only the skill) rolls that very roll."""
    otto = make_character(table, gm, name="Otto")
    situation = {"skill": FIGHTING, "specialization": LONGSWORD_SPEC, "asset": UNCLE_OTTO, "helper": otto.pk,
                 "ability": "pulse", "difficulty": "challenging"}  # fmt: skip
    as_gm, as_player = api(gm), api(player)
    made = as_player.post(url(table), {"character": brunella.pk, "situation": situation})
    assert made.status_code == 201, made.content
    proposed = made.json()
    assert proposed["call"]["ability"] == "pulse"
    assert proposed["added"] == {"specialization": LONGSWORD_SPEC, "asset": UNCLE_OTTO, "helper": otto.pk,
                                 "help_with": "skill"}  # fmt: skip
    assert "Longsword 1: Skill +1" in proposed["steps"]
    helpers = sheet_rolls.helpers_for(brunella, helper=otto.pk, limit=0)
    expected = sheet_rolls.chance_of(brunella, sheet_rolls.build(brunella, helpers, situation, gm=False))
    assert Fraction(proposed["chance"]) == expected
    assert as_gm.get(url(table)).json()["proposals"][0]["roll"] == proposed["roll"]

    request = as_gm.post(url(table, proposed["id"], "call"), {}).json()
    rolled = as_player.post(f"/characters/{brunella.pk}/rolls?asked={request['asked'][0]['id']}", {"skill": FIGHTING})
    assert rolled.status_code == 201, rolled.content
    roll = rolled.json()
    assert Fraction(roll["chance"]) == expected
    assert roll["spec"]["sheet"]["assist"]["character"] == otto.pk
    assert roll["spec"]["sheet"]["specialization"]["id"] == LONGSWORD_SPEC
