""" "Healing" and "Death & dying", the two optional rules the campaign options turn on: resting heals 1 hit
point per 15 minutes, at most 4 since the character was last at full (``resting``); a character healed
from dying rolls every Ability die a step down until the GM says recovered (``recovery``, gritty)."""

from __future__ import annotations

import random

import pytest

from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.base import Fighter, Other, Role, SheetInvalid, SpecError
from rules.systems.lucky13 import health, recovery
from rules.systems.lucky13.encounter import COMBAT
from tests.characters.conftest import FIGHTING, SNEAKING, brunella_sheet

D8 = StepDie.parse("d8")  # Brunella's Pulse: 30 hit points, death at -8
RESTING = lucky13.validate_options({"resting": "quarter_hours"})
GRITTY = lucky13.validate_options({"recovery": "gritty"})
CINEMATIC = lucky13.default_options()


def sheet(**changes) -> lucky13.Sheet:
    return lucky13.SYSTEM.read_sheet(brunella_sheet(**changes))


# --- Resting: the pure rule ----------------------------------------------------------------------


@pytest.mark.parametrize(("minutes", "healed"), [(15, 1), (29, 1), (30, 2), (44, 2), (45, 3), (60, 4), (1440, 4)])
def test_rest_heals_one_hit_point_per_whole_quarter_hour_at_most_four(minutes, healed) -> None:
    rested = health.rest(20, 0, minutes, D8)
    assert (rested.before, rested.after, rested.healed, rested.rested) == (20, 20 + healed, healed, healed)


def test_the_four_count_across_rests_and_new_damage_does_not_reset_it() -> None:
    first = health.rest(20, 0, 45, D8)  # 3 healed
    assert (first.after, first.rested) == (23, 3)
    wounded_again = first.after - 10  # damage: the count stays
    second = health.rest(wounded_again, first.rested, 60, D8)
    assert (second.after, second.healed, second.rested) == (14, 1, 4)
    with pytest.raises(health.RestRefused, match="has healed its 4 hit points") as refused:
        health.rest(second.after, second.rested, 60, D8)
    assert refused.value.field == "hit_points"


def test_back_at_full_the_count_starts_again() -> None:
    topped = health.rest(28, 1, 60, D8)  # room for 3, but 2 fill the last slots
    assert (topped.after, topped.healed, topped.rested) == (30, 2, 0)
    with pytest.raises(health.RestRefused, match="full hit points"):
        health.rest(30, 0, 15, D8)


@pytest.mark.parametrize(("hit_points", "words"), [(0, "dying"), (-7, "dying"), (-8, "dead")])
def test_a_dying_or_dead_character_does_not_heal_by_resting(hit_points, words) -> None:
    with pytest.raises(health.RestRefused, match=words) as refused:
        health.rest(hit_points, 0, 60, D8)
    assert refused.value.field == "hit_points"


@pytest.mark.parametrize("minutes", [0, 14, -15, 1441, 10**9, True, 15.0, "30", None])
def test_minutes_are_a_whole_number_from_15_to_1440(minutes) -> None:
    with pytest.raises(health.RestRefused, match="from 15 to 1440") as refused:
        health.rest(20, 0, minutes, D8)
    assert refused.value.field == "minutes"


# --- Resting: the sheet ----------------------------------------------------------------------------


def test_a_rest_changes_the_sheet_and_keeps_the_count() -> None:
    after, rested = recovery.rest_sheet(sheet(hit_points=12), 50, RESTING)
    assert (after.hit_points, after.rested_hit_points, rested.healed) == (15, 3, 3)
    again, _ = recovery.rest_sheet(after, 50, RESTING)
    assert (again.hit_points, again.rested_hit_points) == (16, 4)


def test_a_campaign_without_the_option_does_not_rest() -> None:
    with pytest.raises(SpecError, match="does not heal by resting"):
        recovery.rest_sheet(sheet(hit_points=12), 60, CINEMATIC)


def test_healing_to_full_by_any_means_starts_the_count_again() -> None:
    tired = sheet(hit_points=20, rested_hit_points=4)
    healed = lucky13.SYSTEM.edit(tired, "hit-points", {"hit_points": 30}, role=Role.GM, options=RESTING)
    assert healed.rested_hit_points == 0
    partly = lucky13.SYSTEM.edit(tired, "hit-points", {"hit_points": 25}, role=Role.GM, options=RESTING)
    assert partly.rested_hit_points == 4  # the GM's healing is not capped and does not reset the count


def test_a_stored_sheet_without_the_new_fields_reads_with_their_defaults() -> None:
    document = brunella_sheet()
    document.pop("rested_hit_points")
    document.pop("recovering")
    read = lucky13.SYSTEM.read_sheet(document)
    assert (read.rested_hit_points, read.recovering) == (0, False)
    with pytest.raises(SheetInvalid):
        lucky13.SYSTEM.read_sheet({**document, "rested_hit_points": 5})


# --- Gritty recovery ---------------------------------------------------------------------------------


@pytest.mark.parametrize(("before", "after", "options", "marked"), [
    (0, 5, GRITTY, True),  # dying, healed
    (-8, 1, GRITTY, True),  # dead, brought back by the GM
    (-3, 0, GRITTY, False),  # still dying
    (5, 30, GRITTY, False),  # never was dying
    (0, 5, CINEMATIC, False),  # cinematic: fights on with no penalty
])  # fmt: skip
def test_only_a_character_healed_from_dying_under_gritty_recovery_is_recovering(before, after, options, marked):
    was = sheet(hit_points=before)
    settled = recovery.settle(was, was.model_copy(update={"hit_points": after}), options)
    assert settled.recovering is marked


def test_a_gm_edit_of_the_hit_points_marks_recovery() -> None:
    gm = Role.GM
    edited = lucky13.SYSTEM.edit(sheet(hit_points=-2), "hit-points", {"hit_points": 10}, role=gm, options=GRITTY)
    assert edited.recovering


def test_an_encounter_heal_marks_recovery() -> None:
    hero = sheet(hit_points=0)
    fighter = Fighter(key=1, name="Brunella", block=COMBAT.joins(hero, GRITTY), sheet=hero, sheet_key=7)
    healed = COMBAT.harm(fighter, 6, GRITTY)
    assert (healed.sheet.hit_points, healed.sheet.recovering) == (6, True)
    assert not COMBAT.harm(fighter, 6, CINEMATIC).sheet.recovering


def test_the_gm_marks_a_character_recovered() -> None:
    assert not recovery.recovered(sheet(recovering=True)).recovering
    with pytest.raises(SpecError, match="not recovering"):
        recovery.recovered(sheet())


def check(hero: lucky13.Sheet, options, **situation) -> dict:
    asked = {"skill": SNEAKING, "difficulty": "moderate", **situation}
    return lucky13.SYSTEM.check_roll(hero, asked, options).spec


@pytest.mark.parametrize("situation", [{}, {"ability_steps": 2}, {"ability": "pulse"}, {"reaction": True}])
def test_a_recovering_character_checks_as_with_one_more_step_down_on_the_ability_die(situation) -> None:
    hero, recovering = sheet(hit_points=12), sheet(hit_points=12, recovering=True)
    steps = situation.get("ability_steps", 0)
    assert check(recovering, GRITTY, **situation) == check(hero, GRITTY, **{**situation, "ability_steps": steps - 1})
    # Under cinematic recovery, the mark alone steps nothing.
    assert check(recovering, CINEMATIC, **situation) == check(hero, CINEMATIC, **situation)


def test_the_chance_before_the_roll_is_the_stepped_checks() -> None:
    recovering = check(sheet(recovering=True), GRITTY)
    stepped = check(sheet(), GRITTY, ability_steps=-1)
    assert recovering["ability"] == "d8"  # Reflex d10, one step down
    assert lucky13.check_chance(lucky13.parse_check(recovering)) == lucky13.check_chance(lucky13.parse_check(stepped))


def test_the_roll_says_why_the_ability_die_is_lower() -> None:
    made = lucky13.SYSTEM.sheet_roll(sheet(recovering=True), {"skill": SNEAKING}, GRITTY)
    assert made.spec["ability"] == "d8"
    assert made.details["recovering"] is True
    assert "Recovering from dying: Reflex -1 until the GM says recovered" in made.steps


def test_a_recovering_opponent_in_a_contest_rolls_a_step_down() -> None:
    """The other side of a contest is built as their own check, so its steps say whose they are."""
    other = Other(name="Otto", sheet=sheet(recovering=True))
    made = lucky13.SYSTEM.sheet_roll(sheet(), {"skill": FIGHTING, "opponent": 9}, GRITTY, lambda key: other)
    assert made.spec["defender"] == ["d8", "d10"]  # Reflex d10 → d8, Fighting d10
    assert any(step.startswith("Otto: Recovering from dying") for step in made.steps)


def test_a_recovering_fighter_attacks_and_defends_a_step_down_in_reflex() -> None:
    hero, recovering = sheet(), sheet(recovering=True)

    def fighter(key: int, who: lucky13.Sheet) -> Fighter:
        return Fighter(key=key, name=f"F{key}", block=COMBAT.joins(who, GRITTY), sheet=who, sheet_key=key)

    plain = COMBAT.plan_attack(fighter(1, hero), fighter(2, hero), {}, GRITTY)
    weak = COMBAT.plan_attack(fighter(1, recovering), fighter(2, recovering), {}, GRITTY)
    assert plain.dice[1]["attacker_dice"][0] == "d10"
    assert (weak.dice[1]["attacker_dice"][0], weak.dice[1]["defender_dice"][0]) == ("d8", "d8")
    assert weak.details["sides"][0]["dice"][0]["steps"] == ["Recovering from dying: −1"]
    vitals = COMBAT.vitals(fighter(1, recovering), GRITTY)
    assert vitals.conditions == ("recovering",)
    assert ("Recovering", "Reflex −1") in vitals.notes
    initiative = COMBAT.initiative([[fighter(1, recovering)]], GRITTY, random.Random(1))
    assert initiative.logged[0].spec["reflex"] == "d8"


def test_the_vitals_say_recovering() -> None:
    vitals = lucky13.SYSTEM.vitals(sheet(recovering=True), GRITTY)
    assert vitals.conditions == ("recovering",)
    assert vitals.can_act
    assert lucky13.SYSTEM.vitals(sheet(recovering=True), CINEMATIC).conditions == ()


# --- The options ----------------------------------------------------------------------------------------


def test_the_options_default_to_the_behaviour_before_them() -> None:
    options = lucky13.default_options()
    assert (options["resting"], options["recovery"]) == ("off", "cinematic")
    assert lucky13.read_options({}).resting == "off"


@pytest.mark.parametrize(("key", "value"), [("resting", "hourly"), ("resting", 4), ("recovery", "heroic"),
                                            ("recovery", ["gritty"])])  # fmt: skip
def test_a_bad_choice_is_refused_by_name(key, value) -> None:
    with pytest.raises(lucky13.OptionsError) as refused:
        lucky13.validate_options({key: value})
    assert key in refused.value.errors
