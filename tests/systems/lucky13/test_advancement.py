"""Advancement by the rule text ("Skill advancement / Adventure Points"): what each purchase
costs, where it stops, and how it changes the exact chance of the checks it touches."""

from __future__ import annotations

import pytest

from rules.dice import StepDie
from rules.systems.lucky13 import (
    Difficulty,
    Explosion,
    PurchaseKind,
    SheetError,
    SheetSkill,
    buy_ability,
    buy_level,
    buy_specialization,
    suggestions,
)
from tests.systems.lucky13.reference import exploding_check

D = StepDie.parse


@pytest.mark.parametrize(
    ("current", "after", "cost"), [("d4", "d6", 16), ("d6", "d8", 24), ("d8", "d10", 32), ("d10", "d12", 40)]
)
def test_an_ability_costs_its_current_die_size_times_four(current: str, after: str, cost: int) -> None:
    """The rule text's table, "Ability Score Increase"."""
    purchase = buy_ability("will", D(current))
    assert (purchase.kind, purchase.cost, StepDie(purchase.before), StepDie(purchase.after)) == (
        PurchaseKind.ABILITY,
        cost,
        D(current),
        D(after),
    )


def test_nothing_past_d12() -> None:
    with pytest.raises(SheetError, match="abilities stop at d12"):
        buy_ability("will", D("d12"))


def test_an_unknown_ability_is_refused() -> None:
    with pytest.raises(SheetError, match="not an ability"):
        buy_ability("luck", D("d6"))


def test_a_new_specialization_costs_four_and_starts_at_level_one() -> None:
    purchase = buy_specialization("Spellcasting", "  Blink  ", ["Teleport"])
    assert (purchase.kind, purchase.cost, purchase.before, purchase.after, purchase.name) == (
        PurchaseKind.SPECIALIZATION,
        4,
        0,
        1,
        "Blink",
    )


@pytest.mark.parametrize("name", ["Teleport", "teleport", "TELEPORT"])
def test_a_skill_has_one_specialization_of_a_name(name: str) -> None:
    with pytest.raises(SheetError, match="already has a specialization called"):
        buy_specialization("Spellcasting", name, ["Teleport"])


@pytest.mark.parametrize("name", ["", "   ", None, 12, "x" * 61])
def test_a_new_specialization_needs_a_name(name) -> None:
    with pytest.raises((SheetError, ValueError)):
        buy_specialization("Spellcasting", name, [])


@pytest.mark.parametrize("level", [1, 2, 3, 4])
def test_one_more_level_costs_four(level: int) -> None:
    purchase = buy_level("Spellcasting", "Teleport", level)
    assert (purchase.cost, purchase.before, purchase.after) == (4, level, level + 1)


def test_level_five_is_the_highest() -> None:
    with pytest.raises(SheetError, match="level 5, the highest"):
        buy_level("Spellcasting", "Teleport", 5)


ABILITIES = {"will": D("d6"), "charm": D("d4"), "pulse": D("d8"), "intellect": D("d10"), "reflex": D("d12")}
SKILLS = (
    SheetSkill("Spellcasting", "intellect", D("d8"), (("Teleport", 2), ("Fireball", 5))),
    SheetSkill("Fighting", "reflex", D("d10")),
    SheetSkill("Lore", "", D("d6"), (("Runes", 1),)),
)


def _by_key(options):
    return {(o.purchase.kind, o.purchase.skill, o.purchase.name, o.purchase.ability): o for o in options}


def test_every_purchase_the_sheet_allows_is_offered() -> None:
    options = _by_key(suggestions(ABILITIES, SKILLS, difficulty=Difficulty.CHALLENGING.die))
    assert set(options) == {
        (PurchaseKind.LEVEL, "Spellcasting", "Teleport", ""),
        (PurchaseKind.LEVEL, "Lore", "Runes", ""),  # Fireball is at 5: not offered
        (PurchaseKind.SPECIALIZATION, "Spellcasting", "", ""),
        (PurchaseKind.SPECIALIZATION, "Fighting", "", ""),
        (PurchaseKind.SPECIALIZATION, "Lore", "", ""),
        (PurchaseKind.ABILITY, "", "", "will"),
        (PurchaseKind.ABILITY, "", "", "charm"),
        (PurchaseKind.ABILITY, "", "", "pulse"),
        (PurchaseKind.ABILITY, "", "", "intellect"),  # reflex is d12: not offered
    }


def test_teleport_two_to_three_is_the_exact_change_of_its_check() -> None:
    """Spellcasting d8 with Teleport 2 is d12, with 3 d12+d4; Intellect d10; Challenging is d6."""
    options = _by_key(suggestions(ABILITIES, SKILLS, difficulty=Difficulty.CHALLENGING.die))
    (effect,) = options[(PurchaseKind.LEVEL, "Spellcasting", "Teleport", "")].effects
    assert (effect.skill, effect.specialization) == ("Spellcasting", "Teleport")
    assert effect.before == exploding_check("d10", "d12", "challenging", "normal", "cinematic")[0]
    assert effect.after == exploding_check("d10", "d12+d4", "challenging", "normal", "cinematic")[0]
    assert effect.gain > 0


def test_a_new_specialization_changes_the_plain_skill_check() -> None:
    options = _by_key(suggestions(ABILITIES, SKILLS, difficulty=Difficulty.MODERATE.die, explosion=Explosion.GRITTY))
    (effect,) = options[(PurchaseKind.SPECIALIZATION, "Fighting", "", "")].effects
    assert effect.before == exploding_check("d12", "d10", "moderate", "normal", "gritty")[0]
    assert effect.after == exploding_check("d12", "d12", "moderate", "normal", "gritty")[0]


def test_an_ability_changes_every_check_of_its_linked_skills() -> None:
    options = _by_key(suggestions(ABILITIES, SKILLS, difficulty=Difficulty.DIFFICULT.die))
    effects = options[(PurchaseKind.ABILITY, "", "", "intellect")].effects
    assert [(e.skill, e.specialization) for e in effects] == [
        ("Spellcasting", ""),
        ("Spellcasting", "Teleport"),
        ("Spellcasting", "Fireball"),
    ]
    fireball = effects[2]
    # Fireball 5 steps d8 five times: d10, d12, d12+d4, d12+d6, d12+d8.
    assert fireball.before == exploding_check("d10", "d12+d8", "difficult", "normal", "cinematic")[0]
    assert fireball.after == exploding_check("d12", "d12+d8", "difficult", "normal", "cinematic")[0]
    assert options[(PurchaseKind.ABILITY, "", "", "pulse")].effects == ()


def test_a_skill_with_no_linked_ability_has_nothing_to_compare() -> None:
    options = _by_key(suggestions(ABILITIES, SKILLS, difficulty=Difficulty.MODERATE.die))
    assert options[(PurchaseKind.LEVEL, "Lore", "Runes", "")].effects == ()
    assert options[(PurchaseKind.LEVEL, "Lore", "Runes", "")].best_gain == 0
