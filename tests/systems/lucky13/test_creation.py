"""Creating a Lucky 13 character by the rule text: every ability and skill method,
the impairment's extra specialization, the limits on levels and assets, and refusals."""

from __future__ import annotations

import random

import pytest

from campaigns.errors import Refused
from campaigns.models import Campaign, Membership
from characters import campaign_changes
from characters.models import Character
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.base import SheetInvalid
from tests.systems.lucky13 import drafts as creation
from tests.systems.lucky13.drafts import ArmorChoice, AssetChoice, SpecializationChoice, TraitChoice, WeaponChoice

pytestmark = pytest.mark.django_db

D = StepDie.parse
SKILL_NAMES = ["Spellcasting", "Scholarship", "Healing", "Sneaking", "Fighting"]
BALANCED = dict(zip(lucky13.ABILITY_KEYS, map(D, ["d6", "d4", "d10", "d6", "d8"]), strict=True))


def make_campaign(gm, **options) -> Campaign:
    campaign = Campaign.objects.create(name="Test", system="lucky13", options=options)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    return campaign


def draft(campaign, owner, name="Brunella") -> Character:
    return creation.start_character(campaign=campaign, owner=owner, name=name, concept="Sellsword")


def doc(character: Character):
    """The character's sheet document as saved."""
    return Character.objects.get(pk=character.pk).document


def skill_dice(character: Character) -> dict[str, StepDie]:
    return {s.name: D(s.die) for s in doc(character).skills}


def tamper(character: Character, **changes) -> None:
    """Change the saved document behind the write path's back (as a bug or a hand edit would)."""
    sheet = doc(character).model_dump(mode="json")
    Character.objects.filter(pk=character.pk).update(sheet={**sheet, **changes})


def through_skills(campaign, owner, **skills_kwargs) -> Character:
    character = draft(campaign, owner)
    creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED)
    creation.set_skills(character_id=character.pk, **skills_kwargs)
    return Character.objects.get(pk=character.pk)


def at_equipment(character: Character) -> Character:
    """A draft through its skills taken on through the specializations and traits, none of either (the
    pages go one step at a time)."""
    creation.set_specializations(character_id=character.pk, choices=[], took_impairment=False)
    creation.set_traits(character_id=character.pk, traits=[])
    return Character.objects.get(pk=character.pk)


def finish_rest(character: Character, *, took_impairment: bool = False) -> Character:
    creation.set_specializations(character_id=character.pk, choices=[], took_impairment=took_impairment)
    traits = [TraitChoice(kind="impairment", name="Bad knee")] if took_impairment else []
    creation.set_traits(character_id=character.pk, traits=traits)
    creation.set_equipment(character_id=character.pk, assets=[], weapons=[], armor=[])
    return creation.finish(character_id=character.pk)


# --- Abilities -------------------------------------------------------------------------------


def test_the_random_method_rolls_d100_per_ability_in_order_and_keeps_the_rolls(gm, player) -> None:
    campaign = make_campaign(gm)
    character = draft(campaign, player)
    probe = random.Random(7)
    expected_rolls = [probe.randint(1, 100) for _ in range(5)]

    creation.roll_abilities(character_id=character.pk, rng=random.Random(7))

    sheet = doc(character)
    assert list(sheet.creation.ability_rolls) == expected_rolls
    assert sheet.creation.ability_method == "random"
    for key, roll in zip(lucky13.ABILITY_KEYS, expected_rolls, strict=True):
        assert D(getattr(sheet.abilities, key)) == lucky13.ability_from_percentile(roll)
    assert sheet.creation.step == "skills"


def test_abilities_are_rolled_once(gm, player) -> None:
    campaign = make_campaign(gm)
    character = draft(campaign, player)
    creation.roll_abilities(character_id=character.pk, rng=random.Random(1))
    before = doc(character)

    with pytest.raises(Refused, match=r"(?i)rolled already"):
        creation.roll_abilities(character_id=character.pk, rng=random.Random(2))
    with pytest.raises(Refused, match=r"(?i)rolled already"):
        creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED)

    assert doc(character) == before


def test_the_balanced_array_is_d4_d6_d6_d8_d10(gm, player) -> None:
    character = draft(make_campaign(gm), player)
    creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED)
    abilities = doc(character).abilities
    assert sorted(getattr(abilities, k) for k in lucky13.ABILITY_KEYS) == sorted(["d4", "d6", "d6", "d8", "d10"])


@pytest.mark.parametrize(
    ("array", "dice"),
    [
        ("balanced", ["d4", "d6", "d8", "d8", "d10"]),
        ("balanced", ["d12", "d6", "d6", "d8", "d10"]),
        ("specialized", ["d12", "d12", "d6", "d6", "d4"]),
        ("specialized", ["d10", "d10", "d6", "d4", "d4"]),
    ],
)
def test_an_array_that_breaks_the_rule_is_refused_and_nothing_changes(gm, player, array, dice) -> None:
    character = draft(make_campaign(gm), player)
    with pytest.raises(Refused, match=r"(?i)array is"):
        creation.assign_abilities(
            character_id=character.pk, array=array, dice=dict(zip(lucky13.ABILITY_KEYS, map(D, dice), strict=True))
        )
    assert doc(character).abilities.will is None
    assert doc(character).creation.step == "abilities"


def test_the_specialized_array_uses_five_of_its_seven_dice(gm, player) -> None:
    character = draft(make_campaign(gm), player)
    dice = dict(zip(lucky13.ABILITY_KEYS, map(D, ["d12", "d10", "d6", "d6", "d4"]), strict=True))
    creation.assign_abilities(character_id=character.pk, array="specialized", dice=dice)
    assert doc(character).abilities.will == "d12"


def test_the_campaign_decides_which_ability_methods_are_allowed(gm, player) -> None:
    only_random = draft(make_campaign(gm, ability_methods="random"), player)
    with pytest.raises(Refused, match=r"(?i)rolls abilities randomly"):
        creation.assign_abilities(character_id=only_random.pk, array="balanced", dice=BALANCED)
    only_array = draft(make_campaign(gm, ability_methods="array"), player, name="Casimir")
    with pytest.raises(Refused, match=r"(?i)array method"):
        creation.roll_abilities(character_id=only_array.pk, rng=random.Random(1))


# --- Skills ----------------------------------------------------------------------------------


def test_skills_equal_to_the_linked_ability(gm, player) -> None:
    character = through_skills(make_campaign(gm), player)
    dice = skill_dice(character)
    # Fantasy preset: Spellcasting and Scholarship (Intellect d6), Healing (Will d6), Sneaking and Fighting (Reflex d8).
    assert dice == {
        "Spellcasting": D("d6"), "Scholarship": D("d6"), "Healing": D("d6"), "Sneaking": D("d8"), "Fighting": D("d8")
    }  # fmt: skip


def test_a_skill_without_a_linked_ability_starts_at_d4(gm, player) -> None:
    campaign = make_campaign(gm, skills=[{"name": "Luck", "ability": None}, {"name": "Brawn", "ability": "pulse"}])
    character = through_skills(campaign, player)
    assert {s.name: s.die for s in doc(character).skills} == {"Luck": "d4", "Brawn": "d10"}


def test_skills_from_the_campaign_array(gm, player) -> None:
    campaign = make_campaign(gm, skill_method="array")
    dice = dict(zip(SKILL_NAMES, map(D, ["d10", "d4", "d6", "d6", "d8"]), strict=True))
    character = through_skills(campaign, player, dice=dice)
    assert skill_dice(character) == dice


def test_skill_dice_may_name_each_skill_by_its_id(gm, player) -> None:
    campaign = make_campaign(gm, skill_method="array")
    character = draft(campaign, player)
    creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED)
    ids = {s.name: s.id for s in doc(character).skills}
    dice = dict(zip(SKILL_NAMES, map(D, ["d10", "d4", "d6", "d6", "d8"]), strict=True))
    creation.set_skills(character_id=character.pk, dice={ids[name]: die for name, die in dice.items()})
    assert skill_dice(character) == dice
    assert {s.name: s.id for s in doc(character).skills} == ids  # the draft's skills keep their ids


def test_skills_outside_the_array_are_refused(gm, player) -> None:
    campaign = make_campaign(gm, skill_method="array")
    character = draft(campaign, player)
    creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED)
    too_good = dict.fromkeys(["Spellcasting", "Scholarship", "Healing", "Sneaking", "Fighting"], D("d10"))
    with pytest.raises(Refused, match=r"(?i)assign the dice"):
        creation.set_skills(character_id=character.pk, dice=too_good)
    assert all(s.die is None for s in doc(character).skills)
    assert doc(character).creation.step == "skills"


def test_random_skills_are_rolled_by_the_server_and_kept(gm, player) -> None:
    campaign = make_campaign(gm, skill_method="random")
    character = through_skills(campaign, player, rng=random.Random(3))
    probe = random.Random(3)
    rolls = [probe.randint(1, 100) for _ in range(5)]
    assert [s.rolled for s in doc(character).skills] == rolls
    assert [D(s.die) for s in doc(character).skills] == [lucky13.ability_from_percentile(r) for r in rolls]
    # Saving the step again keeps the rolls: no rerolling by resubmitting.
    creation.set_skills(character_id=character.pk, rng=random.Random(99))
    assert [s.rolled for s in doc(character).skills] == rolls


def test_point_buy_within_the_budget(gm, player) -> None:
    campaign = make_campaign(gm, skill_method="point_buy", skill_points=12)
    dice = dict(zip(SKILL_NAMES, map(D, ["d12", "d4", "d4", "d6", "d6"]), strict=True))  # 5 + 1 + 1 + 2 + 2 = 11
    character = through_skills(campaign, player, dice=dice)
    assert skill_dice(character) == dice


def test_point_buy_over_the_budget_is_refused(gm, player) -> None:
    campaign = make_campaign(gm, skill_method="point_buy", skill_points=10)
    character = draft(campaign, player)
    creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED)
    dice = dict.fromkeys(["Spellcasting", "Scholarship", "Healing", "Sneaking", "Fighting"], D("d8"))  # 15 points
    with pytest.raises(Refused, match=r"(?i)cost 15 points; the budget is 10"):
        creation.set_skills(character_id=character.pk, dice=dice)
    assert all(s.die is None for s in doc(character).skills)


def test_skills_need_the_abilities_first(gm, player) -> None:
    campaign = make_campaign(gm)
    character = draft(campaign, player)
    with pytest.raises(Refused, match=r"(?i)not open yet"):  # the pages go one step at a time
        creation.set_skills(character_id=character.pk)
    with pytest.raises(SheetInvalid, match=r"abilities first"):  # and so do the rules
        lucky13.SYSTEM.fill_step(doc(character), "skills", {}, campaign.settings)


# --- Specializations, traits, equipment -----------------------------------------------------


def test_starting_specializations_begin_at_level_1(gm, player) -> None:
    character = through_skills(make_campaign(gm, starting_specializations=2), player)
    creation.set_specializations(
        character_id=character.pk,
        choices=[SpecializationChoice("Spellcasting", "Teleport"), SpecializationChoice("Sneaking", "Pick locks")],
        took_impairment=False,
    )
    levels = {(s.name, p.name): p.level for s in doc(character).skills for p in s.specializations}
    assert levels == {("Spellcasting", "Teleport"): 1, ("Sneaking", "Pick locks"): 1}


def test_a_specialization_may_name_its_skill_by_id_and_keeps_its_id_when_saved_again(gm, player) -> None:
    character = through_skills(make_campaign(gm), player)
    fighting = next(s.id for s in doc(character).skills if s.name == "Fighting")
    creation.set_specializations(
        character_id=character.pk, choices=[SpecializationChoice(fighting, "Broadsword")], took_impairment=False
    )
    (spec,) = doc(character).skill(fighting).specializations
    creation.set_specializations(
        character_id=character.pk,
        choices=[SpecializationChoice("Fighting", "Broadsword"), SpecializationChoice("Healing", "Herbs")],
        took_impairment=False,
    )
    assert doc(character).skill(fighting).specializations == (spec,)


def test_one_more_specialization_only_with_an_impairment(gm, player) -> None:
    character = through_skills(make_campaign(gm, starting_specializations=1), player)
    two = [SpecializationChoice("Spellcasting", "Teleport"), SpecializationChoice("Fighting", "Broadsword")]

    with pytest.raises(Refused, match=r"(?i)at most 1 \(one more with an impairment\)"):
        creation.set_specializations(character_id=character.pk, choices=two, took_impairment=False)
    creation.set_specializations(character_id=character.pk, choices=two, took_impairment=True)

    # The impairment must then be described, or the character cannot be finished.
    with pytest.raises(Refused, match=r"(?i)describe it here"):
        creation.set_traits(character_id=character.pk, traits=[TraitChoice("background", "Soldier")])
    creation.set_traits(
        character_id=character.pk, traits=[TraitChoice("background", "Soldier"), TraitChoice("impairment", "Bad knee")]
    )
    assert doc(character).creation.took_impairment


@pytest.mark.parametrize(
    "choices",
    [
        [SpecializationChoice("Piloting", "Loops")],
        [SpecializationChoice("Fighting", "Broadsword"), SpecializationChoice("Fighting", "broadsword")],
        [SpecializationChoice("Fighting", "   ")],
    ],
)
def test_bad_specializations_are_refused(gm, player, choices) -> None:
    character = through_skills(make_campaign(gm), player)
    with pytest.raises(Refused):
        creation.set_specializations(character_id=character.pk, choices=choices, took_impairment=False)
    assert not any(s.specializations for s in doc(character).skills)


def test_equipment_levels_and_dice(gm, player) -> None:
    character = at_equipment(through_skills(make_campaign(gm), player))
    creation.set_equipment(
        character_id=character.pk,
        assets=[AssetChoice("Old map", 2, "thing", ("Sneaking",)), AssetChoice("Town guide", 5, "person")],
        weapons=[WeaponChoice("Broadsword", D("d8"), D("d10"))],
        armor=[ArmorChoice("Chainmail", D("d6"))],
    )
    sheet = doc(character)
    assert {a.name: (a.kind, a.level) for a in sheet.assets} == {"Old map": ("thing", 2), "Town guide": ("person", 5)}
    old_map = next(a for a in sheet.assets if a.name == "Old map")
    assert [sheet.skill(i).name for i in old_map.skills] == ["Sneaking"]  # by id
    assert [(w.name, w.accuracy, w.damage) for w in sheet.weapons] == [("Broadsword", "d8", "d10")]
    assert [(a.name, a.defense) for a in sheet.armor] == [("Chainmail", "d6")]


def test_an_asset_may_name_its_skills_by_id(gm, player) -> None:
    character = at_equipment(through_skills(make_campaign(gm), player))
    healing = next(s.id for s in doc(character).skills if s.name == "Healing")
    creation.set_equipment(character_id=character.pk, assets=[AssetChoice("Herbs", 2, skills=(healing,))], weapons=[],
                           armor=[])  # fmt: skip
    assert doc(character).assets[0].skills == (healing,)


@pytest.mark.parametrize(
    ("assets", "weapons", "armor", "message"),
    [
        ([AssetChoice("Perfecter map", 6)], [], [], "asset level"),
        ([AssetChoice("Map", 0)], [], [], "asset level"),
        ([AssetChoice("Map", 2, "thing", ("Piloting",))], [], [], "Piloting: this character has no such skill"),
        ([AssetChoice("Map", 2, "thing", (999,))], [], [], "helps only skills this character has"),
        ([AssetChoice("Map", 2, "dragon")], [], [], "thing or a person"),
        ([], [WeaponChoice("Cannon", D("d12+d4"), D("d6"))], [], "accuracy"),
        ([], [], [ArmorChoice("Plate", StepDie(0))], "defensive"),
    ],
)
def test_bad_equipment_is_refused_and_nothing_changes(gm, player, assets, weapons, armor, message) -> None:
    character = at_equipment(through_skills(make_campaign(gm), player))
    creation.set_equipment(character_id=character.pk, assets=[AssetChoice("Rope", 1)], weapons=[], armor=[])
    with pytest.raises(Refused, match=rf"(?i){message}"):
        creation.set_equipment(character_id=character.pk, assets=assets, weapons=weapons, armor=armor)
    assert [a.name for a in doc(character).assets] == ["Rope"]


# --- Finishing -------------------------------------------------------------------------------


def test_finishing_gives_full_hit_points_by_pulse(gm, player) -> None:
    character = finish_rest(through_skills(make_campaign(gm, hit_points_per_step=10), player))
    assert Character.objects.get(pk=character.pk).status == "active"
    assert doc(character).hit_points == 40  # Pulse d10: four steps of 10
    assert doc(character).creation.step == ""
    assert doc(character).reputation == 0  # "Every character begins with a Reputation of zero"


def test_a_finished_character_is_not_a_draft_any_more(gm, player) -> None:
    character = finish_rest(through_skills(make_campaign(gm), player))
    with pytest.raises(Refused, match=r"(?i)already finished"):
        creation.set_traits(character_id=character.pk, traits=[])


def test_finishing_needs_every_step(gm, player) -> None:
    character = through_skills(make_campaign(gm), player)
    with pytest.raises(Refused, match=r"(?i)every step"):
        creation.finish(character_id=character.pk)
    assert Character.objects.get(pk=character.pk).status == "draft"


def test_an_archived_campaign_takes_no_new_characters(gm, player) -> None:
    from django.utils import timezone

    campaign = make_campaign(gm)
    campaign.archived_at = timezone.now()
    campaign.save()
    with pytest.raises(Refused, match=r"(?i)archived"):
        draft(campaign, player)


def test_the_demo_characters_are_made_by_the_creation_rules() -> None:
    from django.core.management import call_command

    call_command("demo")
    brunella = Character.objects.get(name="Brunella")
    casimir = Character.objects.get(name="Casimir")
    assert brunella.status == casimir.status == "active"
    assert brunella.document.hit_points == 40  # Pulse d10
    assert casimir.document.hit_points == 30  # Pulse d8
    assert [w.name for w in brunella.document.weapons] == ["Broadsword"]
    assert [a.name for a in casimir.document.armor] == ["Chainmail"]


def test_with_skills_equal_to_abilities_the_skills_follow_new_abilities(gm, player) -> None:
    character = through_skills(make_campaign(gm), player)  # Intellect d6: Spellcasting d6
    new = dict(zip(lucky13.ABILITY_KEYS, map(D, ["d6", "d4", "d8", "d10", "d6"]), strict=True))
    creation.assign_abilities(character_id=character.pk, array="balanced", dice=new)
    assert skill_dice(character)["Spellcasting"] == D("d10")
    assert skill_dice(character)["Sneaking"] == D("d6")
    finished = finish_rest(Character.objects.get(pk=character.pk))
    assert finished.status == "active"


def test_finishing_checks_the_skill_dice_against_the_method_once_more(gm, player) -> None:
    campaign = make_campaign(gm)
    character = through_skills(campaign, player)
    creation.set_specializations(character_id=character.pk, choices=[], took_impairment=False)
    creation.set_traits(character_id=character.pk, traits=[])
    creation.set_equipment(character_id=character.pk, assets=[], weapons=[], armor=[])
    skills = [
        {**s.model_dump(mode="json"), "die": "d12" if s.name == "Healing" else s.die} for s in doc(character).skills
    ]
    tamper(character, skills=skills)  # a d12 that Will d6 does not give
    with pytest.raises(Refused, match=r"(?i)Healing"):
        creation.finish(character_id=character.pk)
    assert Character.objects.get(pk=character.pk).status == "draft"


def test_random_skill_rolls_are_kept_by_name_when_the_gm_adds_or_reorders_skills(gm, player) -> None:
    campaign = make_campaign(gm, skill_method="random")
    character = through_skills(campaign, player, rng=random.Random(3))
    rolls = {s.name: s.rolled for s in doc(character).skills}
    ids = {s.name: s.id for s in doc(character).skills}

    skills = [*reversed(campaign.settings["skills"]), {"name": "Riding", "ability": "reflex"}]
    campaign.options = {**campaign.options, "skills": skills}
    campaign.save()
    with pytest.raises(Refused, match=r"(?i)roll for the skills"):
        creation.set_skills(character_id=character.pk)  # Riding has no roll yet
    creation.set_skills(character_id=character.pk, rng=random.Random(5))

    sheet = doc(character)
    after = {s.name: s.rolled for s in sheet.skills}
    assert {name: after[name] for name in rolls} == rolls  # every earlier roll stands, with its skill
    assert {s.name: s.id for s in sheet.skills if s.name in ids} == ids
    assert [s.name for s in sheet.skills] == [s["name"] for s in skills]  # the campaign's order
    riding = sheet.skills[-1]
    assert riding.id not in ids.values()
    assert D(riding.die) == lucky13.ability_from_percentile(riding.rolled)
    assert finish_rest(Character.objects.get(pk=character.pk)).status == "active"


def test_a_rolled_skill_keeps_its_roll_when_renamed(gm, player) -> None:
    campaign = make_campaign(gm, skill_method="random")
    character = through_skills(campaign, player, rng=random.Random(3))
    before = doc(character).skills[0]
    renamed = [
        {**before.model_dump(mode="json"), "name": "Sorcery"},
        *(s.model_dump(mode="json") for s in doc(character).skills[1:]),
    ]
    tamper(character, skills=renamed)
    campaign.options = {
        **campaign.options,
        "skills": [{"name": "Sorcery", "ability": "intellect"}, *campaign.settings["skills"][1:]],
    }
    campaign.save()
    creation.set_skills(character_id=character.pk, rng=random.Random(5))
    after = doc(character).skills[0]
    assert (after.id, after.name, after.rolled, after.die) == (before.id, "Sorcery", before.rolled, before.die)


def test_descriptions_have_the_same_limit_as_on_the_sheet(gm, player) -> None:
    character = at_equipment(through_skills(make_campaign(gm), player))
    with pytest.raises(Refused, match=r"(?i)under 2000 characters"):
        creation.set_traits(character_id=character.pk, traits=[TraitChoice("background", "Soldier", "x" * 2001)])
    with pytest.raises(Refused, match=r"(?i)under 2000 characters"):
        creation.set_equipment(
            character_id=character.pk, assets=[AssetChoice("Map", 2, description="x" * 2001)], weapons=[], armor=[]
        )
    assert doc(character).traits == ()
    assert doc(character).assets == ()


def test_a_removed_player_still_reads_their_own_sheet_but_cannot_change_it(client, gm, player, campaign) -> None:
    from django.urls import reverse

    character = finish_rest(through_skills(campaign, player))
    member = campaign.memberships.get(user=player)
    campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member.pk, by=gm)

    client.force_login(player)
    assert client.get(reverse("characters:sheet", args=[character.pk])).status_code == 200
    assert client.get(reverse("characters:export", args=[character.pk])).status_code == 200
    assert client.get(reverse("characters:edit-section", args=[character.pk, "notes"])).status_code == 403


# --- The write path ----------------------------------------------------------------------------


def test_every_step_is_saved_through_the_write_path_with_its_history(gm, player) -> None:
    from characters.models import SheetChange

    campaign = make_campaign(gm)
    character = draft(campaign, player)
    started = doc(character)
    assert started.concept == "Sellsword"
    assert [s.name for s in started.skills] == SKILL_NAMES
    assert [s.id for s in started.skills] == [1, 2, 3, 4, 5]
    assert all(s.die is None for s in started.skills)

    creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED, by=player)
    creation.set_skills(character_id=character.pk, by=gm)  # the GM may help
    finish_rest(Character.objects.get(pk=character.pk))

    changes = list(SheetChange.objects.filter(character=character).order_by("pk"))
    assert [c.what for c in changes] == [
        "Started", "Abilities: the balanced array", "Skill dice from the abilities", "Specializations",
        "Backgrounds and impairments", "Equipment", "Finished",
    ]  # fmt: skip
    assert [c.by for c in changes[:3]] == [player, player, gm]
    assert [c.version for c in changes] == list(range(2, 9))
    assert Character.objects.get(pk=character.pk).version == 8
    assert changes[0].after["concept"] == "Sellsword"
    assert changes[-1].after == Character.objects.get(pk=character.pk).sheet


def test_a_step_made_from_an_older_version_is_refused_and_nothing_changes(gm, player) -> None:
    character = draft(make_campaign(gm), player)
    opened_at = Character.objects.get(pk=character.pk).version
    creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED, version=opened_at)
    other = dict(zip(lucky13.ABILITY_KEYS, map(D, ["d10", "d4", "d6", "d6", "d8"]), strict=True))
    before = Character.objects.get(pk=character.pk)
    with pytest.raises(creation.StaleDraft, match="saved somewhere else"):
        creation.assign_abilities(character_id=character.pk, array="balanced", dice=other, version=opened_at)
    after = Character.objects.get(pk=character.pk)
    assert (after.version, after.sheet) == (before.version, before.sheet)


def test_a_migrated_draft_without_skills_takes_the_campaigns_at_the_skills_step(gm, player) -> None:
    campaign = make_campaign(gm)
    character = draft(campaign, player)
    creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED)
    tamper(character, skills=[], traits=[{"id": 9, "kind": "background", "name": "Soldier"}], next_id=10)

    creation.set_skills(character_id=character.pk)

    sheet = doc(character)
    assert [(s.name, s.die) for s in sheet.skills] == [
        ("Spellcasting", "d6"), ("Scholarship", "d6"), ("Healing", "d6"), ("Sneaking", "d8"), ("Fighting", "d8")
    ]  # fmt: skip
    assert [s.id for s in sheet.skills] == [10, 11, 12, 13, 14]  # fresh: past every id the draft has used
    assert sheet.next_id == 15


def test_a_finished_character_is_checked_whole_before_it_is_saved(gm, player) -> None:
    character = through_skills(make_campaign(gm), player)
    creation.set_specializations(character_id=character.pk, choices=[], took_impairment=True)
    creation.set_traits(character_id=character.pk, traits=[TraitChoice("impairment", "Bad knee")])
    creation.set_equipment(character_id=character.pk, assets=[], weapons=[], armor=[])
    tamper(character, traits=[])  # the impairment vanished behind the write path's back
    with pytest.raises(Refused, match=r"(?i)describe the impairment"):
        creation.finish(character_id=character.pk)
    assert Character.objects.get(pk=character.pk).status == "draft"


def test_names_and_descriptions_are_refused_for_players_not_as_a_500(gm, player) -> None:
    character = at_equipment(through_skills(make_campaign(gm), player))
    with pytest.raises(Refused) as refused:
        creation.set_traits(
            character_id=character.pk,
            traits=[TraitChoice("background", "Soldier"), TraitChoice("background", "soldier")],
        )
    assert refused.value.message == "Two backgrounds are called soldier."
    with pytest.raises(Refused) as refused:
        creation.set_traits(character_id=character.pk, traits=[TraitChoice("background", "Sol\x07dier")])
    assert list(refused.value.errors) == ["traits"]
    assert "control characters" in refused.value.message
    assert doc(character).traits == ()
