"""A Lucky 13 character joining a campaign with other options: names matched case and spacing aside,
hit points counted again at the campaign's rate, and each change said before the GM takes it in."""

from __future__ import annotations

from typing import Any

import pytest

from rules.dice import StepDie
from rules.document import match_names, name_key
from rules.systems.lucky13 import validate_options
from rules.systems.lucky13.arrival import arrive
from rules.systems.lucky13.health import max_hit_points, recount
from tests.systems.lucky13.test_system import L13, sheet

#: Where the character comes from: the Fantasy skills (Fighting fights), 10 hit points a Pulse step.
THERE: dict[str, Any] = {"hit_points_per_step": 10, "skills": validate_options({})["skills"]}


def here(**changes: Any) -> dict[str, Any]:
    """A campaign that spells two skills its own way, links Spellcasting to Will, and counts 8 a step."""
    options: dict[str, Any] = {
        "hit_points_per_step": 8,
        "skills": [
            {"name": "Spell casting", "ability": "will"},
            {"name": "scholarship", "ability": "intellect"},
            {"name": "Healing", "ability": "will"},
            {"name": "Sneaking", "ability": "reflex"},
            {"name": "FIGHTING", "ability": "reflex", "combat": True},
            {"name": "Riding", "ability": "reflex"},
        ],
    }
    return validate_options({**options, **changes})


def test_a_name_is_matched_case_and_spacing_aside() -> None:
    assert name_key("Melee combat") == name_key("melee  Combat") == name_key("Melee-combat") == name_key("MeleeCombat")
    assert name_key("Melee") != name_key("Melee combat")
    # The same name case aside comes first; then spacing aside, where just one of each is left with it.
    assert match_names(["Spellcasting", "first aid"], ["First Aid", "Spell casting"]) == {0: 1, 1: 0}
    assert match_names(["melee", "Melee "], ["Melee"]) == {0: 0}
    assert match_names(["Melee combat", "MeleeCombat"], ["Melee-combat"]) == {}  # two of ours: neither
    assert match_names(["Riding"], ["Rid ing", "Riding"]) == {0: 1}


@pytest.mark.parametrize(
    ("hit_points", "pulse", "expected"),
    [
        (30, "d8", 24),  # full stays full: 3 steps of 8
        (27, "d8", 21),  # 3 taken stay taken
        (40, "d10", 32),
        (5, "d8", 1),  # 25 taken of 30 would leave -1 of 24: up stays up
        (0, "d8", 0),  # dying counts below 0 the same at any rate
        (-3, "d8", -3),
    ],
)
def test_hit_points_are_counted_again_at_another_rate(hit_points: int, pulse: str, expected: int) -> None:
    assert recount(hit_points, StepDie.parse(pulse), 10, 8) == expected


def test_counted_back_at_the_first_rate_full_and_wounds_come_back_as_they_were() -> None:
    for hit_points in range(1, max_hit_points(StepDie.parse("d12"), 8) + 1):
        higher = recount(hit_points, StepDie.parse("d12"), 8, 10)
        assert recount(higher, StepDie.parse("d12"), 10, 8) == hit_points


def test_what_plays_differently_is_said_before_anything_changes() -> None:
    hero = sheet(hit_points=27)  # Pulse d8: 30 at 10 a step, 3 taken
    assert L13.differences(hero, here(), THERE) == (
        "hit points are counted at 8 a Pulse step here and at 10 where the character comes from: 27 of 30 become "
        "21 of 24 (the 3 taken stay taken)",
        "Spellcasting takes this campaign's spelling, Spell casting, and is linked to Will here (Intellect on the "
        "sheet)",
        "Scholarship takes this campaign's spelling, scholarship",
        "Fighting takes this campaign's spelling, FIGHTING",
        "the sheet has no Riding, a skill here",
    )


def test_taken_in_each_matched_skill_takes_the_campaigns_spelling_and_link_and_hit_points_its_rate() -> None:
    hero = sheet(hit_points=27)
    taken, changed = L13.mapped(hero, here(), THERE)
    assert [(s.id, s.name, s.ability) for s in taken.skills] == [
        (1, "Spell casting", "will"),
        (2, "scholarship", "intellect"),
        (3, "Healing", "will"),
        (4, "Sneaking", "reflex"),
        (5, "FIGHTING", "reflex"),
    ]
    assert taken.skills[0].specializations == hero.skills[0].specializations  # ids, dice, levels: the same
    assert [s.die for s in taken.skills] == [s.die for s in hero.skills]
    assert taken.hit_points == 21
    assert changed == (  # said at length before (the arrival's words); in a few words for the history
        "hit points counted at 8 a Pulse step: 27 of 30 now 21 of 24",
        "Spellcasting now Spell casting, linked to Will",
        "Scholarship now scholarship",
        "Fighting now FIGHTING",
    )
    relinked = validate_options({"skills": [{**row, "ability": "intellect"} if row["name"] == "Sneaking" else row
                                            for row in THERE["skills"]]})  # fmt: skip
    assert L13.mapped(hero, relinked, THERE)[1] == ("Sneaking linked to Intellect",)
    assert L13.differences(hero, relinked, THERE) == ("Sneaking is linked to Intellect here (Reflex on the sheet)",)
    # the Combat skill follows the campaign's: the sheet's Fighting fights under the campaign's spelling
    from rules.systems.lucky13.encounter import combat_skill

    assert combat_skill(taken, here()).id == 5


def test_a_skill_the_campaign_does_not_have_stays_as_it_is_and_is_said() -> None:
    options = here(skills=[{"name": "Sneaking", "ability": "reflex", "combat": True}])
    hero = sheet()
    # Without the list of the campaign it comes from, which skill fought there is not known.
    assert L13.differences(hero, options, None) == (
        "Spellcasting is not a skill here",
        "Scholarship is not a skill here",
        "Healing is not a skill here",
        "Fighting is not a skill here",
    )
    assert L13.mapped(hero, options, None) == (hero, ())
    assert L13.differences(hero, options, THERE)[-1] == (
        "Sneaking is the skill that fights here (Fighting fought where the character comes from)"
    )
    fought_nowhere = {**THERE, "skills": [{**row, "combat": False} for row in THERE["skills"]]}
    assert L13.differences(hero, options, fought_nowhere)[-1] == (
        "Sneaking is the skill that fights here (no skill fought where the character comes from)"
    )
    assert L13.differences(hero, here(skills=[{"name": "Sneaking", "ability": "reflex"}]), THERE)[-1] == (
        "no skill fights here (Fighting fought where the character comes from)"
    )


def test_a_rate_the_export_does_not_say_changes_nothing() -> None:
    hero = sheet(hit_points=27)
    assert not any("hit points" in words for words in L13.differences(hero, here(), None))
    assert L13.mapped(hero, here(), {"hit_points_per_step": True})[0].hit_points == 27


def test_a_draft_without_hit_points_keeps_none() -> None:
    draft = sheet(hit_points=None, creation={"step": "equipment", "ability_method": "balanced"})
    assert L13.differences(draft, here(), THERE)[0] == (
        "hit points are counted at 8 a Pulse step here and at 10 where the character comes from: the sheet has none yet"
    )
    assert L13.mapped(draft, here(), THERE)[0].hit_points is None


def test_a_character_who_is_up_stays_up_and_one_dying_keeps_the_hit_points_they_have() -> None:
    assert L13.differences(sheet(hit_points=5), here(), THERE)[0].endswith(
        ": 5 of 30 become 1 of 24 (the 25 taken stay taken, and a character who is up stays up)"
    )
    assert L13.differences(sheet(hit_points=-2), here(), THERE)[0].endswith(
        ": -2 of 30 become -2 of 24 (below 0 counts the same at any rate)"
    )
    assert L13.differences(sheet(hit_points=30), here(), THERE)[0].endswith(
        ": 30 of 30 become 24 of 24 (full stays full)"
    )


def test_the_same_options_change_nothing() -> None:
    hero = sheet(hit_points=27)
    options = validate_options({})
    assert L13.differences(hero, options, THERE) == ()
    assert L13.mapped(hero, options, THERE) == (hero, ())
    assert arrive(hero, options, THERE).sheet is hero
