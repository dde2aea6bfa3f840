"""The characters endpoints for every member of the cast: a campaign's characters, an import, and
one character (its sheet document, and the fields clients read beside it), read and changed.

A PATCH goes through the sheet's own ``save_section``: these tests check that the API gives each
person what the sheet gives them (the same 403s and messages), that its messages name the
document's fields, and that a refused or malformed request changes nothing at all."""

from __future__ import annotations

import copy
import json
import threading
from typing import Any

import pytest
from django.db import connection
from django.test import override_settings
from django.utils import timezone

from campaigns.models import Campaign, Membership
from characters import exchange
from characters.models import Character, ReputationChange
from rules import systems
from tests.characters.conftest import (
    BAD_KNEE,
    FIGHTING,
    FIREBALL,
    HEALING,
    LEATHER,
    LONGSWORD,
    LONGSWORD_SPEC,
    OLD_MAP,
    SCHOLARSHIP,
    SNEAKING,
    SOLDIER,
    SPELLCASTING,
    TELEPORT,
    UNCLE_OTTO,
    make_character,
)

pytestmark = pytest.mark.django_db

CAST = ("gm", "player", "other_player", "outsider", None)

#: A new character for the cast's campaign (the Fantasy skills, dice equal to the linked ability).
HILDE: dict[str, Any] = {
    "schema": "dicehall.character",
    "schema_version": 1,
    "system": "lucky13",
    "name": "Hilde",
    "concept": "Hedge witch",
    "abilities": {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"},
    "ability_method": "balanced",
    "skills": [
        {"name": "Spellcasting", "die": "d6", "specializations": [{"name": "Hex"}]},
        {"name": "Scholarship", "die": "d6"},
        {"name": "Healing", "die": "d6", "specializations": [{"name": "Herbs"}]},
        {"name": "Sneaking", "die": "d8"},
        {"name": "Fighting", "die": "d8"},
    ],
    "backgrounds": [{"name": "Herbalist", "description": "Knows every weed."}],
    "weapons": [{"name": "Sickle", "accuracy": "d6", "damage": "d4"}],
    "hit_points": 40,  # a finished character's version-1 export has its hit points; a draft's has none
    "notes": "Lives by the marsh.",
}


@pytest.fixture
def as_(request, api, campaign, outsider):
    """``as_("player")``: the API client of that member of the cast (None: no token)."""

    def client(who: str | None):
        return api(request.getfixturevalue(who) if who else None)

    return client


@pytest.fixture
def brunella(campaign, player) -> Character:
    return make_character(campaign, player)


def without_ids(value: Any) -> Any:
    """A part of an answer with every item's ``id`` left out, to compare with what was sent."""
    if isinstance(value, dict):
        return {k: without_ids(v) for k, v in value.items() if k != "id"}
    if isinstance(value, list):
        return [without_ids(v) for v in value]
    return value


def make_draft(campaign: Campaign, owner: Any, name: str = "Draft") -> Character:
    """A draft as creation starts one: the campaign's skills, no dice yet."""
    sheet = systems.get(campaign.system).new_draft(campaign.settings).model_dump(mode="json")
    return Character.objects.create(campaign=campaign, owner=owner, name=name, sheet=sheet)


@pytest.fixture
def read(api, gm):
    """``read(character)``: the character as the API answers for it now (read by the GM)."""
    client = api(gm)

    def read(character: Character) -> dict[str, Any]:
        response = client.get(f"/characters/{character.pk}")
        assert response.status_code == 200
        return response.json()

    return read


def sheet_of(character: Character) -> dict[str, Any]:
    """The character's sheet document, read afresh from the database."""
    return Character.objects.get(pk=character.pk).document.model_dump(mode="json")


def items(character: Character, field: str) -> dict[int, Any]:
    """The items of one list of the character's sheet, read afresh, by id."""
    sheet = Character.objects.get(pk=character.pk).document
    return {item.id: item for item in getattr(sheet, field)}


def errors_of(response) -> dict[str, str]:
    body = response.json()
    assert body["code"]
    assert body["message"]
    return body.get("errors") or {}


# --- GET /campaigns/{id}/characters ---------------------------------------------------------------


@pytest.fixture
def party(campaign, player, other_player, brunella) -> dict[str, Character]:
    return {
        "Brunella": brunella,
        "Draft": make_draft(campaign, player),
        "Otto": make_character(campaign, other_player, name="Otto"),
        "Gone": make_character(campaign, other_player, name="Gone", status=Character.Status.ARCHIVED),
    }


@pytest.mark.parametrize(
    ("who", "status", "listed"),
    [
        ("gm", 200, ["Brunella", "Draft", "Gone", "Otto"]),
        ("player", 200, ["Brunella", "Draft", "Otto"]),
        ("other_player", 200, ["Brunella", "Otto"]),
        ("outsider", 404, None),
        (None, 401, None),
    ],
)
def test_a_campaigns_characters_are_what_its_page_lists(as_, campaign, party, who, status, listed) -> None:
    response = as_(who).get(f"/campaigns/{campaign.pk}/characters")
    assert response.status_code == status
    if listed is None:
        return
    assert [c["name"] for c in response.json()["characters"]] == listed
    assert response.json()["next"] is None
    brunella = next(c for c in response.json()["characters"] if c["name"] == "Brunella")
    assert brunella == {
        "id": party["Brunella"].pk, "name": "Brunella", "concept": "Sellsword", "status": "active",
        "owner": "player", "version": 1, "hit_points": 30,
    }  # fmt: skip


def test_the_list_takes_the_same_queries_for_any_party(as_, campaign, party, django_assert_num_queries) -> None:
    client = as_("gm")
    client.get("/campaigns")  # the token's first use is noted once
    # The token with its user; the campaign; its members with their users; the characters listed,
    # with their owners. The same for one more character.
    with django_assert_num_queries(4):
        assert len(client.get(f"/campaigns/{campaign.pk}/characters").json()["characters"]) == 4
    make_character(campaign, campaign.memberships.get(role="player", user__username="player").user, name="Ilse")
    with django_assert_num_queries(4):
        assert len(client.get(f"/campaigns/{campaign.pk}/characters").json()["characters"]) == 5


def test_the_list_is_read_a_page_at_a_time_by_key(as_, campaign, player, django_assert_num_queries) -> None:
    for i in range(7):
        make_character(campaign, player, name=f"Hero {i}")
    client = as_("gm")
    client.get("/campaigns")
    names, after, pages = [], "", 0
    while True:
        with django_assert_num_queries(4):  # as many on the last page as on the first
            page = client.get(f"/campaigns/{campaign.pk}/characters", data={"limit": 3, "after": after}).json()
        names += [c["name"] for c in page["characters"]]
        pages += 1
        if page["next"] is None:
            break
        after = page["next"]
    assert (names, pages) == ([f"Hero {i}" for i in range(7)], 3)
    # A character added before the page read moves no other one: the next page starts after the key.
    first = client.get(f"/campaigns/{campaign.pk}/characters", data={"limit": 3}).json()
    make_character(campaign, player, name="Aaron")
    second = client.get(f"/campaigns/{campaign.pk}/characters", data={"limit": 3, "after": first["next"]}).json()
    assert [c["name"] for c in second["characters"]] == ["Hero 3", "Hero 4", "Hero 5"]


@pytest.mark.parametrize("after", ["x", "12", ":Hero", "0:Hero", "²:Hero", "3:", "3:a\nb"])
def test_a_page_key_that_is_not_one_is_a_400(as_, campaign, after) -> None:
    response = as_("gm").get(f"/campaigns/{campaign.pk}/characters", data={"after": after})
    assert response.status_code == 400
    assert "page of characters" in response.json()["message"]


@pytest.mark.parametrize("limit", ["0", "501", "x"])
def test_a_limit_out_of_bounds_is_a_422(as_, campaign, limit) -> None:
    assert as_("gm").get(f"/campaigns/{campaign.pk}/characters", data={"limit": limit}).status_code == 422


# --- GET /characters/{id} -------------------------------------------------------------------------


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 200), ("other_player", 200), ("outsider", 404),
                                             (None, 401)])  # fmt: skip
def test_members_read_a_character_with_its_sheet(as_, brunella, who, status) -> None:
    response = as_(who).get(f"/characters/{brunella.pk}")
    assert response.status_code == status
    if status == 200:
        character = response.json()
        assert (character["id"], character["system"], character["status"]) == (brunella.pk, "lucky13", "active")
        assert (character["name"], character["version"]) == ("Brunella", 1)
        assert character["sheet"] == {"system": "lucky13", **sheet_of(brunella)}


def test_the_sheet_is_the_systems_document_naming_its_system(as_, brunella) -> None:
    sheet = as_("player").get(f"/characters/{brunella.pk}").json()["sheet"]
    assert sheet.pop("system") == "lucky13"
    assert sheet == brunella.document.model_dump(mode="json")
    # Every item carries its id; an asset names the skills it helps by id.
    assert [(s["id"], s["name"]) for s in sheet["skills"]][2::2] == [(HEALING, "Healing"), (FIGHTING, "Fighting")]
    otto = next(a for a in sheet["assets"] if a["id"] == UNCLE_OTTO)
    assert otto["skills"] == [HEALING, FIGHTING]


def test_beside_the_sheet_are_the_fields_clients_have_always_read(as_, brunella) -> None:
    """Taken from the sheet, each item with its id; an asset names the skills it helps."""
    character = as_("player").get(f"/characters/{brunella.pk}").json()
    assert character["abilities"] == {"will": "d6", "charm": "d4", "pulse": "d8", "intellect": "d6", "reflex": "d10"}
    assert character["ability_names"] == {"will": "Will", "charm": "Charm", "pulse": "Pulse",
                                          "intellect": "Intellect", "reflex": "Reflex"}  # fmt: skip
    assert (character["concept"], character["ability_method"], character["took_impairment"]) == (
        "Sellsword", "balanced", False,
    )  # fmt: skip
    assert character["skills"][0] == {
        "id": SPELLCASTING, "name": "Spellcasting", "ability": "intellect", "die": "d8",
        "specializations": [{"id": TELEPORT, "name": "Teleport", "level": 2},
                            {"id": FIREBALL, "name": "Fireball", "level": 1}],
    }  # fmt: skip
    assert character["backgrounds"] == [{"id": SOLDIER, "name": "Soldier", "description": "Ten years."}]
    assert character["impairments"] == [{"id": BAD_KNEE, "name": "Bad knee", "description": ""}]
    assert character["assets"][1] == {"id": UNCLE_OTTO, "name": "Uncle Otto", "kind": "person", "level": 3,
                                      "skills": ["Healing", "Fighting"], "description": ""}  # fmt: skip
    assert character["weapons"] == [{"id": LONGSWORD, "name": "Longsword", "accuracy": "d8", "damage": "d8"}]
    assert character["armor"] == [{"id": LEATHER, "name": "Leather", "defense": "d4"}]
    assert (character["hit_points"], character["reputation"], character["notes"]) == (
        30, 1, "Owes the ferryman two silver.",
    )  # fmt: skip


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 200), ("other_player", 404), ("outsider", 404),
                                             (None, 401)])  # fmt: skip
def test_a_draft_is_its_players_and_the_gms(as_, campaign, player, who, status) -> None:
    draft = make_draft(campaign, player)
    response = as_(who).get(f"/characters/{draft.pk}")
    assert response.status_code == status
    if status == 200:
        assert response.json()["abilities"] == dict.fromkeys(["will", "charm", "pulse", "intellect", "reflex"])
        assert response.json()["hit_points"] is None
        assert response.json()["status"] == "draft"
        assert response.json()["sheet"]["creation"]["step"] == "abilities"
        assert [s["die"] for s in response.json()["sheet"]["skills"]] == [None] * 5


def grow(character: Character, n: int) -> None:
    """``n`` more of everything a sheet lists: skills with a specialization each, backgrounds,
    assets (each helping its skill), weapons and armor."""
    sheet = character.document.model_dump(mode="json")
    start = character.document.next_id
    for i in range(n):
        at = start + 6 * i
        sheet["skills"].append({"id": at, "name": f"Extra skill {i}", "die": "d4",
                                "specializations": [{"id": at + 1, "name": f"Trick {i}"}]})  # fmt: skip
        sheet["traits"].append({"id": at + 2, "kind": "background", "name": f"Past {i}"})
        sheet["assets"].append({"id": at + 3, "name": f"Asset {i}", "skills": [at]})
        sheet["weapons"].append({"id": at + 4, "name": f"Knife {i}", "accuracy": "d4", "damage": "d4"})
        sheet["armor"].append({"id": at + 5, "name": f"Shield {i}", "defense": "d4"})
    sheet["next_id"] = start + 6 * n
    Character.objects.filter(pk=character.pk).update(sheet=character.rules.read_sheet(sheet).model_dump(mode="json"))


def test_reading_takes_the_same_queries_however_big_the_sheet(as_, brunella, django_assert_num_queries) -> None:
    client = as_("player")
    client.get(f"/characters/{brunella.pk}")  # the token's first use is noted once
    # The token with its user; the character with its campaign, its owner and the reader's role
    # (the sheet is in the row). The same for a sheet with five more of everything.
    with django_assert_num_queries(2):
        small = client.get(f"/characters/{brunella.pk}").json()
    grow(brunella, 5)
    with django_assert_num_queries(2):
        big = client.get(f"/characters/{brunella.pk}").json()
    assert (len(small["skills"]), len(big["skills"])) == (5, 10)
    assert (len(small["sheet"]["weapons"]), len(big["sheet"]["weapons"])) == (1, 6)


def test_a_character_that_does_not_exist_is_a_404(as_) -> None:
    assert as_("gm").get("/characters/999999").status_code == 404


# --- POST /campaigns/{id}/characters --------------------------------------------------------------


@pytest.mark.parametrize(("who", "status"), [("gm", 201), ("player", 201), ("other_player", 201), ("outsider", 404),
                                             (None, 401)])  # fmt: skip
def test_a_member_imports_a_character_of_their_own(as_, campaign, who, status) -> None:
    response = as_(who).post(f"/campaigns/{campaign.pk}/characters", HILDE)
    assert response.status_code == status
    if status != 201:
        assert not Character.objects.exists()
        return
    hilde = Character.objects.get()
    if who == "gm":  # a document the GM brings waits for the GM's decision, as it stands
        assert (hilde.status, hilde.arrival["status"]) == ("draft", "active")
        return
    assert (hilde.owner.username, hilde.campaign, hilde.status) == (who, campaign, "active")
    assert response["Location"] == f"http://testserver/api/v1/characters/{hilde.pk}"
    assert response.json()["id"] == hilde.pk
    assert response.json()["sheet"] == {"system": "lucky13", **sheet_of(hilde)}
    assert response.json()["hit_points"] == 40  # a new character starts full (d10 Pulse)
    assert [without_ids(s["specializations"]) for s in response.json()["skills"]][:3] == [
        [{"name": "Hex", "level": 1}], [], [{"name": "Herbs", "level": 1}],
    ]  # fmt: skip


def test_an_exported_character_imports_again(as_, campaign, brunella, gm) -> None:
    other = Campaign.objects.create(name="Elsewhere", system="lucky13")
    Membership.objects.create(campaign=other, user=gm, role=Membership.Role.GM)
    exported = as_("player").get(f"/characters/{brunella.pk}/export")
    assert exported.status_code == 200
    assert exported.json()["sheet"] == sheet_of(brunella)
    response = as_("gm").post(f"/campaigns/{other.pk}/characters", exported.json())
    assert response.status_code == 201, response.json()
    copy_ = Character.objects.get(campaign=other)
    assert copy_.owner == gm
    assert response.json()["sheet"] == {"system": "lucky13", **sheet_of(brunella)}  # as it stands


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 200), ("other_player", 200), ("outsider", 404),
                                             (None, 401)])  # fmt: skip
def test_members_export_a_character(as_, brunella, who, status) -> None:
    response = as_(who).get(f"/characters/{brunella.pk}/export")
    assert response.status_code == status
    if status == 200:
        assert {k: v for k, v in response.json().items() if k not in ("exported_at", "signature")} == {
            k: v for k, v in exchange.export_character(brunella).items() if k not in ("exported_at", "signature")
        }


def test_a_changed_export_is_read_as_a_fresh_creation(as_, campaign, brunella) -> None:
    """Renamed after it was signed, Brunella must pass this campaign's creation rules: her skill
    dice, raised in play, do not (each starts as its linked ability's die)."""
    exported = as_("player").get(f"/characters/{brunella.pk}/export").json()
    response = as_("player").post(f"/campaigns/{campaign.pk}/characters", {**exported, "name": "Twin"})
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_document"
    assert "sheet.skills" in errors_of(response)
    assert Character.objects.count() == 1


def _with(**changes: Any) -> dict[str, Any]:
    return {**copy.deepcopy(HILDE), **changes}


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        (_with(colour="red"), {"colour"}),
        (_with(abilities="strong"), {"abilities"}),
        (_with(abilities={**HILDE["abilities"], "will": "d20"}), {"abilities.will"}),
        (_with(abilities={**HILDE["abilities"], "will": "d12"}), {"abilities", "skills"}),
        (_with(skills=[*HILDE["skills"][:3], {"name": "Sneaking", "die": "d4"}, HILDE["skills"][4]]),
         {"skills"}),
        (_with(skills=[{**HILDE["skills"][0], "specializations": [{"name": f"S{i}"} for i in range(4)]},
                       *HILDE["skills"][1:]]), {"specializations"}),
        (_with(schema_version=2), {"schema_version"}),
        (_with(name=""), {"name"}),
        (_with(notes=7), {"notes"}),
        (_with(weapons=[{"name": "Sickle", "accuracy": "d6"}]), {"weapons[0].damage"}),
        ([HILDE], {"document"}),
        (_with(name="Nul\u0000", notes="\u0000"), {"name", "notes"}),
    ],
    ids=["unknown-field", "abilities-not-object", "die-off-the-ladder", "not-the-array", "skill-not-its-ability",
         "too-many-specializations", "unknown-version", "no-name", "notes-not-text", "missing-field", "a-list",
         "nul"],
)  # fmt: skip
def test_a_bad_document_is_a_400_by_field_and_nothing_is_created(as_, campaign, body, fields) -> None:
    response = as_("player").post(f"/campaigns/{campaign.pk}/characters", body)
    assert response.status_code == 400
    assert response.json()["code"] == "invalid_document"
    assert set(errors_of(response)) == fields
    assert not Character.objects.exists()


@pytest.mark.parametrize(
    "raw",
    ["{not json", '{"name": "A", "name": "B"}', '{"hit_points": NaN}', "", json.dumps(_with(notes="n" * 300_000))],
    ids=["not-json", "repeated-key", "nan", "empty", "over-256-kb"],
)
def test_a_body_that_is_no_document_is_a_400(as_, campaign, raw) -> None:
    response = as_("player").post(f"/campaigns/{campaign.pk}/characters", data=raw, content_type="application/json")
    assert response.status_code == 400
    assert set(errors_of(response)) == {"document"}
    assert not Character.objects.exists()


@override_settings(DATA_UPLOAD_MAX_MEMORY_SIZE=10_000)
def test_a_body_past_the_sites_limit_is_a_413(as_, campaign) -> None:
    response = as_("player").post(f"/campaigns/{campaign.pk}/characters", _with(notes="n" * 20_000))
    assert response.status_code == 413
    assert not Character.objects.exists()


def test_an_archived_campaign_takes_no_imports(as_, campaign) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    response = as_("player").post(f"/campaigns/{campaign.pk}/characters", HILDE)
    assert response.status_code == 400
    assert "archived" in errors_of(response)["campaign"]
    assert not Character.objects.exists()


# --- PATCH /characters/{id}: who may ----------------------------------------------------------------


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 200), ("other_player", 403), ("outsider", 404),
                                             (None, 401)])  # fmt: skip
def test_the_player_and_the_gm_change_a_character(as_, read, brunella, who, status) -> None:
    before = read(brunella)
    response = as_(who).patch(f"/characters/{brunella.pk}", {"version": 1, "notes": "Paid the ferryman."})
    assert response.status_code == status
    after = read(brunella)
    if status == 200:
        assert response.json() == after
        assert after["sheet"]["notes"] == "Paid the ferryman."
        assert (after["notes"], after["version"]) == ("Paid the ferryman.", 2)
    else:
        assert after == before
    if status == 403:
        assert response.json()["message"] == "Only the character's player and the GM can change this sheet."


GM_ONLY = {
    "abilities": ({"abilities": {"pulse": "d10"}}, "Only the GM can correct the ability dice"),
    "skill-die": ({"skills": [{"name": "Healing", "die": "d8"}]}, "Only the GM can correct the skill dice"),
    "level": (
        {"skills": [{"name": "Fighting", "specializations": [{"name": "Longsword", "level": 2}]}]},
        "Only the GM can add or remove specializations or change their levels; you can rename them.",
    ),
    "new-specialization": (
        {"skills": [{"name": "Fighting", "specializations": [{"name": "Longsword"}, {"name": "Parry"}]}]},
        "Only the GM can add or remove specializations",
    ),
    "removed-specialization": (
        {"skills": [{"name": "Fighting", "specializations": []}]},
        "Only the GM can add or remove specializations",
    ),
    "hit-points": ({"hit_points": 20}, "Only the GM can change the hit points."),
    "reputation": ({"reputation": 2}, "Only the GM can change the reputation."),
    "with-notes": ({"notes": "Mine.", "hit_points": 20}, "Only the GM can change the hit points."),
}


@pytest.mark.parametrize(("changes", "message"), GM_ONLY.values(), ids=GM_ONLY.keys())
def test_a_player_gets_the_sheets_403_for_the_gms_parts(as_, read, brunella, changes, message) -> None:
    before = read(brunella)
    response = as_("player").patch(f"/characters/{brunella.pk}", {"version": 1, **changes})
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert message in response.json()["message"]
    assert read(brunella) == before  # the notes too: nothing is saved unless all of it is


@pytest.mark.parametrize(("changes", "message"), GM_ONLY.values(), ids=GM_ONLY.keys())
def test_the_gm_changes_those_parts(as_, brunella, changes, message) -> None:
    response = as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, **changes})
    assert response.status_code == 200, response.json()


def test_a_player_changes_the_story_and_renames_specializations(as_, read, brunella) -> None:
    doc = read(brunella)
    doc["name"], doc["concept"] = "Brunella the Bold", "Captain"
    doc["skills"][0]["specializations"][1]["name"] = "Blink"  # Fireball, level 1
    doc["backgrounds"].append({"name": "Sailor", "description": ""})
    doc["impairments"][0]["description"] = "Aches in the rain."
    doc["weapons"].insert(0, {"name": "Dagger", "accuracy": "d6", "damage": "d4"})
    doc["assets"][0]["skills"].append("Sneaking")
    doc["armor"] = []
    doc["notes"] = "Captain now."

    response = as_("player").patch(f"/characters/{brunella.pk}", doc)

    assert response.status_code == 200, response.json()
    after = read(brunella)
    assert response.json() == after
    # One save per part of the sheet: details, specializations, traits, equipment, notes.
    assert after["version"] == doc["version"] + 5
    assert (after["name"], after["concept"], after["notes"]) == ("Brunella the Bold", "Captain", "Captain now.")
    assert after["skills"][0]["specializations"] == [{"id": TELEPORT, "name": "Teleport", "level": 2},
                                                     {"id": FIREBALL, "name": "Blink", "level": 1}]  # fmt: skip
    assert without_ids(after["backgrounds"]) == [{"name": "Soldier", "description": "Ten years."},
                                                 {"name": "Sailor", "description": ""}]  # fmt: skip
    assert after["impairments"] == [{"id": BAD_KNEE, "name": "Bad knee", "description": "Aches in the rain."}]
    assert sorted(without_ids(after["weapons"]), key=lambda w: w["name"]) == without_ids(doc["weapons"])
    assert after["assets"][0]["id"] == OLD_MAP
    assert sorted(after["assets"][0]["skills"]) == ["Scholarship", "Sneaking"]
    assert after["sheet"]["assets"][0]["skills"] == [SCHOLARSHIP, SNEAKING]
    assert after["armor"] == after["sheet"]["armor"] == []
    # The player's new dagger and the map's new use wait for the GM.
    assert [entry["words"] for entry in after["awaiting"]] == ["Asset: Old map (thing, level 2)",
                                                              "Weapon: Dagger, accuracy d6, damage d4"]  # fmt: skip
    assert {k: v for k, v in after.items() if k not in ("name", "concept", "notes", "version", "sheet", "skills",
            "backgrounds", "impairments", "weapons", "assets", "armor", "awaiting")} == {
        k: v for k, v in doc.items() if k not in ("name", "concept", "notes", "version", "sheet", "skills",
            "backgrounds", "impairments", "weapons", "assets", "armor", "awaiting")
    }  # fmt: skip


@pytest.mark.parametrize("who", ["player", "gm"])
def test_the_whole_character_sent_back_unchanged_saves_nothing(as_, read, brunella, who) -> None:
    before = read(brunella)
    response = as_(who).patch(f"/characters/{brunella.pk}", before)
    assert response.status_code == 200
    assert response.json() == before == read(brunella)


def test_the_gm_changes_everything_at_once(as_, read, brunella, gm) -> None:
    doc = read(brunella)
    doc["abilities"]["will"] = "d8"
    doc["skills"][2]["die"] = "d8"  # Healing
    doc["skills"][4]["specializations"] = [{"name": "Longsword", "level": 3}, {"name": "Parry", "level": 1}]
    doc["hit_points"] = 12
    doc["reputation"] = -2

    response = as_("gm").patch(f"/characters/{brunella.pk}", doc)

    assert response.status_code == 200, response.json()
    after = response.json()
    assert after == read(brunella)
    assert (after["abilities"]["will"], after["skills"][2]["die"], after["hit_points"], after["reputation"]) == (
        "d8", "d8", 12, -2,
    )  # fmt: skip
    assert after["skills"][4]["specializations"][0] == {"id": LONGSWORD_SPEC, "name": "Longsword", "level": 3}
    assert without_ids(after["skills"][4]["specializations"]) == [
        {"name": "Longsword", "level": 3}, {"name": "Parry", "level": 1}
    ]  # fmt: skip
    change = ReputationChange.objects.get()  # the reputation's history, as the sheet keeps it
    assert (change.change, change.reputation, change.by) == (-3, -2, gm)


@pytest.mark.parametrize(
    ("pulse", "hit_points"), [("d4", 5), ("d12", 48)], ids=["pulse-down-hit-points-first", "pulse-up-hit-points-after"]
)
def test_the_pulse_and_the_hit_points_change_together(as_, brunella, pulse, hit_points) -> None:
    response = as_("gm").patch(
        f"/characters/{brunella.pk}", {"version": 1, "abilities": {"pulse": pulse}, "hit_points": hit_points}
    )
    assert response.status_code == 200, response.json()
    assert (response.json()["abilities"]["pulse"], response.json()["hit_points"]) == (pulse, hit_points)


def test_rows_without_ids_are_matched_by_name_then_in_order(as_, read, brunella) -> None:
    doc = without_ids(read(brunella))
    del doc["sheet"]
    doc["weapons"] = [{"name": "Dagger", "accuracy": "d6", "damage": "d4"},
                      {"name": "Longsword", "accuracy": "d8", "damage": "d10"}]  # fmt: skip
    doc["assets"][0]["name"] = "Older map"  # renamed in place

    response = as_("gm").patch(f"/characters/{brunella.pk}", doc)

    assert response.status_code == 200, response.json()
    weapons = items(brunella, "weapons")
    assert (weapons[LONGSWORD].name, weapons[LONGSWORD].damage) == ("Longsword", "d10")  # the same item, d10 now
    assert {i: a.name for i, a in items(brunella, "assets").items()} == {OLD_MAP: "Older map", UNCLE_OTTO: "Uncle Otto"}

    doc = without_ids(response.json())
    del doc["sheet"]
    doc["weapons"] = [w for w in doc["weapons"] if w["name"] != "Dagger"]
    response = as_("gm").patch(f"/characters/{brunella.pk}", doc)
    assert list(items(brunella, "weapons")) == [LONGSWORD]


def test_a_row_with_an_id_is_that_item(as_, brunella) -> None:
    """Two weapons swapped names by their ids stay themselves; a row without an id still pairs by name."""
    as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, "weapons": [
        {"name": "Longsword"}, {"name": "Dagger", "accuracy": "d6", "damage": "d4"}]})  # fmt: skip
    dagger = next(i for i, w in items(brunella, "weapons").items() if w.name == "Dagger")

    response = as_("player").patch(f"/characters/{brunella.pk}", {"version": 2, "weapons": [
        {"id": dagger, "name": "Longsword"}, {"id": LONGSWORD, "name": "Dagger"}],
        "armor": [{"id": LEATHER, "name": "Hide"}]})  # fmt: skip

    assert response.status_code == 200, response.json()
    weapons = items(brunella, "weapons")
    assert (weapons[LONGSWORD].name, weapons[LONGSWORD].damage) == ("Dagger", "d8")
    assert (weapons[dagger].name, weapons[dagger].damage) == ("Longsword", "d4")
    assert items(brunella, "armor")[LEATHER].name == "Hide"
    assert {w["id"]: w["name"] for w in response.json()["sheet"]["weapons"]} == {
        LONGSWORD: "Dagger", dagger: "Longsword"
    }  # fmt: skip


def test_a_skill_is_named_or_given_by_its_id(as_, brunella) -> None:
    response = as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, "skills": [{"id": HEALING, "die": "d8"}]})
    assert response.status_code == 200, response.json()
    assert next(s for s in response.json()["sheet"]["skills"] if s["id"] == HEALING)["die"] == "d8"
    assert response.json()["skills"][2] == {"id": HEALING, "name": "Healing", "ability": "will", "die": "d8",
                                            "specializations": []}  # fmt: skip


def test_the_sheets_rules_for_the_whole_part_name_its_field(as_, read, brunella) -> None:
    """An impairment taken for an extra specialization stays: the sheet says so of the whole part,
    and the API of the field it is about."""
    creation = {**brunella.document.creation.model_dump(mode="json"), "took_impairment": True}
    brunella = make_character(brunella.campaign, brunella.owner, name="Hilde", creation=creation)
    before = read(brunella)
    response = as_("player").patch(f"/characters/{brunella.pk}", {"version": 1, "impairments": []})
    assert response.status_code == 400
    assert "only the GM can remove the last one" in errors_of(response)["impairments"]
    assert read(brunella) == before
    assert as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, "impairments": []}).status_code == 200


# --- PATCH /characters/{id}: versions -------------------------------------------------------------


@pytest.mark.parametrize("version", [0, 2, 100])
def test_a_stale_version_is_a_409_with_the_document_as_it_is(as_, read, brunella, version) -> None:
    as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, "notes": "The GM was here."})
    before = read(brunella)
    response = as_("player").patch(f"/characters/{brunella.pk}", {"version": 1, "notes": "Mine."})
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "stale_version"
    assert "version 1" in body["message"]
    assert body["now"] == before == read(brunella)
    assert body["now"]["sheet"]["notes"] == "The GM was here."  # the sheet as it is now
    if version:
        other = as_("player").patch(f"/characters/{brunella.pk}", {"version": version + 2, "notes": "Mine."})
        assert other.status_code == 409
    assert read(brunella) == before


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_patches_made_from_one_version_one_is_saved(api, read, brunella, gm, player) -> None:
    """The player's notes and the GM's hit points, both made from version 1, arrive at once. The
    sheet's own check is per part, and these are different parts: the row lock and the version
    check under it make the second wait, then see version 2 and be refused."""
    clients = [api(player), api(gm)]
    start = threading.Barrier(len(clients))
    answers: list[int] = []

    def patch(client, changes) -> None:
        try:
            start.wait()
            answers.append(client.patch(f"/characters/{brunella.pk}", {"version": 1, **changes}).status_code)
        finally:
            connection.close()

    threads = [
        threading.Thread(target=patch, args=[clients[0], {"notes": "Mine."}]),
        threading.Thread(target=patch, args=[clients[1], {"hit_points": 12}]),
    ]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=30)

    assert sorted(answers) == [200, 409]
    after = read(brunella)
    assert after["version"] == 2
    assert (after["notes"] == "Mine.") != (after["hit_points"] == 12)


# --- PATCH /characters/{id}: bad values -----------------------------------------------------------

BAD = {
    "blank-name": ({"name": "  "}, {"name"}),
    "long-name": ({"name": "N" * 61}, {"name"}),
    "die-off-the-ladder": ({"abilities": {"pulse": "d20"}}, {"abilities.pulse"}),
    "pulse-under-the-hit-points": ({"abilities": {"pulse": "d4"}}, {"abilities.pulse"}),
    "no-die": ({"abilities": {"will": None}}, {"abilities.will"}),
    "hit-points-past-full": ({"hit_points": 99}, {"hit_points"}),
    "reputation": ({"reputation": 6}, {"reputation"}),
    "long-notes": ({"notes": "x" * 20_001}, {"notes"}),
    "weapon-die": ({"weapons": [{"name": "Bow", "accuracy": "d7", "damage": "d6"}]}, {"weapons[0].accuracy"}),
    "new-asset-without-level": ({"assets": [{"name": "Old map"}, {"name": "Uncle Otto"}, {"name": "Lantern"}]},
                                {"assets[2].level"}),
    "asset-helps-no-skill": ({"assets": [{"name": "Old map", "skills": ["Flying"]}]}, {"assets[0].skills"}),
    "two-of-a-name": (
        {"skills": [{"name": "Spellcasting", "specializations": [{"name": "Fireball"}, {"name": "fireball"}]}]},
        {"skills[0].specializations[1].name"},
    ),
    "level-6": (
        {"skills": [{"name": "Spellcasting", "specializations": [{"name": "Fireball", "level": 6}]}]},
        {"skills[0].specializations[0].level"},
    ),
    "nameless-background": ({"backgrounds": [{"name": ""}]}, {"backgrounds[0].name"}),
    "too-many-weapons": ({"weapons": [{"name": f"Knife {i}", "accuracy": "d4", "damage": "d4"} for i in range(51)]},
                         {"weapons"}),
    "unknown-skill": ({"skills": [{"name": "Flying", "die": "d6"}]}, {"skills[0].name"}),
    "skill-twice": ({"skills": [{"name": "Healing", "die": "d6"}, {"name": "Healing", "die": "d8"}]},
                    {"skills[1].name"}),
    "skill-ability": ({"skills": [{"name": "Healing", "ability": "charm"}]}, {"skills[0].ability"}),
    "ability-names": ({"ability_names": {"will": "Grit"}}, {"ability_names"}),
    "ability-method": ({"ability_method": "random"}, {"ability_method"}),
    "took-impairment": ({"took_impairment": True}, {"took_impairment"}),
    "system": ({"system": "d6"}, {"system"}),
    "id": ({"id": 1_000}, {"id"}),
    "sheet": ({"sheet": {"system": "lucky13", "notes": "Mine."}}, {"sheet"}),
    "status": ({"status": "archived"}, {"status"}),
    "unknown-skill-id": ({"skills": [{"id": 999, "die": "d6"}]}, {"skills[0].id"}),
    "skill-id-and-another-name": ({"skills": [{"id": HEALING, "name": "Fighting"}]}, {"skills[0].name"}),
    "skill-without-name-or-id": ({"skills": [{"die": "d6"}]}, {"skills[0].name"}),
    "unknown-row-id": ({"weapons": [{"id": 999, "name": "Bow"}]}, {"weapons[0].id"}),
    "row-id-twice": ({"armor": [{"id": LEATHER, "name": "Hide"}, {"id": LEATHER, "name": "Mail"}]}, {"armor[1].id"}),
    "trait-id-of-another-list": ({"impairments": [{"id": SOLDIER, "name": "Soldier"}]}, {"impairments[0].id"}),
    "several": ({"notes": "x" * 20_001, "name": "", "weapons": [{"name": "Bow", "accuracy": "d0", "damage": "d6"}]},
                {"notes", "name", "weapons[0].accuracy"}),
    "with-a-good-part": ({"concept": "Captain", "hit_points": 99}, {"hit_points"}),
}  # fmt: skip


@pytest.mark.parametrize(("changes", "fields"), BAD.values(), ids=BAD.keys())
def test_a_bad_value_is_a_400_by_field_and_nothing_changes(as_, read, brunella, changes, fields) -> None:
    before = read(brunella)
    response = as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, **changes})
    assert response.status_code == 400
    assert set(errors_of(response)) == fields
    assert read(brunella) == before


MALFORMED = {
    "unknown-field": {"colour": "red"},
    "unknown-nested-field": {"skills": [{"name": "Healing", "colour": "red"}]},
    "unknown-ability": {"abilities": {"luck": "d6"}},
    "notes-not-text": {"notes": 3},
    "notes-null": {"notes": None},
    "hit-points-not-a-number": {"hit_points": "many"},
    "fractional-reputation": {"reputation": 1.5},
    "weapons-not-a-list": {"weapons": {"name": "Bow"}},
    "weapon-without-name": {"weapons": [{"accuracy": "d6", "damage": "d6"}]},
    "huge-notes": {"notes": "x" * 100_001},
    "huge-name": {"name": "N" * 201},
    "too-many-rows": {"armor": [{"name": "Shield", "defense": "d4"}] * 101},
    "huge-hit-points": {"hit_points": 10**12},
    "level-not-a-number": {"skills": [{"name": "Fighting", "specializations": [{"name": "Longsword", "level": "2"}]}]},
    "nul-in-notes": {"notes": "Nul\u0000"},
    "nul-in-a-row": {"weapons": [{"name": "Nul\u0000", "accuracy": "d6", "damage": "d6"}]},
    "row-id-not-a-number": {"weapons": [{"id": "13", "name": "Longsword"}]},
    "row-id-zero": {"armor": [{"id": 0, "name": "Leather"}]},
    "skill-id-null": {"skills": [{"id": None, "die": "d6"}]},
    "sheet-not-an-object": {"sheet": "lucky13"},
    "schema-of-the-old-answer": {"schema": "dicehall.character"},
    "asset-skill-neither-name-nor-id": {"assets": [{"name": "Old map", "skills": [1.5]}]},
}


@pytest.mark.parametrize("changes", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_patch_is_a_422_and_nothing_changes(as_, read, brunella, changes) -> None:
    before = read(brunella)
    response = as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, **changes})
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"
    assert read(brunella) == before


@pytest.mark.parametrize("body", [{"notes": "No version."}, {"version": 0, "notes": "x"}, {"version": "1"}, [1]])
def test_a_patch_needs_the_version_as_a_number(as_, brunella, body) -> None:
    response = as_("player").patch(f"/characters/{brunella.pk}", body)
    assert response.status_code == 422
    assert sheet_of(brunella)["notes"] == "Owes the ferryman two silver."


# --- PATCH /characters/{id}: drafts and archived characters ---------------------------------------


def test_an_archived_character_is_read_only(as_, campaign, player) -> None:
    gone = make_character(campaign, player, name="Gone", status=Character.Status.ARCHIVED)
    response = as_("gm").patch(f"/characters/{gone.pk}", {"version": 1, "notes": "Back?"})
    assert response.status_code == 403
    assert response.json()["message"] == "This character is archived and can no longer be changed."


def test_an_archived_campaigns_characters_are_read_only(as_, campaign, brunella) -> None:
    Campaign.objects.filter(pk=campaign.pk).update(archived_at=timezone.now())
    response = as_("player").patch(f"/characters/{brunella.pk}", {"version": 1, "notes": "Still here."})
    assert response.status_code == 403
    assert "archived" in response.json()["message"]


def test_a_draft_is_finished_in_the_creation_steps(as_, read, campaign, player) -> None:
    draft = make_draft(campaign, player)
    unchanged = as_("player").patch(f"/characters/{draft.pk}", read(draft))  # its nulls as they are
    assert unchanged.status_code == 200
    assert unchanged.json() == read(draft)
    response = as_("player").patch(f"/characters/{draft.pk}", {"version": 1, "notes": "Ideas."})
    assert response.status_code == 403
    assert "still a draft" in response.json()["message"]
    assert as_("other_player").patch(f"/characters/{draft.pk}", {"version": 1}).status_code == 404


# --- The schema -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "method", "statuses"),
    [
        ("/api/v1/campaigns/{id}/characters", "get", {"200", "400", "401", "404", "422", "429"}),
        ("/api/v1/campaigns/{id}/characters", "post", {"201", "400", "401", "404", "413", "422", "429"}),
        ("/api/v1/characters/{id}", "get", {"200", "401", "404", "422", "429"}),
        ("/api/v1/characters/{id}", "patch", {"200", "400", "401", "403", "404", "409", "413", "422", "429"}),
        ("/api/v1/characters/{id}/archive", "post", {"200", "400", "401", "403", "404", "409", "422", "429"}),
        ("/api/v1/characters/{id}/restore", "post", {"200", "400", "401", "403", "404", "409", "422", "429"}),
        ("/api/v1/characters/{id}/export", "get", {"200", "401", "404", "422", "429"}),
        ("/api/v1/characters/{id}/arrival", "post", {"200", "400", "401", "403", "404", "409", "422", "429"}),
        ("/api/v1/characters/{id}/awaiting", "post", {"200", "400", "401", "403", "404", "409", "422", "429"}),
    ],
)
def test_the_schema_documents_every_status(client, path, method, statuses) -> None:
    schema = client.get("/api/v1/openapi.json").json()
    assert set(schema["paths"][path][method]["responses"]) == statuses


def refs(schema: Any) -> set[str]:
    """Every ``$ref`` in a part of the schema."""
    if isinstance(schema, dict):
        return {schema["$ref"]} if "$ref" in schema else set().union(*map(refs, schema.values()))
    if isinstance(schema, list):
        return set().union(*map(refs, schema))
    return set()


def test_the_schema_describes_the_character_and_the_document(client) -> None:
    schema = client.get("/api/v1/openapi.json").json()
    components = schema["components"]["schemas"]
    imported = schema["paths"]["/api/v1/campaigns/{id}/characters"]["post"]
    document = imported["requestBody"]["content"]["application/json"]["schema"]
    assert set(document["properties"]) == set(exchange.FIELDS)
    assert not refs(document)
    assert "Location" in imported["responses"]["201"]["headers"]
    read = schema["paths"]["/api/v1/characters/{id}"]["get"]["responses"]["200"]
    assert read["content"]["application/json"]["schema"]["$ref"].endswith("/CharacterOut")
    assert {"id", "system", "status", "version", "name", "sheet", "abilities", "skills"} <= set(
        components["CharacterOut"]["properties"]
    )
    stale = schema["paths"]["/api/v1/characters/{id}"]["patch"]["responses"]["409"]
    assert stale["content"]["application/json"]["schema"]["$ref"].endswith("/StaleVersion")
    exported = schema["paths"]["/api/v1/characters/{id}/export"]["get"]["responses"]["200"]
    assert set(components[exported["content"]["application/json"]["schema"]["$ref"].split("/")[-1]][
        "properties"]) == set(exchange.FIELDS)  # fmt: skip


def test_the_schema_tells_the_sheets_apart_by_system(client) -> None:
    schema = client.get("/api/v1/openapi.json").json()
    components = schema["components"]["schemas"]
    sheet = components["CharacterOut"]["properties"]["sheet"]
    assert sheet["discriminator"]["propertyName"] == "system"
    mapping = sheet["discriminator"]["mapping"]
    # Every system registered when the API was built: Lucky 13, and in the tests also Coin (tests/conftest.py).
    assert set(mapping) == {*systems.registered_keys(), "coin"}
    lucky13 = components[mapping["lucky13"].removeprefix("#/components/schemas/")]
    assert lucky13["properties"]["system"]["const"] == "lucky13"
    assert {"abilities", "skills", "traits", "assets", "next_id"} <= set(lucky13["properties"])
