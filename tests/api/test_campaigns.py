"""The campaigns endpoints for every member of the cast: my campaigns, creating and changing one,
invitations and joining. The API calls the campaign operations; these tests check what each
person gets, and that a refused or malformed request changes nothing."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.utils import timezone

from api.routers.campaigns import MAX_RENAMES
from campaigns.models import Campaign, Invitation, Membership
from characters.models import Character
from rules.systems import lucky13
from tests.characters.conftest import HEALING, make_character

pytestmark = pytest.mark.django_db

CAST = ("gm", "player", "other_player", "outsider", None)
MEMBERS = ("gm", "player", "other_player")


@pytest.fixture
def as_(request, api, campaign, outsider):
    """``as_("player")``: the API client of that member of the cast (None: no token)."""

    def client(who: str | None):
        return api(request.getfixturevalue(who) if who else None)

    return client


def snapshot(campaign: Campaign) -> tuple:
    campaign.refresh_from_db()
    members = sorted(campaign.memberships.values_list("user__username", "role"))
    return campaign.name, campaign.description, campaign.options, campaign.archived_at, members


def errors_of(response) -> dict:
    body = response.json()
    assert body["code"]
    assert body["message"]
    return body.get("errors") or {}


# --- GET /campaigns -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "status", "listed"),
    [("gm", 200, ["gm"]), ("player", 200, ["player"]), ("other_player", 200, ["player"]),
     ("outsider", 200, []), (None, 401, None)],
)  # fmt: skip
def test_my_campaigns_are_the_ones_i_am_in(as_, campaign, who, status, listed) -> None:
    response = as_(who).get("/campaigns")
    assert response.status_code == status
    if listed is not None:
        assert [c["role"] for c in response.json()] == listed
        for c in response.json():
            assert (c["id"], c["name"], c["system"]) == (campaign.pk, "The Sunken Crown", "lucky13")
            assert c["options"] == campaign.settings


def test_my_campaigns_take_two_queries_however_many(as_, gm, django_assert_num_queries) -> None:
    client = as_("gm")
    client.get("/campaigns")  # the token's first use is noted once
    for n in range(3):
        client.post("/campaigns", {"name": f"Side quest {n}"})
    # The token with its user; the campaigns with the asker's role and the party's size.
    with django_assert_num_queries(2):
        assert len(client.get("/campaigns").json()) == 4


# --- POST /campaigns ------------------------------------------------------------------------------


@pytest.mark.parametrize("who", CAST)
def test_anyone_with_a_token_creates_a_campaign_and_is_its_gm(as_, who, django_user_model) -> None:
    response = as_(who).post("/campaigns", {"name": " Iron  Marches ", "system": "lucky13"})
    if who is None:
        assert response.status_code == 401
        assert not Campaign.objects.filter(name="Iron Marches").exists()
        return
    assert response.status_code == 201
    body = response.json()
    created = Campaign.objects.get(pk=body["id"])
    assert (body["name"], created.name, body["role"]) == ("Iron Marches", "Iron Marches", "gm")
    assert [(m["username"], m["role"]) for m in body["members"]] == [(who, "gm")]
    assert body["options"] == lucky13.default_options()


def test_options_are_the_rules_systems(as_) -> None:
    response = as_("gm").post(
        "/campaigns",
        {"name": "Gritty", "description": "Mud.", "options": {"explosion": "gritty", "skill_preset": "sci_fi"}},
    )
    assert response.status_code == 201
    options = Campaign.objects.get(pk=response.json()["id"]).options
    assert options == lucky13.validate_options({"explosion": "gritty", "skill_preset": "sci_fi"})
    assert [s["name"] for s in response.json()["options"]["skills"]][:2] == ["Technology", "Astrogation"]


@pytest.mark.parametrize(
    ("body", "status", "fields"),
    [
        ({"name": "X", "options": {"explosion": "boom", "hit_points_per_step": 0}}, 400,
         {"explosion", "hit_points_per_step"}),
        ({"name": "X", "options": {"flying": True}}, 400, {"flying"}),
        ({"name": "X", "options": {"skills": []}}, 400, {"skills"}),
        ({"name": "X", "system": "chess"}, 400, {"system"}),
        ({"name": "   "}, 400, {"name"}),
        ({"name": "X", "colour": "red"}, 422, {"colour"}),
        ({"name": 12}, 422, {"name"}),
        ({"name": "X", "options": [1, 2]}, 422, {"options"}),
        ({"name": "X" * 121}, 422, {"name"}),
        ({"name": "X", "description": "d" * 5001}, 422, {"description"}),
        ({}, 422, {"name"}),
        ({"name": "X", "options": {"explosion": ["gritty"], "skill_preset": {}}}, 400, {"explosion", "skill_preset"}),
        ({"name": "Nul\u0000"}, 422, {"name"}),
        ({"name": "X", "options": {"skills": [{"name": "Nul\u0000"}]}}, 422, {"options"}),
    ],
    ids=["bad-options", "unknown-option", "no-skills", "unknown-system", "blank-name", "unknown-field",
         "name-not-text", "options-not-object", "name-too-long", "description-too-long", "no-name",
         "options-not-text", "nul-in-name", "nul-in-options"],
)  # fmt: skip
def test_a_bad_new_campaign_is_4xx_by_field_and_nothing_is_created(as_, body, status, fields) -> None:
    response = as_("gm").post("/campaigns", body)
    assert response.status_code == status
    assert set(errors_of(response)) == fields
    assert not Campaign.objects.exclude(name="The Sunken Crown").exists()


def test_a_body_that_is_not_json_is_a_400(as_) -> None:
    response = as_("gm").post("/campaigns", data="{name", content_type="application/json")
    assert response.status_code == 400
    assert response.json()["code"] == "bad_request"


# --- GET /campaigns/{id} --------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "status", "role"),
    [("gm", 200, "gm"), ("player", 200, "player"), ("other_player", 200, "player"), ("outsider", 404, None),
     (None, 401, None)],
)  # fmt: skip
def test_members_see_a_campaign_and_its_members(as_, campaign, who, status, role) -> None:
    response = as_(who).get(f"/campaigns/{campaign.pk}")
    assert response.status_code == status
    if status == 200:
        body = response.json()
        assert (body["id"], body["role"], body["archived_at"]) == (campaign.pk, role, None)
        assert [(m["username"], m["role"]) for m in body["members"]] == [
            ("gm", "gm"), ("other_player", "player"), ("player", "player"),
        ]  # fmt: skip
    else:
        assert response.json()["code"] in ("not_found", "unauthorized")


def test_a_campaign_that_does_not_exist_is_a_404(as_) -> None:
    assert as_("gm").get("/campaigns/999999").status_code == 404
    assert as_("gm").get("/campaigns/0").status_code == 422  # no id is below 1: the schema says so


# --- PATCH /campaigns/{id} ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "status"), [("gm", 200), ("player", 403), ("other_player", 403), ("outsider", 404), (None, 401)]
)
def test_only_the_gm_changes_a_campaign(as_, campaign, who, status) -> None:
    before = snapshot(campaign)
    response = as_(who).patch(f"/campaigns/{campaign.pk}", {"name": "The Risen Crown", "description": "Salt."})
    assert response.status_code == status
    if status == 200:
        assert (response.json()["name"], response.json()["description"]) == ("The Risen Crown", "Salt.")
        campaign.refresh_from_db()
        assert (campaign.name, campaign.description) == ("The Risen Crown", "Salt.")
    else:
        assert snapshot(campaign) == before
    if status == 403:
        assert response.json() == {"code": "forbidden", "message": "Only the campaign's GM can do that."}


def test_options_merge_key_by_key_and_null_restores_the_default(as_, campaign) -> None:
    gm = as_("gm")
    response = gm.patch(f"/campaigns/{campaign.pk}", {"options": {"explosion": "gritty", "skill_points": 20}})
    assert response.status_code == 200
    options = response.json()["options"]
    assert (options["explosion"], options["skill_points"], options["hit_points_per_step"]) == ("gritty", 20, 10)
    assert response.json()["name"] == "The Sunken Crown"  # left out: as it was

    response = gm.patch(f"/campaigns/{campaign.pk}", {"options": {"skill_points": None}})
    assert response.json()["options"]["skill_points"] == 15
    assert response.json()["options"]["explosion"] == "gritty"

    response = gm.patch(f"/campaigns/{campaign.pk}", {"options": {"skill_preset": "sci_fi", "skills": None}})
    assert response.status_code == 200
    assert [s["name"] for s in response.json()["options"]["skills"]] == [
        n for n, _ in lucky13.SKILL_PRESETS["sci_fi"][1]
    ]


def test_a_skill_characters_have_is_renamed_not_removed(as_, campaign, player) -> None:
    brunella = make_character(campaign, player)
    gm = as_("gm")
    skills = campaign.settings["skills"]
    without_healing = [s for s in skills if s["name"] != "Healing"]
    before = snapshot(campaign)

    response = gm.patch(f"/campaigns/{campaign.pk}", {"options": {"skills": without_healing}})
    assert response.status_code == 409
    assert "Healing can't be removed: Brunella has it" in errors_of(response)["skills"]
    assert snapshot(campaign) == before

    renamed = [{**s, "name": "Medicine"} if s["name"] == "Healing" else s for s in skills]
    response = gm.patch(
        f"/campaigns/{campaign.pk}", {"options": {"skills": renamed}, "renames": {"Healing": "Medicine"}}
    )
    assert response.status_code == 200
    document = Character.objects.get(pk=brunella.pk).document
    assert {skill.name for skill in document.skills} == {s["name"] for s in renamed}
    assert document.skill(HEALING).name == "Medicine"  # the same skill, by its id


def test_a_rename_must_land_on_the_new_skill_list(as_, campaign, player) -> None:
    brunella = make_character(campaign, player)
    before = snapshot(campaign)
    response = as_("gm").patch(f"/campaigns/{campaign.pk}", {"renames": {"Healing": "Medicine"}})
    assert response.status_code == 400
    assert "Medicine" in errors_of(response)["skills"]
    assert snapshot(campaign) == before
    assert Character.objects.get(pk=brunella.pk).document.skill(HEALING).name == "Healing"


def test_hit_points_per_step_are_fixed_once_characters_have_hit_points(as_, campaign, player) -> None:
    make_character(campaign, player)
    response = as_("gm").patch(f"/campaigns/{campaign.pk}", {"options": {"hit_points_per_step": 12}})
    assert response.status_code == 409
    assert set(errors_of(response)) == {"hit_points_per_step"}


def test_an_archived_campaign_cannot_change(as_, campaign) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    before = snapshot(campaign)
    response = as_("gm").patch(f"/campaigns/{campaign.pk}", {"name": "New"})
    assert response.status_code == 409
    assert "archived" in response.json()["message"]
    assert snapshot(campaign) == before


@pytest.mark.parametrize(
    ("body", "status", "fields"),
    [
        ({"options": {"explosion": "boom"}}, 400, {"explosion"}),
        ({"options": {"ability_names": ["A", "A", "B", "C", "D"]}}, 400, {"ability_names"}),
        ({"name": "  "}, 400, {"name"}),
        ({"system": "d6"}, 422, {"system"}),
        ({"name": ["list"]}, 422, {"name"}),
        ({"options": "gritty"}, 422, {"options"}),
        ({"renames": {"Healing": 3}}, 422, {"renames.Healing"}),
        ({"renames": {f"S{i}": f"T{i}" for i in range(MAX_RENAMES + 1)}}, 422, {"renames"}),
        ({"description": "d" * 5001}, 422, {"description"}),
        ({"description": "\u0000"}, 422, {"description"}),
        ({"options": {"ability_names": ["\u0000", "B", "C", "D", "E"]}}, 422, {"options"}),
        ({"renames": {"Healing": "Nul\u0000"}}, 422, {"renames.Healing"}),
    ],
    ids=["bad-option", "same-ability-names", "blank-name", "system-is-fixed", "name-not-text", "options-not-object",
         "rename-not-text", "too-many-renames", "description-too-long", "nul-in-description", "nul-in-options",
         "nul-in-renames"],
)  # fmt: skip
def test_a_bad_change_is_4xx_by_field_and_changes_nothing(as_, campaign, body, status, fields) -> None:
    before = snapshot(campaign)
    response = as_("gm").patch(f"/campaigns/{campaign.pk}", body)
    assert response.status_code == status
    assert set(errors_of(response)) == fields
    assert snapshot(campaign) == before


# --- POST /campaigns/{id}/invitations -------------------------------------------------------------


@pytest.mark.parametrize(
    ("who", "status"), [("gm", 201), ("player", 403), ("other_player", 403), ("outsider", 404), (None, 401)]
)
def test_the_gm_creates_invitation_links(as_, campaign, who, status) -> None:
    response = as_(who).post(f"/campaigns/{campaign.pk}/invitations", {"days": 30, "max_uses": None})
    assert response.status_code == status
    if status != 201:
        assert not Invitation.objects.exists()
        return
    invitation = Invitation.objects.get()
    body = response.json()
    assert body["token"] == invitation.token
    assert body["url"] == f"{settings.SITE_URL}/invite/{invitation.token}/"
    assert body["max_uses"] is None
    expires = invitation.expires_at - timezone.now()
    assert timedelta(days=29, hours=23) < expires <= timedelta(days=30)
    assert body["expires"].startswith(invitation.expires_at.strftime("%Y-%m-%dT%H:%M"))


def test_an_invitation_is_single_use_for_seven_days_unless_said(as_, campaign) -> None:
    assert as_("gm").post(f"/campaigns/{campaign.pk}/invitations", {}).status_code == 201
    invitation = Invitation.objects.get()
    assert invitation.max_uses == 1
    assert timedelta(days=6, hours=23) < invitation.expires_at - timezone.now() <= timedelta(days=7)


@pytest.mark.parametrize(
    "body",
    [{"days": 0}, {"days": 91}, {"days": "soon"}, {"max_uses": 0}, {"max_uses": 2**31}, {"uses": "single"},
     {"days": 1.5}],
    ids=["no-days", "too-many-days", "days-not-a-number", "no-uses", "too-many-uses", "unknown-field", "fraction"],
)  # fmt: skip
def test_a_bad_invitation_is_a_422_and_none_is_made(as_, campaign, body) -> None:
    response = as_("gm").post(f"/campaigns/{campaign.pk}/invitations", body)
    assert response.status_code == 422
    assert errors_of(response)
    assert not Invitation.objects.exists()


def test_an_archived_campaign_makes_no_invitations(as_, campaign) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    response = as_("gm").post(f"/campaigns/{campaign.pk}/invitations", {})
    assert response.status_code == 409
    assert not Invitation.objects.exists()


# --- POST /invitations/{token}/accept -------------------------------------------------------------


@pytest.fixture
def invitation(campaign, gm) -> Invitation:
    return Invitation.objects.create(
        campaign=campaign, created_by=gm, expires_at=timezone.now() + timedelta(days=7), max_uses=1
    )


@pytest.mark.parametrize(
    ("who", "status", "role"),
    [("outsider", 201, "player"), ("gm", 200, "gm"), ("player", 200, "player"), ("other_player", 200, "player"),
     (None, 401, None)],
)  # fmt: skip
def test_accepting_an_invitation_makes_you_a_player(as_, campaign, invitation, who, status, role) -> None:
    response = as_(who).post(f"/invitations/{invitation.token}/accept")
    assert response.status_code == status
    invitation.refresh_from_db()
    assert invitation.uses == (1 if status == 201 else 0)  # members already in use nothing
    if role:
        member = Membership.objects.get(campaign=campaign, user__username=who)
        assert response.json() == {
            "id": member.pk, "campaign": campaign.pk, "role": role,
            "joined_at": response.json()["joined_at"],
        }  # fmt: skip
        assert member.role == role


@pytest.mark.parametrize(
    ("state", "message"),
    [
        ({"uses": 1}, "used as many times as it allows"),
        ({"expires_at": timezone.now() - timedelta(seconds=1)}, "expired"),
        ({"revoked_at": timezone.now()}, "revoked by the GM"),
    ],
    ids=["used-up", "expired", "revoked"],
)
def test_an_unusable_invitation_is_a_410_that_says_why(as_, campaign, invitation, state, message) -> None:
    Invitation.objects.filter(pk=invitation.pk).update(**state)
    response = as_("outsider").post(f"/invitations/{invitation.token}/accept")
    assert response.status_code == 410
    assert response.json()["code"] == "gone"
    assert message in response.json()["message"]
    assert not Membership.objects.filter(campaign=campaign, user__username="outsider").exists()


def test_an_archived_campaign_takes_no_new_players(as_, campaign, invitation) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    response = as_("outsider").post(f"/invitations/{invitation.token}/accept")
    assert response.status_code == 410
    assert "archived" in response.json()["message"]


@pytest.mark.parametrize("token", ["nonsense", "x" * 300])
def test_an_unknown_invitation_is_a_404(as_, token) -> None:
    response = as_("outsider").post(f"/invitations/{token}/accept")
    assert response.status_code == 404
    assert "not valid" in response.json()["message"]


def test_a_token_with_nul_is_a_422(as_) -> None:
    assert as_("outsider").post("/invitations/ab%00cd/accept").status_code == 422


def test_a_joined_player_sees_the_campaign(as_, campaign, invitation) -> None:
    outsider = as_("outsider")
    outsider.post(f"/invitations/{invitation.token}/accept")
    assert outsider.get(f"/campaigns/{campaign.pk}").status_code == 200
    assert [c["id"] for c in outsider.get("/campaigns").json()] == [campaign.pk]


# --- The schema -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "method", "statuses"),
    [
        ("/api/v1/campaigns", "get", {"200", "401", "422", "429"}),
        ("/api/v1/campaigns", "post", {"201", "400", "401", "413", "422", "429"}),
        ("/api/v1/campaigns/{id}", "get", {"200", "401", "404", "422", "429"}),
        ("/api/v1/campaigns/{id}", "patch", {"200", "400", "401", "403", "404", "409", "413", "422", "429"}),
        ("/api/v1/campaigns/{id}/invitations", "post",
         {"201", "400", "401", "403", "404", "409", "413", "422", "429"}),
        ("/api/v1/invitations/{token}/accept", "post", {"200", "201", "401", "404", "410", "422", "429"}),
    ],
)  # fmt: skip
def test_the_schema_documents_every_status(client, path, method, statuses) -> None:
    schema = client.get("/api/v1/openapi.json").json()
    assert set(schema["paths"][path][method]["responses"]) == statuses
