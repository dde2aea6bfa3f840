"""Lucky 13's contest through the JSON API (``POST /characters/{id}/lucky13/contest``): the same contest
as the contest page's, through the same code (:mod:`games.lucky13.contests`): for the same sides and the
same dice, the same roll in the log; both sides' dice and totals, the exact chance before the roll and
the result in the log's words in the answer; the same people may roll it, and bad input is refused
with nothing rolled."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign
from characters.models import Character
from play.models import Roll
from rules.systems import lucky13
from tests.campaigns.helpers import html
from tests.characters.conftest import FIGHTING, LONGSWORD_SPEC, UNCLE_OTTO, make_character
from tests.systems.d6.helpers import made
from tests.systems.lucky13.test_contest_pages import orc_in_a_fight

pytestmark = pytest.mark.django_db

#: What the log keeps of a roll that two ways of making the same contest must both keep.
RECORDED = ("kind", "label", "spec", "dice", "total", "outcome", "chance", "chance_of", "secret", "character_id",
            "by_id")  # fmt: skip


def url(character: Character) -> str:
    return f"/characters/{character.pk}/lucky13/contest"


def page(character: Character) -> str:
    return reverse("lucky13:contest", args=[character.pk])


def seeded(monkeypatch, seed: int) -> None:
    """The page's and the API's dice, from the same seed."""
    for module in ("games.lucky13.contest_views", "games.lucky13.contest_api"):
        monkeypatch.setattr(f"{module}.secrets.SystemRandom", lambda: random.Random(seed))


def shown_result(response) -> str:
    """The result the page shows for the contest it rolled: the log's words, in its entry's outcome."""
    entry = html(response).split('id="contest-result"')[1]
    return re.search(r'<span class="outcome [a-z]+">([^<]+)</span>', entry).group(1)


def recorded(roll: Roll) -> dict[str, Any]:
    return {field: getattr(roll, field) for field in RECORDED}


@pytest.fixture
def otto(campaign, other_player) -> Character:
    return make_character(campaign, other_player, name="Otto")


@pytest.fixture
def carl(campaign, other_player) -> Character:
    return make_character(campaign, other_player, name="Carl")


#: The same contests as the page's form sends them and as the API's body gives them: "OTTO", "CARL" and
#: "ORC" stand for the characters' ids and the NPC's key.
CONTESTS = {
    "against a character": ("player", {"opponent": "OTTO"}, {"opponent": "OTTO"}),
    "both sides take what a check takes": (
        "player",
        {"specialization": LONGSWORD_SPEC, "ability_roll": "background", "asset": UNCLE_OTTO, "opponent": "OTTO",
         "opponent_specialization": LONGSWORD_SPEC, "opponent_asset": UNCLE_OTTO, "opponent_helper": "CARL",
         "opponent_help_with": "ability", "opponent_ability_roll": "impairment", "resists": "us"},
        {"specialization": LONGSWORD_SPEC, "ability_roll": "background", "asset": UNCLE_OTTO, "opponent": "OTTO",
         "opponent_specialization": LONGSWORD_SPEC, "opponent_asset": UNCLE_OTTO, "opponent_helper": "CARL",
         "opponent_help_with": "ability", "opponent_ability_roll": "impairment", "resists": "us"},
    ),
    "a race against the GM's dice, in secret": (
        "gm",
        {"opponent_dice": "d12 + d8", "opponent_name": "the door guard", "resists": "neither", "skill_steps": "2",
         "opponent_ability_steps": "-1", "secret": "on"},
        {"opponent_dice": ["d12", "d8"], "opponent_name": "the door guard", "resists": "neither", "skill_steps": 2,
         "opponent_ability_steps": -1, "secret": True},
    ),
    "against an NPC of the encounter": ("gm", {"opponent_npc": "ORC"}, {"opponent_npc": "ORC"}),
    "against another skill of the other character": (
        "player", {"opponent": "OTTO", "opponent_skill": "Sneaking"}, {"opponent": "OTTO", "opponent_skill": "Sneaking"}
    ),
}  # fmt: skip


def named(given: dict[str, Any], ids: dict[str, Any]) -> dict[str, Any]:
    """``given`` with the stand-ins ("OTTO"…) for what each test makes replaced by their ids."""
    return {key: ids.get(value, value) if isinstance(value, str) else value for key, value in given.items()}


@pytest.mark.parametrize(("who", "form", "body"), CONTESTS.values(), ids=CONTESTS.keys())
@pytest.mark.parametrize("seed", [1, 4, 7])
def test_the_api_and_the_page_record_the_same_contest(
    request, api, client, monkeypatch, campaign, gm, player, otto, carl, who, form, body, seed
) -> None:
    brunella = make_character(campaign, player)
    orc = orc_in_a_fight(campaign, gm)
    ids = {"OTTO": otto.pk, "CARL": carl.pk, "ORC": f"{orc.pk}:reflex_combat"}
    form, body = {"skill": FIGHTING, **named(form, ids)}, {"skill": FIGHTING, **named(body, ids)}
    user = request.getfixturevalue(who)
    seeded(monkeypatch, seed)
    client.force_login(user)
    shown = client.post(page(brunella), form, follow=True)
    assert shown.status_code == 200
    response = api(user).post(url(brunella), body)
    assert response.status_code == 201, response.content

    on_the_page, through_the_api = Roll.objects.order_by("seq")
    assert recorded(through_the_api) == recorded(on_the_page)
    answer = response.json()
    assert answer["roll"]["seq"] == through_the_api.seq
    assert answer["label"] == through_the_api.label
    assert answer["result"] == shown_result(shown)  # the log's words for the page's roll of the same dice
    spec, outcome = through_the_api.spec, through_the_api.outcome
    ours, theirs = answer["sides"]
    assert (ours["name"], ours["dice"], ours["ability_roll"]) == ("Brunella", spec["attacker"], spec["attacker_roll"])
    assert (theirs["dice"], theirs["ability_roll"]) == (spec["defender"], spec["defender_roll"])
    assert theirs["name"] == spec["sheet"]["opponent"]["name"]
    assert (ours["total"], theirs["total"]) == (through_the_api.total, outcome["defender_total"])
    assert (ours["dilemma"], theirs["dilemma"]) == (outcome["attacker_dilemma"], outcome["defender_dilemma"])
    assert answer["prevails"] == {"attacker": "us", "defender": "them", "": "neither"}[outcome["winner"]]
    dice = {key: value for key, value in spec.items() if key not in ("label", "sheet", "call")}
    chance = lucky13.opposed_chance(lucky13.parse_opposed(dice))
    assert answer["chance"]["p_attacker_prevails"] == through_the_api.chance == ratio(chance.p_attacker_prevails)
    for key in ("p_attacker_wins", "p_draw", "p_defender_wins", "p_defender_prevails", "p_attacker_dilemma",
                "p_defender_dilemma"):  # fmt: skip
        assert answer["chance"][key] == ratio(getattr(chance, key))


def ratio(p) -> str:
    return f"{p.numerator}/{p.denominator}"


@pytest.mark.parametrize(
    ("resists", "faces", "winner", "words"),
    [
        ("them", [5, 5, 1, 2], "attacker", "Wins"),
        ("them", [1, 2, 5, 5], "defender", "Loses"),
        ("them", [3, 4, 4, 3], "defender", "A draw: the other side holds"),
        ("us", [3, 4, 4, 3], "attacker", "A draw: this side holds"),
        ("neither", [3, 4, 4, 3], "", "A draw"),
    ],
)
def test_the_result_is_in_the_logs_words_for_each_way_a_contest_ends(
    api, client, monkeypatch, campaign, player, resists, faces, winner, words
) -> None:
    """Each way a contest ends, made to happen (d10 + d10 a side): the API says what the page's log says."""
    brunella = make_character(campaign, player)
    for module in ("games.lucky13.contest_views", "games.lucky13.contest_api"):
        monkeypatch.setattr(f"{module}.secrets.SystemRandom", lambda: Faces(faces))
    client.force_login(player)
    form = {"skill": FIGHTING, "opponent_dice": "d10 + d10", "resists": resists}
    shown = client.post(page(brunella), form, follow=True)
    body = {"skill": FIGHTING, "opponent_dice": ["d10", "d10"], "resists": resists}
    answer = api(player).post(url(brunella), body).json()
    assert (answer["result"], answer["roll"]["outcome"]["winner"]) == (words, winner)
    assert shown_result(shown) == words
    assert answer["prevails"] == {"attacker": "us", "defender": "them", "": "neither"}[winner]


class Faces(random.Random):
    """Dice that show the given faces, in turn."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = iter(faces)

    def randint(self, a: int, b: int) -> int:
        return next(self.faces)


# --- Refusals: nothing is rolled ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("body", "field", "words"),
    [
        ({}, "opponent", "Name the other side"),
        ({"opponent_dice": ["d8", "d6"], "opponent": "OTTO"}, "opponent_dice", "not both"),
        ({"opponent_dice": ["d7"]}, "opponent_dice[0]", "d7"),
        ({"opponent": 999_999}, "opponent", "another character in play"),
        ({"opponent": "OTTO", "opponent_skill": "Juggling"}, "opponent_skill", "no die in Juggling"),
        ({"opponent": "OTTO", "helper": "OTTO"}, "helper", "cannot help this one"),
        ({"opponent": "OTTO", "opponent_asset": 999}, "opponent_asset", ""),
        ({"opponent_dice": ["d8"], "opponent_asset": UNCLE_OTTO}, "opponent_asset", "no sheet"),
        ({"opponent": "DYING"}, "opponent", "Dying"),
        ({"opponent": "OTTO", "specialization": 999}, "specialization", ""),
    ],
)
def test_a_side_that_cannot_be_built_is_a_400_naming_the_field(
    api, campaign, player, other_player, otto, body, field, words
) -> None:
    brunella = make_character(campaign, player)
    dying = make_character(campaign, other_player, name="Dying", hit_points=0)
    ids = {"OTTO": otto.pk, "DYING": dying.pk}
    body = {"skill": FIGHTING, **named(body, ids)}
    response = api(player).post(url(brunella), body)
    assert response.status_code == 400, response.content
    assert response.json()["code"] == "invalid_roll"
    assert field in response.json()["errors"]
    assert words in response.json()["message"]
    assert not Roll.objects.exists()


def test_the_gm_names_one_other_side_and_an_npc_of_the_encounter(api, campaign, gm, player, otto) -> None:
    brunella = make_character(campaign, player)
    orc = orc_in_a_fight(campaign, gm)
    both = api(gm).post(url(brunella), {"skill": FIGHTING, "opponent_npc": f"{orc.pk}:reflex", "opponent": otto.pk})
    assert both.status_code == 400
    assert both.json()["errors"] == {"opponent_npc": "Name one other side: a character, the GM's dice or an NPC."}
    gone = api(gm).post(url(brunella), {"skill": FIGHTING, "opponent_npc": "999999:reflex"})
    assert gone.status_code == 400
    assert "999999:reflex" in gone.json()["errors"]["opponent_npc"]
    assert not Roll.objects.exists()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ({"opponent": "OTTO", "skill_steps": 2}, "Only the GM can add extra steps"),
        ({"opponent": "OTTO", "opponent_npc_helper": "Big Tuna", "opponent_npc_helper_die": "d8"}, "Only the GM"),
        ({"opponent_npc": "ORC"}, "Only the GM opposes a contest with an NPC"),
        ({"opponent": "OTTO", "secret": True}, "Only the GM can roll in secret"),
    ],
)
def test_the_gms_parts_from_a_player_are_a_403(api, campaign, gm, player, otto, body, message) -> None:
    brunella = make_character(campaign, player)
    orc = orc_in_a_fight(campaign, gm)
    ids = {"OTTO": otto.pk, "ORC": f"{orc.pk}:reflex"}
    body = {"skill": FIGHTING, **named(body, ids)}
    response = api(player).post(url(brunella), body)
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert message in response.json()["message"]
    assert not Roll.objects.exists()


def test_who_may_start_a_contest_is_who_may_on_the_page(
    api, client, campaign, gm, player, other_player, outsider, otto
) -> None:
    brunella = make_character(campaign, player)
    body = {"skill": FIGHTING, "opponent": otto.pk}
    form = {"skill": FIGHTING, "opponent": otto.pk}

    def both(user) -> tuple[int, int]:
        client.force_login(user)
        return api(user).post(url(brunella), body).status_code, client.post(page(brunella), form).status_code

    assert both(other_player) == (403, 403)  # a member, but not Brunella's player
    assert both(outsider) == (404, 404)
    assert api(None).post(url(brunella), body).status_code == 401
    Campaign.objects.filter(pk=campaign.pk).update(players_call_rolls=False)
    assert both(player) == (403, 403)  # the GM calls the rolls here
    refused = api(player).post(url(brunella), body)
    assert "the GM calls for rolls" in refused.json()["message"]
    assert not Roll.objects.exists()
    assert both(gm)[0] == 201  # the GM's own contest


def test_a_draft_or_an_archived_character_or_campaign_has_no_contest(api, client, campaign, gm, player, otto) -> None:
    draft = make_character(campaign, player, name="Draft", status=Character.Status.DRAFT)
    body = {"skill": FIGHTING, "opponent": otto.pk}
    client.force_login(player)
    response = api(player).post(url(draft), body)
    assert (response.status_code, response.json()["code"]) == (409, "conflict")
    assert "A draft cannot roll" in response.json()["message"]
    assert client.post(page(draft), body).status_code == 409
    archived = make_character(campaign, player, name="Gone", status=Character.Status.ARCHIVED)
    assert api(player).post(url(archived), body).status_code == 403
    brunella = make_character(campaign, player)
    Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    closed = api(gm).post(url(brunella), body)
    assert closed.status_code == 403
    assert "archived" in closed.json()["message"]
    assert not Roll.objects.exists()


def test_another_systems_character_has_no_contest(api, client, d6_campaign, player) -> None:
    talia = made(client, d6_campaign, player)
    response = api(player).post(url(talia), {"skill": 1, "opponent_dice": ["d6"]})
    assert response.status_code == 404
    assert response.json() == {"code": "not_found", "message": "No contests here"}
    assert not Roll.objects.exists()


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"opponent_dice": ["d6"]}, "skill"),
        ({"skill": "Fighting", "opponent_dice": ["d6"]}, "skill"),
        ({"skill": FIGHTING, "opponent_dice": ["d6"], "resists": "both"}, "resists"),
        ({"skill": FIGHTING, "opponent_dice": ["d6"] * 9}, "opponent_dice"),
        ({"skill": FIGHTING, "opponent_dice": []}, "opponent_dice"),
        ({"skill": FIGHTING, "opponent_dice": ["d6"], "opponent_name": "x" * 61}, "opponent_name"),
        ({"skill": FIGHTING, "opponent_dice": ["d6"], "opponent_name": "the\x00guard"}, "opponent_name"),
        ({"skill": FIGHTING, "opponent_npc": "the orc"}, "opponent_npc"),
        ({"skill": FIGHTING, "opponent_dice": ["d6"], "skill_steps": 11}, "skill_steps"),
        ({"skill": FIGHTING, "opponent_dice": ["d6"], "secret": "yes"}, "secret"),
        ({"skill": FIGHTING, "opponent_dice": ["d6"], "weapon_die": "d8"}, "weapon_die"),
    ],
)
def test_a_malformed_contest_is_a_422_naming_the_field(api, campaign, gm, player, body, field) -> None:
    brunella = make_character(campaign, player)
    response = api(gm).post(url(brunella), body)
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"
    assert field in response.json()["errors"]
    assert not Roll.objects.exists()


# --- The schema -----------------------------------------------------------------------------------


def test_the_schema_documents_the_contest(client) -> None:
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    contest = paths["/api/v1/characters/{id}/lucky13/contest"]["post"]
    assert set(contest["responses"]) == {"201", "400", "401", "403", "404", "409", "413", "422", "429"}
    assert contest["tags"] == ["Lucky 13"]
