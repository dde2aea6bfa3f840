"""Checks built from a sheet: assists, assets, specializations, reputation and GM steps,
added first and applied to each die once (rules README, "The ladder")."""

from __future__ import annotations

import pytest

from rules.dice import StepDie
from rules.systems.lucky13 import (
    AbilityRoll,
    Difficulty,
    Explosion,
    Modifiers,
    SheetError,
    assist_steps,
    reaction_charm,
    sheet_check,
)

D = StepDie.parse


@pytest.mark.parametrize(
    ("helper", "steps"),
    [("d4", 1), ("d6", 2), ("d8", 3), ("d10", 4), ("d12", 5), ("d12+d4", 5), ("d12+d12+d4", 5)],
)
def test_a_helpers_die_gives_steps_by_the_table(helper: str, steps: int) -> None:
    assert assist_steps(D(helper)) == steps


def test_a_helper_without_a_die_cannot_help() -> None:
    with pytest.raises(SheetError, match="needs a die"):
        assist_steps(StepDie.none())


def test_the_rule_texts_teleport_example() -> None:
    """Spellcasting d8 with Teleport level 2 is d12; Intellect d10; Challenging is d6."""
    check = sheet_check(D("d10"), D("d8"), Difficulty.CHALLENGING.die, Modifiers(specialization_level=2))
    assert (check.ability, check.skill, check.difficulty) == (D("d10"), D("d12"), D("d6"))


def test_the_rule_texts_map_example() -> None:
    """Technology d6 with an adequate (level 2) map steps up twice, to d10."""
    check = sheet_check(D("d8"), D("d6"), D("d10"), Modifiers(asset_level=2))
    assert check.skill == D("d10")


def test_steps_from_every_source_add_up_then_step_once() -> None:
    # Skill d10: specialization 2 + asset 3 + a d8 helper (3) − 1 from the GM = +7 steps.
    check = sheet_check(
        D("d6"), D("d10"), D("d10"),
        Modifiers(specialization_level=2, asset_level=3, assist=D("d8"), skill_steps=-1),
    )  # fmt: skip
    assert check.skill == D("d10").step(7)
    assert check.skill == D("d12+d12+d4")
    assert check.ability == D("d6")


def test_a_helper_on_the_ability_steps_the_ability() -> None:
    check = sheet_check(D("d8"), D("d6"), D("d10"), Modifiers(assist=D("d6"), assist_target="ability"))
    assert (check.ability, check.skill) == (D("d12"), D("d6"))


def test_gm_steps_down_can_remove_a_die() -> None:
    check = sheet_check(D("d4"), D("d6"), D("d10"), Modifiers(ability_steps=-1, skill_steps=-3))
    assert check.ability == StepDie.none()
    assert check.skill == StepDie.none()


@pytest.mark.parametrize(("reputation", "charm"), [(0, "d8"), (2, "d12"), (3, "d12+d4"), (-1, "d6"), (-5, "none")])
def test_reaction_checks_step_charm_by_reputation(reputation: int, charm: str) -> None:
    assert reaction_charm(D("d8"), reputation) == StepDie.parse(charm)
    check = sheet_check(D("d8"), D("d6"), D("d10"), Modifiers(reputation=reputation))
    assert check.ability == StepDie.parse(charm)


@pytest.mark.parametrize(
    ("modifiers", "field"),
    [
        (Modifiers(specialization_level=6), "specialization level"),
        (Modifiers(asset_level=9), "asset level"),
        (Modifiers(reputation=6), "reputation"),
        (Modifiers(assist=D("d6"), assist_target="luck"), "assist_target"),
        (Modifiers(skill_steps=99), "skill_steps"),
        (Modifiers(ability_steps=True), "ability_steps"),
    ],
)
def test_bad_modifiers_are_refused_naming_the_field(modifiers: Modifiers, field: str) -> None:
    with pytest.raises(SheetError) as refused:
        sheet_check(D("d8"), D("d6"), D("d10"), modifiers)
    assert refused.value.field == field


def test_the_roll_options_pass_through() -> None:
    check = sheet_check(D("d8"), D("d6"), D("d10"), ability_roll=AbilityRoll.BACKGROUND, explosion=Explosion.GRITTY)
    assert (check.ability_roll, check.explosion) == (AbilityRoll.BACKGROUND, Explosion.GRITTY)


def test_with_new_ids_gives_each_new_item_a_fresh_id_at_any_depth() -> None:
    from rules.document import with_new_ids

    document = {"next_id": 5, "skills": [{"id": 1, "specializations": [{"id": 4}]}], "notes": ""}
    value = {"skills": [{"id": 1, "specializations": [{"id": 4}, {"name": "new"}]}, {"name": "Sneaking"}]}
    merged = with_new_ids(document, value)
    assert merged["skills"] == [
        {"id": 1, "specializations": [{"id": 4}, {"id": 5, "name": "new"}]},
        {"id": 6, "name": "Sneaking"},
    ]
    assert merged["next_id"] == 7
    assert merged["notes"] == ""
    # Past an id the value brings that is beyond next_id; nothing new leaves next_id alone.
    assert with_new_ids({"next_id": 2}, {"tricks": [{"id": 9}, {}]})["tricks"][1]["id"] == 10
    assert with_new_ids({"next_id": 2}, {"tricks": [{"id": 1}]})["next_id"] == 2
    assert "next_id" not in with_new_ids({}, {"tricks": [{}]})


def test_help_on_a_d12_adds_a_die_to_the_check() -> None:
    """ "Other dice can be added when an object or character is used to help": a d12 stepped up by an
    asset or a helper gains a d4, so the check rolls four dice (rules README, "The ladder")."""
    asset = sheet_check(D("d8"), D("d12"), D("d10"), Modifiers(asset_level=1))
    helped = sheet_check(D("d8"), D("d12"), D("d10"), Modifiers(assist=D("d6")))
    assert asset.pool.dice == (D("d8"), D("d12+d4"), D("d10"))
    assert [die.sides for die in asset.pool.dice] == [(8,), (12, 4), (10,)]
    assert helped.skill == D("d12+d6")  # a d6 helper gives two steps
    assert sum(len(die.sides) for die in helped.pool.dice) == 4
