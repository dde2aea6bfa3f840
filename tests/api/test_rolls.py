"""The rolls endpoints: a roll from the sheet (built as the roll page builds it, its exact chance,
every die), the log a page at a time as each member sees it, and the hash-chain check."""

from __future__ import annotations

import json
import random
from fractions import Fraction

import pytest
from django.db import connection
from django.test import override_settings
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign, Membership
from characters.models import Character
from play import rolls
from play.models import Roll, RollKind
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import AbilityRoll, Check, Difficulty, Explosion
from rules.systems.lucky13.record import check_roll_view
from tests.characters.conftest import (
    FIGHTING,
    HEALING,
    LONGSWORD_SPEC,
    OLD_MAP,
    SCHOLARSHIP,
    TELEPORT,
    UNCLE_OTTO,
    make_character,
)

pytestmark = pytest.mark.django_db

D = StepDie.parse
CAST = ("gm", "player", "other_player", "outsider", None)


@pytest.fixture
def brunella(campaign, player) -> Character:
    """The player's fighter: Reflex d10, Fighting d10 with Longsword 1, Uncle Otto (Standard 3) helps Fighting."""
    return make_character(campaign, player)


@pytest.fixture
def otto(campaign, other_player) -> Character:
    """Another character of the party, who can assist: Fighting d10, Reflex d10."""
    return make_character(campaign, other_player, name="Otto")


@pytest.fixture
def stranger(outsider) -> Character:
    """A character in another campaign."""
    elsewhere = Campaign.objects.create(name="Elsewhere", system="lucky13")
    Membership.objects.create(campaign=elsewhere, user=outsider, role=Membership.Role.GM)
    return make_character(elsewhere, outsider, name="Stranger")


def user(request: pytest.FixtureRequest, name: str | None):
    return request.getfixturevalue(name) if name else None


def seeded(monkeypatch: pytest.MonkeyPatch, seed: int) -> None:
    monkeypatch.setattr("api.routers.rolls.secrets.SystemRandom", lambda: random.Random(seed))


def record(campaign, by, *, secret: bool = False, total: int = 8, label: str = "2d6+1") -> Roll:
    return rolls.record_roll(
        campaign_id=campaign.pk,
        by=by,
        kind=RollKind.FREE,
        spec={"expression": "2d6+1"},
        dice=[{"label": "2d6", "dice": [{"sides": 6, "faces": [3, 4]}], "total": 7}],
        total=total,
        outcome={"modifier": 1},
        chance=Fraction(7, 12),
        chance_of="total ≥ 8",
        secret=secret,
        label=label,
    )


# --- Who may roll, read and verify ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "roll", "read"),
    [("gm", 201, 200), ("player", 201, 200), ("other_player", 403, 200), ("outsider", 404, 404), (None, 401, 401)],
)
def test_the_cast(api, request, brunella, who, roll, read) -> None:
    client = api(user(request, who))
    response = client.post(f"/characters/{brunella.pk}/rolls", {"skill": FIGHTING})
    assert response.status_code == roll
    assert response.json()["code" if roll != 201 else "kind"]
    assert Roll.objects.count() == (1 if roll == 201 else 0)
    assert client.get(f"/campaigns/{brunella.campaign_id}/rolls").status_code == read
    assert client.get(f"/campaigns/{brunella.campaign_id}/rolls/verify").status_code == read


def test_a_draft_is_the_owners_and_an_archived_character_rolls_nothing(api, campaign, gm, player, other_player) -> None:
    draft = make_character(campaign, player, name="Draft", status=Character.Status.DRAFT)
    assert api(other_player).post(f"/characters/{draft.pk}/rolls", {"skill": FIGHTING}).status_code == 404
    archived = make_character(campaign, player, name="Gone", status=Character.Status.ARCHIVED)
    response = api(player).post(f"/characters/{archived.pk}/rolls", {"skill": FIGHTING})
    assert (response.status_code, response.json()["code"]) == (403, "forbidden")
    assert not Roll.objects.exists()


@pytest.mark.parametrize("bad_id", [0, -1, 2**63, "x"])
def test_an_id_that_cannot_be_a_row_is_a_422(api, player, bad_id) -> None:
    client = api(player)
    assert client.post(f"/characters/{bad_id}/rolls", {"skill": FIGHTING}).status_code == 422
    assert client.get(f"/campaigns/{bad_id}/rolls").status_code == 422
    assert client.get(f"/campaigns/{bad_id}/rolls/verify").status_code == 422


def test_an_id_that_names_nothing_is_a_404(api, player) -> None:
    assert api(player).post(f"/characters/{2**63 - 1}/rolls", {"skill": FIGHTING}).status_code == 404
    assert api(player).get("/campaigns/999999/rolls").status_code == 404


# --- Rolling from the sheet -----------------------------------------------------------------------


def test_the_issues_example_rolls_and_records_every_die_with_the_exact_chance(
    api, brunella, player, monkeypatch
) -> None:
    seeded(monkeypatch, 7)
    body = {
        "kind": "check",
        "skill": FIGHTING,
        "specialization": LONGSWORD_SPEC,
        "difficulty": "moderate",
        "ability_roll": "background",
    }
    response = api(player).post(f"/characters/{brunella.pk}/rolls", body)
    assert response.status_code == 201

    # Reflex d10, background; Fighting d10 + Longsword 1 = d12; Moderate d10; Cinematic (the default).
    check = Check(D("d10"), D("d12"), D("d10"), AbilityRoll.BACKGROUND, Explosion.CINEMATIC)
    rolled = lucky13.roll_check(check, random.Random(7))
    roll = Roll.objects.get()
    data = response.json()
    assert data["chance"] == roll.chance == "1081/1200"
    assert Fraction(data["chance"]) == lucky13.check_chance(check).p_success
    assert (data["id"], data["seq"], data["kind"], data["character"]) == (roll.pk, 1, "check", brunella.pk)
    assert data["dice"] == roll.dice == check_roll_view(rolled)
    assert (data["total"], data["success"], data["margin"], data["dilemma"]) == (
        rolled.total,
        rolled.success,
        rolled.margin,
        rolled.dilemma,
    )
    assert data["by"] == "player"
    assert (data["hidden"], data["secret"]) == (False, False)
    faces = [die["faces"] for group in data["dice"]["pool"]["ability_rolls"] for die in group["dice"]]
    assert len(faces) == 2  # the Ability die twice, for the background
    assert roll.spec["sheet"]["specialization"]["name"] == "Longsword"
    assert (
        data["spec"]["label"] == roll.spec["label"] == "Reflex + Fighting (Longsword 1) vs Moderate, with a background"
    )
    assert data["label"] == roll.label == roll.spec["label"]
    assert data["system"] == roll.system == "lucky13"


def test_the_api_builds_the_same_check_as_the_roll_page(api, client, brunella, otto, gm, monkeypatch) -> None:
    """The same choices, as JSON to the API and as a form to the page, give the same recorded spec and chance."""
    seeded(monkeypatch, 11)
    monkeypatch.setattr("games.lucky13.roll_views.secrets.SystemRandom", lambda: random.Random(11))
    body = {
        "skill": FIGHTING,
        "specialization": LONGSWORD_SPEC,
        "asset": UNCLE_OTTO,
        "helper": otto.pk,
        "help_with": "ability",
        "difficulty": "difficult",
        "ability_roll": "impairment",
        "ability_steps": -1,
        "skill_steps": 2,
    }
    assert api(gm).post(f"/characters/{brunella.pk}/rolls", body).status_code == 201
    client.force_login(gm)
    form = {**body, "ability": "reflex"}
    assert client.post(f"/characters/{brunella.pk}/roll/", form, HTTP_HX_REQUEST="true").status_code == 200
    from_api, from_page = Roll.objects.order_by("seq")
    assert from_api.spec == from_page.spec
    assert from_api.chance == from_page.chance
    assert from_api.dice == from_page.dice
    # Reflex d10 + Otto's Reflex d10 (4 steps) − 1; Fighting d10 + Longsword 1 + Otto the asset 3 + 2; Difficult d8.
    check = Check(D("d10").step(3), D("d10").step(6), D("d8"), AbilityRoll.IMPAIRMENT, Explosion.CINEMATIC)
    assert Fraction(from_api.chance) == lucky13.check_chance(check).p_success


def test_things_are_named_by_id_and_the_log_keeps_their_words(api, brunella, otto, player) -> None:
    body = {"skill": FIGHTING, "specialization": LONGSWORD_SPEC, "helper": otto.pk}
    response = api(player).post(f"/characters/{brunella.pk}/rolls", body)
    assert response.status_code == 201
    sheet = Roll.objects.get().spec["sheet"]
    assert (sheet["skill_id"], sheet["specialization"]["id"], sheet["assist"]["character"]) == (
        FIGHTING,
        LONGSWORD_SPEC,
        otto.pk,
    )
    assert (sheet["skill_name"], sheet["specialization"]["name"], sheet["assist"]["name"]) == (
        "Fighting",
        "Longsword",
        "Otto",
    )


@pytest.mark.parametrize("by_name", [{"skill": "Fighting"}, {"skill": FIGHTING, "asset": "Uncle Otto"},
                                     {"skill": FIGHTING, "helper": "Otto"}])  # fmt: skip
def test_a_name_is_no_reference(api, brunella, otto, player, by_name) -> None:
    """Things are named by id: a name would mean another thing once renamed."""
    response = api(player).post(f"/characters/{brunella.pk}/rolls", by_name)
    assert (response.status_code, response.json()["code"]) == (422, "invalid_request")
    assert not Roll.objects.exists()


def test_a_reaction_check_rolls_charm_stepped_by_reputation(api, brunella, player) -> None:
    Character.objects.filter(pk=brunella.pk).update(sheet={**brunella.sheet, "reputation": 2})
    response = api(player).post(f"/characters/{brunella.pk}/rolls", {"kind": "reaction", "skill": SCHOLARSHIP})
    assert response.status_code == 201
    roll = Roll.objects.get()
    assert roll.kind == response.json()["kind"] == "reaction"
    check = Check(D("d8"), D("d6"), D("d10"))  # Charm d4 + 2, Scholarship d6, Moderate
    assert Fraction(response.json()["chance"]) == lucky13.check_chance(check).p_success
    assert roll.spec["label"] == "Charm + Scholarship reaction vs Moderate"


def test_the_gm_adds_steps_and_a_player_may_not(api, brunella, gm, player) -> None:
    body = {"skill": HEALING, "ability_steps": -2, "skill_steps": 3}
    response = api(player).post(f"/characters/{brunella.pk}/rolls", body)
    assert (response.status_code, response.json()["code"]) == (403, "forbidden")
    assert not Roll.objects.exists()
    assert api(gm).post(f"/characters/{brunella.pk}/rolls", body).status_code == 201
    assert Roll.objects.get().spec["ability"] == D("d6").step(-2).label
    assert Roll.objects.get().spec["skill"] == D("d6").step(3).label


def test_the_campaigns_explosion_mode_is_used(api, brunella, gm) -> None:
    Campaign.objects.filter(pk=brunella.campaign_id).update(options={"explosion": "gritty"})
    response = api(gm).post(f"/characters/{brunella.pk}/rolls", {"skill": FIGHTING})
    assert response.json()["spec"]["explosion"] == "gritty"


@pytest.mark.parametrize(
    "bad",
    [
        {"skill": FIGHTING, "luck": 3},  # an unknown field
        {"skill": FIGHTING, "kind": "juggle"},
        {"skill": True},
        {"skill": 1.5},
        {"skill": ""},
        {"skill": "5"},
        {"skill": "Fight\x00ing"},
        {"skill": 0},
        {"skill": 2**53 + 1},  # past any item id
        {"skill": FIGHTING, "difficulty": "impossible"},
        {"skill": FIGHTING, "ability": "luck"},
        {"skill": FIGHTING, "ability_roll": "twice"},
        {"skill": FIGHTING, "ability_steps": 11},
        {"skill": FIGHTING, "skill_steps": "2"},
        {"skill": FIGHTING, "skill_steps": 1.5},
        {"skill": FIGHTING, "help_with": "neither"},
        {"skill": FIGHTING, "specialization": [LONGSWORD_SPEC]},
        {"skill": FIGHTING, "helper": 2**63},
        [FIGHTING],
        "Fighting",
    ],
)
def test_a_malformed_body_is_a_422_and_nothing_is_rolled(api, brunella, gm, bad) -> None:
    response = api(gm).post(f"/characters/{brunella.pk}/rolls", bad)
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"
    assert not Roll.objects.exists()


@pytest.mark.parametrize("body", [{}, {"skill": None}])
def test_another_systems_roll_is_a_400_and_nothing_is_rolled(api, brunella, gm, body) -> None:
    """A roll the schema allows (another system's situation: its defaults, its skill left out), but not
    one of Lucky 13: the rules refuse it, by the field it lacks."""
    response = api(gm).post(f"/characters/{brunella.pk}/rolls", body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_roll"
    assert "skill" in response.json()["errors"]
    assert not Roll.objects.exists()


def test_a_whole_number_written_with_a_fraction_is_that_number(api, brunella, gm) -> None:
    """JSON Schema's integer is a number: 1.0 is 1."""
    response = api(gm).post(f"/characters/{brunella.pk}/rolls", {"skill": FIGHTING, "skill_steps": 1.0})
    assert response.status_code == 201, response.json()
    assert Roll.objects.count() == 1


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        ({"skill": 999}, "skill"),
        ({"skill": LONGSWORD_SPEC}, "skill"),  # a specialization's id is no skill's
        ({"skill": FIGHTING, "specialization": TELEPORT}, "specialization"),  # of another skill
        ({"skill": FIGHTING, "asset": OLD_MAP}, "asset"),  # helps Scholarship only
        ({"skill": FIGHTING, "asset": 999999}, "asset"),
        ({"skill": FIGHTING, "helper": "BRUNELLA"}, "helper"),  # not her own helper
        ({"skill": FIGHTING, "helper": "STRANGER"}, "helper"),  # in another campaign
        ({"kind": "reaction", "skill": FIGHTING, "specialization": LONGSWORD_SPEC}, "specialization"),
        ({"kind": "reaction", "skill": FIGHTING, "ability": "reflex"}, "ability"),
    ],
)
def test_a_choice_the_sheet_does_not_offer_is_a_400_naming_it(api, brunella, otto, stranger, gm, bad, field) -> None:
    ids = {"BRUNELLA": brunella.pk, "STRANGER": stranger.pk}
    body = {key: ids.get(value, value) for key, value in bad.items()}
    response = api(gm).post(f"/characters/{brunella.pk}/rolls", body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_roll"
    assert field in response.json()["errors"]
    assert response.json()["message"][0].isupper()  # a sentence for people, not a field's name
    assert not Roll.objects.exists()


def test_a_helper_without_the_skill_is_refused(api, brunella, otto, gm) -> None:
    sheet = otto.sheet  # Otto forgets Healing: his skill and what his assets did for it go
    sheet["skills"] = [s for s in sheet["skills"] if s["id"] != HEALING]
    sheet["assets"] = [{**a, "skills": [i for i in a["skills"] if i != HEALING]} for a in sheet["assets"]]
    Character.objects.filter(pk=otto.pk).update(sheet=sheet)
    response = api(gm).post(f"/characters/{brunella.pk}/rolls", {"skill": HEALING, "helper": otto.pk})
    assert response.status_code == 400
    assert "Otto has no Healing skill" in response.json()["message"]
    assert not Roll.objects.exists()


def test_a_dead_helper_is_refused_and_an_npc_helps_only_for_the_gm(api, brunella, otto, gm, player) -> None:
    Character.objects.filter(pk=otto.pk).update(sheet={**otto.sheet, "hit_points": -8})  # d8 Pulse: dead
    response = api(gm).post(f"/characters/{brunella.pk}/rolls", {"skill": FIGHTING, "helper": otto.pk})
    assert response.status_code == 400
    assert "Otto cannot help: the character is dead" in response.json()["message"]
    assert "helper" in response.json()["errors"]
    npc = {"skill": FIGHTING, "npc_helper": "Old Marta", "npc_helper_die": "d8"}
    assert api(player).post(f"/characters/{brunella.pk}/rolls", npc).status_code == 403
    assert not Roll.objects.exists()
    assert api(gm).post(f"/characters/{brunella.pk}/rolls", {**npc, "npc_helper_die": "d20"}).status_code == 422
    response = api(gm).post(f"/characters/{brunella.pk}/rolls", npc)
    assert response.status_code == 201
    assert Roll.objects.get().spec["skill"] == "d12+d6"  # Fighting d10, a d8 helper: 3 steps


# --- The log --------------------------------------------------------------------------------------


def test_the_log_is_read_oldest_first_a_page_at_a_time_by_keyset(api, campaign, gm, player) -> None:
    made = [record(campaign, player, total=n) for n in range(1, 8)]
    client = api(player)
    seen, after, pages = [], 0, 0
    while after is not None:
        with CaptureQueriesContext(connection) as queries:
            response = client.get(f"/campaigns/{campaign.pk}/rolls", data={"after": after, "limit": 3})
        assert response.status_code == 200
        assert not any("OFFSET" in q["sql"].upper() for q in queries.captured_queries)
        seen += response.json()["rolls"]
        after = response.json()["next"]
        pages += 1
    assert pages == 3
    assert [r["seq"] for r in seen] == [r.seq for r in made] == [1, 2, 3, 4, 5, 6, 7]
    assert [r["total"] for r in seen] == [1, 2, 3, 4, 5, 6, 7]
    first = seen[0]
    assert (first["id"], first["kind"], first["by"], first["chance"], first["chance_of"]) == (
        made[0].pk,
        "free",
        "player",
        "7/12",
        "total ≥ 8",
    )
    assert first["dice"] == made[0].dice
    # Caught up: nothing newer yet, and the next roll arrives after the last seq.
    assert client.get(f"/campaigns/{campaign.pk}/rolls", data={"after": 7}).json() == {"rolls": [], "next": None}
    record(campaign, gm)
    assert [r["seq"] for r in client.get(f"/campaigns/{campaign.pk}/rolls", data={"after": 7}).json()["rolls"]] == [8]


def test_the_log_reads_a_page_in_a_fixed_number_of_queries(api, campaign, player, django_assert_num_queries) -> None:
    client = api(player)
    client.get(f"/campaigns/{campaign.pk}/rolls")  # the token's first use is noted once
    for _ in range(30):
        record(campaign, player)
    # The token with its user; the campaign; its members with their users; the page of rolls with
    # who rolled and any reveal. The same for 30 rolls as for 1.
    for limit in (1, 30):
        with django_assert_num_queries(4):
            assert len(client.get(f"/campaigns/{campaign.pk}/rolls", data={"limit": limit}).json()["rolls"]) == limit


def test_players_see_an_unrevealed_secret_roll_only_as_a_placeholder(api, campaign, gm, player) -> None:
    record(campaign, player)
    secret = record(campaign, gm, secret=True, total=17, label="The trap on the stair")
    record(campaign, gm, secret=True, total=4)
    rolls.reveal_roll(campaign_id=campaign.pk, seq=3, by=gm)

    as_player = api(player).get(f"/campaigns/{campaign.pk}/rolls").json()["rolls"]
    assert [r["seq"] for r in as_player] == [1, 2, 3]
    hidden = as_player[1]
    assert hidden["hidden"] is True
    assert hidden["id"] == secret.pk
    assert {k for k, v in hidden.items() if v is not None} == {"id", "seq", "hidden", "secret", "created_at"}
    assert (as_player[2]["hidden"], as_player[2]["total"], as_player[2]["revealed_at"] is not None) == (False, 4, True)

    as_gm = api(gm).get(f"/campaigns/{campaign.pk}/rolls").json()["rolls"]
    assert [(r["hidden"], r["total"]) for r in as_gm] == [(False, 8), (False, 17), (False, 4)]
    assert [(r["system"], r["label"]) for r in as_gm][:2] == [
        ("lucky13", "2d6+1"),
        ("lucky13", "The trap on the stair"),
    ]
    assert "The trap on the stair" not in json.dumps(as_player)


def test_a_row_from_before_labels_reads_with_its_campaigns_system_and_its_specs_words(api, campaign, player) -> None:
    old = Roll(
        campaign=campaign, by=player, kind=RollKind.FREE, spec={"expression": "3d6"}, dice=[], total=9,
        outcome={}, chance=None, chance_of="an old roll", created_at=timezone.now(), seq=1, prev_hash=rolls.GENESIS,
    )  # fmt: skip
    old.hash = rolls.content_hash(old)
    old.save()
    record(campaign, player)
    data = api(player).get(f"/campaigns/{campaign.pk}/rolls").json()["rolls"]
    assert [(r["system"], r["label"]) for r in data] == [("lucky13", "3d6"), ("lucky13", "2d6+1")]
    assert Roll.objects.get(seq=1).system == ""  # said when read, never written back


@pytest.mark.parametrize(
    "query", [{"limit": 0}, {"limit": 201}, {"limit": "x"}, {"after": -1}, {"after": "1.5"}, {"after": 2**63}]
)
def test_a_bad_page_is_a_422(api, campaign, player, query) -> None:
    response = api(player).get(f"/campaigns/{campaign.pk}/rolls", data=query)
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"


# --- Verifying ------------------------------------------------------------------------------------


def test_verify_reports_the_count_and_the_first_broken_link(api, campaign, player) -> None:
    if connection.vendor == "postgresql":  # the trigger is off for this test's transaction only, before any roll
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE play_roll DISABLE TRIGGER play_roll_append_only")
    client = api(player)
    assert client.get(f"/campaigns/{campaign.pk}/rolls/verify").json() == {
        "count": 0,
        "broken": None,
        "ok": True,
        "reason": "",
        "complete": True,
    }
    for _ in range(4):
        record(campaign, player)
    assert client.get(f"/campaigns/{campaign.pk}/rolls/verify").json() == {
        "count": 4,
        "broken": None,
        "ok": True,
        "reason": "",
        "complete": True,
    }
    with connection.cursor() as cursor:
        cursor.execute("UPDATE play_roll SET total = 12 WHERE campaign_id = %s AND seq = 3", [campaign.pk])
    assert client.get(f"/campaigns/{campaign.pk}/rolls/verify").json() == {
        "count": 3,
        "broken": 3,
        "ok": False,
        "reason": "Roll #3 does not match its signature: it was changed.",
        "complete": True,
    }


def test_verify_reports_a_cut_tail_and_a_missing_key_in_words(api, campaign, player, settings) -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("ALTER TABLE play_roll DISABLE TRIGGER play_roll_append_only")
    client = api(player)
    settings.ROLL_CHAIN_KEYS = [("old", "o" * 40)]
    for _ in range(3):
        record(campaign, player)
    assert client.get(f"/campaigns/{campaign.pk}/rolls/verify").json()["ok"] is True
    with connection.cursor() as cursor:
        cursor.execute("DELETE FROM play_roll WHERE campaign_id = %s AND seq = 3", [campaign.pk])
    cut = client.get(f"/campaigns/{campaign.pk}/rolls/verify").json()
    assert (cut["count"], cut["broken"], cut["ok"]) == (2, 3, False)
    assert cut["reason"].startswith("The log ends at #2, but it held #3 on ")
    settings.ROLL_CHAIN_KEYS = [("new", "n" * 40)]  # the key that signed them, dropped
    response = client.get(f"/campaigns/{campaign.pk}/rolls/verify")
    assert response.status_code == 200
    assert response.json()["broken"] == 1
    assert response.json()["reason"].startswith("Roll #1 is signed with key 'old', which this server no longer holds")


# --- The schema -----------------------------------------------------------------------------------


def test_the_schema_documents_every_status_of_the_rolls_endpoints(client) -> None:
    paths = client.get("/api/v1/openapi.json").json()["paths"]
    common = {"401", "422", "429"}
    errors = {"400", "403", "404", "409", "413"}
    assert set(paths["/api/v1/characters/{id}/rolls"]["post"]["responses"]) == {"201", *errors, *common}
    assert set(paths["/api/v1/campaigns/{id}/rolls"]["get"]["responses"]) == {"200", "404", *common}
    # One Verify at a time: another is a 503 busy.
    assert set(paths["/api/v1/campaigns/{id}/rolls/verify"]["get"]["responses"]) == {"200", "404", "503", *common}
    body = paths["/api/v1/characters/{id}/rolls"]["post"]["requestBody"]["content"]["application/json"]
    # The situation as each system reads it (Lucky 13, D6, D13, and in the tests Coin), nothing pointing outside.
    schemas = body["schema"]["oneOf"]
    assert len(schemas) == 4
    d6_situation = next(schema for schema in schemas if "item" in schema["properties"])
    assert d6_situation["required"] == ["item"]
    lucky13_situation = next(schema for schema in schemas if {"skill", "difficulty"} <= set(schema["properties"]))
    assert lucky13_situation["required"] == ["skill"]
    assert lucky13_situation["properties"]["difficulty"]["enum"] == [d.value for d in Difficulty]
    assert "$ref" not in json.dumps(body)
    assert body["example"]["skill"] == 5


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=1000)
def test_an_oversized_roll_is_a_413(api, brunella, player) -> None:
    response = api(player).post(f"/characters/{brunella.pk}/rolls", {"skill": FIGHTING, "note": "x" * 2000})
    assert response.status_code == 413
    assert not Roll.objects.exists()


def test_a_dying_character_rolls_nothing_and_is_told_why(api, client, player, brunella) -> None:
    """ "Death & dying": at 0 hit points or fewer a character does not act, on the page as in the API."""
    sheet = {**brunella.sheet, "hit_points": -2}
    Character.objects.filter(pk=brunella.pk).update(sheet=sheet)
    response = api(player).post(f"/characters/{brunella.pk}/rolls", {"skill": FIGHTING})
    assert response.status_code == 400
    assert "dying" in response.json()["message"]
    client.force_login(player)
    page = client.post(reverse("play:sheet-roll", args=[brunella.pk]), {"skill": str(FIGHTING)})
    assert page.status_code == 400
    assert "does not act" in page.text
    looked = client.get(reverse("play:sheet-roll", args=[brunella.pk]), {"skill": str(FIGHTING)})
    assert looked.status_code == 200  # the page says why; looking is no bad request
    assert "does not act" in looked.text
    assert 'id="roll-button"' not in looked.text
    assert not Roll.objects.exists()
