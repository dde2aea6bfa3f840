"""The characters endpoints for every member of the cast: a campaign's characters, an import, and
one character as its document, read and changed.

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
from characters.models import Armor, Asset, Character, ReputationChange, Skill, Specialization, Trait, Weapon
from characters.sheets import with_sheet
from tests.characters.conftest import make_character

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


def document(character: Character) -> dict[str, Any]:
    """The character's export document, read afresh from the database."""
    return exchange.export_character(with_sheet(Character.objects.filter(pk=character.pk)).get())


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
        "Draft": Character.objects.create(campaign=campaign, owner=player, name="Draft"),
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
    assert [c["name"] for c in response.json()] == listed
    brunella = next(c for c in response.json() if c["name"] == "Brunella")
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
        assert len(client.get(f"/campaigns/{campaign.pk}/characters").json()) == 4
    make_character(campaign, campaign.memberships.get(role="player", user__username="player").user, name="Ilse")
    with django_assert_num_queries(4):
        assert len(client.get(f"/campaigns/{campaign.pk}/characters").json()) == 5


# --- GET /characters/{id} -------------------------------------------------------------------------


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 200), ("other_player", 200), ("outsider", 404),
                                             (None, 401)])  # fmt: skip
def test_members_read_a_character_as_its_document(as_, brunella, who, status) -> None:
    response = as_(who).get(f"/characters/{brunella.pk}")
    assert response.status_code == status
    if status == 200:
        assert response.json() == document(brunella)
        assert response.json()["version"] == 1
        assert response.json()["schema"] == "dicehall.character"


@pytest.mark.parametrize(("who", "status"), [("gm", 200), ("player", 200), ("other_player", 404), ("outsider", 404),
                                             (None, 401)])  # fmt: skip
def test_a_draft_is_its_players_and_the_gms(as_, campaign, player, who, status) -> None:
    draft = Character.objects.create(campaign=campaign, owner=player, name="Draft")
    response = as_(who).get(f"/characters/{draft.pk}")
    assert response.status_code == status
    if status == 200:
        assert response.json()["abilities"] == dict.fromkeys(["will", "charm", "pulse", "intellect", "reflex"])
        assert response.json()["hit_points"] is None


def grow(character: Character, n: int) -> None:
    """``n`` more of everything a sheet lists."""
    for i in range(n):
        skill = Skill.objects.create(character=character, name=f"Extra skill {i}", position=10 + i, die=1)
        Specialization.objects.create(skill=skill, name=f"Trick {i}")
        Trait.objects.create(character=character, kind="background", name=f"Past {i}")
        Asset.objects.create(character=character, name=f"Asset {i}").skills.set([skill])
        Weapon.objects.create(character=character, name=f"Knife {i}", accuracy=1, damage=1)
        Armor.objects.create(character=character, name=f"Shield {i}", defense=1)


def test_reading_takes_the_same_queries_however_big_the_sheet(as_, brunella, django_assert_num_queries) -> None:
    client = as_("player")
    client.get(f"/characters/{brunella.pk}")  # the token's first use is noted once
    # The token with its user; the character with its campaign, its owner and the reader's role;
    # the character again with its sheet: skills, specializations, traits, assets, the skills each
    # helps, weapons, armor. The same for a sheet with five more of everything.
    with django_assert_num_queries(10):
        small = client.get(f"/characters/{brunella.pk}").json()
    grow(brunella, 5)
    with django_assert_num_queries(10):
        big = client.get(f"/characters/{brunella.pk}").json()
    assert (len(small["skills"]), len(big["skills"])) == (5, 10)


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
    assert (hilde.owner.username, hilde.campaign, hilde.status) == (who, campaign, "active")
    assert response["Location"] == f"http://testserver/api/v1/characters/{hilde.pk}"
    assert response.json() == document(hilde)
    assert response.json()["hit_points"] == 40  # a new character starts full (d10 Pulse)
    assert [s["specializations"] for s in response.json()["skills"]][:3] == [
        [{"name": "Hex", "level": 1}], [], [{"name": "Herbs", "level": 1}],
    ]  # fmt: skip


def test_an_exported_character_imports_again(as_, campaign, brunella, gm) -> None:
    other = Campaign.objects.create(name="Elsewhere", system="lucky13")
    Membership.objects.create(campaign=other, user=gm, role=Membership.Role.GM)
    hilde = as_("gm").post(f"/campaigns/{campaign.pk}/characters", HILDE).json()
    response = as_("gm").post(f"/campaigns/{other.pk}/characters", hilde)
    assert response.status_code == 201
    assert {k: v for k, v in response.json().items() if k != "version"} == {
        k: v for k, v in hilde.items() if k != "version"
    }


def _with(**changes: Any) -> dict[str, Any]:
    return {**copy.deepcopy(HILDE), **changes}


@pytest.mark.parametrize(
    ("body", "fields"),
    [
        (_with(colour="red"), {"colour"}),
        (_with(abilities="strong"), {"abilities"}),
        (_with(abilities={**HILDE["abilities"], "will": "d20"}), {"abilities.will"}),
        (_with(abilities={**HILDE["abilities"], "will": "d12"}), {"abilities", "skills[2].die"}),
        (_with(skills=[*HILDE["skills"][:3], {"name": "Sneaking", "die": "d4"}, HILDE["skills"][4]]),
         {"skills[3].die"}),
        (_with(skills=[{**HILDE["skills"][0], "specializations": [{"name": f"S{i}"} for i in range(4)]},
                       *HILDE["skills"][1:]]), {"skills[0].specializations[3]"}),
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
def test_the_player_and_the_gm_change_a_character(as_, brunella, who, status) -> None:
    before = document(brunella)
    response = as_(who).patch(f"/characters/{brunella.pk}", {"version": 1, "notes": "Paid the ferryman."})
    assert response.status_code == status
    after = document(brunella)
    if status == 200:
        assert response.json() == after
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
def test_a_player_gets_the_sheets_403_for_the_gms_parts(as_, brunella, changes, message) -> None:
    before = document(brunella)
    response = as_("player").patch(f"/characters/{brunella.pk}", {"version": 1, **changes})
    assert response.status_code == 403
    assert response.json()["code"] == "forbidden"
    assert message in response.json()["message"]
    assert document(brunella) == before  # the notes too: nothing is saved unless all of it is


@pytest.mark.parametrize(("changes", "message"), GM_ONLY.values(), ids=GM_ONLY.keys())
def test_the_gm_changes_those_parts(as_, brunella, changes, message) -> None:
    response = as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, **changes})
    assert response.status_code == 200, response.json()


def test_a_player_changes_the_story_and_renames_specializations(as_, brunella) -> None:
    doc = document(brunella)
    doc["name"], doc["concept"] = "Brunella the Bold", "Captain"
    doc["skills"][0]["specializations"][1]["name"] = "Blink"  # Teleport, level 2
    doc["backgrounds"].append({"name": "Sailor", "description": ""})
    doc["impairments"][0]["description"] = "Aches in the rain."
    doc["weapons"].insert(0, {"name": "Dagger", "accuracy": "d6", "damage": "d4"})  # the export's order: by name
    doc["assets"][0]["skills"].append("Sneaking")
    doc["armor"] = []
    doc["notes"] = "Captain now."

    response = as_("player").patch(f"/characters/{brunella.pk}", doc)

    assert response.status_code == 200, response.json()
    after = document(brunella)
    assert response.json() == after
    # One save per part of the sheet: details, specializations, traits, equipment, notes.
    assert after["version"] == doc["version"] + 5
    assert {k: v for k, v in after.items() if k != "version"} == {
        **{k: v for k, v in doc.items() if k != "version"},
        "skills": after["skills"],
        "backgrounds": [{"name": "Sailor", "description": ""}, {"name": "Soldier", "description": "Ten years."}],
    }
    assert after["skills"][0]["specializations"] == [{"name": "Blink", "level": 2}, {"name": "Fireball", "level": 1}]
    assert sorted(after["assets"][0]["skills"]) == ["Scholarship", "Sneaking"]


def test_the_whole_document_sent_back_unchanged_saves_nothing(as_, brunella) -> None:
    doc = document(brunella)
    response = as_("player").patch(f"/characters/{brunella.pk}", doc)
    assert response.status_code == 200
    assert response.json() == doc == document(brunella)


def test_the_gm_changes_everything_at_once(as_, brunella, gm) -> None:
    doc = document(brunella)
    doc["abilities"]["will"] = "d8"
    doc["skills"][2]["die"] = "d8"  # Healing
    doc["skills"][4]["specializations"] = [{"name": "Longsword", "level": 3}, {"name": "Parry", "level": 1}]
    doc["hit_points"] = 12
    doc["reputation"] = -2

    response = as_("gm").patch(f"/characters/{brunella.pk}", doc)

    assert response.status_code == 200, response.json()
    after = response.json()
    assert after == document(brunella)
    assert (after["abilities"]["will"], after["skills"][2]["die"], after["hit_points"], after["reputation"]) == (
        "d8", "d8", 12, -2,
    )  # fmt: skip
    assert after["skills"][4]["specializations"] == [{"name": "Longsword", "level": 3}, {"name": "Parry", "level": 1}]
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


def test_rows_are_matched_by_name_then_in_order(as_, brunella) -> None:
    longsword = Weapon.objects.get(character=brunella)
    old_map, otto = Asset.objects.filter(character=brunella).order_by("name")
    doc = document(brunella)
    doc["weapons"] = [{"name": "Dagger", "accuracy": "d6", "damage": "d4"},
                      {"name": "Longsword", "accuracy": "d8", "damage": "d10"}]  # fmt: skip
    doc["assets"][0]["name"] = "Older map"  # renamed in place

    response = as_("gm").patch(f"/characters/{brunella.pk}", doc)

    assert response.status_code == 200, response.json()
    longsword.refresh_from_db()
    assert (longsword.name, longsword.damage) == ("Longsword", 4)  # the same row, d10 now
    assert Asset.objects.get(pk=old_map.pk).name == "Older map"
    assert Asset.objects.get(pk=otto.pk).name == "Uncle Otto"

    doc = response.json()
    doc["weapons"] = [w for w in doc["weapons"] if w["name"] != "Dagger"]
    response = as_("gm").patch(f"/characters/{brunella.pk}", doc)
    assert [w.pk for w in Weapon.objects.filter(character=brunella)] == [longsword.pk]


def test_the_sheets_rules_for_the_whole_part_name_its_field(as_, brunella) -> None:
    """An impairment taken for an extra specialization stays: the sheet says so of the whole part,
    and the API of the field it is about."""
    Character.objects.filter(pk=brunella.pk).update(took_impairment=True)
    before = document(brunella)
    response = as_("player").patch(f"/characters/{brunella.pk}", {"version": 1, "impairments": []})
    assert response.status_code == 400
    assert "only the GM can remove the last one" in errors_of(response)["impairments"]
    assert document(brunella) == before
    assert as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, "impairments": []}).status_code == 200


# --- PATCH /characters/{id}: versions -------------------------------------------------------------


@pytest.mark.parametrize("version", [0, 2, 100])
def test_a_stale_version_is_a_409_with_the_document_as_it_is(as_, brunella, version) -> None:
    as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, "notes": "The GM was here."})
    before = document(brunella)
    response = as_("player").patch(f"/characters/{brunella.pk}", {"version": 1, "notes": "Mine."})
    assert response.status_code == 409
    body = response.json()
    assert body["code"] == "stale_version"
    assert "version 1" in body["message"]
    assert body["document"] == before == document(brunella)
    if version:
        other = as_("player").patch(f"/characters/{brunella.pk}", {"version": version + 2, "notes": "Mine."})
        assert other.status_code == 409
    assert document(brunella) == before


@pytest.mark.postgres
@pytest.mark.django_db(transaction=True)
def test_two_patches_made_from_one_version_one_is_saved(api, brunella, gm, player) -> None:
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
    after = document(brunella)
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
    "too-many-weapons": ({"weapons": [{"name": f"Knife {i}", "accuracy": "d4", "damage": "d4"} for i in range(21)]},
                         {"weapons"}),
    "unknown-skill": ({"skills": [{"name": "Flying", "die": "d6"}]}, {"skills[0].name"}),
    "skill-twice": ({"skills": [{"name": "Healing", "die": "d6"}, {"name": "Healing", "die": "d8"}]},
                    {"skills[1].name"}),
    "skill-ability": ({"skills": [{"name": "Healing", "ability": "charm"}]}, {"skills[0].ability"}),
    "ability-names": ({"ability_names": {"will": "Grit"}}, {"ability_names"}),
    "took-impairment": ({"took_impairment": True}, {"took_impairment"}),
    "schema-version": ({"schema_version": 2}, {"schema_version"}),
    "several": ({"notes": "x" * 20_001, "name": "", "weapons": [{"name": "Bow", "accuracy": "d0", "damage": "d6"}]},
                {"notes", "name", "weapons[0].accuracy"}),
    "with-a-good-part": ({"concept": "Captain", "hit_points": 99}, {"hit_points"}),
}  # fmt: skip


@pytest.mark.parametrize(("changes", "fields"), BAD.values(), ids=BAD.keys())
def test_a_bad_value_is_a_400_by_field_and_nothing_changes(as_, brunella, changes, fields) -> None:
    before = document(brunella)
    response = as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, **changes})
    assert response.status_code == 400
    assert set(errors_of(response)) == fields
    assert document(brunella) == before


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
}


@pytest.mark.parametrize("changes", MALFORMED.values(), ids=MALFORMED.keys())
def test_a_malformed_patch_is_a_422_and_nothing_changes(as_, brunella, changes) -> None:
    before = document(brunella)
    response = as_("gm").patch(f"/characters/{brunella.pk}", {"version": 1, **changes})
    assert response.status_code == 422
    assert response.json()["code"] == "invalid_request"
    assert document(brunella) == before


@pytest.mark.parametrize("body", [{"notes": "No version."}, {"version": 0, "notes": "x"}, {"version": "1"}, [1]])
def test_a_patch_needs_the_version_as_a_number(as_, brunella, body) -> None:
    response = as_("player").patch(f"/characters/{brunella.pk}", body)
    assert response.status_code == 422
    assert document(brunella)["notes"] == "Owes the ferryman two silver."


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


def test_a_draft_is_finished_in_the_creation_steps(as_, campaign, player) -> None:
    draft = Character.objects.create(campaign=campaign, owner=player, name="Draft")
    unchanged = as_("player").patch(f"/characters/{draft.pk}", document(draft))  # its nulls as they are
    assert unchanged.status_code == 200
    assert unchanged.json() == document(draft)
    response = as_("player").patch(f"/characters/{draft.pk}", {"version": 1, "notes": "Ideas."})
    assert response.status_code == 403
    assert "still a draft" in response.json()["message"]
    assert as_("other_player").patch(f"/characters/{draft.pk}", {"version": 1}).status_code == 404


# --- The schema -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "method", "statuses"),
    [
        ("/api/v1/campaigns/{id}/characters", "get", {"200", "401", "404", "422", "429"}),
        ("/api/v1/campaigns/{id}/characters", "post", {"201", "400", "401", "404", "413", "422", "429"}),
        ("/api/v1/characters/{id}", "get", {"200", "401", "404", "422", "429"}),
        ("/api/v1/characters/{id}", "patch", {"200", "400", "401", "403", "404", "409", "413", "422", "429"}),
    ],
)
def test_the_schema_documents_every_status(client, path, method, statuses) -> None:
    schema = client.get("/api/v1/openapi.json").json()
    assert set(schema["paths"][path][method]["responses"]) == statuses


def test_the_schema_describes_the_document(client) -> None:
    schema = client.get("/api/v1/openapi.json").json()
    document = schema["components"]["schemas"]["CharacterDocument"]
    assert set(document["properties"]) == set(exchange.FIELDS)
    stale = schema["paths"]["/api/v1/characters/{id}"]["patch"]["responses"]["409"]
    assert stale["content"]["application/json"]["schema"]["$ref"].endswith("/StaleVersion")
    imported = schema["paths"]["/api/v1/campaigns/{id}/characters"]["post"]
    assert imported["requestBody"]["content"]["application/json"]["schema"]["$ref"].endswith("/CharacterDocument")
    assert "Location" in imported["responses"]["201"]["headers"]
