"""D6 behind the system protocol: the roll a sheet makes in a round (the planner's penalties, in the
roll's words), opposed rolls against another character or the GM's code, the GM's calls, what
character points buy and their refund, and a fresh import's rules."""

from __future__ import annotations

from random import Random

import pytest

from rules.systems import get
from rules.systems.base import Other, Role, SheetInvalid, SpecError
from rules.systems.d6 import round_state
from rules.systems.d6.sheet import RoundStep

D6 = get("d6")
OPTIONS = D6.validate_options({})


def talia(**changes):
    """3d in every stat; Firearms 4d+1, Dodge 4d."""
    draft = D6.new_draft(OPTIONS)
    draft = D6.fill_step(draft, "stats", {"stats": {str(s.id): "3d" for s in draft.stats}}, OPTIONS)
    ids = {s.name: s.id for s in draft.skills}
    draft = D6.fill_step(draft, "skills", {"skills": {str(ids["Firearms"]): "4d+1", str(ids["Dodge"]): "4d"}}, OPTIONS)
    sheet = D6.finish(D6.fill_step(draft, "review", {}, OPTIONS), OPTIONS)
    return sheet.model_copy(update=changes) if changes else sheet


def item(sheet, name: str) -> int:
    return next(thing.id for thing in (*sheet.stats, *sheet.skills) if thing.name == name)


@pytest.mark.parametrize(("situation", "code", "steps"), [
    ({}, "4d+1", ()),
    ({"actions": 3}, "2d+1", ("3 actions: −2d",)),
    ({"running": True}, "3d+1", ("running: −1d",)),
    ({"actions": 6}, "0d+1", ("6 actions: −5d", "Firearms (1 of 6) is 0d+1 after penalties: no wild die")),
])  # fmt: skip
def test_a_sheet_roll_takes_the_rounds_penalties_and_says_them(situation, code, steps) -> None:
    sheet = talia()
    made = D6.sheet_roll(sheet, {"item": item(sheet, "Firearms"), "difficulty": 15, **situation}, OPTIONS)
    assert made.spec["code"] == code
    assert all(step in made.steps for step in steps)
    assert made.spec.get("steps", []) == list(made.steps)


def test_wounded_and_stunned_come_from_the_sheet_and_a_luck_point_ignores_the_stun() -> None:
    sheet = talia(wounds=1, stunned=True)
    firearms = item(sheet, "Firearms")
    assert D6.sheet_roll(sheet, {"item": firearms, "difficulty": 10}, OPTIONS).spec["code"] == "2d+1"
    doubled = D6.sheet_roll(round_state.luck_doubles(sheet, OPTIONS), {"item": firearms, "difficulty": 10}, OPTIONS)
    assert doubled.spec["code"] == "7d+2"  # 8d+2 less the wound; the stun ignored


def test_the_doubling_and_the_preparation_are_the_rounds_never_the_situations() -> None:
    sheet = talia()
    firearms = item(sheet, "Firearms")
    for claimed in ({"doubled": True}, {"prepared": True}):
        with pytest.raises(SpecError):
            D6.sheet_roll(sheet, {"item": firearms, "difficulty": 15, **claimed}, OPTIONS)
    doubled = D6.sheet_roll(round_state.luck_doubles(sheet, OPTIONS), {"item": firearms, "difficulty": 15,
                                                                        "actions": 2}, OPTIONS)  # fmt: skip
    assert doubled.spec["code"] == "7d+2"
    assert list(doubled.steps) == ["luck point: doubled", "2 actions: −1d"]
    prepared = sheet.model_copy(update={"prepared": firearms})
    made = D6.sheet_roll(prepared, {"item": firearms, "difficulty": 15}, OPTIONS)
    assert (made.spec["code"], list(made.steps)) == ("5d+1", ["prepared: +1d"])
    assert D6.sheet_roll(prepared, {"item": item(sheet, "Dodge"), "difficulty": 15}, OPTIONS).spec["code"] == "4d"
    two = D6.sheet_roll(prepared, {"item": firearms, "difficulty": 15, "actions": 2}, OPTIONS)
    assert two.spec["code"] == "3d+1"  # a prepared character uses one skill: two uses take no +1d


def test_a_sheet_roll_mid_round_takes_the_rounds_count_of_uses() -> None:
    sheet = talia()
    firearms = item(sheet, "Firearms")
    sheet = round_state.declare(sheet, [(firearms, 8)] * 3, running=False, use_preparation=False, given=OPTIONS)
    made = D6.sheet_roll(sheet, {"item": item(sheet, "Dodge"), "difficulty": 10}, OPTIONS)
    # Rules text, "reaction skills": three declared and a dodge are four uses, −3d on the dodge.
    assert (made.spec["code"], list(made.steps)) == ("1d", ["3 actions: −2d", "reaction: −1d"])


def test_a_roll_from_the_roll_page_mid_round_is_a_use_of_the_declared_round_and_is_recorded_in_it() -> None:
    sheet = talia()
    firearms = item(sheet, "Firearms")
    sheet = round_state.declare(sheet, [(firearms, 8)] * 2, running=True, use_preparation=False, given=OPTIONS)
    made = D6.sheet_roll(sheet, {"item": firearms, "difficulty": 12}, OPTIONS)
    assert (made.spec["code"], list(made.steps)) == ("2d+1", ["2 actions: −1d", "running: −1d"])
    assert made.kept is not None
    assert made.kept.sections == ("round",)
    after = made.kept.sheet(41)
    assert after.round.steps[-1] == RoundStep(what="attempt", action=0, difficulty=12, roll=41)
    second = D6.sheet_roll(after, {"item": firearms, "difficulty": 12}, OPTIONS)
    assert second.kept is not None
    assert second.kept.sheet(42).round.steps[-1].action == 1
    plan = round_state.plan_of(second.kept.sheet(42), OPTIONS)
    assert plan is not None
    assert plan.finished
    with pytest.raises(SpecError, match="declared round sets the uses") as refused:
        D6.sheet_roll(after, {"item": firearms, "difficulty": 12, "actions": 3}, OPTIONS)
    assert refused.value.field == "actions"


def test_a_use_the_round_did_not_declare_counts_as_one_more_use_from_then_on() -> None:
    sheet = talia()
    firearms, perception = item(sheet, "Firearms"), item(sheet, "Perception")
    sheet = round_state.declare(sheet, [(firearms, 8)] * 2, running=False, use_preparation=False, given=OPTIONS)
    made = D6.sheet_roll(sheet, {"item": perception, "difficulty": 10}, OPTIONS)
    assert list(made.steps) == ["2 actions: −1d", "a use not declared: −1d"]
    assert made.kept is not None
    plan = round_state.plan_of(made.kept.sheet(7), OPTIONS)
    assert plan is not None
    assert [u.undeclared for u in plan.uses] == [True, False, False]
    assert [str(m) for m in plan.action(0).modifiers] == ["2 actions: −1d", "a use not declared: −1d"]


def test_the_prepared_die_is_spent_by_the_one_roll_that_takes_it() -> None:
    sheet = talia()
    firearms = item(sheet, "Firearms")
    prepared = sheet.model_copy(update={"prepared": firearms})
    made = D6.sheet_roll(prepared, {"item": firearms, "difficulty": 15}, OPTIONS)
    assert made.kept is not None
    assert made.kept.sheet(3).prepared is None
    again = D6.sheet_roll(made.kept.sheet(3), {"item": firearms, "difficulty": 15}, OPTIONS)
    assert (again.spec["code"], again.kept) == ("4d+1", None)
    other = D6.sheet_roll(prepared, {"item": item(sheet, "Dodge"), "difficulty": 15}, OPTIONS)
    assert other.kept is None  # another skill takes no +1d and spends nothing


def test_a_band_alone_gives_the_chance_at_both_ends_and_a_number_outside_it_is_refused() -> None:
    sheet = talia()
    made = D6.sheet_roll(sheet, {"item": item(sheet, "Firearms"), "band": "moderate"}, OPTIONS)
    chance = D6.roll_kinds["check"].chance_json(made.spec)
    assert set(chance) == {"p_success_at_low", "p_success_at_high"}
    with pytest.raises(SpecError, match="not in Moderate"):
        D6.sheet_roll(sheet, {"item": item(sheet, "Firearms"), "band": "moderate", "difficulty": 20}, OPTIONS)
    with pytest.raises(SpecError, match="difficulty"):
        D6.sheet_roll(sheet, {"item": item(sheet, "Firearms")}, OPTIONS)


def test_an_opposed_roll_against_another_character_or_the_gms_code() -> None:
    sheet = talia()
    jericho = Other("Jericho", talia(wounds=1))
    made = D6.sheet_roll(sheet, {"kind": "opposed", "item": item(sheet, "Dodge"), "opponent": 4},
                         OPTIONS, lambda pk: jericho if pk == 4 else None)  # fmt: skip
    assert (made.spec["attacker"], made.spec["defender"]) == ("4d", "3d")  # Jericho's Dodge 4d, wounded
    assert "Jericho (Dodge)" in made.label
    gm = D6.sheet_roll(sheet, {"kind": "opposed", "item": item(sheet, "Strength"), "opponent_code": "5d+2"}, OPTIONS)
    assert gm.spec["defender"] == "5d+2"
    rolled = D6.roll_kinds["opposed"].roll(D6.roll_kinds["opposed"].parse(gm.spec), Random(2))
    recorded = D6.roll_kinds["opposed"].record(rolled)
    assert recorded.outcome["margin"] == recorded.outcome["attacker"] - recorded.outcome["defender"]
    with pytest.raises(SpecError, match="not both"):
        D6.sheet_roll(sheet, {"kind": "opposed", "item": item(sheet, "Dodge"), "opponent": 4, "opponent_code": "2d"},
                      OPTIONS)  # fmt: skip
    with pytest.raises(SpecError, match="no stat or skill called Juggling"):
        D6.sheet_roll(sheet, {"kind": "opposed", "item": item(sheet, "Dodge"), "opponent": 4,
                              "opponent_item": "Juggling"}, OPTIONS, lambda pk: jericho)  # fmt: skip


def test_an_opposed_roll_with_no_resisting_side_ends_a_tie_in_a_draw_with_its_own_chance() -> None:
    sheet = talia()
    strength = item(sheet, "Strength")
    resisted = D6.sheet_roll(sheet, {"kind": "opposed", "item": strength, "opponent_code": "3d"}, OPTIONS)
    contest = D6.sheet_roll(sheet, {"kind": "opposed", "item": strength, "opponent_code": "3d",
                                    "no_resisting_side": True}, OPTIONS)  # fmt: skip
    assert (resisted.spec["resisting"], contest.spec["resisting"]) == (True, False)
    odds = D6.roll_kinds["opposed"].chance(D6.roll_kinds["opposed"].parse(contest.spec))
    assert ("A tie: the side that resists holds", odds.p_tie) in resisted.chances
    assert ("A draw", odds.p_tie) in contest.chances
    assert sum(p for _, p in contest.chances) == 1
    kind = D6.roll_kinds["opposed"]
    ties = [seed for seed in range(400) if (r := kind.roll(kind.parse(contest.spec), Random(seed))).attacker.total
            == r.defender.total]  # fmt: skip
    tie = kind.record(kind.roll(kind.parse(contest.spec), Random(ties[0])))
    held = kind.record(kind.roll(kind.parse(resisted.spec), Random(ties[0])))
    assert (tie.outcome["draw"], tie.outcome["hit"]) == (True, False)
    assert (held.outcome["draw"], held.outcome["hit"]) == (False, False)


def test_the_log_keeps_the_wild_die_and_its_chain() -> None:
    sheet = talia()
    made = D6.sheet_roll(sheet, {"item": item(sheet, "Firearms"), "difficulty": 15}, OPTIONS)
    kind = D6.roll_kinds["check"]
    for seed in range(40):
        recorded = kind.record(kind.roll(kind.parse(made.spec), Random(seed)))
        wild = recorded.dice[0]
        assert wild["label"] == "Wild die"
        assert wild["dice"][0]["faces"] == recorded.outcome["wild"]
        assert all(face == 6 for face in recorded.outcome["wild"][:-1])
        assert recorded.total == sum(g["total"] for g in recorded.dice)
        assert recorded.outcome["success"] == (recorded.total >= 15)


def test_a_call_names_the_stat_or_skill_and_the_difficulty() -> None:
    sheet = talia()
    call = D6.call_model(item="Firearms", band="short", difficulty=8)
    assert D6.call_words(call, OPTIONS) == "Firearms against Short (8)"
    assert D6.call_situation(sheet, call, OPTIONS)["item"] == item(sheet, "Firearms")
    with pytest.raises(SpecError, match="no stat or skill called"):
        D6.call_situation(sheet, D6.call_model(item="Juggling", difficulty=8), OPTIONS)
    with pytest.raises(SpecError, match="opposed"):
        D6.situation_call(sheet, {"kind": "opposed", "item": item(sheet, "Dodge"), "opponent_code": "3d"}, OPTIONS)


def test_a_pip_bought_and_refunded() -> None:
    sheet = talia()
    firearms = item(sheet, "Firearms")
    offers = {offer.key: offer for offer in D6.offers(sheet, OPTIONS, {"difficulty": "15"})}
    offer = offers[f"skill:{firearms}"]
    assert (offer.label, offer.cost) == ("Firearms 4d+1 → 4d+2", 4)
    assert offer.effects[0].after > offer.effects[0].before
    bought, _ = D6.buy(sheet, offer.key, OPTIONS, {"before": 13})
    assert bought.skill(firearms).code == "4d+2"
    with pytest.raises(SpecError, match="is 4d\\+2 now"):
        D6.buy(bought, offer.key, OPTIONS, {"before": 13})  # a second click buys nothing
    _, record = D6.receipt(sheet, bought, offer, OPTIONS)
    assert D6.refund(bought, record, OPTIONS).skill(firearms).code == "4d+1"
    with pytest.raises(SpecError, match="no longer"):
        D6.refund(sheet, record, OPTIONS)
    strength = item(sheet, "Strength")
    with pytest.raises(SpecError, match="no purchase"):
        D6.buy(sheet, f"skill:{strength}", OPTIONS)


def test_only_the_gm_corrects_codes_luck_and_conditions() -> None:
    sheet = talia()
    dodge = item(sheet, "Dodge")
    for section in ("codes", "luck", "conditions"):
        with pytest.raises(Exception, match="only the GM"):
            D6.edit(sheet, section, {}, role=Role.OWNER, options=OPTIONS)
    fixed = D6.edit(sheet, "codes", {"skills": {str(dodge): "4d+1"}}, role=Role.GM, options=OPTIONS)
    assert fixed.skill(dodge).code == "4d+1"
    with pytest.raises(SheetInvalid):
        D6.edit(sheet, "codes", {"skills": {str(dodge): "2d"}}, role=Role.GM, options=OPTIONS)


def test_a_fresh_import_is_held_to_the_campaigns_creation_and_starts_afresh() -> None:
    sheet = talia(wounds=1, luck_points=4)
    assert D6.fresh_problems(sheet, OPTIONS, campaign="Ruins", rolls_verified=False) == ()
    fresh, changes = D6.afresh(sheet, OPTIONS, finished=True)
    assert (fresh.luck_points, fresh.wounds) == (1, 0)
    assert "luck points from 4 to 1" in changes
    stats = [{**s.model_dump(), "code": "3d" if s.name == "Dexterity" else "5d"} for s in sheet.stats]
    greedy = D6.read_sheet({**sheet.model_dump(mode="json"), "stats": stats})
    problems = D6.fresh_problems(greedy, OPTIONS, campaign="Ruins", rolls_verified=True)
    assert any("Spend every stat die" in p.message and "Ruins" in p.message for p in problems)


def test_luck_spent_judged_by_the_gm_and_returned_at_the_adventures_end() -> None:
    sheet = talia(luck_points=3)
    sheet, words = D6.spend_luck(sheet, "double")
    assert words == "Luck point 1 spent (the GM says how heroic it was): doubled every code for the round"
    assert (sheet.luck_points, [(s.id, s.heroism) for s in sheet.luck_spends]) == (2, [(1, None)])
    sheet, words = D6.judge_luck(sheet, 1, "unheroic")
    assert words == "Luck point 1 judged unheroic: gone"
    sheet, _ = D6.spend_luck(sheet, "escape", "Through the hole in the floor")
    sheet, _ = D6.spend_luck(sheet, "escape", "Out of the window")  # never judged
    assert sheet.luck_points == 0
    with pytest.raises(SpecError, match="only a spend judged dramatic"):
        D6.grant_extra(sheet, 2)
    sheet, words = D6.judge_luck(sheet, 2, "dramatic")
    assert (
        words == "Luck point 2 judged heroic at a dramatic moment: back at the adventure's end, perhaps with one more"
    )
    with pytest.raises(SpecError, match="no luck point left"):
        D6.spend_luck(sheet, "double")
    granted, _ = D6.grant_extra(sheet, 2)
    ended, words = D6.end_adventure(granted, OPTIONS)
    assert (ended.luck_points, ended.luck_spends, words) == (
        2,
        (),
        "End of the adventure: 2 luck points back, 2 gone (unheroic or not judged); the round in play is over",
    )
    assert D6.end_adventure(ended, OPTIONS) is None  # nothing spent: nothing changes
    plain, _ = D6.end_adventure(sheet, OPTIONS)
    assert plain.luck_points == 1  # without the GM's extra point
    # The GM changes the call: no longer dramatic, the extra point goes with it.
    heroic, _ = D6.judge_luck(granted, 2, "heroic")
    assert [(s.heroism, s.extra) for s in heroic.luck_spends if s.id == 2] == [("heroic", False)]
    with pytest.raises(SpecError, match="not a luck point spent this adventure"):
        D6.judge_luck(sheet, 9, "heroic")


def test_an_adventure_holds_at_most_99_spends_and_the_100th_is_refused_plainly() -> None:
    sheet = talia(luck_points=99)
    for _ in range(99):
        sheet, _ = D6.spend_luck(sheet, "escape", "Away")
        sheet = sheet.model_copy(update={"luck_points": 1})  # the GM's correction
    with pytest.raises(SpecError, match="99 luck points are spent this adventure already") as refused:
        D6.spend_luck(sheet, "escape", "Away")
    assert refused.value.field == "points"


def test_escaping_certain_death_leaves_the_character_alive() -> None:
    dead = talia(wounds=3)
    alive, words = D6.spend_luck(dead, "escape", "The river carried me off")
    assert alive.wounds == 2  # incapacitated, never dead
    assert words.endswith("; alive, incapacitated")
    wounded, words = D6.spend_luck(talia(wounds=1), "escape", "The river carried me off")
    assert wounded.wounds == 1  # alive already: where the blow left them
    assert "alive" not in words


def test_a_version_1_sheet_keeps_its_owed_spends_as_judged() -> None:
    document = talia().model_dump(mode="json")
    del document["luck_spends"]
    owed = [{"id": 2, "kind": "escape", "heroism": "dramatic", "explanation": "Away", "extra": True}]
    old = {**document, "schema_version": 1, "luck_spent": 1, "luck_owed": owed}
    sheet = D6.read_sheet(old)
    assert sheet.schema_version == 2
    assert [(s.id, s.heroism, s.extra) for s in sheet.luck_spends] == [(2, "dramatic", True)]
    assert sheet.luck_spent == 2


def test_an_incapacitated_character_cannot_act_and_the_vitals_say_so() -> None:
    sheet = talia(wounds=2)
    vitals = D6.vitals(sheet, OPTIONS)
    assert not vitals.can_act
    assert "incapacitated" in vitals.why_not
    with pytest.raises(SpecError, match="cannot act"):
        D6.sheet_roll(sheet, {"item": item(sheet, "Dodge"), "difficulty": 10}, OPTIONS)
    wounded = D6.vitals(talia(wounds=1), OPTIONS)
    assert wounded.can_act
    assert ("wounded", "−1d to every roll") in wounded.notes
