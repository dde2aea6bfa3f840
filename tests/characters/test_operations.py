"""Saving a section of a finished sheet: who may, the rules, and no lost work."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.models import Campaign
from characters import operations, write
from characters.models import Character, ReputationChange, SheetChange
from characters.operations import InvalidSection, NotAllowed, StaleSection
from games.lucky13.sections import (
    ArmorRow,
    AssetRow,
    Details,
    Equipment,
    SpecializationRow,
    TraitRow,
    WeaponRow,
    save_section,
)
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.base import Role
from tests.characters.conftest import (
    BAD_KNEE,
    FIGHTING,
    FIREBALL,
    HEALING,
    LEATHER,
    LONGSWORD,
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

D = StepDie.parse


def fresh(character: Character) -> Character:
    return Character.objects.get(pk=character.pk)


def doc(character: Character):
    return fresh(character).document


def save(character: Character, section: str, data, by, version: int | None = None) -> Character:
    if version is None:
        version = operations.section_version(fresh(character), section)
    return save_section(character_id=character.pk, section=section, version=version, data=data, by=by)


def specs(character: Character) -> dict[str, tuple[str, int]]:
    return {spec.name: (skill.name, spec.level) for skill in doc(character).skills for spec in skill.specializations}


def spec_rows(character: Character, **changes) -> list[SpecializationRow]:
    """Every specialization as it is, with ``changes`` by name: a dict of SpecializationRow fields."""
    rows = []
    everything = [spec for skill in doc(character).skills for spec in skill.specializations]
    for i, spec in enumerate(sorted(everything, key=lambda s: s.id)):
        fields = {"name": spec.name, "level": spec.level, **changes.get(spec.name, {})}
        rows.append(SpecializationRow(at=f"spec-{i}", id=spec.id, **fields))
    return rows


# --- Who may change what ---------------------------------------------------------------------


def test_every_section_has_a_rule_and_the_player_keeps_the_story() -> None:
    sections = lucky13.SYSTEM.edit_sections
    player_sections = {section.key for section in sections if Role.OWNER in section.editors}
    assert player_sections == {"details", "specializations", "traits", "equipment", "notes"}
    assert all(section.note for section in sections if Role.OWNER not in section.editors)


@pytest.mark.parametrize("section", ["abilities", "skills", "hit-points", "reputation"])
def test_the_owner_cannot_change_a_gm_section(brunella, player, section) -> None:
    data = {"abilities": {}, "skills": {}, "hit-points": 10, "reputation": 2}[section]
    with pytest.raises(NotAllowed, match="Only the GM"):
        save(brunella, section, data, player)
    assert fresh(brunella).version == brunella.version


def test_another_player_and_an_outsider_cannot_change_anything(brunella, other_player, outsider) -> None:
    for user in (other_player, outsider):
        with pytest.raises(NotAllowed, match="Only the character's player and the GM"):
            save(brunella, "notes", "Mine now.", user)
    assert doc(brunella).notes == brunella.document.notes


def test_archived_and_draft_characters_are_not_edited_on_the_sheet(brunella, bare_draft, gm) -> None:
    Character.objects.filter(pk=brunella.pk).update(status=Character.Status.ARCHIVED)
    with pytest.raises(NotAllowed, match="archived"):
        save(brunella, "notes", "Later.", gm)
    with pytest.raises(NotAllowed, match="draft"):
        save(bare_draft, "notes", "Later.", gm)


def test_the_owner_renames_specializations_but_only_the_gm_adds_removes_or_levels(brunella, player, gm) -> None:
    save(brunella, "specializations", spec_rows(brunella, Teleport={"name": "Blink"}), player)
    assert specs(brunella)["Blink"] == ("Spellcasting", 2)
    for rows in (
        spec_rows(brunella, Blink={"level": 3}),
        spec_rows(brunella, Blink={"remove": True}),
        [*spec_rows(brunella), SpecializationRow(at="spec-9", id=None, name="Haste", skill=SPELLCASTING, level=1)],
    ):
        with pytest.raises(NotAllowed, match="Only the GM can add or remove"):
            save(brunella, "specializations", rows, player)
    assert set(specs(brunella)) == {"Blink", "Fireball", "Longsword"}
    save(brunella, "specializations", spec_rows(brunella, Blink={"level": 3}, Fireball={"remove": True}), gm)
    assert specs(brunella) == {"Blink": ("Spellcasting", 3), "Longsword": ("Fighting", 1)}


# --- The one write path ----------------------------------------------------------------------


def test_a_save_is_recorded_in_the_sheet_history(brunella, player) -> None:
    saved = save(brunella, "notes", "Paid the ferryman.", player)
    change = SheetChange.objects.get(character=brunella)
    assert (change.version, change.sections, change.by) == (saved.version, ["notes"], player)
    assert change.before["notes"] == "Owes the ferryman two silver."
    assert change.after["notes"] == "Paid the ferryman."
    assert "notes" in change.what


def test_a_save_is_announced_once_committed(brunella, gm, django_capture_on_commit_callbacks) -> None:
    heard = []

    def listener(sender, character_id, **kwargs) -> None:
        heard.append(character_id)

    write.character_changed.connect(listener)
    try:
        with django_capture_on_commit_callbacks(execute=True):
            save(brunella, "hit-points", 12, gm)
    finally:
        write.character_changed.disconnect(listener)
    assert heard == [brunella.pk]
    assert operations.character_changed is write.character_changed


def test_a_new_row_gets_a_fresh_id_and_the_others_keep_theirs(brunella, gm) -> None:
    rows = [*spec_rows(brunella), SpecializationRow(at="spec-3", id=None, name="Herbs", skill=HEALING, level=1)]
    save(brunella, "specializations", rows, gm)
    sheet = doc(brunella)
    herbs = sheet.skill(HEALING).specializations[0]
    assert herbs.id == 15
    assert sheet.next_id == 16
    assert [s.id for s in sheet.skill(SPELLCASTING).specializations] == [TELEPORT, FIREBALL]


# --- Versions: no lost work ------------------------------------------------------------------


def test_a_save_moves_the_version_the_section_and_the_campaign_forward(brunella, player) -> None:
    Campaign.objects.filter(pk=brunella.campaign_id).update(last_activity_at=timezone.now() - timedelta(days=3))
    saved = save(brunella, "details", Details(name="  Brunella   the Bold ", concept="Sellsword"), player)
    assert (saved.name, saved.version) == ("Brunella the Bold", brunella.version + 1)
    assert fresh(brunella).name == "Brunella the Bold"
    assert saved.section_versions == {"details": saved.version}
    activity = Campaign.objects.get(pk=brunella.campaign_id).last_activity_at
    assert timezone.now() - activity < timedelta(minutes=1)


def test_a_save_from_a_stale_version_is_refused_and_writes_nothing(brunella, player, gm) -> None:
    opened = operations.section_version(brunella, "notes")  # both open the notes at the same version
    save(brunella, "notes", "GM: the ferryman is paid.", gm, version=opened)
    after_first = fresh(brunella)
    with pytest.raises(StaleSection) as refused:
        save(brunella, "notes", "Player: still owes him.", player, version=opened)
    assert (refused.value.made_from, refused.value.now) == (opened, after_first.version)
    now = fresh(brunella)
    assert now.document.notes == "GM: the ferryman is paid."
    assert (now.version, now.section_versions) == (after_first.version, after_first.section_versions)
    assert SheetChange.objects.filter(character=brunella).count() == 1


def test_a_stale_save_is_refused_before_its_values_are_checked(brunella, gm) -> None:
    opened = operations.section_version(brunella, "reputation")
    save(brunella, "reputation", 3, gm, version=opened)
    with pytest.raises(StaleSection):
        save(brunella, "reputation", 99, gm, version=opened)


def test_another_section_saves_from_an_older_version(brunella, player, gm) -> None:
    page = fresh(brunella)  # the sheet as both opened it
    save(brunella, "notes", "New notes.", gm, version=operations.section_version(page, "notes"))
    saved = save(brunella, "details", Details(name="Brunella", concept="Knight"), player,
                 version=operations.section_version(page, "details"))  # fmt: skip
    assert (saved.document.concept, saved.document.notes) == ("Knight", "New notes.")
    assert saved.section_versions == {"notes": brunella.version + 1, "details": brunella.version + 2}


def test_a_version_from_the_future_is_refused(brunella, gm) -> None:
    with pytest.raises(StaleSection):
        save(brunella, "notes", "?", gm, version=brunella.version + 5)


def test_the_skill_dice_and_the_specializations_never_overwrite_each_other(brunella, player, gm) -> None:
    page = fresh(brunella)
    save(brunella, "skills", {SPELLCASTING: D("d10")}, gm, version=operations.section_version(page, "skills"))
    rows = spec_rows(brunella, Teleport={"name": "Blink"})
    save(brunella, "specializations", rows, player, version=operations.section_version(page, "specializations"))
    assert doc(brunella).skill(SPELLCASTING).die == "d10"
    assert specs(brunella)["Blink"] == ("Spellcasting", 2)


# --- The rules, with messages for players ----------------------------------------------------


def test_ability_dice_run_d4_to_d12(brunella, gm) -> None:
    dice = {"will": D("d12"), "charm": D("d4"), "pulse": D("d8"), "intellect": D("d6"), "reflex": D("d12+d4")}
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "abilities", dice, gm)
    assert refused.value.errors == {"reflex": ["A character's ability die is d4 … d12."]}
    assert doc(brunella).abilities.will == "d6"
    saved = save(brunella, "abilities", {**dice, "reflex": D("d12")}, gm)
    assert (saved.document.abilities.will, saved.document.abilities.reflex) == ("d12", "d12")


def test_a_smaller_pulse_needs_the_hit_points_to_fit_first(brunella, gm) -> None:
    dice = {"will": D("d6"), "charm": D("d4"), "pulse": D("d6"), "intellect": D("d6"), "reflex": D("d10")}
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "abilities", dice, gm)
    assert refused.value.errors == {
        "pulse": ["Hit points run from -6 to 20 with a d6 Pulse, and Brunella has 30: change the hit points first."]
    }
    save(brunella, "hit-points", 20, gm)
    assert save(brunella, "abilities", dice, gm).document.abilities.pulse == "d6"


def test_skill_dice_run_d4_to_d12_and_belong_to_the_character(brunella, gm) -> None:
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "skills", {FIGHTING: StepDie.none(), 99: D("d6")}, gm)
    assert refused.value.errors == {
        "": ["One of these skills is no longer on the sheet: reload the page and try again."],
        str(FIGHTING): ["A skill die is d4 … d12."],
    }
    assert doc(brunella).skill(FIGHTING).die == "d10"


@pytest.mark.parametrize(
    ("changes", "where", "message"),
    [
        ({"Teleport": {"level": 6}}, "spec-2-level", "A specialization level is from 1 to 5."),
        ({"Teleport": {"level": 0}}, "spec-2-level", "A specialization level is from 1 to 5."),
        ({"Teleport": {"name": "  "}}, "spec-2-name", "Each specialization needs a name."),
        ({"Teleport": {"name": "x" * 61}}, "spec-2-name",
         "A name is at most 60 characters."),
        ({"Teleport": {"name": "Tele\x07port"}}, "spec-2-name", "A name must not contain control characters."),
        ({"Teleport": {"name": "fireball"}}, "spec-2-name",
         "Spellcasting already has a specialization called fireball."),
    ],
)  # fmt: skip
def test_specialization_rules(brunella, gm, changes, where, message) -> None:
    rows = [
        SpecializationRow(at="spec-2" if r.id == TELEPORT else f"spec-{5 + i}", id=r.id, name=r.name, level=r.level)
        for i, r in enumerate(spec_rows(brunella, **changes))
    ]
    before = specs(brunella)
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "specializations", rows, gm)
    assert refused.value.errors == {where: [message]}
    assert specs(brunella) == before


def test_a_new_specialization_needs_a_skill_of_the_character_and_a_fresh_name(brunella, gm) -> None:
    rows = [
        *spec_rows(brunella),
        SpecializationRow(at="spec-5", id=None, name="Teleport", skill=SPELLCASTING, level=1),
        SpecializationRow(at="spec-6", id=None, name="Flight", skill=99, level=1),
    ]
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "specializations", rows, gm)
    assert refused.value.errors == {
        "spec-5-name": ["Spellcasting already has a specialization called Teleport."],
        "spec-6-skill": ["Choose one of Brunella's skills."],
    }
    rows = [*spec_rows(brunella), SpecializationRow(at="spec-5", id=None, name="Teleport", skill=SNEAKING, level=1)]
    save(brunella, "specializations", rows, gm)
    assert sum(spec.name == "Teleport" for skill in doc(brunella).skills for spec in skill.specializations) == 2


def test_two_specializations_can_swap_names(brunella, gm) -> None:
    save(brunella, "specializations", spec_rows(brunella, Teleport={"name": "Fireball"}, Fireball={"name": "Teleport"}),
         gm)  # fmt: skip
    assert specs(brunella) == {"Fireball": ("Spellcasting", 2), "Teleport": ("Spellcasting", 1),
                               "Longsword": ("Fighting", 1)}  # fmt: skip
    assert doc(brunella).specialization(TELEPORT)[1].name == "Fireball"  # the same item, renamed


def test_reputation_runs_from_minus_5_to_plus_5_and_its_history_is_kept(brunella, gm) -> None:
    for value in (7, -6):
        with pytest.raises(InvalidSection, match="Reputation runs from -5 to \\+5"):
            save(brunella, "reputation", value, gm)
    assert not ReputationChange.objects.exists()
    assert save(brunella, "reputation", -5, gm).document.reputation == -5
    change = ReputationChange.objects.get()
    assert (change.change, change.reputation, change.by, change.reason) == (-6, -5, gm, "Changed on the sheet")
    save(brunella, "reputation", -5, gm)  # no change, no entry
    assert ReputationChange.objects.count() == 1


def test_hit_points_run_from_death_to_the_maximum(brunella, gm) -> None:
    # d8 Pulse, 10 hit points per step: 30 at most; death at -8.
    for value in (31, -9, 10_000, -10_000):
        with pytest.raises(InvalidSection) as refused:
            save(brunella, "hit-points", value, gm)
        assert refused.value.errors == {"hit_points": ["Hit points run from -8 (dead) to 30 (full)."]}
    assert save(brunella, "hit-points", -8, gm).document.hit_points == -8
    assert save(brunella, "hit-points", 30, gm).document.hit_points == 30


def test_the_campaign_sets_the_hit_points_per_step(brunella, gm) -> None:
    Campaign.objects.filter(pk=brunella.campaign_id).update(options={"hit_points_per_step": 5})
    with pytest.raises(InvalidSection, match="to 15"):
        save(brunella, "hit-points", 16, gm)
    assert save(brunella, "hit-points", 15, gm).document.hit_points == 15


def test_names_are_never_blank(brunella, player) -> None:
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "details", Details(name="   ", concept="x" * 201), player)
    assert refused.value.errors == {
        "name": ["A character needs a name."],
        "concept": ["Keep the concept under 200 characters."],
    }
    assert fresh(brunella).name == "Brunella"
    equipment = Equipment(weapons=[WeaponRow(at="weapon-0", id=LONGSWORD, name="", accuracy=D("d8"), damage=D("d8"))])
    with pytest.raises(InvalidSection, match="Each weapon needs a name"):
        save(brunella, "equipment", equipment, player)
    assert doc(brunella).weapons[0].name == "Longsword"


def test_text_is_bounded_and_free_of_control_characters(brunella, player) -> None:
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "notes", "x" * 20_001, player)
    assert refused.value.errors == {"notes": ["Keep the notes under 20,000 characters."]}
    assert save(brunella, "notes", "x" * 20_000, player).document.notes == "x" * 20_000
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "notes", "Bell\x07", player)
    assert refused.value.errors == {"notes": ["Must not contain control characters."]}
    rows = [TraitRow(at="trait-0", id=SOLDIER, kind="background", name="Soldier", description="x" * 2001)]
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "traits", rows, player)
    assert refused.value.errors == {"trait-0-description": ["Keep descriptions under 2,000 characters."]}


def test_traits_are_added_changed_and_removed(brunella, player) -> None:
    rows = [
        TraitRow(at="trait-0", id=SOLDIER, kind="background", name="Veteran", description="Twelve years."),
        TraitRow(at="trait-1", id=BAD_KNEE, kind="impairment", name="Bad knee", remove=True),
        TraitRow(at="trait-2", id=None, kind="impairment", name="Afraid of water"),
    ]
    save(brunella, "traits", rows, player)
    assert sorted((t.kind, t.name, t.description) for t in doc(brunella).traits) == [
        ("background", "Veteran", "Twelve years."),
        ("impairment", "Afraid of water", ""),
    ]
    assert doc(brunella).traits[0].id == SOLDIER


def test_two_traits_of_a_kind_have_different_names(brunella, player) -> None:
    rows = [TraitRow(at="trait-2", id=None, kind="background", name="soldier")]
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "traits", rows, player)
    assert refused.value.errors == {"trait-2-name": ["There is already a background called soldier."]}
    save(brunella, "traits", [TraitRow(at="trait-2", id=None, kind="impairment", name="Soldier")], player)


def test_an_impairment_taken_for_a_specialization_stays_unless_the_gm_removes_it(brunella, player, gm) -> None:
    took = make_character(brunella.campaign, player, name="Took one",
                          creation={"step": "", "ability_method": "balanced", "took_impairment": True})  # fmt: skip
    rows = [TraitRow(at="trait-1", id=BAD_KNEE, kind="impairment", name="Bad knee", remove=True)]
    with pytest.raises(InvalidSection, match="only the GM can remove the last one"):
        save(took, "traits", rows, player)
    assert any(t.id == BAD_KNEE for t in doc(took).traits)
    save(took, "traits", rows, gm)
    assert all(t.id != BAD_KNEE for t in doc(took).traits)


def test_without_an_impairment_left_the_player_still_edits_the_backgrounds(campaign, player) -> None:
    took = make_character(
        campaign,
        player,
        creation={"step": "", "ability_method": "balanced", "took_impairment": True},
        traits=[{"id": SOLDIER, "kind": "background", "name": "Soldier"}],
    )  # the GM removed it
    save(took, "traits", [TraitRow(at="trait-0", id=SOLDIER, kind="background", name="Veteran")], player)
    assert [t.name for t in doc(took).traits] == ["Veteran"]


def test_equipment_is_added_changed_and_removed(brunella, player) -> None:
    equipment = Equipment(
        assets=[
            AssetRow(at="asset-0", id=OLD_MAP, name="Old map", level=2, remove=True),
            AssetRow(at="asset-1", id=UNCLE_OTTO, name="Uncle Otto", level=4, kind="person", skills=(HEALING,)),
            AssetRow(at="asset-2", id=None, name="Lantern", level=1, skills=(SNEAKING, SCHOLARSHIP)),
        ],
        weapons=[WeaponRow(at="weapon-0", id=LONGSWORD, name="Longsword", accuracy=D("d10"), damage=D("d8"))],
        armor=[
            ArmorRow(at="armor-0", id=LEATHER, name="Leather", defense=D("d4"), remove=True),
            ArmorRow(at="armor-1", id=None, name="Chain mail", defense=D("d8")),
        ],
    )
    save(brunella, "equipment", equipment, player)
    sheet = doc(brunella)
    assert {a.name: (a.id, a.level, a.kind, a.skills) for a in sheet.assets} == {
        "Uncle Otto": (UNCLE_OTTO, 4, "person", (HEALING,)),
        "Lantern": (15, 1, "thing", (SNEAKING, SCHOLARSHIP)),
    }
    assert sheet.weapons[0].accuracy == "d10"
    assert [(a.id, a.name, a.defense) for a in sheet.armor] == [(16, "Chain mail", "d8")]


@pytest.mark.parametrize(
    ("row", "where", "message"),
    [
        (AssetRow(at="asset-9", id=None, name="Crown", level=6), "asset-9-level", "A level is from 1 to 5."),
        (AssetRow(at="asset-9", id=None, name="Crown", level=1, skills=(99,)), "asset-9-skills",
         "Choose among Brunella's skills."),
        (AssetRow(at="asset-9", id=None, name="", level=1), "asset-9-name", "Each asset needs a name."),
        (AssetRow(at="asset-9", id=None, name="Crown", level=1, kind="pet"), "asset-9-kind",
         "An asset is a thing or a person."),
        (AssetRow(at="asset-9", id=None, name="old MAP", level=1), "asset-9-name",
         "There is already an asset called old MAP."),
        (WeaponRow(at="weapon-9", id=None, name="Bow", accuracy=StepDie.none(), damage=D("d6")),
         "weapon-9-accuracy", "A weapon's accuracy die is d4 … d12."),
        (WeaponRow(at="weapon-9", id=None, name="Bow", accuracy=D("d6"), damage=D("d12+d4")), "weapon-9-damage",
         "A weapon's damage die is d4 … d12."),
        (ArmorRow(at="armor-9", id=None, name="Plate", defense=D("d12+d12")), "armor-9-defense",
         "A defensive die is d4 … d12."),
    ],
)  # fmt: skip
def test_equipment_rules(brunella, player, row, where, message) -> None:
    kind = {AssetRow: "assets", WeaponRow: "weapons", ArmorRow: "armor"}[type(row)]
    before = fresh(brunella).sheet
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "equipment", Equipment(**{kind: [row]}), player)
    assert refused.value.errors == {where: [message]}
    assert fresh(brunella).sheet == before


def test_a_row_of_another_character_is_not_touched(brunella, campaign, other_player, gm) -> None:
    casimir = make_character(campaign, other_player, name="Casimir",
                             weapons=[{"id": 40, "name": "Longsword", "accuracy": "d8", "damage": "d8"}],
                             next_id=41)  # fmt: skip
    equipment = Equipment(weapons=[WeaponRow(at="weapon-0", id=40, name="Mine", accuracy=D("d4"),
                                             damage=D("d4"), remove=True)])  # fmt: skip
    with pytest.raises(InvalidSection, match="no longer on the sheet"):
        save(brunella, "equipment", equipment, gm)
    assert doc(casimir).weapons[0].name == "Longsword"
    assert doc(brunella).weapons[0].id == LONGSWORD
