"""Saving a section of a finished sheet: who may, the rules, and no lost work."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from campaigns.models import Campaign
from characters import operations
from characters.models import Asset, Character, Specialization, Trait, Weapon
from characters.operations import (
    ArmorRow,
    AssetRow,
    Details,
    Equipment,
    InvalidSection,
    NotAllowed,
    SpecializationRow,
    StaleSection,
    TraitRow,
    WeaponRow,
    save_section,
)
from rules.dice import StepDie

pytestmark = pytest.mark.django_db

D = StepDie.parse


def save(character: Character, section: str, data, by, version: int | None = None) -> Character:
    if version is None:
        version = operations.section_version(Character.objects.get(pk=character.pk), section)
    return save_section(character_id=character.pk, section=section, version=version, data=data, by=by)


def specs(character: Character) -> dict[str, tuple[str, int]]:
    return {
        s.name: (s.skill.name, s.level)
        for s in Specialization.objects.filter(skill__character=character).select_related("skill")
    }


def spec_rows(character: Character, **changes) -> list[SpecializationRow]:
    """Every specialization as it is, with ``changes`` by name: a dict of SpecializationRow fields."""
    rows = []
    for i, spec in enumerate(Specialization.objects.filter(skill__character=character).order_by("pk")):
        fields = {"name": spec.name, "level": spec.level, **changes.get(spec.name, {})}
        rows.append(SpecializationRow(at=f"spec-{i}", id=spec.pk, **fields))
    return rows


# --- Who may change what ---------------------------------------------------------------------


def test_every_section_has_a_rule_and_the_player_keeps_the_story() -> None:
    player_sections = {key for key, section in operations.SECTIONS.items() if section.player}
    assert player_sections == {"details", "specializations", "traits", "equipment", "notes"}
    assert all(section.gm_only for section in operations.SECTIONS.values() if not section.player)


@pytest.mark.parametrize("section", ["abilities", "skills", "hit-points", "reputation"])
def test_the_owner_cannot_change_a_gm_section(brunella, player, section) -> None:
    data = {"abilities": {}, "skills": {}, "hit-points": 10, "reputation": 2}[section]
    with pytest.raises(NotAllowed, match="Only the GM"):
        save(brunella, section, data, player)
    assert Character.objects.get(pk=brunella.pk).version == brunella.version


def test_another_player_and_an_outsider_cannot_change_anything(brunella, other_player, outsider) -> None:
    for user in (other_player, outsider):
        with pytest.raises(NotAllowed, match="Only the character's player and the GM"):
            save(brunella, "notes", "Mine now.", user)
    assert Character.objects.get(pk=brunella.pk).notes == brunella.notes


def test_archived_and_draft_characters_are_not_edited_on_the_sheet(brunella, character, gm) -> None:
    Character.objects.filter(pk=brunella.pk).update(status=Character.Status.ARCHIVED)
    with pytest.raises(NotAllowed, match="archived"):
        save(brunella, "notes", "Later.", gm)
    with pytest.raises(NotAllowed, match="draft"):
        save(character, "notes", "Later.", gm)


def test_the_owner_renames_specializations_but_only_the_gm_adds_removes_or_levels(brunella, player, gm) -> None:
    save(brunella, "specializations", spec_rows(brunella, Teleport={"name": "Blink"}), player)
    assert specs(brunella)["Blink"] == ("Spellcasting", 2)
    for rows in (
        spec_rows(brunella, Blink={"level": 3}),
        spec_rows(brunella, Blink={"remove": True}),
        [*spec_rows(brunella), SpecializationRow(at="spec-9", id=None, name="Haste", skill="Spellcasting", level=1)],
    ):
        with pytest.raises(NotAllowed, match="Only the GM can add or remove"):
            save(brunella, "specializations", rows, player)
    assert set(specs(brunella)) == {"Blink", "Fireball", "Longsword"}
    save(brunella, "specializations", spec_rows(brunella, Blink={"level": 3}, Fireball={"remove": True}), gm)
    assert specs(brunella) == {"Blink": ("Spellcasting", 3), "Longsword": ("Fighting", 1)}


# --- Versions: no lost work ------------------------------------------------------------------


def test_a_save_moves_the_version_the_section_and_the_campaign_forward(brunella, player) -> None:
    Campaign.objects.filter(pk=brunella.campaign_id).update(last_activity_at=timezone.now() - timedelta(days=3))
    saved = save(brunella, "details", Details(name="  Brunella   the Bold ", concept="Sellsword"), player)
    assert (saved.name, saved.version) == ("Brunella the Bold", brunella.version + 1)
    assert saved.section_versions == {"details": saved.version}
    activity = Campaign.objects.get(pk=brunella.campaign_id).last_activity_at
    assert timezone.now() - activity < timedelta(minutes=1)


def test_a_save_from_a_stale_version_is_refused_and_writes_nothing(brunella, player, gm) -> None:
    opened = operations.section_version(brunella, "notes")  # both open the notes at the same version
    save(brunella, "notes", "GM: the ferryman is paid.", gm, version=opened)
    after_first = Character.objects.get(pk=brunella.pk)
    with pytest.raises(StaleSection) as refused:
        save(brunella, "notes", "Player: still owes him.", player, version=opened)
    assert (refused.value.made_from, refused.value.now) == (opened, after_first.version)
    now = Character.objects.get(pk=brunella.pk)
    assert now.notes == "GM: the ferryman is paid."
    assert (now.version, now.section_versions) == (after_first.version, after_first.section_versions)


def test_a_stale_save_is_refused_before_its_values_are_checked(brunella, gm) -> None:
    opened = operations.section_version(brunella, "reputation")
    save(brunella, "reputation", 3, gm, version=opened)
    with pytest.raises(StaleSection):
        save(brunella, "reputation", 99, gm, version=opened)


def test_another_section_saves_from_an_older_version(brunella, player, gm) -> None:
    page = Character.objects.get(pk=brunella.pk)  # the sheet as both opened it
    save(brunella, "notes", "New notes.", gm, version=operations.section_version(page, "notes"))
    saved = save(brunella, "details", Details(name="Brunella", concept="Knight"), player,
                 version=operations.section_version(page, "details"))  # fmt: skip
    assert (saved.concept, saved.notes) == ("Knight", "New notes.")
    assert saved.section_versions == {"notes": brunella.version + 1, "details": brunella.version + 2}


def test_a_version_from_the_future_is_refused(brunella, gm) -> None:
    with pytest.raises(StaleSection):
        save(brunella, "notes", "?", gm, version=brunella.version + 5)


def test_the_skill_dice_and_the_specializations_never_overwrite_each_other(brunella, player, gm) -> None:
    page = Character.objects.get(pk=brunella.pk)
    save(brunella, "skills", {"Spellcasting": D("d10")}, gm, version=operations.section_version(page, "skills"))
    rows = spec_rows(brunella, Teleport={"name": "Blink"})
    save(brunella, "specializations", rows, player, version=operations.section_version(page, "specializations"))
    assert brunella.skills.get(name="Spellcasting").die == D("d10").rung
    assert specs(brunella)["Blink"] == ("Spellcasting", 2)


# --- The rules, with messages for players ----------------------------------------------------


def test_ability_dice_run_d4_to_d12(brunella, gm) -> None:
    dice = {"will": D("d12"), "charm": D("d4"), "pulse": D("d8"), "intellect": D("d6"), "reflex": D("d12+d4")}
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "abilities", dice, gm)
    assert refused.value.errors == {"reflex": ["A character's ability die is d4 … d12."]}
    assert Character.objects.get(pk=brunella.pk).will == D("d6").rung
    saved = save(brunella, "abilities", {**dice, "reflex": D("d12")}, gm)
    assert (saved.will, saved.reflex) == (D("d12").rung, D("d12").rung)


def test_a_smaller_pulse_needs_the_hit_points_to_fit_first(brunella, gm) -> None:
    dice = {"will": D("d6"), "charm": D("d4"), "pulse": D("d6"), "intellect": D("d6"), "reflex": D("d10")}
    with pytest.raises(InvalidSection, match="hit points run from -6 to 20, and Brunella has 30"):
        save(brunella, "abilities", dice, gm)
    save(brunella, "hit-points", 20, gm)
    assert save(brunella, "abilities", dice, gm).pulse == D("d6").rung


def test_skill_dice_run_d4_to_d12_and_belong_to_the_character(brunella, gm) -> None:
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "skills", {"Fighting": StepDie.none(), "Flying": D("d6")}, gm)
    assert refused.value.errors == {
        "": ["Flying is not one of Brunella's skills."],
        "Fighting": ["A skill die is d4 … d12."],
    }
    assert brunella.skills.get(name="Fighting").die == D("d10").rung


@pytest.mark.parametrize(
    ("changes", "where", "message"),
    [
        ({"Teleport": {"level": 6}}, "spec-2-level", "A specialization level is from 1 to 5."),
        ({"Teleport": {"level": 0}}, "spec-2-level", "A specialization level is from 1 to 5."),
        ({"Teleport": {"name": "  "}}, "spec-2-name", "Each specialization needs a name."),
        ({"Teleport": {"name": "fireball"}}, "spec-2-name",
         "Spellcasting already has a specialization called fireball."),
    ],
)  # fmt: skip
def test_specialization_rules(brunella, gm, changes, where, message) -> None:
    teleport = Specialization.objects.get(skill__character=brunella, name="Teleport")
    rows = [
        SpecializationRow(at="spec-2" if r.id == teleport.pk else f"spec-{5 + i}", id=r.id, name=r.name, level=r.level)
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
        SpecializationRow(at="spec-5", id=None, name="Teleport", skill="Spellcasting", level=1),
        SpecializationRow(at="spec-6", id=None, name="Flight", skill="Flying", level=1),
    ]
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "specializations", rows, gm)
    assert refused.value.errors == {
        "spec-5-name": ["Spellcasting already has a specialization called Teleport."],
        "spec-6-skill": ["Choose one of Brunella's skills."],
    }
    rows = [*spec_rows(brunella), SpecializationRow(at="spec-5", id=None, name="Teleport", skill="Sneaking", level=1)]
    save(brunella, "specializations", rows, gm)
    assert Specialization.objects.filter(skill__character=brunella, name="Teleport").count() == 2


def test_two_specializations_can_swap_names(brunella, gm) -> None:
    save(brunella, "specializations", spec_rows(brunella, Teleport={"name": "Fireball"}, Fireball={"name": "Teleport"}),
         gm)  # fmt: skip
    assert specs(brunella) == {"Fireball": ("Spellcasting", 2), "Teleport": ("Spellcasting", 1),
                               "Longsword": ("Fighting", 1)}  # fmt: skip


def test_reputation_runs_from_minus_5_to_plus_5(brunella, gm) -> None:
    for value in (7, -6):
        with pytest.raises(InvalidSection, match="Reputation runs from -5 to \\+5"):
            save(brunella, "reputation", value, gm)
    assert save(brunella, "reputation", -5, gm).reputation == -5


def test_hit_points_run_from_death_to_the_maximum(brunella, gm) -> None:
    # d8 Pulse, 10 hit points per step: 30 at most; death at -8.
    for value in (31, -9):
        with pytest.raises(InvalidSection, match="With a d8 Pulse, hit points run from -8 \\(dead\\) to 30"):
            save(brunella, "hit-points", value, gm)
    assert save(brunella, "hit-points", -8, gm).hit_points == -8
    assert save(brunella, "hit-points", 30, gm).hit_points == 30


def test_the_campaign_sets_the_hit_points_per_step(brunella, gm) -> None:
    Campaign.objects.filter(pk=brunella.campaign_id).update(options={"hit_points_per_step": 5})
    with pytest.raises(InvalidSection, match="to 15"):
        save(brunella, "hit-points", 16, gm)
    assert save(brunella, "hit-points", 15, gm).hit_points == 15


def test_names_are_never_blank(brunella, player) -> None:
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "details", Details(name="   ", concept="x" * 201), player)
    assert refused.value.errors == {
        "name": ["A character needs a name."],
        "concept": ["Keep the concept under 200 characters."],
    }
    weapon = brunella.weapons.get()
    equipment = Equipment(weapons=[WeaponRow(at="weapon-0", id=weapon.pk, name="", accuracy=D("d8"), damage=D("d8"))])
    with pytest.raises(InvalidSection, match="Each weapon needs a name"):
        save(brunella, "equipment", equipment, player)
    assert Weapon.objects.get(pk=weapon.pk).name == "Longsword"


def test_traits_are_added_changed_and_removed(brunella, player) -> None:
    soldier, knee = brunella.traits.order_by("kind")
    rows = [
        TraitRow(at="trait-0", id=soldier.pk, kind="background", name="Veteran", description="Twelve years."),
        TraitRow(at="trait-1", id=knee.pk, kind="impairment", name="Bad knee", remove=True),
        TraitRow(at="trait-2", id=None, kind="impairment", name="Afraid of water"),
    ]
    save(brunella, "traits", rows, player)
    assert sorted(brunella.traits.values_list("kind", "name", "description")) == [
        ("background", "Veteran", "Twelve years."),
        ("impairment", "Afraid of water", ""),
    ]


def test_an_impairment_taken_for_a_specialization_stays_unless_the_gm_removes_it(brunella, player, gm) -> None:
    Character.objects.filter(pk=brunella.pk).update(took_impairment=True)
    knee = brunella.traits.get(kind=Trait.Kind.IMPAIRMENT)
    rows = [TraitRow(at="trait-1", id=knee.pk, kind="impairment", name="Bad knee", remove=True)]
    with pytest.raises(InvalidSection, match="only the GM can remove the last one"):
        save(brunella, "traits", rows, player)
    assert brunella.traits.filter(pk=knee.pk).exists()
    save(brunella, "traits", rows, gm)
    assert not brunella.traits.filter(pk=knee.pk).exists()


def test_without_an_impairment_left_the_player_still_edits_the_backgrounds(brunella, player) -> None:
    Character.objects.filter(pk=brunella.pk).update(took_impairment=True)
    brunella.traits.filter(kind=Trait.Kind.IMPAIRMENT).delete()  # the GM removed it
    soldier = brunella.traits.get()
    save(brunella, "traits", [TraitRow(at="trait-0", id=soldier.pk, kind="background", name="Veteran")], player)
    assert brunella.traits.get().name == "Veteran"


def test_equipment_is_added_changed_and_removed(brunella, player) -> None:
    old_map, otto = brunella.assets.order_by("name")
    weapon, armor = brunella.weapons.get(), brunella.armor.get()
    equipment = Equipment(
        assets=[
            AssetRow(at="asset-0", id=old_map.pk, name="Old map", level=2, remove=True),
            AssetRow(at="asset-1", id=otto.pk, name="Uncle Otto", level=4, kind="person", skills=("Healing",)),
            AssetRow(at="asset-2", id=None, name="Lantern", level=1, skills=("Sneaking", "Scholarship")),
        ],
        weapons=[WeaponRow(at="weapon-0", id=weapon.pk, name="Longsword", accuracy=D("d10"), damage=D("d8"))],
        armor=[
            ArmorRow(at="armor-0", id=armor.pk, name="Leather", defense=D("d4"), remove=True),
            ArmorRow(at="armor-1", id=None, name="Chain mail", defense=D("d8")),
        ],
    )
    save(brunella, "equipment", equipment, player)
    assets = {a.name: (a.level, sorted(s.name for s in a.skills.all())) for a in brunella.assets.all()}
    assert assets == {"Uncle Otto": (4, ["Healing"]), "Lantern": (1, ["Scholarship", "Sneaking"])}
    assert brunella.weapons.get().accuracy == D("d10").rung
    assert list(brunella.armor.values_list("name", "defense")) == [("Chain mail", D("d8").rung)]


@pytest.mark.parametrize(
    ("row", "where", "message"),
    [
        (AssetRow(at="asset-9", id=None, name="Crown", level=6), "asset-9-level", "A level is from 1 to 5."),
        (AssetRow(at="asset-9", id=None, name="Crown", level=1, skills=("Flying",)), "asset-9-skills",
         "Flying is not one of Brunella's skills."),
        (AssetRow(at="asset-9", id=None, name="", level=1), "asset-9-name", "Each asset needs a name."),
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
    before = (Asset.objects.count(), Weapon.objects.count(), brunella.armor.count())
    with pytest.raises(InvalidSection) as refused:
        save(brunella, "equipment", Equipment(**{kind: [row]}), player)
    assert refused.value.errors == {where: [message]}
    assert (Asset.objects.count(), Weapon.objects.count(), brunella.armor.count()) == before


def test_a_row_of_another_character_is_not_touched(brunella, campaign, other_player, gm) -> None:
    from tests.characters.conftest import make_character

    casimir = make_character(campaign, other_player, name="Casimir")
    theirs = casimir.weapons.get()
    equipment = Equipment(weapons=[WeaponRow(at="weapon-0", id=theirs.pk, name="Mine", accuracy=D("d4"),
                                             damage=D("d4"), remove=True)])  # fmt: skip
    with pytest.raises(InvalidSection, match="no longer on the sheet"):
        save(brunella, "equipment", equipment, gm)
    assert Weapon.objects.get(pk=theirs.pk).name == "Longsword"
