"""Export a character as a JSON document and import it into another campaign as a fresh creation.

Every character here is made through ``characters.creation``, as a player makes one; the
played state (levels raised, damage taken, reputation) is then written as play would leave it.
"""

from __future__ import annotations

import copy
import json
import random
from html import escape
from typing import Any

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import creation, exchange
from characters.creation import ArmorChoice, AssetChoice, SpecializationChoice, TraitChoice, WeaponChoice
from characters.exchange import DocumentError
from characters.models import Character, Specialization
from rules.dice import StepDie
from rules.systems import lucky13

pytestmark = pytest.mark.django_db

D = StepDie.parse
BALANCED = dict(zip(lucky13.ABILITY_KEYS, map(D, ["d6", "d4", "d10", "d6", "d8"]), strict=True))
SCI_FI = [{"name": n, "ability": a} for n, a in lucky13.SKILL_PRESETS["sci_fi"][1]]


def make_campaign(gm, *members, name="The Sunken Crown", **options) -> Campaign:
    campaign = Campaign.objects.create(name=name, system="lucky13", options=options)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    for member in members:
        Membership.objects.create(campaign=campaign, user=member, role=Membership.Role.PLAYER)
    return campaign


def build(campaign, owner, *, name="Brunella", rng: random.Random | None = None, skill_rng=None) -> Character:
    """A finished character through every creation step: array abilities, or rolled ones with ``rng``."""
    character = creation.start_character(campaign=campaign, owner=owner, name=name, concept="Sellsword")
    if rng is None:
        creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED)
    else:
        creation.roll_abilities(character_id=character.pk, rng=rng)
    creation.set_skills(character_id=character.pk, rng=skill_rng)
    creation.set_specializations(
        character_id=character.pk,
        choices=[SpecializationChoice("Spellcasting", "Teleport"), SpecializationChoice("Fighting", "Broadsword"),
                 SpecializationChoice("Sneaking", "Pick locks"), SpecializationChoice("Healing", "Herbs")],
        took_impairment=True,
    )  # fmt: skip
    creation.set_traits(
        character_id=character.pk,
        traits=[TraitChoice("background", "Mercenary", "Free companies"), TraitChoice("impairment", "Bad knee")],
    )
    creation.set_equipment(
        character_id=character.pk,
        assets=[AssetChoice("Old map", 2, "thing", ("Sneaking", "Scholarship"), "Faded ink"),
                AssetChoice("Town guide", 3, "person")],
        weapons=[WeaponChoice("Broadsword", D("d8"), D("d10"))],
        armor=[ArmorChoice("Chainmail", D("d6"))],
    )  # fmt: skip
    return creation.finish(character_id=character.pk)


def played(character: Character) -> Character:
    """As play leaves a sheet: a level bought, damage taken, a name made, points earned, notes."""
    Specialization.objects.filter(skill__character=character, name="Teleport").update(level=3)
    Character.objects.filter(pk=character.pk).update(hit_points=17, reputation=2, ap_balance=9, notes="Owes Tam 3 gp.")
    return Character.objects.get(pk=character.pk)


def export(character: Character) -> dict[str, Any]:
    from characters.sheets import with_sheet

    return exchange.export_character(with_sheet(Character.objects.filter(pk=character.pk)).get())


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """What an import keeps: the document without the fields a fresh creation sets anew."""
    return {k: v for k, v in document.items() if k not in ("version", "integrity")}


@pytest.fixture
def second(gm, player, other_player) -> Campaign:
    """Another campaign of the same system and options, run by the same GM."""
    return make_campaign(gm, player, other_player, name="The Drowned Road")


def errors_of(excinfo: pytest.ExceptionInfo[DocumentError]) -> dict[str, str]:
    return dict(excinfo.value.errors)


# --- Export ----------------------------------------------------------------------------------


def test_the_export_carries_the_whole_sheet_in_the_schema(campaign, player) -> None:
    character = played(build(campaign, player))
    document = export(character)

    assert document["schema"] == "dicehall.character"
    assert document["schema_version"] == 1
    assert document["system"] == "lucky13"
    assert document["version"] == character.version
    assert document["name"] == "Brunella"
    assert document["abilities"] == {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    assert document["ability_names"]["pulse"] == "Pulse"
    assert document["ability_method"] == "balanced"
    assert document["creation_rolls"] == {}
    assert document["integrity"] is None
    assert [s["name"] for s in document["skills"]] == ["Spellcasting", "Scholarship", "Healing", "Sneaking", "Fighting"]
    assert document["skills"][0] == {
        "name": "Spellcasting",
        "ability": "intellect",
        "die": "d6",
        "specializations": [{"name": "Teleport", "level": 3}],
    }
    assert document["took_impairment"] is True
    assert document["backgrounds"] == [{"name": "Mercenary", "description": "Free companies"}]
    assert document["impairments"] == [{"name": "Bad knee", "description": ""}]
    assert document["assets"][0] == {
        "name": "Old map",
        "kind": "thing",
        "level": 2,
        "skills": ["Scholarship", "Sneaking"],
        "description": "Faded ink",
    }
    assert document["weapons"] == [{"name": "Broadsword", "accuracy": "d8", "damage": "d10"}]
    assert document["armor"] == [{"name": "Chainmail", "defense": "d6"}]
    assert (document["hit_points"], document["reputation"], document["notes"]) == (17, 2, "Owes Tam 3 gp.")
    assert set(document) == set(exchange.FIELDS)
    assert json.loads(json.dumps(document)) == document


def test_a_rolled_character_exports_its_rolls_with_a_signature(campaign, player) -> None:
    character = build(campaign, player, rng=random.Random(7))
    document = export(character)
    assert document["ability_method"] == "random"
    assert document["creation_rolls"] == {"abilities": character.creation_rolls["abilities"]}
    assert isinstance(document["integrity"], str)
    assert document["integrity"]


# --- Import: a fresh creation ----------------------------------------------------------------


def test_an_array_character_round_trips_into_another_campaign(campaign, second, player) -> None:
    original = build(campaign, player)
    document = export(original)

    imported = exchange.import_character(campaign=second, owner=player, document=document)

    assert imported.pk != original.pk
    assert (imported.campaign, imported.owner, imported.status) == (second, player, "active")
    assert comparable(export(imported)) == comparable(document)


def test_an_import_starts_afresh_and_says_what_was_reset(campaign, second, player) -> None:
    document = export(played(build(campaign, player)))

    imported = exchange.import_character(campaign=second, owner=player, document=document)

    assert imported.hit_points == 40  # Pulse d10, four steps of 10: full
    assert imported.reputation == 0
    assert imported.ap_balance == 0
    assert set(Specialization.objects.filter(skill__character=imported).values_list("level", flat=True)) == {1}
    assert imported.notes == "Owes Tam 3 gp."
    assert exchange.resets(campaign=second, document=document) == [
        "Teleport (Spellcasting) from level 3 to level 1",
        "reputation from +2 to 0",
        "hit points from 17 to 40 (full)",
        "Adventure Points start at 0 (points earned stay with the original character)",
    ]


def test_a_rule_of_the_target_campaign_that_fails_names_the_field_and_creates_nothing(gm, campaign, player) -> None:
    document = export(build(campaign, player))
    sci_fi = make_campaign(gm, player, name="Starfall", skill_preset="sci_fi", skills=SCI_FI)
    before = Character.objects.count()

    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=sci_fi, owner=player, document=document)

    errors = errors_of(excinfo)
    assert errors["skills[0].name"].startswith("Spellcasting is not one of Starfall's skills (Technology")
    assert "Astrogation" in errors["skills"]
    assert Character.objects.count() == before


@pytest.mark.parametrize(
    ("options", "field", "message"),
    [
        ({"starting_specializations": 1}, "skills[3].specializations[0]",
         "starts with at most 2 specializations, and this document has 4"),
        ({"skill_method": "point_buy", "skill_points": 10}, "skills", "those dice cost 12 points; the budget is 10"),
        ({"skill_method": "array", "skill_array": ["d4", "d4", "d4", "d4", "d4"]}, "skills", "assign the dice"),
        ({"skills": [{"name": n, "ability": None} for n in ["Spellcasting", "Scholarship", "Healing", "Sneaking",
                                                              "Fighting"]]},
         "skills[0].die", "Spellcasting has d4, as it has no linked ability, not d6"),
        ({"ability_methods": "random"}, "ability_method", "rolls every character's abilities on the server"),
    ],
)  # fmt: skip
def test_each_creation_rule_of_the_target_applies(gm, campaign, player, options, field, message) -> None:
    document = export(build(campaign, player))
    target = make_campaign(gm, player, name="Elsewhere", **options)
    before = Character.objects.count()

    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=target, owner=player, document=document)

    assert message in errors_of(excinfo)[field]
    assert Character.objects.count() == before


def test_an_array_that_breaks_the_rule_is_refused(campaign, second, player) -> None:
    document = export(build(campaign, player))
    document["abilities"]["will"] = "d12"
    with pytest.raises(DocumentError, match="abilities: the balanced array is d4 d6 d6 d8 d10: too many d12"):
        exchange.import_character(campaign=second, owner=player, document=document)


def test_an_archived_campaign_takes_no_imports(campaign, second, player) -> None:
    from django.utils import timezone

    document = export(build(campaign, player))
    Campaign.objects.filter(pk=second.pk).update(archived_at=timezone.now())
    second.refresh_from_db()
    with pytest.raises(DocumentError, match="campaign: this campaign is archived"):
        exchange.import_character(campaign=second, owner=player, document=document)
    assert not second.characters.exists()


# --- Rolled dice: only this server's rolls, signed -------------------------------------------


def test_rolled_abilities_come_along_when_this_server_signed_them(campaign, second, player) -> None:
    original = build(campaign, player, rng=random.Random(7))
    document = export(original)

    imported = exchange.import_character(campaign=second, owner=player, document=document)

    assert imported.ability_method == "random"
    assert imported.creation_rolls == original.creation_rolls
    assert [imported.ability(k) for k in lucky13.ABILITY_KEYS] == [original.ability(k) for k in lucky13.ABILITY_KEYS]
    assert comparable(export(imported)) == comparable(document)
    # The new character's own export is signed again, so it can move on.
    exchange.import_character(campaign=campaign, owner=player, document=export(imported))


def _retuned(document: dict[str, Any], index: int, roll: int) -> dict[str, Any]:
    """The document with one ability roll changed, and its die changed to match: a forged roll."""
    forged = copy.deepcopy(document)
    forged["creation_rolls"]["abilities"][index] = roll
    key = lucky13.ABILITY_KEYS[index]
    forged["abilities"][key] = lucky13.ability_from_percentile(roll).label
    return forged


@pytest.mark.parametrize(
    ("tamper", "field"),
    [
        (lambda d: _retuned(d, 2, 100), "integrity"),  # a better roll, with the die it gives
        (lambda d: {**d, "integrity": d["integrity"][:-2] + "AA"}, "integrity"),
        (lambda d: {**d, "integrity": None}, "integrity"),
        (lambda d: {**d, "creation_rolls": {}}, "creation_rolls.abilities"),
        (lambda d: {**d, "abilities": {**d["abilities"], "pulse": "d12" if d["abilities"]["pulse"] != "d12" else "d4"}},
         "abilities.pulse"),
    ],
)  # fmt: skip
def test_forged_or_changed_rolls_are_refused(campaign, second, player, tamper, field) -> None:
    document = tamper(export(build(campaign, player, rng=random.Random(7))))
    before = Character.objects.count()

    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=second, owner=player, document=document)

    message = errors_of(excinfo)[field]
    assert "array method" in message or "is not what its roll gives" in message
    assert Character.objects.count() == before


def test_rolls_signed_by_another_server_are_refused(campaign, second, player) -> None:
    with override_settings(SECRET_KEY="another-dicehall-with-its-own-key-" + "x" * 30):
        document = export(build(campaign, player, rng=random.Random(7)))
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=second, owner=player, document=document)
    assert "not made by this Dicehall" in errors_of(excinfo)["integrity"]
    assert not second.characters.exists()


def test_a_rolled_character_cannot_join_an_array_only_campaign(gm, campaign, player) -> None:
    document = export(build(campaign, player, rng=random.Random(7)))
    array_only = make_campaign(gm, player, name="Arrays", ability_methods="array")
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=array_only, owner=player, document=document)
    message = errors_of(excinfo)["ability_method"]
    assert "Arrays allows only the array method for abilities" in message
    assert 'set "ability_method" to "balanced" or "specialized"' in message
    assert not array_only.characters.exists()


def test_a_random_character_turned_into_an_array_one_by_its_player_imports(gm, campaign, player) -> None:
    """What the refusal tells the player to do works."""
    document = export(build(campaign, player, rng=random.Random(7)))
    array_only = make_campaign(gm, player, name="Arrays", ability_methods="array")
    document.update(ability_method="balanced", abilities={k: d.label for k, d in BALANCED.items()}, creation_rolls={})
    document["skills"] = export(build(campaign, player, name="Template"))["skills"]
    imported = exchange.import_character(campaign=array_only, owner=player, document=document)
    assert imported.ability_method == "balanced"
    assert imported.creation_rolls == {}


def test_rolled_skills_come_along_into_a_campaign_that_rolls_skills(gm, player) -> None:
    source = make_campaign(gm, player, name="Rolled", skill_method="random")
    target = make_campaign(gm, player, name="Rolled too", skill_method="random")
    original = build(source, player, skill_rng=random.Random(11))
    document = export(original)
    assert document["creation_rolls"] == {"skills": original.creation_rolls["skills"]}

    imported = exchange.import_character(campaign=target, owner=player, document=document)

    assert imported.creation_rolls == original.creation_rolls
    assert comparable(export(imported)) == comparable(document)

    forged = copy.deepcopy(document)
    forged["creation_rolls"]["skills"][0] = 100
    forged["skills"][0]["die"] = "d12"
    with pytest.raises(DocumentError, match="integrity: these skill rolls were not made by this Dicehall"):
        exchange.import_character(campaign=target, owner=player, document=forged)
    assert target.characters.count() == 1


def test_a_campaign_that_rolls_skills_takes_no_chosen_skill_dice(gm, campaign, player) -> None:
    document = export(build(campaign, player))
    rolled = make_campaign(gm, player, name="Rolled", skill_method="random")
    with pytest.raises(DocumentError, match=r"creation_rolls\.skills: Rolled rolls skill dice on the server"):
        exchange.import_character(campaign=rolled, owner=player, document=document)


# --- Documents that are not character documents ----------------------------------------------


def valid_document(campaign, player) -> dict[str, Any]:
    return export(build(campaign, player))


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda d: d.update(schema_version=2), "schema_version", "reads version 1 of the character schema"),
        (lambda d: d.pop("schema_version"), "schema_version", "is missing"),
        (lambda d: d.update(schema="dicehall.campaign"), "schema", "not a Dicehall character document"),
        (lambda d: d.update(system="d6"), "system", "plays Lucky 13"),
        (lambda d: d.update(level=3), "level", "is not a field here"),
        (lambda d: d["skills"][1].update(bonus=1), "skills[1].bonus", "is not a field here"),
        (lambda d: d.update(name=42), "name", "must be text"),
        (lambda d: d.update(name="   "), "name", "A character needs a name"),
        (lambda d: d.update(took_impairment="yes"), "took_impairment", "must be true or false"),
        (lambda d: d["abilities"].update(will=8), "abilities.will", "must be a die label"),
        (lambda d: d["abilities"].update(will="d12+d4"), "abilities.will", "d4 … d12, not d12+d4"),
        (lambda d: d["abilities"].pop("reflex"), "abilities.reflex", "is missing"),
        (lambda d: d["skills"][2].update(die="d7"), "skills[2].die", "not a die on the step ladder"),
        (lambda d: d["skills"][0]["specializations"][0].update(level=True), "skills[0].specializations[0].level",
         "must be a whole number"),
        (lambda d: d["skills"][0]["specializations"][0].update(level=6), "skills[0].specializations[0].level",
         "must be from 1 to 5"),
        (lambda d: d["assets"][0].update(level="2"), "assets[0].level", "must be a whole number"),
        (lambda d: d["assets"][0].update(kind="dragon"), "assets[0].kind", 'must be one of "thing", "person"'),
        (lambda d: d["assets"][0]["skills"].append("Piloting"), "assets[0].skills[2]", "Piloting is not one of"),
        (lambda d: d.update(weapons={"name": "Sword"}), "weapons", "must be a list"),
        (lambda d: d.update(reputation=9), "reputation", "must be from -5 to 5"),
        (lambda d: d.update(ability_method="heroic"), "ability_method", "must be one of"),
        (lambda d: d.update(armor=[{"name": "Plate", "defense": "d6"}] * 21), "armor", "at most 20 entries"),
        (lambda d: d.update(backgrounds=[{"name": f"B{i}"} for i in range(20)]), "impairments",
         "at most 20 backgrounds and impairments together"),
        (lambda d: d["skills"][0].update(specializations=[{"name": f"S{i}"} for i in range(21)]),
         "skills[0].specializations", "at most 20 entries"),
        (lambda d: d.update(notes="x" * 20_001), "notes", "at most 20,000 characters"),
        (lambda d: d.update(took_impairment=True, impairments=[]), "impairments", "name the impairment here"),
    ],
)  # fmt: skip
def test_a_malformed_document_is_refused_with_the_field_named(campaign, second, player, change, field, message):
    document = valid_document(campaign, player)
    change(document)
    before = Character.objects.count()

    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=second, owner=player, document=document)

    errors = errors_of(excinfo)
    assert field in errors, excinfo.value.messages
    assert message in errors[field]
    assert Character.objects.count() == before


def test_every_problem_of_a_document_is_reported_at_once(campaign, second, player) -> None:
    document = valid_document(campaign, player)
    document.update(name=None, reputation="high", colour="blue")
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=second, owner=player, document=document)
    assert set(errors_of(excinfo)) == {"name", "reputation", "colour"}


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "the document is empty"),
        (b"{nope", "not valid JSON"),
        (b"[1, 2]", "a character document is a JSON object"),
        (b'{"name": "A", "name": "B"}', "the key 'name' appears twice"),
        (b'{"hit_points": NaN}', "NaN is not a number JSON allows"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested far too deeply"),
        (b'{"pad": "' + b"x" * (256 * 1024) + b'"}', "at most 256 KB"),
    ],
)
def test_raw_documents_that_are_not_json_objects_are_refused(raw, message) -> None:
    with pytest.raises(DocumentError, match=message):
        exchange.read_document(exchange.load_document(raw))


# --- The pages -------------------------------------------------------------------------------


def import_url(campaign) -> str:
    return reverse("characters:import", args=[campaign.pk])


def test_the_export_is_a_json_download_named_after_the_character(client, campaign, player) -> None:
    character = build(campaign, player, name="Brunella the Bold")
    client.force_login(player)
    response = client.get(reverse("characters:export", args=[character.pk]))
    assert response.status_code == 200
    assert response["Content-Type"] == "application/json; charset=utf-8"
    assert response["Content-Disposition"] == 'attachment; filename="brunella-the-bold.json"'
    assert json.loads(response.content) == export(character)


@pytest.mark.parametrize(("who", "status"), [("player", 200), ("gm", 200), ("other_player", 200), ("outsider", 404)])
def test_any_member_who_sees_the_sheet_may_export_it(client, request, campaign, player, outsider, who, status):
    character = build(campaign, player)
    client.force_login(request.getfixturevalue(who))
    assert client.get(reverse("characters:export", args=[character.pk])).status_code == status


def test_a_draft_exports_for_its_player_but_not_for_other_players(client, campaign, player, other_player) -> None:
    draft = creation.start_character(campaign=campaign, owner=player, name="Half done")
    client.force_login(player)
    document = client.get(reverse("characters:export", args=[draft.pk])).json()
    assert document["abilities"]["will"] is None
    assert document["ability_method"] is None
    client.force_login(other_player)
    assert client.get(reverse("characters:export", args=[draft.pk])).status_code == 404


def test_anonymous_visitors_are_sent_to_log_in(client, campaign, player) -> None:
    character = build(campaign, player)
    for url in (reverse("characters:export", args=[character.pk]), import_url(campaign)):
        response = client.get(url)
        assert response.status_code == 302
        assert "login" in response["Location"]


def test_the_import_form_shows_the_rules_and_what_starts_afresh(client, campaign, player) -> None:
    client.force_login(player)
    response = client.get(import_url(campaign))
    assert response.status_code == 200
    page = response.content.decode()
    assert 'enctype="multipart/form-data"' in page
    assert 'type="file"' in page
    assert 'name="document"' in page
    assert "every specialization at level 1, reputation 0, full hit points, no Adventure Points" in page
    assert "Spellcasting, Scholarship, Healing, Sneaking, Fighting" in page


def test_pasting_a_document_imports_it_and_lists_what_was_reset(client, campaign, second, player) -> None:
    document = export(played(build(campaign, player)))
    client.force_login(player)

    response = client.post(import_url(second), {"document": json.dumps(document)})

    imported = second.characters.get()
    assert response.status_code == 302
    assert response["Location"] == reverse("characters:sheet", args=[imported.pk])
    [message] = [str(m) for m in response.wsgi_request._messages]
    assert message.startswith("Brunella joined The Drowned Road as a new character.")
    assert (
        "Teleport (Spellcasting) from level 3 to level 1; reputation from +2 to 0; hit points from 17 to 40 " in message
    )
    assert message.endswith("Adventure Points start at 0 (points earned stay with the original character).")
    assert imported.owner == player


def test_uploading_the_exported_file_imports_it(client, campaign, second, player, gm) -> None:
    client.force_login(player)
    exported = client.get(reverse("characters:export", args=[build(campaign, player).pk])).content
    client.force_login(gm)  # the GM may bring a character in too; it is theirs then

    response = client.post(import_url(second), {"file": SimpleUploadedFile("brunella.json", exported)})

    assert response.status_code == 302
    assert second.characters.get().owner == gm


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ({}, "choose an exported file, or paste its text"),
        ({"document": "{}", "file": SimpleUploadedFile("a.json", b"{}")}, "not both"),
        ({"document": "not json"}, "not valid JSON"),
        ({"document": '{"schema": "dicehall.character", "schema_version": 9}'}, "schema_version: this Dicehall"),
        ({"document": " " * (256 * 1024 + 1) + "{}"}, "at most 256 KB"),
        ({"file": SimpleUploadedFile("big.json", b" " * (256 * 1024 + 1))}, "the limit is 256 KB"),
    ],
)
def test_bad_imports_are_a_400_with_the_messages_and_create_nothing(client, campaign, player, data, message):
    build(campaign, player)
    client.force_login(player)
    before = Character.objects.count()

    response = client.post(import_url(campaign), data)

    assert response.status_code == 400
    assert message in response.content.decode()
    assert Character.objects.count() == before


def test_a_refused_import_names_the_field_on_the_page_and_keeps_the_text(client, gm, campaign, player) -> None:
    document = export(build(campaign, player))
    sci_fi = make_campaign(gm, player, name="Starfall", skill_preset="sci_fi", skills=SCI_FI)
    client.force_login(player)
    pasted = json.dumps(document)

    response = client.post(import_url(sci_fi), {"document": pasted})

    assert response.status_code == 400
    page = response.content.decode()
    assert "skills[0].name: Spellcasting is not one of Starfall&#x27;s skills" in page
    assert escape(pasted) in page  # the pasted text is still in the textarea, to fix
    assert not sci_fi.characters.exists()


def test_importing_needs_membership_of_the_target_campaign(client, gm, campaign, player, outsider) -> None:
    document = export(build(campaign, player))
    elsewhere = make_campaign(gm, outsider, name="Elsewhere")  # the player is not a member
    client.force_login(player)
    before = Character.objects.count()

    assert client.get(import_url(elsewhere)).status_code == 404
    assert client.post(import_url(elsewhere), {"document": json.dumps(document)}).status_code == 404
    assert Character.objects.count() == before
