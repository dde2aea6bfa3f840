"""Encounters and combat: the operations, with scripted or seeded dice (play.encounters)."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from campaigns.operations import Conflict, NotAllowed, NotFound, Refused
from characters.models import Character, SheetChange
from play import encounters, rolls
from play.models import Combatant, Encounter, Roll
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import AbilityRoll, Opposed, Pool
from tests.characters.conftest import FIGHTING, LONGSWORD, LONGSWORD_SPEC, TELEPORT, make_character
from tests.play.npcs import GOBLIN, npc

pytestmark = pytest.mark.django_db


class Scripted(random.Random):
    """Dice that come up as listed, in order (each ``randint`` takes the next face)."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b, (face, a, b)
        return face


#: Ids of the items the tests add to Brunella's sheet (hers end at 14).
DAGGER, RIPOSTE = 15, 16


def hit_points(character_id: int) -> int:
    return Character.objects.get(pk=character_id).document.hit_points


def add_to_sheet(character_id: int, *, weapon: dict | None = None, fighting_spec: dict | None = None) -> None:
    """A test's change to a sheet, straight on the row: a weapon, or a specialization under Fighting."""
    character = Character.objects.get(pk=character_id)
    sheet = character.document.model_dump(mode="json")
    if weapon:
        sheet["weapons"].append(weapon)
    if fighting_spec:
        fighting = next(skill for skill in sheet["skills"] if skill["id"] == FIGHTING)
        fighting["specializations"].append(fighting_spec)
    sheet["next_id"] = max(DAGGER, RIPOSTE) + 1
    character.sheet = character.rules.read_sheet(sheet).model_dump(mode="json")
    character.save(update_fields=["sheet"])


def give_dagger(character_id: int) -> str:
    add_to_sheet(character_id, weapon={"id": DAGGER, "name": "Dagger", "accuracy": "d4", "damage": "d4"})
    return f"{character_id}:{DAGGER}"


def minute(campaign, encounter, gm) -> list[Combatant]:
    """ "Death & dying": a minute passes for everyone in the fight."""
    return encounters.act(**ids(campaign, encounter), by=gm, action="minute")


def stabilize(campaign, encounter, gm, combatant: Combatant) -> list[Combatant]:
    return encounters.act(**ids(campaign, encounter), by=gm, action="stabilize", combatant_id=combatant.pk)


def condition(campaign, combatant: Combatant) -> str:
    """The combatant's condition as Lucky 13 has it (up, dying, dead), read afresh."""
    combatant = Combatant.objects.select_related("character").get(pk=combatant.pk)
    return encounters.vitals_of(campaign, combatant).state


@pytest.fixture
def brunella(campaign, player) -> Character:
    # Reflex d10, Fighting d10, Longsword d8/d8, Leather d4, d8 Pulse, 30 hp.
    return make_character(campaign, player)


@pytest.fixture
def encounter(campaign, gm) -> Encounter:
    return encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")


def ids(campaign, encounter):
    return {"campaign_id": campaign.pk, "encounter_id": encounter.pk}


@pytest.fixture
def fight(campaign, gm, encounter, brunella):
    """Brunella and one goblin (d4 Pulse, 10 hp), initiative rolled: Brunella 7, goblin 2."""
    (hero,) = encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[brunella.pk])
    (goblin,) = encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN)
    encounters.roll_initiative(**ids(campaign, encounter), by=gm, rng=Scripted(7, 2))
    hero.refresh_from_db()
    goblin.refresh_from_db()
    return hero, goblin


def test_start_one_running_encounter_per_campaign(campaign, gm, player, encounter):
    assert encounter.running
    assert encounter.round == 0
    with pytest.raises(Conflict):
        encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Another")
    with pytest.raises(NotAllowed):
        encounters.start_encounter(campaign_id=campaign.pk, by=player, name="Mine")
    encounters.end_encounter(**ids(campaign, encounter), by=gm)
    assert encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Another").running


def test_a_blank_name_is_refused(campaign, gm):
    with pytest.raises(Refused):
        encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="   ")
    assert not Encounter.objects.exists()


def test_add_a_character_copies_the_combat_dice(campaign, gm, encounter, brunella):
    (hero,) = encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[brunella.pk])
    assert hero.name == "Brunella"
    assert hero.block == {
        "schema_version": 1, "reflex": "d10", "combat": "d10", "accuracy": "d8", "damage": "d8",
        "weapon": "Longsword", "armor": "d4", "pulse": "d8", "hit_points": None,
    }  # fmt: skip
    assert encounters.vitals_of(campaign, hero).tracks[0].value == 30  # on her sheet
    with pytest.raises(Conflict):
        encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[brunella.pk])


def test_a_character_joins_with_the_best_weapon_the_best_armor_and_no_combat_die_without_the_skill(
    campaign, gm, encounter, player
):
    skills = [{"id": 1, "name": "Sneaking", "ability": "reflex", "die": "d8"}]
    weapons = [
        {"id": 2, "name": "Club", "accuracy": "d6", "damage": "d8"},
        {"id": 3, "name": "Spear", "accuracy": "d8", "damage": "d6"},
        {"id": 4, "name": "Pike", "accuracy": "d8", "damage": "d6"},  # as good: the first on the sheet wins
    ]
    armor = [{"id": 5, "name": "Cap", "defense": "d4"}, {"id": 6, "name": "Mail", "defense": "d10"}]
    rogue = make_character(
        campaign, player, name="Ilse", skills=skills, weapons=weapons, armor=armor, traits=[], assets=[], next_id=7
    )
    (combatant,) = encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[rogue.pk])
    block = combatant.block
    dice = (block["reflex"], block["combat"], block["accuracy"], block["damage"], block["armor"])
    assert (block["weapon"], dice) == ("Spear", ("d10", None, "d8", "d6", "d10"))


def test_a_dying_character_bleeds_on_their_sheet(campaign, gm, encounter, fight):
    hero, _ = fight
    encounters.adjust(**ids(campaign, encounter), by=gm, combatant_id=hero.pk, amount=-30, reason="fall")
    assert minute(campaign, encounter, gm) == [hero]
    assert hit_points(hero.character_id) == -1
    latest = SheetChange.objects.filter(character_id=hero.character_id).first()
    assert latest.what == "1 damage in Ambush at the ford: a minute passes while dying"
    assert (latest.before["hit_points"], latest.after["hit_points"]) == (0, -1)
    stabilize(campaign, encounter, gm, hero)
    assert minute(campaign, encounter, gm) == []
    assert hit_points(hero.character_id) == -1
    # Stabilizing changes the fight, not the sheet.
    assert SheetChange.objects.filter(character_id=hero.character_id).count() == 2


def test_a_draft_or_foreign_character_cannot_join(campaign, gm, encounter, bare_draft):
    with pytest.raises(NotFound):
        encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[bare_draft.pk])
    assert not Combatant.objects.exists()


def test_add_identical_npcs_at_once(campaign, gm, encounter):
    goblins = encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN, count=3)
    assert [g.name for g in goblins] == ["Goblin 1", "Goblin 2", "Goblin 3"]
    assert {g.group for g in goblins} == {1}
    assert {g.block["hit_points"] for g in goblins} == {10}
    (orc,) = encounters.add_npcs(**ids(campaign, encounter), by=gm, **npc("Orc", 3, 3, 3, 4, 2, 4, 25))
    assert (orc.name, orc.group, orc.block["hit_points"]) == ("Orc", 2, 25)


@pytest.mark.parametrize(
    "stats",
    [
        npc("", 2, 1, 1, 1, 0, 1),
        npc("Bad", 0, 1, 1, 1, 0, 1),
        npc("Bad", 2, 6, 1, 1, 0, 1),
        npc("Bad", 2, 1, 1, 1, 0, 1, hit_points=11),
        npc("Bad", 2, 1, 1, 1, 0, 1, hit_points=0),
    ],
)
def test_a_bad_stat_block_is_refused(campaign, gm, encounter, stats):
    with pytest.raises(Refused) as refused:
        encounters.add_npcs(**ids(campaign, encounter), by=gm, **stats)
    assert refused.value.errors
    assert not Combatant.objects.exists()


def test_initiative_highest_first_group_rolls_once_and_everything_is_logged(campaign, gm, encounter, brunella):
    encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[brunella.pk])
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN, count=3)
    # Brunella rolls 3 on her d10; the goblins' one d6 roll comes up 5 for all three: tied, with equal
    # Reflex, so they roll off: 1, 2, 3.
    order = encounters.roll_initiative(**ids(campaign, encounter), by=gm, rng=Scripted(3, 5, 1, 2, 3))
    assert [c.name for c in order] == ["Goblin 3", "Goblin 2", "Goblin 1", "Brunella"]
    assert [c.initiative for c in order] == [5, 5, 5, 3]
    # Two Reflex rolls (Brunella, the group) and three roll-offs.
    assert Roll.objects.filter(kind="initiative").count() == 5


def test_initiative_ties_by_reflex_then_roll_off(campaign, gm, encounter, brunella):
    encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[brunella.pk])
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN, count=2)
    # Brunella 4 (d10); goblins rolled individually: 4 and 4 on d6. Brunella wins the tie on Reflex;
    # the goblins roll off: 2 against 5, so Goblin 2 goes before Goblin 1.
    order = encounters.roll_initiative(
        **ids(campaign, encounter), by=gm, rng=Scripted(4, 4, 4, 2, 5), group_rolls=False
    )
    assert [c.name for c in order] == ["Brunella", "Goblin 2", "Goblin 1"]
    assert [c.order for c in Combatant.objects.order_by("order")] == [0, 1, 2]
    rolls = Roll.objects.filter(kind="initiative").order_by("seq")
    assert rolls.count() == 5  # three rolls, two roll-offs
    assert [r.outcome.get("roll_offs") for r in rolls[3:]] == [[5], [2]]
    encounter.refresh_from_db()
    assert (encounter.round, encounter.turn) == (1, 0)
    with pytest.raises(Conflict):
        encounters.roll_initiative(**ids(campaign, encounter), by=gm, rng=random.Random(1))


def test_a_group_shares_one_initiative_roll(campaign, gm, encounter):
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN, count=3)
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **npc("Orc", 1, 1, 1, 1, 0, 1))
    # Goblins one roll of 6 (exploding: then 2), orc 3.
    order = encounters.roll_initiative(**ids(campaign, encounter), by=gm, rng=Scripted(6, 2, 3, 1, 2, 3))
    assert [c.initiative for c in order] == [8, 8, 8, 3]
    first = Roll.objects.filter(kind="initiative").order_by("seq").first()
    assert first.spec["for"] == ["Goblin 1", "Goblin 2", "Goblin 3"]
    assert first.dice["ability_rolls"][0]["dice"][0]["faces"] == [6, 2]


def test_turns_advance_and_rounds_follow(campaign, gm, encounter, fight):
    with pytest.raises(Conflict):
        encounters.roll_initiative(**ids(campaign, encounter), by=gm, rng=random.Random(1))
    encounter = encounters.next_turn(**ids(campaign, encounter), by=gm)
    assert (encounter.round, encounter.turn) == (1, 1)
    encounter = encounters.next_turn(**ids(campaign, encounter), by=gm)
    assert (encounter.round, encounter.turn) == (2, 0)


def test_a_hit_deals_damage_die_plus_margin_and_is_logged(campaign, gm, encounter, fight):
    hero, goblin = fight
    # Brunella d10 + d12 (Fighting d10, stepped by Longsword 1) + d8: 5, 6, 4 = 15. Goblin d6 + d4 + none:
    # 3, 2 = 5. Margin 10; d8 damage 3.
    result = encounters.attack(
        **ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=goblin.pk, rng=Scripted(5, 6, 4, 3, 2, 3)
    )
    assert result.roll.logged.outcome["hit"]
    assert result.roll.logged.outcome["margin"] == 10
    assert result.roll.damage == 13
    goblin.refresh_from_db()
    assert goblin.block["hit_points"] == -3
    assert condition(campaign, goblin) == "dying"
    attack, damage = Roll.objects.filter(kind__in=["attack", "damage"]).order_by("seq")
    assert attack.outcome == {"hit": True, "margin": 10, "defender_total": 5, "dilemma": False,
                              "attacker_dilemma": False, "defender_dilemma": False}  # fmt: skip
    assert attack.chance == f"{result.plan.chance.numerator}/{result.plan.chance.denominator}"
    assert attack.chance_of == "hit"
    assert damage.total == 13
    assert damage.outcome["after"] == -3
    assert damage.outcome["condition"] == "dying"


def test_a_dilemma_in_an_attack_is_called_and_its_chance_shown_before(campaign, gm, encounter, fight):
    """ "Dilemmas": a die that counts coming up 1 first is a dilemma in an attack too, on either side."""
    hero, goblin = fight
    # Brunella 1, 6, 4 = 11; the goblin 3, 2 = 5: a hit, and a dilemma for Brunella.
    result = encounters.attack(
        **ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=goblin.pk, rng=Scripted(1, 6, 4, 3, 2, 3)
    )
    # Brunella d10 + d12 + d8 against the goblin's d6 + d4: every first face that can be a 1.
    assert result.plan.details["p_attacker_dilemma"] == 1 - Fraction(9, 10) * Fraction(11, 12) * Fraction(7, 8)
    assert result.plan.details["p_defender_dilemma"] == 1 - Fraction(5, 6) * Fraction(3, 4)
    attack = Roll.objects.get(kind="attack")
    assert (attack.outcome["hit"], attack.outcome["dilemma"], attack.outcome["attacker_dilemma"]) == (True, True, True)
    assert not attack.outcome["defender_dilemma"]


def test_a_draw_fails_and_deals_nothing(campaign, gm, encounter, fight):
    hero, goblin = fight
    # Goblin d6 + d4 + d4 against Brunella d10 + d10 + d4: 5+3+3 = 11 against 4+4+3 = 11.
    result = encounters.attack(
        **ids(campaign, encounter), by=gm, attacker_id=goblin.pk, target_id=hero.pk, rng=Scripted(5, 3, 3, 4, 4, 3)
    )
    assert not result.roll.logged.outcome["hit"]
    assert result.roll.logged.outcome["margin"] == 0
    assert result.harm is None
    assert hit_points(hero.character_id) == 30
    assert list(Roll.objects.filter(kind__in=["attack", "damage"]).values_list("kind", flat=True)) == ["attack"]


def test_a_hit_on_a_character_changes_the_sheet_and_makes_its_form_stale(campaign, gm, encounter, fight):
    hero, goblin = fight
    version = Character.objects.get(pk=hero.character_id).version
    # Goblin 5+3+3 = 11 against Brunella 1+2+1 = 4: margin 7, d4 damage 3 → 10 damage; 30 → 20, d6 Pulse.
    result = encounters.attack(
        **ids(campaign, encounter), by=gm, attacker_id=goblin.pk, target_id=hero.pk, rng=Scripted(5, 3, 3, 1, 2, 1, 3)
    )
    assert result.harm.outcome["after"] == 20
    assert result.harm.outcome["pulse_after"] == "d6"
    character = Character.objects.get(pk=hero.character_id)
    assert character.document.hit_points == 20
    assert character.version == version + 1
    assert character.section_versions["hit-points"] == character.version
    # Through the one write path: the sheet's history says who, what and where.
    change = SheetChange.objects.get(character=character, version=character.version)
    assert (change.before["hit_points"], change.after["hit_points"]) == (30, 20)
    assert change.by == gm
    assert change.what == "10 damage in Ambush at the ford: hit by Goblin"
    assert change.sections == ["hit-points"]


def test_a_miss_with_seeded_dice_changes_nothing_but_the_log(campaign, gm, encounter, fight):
    hero, goblin = fight
    for seed in range(40):
        before = Roll.objects.count()
        result = encounters.attack(
            **ids(campaign, encounter), by=gm, attacker_id=goblin.pk, target_id=hero.pk, rng=random.Random(seed)
        )
        if not result.roll.logged.outcome["hit"]:
            assert Roll.objects.count() == before + 1
            return
    pytest.fail("no miss in 40 seeds")


def test_attack_refusals(campaign, gm, other_player, encounter, brunella):
    (hero,) = encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[brunella.pk])
    (goblin,) = encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN)
    rng = random.Random(1)
    with pytest.raises(Conflict):  # before initiative
        encounters.attack(**ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=goblin.pk, rng=rng)
    encounters.roll_initiative(**ids(campaign, encounter), by=gm, rng=rng)
    with pytest.raises(NotAllowed):  # another player's character
        encounters.attack(
            **ids(campaign, encounter), by=other_player, attacker_id=hero.pk, target_id=goblin.pk, rng=rng
        )
    with pytest.raises(Refused):
        encounters.attack(**ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=hero.pk, rng=rng)
    with pytest.raises(NotFound):
        encounters.attack(**ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=999999, rng=rng)
    assert not Roll.objects.filter(kind="attack").exists()


def test_a_player_attacks_with_their_own_character_on_its_turn(campaign, gm, player, encounter, fight):
    hero, goblin = fight  # Brunella acts first
    encounters.attack(
        **ids(campaign, encounter), by=player, attacker_id=hero.pk, target_id=goblin.pk, rng=Scripted(*[1] * 20)
    )
    roll = Roll.objects.get(kind="attack")
    assert roll.by == player
    assert roll.character_id == hero.character_id
    assert roll.spec["encounter"] == encounter.pk


def test_a_player_attacking_out_of_turn_changes_nothing(campaign, gm, player, encounter, fight):
    hero, goblin = fight
    encounters.next_turn(**ids(campaign, encounter), by=gm)  # the goblin's turn
    before = Roll.objects.count()
    with pytest.raises(Conflict, match="It is not Brunella's turn"):
        encounters.attack(
            **ids(campaign, encounter), by=player, attacker_id=hero.pk, target_id=goblin.pk, rng=random.Random(1)
        )
    assert Roll.objects.count() == before
    goblin.refresh_from_db()
    assert goblin.block["hit_points"] == 10


def test_a_player_never_attacks_with_an_npc_nor_in_secret(campaign, gm, player, encounter, fight):
    hero, goblin = fight
    encounters.next_turn(**ids(campaign, encounter), by=gm)  # the goblin's turn
    before = Roll.objects.count()
    with pytest.raises(NotAllowed, match="your own character only"):
        encounters.attack(
            **ids(campaign, encounter), by=player, attacker_id=goblin.pk, target_id=hero.pk, rng=random.Random(1)
        )
    encounters.next_turn(**ids(campaign, encounter), by=gm)  # Brunella's turn again
    with pytest.raises(NotAllowed, match="Only the GM attacks in secret"):
        encounters.attack(
            **ids(campaign, encounter),
            by=player,
            attacker_id=hero.pk,
            target_id=goblin.pk,
            rng=random.Random(1),
            secret=True,
        )
    assert Roll.objects.count() == before


def test_the_gm_attacks_with_anyone_at_any_time(campaign, gm, encounter, fight):
    hero, goblin = fight  # Brunella's turn: the goblin attacks anyway, then Brunella on the goblin's
    encounters.attack(**ids(campaign, encounter), by=gm, attacker_id=goblin.pk, target_id=hero.pk, rng=random.Random(1))
    encounters.next_turn(**ids(campaign, encounter), by=gm)
    encounters.attack(**ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=goblin.pk, rng=random.Random(2))
    assert list(Roll.objects.filter(kind="attack").order_by("seq").values_list("spec__attacker", flat=True)) == [
        "Goblin",
        "Brunella",
    ]


def test_an_outsider_cannot_attack(campaign, outsider, encounter, fight):
    hero, goblin = fight
    with pytest.raises(NotFound):
        encounters.attack(
            **ids(campaign, encounter), by=outsider, attacker_id=hero.pk, target_id=goblin.pk, rng=random.Random(1)
        )
    assert not Roll.objects.filter(kind="attack").exists()


def test_dying_minutes_stabilize_and_death(campaign, gm, encounter, fight):
    hero, goblin = fight
    encounters.adjust(**ids(campaign, encounter), by=gm, combatant_id=goblin.pk, amount=-10, reason="cliff")
    goblin.refresh_from_db()
    assert goblin.block["hit_points"] == 0
    assert condition(campaign, goblin) == "dying"
    assert minute(campaign, encounter, gm) == [goblin]
    goblin.refresh_from_db()
    assert goblin.block["hit_points"] == -1
    stabilize(campaign, encounter, gm, goblin)
    assert minute(campaign, encounter, gm) == []
    goblin.refresh_from_db()
    assert goblin.block["hit_points"] == -1
    assert goblin.state == {"stabilized": True}
    with pytest.raises(Conflict):
        stabilize(campaign, encounter, gm, goblin)
    with pytest.raises(Conflict):
        stabilize(campaign, encounter, gm, hero)  # not dying
    # A new wound reopens it: two more minutes and the goblin (d4 Pulse) dies at −4; the third finds it dead.
    encounters.adjust(**ids(campaign, encounter), by=gm, combatant_id=goblin.pk, amount=-1, reason="kick")
    for _ in range(3):
        minute(campaign, encounter, gm)
    goblin.refresh_from_db()
    assert goblin.block["hit_points"] == -4
    assert condition(campaign, goblin) == "dead"
    assert minute(campaign, encounter, gm) == []
    kinds = list(Roll.objects.filter(kind="adjustment").values_list("spec__reason", flat=True))
    assert sorted(kinds) == sorted(["cliff", "a minute passes while dying", "stabilized", "kick"]
                                   + ["a minute passes while dying"] * 2)  # fmt: skip


def test_healing_brings_the_pulse_back_and_stops_at_full(campaign, gm, encounter, fight):
    hero, _ = fight
    encounters.adjust(**ids(campaign, encounter), by=gm, combatant_id=hero.pk, amount=-25, reason="fall")
    change = encounters.adjust(**ids(campaign, encounter), by=gm, combatant_id=hero.pk, amount=100, reason="potion")
    assert (change.outcome["before"], change.outcome["after"], change.outcome["pulse_after"]) == (5, 30, "d8")
    assert hit_points(hero.character_id) == 30
    assert list(SheetChange.objects.filter(character_id=hero.character_id).values_list("what", flat=True)) == [
        "25 healing in Ambush at the ford: potion",  # what the sheet gained: healing stops at full
        "25 damage in Ambush at the ford: fall",
    ]
    roll = Roll.objects.filter(kind="adjustment").order_by("-seq").first()
    assert roll.total == 25
    assert roll.spec["reason"] == "potion"
    assert roll.character_id == hero.character_id


@pytest.mark.parametrize(("amount", "reason"), [(0, "nothing"), (5, "  "), (5000, "too much")])
def test_a_bad_adjustment_changes_nothing(campaign, gm, encounter, fight, amount, reason):
    _, goblin = fight
    before = Roll.objects.count()
    with pytest.raises(Refused):
        encounters.adjust(**ids(campaign, encounter), by=gm, combatant_id=goblin.pk, amount=amount, reason=reason)
    goblin.refresh_from_db()
    assert goblin.block["hit_points"] == 10
    assert Roll.objects.count() == before


def test_an_ended_encounter_refuses_changes(campaign, gm, encounter, fight):
    _, goblin = fight
    encounters.end_encounter(**ids(campaign, encounter), by=gm)
    with pytest.raises(Conflict):
        encounters.next_turn(**ids(campaign, encounter), by=gm)
    with pytest.raises(Conflict):
        encounters.adjust(**ids(campaign, encounter), by=gm, combatant_id=goblin.pk, amount=1, reason="x")


def test_a_character_attacks_with_any_of_their_weapons(campaign, gm, encounter, fight):
    hero, goblin = fight
    dagger = give_dagger(hero.character_id)
    # Brunella d10 + d10 + d4 (dagger): 5, 6, 3 = 14 against the goblin's 3, 2 = 5; margin 9, d4 damage 1.
    result = encounters.attack(
        **ids(campaign, encounter),
        by=gm,
        attacker_id=hero.pk,
        target_id=goblin.pk,
        choices={"weapon": dagger},
        rng=Scripted(5, 6, 3, 3, 2, 1),
    )
    assert result.roll.damage == 10
    roll = Roll.objects.get(kind="attack")
    assert roll.spec["weapon"] == "Dagger"
    assert roll.spec["weapon_die"] == "d4"
    assert roll.spec["attacker_dice"] == ["d10", "d10", "d4"]


def test_a_weapon_must_be_the_attackers_own(campaign, gm, player, encounter, fight):
    hero, goblin = fight
    other = make_character(campaign, player, name="Casimir")
    # Casimir's sword has the same id on his sheet as Brunella's on hers: it is still not hers.
    theirs = f"{other.pk}:{LONGSWORD}"
    own = f"{hero.character_id}:{LONGSWORD}"
    rng = random.Random(1)
    common = {**ids(campaign, encounter), "by": gm, "rng": rng}
    for attacker, target, weapon in [
        (hero, goblin, theirs),
        (hero, goblin, f"{hero.character_id}:{999}"),  # no such weapon
        (hero, goblin, f"{hero.character_id}:{FIGHTING}"),  # a skill, not a weapon
        (goblin, hero, own),  # an NPC has only its stat block
    ]:
        with pytest.raises(Refused) as refused:
            encounters.attack(**common, attacker_id=attacker.pk, target_id=target.pk, choices={"weapon": weapon})
        assert set(refused.value.errors) == {"weapon"}
    assert not Roll.objects.filter(kind="attack").exists()


def test_a_removed_combatant_leaves_the_order_and_cannot_be_attacked(campaign, gm, encounter, brunella):
    encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[brunella.pk])
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN, count=2)
    # Brunella 7; the goblins roll separately, 5 and 3.
    order = encounters.roll_initiative(**ids(campaign, encounter), by=gm, rng=Scripted(7, 5, 3), group_rolls=False)
    hero, first_goblin, second_goblin = order
    encounters.remove_combatant(**ids(campaign, encounter), by=gm, combatant_id=first_goblin.pk)
    # Brunella (place 0) → Goblin 2 (place 2), skipping the removed Goblin 1 → a new round.
    assert encounters.next_turn(**ids(campaign, encounter), by=gm).turn == 2
    encounter = encounters.next_turn(**ids(campaign, encounter), by=gm)
    assert (encounter.round, encounter.turn) == (2, 0)
    with pytest.raises(NotFound):
        encounters.attack(
            **ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=first_goblin.pk, rng=random.Random(1)
        )
    with pytest.raises(NotFound):
        encounters.remove_combatant(**ids(campaign, encounter), by=gm, combatant_id=first_goblin.pk)
    assert second_goblin.name == "Goblin 2"


# --- Combat specializations ("Specializations", "Modifiers") -----------------------------------------


def longsword(hero: Combatant) -> str:
    """Brunella's Longsword specialization, under Fighting."""
    return f"{hero.character_id}:{LONGSWORD_SPEC}"


def test_the_specialization_named_like_the_weapon_steps_the_combat_die_by_default(campaign, gm, encounter, fight):
    hero, goblin = fight
    result = encounters.attack(
        **ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=goblin.pk, rng=random.Random(2)
    )
    roll = Roll.objects.get(kind="attack")
    assert roll.spec["attacker_dice"] == ["d10", "d12", "d8"]  # Fighting d10, Longsword 1
    assert roll.spec["attacker_specialization"] == {"id": LONGSWORD_SPEC, "name": "Longsword", "level": 1}
    assert roll.spec["defender_specialization"] is None
    D = StepDie.parse
    exact = lucky13.opposed_chance(
        Opposed(
            Pool(D("d10"), (D("d12"), D("d8"))),
            Pool(D("d6"), (D("d4"), D("none"))),
            D("d8"),
            lucky13.Explosion.CINEMATIC,
        )
    )
    assert result.plan.chance == exact.p_attacker_wins
    assert roll.chance == f"{exact.p_attacker_wins.numerator}/{exact.p_attacker_wins.denominator}"


def test_the_attacker_may_choose_none_or_another_of_their_combat_specializations(campaign, gm, encounter, fight):
    hero, goblin = fight
    add_to_sheet(hero.character_id, fighting_spec={"id": RIPOSTE, "name": "Riposte", "level": 3})
    riposte = f"{hero.character_id}:{RIPOSTE}"
    # Two misses, so that the goblin stands for both: 1+1+1 against 5+3, then 1+(1+1)+1 against 5+3.
    rng = Scripted(1, 1, 1, 5, 3, 1, 1, 1, 1, 5, 3)
    common = {**ids(campaign, encounter), "by": gm, "attacker_id": hero.pk, "target_id": goblin.pk, "rng": rng}
    plain = encounters.attack(**common, choices={"attacker_specialization": "none"})
    chosen = encounters.attack(**common, choices={"attacker_specialization": riposte})
    plain_roll, chosen_roll = Roll.objects.filter(kind="attack").order_by("seq")
    assert plain_roll.spec["attacker_dice"] == ["d10", "d10", "d8"]
    assert plain_roll.spec["attacker_specialization"] is None
    assert chosen_roll.spec["attacker_dice"] == ["d10", "d12+d6", "d8"]  # d10 stepped up 3: d12, d12+d4, d12+d6
    assert chosen_roll.spec["attacker_specialization"]["name"] == "Riposte"
    assert plain.plan.chance < chosen.plan.chance


def test_a_weapon_without_a_namesake_specialization_gets_none_by_default(campaign, gm, encounter, fight):
    hero, goblin = fight
    dagger = give_dagger(hero.character_id)
    encounters.attack(
        **ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=goblin.pk, choices={"weapon": dagger},
        rng=random.Random(4),
    )  # fmt: skip
    assert Roll.objects.get(kind="attack").spec["attacker_specialization"] is None


def test_the_defender_may_use_a_combat_specialization(campaign, gm, encounter, fight):
    hero, goblin = fight
    encounters.attack(
        **ids(campaign, encounter), by=gm, attacker_id=goblin.pk, target_id=hero.pk,
        choices={"defender_specialization": longsword(hero)}, rng=random.Random(5),
    )  # fmt: skip
    roll = Roll.objects.get(kind="attack")
    assert roll.spec["defender_dice"] == ["d10", "d12", "d4"]
    assert roll.spec["defender_specialization"]["name"] == "Longsword"
    assert roll.spec["attacker_specialization"] is None  # the goblin has no specializations


def test_only_the_combatants_own_combat_specializations_apply(campaign, gm, player, encounter, fight):
    hero, goblin = fight
    teleport = f"{hero.character_id}:{TELEPORT}"  # Spellcasting
    other = make_character(campaign, player, name="Casimir")
    # Casimir's Longsword has the same id on his sheet as Brunella's on hers: it is still not hers.
    theirs = f"{other.pk}:{LONGSWORD_SPEC}"
    common = {**ids(campaign, encounter), "by": gm, "rng": random.Random(6)}
    for attacker, target, choices in [
        (hero, goblin, {"attacker_specialization": teleport}),
        (hero, goblin, {"attacker_specialization": theirs}),
        (hero, goblin, {"attacker_specialization": f"{hero.character_id}:{FIGHTING}"}),  # a skill
        (goblin, hero, {"attacker_specialization": theirs}),  # an NPC has none
        (goblin, hero, {"defender_specialization": theirs}),
    ]:
        with pytest.raises(Refused) as refused:
            encounters.attack(**common, attacker_id=attacker.pk, target_id=target.pk, choices=choices)
        assert refused.value.status == 400
        assert set(refused.value.errors) <= {"attacker_specialization", "defender_specialization"}
    assert not Roll.objects.filter(kind__in=["attack", "damage"]).exists()


# --- Backgrounds and impairments ("Backgrounds", "Impairments", "Modifiers") ---------------------------


def test_a_background_rolls_the_attackers_reflex_twice_and_keeps_the_higher(campaign, gm, encounter, fight):
    hero, goblin = fight
    # Brunella's Reflex d10 twice: 2 and 7, keep 7; Combat d12 (Longsword 1) 3; Longsword d8 4: 14.
    # The goblin: 2 + 2 = 4. Margin 10; d8 damage 1: 11.
    result = encounters.attack(
        **ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=goblin.pk,
        choices={"attacker_roll": "background"}, rng=Scripted(2, 7, 3, 4, 2, 2, 1),
    )  # fmt: skip
    assert (result.roll.logged.total, result.roll.logged.outcome["defender_total"], result.roll.damage) == (14, 4, 11)
    roll = Roll.objects.get(kind="attack")
    assert (roll.spec["attacker_roll"], roll.spec["defender_roll"]) == ("background", "normal")
    ability = roll.dice["attacker"]["ability_rolls"]
    assert [(r["total"], r["kept"]) for r in ability] == [(2, False), (7, True)]
    D = StepDie.parse
    attacking = Pool(D("d10"), (D("d12"), D("d8")), AbilityRoll.BACKGROUND)
    exact = lucky13.opposed_chance(
        Opposed(attacking, Pool(D("d6"), (D("d4"), D("none"))), D("d8"), lucky13.Explosion.CINEMATIC)
    )
    assert result.plan.chance == exact.p_attacker_wins


def test_an_impairment_of_the_target_keeps_the_lower_reflex(campaign, gm, encounter, fight):
    hero, goblin = fight
    # The goblin 5 + 3 + 3 = 11 against Brunella's Reflex d10 twice, 9 and 1, keep 1; Combat d10 2; Leather
    # d4 1: 4. Margin 7; d4 damage 2: 9.
    result = encounters.attack(
        **ids(campaign, encounter), by=gm, attacker_id=goblin.pk, target_id=hero.pk,
        choices={"defender_roll": "impairment"}, rng=Scripted(5, 3, 3, 9, 1, 2, 1, 2),
    )  # fmt: skip
    assert (result.roll.logged.total, result.roll.logged.outcome["defender_total"], result.roll.damage) == (11, 4, 9)
    assert hit_points(hero.character_id) == 21
    roll = Roll.objects.get(kind="attack")
    assert roll.spec["defender_roll"] == "impairment"
    assert roll.dice["defender"]["ability_roll"] == "impairment"
    plain = encounters.plan_attack(campaign, goblin, hero, {})
    assert result.plan.chance > plain.chance


def test_an_unknown_ability_roll_is_refused(campaign, gm, encounter, fight):
    hero, goblin = fight
    with pytest.raises(Refused) as refused:
        encounters.attack(
            **ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=goblin.pk,
            choices={"attacker_roll": "thrice"}, rng=random.Random(1),
        )  # fmt: skip
    assert refused.value.status == 400
    assert not Roll.objects.filter(kind="attack").exists()


# --- The GM's rulings on the initiative order ("Initiative") -----------------------------------------


@pytest.fixture
def tied(campaign, gm, encounter, brunella):
    """Brunella (Reflex d10) and two goblins (Reflex d6) rolling separately: 7, 6 exploding into 7, and 3.
    The tie at 7 goes to the higher Reflex: Brunella, Goblin 1, Goblin 2."""
    encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[brunella.pk])
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN, count=2)
    return encounters.roll_initiative(**ids(campaign, encounter), by=gm, rng=Scripted(7, 6, 1, 3), group_rolls=False)


def names_in_order(encounter):
    return [c.name for c in encounter.combatants.filter(removed=False).order_by("order")]


def test_the_gm_breaks_a_tie_by_judgement_and_it_is_logged(campaign, gm, encounter, tied):
    hero, first_goblin, _ = tied
    order = encounters.move_in_order(**ids(campaign, encounter), by=gm, combatant_id=first_goblin.pk, direction="up")
    assert [c.name for c in order] == ["Goblin 1", "Brunella", "Goblin 2"] == names_in_order(encounter)
    encounter.refresh_from_db()
    assert (encounter.round, encounter.turn) == (1, 0)  # the first place acts: now Goblin 1
    roll = Roll.objects.filter(kind="initiative").order_by("-seq").first()
    assert roll.spec == {"encounter": encounter.pk, "reorder": True, "combatant": "Goblin 1", "direction": "up",
                         "for": ["Goblin 1"]}  # fmt: skip
    assert roll.outcome == {"passed": "Brunella", "tie": True, "initiative": 7, "passed_initiative": 7, "place": 1,
                            "order": ["Goblin 1", "Brunella", "Goblin 2"]}  # fmt: skip
    assert (roll.total, roll.chance, roll.dice, roll.character_id) == (None, None, [], None)
    assert rolls.verify_chain(campaign) is None
    # The turns follow the new order.
    assert encounters.next_turn(**ids(campaign, encounter), by=gm).turn == 1
    assert Combatant.objects.get(order=1, encounter=encounter) == hero


def test_the_gm_may_move_anyone_down_past_a_higher_roll(campaign, gm, encounter, tied):
    hero, _, _ = tied
    encounters.move_in_order(**ids(campaign, encounter), by=gm, combatant_id=hero.pk, direction="down")
    encounters.move_in_order(**ids(campaign, encounter), by=gm, combatant_id=hero.pk, direction="down")
    assert names_in_order(encounter) == ["Goblin 1", "Goblin 2", "Brunella"]
    last = Roll.objects.filter(kind="initiative").order_by("-seq").first()
    assert (last.outcome["passed"], last.outcome["tie"], last.outcome["place"]) == ("Goblin 2", False, 3)
    assert last.character_id == hero.character_id


def test_a_move_past_the_end_or_before_initiative_is_refused(campaign, gm, encounter, tied, brunella):
    hero, first_goblin, second_goblin = tied
    before = Roll.objects.count()
    with pytest.raises(Conflict):
        encounters.move_in_order(**ids(campaign, encounter), by=gm, combatant_id=hero.pk, direction="up")
    with pytest.raises(Conflict):
        encounters.move_in_order(**ids(campaign, encounter), by=gm, combatant_id=second_goblin.pk, direction="down")
    with pytest.raises(Refused):
        encounters.move_in_order(**ids(campaign, encounter), by=gm, combatant_id=hero.pk, direction="sideways")
    assert names_in_order(encounter) == ["Brunella", "Goblin 1", "Goblin 2"]
    assert Roll.objects.count() == before
    encounters.end_encounter(**ids(campaign, encounter), by=gm)
    with pytest.raises(Conflict):
        encounters.move_in_order(**ids(campaign, encounter), by=gm, combatant_id=first_goblin.pk, direction="up")
    fresh = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Later")
    (goblin,) = encounters.add_npcs(**ids(campaign, fresh), by=gm, **GOBLIN)
    with pytest.raises(Conflict):  # no order before initiative
        encounters.move_in_order(**ids(campaign, fresh), by=gm, combatant_id=goblin.pk, direction="down")


def test_only_the_gm_moves_and_only_those_still_in_the_fight(campaign, gm, player, encounter, tied):
    _, first_goblin, second_goblin = tied
    with pytest.raises(NotAllowed):
        encounters.move_in_order(**ids(campaign, encounter), by=player, combatant_id=first_goblin.pk, direction="up")
    encounters.remove_combatant(**ids(campaign, encounter), by=gm, combatant_id=first_goblin.pk)
    with pytest.raises(NotFound):
        encounters.move_in_order(**ids(campaign, encounter), by=gm, combatant_id=first_goblin.pk, direction="up")
    # Past the removed goblin's empty place, to the one still there.
    encounters.move_in_order(**ids(campaign, encounter), by=gm, combatant_id=second_goblin.pk, direction="up")
    assert names_in_order(encounter) == ["Goblin 2", "Brunella"]
    first_goblin.refresh_from_db()
    assert first_goblin.order == 1  # the removed keep their place, unused


# --- Leaving the fight is logged -------------------------------------------------------------------------


def test_a_removal_is_written_to_the_roll_log_with_the_reason(campaign, gm, encounter, fight):
    hero, goblin = fight
    encounters.adjust(**ids(campaign, encounter), by=gm, combatant_id=goblin.pk, amount=-3, reason="trip")
    encounters.remove_combatant(
        **ids(campaign, encounter), by=gm, combatant_id=goblin.pk, reason="  fled   over the bridge "
    )
    encounters.remove_combatant(**ids(campaign, encounter), by=gm, combatant_id=hero.pk)
    fled, left = Roll.objects.filter(kind="removal").order_by("seq")
    assert fled.spec == {"encounter": encounter.pk, "combatant": "Goblin", "reason": "fled over the bridge"}
    assert fled.outcome == {"hit_points": 7, "condition": "up"}
    assert (fled.character_id, fled.total, fled.chance, fled.dice) == (None, None, None, [])
    assert fled.chance_of == "the GM's ruling, not a roll"
    assert left.character_id == hero.character_id
    assert left.spec["reason"] == ""
    assert rolls.verify_chain(campaign) is None


def test_a_refused_removal_logs_nothing(campaign, gm, player, encounter, fight):
    _, goblin = fight
    before = Roll.objects.count()
    with pytest.raises(NotAllowed):
        encounters.remove_combatant(**ids(campaign, encounter), by=player, combatant_id=goblin.pk)
    with pytest.raises(NotFound):
        encounters.remove_combatant(**ids(campaign, encounter), by=gm, combatant_id=999999)
    assert Roll.objects.count() == before
    goblin.refresh_from_db()
    assert not goblin.removed


def test_a_dying_character_is_skipped_in_the_order_and_cannot_attack(campaign, gm, encounter, brunella):
    """ "Death & dying": a dying character is unconscious, so takes no turn and makes no attack."""
    encounters.add_characters(**ids(campaign, encounter), by=gm, character_ids=[brunella.pk])
    encounters.add_npcs(**ids(campaign, encounter), by=gm, **GOBLIN, count=2)
    hero, first_goblin, second_goblin = encounters.roll_initiative(
        **ids(campaign, encounter), by=gm, rng=Scripted(7, 5, 3), group_rolls=False
    )
    Character.objects.filter(pk=brunella.pk).update(sheet={**brunella.sheet, "hit_points": -1})
    turns = [encounters.next_turn(**ids(campaign, encounter), by=gm).turn for _ in range(4)]
    assert hero.order not in turns
    assert set(turns) == {first_goblin.order, second_goblin.order}
    with pytest.raises(Refused):
        encounters.attack(
            **ids(campaign, encounter), by=gm, attacker_id=hero.pk, target_id=first_goblin.pk, rng=random.Random(1)
        )
