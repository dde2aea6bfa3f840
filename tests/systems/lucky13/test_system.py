"""Lucky 13 behind the system protocol: the sheet document, creation step by step, who edits
what, vitals, rolls from a sheet, and purchases, all on the document with ids."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from rules.dice import StepDie
from rules.systems import get
from rules.systems.base import EditRefused, Role, SheetInvalid, SpecError
from rules.systems.lucky13 import Check, Explosion, Modifiers, check_chance, sheet_check, validate_options
from rules.systems.lucky13.sheet import Sheet

L13 = get("lucky13")
OPTIONS = validate_options({})


def document(**changes: Any) -> dict[str, Any]:
    """A finished Fantasy character as a document: Intellect d10, Spellcasting d10 with Teleport 2."""
    base: dict[str, Any] = {
        "schema_version": 1,
        "concept": "Hedge wizard",
        "abilities": {"will": "d6", "charm": "d6", "pulse": "d8", "intellect": "d10", "reflex": "d4"},
        "skills": [
            {"id": 1, "name": "Spellcasting", "ability": "intellect", "die": "d10",
             "specializations": [{"id": 6, "name": "Teleport", "level": 2}]},
            {"id": 2, "name": "Scholarship", "ability": "intellect", "die": "d10"},
            {"id": 3, "name": "Healing", "ability": "will", "die": "d6"},
            {"id": 4, "name": "Sneaking", "ability": "reflex", "die": "d4"},
            {"id": 5, "name": "Fighting", "ability": "reflex", "die": "d4"},
        ],
        "traits": [{"id": 7, "kind": "background", "name": "Apprentice"}],
        "assets": [{"id": 8, "name": "Staff", "level": 2, "skills": [1]}],
        "weapons": [{"id": 9, "name": "Dagger", "accuracy": "d6", "damage": "d4"}],
        "hit_points": 30,
        "reputation": 1,
        "creation": {"step": "", "ability_method": "balanced"},
        "next_id": 10,
    }  # fmt: skip
    base.update(changes)
    return base


def sheet(**changes: Any) -> Sheet:
    return L13.read_sheet(document(**changes))


def fields(error: pytest.ExceptionInfo[SheetInvalid]) -> list[str]:
    return [problem.field for problem in error.value.problems]


# --- The document ----------------------------------------------------------------------------


def test_a_finished_document_reads_and_is_complete() -> None:
    hero = sheet()
    assert hero.skill(1).specializations[0].name == "Teleport"
    assert hero.specialization(6)[0].name == "Spellcasting"
    assert L13.validate(hero, OPTIONS, finished=True) == ()


@pytest.mark.parametrize(
    ("changes", "field"),
    [
        ({"reputation": 6}, "reputation"),
        ({"hit_points": "30"}, "hit_points"),
        ({"abilities": {"will": "d20"}}, "abilities.will"),
        ({"traits": [{"id": 7, "kind": "quirk", "name": "Odd"}]}, "traits.0.kind"),
        ({"traits": [{"id": 7, "kind": "background", "name": "Line\nbreak"}]}, "traits.0.name"),
        ({"traits": [{"id": 7, "kind": "background", "name": "Nul\x00"}]}, "traits.0.name"),
        ({"traits": [{"id": 7, "kind": "background", "name": "x" * 61}]}, "traits.0.name"),
        ({"traits": [{"id": 7, "kind": "background", "name": "   "}]}, "traits.0.name"),
        ({"notes": "bell\x07"}, "notes"),
        ({"flying": True}, "flying"),
    ],
)
def test_a_bad_field_is_named(changes: dict[str, Any], field: str) -> None:
    with pytest.raises(SheetInvalid) as refused:
        sheet(**changes)
    assert fields(refused) == [field]


@pytest.mark.parametrize(
    ("changes", "words"),
    [
        ({"assets": [{"id": 8, "name": "Staff", "skills": [99]}]}, "helps a skill the sheet does not have"),
        ({"weapons": [{"id": 9, "name": "Dagger", "accuracy": "d6", "damage": "d4"},
                      {"id": 9, "name": "Knife", "accuracy": "d6", "damage": "d4"}]}, "same id"),
        ({"weapons": [{"id": 9, "name": "Dagger", "accuracy": "d6", "damage": "d4"},
                      {"id": 11, "name": "dagger", "accuracy": "d6", "damage": "d4"}], "next_id": 12}, "called dagger"),
        ({"next_id": 5}, "next_id must be past every id"),
    ],
)  # fmt: skip
def test_ids_and_names_are_unique_and_references_hold(changes: dict[str, Any], words: str) -> None:
    with pytest.raises(SheetInvalid, match=words):
        sheet(**changes)


def test_hit_points_are_bounded_by_the_campaign() -> None:
    assert L13.validate(sheet(hit_points=-8), OPTIONS, finished=True) == ()
    (problem,) = L13.validate(sheet(hit_points=31), OPTIONS, finished=True)
    assert problem.field == "hit_points"
    assert problem.message == "hit points run from -8 to 30 with a d8 Pulse"
    assert L13.validate(sheet(hit_points=-9), OPTIONS, finished=True)
    assert L13.validate(sheet(hit_points=60), validate_options({"hit_points_per_step": 20}), finished=True) == ()


def test_a_newer_document_is_refused_with_its_version_named() -> None:
    with pytest.raises(SheetInvalid) as refused:
        L13.read_sheet(document(schema_version=2))
    assert fields(refused) == ["schema_version"]


# --- Creation ---------------------------------------------------------------------------------


def test_creation_step_by_step_through_the_protocol() -> None:
    draft = L13.new_draft(OPTIONS)
    assert [s.name for s in draft.skills] == ["Spellcasting", "Scholarship", "Healing", "Sneaking", "Fighting"]
    assert [s.id for s in draft.skills] == [1, 2, 3, 4, 5]
    assert draft.next_id == 6
    (problem,) = L13.check_step(draft, "abilities", OPTIONS)
    assert problem.field == "abilities"
    assert "give every ability a die" in problem.message

    rolled = L13.roll_step(draft, "abilities", OPTIONS, Random(1))
    assert len(rolled.creation.ability_rolls) == 5
    assert L13.check_step(rolled, "abilities", OPTIONS) == ()
    assert L13.check_step(rolled, "skills", OPTIONS)[0].field == "skills"

    document = rolled.model_dump(mode="json")
    for skill in document["skills"]:
        skill["die"] = document["abilities"][skill["ability"]]
    with_skills = L13.read_sheet(document)
    assert L13.check_step(with_skills, "review", OPTIONS) == ()

    document["skills"][0]["die"] = "d12" if document["skills"][0]["die"] != "d12" else "d4"
    (problem,) = L13.check_step(L13.read_sheet(document), "skills", OPTIONS)
    assert problem.message.startswith("Spellcasting: each skill's die is its linked ability's die")


def test_the_arrays_and_the_impairment_are_checked() -> None:
    balanced = sheet(creation={"step": "review", "ability_method": "balanced"})
    assert L13.check_step(balanced, "abilities", OPTIONS) == ()
    wrong = document(creation={"step": "review", "ability_method": "specialized"})
    wrong["abilities"]["reflex"] = "d8"
    (problem,) = L13.check_step(L13.read_sheet(wrong), "abilities", OPTIONS)
    assert "too many" in problem.message
    owes = sheet(creation={"step": "traits", "ability_method": "balanced", "took_impairment": True})
    problems = L13.check_step(owes, "traits", OPTIONS)
    assert [p.field for p in problems] == ["specializations", "traits"]  # Teleport 2 is no starting level
    assert problems[1].message == "describe the impairment you took for the extra specialization"


def test_too_many_starting_specializations_are_refused() -> None:
    options = validate_options({"starting_specializations": 0})
    (problem,) = L13.check_step(sheet(creation={"ability_method": "balanced"}), "specializations", options)
    assert problem.message == "choose at most 0 starting specializations"


def test_random_skill_dice_are_rolled_once_and_stay_with_the_skill_when_renamed() -> None:
    options = validate_options({"skill_method": "random"})
    draft = L13.roll_step(L13.new_draft(options), "abilities", options, Random(2))
    rolled = L13.roll_step(draft, "skills", options, Random(5))
    assert all(s.rolled is not None and s.die is not None for s in rolled.skills)
    assert L13.check_step(rolled, "skills", options) == ()
    document = rolled.model_dump(mode="json")
    document["skills"][0]["name"] = "Sorcery"
    renamed = L13.read_sheet(document)
    again = L13.roll_step(renamed, "skills", options, Random(99))
    assert again == renamed  # no reroll the rules do not give
    assert again.skill(1).rolled == rolled.skill(1).rolled
    document["skills"][0]["die"] = "d12" if document["skills"][0]["die"] != "d12" else "d4"
    assert L13.check_step(L13.read_sheet(document), "skills", options)[0].message == (
        "the skill dice must be the ones the server rolled"
    )


def test_the_server_rolls_only_at_its_steps() -> None:
    with pytest.raises(SpecError, match="rolls nothing"):
        L13.roll_step(L13.new_draft(OPTIONS), "skills", OPTIONS, Random(1))  # the ability method


# --- Edits ------------------------------------------------------------------------------------


def test_the_player_renames_a_specialization_but_only_the_gm_levels_it() -> None:
    hero = sheet()
    skills = hero.model_dump(mode="json")["skills"]
    skills[0]["specializations"][0]["name"] = "Blink"
    renamed = L13.edit(hero, "specializations", {"skills": skills}, role=Role.OWNER, options=OPTIONS)
    assert renamed.specialization(6)[1].name == "Blink"
    skills[0]["specializations"][0]["level"] = 3
    with pytest.raises(EditRefused, match="only the GM can add or remove specializations"):
        L13.edit(hero, "specializations", {"skills": skills}, role=Role.OWNER, options=OPTIONS)
    assert (
        L13.edit(hero, "specializations", {"skills": skills}, role=Role.GM, options=OPTIONS).specialization(6)[1].level
        == 3
    )
    skills[0]["die"] = "d12"
    with pytest.raises(SheetInvalid, match="only the specializations change here"):
        L13.edit(hero, "specializations", {"skills": skills}, role=Role.GM, options=OPTIONS)


def test_an_edit_names_a_field_outside_its_section_and_checks_the_whole_sheet() -> None:
    hero = sheet()
    with pytest.raises(SheetInvalid) as refused:
        L13.edit(hero, "notes", {"reputation": 2}, role=Role.GM, options=OPTIONS)
    assert fields(refused) == ["reputation"]
    with pytest.raises(SheetInvalid) as refused:
        L13.edit(hero, "hit-points", {"hit_points": 31}, role=Role.GM, options=OPTIONS)
    assert fields(refused) == ["hit_points"]
    with pytest.raises(EditRefused, match="only the GM can change the hit points"):
        L13.edit(hero, "hit-points", {"hit_points": 20}, role=Role.OWNER, options=OPTIONS)
    assert L13.edit(hero, "hit-points", {"hit_points": 20}, role=Role.GM, options=OPTIONS).hit_points == 20


# --- The table --------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("hit_points", "state", "can_act"), [(30, "up", True), (1, "up", True), (0, "dying", False), (-8, "dead", False)]
)
def test_vitals(hit_points: int, state: str, can_act: bool) -> None:
    vitals = L13.vitals(sheet(hit_points=hit_points), OPTIONS)
    assert (vitals.state, vitals.can_act) == (state, can_act)
    (track,) = vitals.tracks
    assert (track.value, track.maximum, track.minimum) == (hit_points, 30, -8)
    assert bool(vitals.why_not) is not can_act


def test_a_specialization_roll_is_labelled_and_its_chance_is_the_engines() -> None:
    roll = L13.sheet_roll(sheet(), {"specialization": 6, "difficulty": "moderate"}, OPTIONS)
    assert roll.label == "Intellect + Spellcasting (Teleport 2) vs Moderate"
    assert roll.spec["skill"] == "d12+d4"  # d10 stepped up twice
    direct = Check(StepDie.of(10), StepDie.parse("d12+d4"), StepDie.of(10), explosion=Explosion.CINEMATIC)
    assert L13.roll_kinds["check"].chance(L13.roll_kinds["check"].parse(roll.spec)) == check_chance(direct)


def test_a_reaction_roll_uses_reputation_and_the_campaigns_names() -> None:
    options = validate_options({"ability_names": ["Spirit", "Presence", "Body", "Mind", "Speed"]})
    roll = L13.sheet_roll(sheet(), {"reaction": True, "difficulty": "easy", "ability_roll": "background"}, options)
    assert roll.label == "Presence reaction vs Easy, with a background"
    assert roll.spec["ability"] == "d8"  # Charm d6 stepped up by reputation 1
    assert roll.spec["ability_roll"] == "background"


def test_an_asset_and_a_helper_step_the_skill_and_say_so() -> None:
    """ "Equipment / assets" and "Characters assisting characters": the steps of every source are
    added before the die is stepped once (Spellcasting d10 + Teleport 2 + Staff 2 = 4 steps up)."""
    situation = {"specialization": 6, "asset": 8, "difficulty": "difficult", "assist": {"die": "d8", "name": "Otto"}}
    roll = L13.sheet_roll(sheet(), situation, OPTIONS)
    assert roll.label == "Intellect + Spellcasting (Teleport 2) vs Difficult, with Staff, Otto assisting"
    modifiers = Modifiers(specialization_level=2, asset_level=2, assist=StepDie.parse("d8"))
    direct = sheet_check(StepDie.of(10), StepDie.of(10), StepDie.parse(roll.spec["difficulty"]), modifiers)
    assert roll.spec["skill"] == direct.skill.label
    kind = L13.roll_kinds["check"]
    assert kind.chance(kind.parse(roll.spec)) == check_chance(direct)


def test_a_reaction_check_with_a_skill_rolls_charm_the_skill_and_the_die() -> None:
    """ "Reputation": Charm stepped by the reputation + the skill + the decision die."""
    roll = L13.sheet_roll(sheet(), {"reaction": True, "skill": 4, "difficulty": "easy"}, OPTIONS)
    assert roll.label == "Charm + Sneaking reaction vs Easy"
    assert (roll.spec["ability"], roll.spec["skill"]) == ("d8", "d4")
    with pytest.raises(SpecError, match="without a specialization"):
        L13.sheet_roll(sheet(), {"reaction": True, "specialization": 6, "difficulty": "easy"}, OPTIONS)
    with pytest.raises(SpecError, match="rolls Charm"):
        L13.sheet_roll(sheet(), {"reaction": True, "ability": "will", "difficulty": "easy"}, OPTIONS)


def test_a_specialization_must_be_of_the_skill_named() -> None:
    with pytest.raises(SpecError, match="no such specialization of this skill"):
        L13.sheet_roll(sheet(), {"skill": 2, "specialization": 6, "difficulty": "easy"}, OPTIONS)


def test_raising_pulse_fills_the_new_row_of_hit_points() -> None:
    """ "Hit points": a row per Pulse step; the bought row comes full, and damage taken stays taken."""
    wounded = sheet(hit_points=12)
    raised, _ = L13.buy(wounded, "ability:pulse", OPTIONS)
    assert raised.abilities.pulse == "d10"
    assert raised.hit_points == 12 + OPTIONS["hit_points_per_step"]


def test_a_roll_names_what_is_missing() -> None:
    with pytest.raises(SpecError, match="no such skill"):
        L13.sheet_roll(sheet(), {"skill": 42, "difficulty": "easy"}, OPTIONS)
    with pytest.raises(SpecError, match="no such specialization"):
        L13.sheet_roll(sheet(), {"specialization": "6", "difficulty": "easy"}, OPTIONS)


# --- Advancement ------------------------------------------------------------------------------


def test_offers_cost_what_the_rule_text_says() -> None:
    offers = {offer.key: offer for offer in L13.offers(sheet(), OPTIONS, {})}
    assert offers["level:6"].cost == 4
    assert offers["specialization:1"].cost == 4
    assert offers["ability:reflex"].cost == 16  # d4 × 4
    assert offers["ability:intellect"].cost == 40
    assert offers["level:6"].effects[0].after > offers["level:6"].effects[0].before


def test_buying_changes_the_sheet_by_id() -> None:
    hero = sheet()
    leveled, what = L13.buy(hero, "level:6", OPTIONS)
    assert leveled.specialization(6)[1].level == 3
    assert what.label == "Teleport (Spellcasting) to level 3"
    new, what = L13.buy(hero, "specialization:2", OPTIONS, {"name": "  Old   Maps "})
    assert new.skill(2).specializations[0].name == "Old Maps"
    assert new.skill(2).specializations[0].id == 10
    assert new.next_id == 11
    with pytest.raises(SpecError, match="Spellcasting already has a specialization called teleport"):
        L13.buy(hero, "specialization:1", OPTIONS, {"name": "teleport"})
    raised, _ = L13.buy(hero, "ability:reflex", OPTIONS)
    assert raised.abilities.reflex == "d6"
    top = sheet(abilities={"will": "d12", "charm": "d6", "pulse": "d8", "intellect": "d10", "reflex": "d4"})
    assert "ability:will" not in {offer.key for offer in L13.offers(top, OPTIONS, {})}
    with pytest.raises(SpecError, match="abilities stop at d12"):
        L13.buy(top, "ability:will", OPTIONS)
    with pytest.raises(SpecError, match="no purchase"):
        L13.buy(hero, "level:99", OPTIONS)


def test_the_roll_kinds_say_what_they_roll() -> None:
    """A roll logged without a sheet's label still says what was rolled (the roll log's words)."""
    check = L13.roll_kinds["check"]
    spec = check.parse({"ability": "d8", "skill": "d6", "difficulty": "d10", "ability_roll": "background"})
    assert check.describe(spec) == "d8 + d6 + d10 (background: Ability rolled twice, higher kept), 13 or more"
    opposed = L13.roll_kinds["opposed"]
    spec = opposed.parse({"attacker": ["d8", "d10"], "defender": ["d6", "d8"], "weapon_die": "d8"})
    assert opposed.describe(spec) == "d8 + d10 against d6 + d8, weapon d8"


def test_an_impairment_taken_for_a_specialization_stays_unless_the_gm_removes_it() -> None:
    """ "Impairments": taking one at creation bought a specialization, so the player keeps one."""
    hero = sheet(
        traits=[{"id": 7, "kind": "impairment", "name": "Bad knee"}],
        creation={"step": "", "ability_method": "balanced", "took_impairment": True},
    )
    with pytest.raises(SheetInvalid, match="only the GM can remove the last one"):
        L13.edit(hero, "traits", {"traits": []}, role=Role.OWNER, options=OPTIONS)
    assert L13.edit(hero, "traits", {"traits": []}, role=Role.GM, options=OPTIONS).traits == ()
    swapped = [{"id": 7, "kind": "impairment", "name": "Old wound"}]
    assert L13.edit(hero, "traits", {"traits": swapped}, role=Role.OWNER, options=OPTIONS).traits[0].name == "Old wound"


def test_a_proposed_roll_is_said_as_the_gm_would_call_it() -> None:
    """The GM's calls: a call names the skill from the campaign's list, and the ability only where it
    is not the skill's linked one (README, "The GM's call names the ability too"); what only the sheet
    adds (a specialization, an asset, a helper) is not the call's."""
    system = get("lucky13")
    wizard = sheet()
    spellcasting = next(s for s in wizard.skills if s.name == "Spellcasting")
    fighting = next(s for s in wizard.skills if s.name == "Fighting")
    situation = {"skill": spellcasting.id, "specialization": spellcasting.specializations[0].id, "asset": 8,
                 "difficulty": "easy", "ability_roll": "impairment", "ability": spellcasting.ability}  # fmt: skip
    call = system.situation_call(wizard, situation, OPTIONS)
    assert call.model_dump(mode="json") == {
        "kind": "check", "skill": "Spellcasting", "ability": None, "difficulty": "easy", "ability_roll": "impairment",
        "ability_steps": 0, "skill_steps": 0,
    }  # fmt: skip
    reaction = system.situation_call(wizard, {"reaction": True, "skill": fighting.id}, OPTIONS)
    assert (reaction.kind, reaction.skill) == ("reaction", "Fighting")
    assert system.situation_call(wizard, {"kind": "reaction"}, OPTIONS).skill is None  # Charm alone
    other = system.situation_call(wizard, {"skill": fighting.id, "ability": "pulse"}, OPTIONS)
    assert (other.skill, other.ability) == ("Fighting", "pulse")  # a player may propose another ability
    assert system.call_words(other, OPTIONS).startswith("Pulse + Fighting check")
    renamed = {**OPTIONS, "skills": [e for e in OPTIONS["skills"] if e["name"] != "Fighting"]}
    with pytest.raises(SpecError) as unlisted:
        system.situation_call(wizard, {"skill": fighting.id}, renamed)
    assert unlisted.value.field == "skill"


def test_the_gms_call_names_the_ability_or_rolls_the_skills_own() -> None:
    """README, "The GM's call names the ability too": "Roll a d10 plus your Pulse and your Fighting
    dice" rolls Pulse; without one, the skill's linked ability; a skill linked to none is never rolled
    with a default ability: the call must name one (and a roll from the sheet must choose one)."""
    system = get("lucky13")
    wizard = sheet()
    fighting = next(s for s in wizard.skills if s.name == "Fighting")
    call = system.call_model.model_validate({"skill": "Fighting", "ability": "pulse", "difficulty": "difficult"})
    fixed = system.call_situation(wizard, call, OPTIONS)
    assert (fixed["skill"], fixed["ability"]) == (fighting.id, "pulse")
    made = system.sheet_roll(wizard, fixed, OPTIONS)
    assert made.details["ability"] == "pulse"
    assert made.spec["ability"] == wizard.abilities.pulse
    own = system.call_situation(wizard, system.call_model.model_validate({"skill": "Fighting"}), OPTIONS)
    assert own["ability"] == fighting.ability
    unlinked = wizard.model_copy(update={"skills": tuple(
        s.model_copy(update={"ability": None}) if s.id == fighting.id else s for s in wizard.skills
    )})  # fmt: skip
    with pytest.raises(SpecError) as no_ability:
        system.call_situation(unlinked, system.call_model.model_validate({"skill": "Fighting"}), OPTIONS)
    assert no_ability.value.field == "ability"
    assert "name the ability" in no_ability.value.message
    with pytest.raises(SpecError) as page:
        system.sheet_roll(unlinked, {"skill": fighting.id}, OPTIONS)
    assert page.value.field == "ability"
    assert system.sheet_roll(unlinked, {"skill": fighting.id, "ability": "will"}, OPTIONS).details["ability"] == "will"
    with pytest.raises(SpecError) as reaction:
        system.call_situation(wizard, system.call_model.model_validate({"kind": "reaction", "ability": "pulse"}),
                              OPTIONS)  # fmt: skip
    assert reaction.value.field == "ability"
    named = dict(system.call_choices(OPTIONS))
    assert named["ability"][0] == ("", "The skill’s own ability")
    assert ("pulse", "Pulse") in named["ability"]
    assert named["kind"] == [("check", "Skill check"), ("reaction", "Reaction check (Charm + the skill)")]
