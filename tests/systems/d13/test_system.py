"""The D13 system: creation within the campaign's budgets, edits, vitals, the sheet roll with its exact chances,
experience, the host's calls and a change of the campaign's skills (rules README, "D13": "ability and skill
budgets are campaign options", "the sheet keeps a condition track", "experience is optional, spent on
skills")."""

from __future__ import annotations

import random
from fractions import Fraction
from typing import Any

import pytest

from rules.systems.base import EditRefused, Effect, SheetInvalid, SpecError, Worded
from rules.systems.d13 import SYSTEM
from rules.systems.d13.chance import Level, check, monstrous_range, standing_totals
from rules.systems.d13.moves import target_of
from rules.systems.d13.sheet import Last, Sheet, Skill, Task
from rules.systems.d13.system import CHECK, Call
from rules.systems.d13.table import Boost, Table
from rules.systems.protocol.editing import Role
from tests.systems.d13.engine import CHARACTER, OPTIONS, Dice, Play, finished, mara, options, shuffled_table

OCCULT, ATHLETICS, DRIVING = 7, 1, 3


def skill(sheet: Sheet, skill_id: int) -> Skill:
    found = sheet.skill(skill_id)
    assert found is not None
    return found


def problems(error: pytest.ExceptionInfo[SheetInvalid]) -> list[tuple[str, str]]:
    return [(p.field, p.message) for p in error.value.problems]


# --- Creation ---------------------------------------------------------------------------------------------


def test_a_draft_has_the_campaigns_skills_at_zero_and_no_abilities() -> None:
    draft = SYSTEM.new_draft(OPTIONS)
    assert draft.step == "abilities"
    assert (draft.brawn, draft.grace, draft.wits, draft.will) == (None, None, None, None)
    first = [(s.id, s.name, s.kind, s.rating) for s in draft.skills][:2]
    assert first == [(1, "Athletics", "physical", 0), (2, "Brawling", "physical", 0)]
    assert [s.name for s in draft.skills] == [s["name"] for s in OPTIONS["skills"]]
    assert skill(draft, OCCULT).kind == "mental"
    assert draft.next_id == 13


def test_the_abilities_step_says_every_problem_at_once() -> None:
    draft = SYSTEM.new_draft(OPTIONS)
    with pytest.raises(SheetInvalid) as error:
        SYSTEM.fill_step(draft, "abilities", {"brawn": 6, "grace": 0, "wits": 5, "will": 5}, OPTIONS)
    assert problems(error) == [("brawn", "an ability is 1 to 5 at creation"), ("grace", "an ability is 1 to 5 at "
                               "creation"), ("brawn", "the abilities share 12 points, not 16")]  # fmt: skip
    with pytest.raises(SheetInvalid) as error:
        SYSTEM.fill_step(draft, "abilities", {"brawn": 3, "grace": 3}, OPTIONS)
    assert problems(error) == [("wits", "give Wits a rating"), ("will", "give Will a rating")]


def test_the_abilities_step_goes_by_the_campaigns_budget() -> None:
    given = options(ability_min=2, ability_max=6, ability_points=16)
    draft = SYSTEM.new_draft(given)
    filled = SYSTEM.fill_step(draft, "abilities", {"brawn": 6, "grace": 2, "wits": 4, "will": 4}, given)
    assert (filled.brawn, filled.grace, filled.wits, filled.will, filled.step) == (6, 2, 4, 4, "skills")
    with pytest.raises(SheetInvalid) as error:
        SYSTEM.fill_step(draft, "abilities", {"brawn": 1, "grace": 2, "wits": 4, "will": 4}, given)
    assert problems(error) == [("brawn", "an ability is 2 to 6 at creation")]


def test_points_may_be_left_unspent() -> None:
    filled = SYSTEM.fill_step(SYSTEM.new_draft(OPTIONS), "abilities", {"brawn": 2, "grace": 2, "wits": 2,
                                                                        "will": 2}, OPTIONS)  # fmt: skip
    assert filled.step == "skills"


def test_the_skills_step_says_every_problem_at_once() -> None:
    sheet = SYSTEM.fill_step(SYSTEM.new_draft(OPTIONS), "abilities", {"brawn": 3, "grace": 3, "wits": 3,
                                                                       "will": 3}, OPTIONS)  # fmt: skip
    rows = [{"id": 1, "rating": 5}, {"id": 2, "rating": 4}, {"id": 3, "rating": 2}, {"id": 9, "rating": 5}]
    with pytest.raises(SheetInvalid) as error:
        SYSTEM.fill_step(sheet, "skills", {"skills": rows}, OPTIONS)
    assert problems(error) == [
        ("skills.0.rating", "a skill is at most 4 at creation"),
        ("skills.8.rating", "a skill is at most 4 at creation"),
        ("skills", "the skills share 10 points, not 16"),
    ]


def test_the_skills_step_sets_ratings_by_id_and_never_a_name() -> None:
    sheet = SYSTEM.fill_step(SYSTEM.new_draft(OPTIONS), "abilities", {"brawn": 3, "grace": 3, "wits": 3,
                                                                       "will": 3}, OPTIONS)  # fmt: skip
    rows = [{"id": OCCULT, "name": "Hacking", "kind": "physical", "rating": 3}, {"id": 999, "rating": 2},
            {"id": ATHLETICS, "rating": 1}]  # fmt: skip
    filled = SYSTEM.fill_step(sheet, "skills", {"skills": rows, "notes": "Sees the drowned."}, OPTIONS)
    occult = filled.skill(OCCULT)
    assert occult is not None
    assert (occult.name, occult.kind, occult.rating) == ("Occult", "mental", 3)
    assert [s.name for s in filled.skills] == [s.name for s in sheet.skills]
    assert skill(filled, ATHLETICS).rating == 1
    assert filled.notes == "Sees the drowned."
    assert filled.step == "skills"


def test_a_step_takes_only_its_own_fields() -> None:
    draft = SYSTEM.new_draft(OPTIONS)
    with pytest.raises(SheetInvalid) as error:
        SYSTEM.fill_step(draft, "abilities", {"brawn": 3, "notes": "x"}, OPTIONS)
    assert problems(error) == [("notes", "is not part of this step")]
    with pytest.raises(SheetInvalid) as error:
        SYSTEM.fill_step(draft, "background", {}, OPTIONS)
    assert problems(error) == [("step", "nothing is filled in at the background step")]
    assert [(p.field, p.message) for p in SYSTEM.check_step(draft, "background", OPTIONS)] == [
        ("step", "there is no creation step 'background'")]  # fmt: skip


def test_creation_rolls_no_dice() -> None:
    with pytest.raises(SpecError):
        SYSTEM.roll_step(SYSTEM.new_draft(OPTIONS), "abilities", OPTIONS, random.Random(1))


def test_finishing_checks_every_budget_again() -> None:
    sheet = mara()
    assert sheet.step == ""
    draft = SYSTEM.new_draft(OPTIONS)
    with pytest.raises(SheetInvalid) as error:
        SYSTEM.finish(draft, OPTIONS)
    assert {field for field, _ in problems(error)} == {"brawn", "grace", "wits", "will"}
    # Options made tighter since the step was filled: finishing says so.
    sheet = SYSTEM.fill_step(SYSTEM.new_draft(OPTIONS), "abilities", {"brawn": 5, "grace": 3, "wits": 2,
                                                                       "will": 2}, OPTIONS)  # fmt: skip
    with pytest.raises(SheetInvalid) as error:
        SYSTEM.finish(sheet, options(ability_max=4))
    assert problems(error) == [("brawn", "an ability is 1 to 4 at creation")]


def test_a_finished_sheet_in_words() -> None:
    assert SYSTEM.summary(mara()).concept == "Brawn 3 Grace 3 Wits 3 Will 3"
    assert SYSTEM.summary(SYSTEM.new_draft(OPTIONS)).step == "abilities"


# --- Edits ----------------------------------------------------------------------------------------------


def test_the_owner_edits_the_notes_and_only_the_host_the_rest() -> None:
    sheet = mara()
    assert SYSTEM.edit(sheet, "notes", {"notes": "Owes the ferryman."}, role=Role.OWNER, options=OPTIONS).notes == (
        "Owes the ferryman.")  # fmt: skip
    with pytest.raises(EditRefused, match="only the host can change the condition track"):
        SYSTEM.edit(sheet, "condition", {"condition": 2}, role=Role.OWNER, options=OPTIONS)
    with pytest.raises(EditRefused, match="only the host can change the abilities and skills"):
        SYSTEM.edit(sheet, "ratings", {"wits": 5}, role=Role.OWNER, options=OPTIONS)
    assert SYSTEM.edit(sheet, "condition", {"condition": 4}, role=Role.GM, options=OPTIONS).condition == 4
    assert SYSTEM.edit(sheet, "ratings", {"wits": 5}, role=Role.GM, options=OPTIONS).wits == 5


def test_the_condition_stays_on_the_campaigns_track() -> None:
    with pytest.raises(SheetInvalid) as error:
        SYSTEM.edit(mara(), "condition", {"condition": 7}, role=Role.GM, options=OPTIONS)
    assert problems(error) == [("condition", "the track runs from 0 to 6")]
    edited = SYSTEM.edit(mara(), "condition", {"condition": 9}, role=Role.GM, options=options(condition_max=10,
                         helpless_at=10))  # fmt: skip
    assert edited.condition == 9


def test_an_edit_keeps_to_its_section() -> None:
    with pytest.raises(SheetInvalid) as error:
        SYSTEM.edit(mara(), "notes", {"notes": "x", "wits": 5}, role=Role.GM, options=OPTIONS)
    assert problems(error) == [("wits", "is not part of it")]
    with pytest.raises(SheetInvalid):
        SYSTEM.edit(mara(), "luck", {}, role=Role.GM, options=OPTIONS)


# --- Vitals -----------------------------------------------------------------------------------------------


def test_the_condition_track_and_helplessness_at_the_campaigns_mark() -> None:
    vitals = SYSTEM.vitals(mara(), OPTIONS)
    (track,) = vitals.tracks
    assert (track.key, track.label, track.value, track.minimum, track.maximum) == ("condition", "Wounds", 0, 0, 6)
    assert (vitals.state, vitals.can_act, vitals.notes) == ("up", True, ())
    assert SYSTEM.vitals(mara().model_copy(update={"condition": 5}), OPTIONS).can_act
    helpless = SYSTEM.vitals(mara().model_copy(update={"condition": 6}), OPTIONS)
    assert (helpless.state, helpless.can_act, helpless.why_not) == ("helpless", False, "helpless at 6")
    given = options(condition="Harm", condition_max=10, helpless_at=8)
    assert SYSTEM.vitals(mara().model_copy(update={"condition": 7}), given).state == "up"
    harmed = SYSTEM.vitals(mara().model_copy(update={"condition": 8}), given)
    assert (harmed.state, harmed.tracks[0].label, harmed.tracks[0].maximum) == ("helpless", "Harm", 10)


def test_the_vitals_tell_the_last_roll() -> None:
    task = Task(level=Level.DIFFICULT, ability="wits", skill=OCCULT, target=5)
    sheet = mara().model_copy(update={"last": Last(task=task, total=9, success=False, effect=9)})
    assert SYSTEM.vitals(sheet, OPTIONS).notes == (("Last roll", "9, a failure"),)


# --- The sheet roll ---------------------------------------------------------------------------------------


def roll_of(situation: dict[str, Any], table: dict[str, Any] | None = None, sheet: Sheet | None = None) -> Any:
    return SYSTEM.sheet_roll(sheet or mara(), situation, OPTIONS, table=table)


@pytest.mark.parametrize("level", list(Level))
def test_a_sheet_roll_gives_its_exact_chance(level: Level) -> None:
    built = roll_of({"level": level.value, "ability": "wits", "skill": OCCULT})
    assert built.spec == {"system": "d13", "roll": "check", "difficulty": level.value, "target": 5}
    odds = CHECK.chance(CHECK.parse(built.spec))
    assert odds == check(5, level)
    assert built.label == f"{level.value.title()} Wits + Occult (5)"
    assert built.move == ("d13-roll", {"level": level.value, "ability": "wits", "skill": OCCULT, "unclear": False})
    assert built.details == {"ability": "wits", "skill": OCCULT}
    assert built.chances[-1] == ("Chance of a card (doubles that stand)", odds.card)
    assert built.totals is not None
    assert dict(built.totals.totals) == standing_totals(5, level)
    assert sum(p for _, p in built.totals.totals) == 1
    wins = {t for t in standing_totals(5, level) if t != 13 and (level is Level.EASY or t <= 5)}
    assert built.totals.succeeds == wins
    assert built.steps == ()


def test_a_monstrous_roll_gives_the_chance_at_both_ends() -> None:
    built = roll_of({"level": "monstrous", "ability": "wits", "skill": OCCULT})
    worst, best = monstrous_range(5)
    assert built.chances == (("If the host lets every success stand", best.success),
                             ("If the host forces a reroll whenever it hurts", worst.success),
                             ("Chance of a card (doubles that stand)", worst.card))  # fmt: skip
    assert best.success == check(5, Level.DIFFICULT).success
    assert worst.success < best.success


def test_a_sheet_roll_without_a_skill_tests_the_ability_alone() -> None:
    built = roll_of({"level": "difficult", "ability": "grace"})
    assert built.spec["target"] == 3
    assert built.label == "Difficult Grace (3)"


def test_an_unclear_sheet_roll_says_so_and_its_move_keeps_the_d4_secret() -> None:
    built = roll_of({"level": "average", "ability": "wits", "skill": OCCULT, "unclear": True})
    assert built.label == "Average Wits + Occult (5) (unclear)"
    assert built.move is not None
    assert built.move[1]["unclear"] is True
    assert "unclear" in SYSTEM.gm_situation


def test_the_scenes_boosts_raise_the_sheet_rolls_target() -> None:
    built = roll_of({"level": "difficult", "ability": "wits", "skill": OCCULT}, table={"boosts": {OCCULT: 4, 1: 2}})
    assert built.spec["target"] == 9
    assert built.steps == ("Boosted +4 by face cards this scene",)
    assert CHECK.chance(CHECK.parse(built.spec)) == check(9, Level.DIFFICULT)
    other = roll_of({"level": "difficult", "ability": "wits", "skill": DRIVING}, table={"boosts": {OCCULT: 4}})
    assert (other.spec["target"], other.steps) == (3, ())
    alone = roll_of({"level": "difficult", "ability": "wits"}, table={"boosts": {OCCULT: 4}})
    assert alone.spec["target"] == 3


def test_the_sheet_roll_reads_the_boosts_the_table_holds_for_the_character() -> None:
    table = Table(boosts=(Boost(character=CHARACTER, skill=OCCULT, size=2, card="QS"),
                          Boost(character=CHARACTER, skill=OCCULT, size=2, card="KS"),
                          Boost(character=CHARACTER + 1, skill=OCCULT, size=2, card="JS")))  # fmt: skip
    assert SYSTEM.table is not None
    held = SYSTEM.table.for_sheet(table, CHARACTER)
    built = roll_of({"level": "average", "ability": "wits", "skill": OCCULT}, table=dict(held))
    assert built.spec["target"] == 9 == target_of(mara(), "wits", OCCULT, table, CHARACTER)


def test_the_move_a_sheet_roll_names_rolls_against_the_same_target() -> None:
    table = Table(boosts=(Boost(character=CHARACTER, skill=OCCULT, size=2, card="QS"),))
    play = Play(mara(), table=table)
    assert SYSTEM.table is not None
    built = SYSTEM.sheet_roll(play.sheet, {"level": "easy", "ability": "wits", "skill": OCCULT}, OPTIONS,
                              table=dict(SYSTEM.table.for_sheet(play.table, CHARACTER)))  # fmt: skip
    assert built.move is not None
    key, values = built.move
    play.make(key, values, rng=Dice(1, 2))
    assert play.sheet.last is not None
    assert play.sheet.last.task.target == built.spec["target"] == 7


BAD_ROLLS = [({"level": "heroic", "ability": "wits"}, "level"), ({"level": "easy", "ability": "luck"}, "ability"),
             ({"level": "easy", "ability": "wits", "skill": 999}, "skill")]  # fmt: skip


@pytest.mark.parametrize(("situation", "field"), BAD_ROLLS)
def test_a_bad_sheet_roll_names_its_field(situation: dict[str, Any], field: str) -> None:
    with pytest.raises(SpecError) as error:
        roll_of(situation)
    assert error.value.field == field


def test_a_draft_has_no_sheet_roll() -> None:
    with pytest.raises(SpecError, match="finish the character first"):
        roll_of({"level": "easy", "ability": "wits"}, sheet=SYSTEM.new_draft(OPTIONS))


def test_the_outcome_in_words() -> None:
    spec: dict[str, Any] = {}
    assert SYSTEM.outcome_words("check", spec, {"success": True, "doubles": True}) == Worded("Success (doubles)",
                                                                                             "success")  # fmt: skip
    assert SYSTEM.outcome_words("check", spec, {"success": False, "doubles": False}) == Worded("Failure", "failure")
    assert SYSTEM.outcome_words("check", spec, {}) is None


# --- What the sheet shows beside the document ----------------------------------------------------------------


def test_the_sheet_shows_what_a_face_card_would_make_of_the_last_roll_and_the_move_does_it() -> None:
    for boost, d4, d9 in ((2, 3, 6), (4, 3, 6), (6, 4, 9), (2, 1, 6)):
        given = options(boost=boost)
        play = Play(mara(), table=shuffled_table(c7=("QS",)), given=given)
        play.roll("difficult", d4, d9)
        shown = SYSTEM.sheet_view(play.sheet, given)
        play.make("d13-card", {"card": "QS", "use": "boost"})
        assert play.sheet.last is not None
        assert shown["if_face"] == (boost, play.sheet.last.success)


def test_the_sheet_shows_what_each_number_card_would_make_of_the_last_roll() -> None:
    play = Play(mara())
    play.roll("difficult", 3, 6)
    shown = SYSTEM.sheet_view(play.sheet, OPTIONS)
    assert shown["if_card"] == [(v, v <= 5) for v in range(1, 11)]
    assert shown["last_words"] == "Difficult Wits + Occult (5)"


def test_the_sheet_shows_the_chance_given_the_d9_of_an_unclear_roll() -> None:
    play = Play(mara())
    play.roll("difficult", 2, 3, unclear=True, role=Role.GM)
    shown = SYSTEM.sheet_view(play.sheet, OPTIONS)
    # The d9 shows 3 against 5: a d4 of 1 or 2 is under, 3 makes doubles, 4 fails.
    assert shown["pending_chance"] == check(5, Level.DIFFICULT, 3).success == Fraction(3, 4)


# --- Experience --------------------------------------------------------------------------------------------


def test_without_experience_nothing_is_bought() -> None:
    assert SYSTEM.offers(mara(), OPTIONS, {}) == ()
    with pytest.raises(SpecError, match="without experience"):
        SYSTEM.buy(mara(), f"skill-{OCCULT}", OPTIONS)


def test_each_skill_one_rating_up_at_its_new_rating_times_the_campaigns_price() -> None:
    given = options(experience=True)
    offers = {o.key: o for o in SYSTEM.offers(mara(), given, {"level": "difficult", "ability": "wits"})}
    assert len(offers) == 12
    occult = offers[f"skill-{OCCULT}"]
    assert (occult.label, occult.currency, occult.cost) == ("Occult 2 → 3", "xp", 6)
    assert occult.effects == (Effect("Difficult Wits + Occult", check(5, Level.DIFFICULT).success,
                                     check(6, Level.DIFFICULT).success),)  # fmt: skip
    assert offers[f"skill-{DRIVING}"].cost == 2
    priced = {o.key: o.cost for o in SYSTEM.offers(mara(), options(experience=True, experience_per_rating=5), {})}
    assert priced[f"skill-{OCCULT}"] == 15
    # By default the effect is told at an Average Wits task.
    assert SYSTEM.offers(mara(), given, {})[0].effects[0].label == "Average Wits + Athletics"
    assert SYSTEM.offers(SYSTEM.new_draft(OPTIONS), given, {}) == ()


def test_a_skill_is_bought_up_to_the_campaigns_cap_and_refunded() -> None:
    given = options(experience=True, skill_cap=4)
    sheet, offer = SYSTEM.buy(mara(), f"skill-{OCCULT}", given, {"before": 2})
    assert skill(sheet, OCCULT).rating == 3
    assert offer.cost == 6
    words, purchase = SYSTEM.receipt(mara(), sheet, offer, given)
    assert words == "Occult 2 → 3"
    assert purchase == {"offer": f"skill-{OCCULT}", "cost": 6, "skill": OCCULT, "before": 2, "after": 3}
    sheet, _ = SYSTEM.buy(sheet, f"skill-{OCCULT}", given)
    assert f"skill-{OCCULT}" not in {o.key for o in SYSTEM.offers(sheet, given, {})}
    with pytest.raises(SpecError, match=r"Occult is at the campaign's highest \(4\)"):
        SYSTEM.buy(sheet, f"skill-{OCCULT}", given)
    back = SYSTEM.refund(sheet, {**purchase, "before": 3, "after": 4}, given)
    assert skill(back, OCCULT).rating == 3
    with pytest.raises(SpecError, match="no longer what this purchase bought"):
        SYSTEM.refund(back, {**purchase, "before": 3, "after": 4}, given)


def test_a_purchase_made_from_an_older_sheet_or_of_no_skill_is_refused() -> None:
    given = options(experience=True)
    with pytest.raises(SpecError, match="Occult is 2 now"):
        SYSTEM.buy(mara(), f"skill-{OCCULT}", given, {"before": 1})
    for key in ("skill-999", "skill-x", "ability-1", "occult"):
        with pytest.raises(SpecError, match="no purchase"):
            SYSTEM.buy(mara(), key, given)
    with pytest.raises(SpecError) as error:
        SYSTEM.offers(mara(), given, {"level": "heroic"})
    assert error.value.field == "level"


# --- The host's calls ----------------------------------------------------------------------------------------


def test_a_call_names_the_skill_and_the_sheet_finds_it_by_id() -> None:
    sheet = mara()
    call = Call(level=Level.DIFFICULT, ability="will", skill="occult", unclear=True)
    situation = SYSTEM.call_situation(sheet, call, OPTIONS)
    assert situation == {"level": "difficult", "ability": "will", "skill": OCCULT, "unclear": True}
    assert SYSTEM.situation_call(sheet, situation, OPTIONS) == Call(level=Level.DIFFICULT, ability="will",
                                                                    skill="Occult", unclear=True)  # fmt: skip
    assert SYSTEM.call_words(call, OPTIONS) == "Difficult Will + occult, the d4 in secret"
    plain = Call(level=Level.EASY, ability="brawn")
    assert SYSTEM.call_situation(sheet, plain, OPTIONS) == {"level": "easy", "ability": "brawn", "skill": None,
                                                            "unclear": False}  # fmt: skip
    assert SYSTEM.situation_call(sheet, SYSTEM.call_situation(sheet, plain, OPTIONS), OPTIONS) == plain
    assert SYSTEM.call_words(plain, OPTIONS) == "Easy Brawn"


def test_a_call_of_a_skill_the_sheet_lacks_is_refused() -> None:
    with pytest.raises(SpecError, match="no skill 'Sailing'"):
        SYSTEM.call_situation(mara(), Call(skill="Sailing"), OPTIONS)


def test_the_calls_skills_are_the_campaigns() -> None:
    choices = SYSTEM.call_choices(options(skills=[{"name": "Occult", "kind": "mental"}]))
    assert choices["skill"] == [("", "No skill"), ("Occult", "Occult")]


# --- The campaign's skills change ----------------------------------------------------------------------------


def test_a_skill_renamed_or_added_in_the_list_is_renamed_or_added_on_every_sheet() -> None:
    skills = [dict(s) for s in OPTIONS["skills"] if s["name"] != "Driving"]
    skills = [{**s, "name": "Arcana"} if s["name"] == "Occult" else s for s in skills]
    after = options(skills=[*skills, {"name": "Sailing", "kind": "physical"}])
    mara_sheet, other = mara(), finished(Athletics=4)
    change = SYSTEM.change_options(OPTIONS, after, {"Occult": "Arcana"}, [("Mara", mara_sheet), ("Ivo", other)])
    assert change.conflicts == {}
    assert change.sections == ("ratings",)
    changed = change.sheets[0]
    assert isinstance(changed, Sheet)
    arcana = changed.skill(OCCULT)
    assert arcana is not None
    assert (arcana.name, arcana.rating) == ("Arcana", 2)
    # A skill taken off the list stays on the sheet; a new one comes at 0, with a new id.
    assert skill(changed, DRIVING).name == "Driving"
    sailing = changed.skills[-1]
    assert (sailing.id, sailing.name, sailing.kind, sailing.rating) == (13, "Sailing", "physical", 0)
    assert changed.next_id == 14
    assert isinstance(change.sheets[1], Sheet)


def test_a_change_that_leaves_a_sheet_as_it_was_changes_nothing() -> None:
    change = SYSTEM.change_options(OPTIONS, options(boost=3), {}, [("Mara", mara())])
    assert change.sheets == (None,)


def test_a_skills_kind_changed_in_the_list_changes_on_every_sheet() -> None:
    skills = [{**s, "kind": "mental"} if s["name"] == "Stealth" else dict(s) for s in OPTIONS["skills"]]
    change = SYSTEM.change_options(OPTIONS, options(skills=skills), {}, [("Mara", mara())])
    (changed,) = change.sheets
    assert isinstance(changed, Sheet)
    assert next(s.kind for s in changed.skills if s.name == "Stealth") == "mental"
