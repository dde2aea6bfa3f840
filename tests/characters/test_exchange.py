"""Export a character as a JSON document and import it into a campaign.

A signed, unchanged export comes back as it was exported; an unsigned or changed document is
created again as a fresh creation of the target campaign; a document of the old format
(version 1) still imports. Characters are built as sheet documents with the engine, as the
creation steps leave them (``build``), and played as play leaves them (``played``).
"""

from __future__ import annotations

import copy
import json
import random
from html import escape
from typing import Any

import pytest
from django.core import signing
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import override_settings
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import exchange, ledger
from characters.exchange import DocumentError
from characters.models import Balance, Character, SheetChange
from rules.dice import StepDie
from rules.systems import lucky13

pytestmark = pytest.mark.django_db

BALANCED = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
SCI_FI = [{"name": n, "ability": a} for n, a in lucky13.SKILL_PRESETS["sci_fi"][1]]
SYSTEM = lucky13.SYSTEM
#: Item ids of a built character, in the order a version-1 document gives them.
TELEPORT, HERBS, PICK_LOCKS, BROADSWORD_SPEC = 6, 7, 8, 9
MERCENARY, BAD_KNEE, OLD_MAP, TOWN_GUIDE, BROADSWORD, CHAINMAIL = 10, 11, 12, 13, 14, 15


def make_campaign(gm, *members, name="The Sunken Crown", **options) -> Campaign:
    campaign = Campaign.objects.create(name=name, system="lucky13", options=options)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    for member in members:
        Membership.objects.create(campaign=campaign, user=member, role=Membership.Role.PLAYER)
    return campaign


def built_sheet(campaign, *, rng: random.Random | None = None, skill_rng: random.Random | None = None) -> dict:
    """A finished sheet as the creation steps make it in ``campaign``: the balanced array, or
    abilities rolled with ``rng``; skills by the campaign's method (rolled with ``skill_rng``);
    four specializations with an impairment; a background; gear; full hit points."""
    options = campaign.settings
    sheet = SYSTEM.new_draft(options)
    if rng is None:
        document = sheet.model_dump(mode="json")
        document["abilities"] = dict(BALANCED)
        document["creation"]["ability_method"] = "balanced"
        sheet = SYSTEM.read_sheet(document)
    else:
        sheet = SYSTEM.roll_step(sheet, "abilities", options, rng)
    if options["skill_method"] == "random":
        sheet = SYSTEM.roll_step(sheet, "skills", options, skill_rng or random.Random(0))
    document = sheet.model_dump(mode="json")
    if options["skill_method"] != "random":
        for skill in document["skills"]:
            skill["die"] = document["abilities"][skill["ability"]] if skill["ability"] else "d4"
    specs = {"Spellcasting": "Teleport", "Healing": "Herbs", "Sneaking": "Pick locks", "Fighting": "Broadsword"}
    next_id = len(document["skills"]) + 1
    for skill in document["skills"]:
        if skill["name"] in specs:
            skill["specializations"] = [{"id": next_id, "name": specs[skill["name"]], "level": 1}]
            next_id += 1
    ids = {skill["name"]: skill["id"] for skill in document["skills"]}
    document.update(
        concept="Sellsword",
        traits=[
            {"id": next_id, "kind": "background", "name": "Mercenary", "description": "Free companies"},
            {"id": next_id + 1, "kind": "impairment", "name": "Bad knee", "description": ""},
        ],
        assets=[
            {"id": next_id + 2, "name": "Old map", "kind": "thing", "level": 2,
             "skills": sorted(ids[n] for n in ("Sneaking", "Scholarship") if n in ids), "description": "Faded ink"},
            {"id": next_id + 3, "name": "Town guide", "kind": "person", "level": 3, "skills": [], "description": ""},
        ],
        weapons=[{"id": next_id + 4, "name": "Broadsword", "accuracy": "d8", "damage": "d10"}],
        armor=[{"id": next_id + 5, "name": "Chainmail", "defense": "d6"}],
        next_id=next_id + 6,
    )  # fmt: skip
    document["creation"].update(step="", took_impairment=True)
    pulse = StepDie.parse(document["abilities"]["pulse"])
    document["hit_points"] = lucky13.max_hit_points(pulse, options["hit_points_per_step"])
    return SYSTEM.read_sheet(document).model_dump(mode="json")


def build(campaign, owner, *, name="Brunella", rng=None, skill_rng=None, status="active") -> Character:
    """A finished character of ``campaign`` (see :func:`built_sheet`)."""
    sheet = built_sheet(campaign, rng=rng, skill_rng=skill_rng)
    return Character.objects.create(campaign=campaign, owner=owner, name=name, status=status, sheet=sheet)


def played(character: Character) -> Character:
    """As play leaves a sheet: a level bought, damage taken, a name made, points earned, notes."""
    sheet = copy.deepcopy(character.sheet)
    sheet["skills"][0]["specializations"][0]["level"] = 3
    sheet.update(hit_points=17, reputation=2, notes="Owes Tam 3 gp.")
    Character.objects.filter(pk=character.pk).update(sheet=sheet)
    Balance.objects.create(character=character, currency="ap", amount=9)
    return Character.objects.get(pk=character.pk)


def export(character: Character) -> dict[str, Any]:
    return exchange.export_character(Character.objects.select_related("campaign").get(pk=character.pk))


def comparable(document: dict[str, Any]) -> dict[str, Any]:
    """What an import keeps: the envelope without what belongs to one export."""
    return {k: v for k, v in document.items() if k not in ("version", "exported_at", "signature", "campaign", "player")}


def approved(character: Character) -> Character:
    """An import that waits for the GM, approved as it stands by the campaign's GM."""
    gm = Membership.objects.get(campaign_id=character.campaign_id, role=Membership.Role.GM).user
    decided, _ = exchange.decide_arrival(character_id=character.pk, approve=True, by=gm)
    return decided


def unsigned(document: dict[str, Any]) -> dict[str, Any]:
    """The document as a player edited it, or another program wrote it: without a signature."""
    return {**copy.deepcopy(document), "signature": None}


def v1_export(character: Character, *, key: str | None = None) -> dict[str, Any]:
    """The character as the version-1 format wrote it (the export before the envelope), with the
    ``integrity`` signature over its rolls made as that code made it."""
    sheet = character.document
    options = character.campaign.settings
    names = {skill.id: skill.name for skill in sheet.skills}
    with_dice = all(skill.die is not None for skill in sheet.skills)
    skills = list(sheet.skills) if with_dice else []  # a draft's skill rows began at its skills step
    ability_rolls = list(sheet.creation.ability_rolls) if sheet.creation.ability_method == "random" else None
    skill_rolls = [s.rolled for s in skills] if skills and all(s.rolled for s in skills) else None
    rolls: dict[str, list[int]] = {}
    integrity = None
    if ability_rolls:
        rolls["abilities"] = ability_rolls
    if skill_rolls:
        rolls["skills"] = skill_rolls
    if rolls:
        payload = {
            "system": character.campaign.system,
            "abilities": None
            if ability_rolls is None
            else {
                "rolls": ability_rolls,
                "dice": {k: lucky13.ability_from_percentile(r).label for k, r in zip(lucky13.ABILITY_KEYS,
                                                                                       ability_rolls, strict=True)},
            },
            "skills": None
            if skill_rolls is None
            else [[s.name, s.rolled, lucky13.ability_from_percentile(s.rolled).label] for s in skills],
        }  # fmt: skip
        signer = signing.Signer(key=key, salt="dicehall.characters.exchange.creation-rolls")
        integrity = signer.signature(json.dumps(payload, sort_keys=True, separators=(",", ":")))
    return {
        "schema": "dicehall.character",
        "schema_version": 1,
        "system": character.campaign.system,
        "version": character.version,
        "name": character.name,
        "concept": sheet.concept,
        "ability_names": dict(zip(lucky13.ABILITY_KEYS, options["ability_names"], strict=True)),
        "abilities": sheet.abilities.model_dump(mode="json"),
        "ability_method": sheet.creation.ability_method or None,
        "creation_rolls": rolls,
        "skills": [
            {
                "name": s.name,
                "ability": s.ability,
                "die": s.die,
                "specializations": [{"name": p.name, "level": p.level} for p in s.specializations],
            }
            for s in skills
        ],
        "took_impairment": sheet.creation.took_impairment,
        "backgrounds": [{"name": t.name, "description": t.description} for t in sheet.traits if t.kind == "background"],
        "impairments": [{"name": t.name, "description": t.description} for t in sheet.traits if t.kind == "impairment"],
        "assets": [
            {
                "name": a.name,
                "kind": a.kind,
                "level": a.level,
                "skills": [names[i] for i in a.skills],
                "description": a.description,
            }
            for a in sheet.assets
        ],
        "weapons": [{"name": w.name, "accuracy": w.accuracy, "damage": w.damage} for w in sheet.weapons],
        "armor": [{"name": a.name, "defense": a.defense} for a in sheet.armor],
        "hit_points": sheet.hit_points,
        "reputation": sheet.reputation,
        "notes": sheet.notes,
        "integrity": integrity,
    }


@pytest.fixture
def second(gm, player, other_player) -> Campaign:
    """Another campaign of the same system and options, run by the same GM."""
    return make_campaign(gm, player, other_player, name="The Drowned Road")


def errors_of(excinfo: pytest.ExceptionInfo[DocumentError]) -> dict[str, str]:
    return dict(excinfo.value.errors)


def document_of(character: Character) -> dict[str, Any]:
    character.refresh_from_db()
    return character.document.model_dump(mode="json")


# --- Export ----------------------------------------------------------------------------------


def test_the_export_is_an_envelope_around_the_whole_sheet(campaign, player) -> None:
    character = played(build(campaign, player))
    document = export(character)

    assert document["format"] == "dicehall-character"
    assert document["format_version"] == 2
    assert (document["system"], document["sheet_version"]) == ("lucky13", 1)
    assert document["version"] == character.version
    assert (document["name"], document["status"]) == ("Brunella", "active")
    assert document["sheet"] == character.document.model_dump(mode="json")
    assert document["sheet"]["skills"][0]["specializations"] == [{"id": TELEPORT, "name": "Teleport", "level": 3}]
    assert (document["sheet"]["hit_points"], document["sheet"]["reputation"]) == (17, 2)
    assert isinstance(document["exported_at"], str)
    assert isinstance(document["signature"], str)
    assert document["signature"]
    assert set(document) == set(exchange.FIELDS)
    assert exchange.Envelope.model_validate(document).sheet == document["sheet"]
    assert json.loads(json.dumps(document)) == document


def test_a_rolled_character_exports_its_rolls_under_the_signature(campaign, player) -> None:
    character = build(campaign, player, rng=random.Random(7))
    document = export(character)
    assert document["sheet"]["creation"]["ability_method"] == "random"
    assert document["sheet"]["creation"]["ability_rolls"] == list(character.document.creation.ability_rolls)
    assert exchange.signed(document)
    assert not exchange.signed({**document, "name": "Someone else"})


# --- Import: the character as it was exported ------------------------------------------------


def test_an_array_character_round_trips_into_another_campaign(campaign, second, player) -> None:
    original = build(campaign, player)
    document = export(original)

    imported = exchange.import_character(campaign=second, owner=player, document=document)
    assert (imported.status, imported.arrival["status"]) == ("draft", "active")
    imported = approved(imported)

    assert imported.pk != original.pk
    assert (imported.campaign, imported.owner, imported.status) == (second, player, "active")
    assert comparable(export(imported)) == comparable(document)


def test_a_signed_export_comes_back_with_everything_it_had(campaign, second, player) -> None:
    document = export(played(build(campaign, player)))

    imported = exchange.import_character(campaign=second, owner=player, document=document)

    sheet = document_of(imported)
    assert sheet == document["sheet"]
    assert sheet["skills"][0]["specializations"][0]["level"] == 3
    assert (sheet["hit_points"], sheet["reputation"], sheet["notes"]) == (17, 2, "Owes Tam 3 gp.")
    assert ledger.balances(imported) == {"ap": 0}
    assert exchange.resets(campaign=second, document=document) == [
        "Adventure Points start at 0 (points earned stay with the original character)"
    ]


def test_the_import_is_written_through_the_write_path(campaign, second, player) -> None:
    document = export(build(campaign, player))
    imported = exchange.import_character(campaign=second, owner=player, document=document)
    [change] = SheetChange.objects.filter(character=imported)
    assert (change.what, change.by, change.after) == (
        "Imported from an export of The Sunken Crown: waits for the GM",
        player,
        document["sheet"],
    )
    assert change.version == imported.version


@pytest.mark.parametrize(("status", "draft"), [("draft", True), ("archived", False), ("archived", True)])
def test_a_draft_and_an_archived_character_keep_their_status(campaign, second, player, status, draft) -> None:
    """An archived draft (its player left mid-creation) comes back as that archived draft."""
    sheet = built_sheet(campaign)
    if draft:
        sheet.update(hit_points=None, assets=[], weapons=[], armor=[])
        sheet["creation"]["step"] = "equipment"
    character = Character.objects.create(campaign=campaign, owner=player, name="Half", status=status, sheet=sheet)
    at_home = exchange.import_character(campaign=campaign, owner=player, document=export(character))
    assert (at_home.status, document_of(at_home)) == (status, sheet)
    document = export(character)

    imported = approved(exchange.import_character(campaign=second, owner=player, document=document))

    assert imported.status == status
    assert document_of(imported) == document["sheet"]
    if draft:
        assert imported.document.creation.step == "equipment"


def test_a_signed_export_is_not_rechecked_as_a_fresh_creation(gm, campaign, player) -> None:
    """An advanced character joins as it stands, whatever the target's creation rules."""
    document = export(played(build(campaign, player, rng=random.Random(7))))
    strict = make_campaign(gm, player, name="Strict", ability_methods="array", starting_specializations=1)
    imported = exchange.import_character(campaign=strict, owner=player, document=document)
    assert document_of(imported) == document["sheet"]


def test_the_sheet_is_still_validated_as_it_stands(gm, campaign, player) -> None:
    """A document that does not say how its hit points were counted (the GM brings one nobody signed) is
    counted by the target's hit points per step: hit points that do not fit are refused."""
    document = unsigned(export(build(campaign, player)))  # Pulse d10: 40 hit points at 10 per step
    small = make_campaign(gm, player, name="Small", hit_points_per_step=5)
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=small, owner=gm, document=document)
    assert "hit points run from -10 to 20" in errors_of(excinfo)["sheet.hit_points"]
    assert not small.characters.exists()


def test_a_finished_character_must_be_complete(campaign, second, player) -> None:
    sheet = {**built_sheet(campaign), "hit_points": None}
    broken = Character.objects.create(campaign=campaign, owner=player, name="Broken", status="active", sheet=sheet)
    with pytest.raises(DocumentError, match=r"sheet\.hit_points: is needed on a finished character"):
        exchange.import_character(campaign=second, owner=player, document=export(broken))
    assert not second.characters.exists()


def test_an_older_sheet_version_is_migrated_by_its_system(campaign, second, player, monkeypatch) -> None:
    document = export(build(campaign, player))
    calls = []
    real = type(SYSTEM).migrate

    def migrate(self, sheet, from_version):
        calls.append(from_version)
        return real(self, sheet, from_version)

    monkeypatch.setattr(type(SYSTEM), "sheet_version", 2)
    monkeypatch.setattr(type(SYSTEM), "migrate", migrate)
    monkeypatch.setattr(lucky13.SYSTEM, "read_sheet", lambda doc: lucky13.Sheet.model_validate(doc))
    imported = exchange.import_character(campaign=second, owner=player, document=document)
    assert calls == [1]
    assert imported.document.model_dump(mode="json") == document["sheet"]


def test_an_archived_campaign_takes_no_imports(campaign, second, player) -> None:
    from django.utils import timezone

    document = export(build(campaign, player))
    Campaign.objects.filter(pk=second.pk).update(archived_at=timezone.now())
    second.refresh_from_db()
    with pytest.raises(DocumentError, match="campaign: this campaign is archived"):
        exchange.import_character(campaign=second, owner=player, document=document)
    assert not second.characters.exists()


# --- An unsigned or changed document: a fresh creation ---------------------------------------


def test_an_unsigned_document_starts_afresh_and_says_what_was_reset(campaign, second, player) -> None:
    document = unsigned(export(played(build(campaign, player))))

    imported = exchange.import_character(campaign=second, owner=player, document=document)

    sheet = document_of(imported)
    assert sheet["hit_points"] == 40  # Pulse d10, four steps of 10: full
    assert sheet["reputation"] == 0
    assert {spec["level"] for skill in sheet["skills"] for spec in skill["specializations"]} == {1}
    assert sheet["notes"] == "Owes Tam 3 gp."
    assert ledger.balances(imported) == {"ap": 0}
    assert exchange.resets(campaign=second, document=document) == [
        "Teleport (Spellcasting) from level 3 to level 1",
        "reputation from +2 to 0",
        "hit points from 17 to 40 (full)",
        "Adventure Points start at 0 (points earned stay with the original character)",
    ]


def test_a_rule_of_the_target_campaign_that_fails_names_the_field_and_creates_nothing(gm, campaign, player) -> None:
    document = unsigned(export(build(campaign, player)))
    sci_fi = make_campaign(gm, player, name="Starfall", skill_preset="sci_fi", skills=SCI_FI)
    before = Character.objects.count()

    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=sci_fi, owner=player, document=document)

    errors = errors_of(excinfo)
    assert errors["sheet.skills.0.name"].startswith("Starfall has no skill Spellcasting (its skills: Technology")
    assert "Astrogation" in errors["sheet.skills"]
    assert Character.objects.count() == before


@pytest.mark.parametrize(
    ("options", "field", "message"),
    [
        ({"starting_specializations": 1}, "sheet.specializations", "choose at most 2 starting specializations"),
        ({"skill_method": "point_buy", "skill_points": 10}, "sheet.skills",
         "those dice cost 12 points; the budget is 10"),
        ({"skill_method": "array", "skill_array": ["d4", "d4", "d4", "d4", "d4"]}, "sheet.skills", "assign the dice"),
        ({"skills": [{"name": n, "ability": None} for n in ["Spellcasting", "Scholarship", "Healing", "Sneaking",
                                                              "Fighting"]]},
         "sheet.skills", "d4 for a skill with no linked ability"),
        ({"ability_methods": "random"}, "sheet.creation.ability_method",
         "rolls every character's abilities on the server"),
    ],
)  # fmt: skip
def test_each_creation_rule_of_the_target_applies(gm, campaign, player, options, field, message) -> None:
    document = unsigned(export(build(campaign, player)))
    target = make_campaign(gm, player, name="Elsewhere", **options)
    before = Character.objects.count()

    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=target, owner=player, document=document)

    assert message in errors_of(excinfo)[field]
    assert Character.objects.count() == before


@pytest.mark.parametrize("how", [unsigned, lambda d: d])  # unsigned, or changed under its signature
def test_an_array_that_breaks_the_rule_is_refused(campaign, second, player, how) -> None:
    document = how(export(build(campaign, player)))
    document["sheet"]["abilities"]["will"] = "d12"
    with pytest.raises(DocumentError, match=r"sheet\.abilities: the balanced array is d4 d6 d6 d8 d10: too many d12"):
        exchange.import_character(campaign=second, owner=player, document=document)


def test_an_unsigned_draft_is_checked_up_to_its_step(campaign, second, player) -> None:
    sheet = built_sheet(campaign)
    sheet.update(hit_points=None, traits=[], assets=[], weapons=[], armor=[])
    sheet["creation"]["step"] = "traits"
    sheet["skills"][0]["specializations"][0]["level"] = 2
    draft = Character.objects.create(campaign=campaign, owner=player, name="Half", status="draft", sheet=sheet)
    document = unsigned(export(draft))

    imported = exchange.import_character(campaign=second, owner=player, document=document)

    assert imported.status == "draft"
    assert imported.document.creation.step == "traits"
    assert imported.document.skills[0].specializations[0].level == 1

    document["sheet"]["abilities"]["will"] = "d12"
    with pytest.raises(DocumentError, match="too many d12"):
        exchange.import_character(campaign=second, owner=player, document=document)


# --- Rolled dice: only this server's rolls, signed -------------------------------------------


def test_rolled_abilities_come_along_when_this_server_signed_them(campaign, second, player) -> None:
    original = build(campaign, player, rng=random.Random(7))
    document = export(original)

    imported = approved(exchange.import_character(campaign=second, owner=player, document=document))

    assert imported.document.creation.ability_method == "random"
    assert imported.document.creation.ability_rolls == original.document.creation.ability_rolls
    assert imported.document.abilities == original.document.abilities
    assert comparable(export(imported)) == comparable(document)
    # The new character's own export is signed again, so it can move on.
    exchange.import_character(campaign=campaign, owner=player, document=export(imported))


def _retuned(document: dict[str, Any], index: int, roll: int) -> dict[str, Any]:
    """The document with one ability roll changed, and its die changed to match: a forged roll."""
    forged = copy.deepcopy(document)
    forged["sheet"]["creation"]["ability_rolls"][index] = roll
    key = lucky13.ABILITY_KEYS[index]
    forged["sheet"]["abilities"][key] = lucky13.ability_from_percentile(roll).label
    return forged


def _other_pulse(d: dict[str, Any]) -> dict[str, Any]:
    forged = copy.deepcopy(d)
    forged["sheet"]["abilities"]["pulse"] = "d12" if d["sheet"]["abilities"]["pulse"] != "d12" else "d4"
    return forged


@pytest.mark.parametrize(
    "tamper",
    [
        lambda d: _retuned(d, 2, 100),  # a better roll, with the die it gives
        lambda d: {**d, "signature": d["signature"][:-2] + ("AA" if not d["signature"].endswith("AA") else "BB")},
        lambda d: {**d, "signature": None},
        lambda d: {k: v for k, v in d.items() if k != "signature"},
        _other_pulse,
    ],
)
def test_forged_or_changed_rolls_are_refused(campaign, second, player, tamper) -> None:
    document = tamper(export(build(campaign, player, rng=random.Random(7))))
    before = Character.objects.count()

    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=second, owner=player, document=document)

    message = errors_of(excinfo)["signature"]
    assert "cannot be taken on trust" in message
    assert "array method" in message
    assert Character.objects.count() == before


def test_rolls_signed_by_another_server_are_refused(campaign, second, player) -> None:
    with override_settings(SECRET_KEY="another-dicehall-with-its-own-key-" + "x" * 30):
        document = export(build(campaign, player, rng=random.Random(7)))
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=second, owner=player, document=document)
    assert "not made by this Dicehall" in errors_of(excinfo)["signature"]
    assert not second.characters.exists()


def test_an_unsigned_rolled_character_cannot_join_an_array_only_campaign(gm, campaign, player) -> None:
    document = unsigned(export(build(campaign, player, rng=random.Random(7))))
    array_only = make_campaign(gm, player, name="Arrays", ability_methods="array")
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=array_only, owner=player, document=document)
    message = errors_of(excinfo)["sheet.creation.ability_method"]
    assert "Arrays allows only the array method for abilities" in message
    assert 'set "ability_method" to "balanced" or "specialized"' in message
    assert not array_only.characters.exists()


def test_a_random_character_turned_into_an_array_one_by_its_player_imports(gm, campaign, player) -> None:
    """What the refusal tells the player to do works."""
    document = unsigned(export(build(campaign, player, rng=random.Random(7))))
    array_only = make_campaign(gm, player, name="Arrays", ability_methods="array")
    sheet = document["sheet"]
    sheet["abilities"] = dict(BALANCED)
    sheet["creation"].update(ability_method="balanced", ability_rolls=[])
    sheet["skills"] = export(build(campaign, player, name="Template"))["sheet"]["skills"]
    imported = exchange.import_character(campaign=array_only, owner=player, document=document)
    assert imported.document.creation.ability_method == "balanced"
    assert imported.document.creation.ability_rolls == ()


def test_rolled_skills_come_along_into_a_campaign_that_rolls_skills(gm, player) -> None:
    source = make_campaign(gm, player, name="Rolled", skill_method="random")
    target = make_campaign(gm, player, name="Rolled too", skill_method="random")
    original = build(source, player, skill_rng=random.Random(11))
    document = export(original)
    assert all(skill["rolled"] for skill in document["sheet"]["skills"])

    imported = approved(exchange.import_character(campaign=target, owner=player, document=document))

    assert [s.rolled for s in imported.document.skills] == [s.rolled for s in original.document.skills]
    assert comparable(export(imported)) == comparable(document)

    forged = copy.deepcopy(document)
    forged["sheet"]["skills"][0].update(rolled=100, die="d12")
    with pytest.raises(DocumentError, match="signature: these skill rolls were not made by this Dicehall"):
        exchange.import_character(campaign=target, owner=player, document=forged)
    assert target.characters.count() == 1


def test_a_campaign_that_rolls_skills_takes_no_chosen_skill_dice(gm, campaign, player) -> None:
    document = unsigned(export(build(campaign, player)))
    rolled = make_campaign(gm, player, name="Rolled", skill_method="random")
    with pytest.raises(DocumentError, match=r"sheet\.skills: Rolled rolls skill dice on the server"):
        exchange.import_character(campaign=rolled, owner=player, document=document)


# --- The old format (version 1) --------------------------------------------------------------


def test_an_old_format_export_converts_to_exactly_its_new_export(campaign, second, player) -> None:
    original = played(build(campaign, player))
    incoming = exchange.read(campaign=second, document=v1_export(original))
    assert incoming.status == "active"
    assert incoming.sheet.model_dump(mode="json") == comparable(export(original))["sheet"]


def test_the_gm_imports_an_old_format_export_with_everything(campaign, second, gm, player) -> None:
    original = played(build(campaign, player))
    imported = approved(exchange.import_character(campaign=second, owner=gm, document=v1_export(original)))
    assert imported.status == "active"
    assert comparable(export(imported)) == comparable(export(original))


def test_a_player_imports_an_old_format_export_as_a_fresh_creation(campaign, second, player) -> None:
    """Version 1 signed only the rolls: the rest of it is checked and started afresh, as it always was."""
    original = played(build(campaign, player))
    document = v1_export(original)
    assert exchange.resets(campaign=second, document=document, importer=player)[:3] == [
        f"{original.document.skills[0].specializations[0].name} ({original.document.skills[0].name}) "
        "from level 3 to level 1",
        "reputation from +2 to 0",
        "hit points from 17 to 40 (full)",
    ]
    imported = exchange.import_character(campaign=second, owner=player, document=document)
    assert imported.status == "active"
    assert (imported.document.hit_points, imported.document.reputation) == (40, 0)
    assert imported.document.skills[0].specializations[0].level == 1


def test_old_format_rolls_come_along_when_this_server_signed_them(campaign, second, gm, player) -> None:
    original = build(campaign, player, rng=random.Random(7))
    sheet = copy.deepcopy(original.sheet)
    sheet["abilities"]["will"] = "d12"  # raised with Adventure Points since it was rolled
    Character.objects.filter(pk=original.pk).update(sheet=sheet)
    original.refresh_from_db()

    imported = approved(exchange.import_character(campaign=second, owner=gm, document=v1_export(original)))

    assert comparable(export(imported)) == comparable(export(original))


@pytest.mark.parametrize(
    ("tamper", "field", "message"),
    [
        (lambda d: d.update(integrity=None), "integrity", "not made by this Dicehall"),
        (lambda d: d["creation_rolls"]["abilities"].__setitem__(2, 100), "integrity", "not made by this Dicehall"),
        (lambda d: d.update(creation_rolls={}), "creation_rolls.abilities", "there are none here"),
        (lambda d: d["abilities"].update(pulse="d4"), "abilities.pulse", "is not what its roll gives"),
    ],
)
def test_old_format_rolls_that_were_forged_are_refused(campaign, second, player, tamper, field, message) -> None:
    original = build(campaign, player, rng=random.Random(7))
    if original.document.abilities.pulse == "d4":
        pytest.fail("the seed must give a Pulse above d4")
    document = v1_export(original)
    tamper(document)
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=second, owner=player, document=document)
    assert message in errors_of(excinfo)[field]
    assert not second.characters.exists()


def test_old_format_rolls_signed_by_another_server_are_refused(campaign, second, player) -> None:
    document = v1_export(build(campaign, player, rng=random.Random(7)), key="another-dicehall-" + "x" * 40)
    with pytest.raises(DocumentError, match="integrity: these rolls were not made by this Dicehall"):
        exchange.import_character(campaign=second, owner=player, document=document)


def test_an_old_format_draft_stays_a_draft(campaign, second, player) -> None:
    sheet = SYSTEM.new_draft(campaign.settings).model_dump(mode="json")
    sheet["concept"] = "Sellsword"
    draft = Character.objects.create(campaign=campaign, owner=player, name="Half", status="draft", sheet=sheet)
    document = v1_export(draft)
    assert document["abilities"]["will"] is None
    assert document["skills"] == []

    imported = exchange.import_character(campaign=second, owner=player, document=document)

    assert imported.status == "draft"
    assert comparable(export(imported)) == comparable(export(draft))


def valid_v1(campaign, player) -> dict[str, Any]:
    return v1_export(build(campaign, player))


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda d: d.update(schema_version=2), "schema_version", "reads version 1 of the old character schema"),
        (lambda d: d.pop("schema_version"), "schema_version", "is missing"),
        (lambda d: d.update(schema="dicehall.campaign"), "format", "not a Dicehall character document"),
        (lambda d: d.update(system="d6"), "system", "plays Lucky 13"),
        (lambda d: d.update(level=3), "level", "is not a field here"),
        (lambda d: d["skills"][1].update(bonus=1), "skills[1].bonus", "is not a field here"),
        (lambda d: d.update(name="   "), "name", "A character needs a name"),
        (lambda d: d["skills"][2].update(die="d7"), "skills[2].die", "not a die on the step ladder"),
        (lambda d: d["skills"][0]["specializations"][0].update(level=6), "skills[0].specializations[0].level",
         "must be from 1 to 5"),
        (lambda d: d["assets"][0]["skills"].append("Piloting"), "assets[0].skills[2]", "no skill called Piloting"),
        (lambda d: d.update(armor=[{"name": "Plate", "defense": "d6"}] * 21), "armor", "at most 20 entries"),
        (lambda d: d.update(took_impairment=True, impairments=[]), "impairments", "name the impairment here"),
    ],
)  # fmt: skip
def test_a_malformed_old_format_document_is_refused_with_the_field_named(
    campaign, second, player, change, field, message
) -> None:
    document = valid_v1(campaign, player)
    change(document)
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=second, owner=player, document=document)
    errors = errors_of(excinfo)
    assert field in errors, excinfo.value.messages()
    assert message in errors[field]
    assert not second.characters.exists()


# --- Documents that are not character documents ----------------------------------------------


def valid_document(campaign, player) -> dict[str, Any]:
    return export(build(campaign, player))


def _many_armor(d: dict[str, Any]) -> None:
    d["sheet"]["armor"] = [{"id": 100 + i, "name": f"Plate {i}", "defense": "d6"} for i in range(51)]
    d["sheet"]["next_id"] = 200


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        (lambda d: d.update(format_version=3), "format_version", "reads versions 1 and 2 of the character format"),
        (lambda d: d.pop("format_version"), "format_version", "is missing"),
        (lambda d: d.update(format="dicehall-campaign"), "format", "not a Dicehall character document"),
        (lambda d: d.update(system="d6"), "system", "plays Lucky 13"),
        (lambda d: d.update(level=3), "level", "is not a field here"),
        (lambda d: d.pop("sheet"), "sheet", "is missing"),
        (lambda d: d.update(sheet=[]), "sheet", "must be an object"),
        (lambda d: d.update(name=42), "name", "must be text"),
        (lambda d: d.update(name="   "), "name", "A character needs a name"),
        (lambda d: d.update(name="Line\nbreak"), "name", "must be one line"),
        (lambda d: d.update(status="retired"), "status", 'must be one of "draft", "active", "archived"'),
        (lambda d: d.update(sheet_version=2), "sheet_version", "reads Lucky 13 sheets up to version 1"),
        (lambda d: d.update(sheet_version=True), "sheet_version", "must be a whole number"),
        (lambda d: d["sheet"].update(schema_version=2), "sheet_version", "the sheet itself says version 2"),
        (lambda d: d["sheet"]["skills"][1].update(bonus=1), "sheet.skills.1.bonus", ""),
        (lambda d: d["sheet"]["abilities"].update(will=8), "sheet.abilities.will", ""),
        (lambda d: d["sheet"]["skills"][2].update(die="d7"), "sheet.skills.2.die", ""),
        (lambda d: d["sheet"]["skills"][0]["specializations"][0].update(level=6),
         "sheet.skills.0.specializations.0.level", ""),
        (lambda d: d["sheet"]["assets"][0].update(kind="dragon"), "sheet.assets.0.kind", ""),
        (lambda d: d["sheet"]["assets"][0]["skills"].append(99), "sheet", "helps a skill the sheet does not have"),
        (lambda d: d["sheet"].update(reputation=9), "sheet.reputation", ""),
        (_many_armor, "sheet.armor", ""),
        (lambda d: d["sheet"].update(notes="x" * 20_001), "sheet.notes", ""),
        (lambda d: d.update(signature="x" * 201), "signature", "at most 200 characters"),
    ],
)  # fmt: skip
def test_a_malformed_document_is_refused_with_the_field_named(campaign, second, player, change, field, message):
    document = valid_document(campaign, player)
    change(document)
    before = Character.objects.count()

    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=second, owner=player, document=document)

    errors = errors_of(excinfo)
    assert field in errors, excinfo.value.messages()
    assert message in errors[field]
    assert Character.objects.count() == before


def test_every_problem_of_a_document_is_reported_at_once(campaign, second, player) -> None:
    document = valid_document(campaign, player)
    document.update(name=None, status="high", colour="blue")
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=second, owner=player, document=document)
    assert set(errors_of(excinfo)) == {"name", "status", "colour"}
    assert excinfo.value.messages()[0].startswith("colour: is not a field here")


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        (b"", "the document is empty"),
        (b"{nope", "not valid JSON"),
        (b"[1, 2]", "a character document is a JSON object"),
        (b'{"format": "x"}', "not a Dicehall character document"),
        (b'{"name": "A", "name": "B"}', "the key 'name' appears twice"),
        (b'{"hit_points": NaN}', "NaN is not a number JSON allows"),
        (b'{"hit_points": -Infinity}', "-Infinity is not a number JSON allows"),
        (b"\xff\xfe{}", "not UTF-8"),
        (b"[" * 100_000 + b"]" * 100_000, "nested far too deeply"),
        (b'{"pad": "' + b"x" * (256 * 1024) + b'"}', "at most 256 KB"),
    ],
)
def test_raw_documents_that_are_not_json_objects_are_refused(campaign, raw, message) -> None:
    with pytest.raises(DocumentError, match=message):
        exchange.read(campaign=campaign, document=exchange.load_document(raw))


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
    assert response["Cache-Control"] == "private, no-store"
    downloaded = json.loads(response.content)
    assert comparable(downloaded) == comparable(export(character))
    assert exchange.signed(downloaded)


@pytest.mark.parametrize(("who", "status"), [("player", 200), ("gm", 200), ("other_player", 200), ("outsider", 404)])
def test_any_member_who_sees_the_sheet_may_export_it(client, request, campaign, player, outsider, who, status):
    character = build(campaign, player)
    client.force_login(request.getfixturevalue(who))
    assert client.get(reverse("characters:export", args=[character.pk])).status_code == status


def test_a_draft_exports_for_its_player_but_not_for_other_players(client, campaign, player, other_player) -> None:
    sheet = SYSTEM.new_draft(campaign.settings).model_dump(mode="json")
    draft = Character.objects.create(campaign=campaign, owner=player, name="Half done", status="draft", sheet=sheet)
    client.force_login(player)
    document = client.get(reverse("characters:export", args=[draft.pk])).json()
    assert document["status"] == "draft"
    assert document["sheet"]["abilities"]["will"] is None
    assert document["sheet"]["creation"]["step"] == "abilities"
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
    assert "comes back as it was exported" in page
    assert "every specialization at level 1, reputation 0, full hit points, no Adventure Points" in page
    assert "Spellcasting, Scholarship, Healing, Sneaking, Fighting" in page


def test_the_import_form_has_the_systems_words_for_a_fresh_creation(client, gm, player) -> None:
    """The words come from the campaign's system (``fresh_rules``), by the campaign's options."""
    strict = make_campaign(gm, player, name="Strict", ability_methods="array", starting_specializations=1)
    client.force_login(player)
    response = client.get(import_url(strict))
    assert response.status_code == 200
    assert response.context["fresh_rules"] == (
        "Abilities: array. Rolled dice cannot be taken on trust from a changed document: use the array method.",
        "Skills: Spellcasting, Scholarship, Healing, Sneaking, Fighting (equal to the linked ability).",
        "At most 1 specialization, one more with an impairment.",
        "Such a character starts its play afresh: every specialization at level 1, reputation 0, full hit points, "
        "no Adventure Points.",
    )


def test_pasting_a_document_imports_it_as_it_was(client, campaign, player) -> None:
    """An export imported into the campaign it came from joins at once, as it was."""
    original = played(build(campaign, player))
    document = export(original)
    client.force_login(player)

    response = client.post(import_url(campaign), {"document": json.dumps(document)})

    imported = campaign.characters.exclude(pk=original.pk).get()
    assert response.status_code == 302
    assert response["Location"] == reverse("characters:sheet", args=[imported.pk])
    [message] = [str(m) for m in response.wsgi_request._messages]
    assert message == (
        "Brunella joined The Sunken Crown as an active character. Started afresh: Adventure Points start at 0 "
        "(points earned stay with the original character)."
    )
    assert imported.owner == player
    assert document_of(imported) == document["sheet"]


def test_pasting_an_unsigned_document_lists_what_was_reset(client, campaign, second, player) -> None:
    document = unsigned(export(played(build(campaign, player))))
    client.force_login(player)

    response = client.post(import_url(second), {"document": json.dumps(document)})

    assert response.status_code == 302
    [message] = [str(m) for m in response.wsgi_request._messages]
    assert "Teleport (Spellcasting) from level 3 to level 1; reputation from +2 to 0; hit points from 17 to 40 " in (
        message
    )
    assert message.endswith("Adventure Points start at 0 (points earned stay with the original character).")


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
        ({"document": '{"format": "dicehall-character", "format_version": 9}'}, "format_version: this Dicehall"),
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
    document = unsigned(export(build(campaign, player)))
    sci_fi = make_campaign(gm, player, name="Starfall", skill_preset="sci_fi", skills=SCI_FI)
    client.force_login(player)
    pasted = json.dumps(document)

    response = client.post(import_url(sci_fi), {"document": pasted})

    assert response.status_code == 400
    page = response.content.decode()
    assert "sheet.skills.0.name: Starfall has no skill Spellcasting" in page
    assert escape(pasted) in page  # the pasted text is still in the textarea, to fix
    assert not sci_fi.characters.exists()


def test_pasting_more_than_the_site_reads_shows_the_form_with_its_message(campaign, player) -> None:
    """Past Django's limit on a form's body (2.5 MB), with the CSRF check on as in a browser: the
    form with its message, a 400, and nothing created."""
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(player)
    before = Character.objects.count()

    response = browser.post(import_url(campaign), {"document": "{" + " " * (3 * 1024 * 1024) + "}"})

    assert response.status_code == 400
    page = response.content.decode()
    assert "Nothing was imported" in page
    assert "a character document is at most 256 KB" in page
    assert '<form method="post"' in page
    assert Character.objects.count() == before


def test_an_import_of_a_size_the_site_reads_still_needs_the_csrf_token(campaign, player) -> None:
    from django.test import Client

    browser = Client(enforce_csrf_checks=True)
    browser.force_login(player)
    response = browser.post(import_url(campaign), {"document": json.dumps(export(build(campaign, player)))})
    assert response.status_code == 403
    assert Character.objects.count() == 1


def test_a_changed_exports_refusal_says_the_signature_did_not_match(client, gm, campaign, player) -> None:
    document = export(build(campaign, player))
    changed = copy.deepcopy(document)
    changed["sheet"]["abilities"] = dict.fromkeys(BALANCED, "d12")
    changed["sheet"]["hit_points"] = 50

    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=campaign, owner=player, document=changed)

    first_at, first = excinfo.value.errors[0]
    assert first_at == "signature"
    assert first.startswith("did not match: the document was changed since it was exported")
    client.force_login(player)
    response = client.post(import_url(campaign), {"document": json.dumps(changed)})
    assert response.status_code == 400
    assert "signature: did not match" in response.content.decode()
    # A document that never had a signature is not said to be changed.
    with pytest.raises(DocumentError) as excinfo:
        exchange.import_character(campaign=campaign, owner=player, document=unsigned(changed))
    assert "did not match" not in str(excinfo.value)


def test_importing_needs_membership_of_the_target_campaign(client, gm, campaign, player, outsider) -> None:
    document = export(build(campaign, player))
    elsewhere = make_campaign(gm, outsider, name="Elsewhere")  # the player is not a member
    client.force_login(player)
    before = Character.objects.count()

    assert client.get(import_url(elsewhere)).status_code == 404
    assert client.post(import_url(elsewhere), {"document": json.dumps(document)}).status_code == 404
    assert Character.objects.count() == before


# --- docs/character-schema.md ----------------------------------------------------------------


def test_the_schema_page_is_the_one_the_models_generate() -> None:
    """The page is never written by hand: `manage.py character_schema --write` makes it."""
    from io import StringIO
    from pathlib import Path

    from django.conf import settings
    from django.core.management import call_command

    out = StringIO()
    call_command("character_schema", stdout=out)
    committed = (Path(settings.BASE_DIR) / "docs" / "character-schema.md").read_text(encoding="utf-8")
    assert out.getvalue() == committed, (
        "docs/character-schema.md is out of date: run manage.py character_schema --write"
    )
    assert exchange.Envelope.model_json_schema()["properties"]["format"]["const"] == exchange.FORMAT
    call_command("character_schema", "--check")
