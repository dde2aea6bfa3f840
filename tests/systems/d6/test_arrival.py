"""A D6 character joining a campaign with other stats and skills: each matched by name, case and spacing
aside, takes the campaign's spelling, stat and reaction mark; a change in a skill's part in a fight is
said; what is not matched stays as it is, and is said."""

from __future__ import annotations

import copy
from typing import Any

from rules.systems import get
from rules.systems.d6.options import validate_options
from rules.systems.d6.sheet import Sheet
from tests.systems.d6.test_character import made

D6 = get("d6")
THERE = validate_options({})


def here() -> dict[str, Any]:
    """The default stats and skills, but: DEXTERITY spelled so, Melee-combat under Strength, Climbing a
    reaction skill, Thrown weapons with no part in a fight, Hide gone and Tracking new."""
    stats = copy.deepcopy(THERE["stats"])
    dexterity, perception, strength = stats[0], stats[3], stats[4]
    dexterity["name"] = "DEXTERITY"
    melee = next(s for s in dexterity["skills"] if s["name"] == "Melee combat")
    dexterity["skills"].remove(melee)
    strength["skills"].append({**melee, "name": "Melee-combat"})
    next(s for s in strength["skills"] if s["name"] == "Climbing")["reaction"] = True
    next(s for s in dexterity["skills"] if s["name"] == "Thrown weapons")["combat"] = ""
    perception["skills"] = [s for s in perception["skills"] if s["name"] != "Hide"]
    perception["skills"].append({"name": "Tracking", "reaction": False, "combat": ""})
    return validate_options({"stat_preset": "custom", "stats": stats})


def ids(sheet: Sheet) -> dict[str, int]:
    return {item.name: item.id for item in (*sheet.stats, *sheet.skills)}


def test_what_plays_differently_is_said_before_anything_changes() -> None:
    talia = made()
    assert D6.differences(talia, here(), THERE) == (
        "Dexterity takes this campaign's spelling, DEXTERITY",
        "Melee combat takes this campaign's spelling, Melee-combat and belongs to Strength here (Dexterity on the "
        "sheet)",
        "Thrown weapons has no part in a fight here (where the character comes from it attacks at range)",
        "Hide is not a skill here",
        "Climbing is a reaction skill here",
        "the sheet has no Tracking, a skill here",
    )
    # Without the campaign it comes from, a change in a skill's part in a fight is not known.
    assert "Thrown weapons" not in " ".join(D6.differences(talia, here(), None))


def test_taken_in_each_matched_item_takes_the_campaigns_spelling_stat_and_reaction_mark() -> None:
    talia = made()
    before = ids(talia)
    taken, changed = D6.mapped(talia, here(), THERE)
    after = ids(taken)
    assert after["DEXTERITY"] == before["Dexterity"]
    assert after["Melee-combat"] == before["Melee combat"]
    assert taken.skill(after["Melee-combat"]).stat == before["Strength"]
    assert taken.skill(after["Climbing"]).reaction
    assert taken.skill(after["Hide"]).stat == before["Perception"]  # not matched: as it was
    assert changed == (
        "Dexterity now DEXTERITY",
        "Melee combat now Melee-combat, under Strength",
        "Climbing a reaction skill",
    )
    # the attack role follows the campaign's spelling: Melee-combat attacks in melee here
    from rules.systems.d6.options import combat_roles

    assert combat_roles(here())[taken.skill(after["Melee-combat"]).name.casefold()] == "melee"


def test_a_raised_skill_below_the_campaigns_stat_stays_under_its_own() -> None:
    document = made().model_dump(mode="json")
    for stat in document["stats"]:
        stat["code"] = {"Dexterity": "2d", "Strength": "4d"}.get(stat["name"], stat["code"])
    for skill in document["skills"]:
        if skill["name"] == "Melee combat":
            skill["code"] = "3d+1"
    talia = D6.read_sheet(document)
    words = D6.differences(talia, here(), THERE)
    assert "Melee combat takes this campaign's spelling, Melee-combat" in words
    assert (
        "Melee combat belongs to Strength here: it stays under Dexterity, as its 3d+1 is below Strength's 4d" in words
    )
    taken, _ = D6.mapped(talia, here(), THERE)
    assert taken.skill(ids(taken)["Melee-combat"]).stat == ids(talia)["Dexterity"]


def test_a_skill_whose_stat_the_sheet_lacks_stays_under_its_own() -> None:
    options = here()
    options["stats"][4]["name"] = "Might"  # Strength is Might here: not the same name
    options = validate_options(options)
    talia = made()
    words = D6.differences(talia, options, THERE)
    assert "Strength is not a stat here" in words
    assert "Melee combat belongs to Might here, a stat the sheet lacks: it stays under Dexterity" in words
    taken, _ = D6.mapped(talia, options, THERE)
    assert taken.skill(ids(taken)["Melee-combat"]).stat == ids(talia)["Dexterity"]


def test_the_same_options_change_nothing() -> None:
    talia = made()
    assert D6.differences(talia, THERE, THERE) == ()
    assert D6.mapped(talia, THERE, THERE) == (talia, ())
