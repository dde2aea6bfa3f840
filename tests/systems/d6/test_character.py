"""The D6 campaign's options, the sheet document, creation (budgets, pips, the cap above the stat)
and advancement (a pip costs the skill's whole dice), as the rules README reads the text."""

from __future__ import annotations

from fractions import Fraction

import pytest
from pydantic import ValidationError

from rules.systems.base import OptionsError, SpecError
from rules.systems.d6 import advancement, creation
from rules.systems.d6.codes import DieCode, DieCodeError
from rules.systems.d6.options import (
    Options,
    combat_roles,
    default_options,
    reaction_skills,
    read_options,
    validate_options,
)
from rules.systems.d6.sheet import Sheet

C = DieCode.parse


def stat_ids(sheet: Sheet) -> dict[str, int]:
    return {stat.name: stat.id for stat in sheet.stats}


def skill_ids(sheet: Sheet) -> dict[str, int]:
    return {skill.name: skill.id for skill in sheet.skills}


def made(options=None) -> Sheet:
    """A draft of the default campaign with 18d spent: 3d in each of the six stats."""
    options = options or validate_options({})
    draft = creation.new_draft(options)
    return creation.set_stats(draft, {str(i): "3d" for i in stat_ids(draft).values()})


# Options


def test_the_defaults_are_the_readings() -> None:
    options = validate_options({})
    assert (options["stat_dice"], options["skill_dice"], options["skill_cap"]) == (18, 7, 2)
    assert options["starting_luck"] == 1  # "Every character starts with one Luck Point"
    assert [stat["name"] for stat in options["stats"]] == [
        "Dexterity", "Knowledge", "Mechanical", "Perception", "Strength", "Technical"
    ]  # fmt: skip
    assert reaction_skills(options) == {"dodge", "melee parry", "brawling parry"}
    assert read_options({}) == Options()
    assert default_options()["pip_cost"] == 1


def test_the_skill_list_marks_which_skills_attack_and_which_defend() -> None:
    # "D6 fights attack with an attack skill": a role, as Lucky 13's Combat skill; the preset marks its own.
    options = validate_options({})
    assert combat_roles(options) == {
        "firearms": "ranged", "melee combat": "melee", "missile weapons": "ranged", "thrown weapons": "ranged",
        "brawling": "brawling", "dodge": "dodge", "melee parry": "parry", "brawling parry": "parry",
    }  # fmt: skip
    custom = validate_options({"stat_preset": "custom", "stat_dice": 6, "initiative_stat": "", "stats": [
        {"name": "Agility", "skills": [{"name": "Blaster", "combat": "ranged"}, {"name": "Tumble", "combat": "dodge"},
                                       {"name": "Firearms", "combat": ""}]},
        {"name": "Mind", "skills": []},
    ]})  # fmt: skip
    assert combat_roles(custom) == {"blaster": "ranged", "tumble": "dodge"}  # marked, never guessed from a name
    assert reaction_skills(custom) == {"tumble"}  # a dodge is a reaction skill
    with pytest.raises(OptionsError) as refused:
        validate_options({"stats": [{"name": "Might", "skills": [{"name": "Kick", "reaction": True,
                                                                  "combat": "melee"}]}]})  # fmt: skip
    assert "Kick attacks, so it is declared with the round" in refused.value.errors["stats"]


def test_a_skill_list_from_before_roles_gets_them_from_the_names() -> None:
    stored = {"stat_preset": "custom", "stat_dice": 6, "initiative_stat": "", "stats": [
        {"name": "Dexterity", "skills": [{"name": "Dodge", "reaction": True}, {"name": "Firearms", "reaction": False},
                                         {"name": "Climbing", "reaction": False}]},
        {"name": "Knowledge", "skills": [{"name": "Languages", "reaction": False}]},
    ]}  # fmt: skip
    options = validate_options(stored)
    assert combat_roles(options) == {"dodge": "dodge", "firearms": "ranged"}
    assert read_options(stored).stats[0].skills[1].combat == "ranged"
    assert validate_options(options) == options  # once marked, the list keeps its marks


@pytest.mark.parametrize(("options", "field"), [
    ({"stat_dice": 0}, "stat_dice"),
    ({"stat_dice": True}, "stat_dice"),
    ({"skill_cap": 11}, "skill_cap"),
    ({"stat_minimum": "2d+3"}, "stat_minimum"),
    ({"stat_maximum": "1d", "stat_minimum": "2d"}, "stat_maximum"),
    ({"stat_dice": 2}, "stat_dice"),  # six stats cannot each have 1d from 2d
    ({"stat_dice": 40}, "stat_dice"),  # nor hold 40d at 5d each
    ({"stats": []}, "stats"),
    ({"stats": [{"name": "Might", "skills": [{"name": "Might"}]}]}, "stats"),
    ({"stats": [{"name": "Might", "skills": [{"name": "Lift", "reaction": "yes"}]}]}, "stats"),
    ({"stats": [{"name": "Might", "skills": [{"name": "Kick", "combat": "kick"}]}]}, "stats"),
    ({"stats": [{"name": "Might", "skills": [{"name": "Kick", "reaction": True, "combat": "brawling"}]}]}, "stats"),
    ({"stat_preset": "nine"}, "stat_preset"),
    ({"colour": "red"}, "colour"),
])  # fmt: skip
def test_bad_options_are_refused_naming_the_option(options, field) -> None:
    with pytest.raises(OptionsError) as refused:
        validate_options(options)
    assert field in refused.value.errors


def test_the_stat_dice_are_checked_against_the_stats_whatever_else_is_wrong() -> None:
    with pytest.raises(OptionsError) as refused:
        validate_options({"stat_dice": 2, "skill_cap": 11})
    assert set(refused.value.errors) == {"stat_dice", "skill_cap"}
    with pytest.raises(OptionsError) as refused:
        validate_options({"stat_dice": 2, "stat_minimum": None})
    assert set(refused.value.errors) == {"stat_minimum"}  # the stat dice wait for a lowest stat to check


def test_a_custom_list_of_stats_and_skills() -> None:
    options = validate_options({"stat_preset": "custom", "stat_dice": 6, "stats": [
        {"name": " Brawn ", "skills": [{"name": "Grapple"}, {"name": "Duck", "reaction": True}]},
        {"name": "Wits", "skills": []},
    ]})  # fmt: skip
    assert options["stats"][0] == {"name": "Brawn", "skills": [
        {"name": "Grapple", "reaction": False, "combat": ""}, {"name": "Duck", "reaction": True, "combat": ""}
    ]}  # fmt: skip
    assert reaction_skills(options) == {"duck"}


# The sheet


def test_a_skill_not_raised_rolls_its_stats_code_and_shows_its_own_once_raised() -> None:
    sheet = made()
    dodge = skill_ids(sheet)["Dodge"]
    assert sheet.skill(dodge).code is None
    assert sheet.code_of(dodge) == C("3d")
    raised, _, _, after = advancement.raise_skill(sheet, dodge, validate_options({}))
    assert raised.skill(dodge).code == "3d+1" == str(after)


def test_the_sheet_refuses_a_skill_below_its_stat_and_a_skill_of_no_stat() -> None:
    sheet = made().model_dump()
    sheet["skills"][0]["code"] = "2d+2"
    with pytest.raises(ValidationError, match="below its stat"):
        Sheet.model_validate(sheet)
    sheet["skills"][0]["code"] = None
    sheet["skills"][0]["stat"] = 999
    with pytest.raises(ValidationError, match="does not have"):
        Sheet.model_validate(sheet)
    sheet = made().model_dump()
    sheet["stats"][0]["code"] = "3d+3"
    with pytest.raises(ValidationError):
        Sheet.model_validate(sheet)


# Creation


def test_a_new_draft_holds_the_campaigns_stats_and_skills_with_stable_ids() -> None:
    draft = creation.new_draft(validate_options({}))
    assert len(draft.stats) == 6
    assert all(stat.code is None for stat in draft.stats)
    dexterity = stat_ids(draft)["Dexterity"]
    assert {s.name for s in draft.skills_of(dexterity)} >= {"Dodge", "Melee parry", "Firearms"}
    assert draft.skill(skill_ids(draft)["Dodge"]).reaction
    ids = [item.id for items in draft.item_lists() for item in items]
    assert len(set(ids)) == len(ids)
    assert draft.next_id > max(ids)


def test_every_stat_die_is_spent_a_die_split_into_pips_as_the_player_likes() -> None:
    options = validate_options({})
    draft = creation.new_draft(options)
    ids = list(stat_ids(draft).values())
    # 18d = 54 pips: 3d+1 three times, 2d+1, 3d, 2d+2 (the text: "split 1d into three pips").
    split = creation.set_stats(
        draft, dict(zip(map(str, ids), ["3d+1", "3d+1", "3d+1", "2d+1", "3d", "2d+2"], strict=True))
    )
    assert creation.stat_budget(split, options).left == 0
    assert creation.check_step(split, "stats", options) == ()
    short = creation.set_stats(draft, {str(i): "3d" for i in ids[:5]} | {str(ids[5]): "2d+2"})
    (problem,) = creation.check_step(short, "stats", options)
    assert problem.message == "Spend every stat die: 0d+1 left"
    over = creation.set_stats(draft, {str(i): "3d" for i in ids[:5]} | {str(ids[5]): "4d"})
    assert creation.check_step(over, "stats", options)[0].message == "Spend every stat die: 1d too many"


def test_a_stat_outside_the_campaigns_limits_is_refused_by_its_field() -> None:
    options = validate_options({"stat_maximum": "4d"})
    draft = creation.new_draft(options)
    ids = list(stat_ids(draft).values())
    sheet = creation.set_stats(draft, {str(i): "3d" for i in ids[:4]} | {str(ids[4]): "5d", str(ids[5]): "1d"})
    problems = creation.check_step(sheet, "stats", options)
    assert [p.field for p in problems] == [f"stats.{ids[4]}.code"]
    assert "a stat is 1d to 4d" in problems[0].message


def test_skills_rise_at_most_the_cap_above_their_stat_and_never_past_the_budget() -> None:
    options = validate_options({})
    sheet = made(options)
    skills = skill_ids(sheet)
    ok = creation.set_skills(sheet, {str(skills["Dodge"]): "5d", str(skills["Firearms"]): "4d+2"})
    assert creation.check_step(ok, "skills", options) == ()
    assert creation.skill_budget(ok, options).words == "3d+1 left"  # 21 pips, 6 + 5 spent
    capped = creation.set_skills(sheet, {str(skills["Dodge"]): "5d+1"})
    (problem,) = creation.check_step(capped, "skills", options)
    assert problem.field == f"skills.{skills['Dodge']}.code"
    assert "at most 2d above Dexterity at creation: 5d at most" in problem.message
    many = creation.set_skills(sheet, {str(skills[n]): "5d" for n in ("Dodge", "Firearms", "Running", "Search")})
    assert creation.check_step(many, "skills", options)[-1].message.endswith("1d too many")


def test_a_skill_below_its_stat_is_refused_and_one_at_its_stat_is_not_raised() -> None:
    sheet = made()
    dodge = skill_ids(sheet)["Dodge"]
    with pytest.raises(DieCodeError, match="never below its stat"):
        creation.set_skills(sheet, {str(dodge): "2d+2"})
    assert creation.set_skills(sheet, {str(dodge): "3d"}).skill(dodge).code is None
    with pytest.raises(DieCodeError, match="not a skill"):
        creation.set_skills(sheet, {"999": "4d"})
    with pytest.raises(DieCodeError, match="not a die code"):
        creation.set_skills(sheet, {str(dodge): "four dice"})


def test_lowering_a_stat_takes_back_a_skill_it_now_reaches() -> None:
    sheet = made()
    dodge, dexterity = skill_ids(sheet)["Dodge"], stat_ids(sheet)["Dexterity"]
    raised = creation.set_skills(sheet, {str(dodge): "3d+2"})
    assert creation.set_stats(raised, {str(dexterity): "4d"}).skill(dodge).code is None
    assert creation.set_stats(raised, {str(dexterity): "3d+1"}).skill(dodge).code == "3d+2"


def test_finishing_gives_the_starting_luck() -> None:
    options = validate_options({"starting_luck": 2})
    finished = creation.finish(made(options), options)
    assert finished.luck_points == 2
    assert finished.creation.step == ""


# Advancement


@pytest.mark.parametrize(("code", "cost"), [("3d+2", 3), ("0d", 1), ("0d+2", 1), ("1d", 1), ("2d", 2), ("5d+1", 5)])
def test_a_pip_costs_the_whole_dice_of_the_current_code(code, cost) -> None:
    assert advancement.pip_cost(C(code)) == cost
    assert advancement.pip_cost(C(code), 2) == 2 * cost


def test_raising_a_skill_carries_pips_and_stats_never_improve() -> None:
    options = validate_options({})
    sheet = creation.set_skills(made(options), {str(skill_ids(made())["Dodge"]): "3d+2"})
    dodge = skill_ids(sheet)["Dodge"]
    raised, cost, before, after = advancement.raise_skill(sheet, dodge, options)
    assert (str(before), str(after), cost) == ("3d+2", "4d", 3)
    assert raised.skill(dodge).code == "4d"
    with pytest.raises(SpecError, match="stats never improve"):
        advancement.raise_skill(sheet, stat_ids(sheet)["Dexterity"], options)
    assert advancement.lower_skill(raised, dodge, before).skill(dodge).code == "3d+2"
    assert advancement.lower_skill(raised, dodge, C("3d")).skill(dodge).code is None


def test_what_a_pip_buys_is_the_exact_chance_before_and_after() -> None:
    before, after = advancement.gain(C("3d+2"), C("4d"), 15)
    assert isinstance(before, Fraction)
    assert before < after
