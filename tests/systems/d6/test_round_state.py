"""The round a D6 character is in, kept on the sheet (:mod:`rules.systems.d6.round_state`): declared, played
step by step, a condition set elsewhere counted from then, a luck point before or during it, its end and the
preparation a round of nothing makes, and a sheet whose round does not hold together refused."""

from __future__ import annotations

import pytest

from rules.systems.base import SheetInvalid
from rules.systems.d6 import round_state
from rules.systems.d6.rounds import RoundError
from rules.systems.d6.sheet import RoundStep, Sheet
from tests.systems.d6.test_system import D6, OPTIONS, item, talia


def attempt(index: int, difficulty: int | None = None) -> RoundStep:
    return RoundStep(what="attempt", action=index, difficulty=difficulty)


def dodge(sheet: Sheet, difficulty: int = 12) -> RoundStep:
    return RoundStep(what="reaction", item=item(sheet, "Dodge"), difficulty=difficulty)


def test_a_declared_round_is_played_step_by_step_and_keeps_what_was_rolled() -> None:
    """Jericho's round, kept: three shots at 2d+1, a dodge after the first at 1d, the last two at 1d+1."""
    sheet = talia()
    firearms = item(sheet, "Firearms")
    sheet = round_state.declare(sheet, [(firearms, 8)] * 3, running=False, use_preparation=False, given=OPTIONS)
    assert [str(u.code) for u in round_state.plan_of(sheet, OPTIONS).uses] == ["2d+1"] * 3
    sheet, use = round_state.take(sheet, attempt(0), OPTIONS)
    assert str(use.code) == "2d+1"
    assert use.attempted
    sheet = round_state.with_roll(sheet, 41)
    sheet, use = round_state.take(sheet, dodge(sheet), OPTIONS)
    assert str(use.code) == "1d"
    assert use.reaction
    plan = round_state.plan_of(sheet, OPTIONS)
    assert [str(u.code) for u in plan.uses] == ["2d+1", "1d", "1d+1", "1d+1"]
    assert [(s.what, s.roll) for s in sheet.round.steps] == [("attempt", 41), ("reaction", None)]
    assert round_state.begun(sheet)
    with pytest.raises(RoundError, match="declared actions stay declared"):
        round_state.declare(sheet, [(firearms, 8)], running=False, use_preparation=False, given=OPTIONS)
    with pytest.raises(RoundError, match="already attempted"):
        round_state.take(sheet, attempt(0), OPTIONS)
    assert D6.read_sheet(sheet.model_dump(mode="json")) == sheet  # the round is part of the document


def test_the_declaration_may_change_until_the_first_roll() -> None:
    sheet = talia()
    firearms = item(sheet, "Firearms")
    sheet = round_state.declare(sheet, [(firearms, 8)] * 2, running=False, use_preparation=False, given=OPTIONS)
    sheet = round_state.declare(sheet, [(firearms, 8)], running=True, use_preparation=False, given=OPTIONS)
    assert [str(u.code) for u in round_state.plan_of(sheet, OPTIONS).uses] == ["3d+1"]  # running: −1d
    with pytest.raises(RoundError, match="a reaction skill is used mid-round"):
        round_state.declare(sheet, [(item(sheet, "Dodge"), 8)], running=False, use_preparation=False, given=OPTIONS)
    with pytest.raises(RoundError, match="declare the round's actions first"):
        round_state.take(talia(), attempt(0), OPTIONS)


def test_a_reaction_with_nothing_declared_starts_a_round_of_no_actions() -> None:
    sheet, use = round_state.take(talia(), dodge(talia()), OPTIONS)
    assert str(use.code) == "4d"  # the only use: no penalty
    assert sheet.round.declared
    assert sheet.round.actions == ()
    sheet, use = round_state.take(sheet, dodge(sheet), OPTIONS)
    assert str(use.code) == "3d"


def test_a_condition_set_elsewhere_counts_from_then_and_the_next_step_records_it() -> None:
    sheet = talia()
    firearms = item(sheet, "Firearms")
    sheet = round_state.declare(sheet, [(firearms, 8)] * 2, running=False, use_preparation=False, given=OPTIONS)
    sheet, _ = round_state.take(sheet, attempt(0), OPTIONS)
    sheet = sheet.model_copy(update={"wounds": 1})  # a hit in a fight, on the sheet
    assert [str(u.code) for u in round_state.plan_of(sheet, OPTIONS).uses] == ["3d+1", "2d+1"]
    sheet, use = round_state.take(sheet, attempt(1), OPTIONS)
    assert [str(m) for m in use.modifiers] == ["2 actions: −1d", "wounded: −1d"]
    assert [s.what for s in sheet.round.steps] == ["attempt", "wounded", "attempt"]


def test_the_gm_wounds_or_stuns_now_and_a_round_not_begun_starts_so() -> None:
    sheet = talia()
    firearms = item(sheet, "Firearms")
    sheet = round_state.declare(sheet, [(firearms, 8)], running=False, use_preparation=False, given=OPTIONS)
    stunned = round_state.befall(sheet, "stunned", OPTIONS)
    assert stunned.stunned
    assert stunned.round.stunned
    assert stunned.round.steps == ()
    with pytest.raises(RoundError, match="already stunned"):
        round_state.befall(stunned, "stunned", OPTIONS)
    sheet, _ = round_state.take(sheet, attempt(0), OPTIONS)
    wounded = round_state.befall(sheet, "wounded", OPTIONS)
    assert wounded.wounds == 1
    assert [s.what for s in wounded.round.steps] == ["attempt", "wounded"]
    with pytest.raises(RoundError, match="is not a condition"):
        round_state.befall(sheet, "dead", OPTIONS)  # type: ignore[arg-type]
    incapacitated = wounded.model_copy(update={"wounds": 2})
    with pytest.raises(RoundError, match="incapacitated or dead"):
        round_state.take(incapacitated, dodge(incapacitated), OPTIONS)


def test_a_luck_point_doubles_the_next_round_or_the_rest_of_this_one_once() -> None:
    sheet = talia()
    firearms = item(sheet, "Firearms")
    before = round_state.luck_doubles(sheet, OPTIONS)
    assert round_state.doubled_now(before)
    assert round_state.plan_of(before, OPTIONS) is None
    declared = round_state.declare(before, [(firearms, 8)], running=False, use_preparation=False, given=OPTIONS)
    assert [str(u.code) for u in round_state.plan_of(declared, OPTIONS).uses] == ["8d+2"]
    with pytest.raises(RoundError, match="already doubles"):
        round_state.luck_doubles(declared, OPTIONS)
    sheet = round_state.declare(sheet, [(firearms, 8)] * 2, running=False, use_preparation=False, given=OPTIONS)
    sheet, _ = round_state.take(sheet, attempt(0), OPTIONS)
    sheet = round_state.luck_doubles(sheet, OPTIONS)
    assert [str(u.code) for u in round_state.plan_of(sheet, OPTIONS).uses] == ["3d+1", "7d+2"]
    spent, _words = D6.spend_luck(talia(), "double", given=OPTIONS)
    assert round_state.doubled_now(spent)
    assert spent.luck_points == 0


def test_a_round_of_nothing_prepares_one_skill_and_any_other_end_prepares_nothing() -> None:
    sheet = talia()
    firearms, dexterity = item(sheet, "Firearms"), item(sheet, "Dexterity")
    sheet, words = round_state.end(sheet, firearms, OPTIONS)
    assert sheet.prepared == firearms
    assert "Firearms prepared" in words
    assert round_state.prepared_name(sheet) == "Firearms"
    with pytest.raises(RoundError, match="declare one, or give up the preparation"):
        round_state.declare(sheet, [(firearms, 8)] * 2, running=False, use_preparation=True, given=OPTIONS)
    with pytest.raises(RoundError, match="the \\+1d goes only to the prepared"):
        round_state.declare(sheet, [(dexterity, 8)], running=False, use_preparation=True, given=OPTIONS)
    declared = round_state.declare(sheet, [(firearms, 8)], running=False, use_preparation=True, given=OPTIONS)
    assert [str(u.code) for u in round_state.plan_of(declared, OPTIONS).uses] == ["5d+1"]
    with pytest.raises(RoundError, match="only a round of nothing at all"):
        round_state.end(declared, firearms, OPTIONS)
    with pytest.raises(RoundError, match="is a reaction skill"):
        round_state.end(talia(), item(sheet, "Dodge"), OPTIONS)
    ended, _ = round_state.end(declared, None, OPTIONS)
    assert ended.round is None
    assert ended.prepared is None
    with pytest.raises(RoundError, match="prepared nothing"):
        round_state.declare(talia(), [(firearms, 8)], running=False, use_preparation=True, given=OPTIONS)


def test_a_sheet_roll_of_a_doubled_round_is_doubled() -> None:
    sheet = round_state.luck_doubles(talia(), OPTIONS)
    made = D6.sheet_roll(sheet, {"item": item(sheet, "Firearms"), "difficulty": 10}, OPTIONS)
    assert made.spec["code"] == "8d+2"
    assert "doubled" in D6.vitals(sheet, OPTIONS).conditions


@pytest.mark.parametrize("round_", [
    {"declared": True, "actions": [{"item": 99999, "difficulty": 8}]},
    {"declared": True, "actions": [], "steps": [{"what": "attempt", "action": 0}]},
    {"declared": False, "steps": [{"what": "luck"}]},
    {"declared": True, "steps": [{"what": "reaction", "item": 1}]},
    {"declared": True, "prepared": True},
    {"declared": True, "steps": [{"what": "reroll"}]},
])  # fmt: skip
def test_a_round_that_does_not_hold_together_is_refused(round_) -> None:
    document = talia().model_dump(mode="json") | {"round": round_}
    with pytest.raises(SheetInvalid):
        D6.read_sheet(document)


def test_a_fresh_start_is_in_no_round() -> None:
    sheet = round_state.luck_doubles(talia(), OPTIONS).model_copy(update={"prepared": item(talia(), "Firearms")})
    fresh, changes = D6.afresh(sheet, OPTIONS, finished=True)
    assert fresh.round is None
    assert fresh.prepared is None
    assert "no round in play" in changes


def test_a_heal_or_a_stun_taken_back_mid_round_frees_the_later_uses() -> None:
    sheet = talia(wounds=1)
    firearms = item(sheet, "Firearms")
    sheet = round_state.declare(sheet, [(firearms, 8)] * 2, running=False, use_preparation=False, given=OPTIONS)
    sheet, use = round_state.take(sheet, attempt(0), OPTIONS)
    assert str(use.code) == "2d+1"  # −1d two actions, −1d wounded
    sheet = sheet.model_copy(update={"wounds": 0})  # the GM heals her
    assert [str(u.code) for u in round_state.plan_of(sheet, OPTIONS).uses] == ["2d+1", "3d+1"]
    sheet, use = round_state.take(sheet, attempt(1), OPTIONS)
    assert str(use.code) == "3d+1"
    assert [s.what for s in sheet.round.steps] == ["attempt", "healed", "attempt"]
    stunned = round_state.befall(talia(), "stunned", OPTIONS)
    stunned = round_state.declare(stunned, [(firearms, 8)], running=False, use_preparation=False, given=OPTIONS)
    cleared = stunned.model_copy(update={"stunned": False})
    assert [str(u.code) for u in round_state.plan_of(cleared, OPTIONS).uses] == ["4d+1"]


def test_every_write_keeps_the_round_whole_and_a_long_name_still_fits() -> None:
    sheet = talia()
    firearms = item(sheet, "Firearms")
    sheet = round_state.declare(sheet, [(firearms, 8)] * 2, running=False, use_preparation=False, given=OPTIONS)
    assert D6.validate(sheet, OPTIONS, finished=True) == ()
    skills = tuple(s.model_copy(update={"code": "30d"}) if s.id == firearms else s for s in sheet.skills)
    past = sheet.model_copy(update={"skills": skills})  # a GM correction past what a round takes
    problems = D6.validate(past, OPTIONS, finished=True)
    assert [p.field for p in problems] == ["round"]
    assert "the round in play would break" in problems[0].message
    twice = sheet.model_copy(update={"round": sheet.round.model_copy(update={"steps": (attempt(0), attempt(0))})})
    assert [p.field for p in D6.validate(twice, OPTIONS, finished=True)] == ["round"]
    long = "A" * 60
    renamed = sheet.model_copy(update={"skills": tuple(s.model_copy(update={"name": long}) if s.id == firearms else s
                                                       for s in sheet.skills)})  # fmt: skip
    labels = [u.label for u in round_state.plan_of(renamed, OPTIONS).uses]
    assert all(len(label) == 60 and label.endswith("…") for label in labels)


def test_a_luck_point_doubles_a_characters_attack_and_defence_in_a_fight() -> None:
    from rules.systems.base import Fighter

    combat = D6.combat
    sheet = talia()
    npc = Fighter(key=2, name="Foe", block=combat.npc({"attack": "3d", "defence": "3d", "initiative": "2d"}, OPTIONS))
    plain = Fighter(key=1, name="Talia", block=combat.joins(sheet, OPTIONS), sheet=sheet, sheet_key=7)
    lucky_sheet = round_state.luck_doubles(sheet, OPTIONS)
    lucky = Fighter(key=1, name="Talia", block=combat.joins(lucky_sheet, OPTIONS), sheet=lucky_sheet, sheet_key=7)
    before = combat.plan_attack(plain, npc, {"against": "number", "difficulty": "15"}, OPTIONS)
    after = combat.plan_attack(lucky, npc, {"against": "number", "difficulty": "15"}, OPTIONS)
    assert after.details["code"] == "8d+2"
    assert before.details["code"] == "4d+1"
    assert after.chance > before.chance
    defended = combat.plan_attack(npc, lucky, {"against": "react"}, OPTIONS)
    assert defended.details["defence"] == "8d"


def test_the_adventures_end_and_the_gms_round_over_end_the_round_in_play() -> None:
    sheet, _ = D6.spend_luck(talia(), "double", given=OPTIONS)
    sheet, _ = D6.judge_luck(sheet, 1, "heroic")
    firearms = item(sheet, "Firearms")
    sheet = round_state.declare(sheet, [(firearms, 8)], running=False, use_preparation=False, given=OPTIONS)
    after, words = D6.end_adventure(sheet, OPTIONS)
    assert after.round is None
    assert after.luck_points == 1
    assert words == "End of the adventure: 1 luck point back; the round in play is over"
    assert D6.end_adventure(after, OPTIONS) is None
    nothing, _ = round_state.end(talia(), firearms, OPTIONS)
    nothing = round_state.declare(nothing, [], running=False, use_preparation=False, given=OPTIONS)
    assert round_state.round_over(nothing, OPTIONS).prepared == firearms  # a round of nothing keeps it
    acted = round_state.declare(nothing, [(firearms, 8)], running=False, use_preparation=True, given=OPTIONS)
    assert round_state.round_over(acted, OPTIONS).prepared is None


def test_a_stun_clears_by_itself_at_the_end_of_the_characters_next_round() -> None:
    # Rules README, "Stun": "−1d on every use until the end of the character's next round, then it clears".
    firearms = item(talia(), "Firearms")
    stunned = talia(stunned=True)  # stunned between rounds: the next round is the one then declared
    assert "until the end of the next round" in dict(D6.vitals(stunned, OPTIONS).notes)["stunned"]
    sheet = round_state.declare(stunned, [(firearms, 8)], running=False, use_preparation=False, given=OPTIONS)
    assert [str(u.code) for u in round_state.plan_of(sheet, OPTIONS).uses] == ["3d+1"]  # 4d+1 less the stun
    assert "until the end of this round" in dict(D6.vitals(sheet, OPTIONS).notes)["stunned"]
    after, words = round_state.end(sheet, None, OPTIONS)
    assert (after.stunned, words) == (False, "The round ended; no longer stunned")

    # Stunned mid-round: it lasts through this round and the next, and clears at the next one's end.
    sheet = round_state.declare(talia(), [(firearms, 8)] * 2, running=False, use_preparation=False, given=OPTIONS)
    sheet, _ = round_state.take(sheet, attempt(0), OPTIONS)
    sheet = round_state.befall(sheet, "stunned", OPTIONS)
    assert "until the end of the next round" in dict(D6.vitals(sheet, OPTIONS).notes)["stunned"]
    sheet, words = round_state.end(sheet, None, OPTIONS)
    assert (sheet.stunned, words) == (True, "The round ended")
    sheet = round_state.declare(sheet, [(firearms, 8)], running=False, use_preparation=False, given=OPTIONS)
    assert round_state.round_over(sheet, OPTIONS).stunned is False  # the GM's end of the round in a fight too
    passed, words = round_state.end(talia(stunned=True), None, OPTIONS)  # a round with nothing declared
    assert (passed.stunned, words) == (False, "A round passed; no longer stunned")


def test_the_sheet_shows_a_doubling_waiting_for_its_round() -> None:
    pending, _ = D6.spend_luck(talia(), "double", given=OPTIONS)
    view = D6.sheet_view(pending, OPTIONS)
    assert view["doubling"] == "A luck point doubles every code of the next round declared."
    assert ("doubled", "a luck point doubles every code of the next round declared") in D6.vitals(
        pending, OPTIONS
    ).notes
    firearms = item(pending, "Firearms")
    declared = round_state.declare(pending, [(firearms, 8)], running=False, use_preparation=False, given=OPTIONS)
    assert D6.sheet_view(declared, OPTIONS)["doubling"] == "A luck point doubles every code this round."
    assert D6.sheet_view(talia(), OPTIONS)["doubling"] == ""
