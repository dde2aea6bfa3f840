"""Lucky 13 combat at the table, in the engine (no Django): the skill list marks the skill that fights
(rules README, "The Combat skill is a role"), the GM's situational steps and a combatant who assists
either side step an attack's dice once by their net ("Modifiers", "Characters assisting characters";
README, "The ladder", "The GM's calls"), and a newcomer takes its place in an order under way
("Initiative")."""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.dice import StepDie
from rules.systems.base import Fighter, OptionsError, SpecError
from rules.systems.lucky13 import (
    LEGACY_COMBAT_NAMES,
    PRESET_COMBAT_SKILLS,
    SKILL_PRESETS,
    Explosion,
    InitiativeEntry,
    Options,
    Sheet,
    combat_pool,
    combat_skill_name,
    preset_skills,
    validate_options,
)
from rules.systems.lucky13.campaign import change_options
from rules.systems.lucky13.combat import MAX_ROLLOFFS, join_order
from rules.systems.lucky13.encounter import (
    COMBAT,
    MAX_SITUATIONAL,
    MAX_SITUATIONAL_STEPS,
    MAX_STEP_NAME,
    Assist,
    SituationalStep,
    StatBlock,
    combat_skill,
    side_modifiers,
    situational_steps,
)
from tests.systems.lucky13.reference import brute_opposed

D = StepDie.parse


class Scripted(random.Random):
    """Dice that come up as listed, in order (each ``randint`` takes the next face)."""

    def __init__(self, *faces: int) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b, (face, a, b)
        return face


# --- The skill that fights is marked on the skill list ------------------------------------------------


def test_each_preset_marks_its_own_skill_that_fights():
    for key, (_, skills) in SKILL_PRESETS.items():
        marked = [s["name"] for s in preset_skills(key) if s["combat"]]
        assert marked == [PRESET_COMBAT_SKILLS[key]]
        assert PRESET_COMBAT_SKILLS[key] in [name for name, _ in skills]
        assert combat_skill_name(validate_options({"skill_preset": key})) == PRESET_COMBAT_SKILLS[key]


def test_a_stored_list_without_the_mark_gets_it_from_the_names_it_used_to_be_found_by():
    # Options saved before the list marked the skill that fights: each skill a name and an ability only.
    for name in ("Fighting", "weaponry", "COMBAT"):
        options = validate_options({"skills": [{"name": "Sneaking", "ability": "reflex"}, {"name": name}]})
        assert [s["combat"] for s in options["skills"]] == [False, True]
    assert {name.lower() for name in LEGACY_COMBAT_NAMES} == {"combat", "fighting", "weaponry"}
    # No skill of the old list had one of those names: none fights, as none did.
    options = validate_options({"skills": [{"name": "Swordplay"}, {"name": "Sneaking"}]})
    assert combat_skill_name(options) is None


def test_a_marked_list_is_taken_as_marked_whatever_the_names():
    options = validate_options(
        {"skills": [{"name": "Swordplay", "combat": True}, {"name": "Fighting", "combat": False}]}
    )
    assert combat_skill_name(options) == "Swordplay"
    # Once any skill says whether it fights, one that says nothing does not.
    options = validate_options({"skills": [{"name": "Sneaking", "combat": False}, {"name": "Fighting"}]})
    assert combat_skill_name(options) is None
    # Validated options read the same again (the stored form of a campaign's options).
    assert validate_options(options) == options


@pytest.mark.parametrize(
    "skills",
    [
        [{"name": "Swordplay", "combat": True}, {"name": "Archery", "combat": True}],
        [{"name": "Swordplay", "combat": "yes"}],
        [{"name": "Swordplay", "combat": 1}],
    ],
)
def test_at_most_one_skill_fights_and_the_mark_is_true_or_false(skills):
    with pytest.raises(OptionsError) as refused:
        validate_options({"skills": skills})
    assert set(refused.value.errors) == {"skills"}


def test_the_options_model_refuses_two_skills_that_fight():
    document = validate_options({})
    document["skills"] = [{**s, "combat": True} for s in document["skills"][:2]]
    with pytest.raises(ValueError, match="at most one skill"):
        Options.model_validate(document)


def _sheet(*names: str) -> Sheet:
    skills = [{"id": i, "name": name, "ability": "reflex", "die": die} for i, (name, die) in
              enumerate(zip(names, ("d6", "d8", "d10", "d12"), strict=False), 1)]  # fmt: skip
    return Sheet.model_validate({"skills": skills, "next_id": len(skills) + 1})


def test_a_sheets_combat_skill_is_the_one_the_list_marks_not_one_named_so():
    sheet = _sheet("Fighting", "Swordplay")
    marked = validate_options({"skills": [{"name": "Fighting"}, {"name": "Swordplay", "combat": True}]})
    assert combat_skill(sheet, marked).name == "Swordplay"
    assert combat_skill(sheet, validate_options({"skills": [{"name": "Fighting", "combat": False}]})) is None
    assert COMBAT.joins(sheet, marked).combat == "d8"


def test_renaming_the_skill_that_fights_keeps_it_the_combat_skill():
    before = validate_options({"skills": [{"name": "Sneaking"}, {"name": "Fighting", "combat": True}]})
    after = validate_options({"skills": [{"name": "Sneaking"}, {"name": "Swordplay", "combat": True}]})
    sheet = _sheet("Sneaking", "Fighting")
    change = change_options(before, after, {"Fighting": "Swordplay"}, [("Brunella", sheet)])
    renamed = change.sheets[0]
    assert renamed is not None
    assert (combat_skill(sheet, before).id, combat_skill(renamed, after).id) == (2, 2)
    assert combat_skill(renamed, after).name == "Swordplay"
    assert COMBAT.joins(sheet, before).combat == COMBAT.joins(renamed, after).combat == "d8"


# --- Situational steps -------------------------------------------------------------------------------


def test_situational_steps_are_read_in_order_and_blank_rows_skipped():
    choices = {
        "step_1_name": "  Cover ", "step_1_side": "defender", "step_1_die": "combat", "step_1_steps": "1",
        "step_2_name": "", "step_2_steps": "",
        "step_3_name": "Long range", "step_3_side": "attacker", "step_3_die": "reflex", "step_3_steps": "-2",
    }  # fmt: skip
    assert situational_steps(choices) == (
        SituationalStep("Cover", "defender", "combat", 1),
        SituationalStep("Long range", "attacker", "reflex", -2),
    )
    assert situational_steps({}) == ()


@pytest.mark.parametrize(
    ("row", "field"),
    [
        ({"step_2_steps": "1"}, "step_2_name"),
        ({"step_2_name": "Cover"}, "step_2_steps"),
        ({"step_2_name": "Cover", "step_2_steps": "0"}, "step_2_steps"),
        ({"step_2_name": "Cover", "step_2_steps": str(MAX_SITUATIONAL_STEPS + 1)}, "step_2_steps"),
        ({"step_2_name": "Cover", "step_2_steps": f"-{MAX_SITUATIONAL_STEPS + 1}"}, "step_2_steps"),
        ({"step_2_name": "Cover", "step_2_steps": "+1"}, "step_2_steps"),
        ({"step_2_name": "Cover", "step_2_steps": "²"}, "step_2_steps"),
        ({"step_2_name": "Cover", "step_2_steps": "1", "step_2_side": "both"}, "step_2_side"),
        ({"step_2_name": "Cover", "step_2_steps": "1", "step_2_die": "armor"}, "step_2_die"),
        ({"step_2_name": "x" * (MAX_STEP_NAME + 1), "step_2_steps": "1"}, "step_2_name"),
    ],
)
def test_a_bad_situational_step_names_its_field(row, field):
    with pytest.raises(SpecError) as refused:
        situational_steps(row)
    assert refused.value.field == field


def test_the_steps_of_every_source_add_up_then_each_die_steps_once():
    # Combat d10: Longsword 1 (+1), a helper's d6 (+2) and cover (−2) make +1: d12. Reflex d10, long range −1: d8.
    class Longsword:
        name, level = "Longsword", 1

    helper = Fighter(key=9, name="Otto", block=StatBlock(reflex="d6", combat="d6", pulse="d6", hit_points=20))
    steps = (
        SituationalStep("Cover", "attacker", "combat", -2),
        SituationalStep("Long range", "attacker", "reflex", -1),
        SituationalStep("Prone", "defender", "combat", 3),  # the other side's: not this one
    )
    modifiers = side_modifiers("attacker", Longsword(), Assist(helper, D("d6"), "skill"), steps)
    pool = combat_pool(D("d10"), D("d10"), D("d8"), modifiers)
    assert (pool.ability, pool.others) == (D("d8"), (D("d12"), D("d8")))
    # Stepping down below d4 leaves no die at all (README, "The ladder").
    blinded = (*steps[:1], SituationalStep("Blinded", "defender", "reflex", -2))
    low = combat_pool(D("d4"), D("d4"), D("none"), side_modifiers("defender", steps=blinded))
    assert low.ability == D("none")


# --- Attacks with situational steps and helpers: the exact chance ----------------------------------------

OPTIONS = validate_options({"explosion": "gritty"})


def npc(key: int, name: str, **dice: str) -> Fighter:
    block = {"reflex": "d6", "combat": "d6", "accuracy": "d6", "damage": "d6", "armor": None, "pulse": "d6"}
    block.update(dice)
    return Fighter(key=key, name=name, block=StatBlock(**block, hit_points=20))


def test_situational_steps_change_the_exact_chance_by_stepping_the_dice():
    goblin = npc(1, "Goblin", reflex="d8", combat="d6", accuracy="d8", damage="d6")
    orc = npc(2, "Orc", reflex="d6", combat="d8", armor="d6")
    choices = {
        "step_1_name": "Cover", "step_1_side": "defender", "step_1_die": "combat", "step_1_steps": "2",
        "step_2_name": "Uphill", "step_2_side": "attacker", "step_2_die": "reflex", "step_2_steps": "1",
    }  # fmt: skip
    plan = COMBAT.plan_attack(goblin, orc, choices, OPTIONS, [goblin, orc])
    # Goblin: Reflex d8 → d10, Combat d6, Accuracy d8; Orc: Reflex d6, Combat d8 → d12, Armor d6.
    reference = brute_opposed(["d10", "d6", "d8"], ["d6", "d12", "d6"], "d6", "gritty")
    assert plan.chance == reference["win"]
    assert plan.details["p_draw"] == reference["draw"]
    plain = COMBAT.plan_attack(goblin, orc, {}, OPTIONS, [goblin, orc])
    assert plain.chance == brute_opposed(["d8", "d6", "d8"], ["d6", "d8", "d6"], "d6", "gritty")["win"]
    assert plan.chance != plain.chance
    # What the Roll form sends back, and what the roll log keeps: the steps by name.
    assert (plan.choices["step_1_name"], plan.choices["step_2_steps"]) == ("Cover", "1")
    _, spec = plan.dice
    assert spec["situational"] == [
        {"name": "Cover", "side": "defender", "die": "combat", "steps": 2},
        {"name": "Uphill", "side": "attacker", "die": "reflex", "steps": 1},
    ]
    assert plan.label == "Goblin attacks Orc (Cover: Orc's Combat +2; Uphill: Goblin's Reflex +1)"
    rolled = COMBAT.roll_attack(plan, OPTIONS, random.Random(4))
    assert rolled.logged.spec["situational"] == spec["situational"]
    assert rolled.logged.chance == plan.chance


def test_an_npc_assists_with_its_combat_die_or_its_reflex_die():
    goblin = npc(1, "Goblin", reflex="d6", combat="d6", accuracy="d6")
    orc = npc(2, "Orc", reflex="d6", combat="d6")
    shaman = npc(3, "Shaman", reflex="d10", combat="d8")
    everyone = [goblin, orc, shaman]
    # "Characters assisting characters": a d8 gives 3 steps, a d10 4.
    skill = COMBAT.plan_attack(goblin, orc, {"attacker_helper": "3"}, OPTIONS, everyone)
    assert skill.chance == brute_opposed(["d6", "d12", "d6"], ["d6", "d6", "none"], "d6", "gritty")["win"]
    ability = COMBAT.plan_attack(
        goblin, orc, {"defender_helper": "3", "defender_help_with": "ability"}, OPTIONS, everyone
    )
    assert ability.chance == brute_opposed(["d6", "d6", "d6"], ["d12+d4", "d6", "none"], "d6", "gritty")["win"]
    _, spec = ability.dice
    assert spec["defender_assist"] == {"combatant": "Shaman", "die": "d10", "with": "ability", "steps": 4}
    assert spec["attacker_assist"] is None
    assert "Shaman helps Orc" in ability.label
    assert ability.choices["defender_helper"] == "3"


@pytest.mark.parametrize(
    ("choices", "field"),
    [
        ({"attacker_helper": "1"}, "attacker_helper"),  # the attacker itself
        ({"attacker_helper": "2"}, "attacker_helper"),  # the target
        ({"attacker_helper": "99"}, "attacker_helper"),  # not in the fight
        ({"attacker_helper": "x"}, "attacker_helper"),
        ({"attacker_helper": "4"}, "attacker_helper"),  # dying: cannot help
        ({"attacker_helper": "5"}, "attacker_help_with"),  # no Combat die to help with
        ({"attacker_helper": "3", "attacker_help_with": "luck"}, "attacker_help_with"),
        ({"attacker_helper": "3", "defender_helper": "3"}, "defender_helper"),
    ],
)
def test_a_bad_helper_is_refused_by_field(choices, field):
    everyone = [
        npc(1, "Goblin"),
        npc(2, "Orc"),
        npc(3, "Shaman"),
        Fighter(key=4, name="Wounded", block=StatBlock(reflex="d6", combat="d6", pulse="d6", hit_points=0)),
        npc(5, "Child", combat=None),
    ]
    with pytest.raises(SpecError) as refused:
        COMBAT.plan_attack(everyone[0], everyone[1], choices, OPTIONS, everyone)
    assert refused.value.field == field


def test_the_attack_choices_offer_everyone_as_a_helper_and_the_parts_of_a_step():
    fighters = [npc(2, "Orc"), npc(1, "Goblin", combat=None)]
    choices = COMBAT.attack_choices(fighters, OPTIONS)
    assert [(h["key"], h["name"], h["combat"]) for h in choices["helpers"]] == [(1, "Goblin", "none"), (2, "Orc", "d6")]
    assert choices["max_situational"] == MAX_SITUATIONAL
    assert {f"step_{MAX_SITUATIONAL}_steps", "attacker_helper", "defender_help_with"} <= COMBAT.attack_fields
    assert f"step_{MAX_SITUATIONAL + 1}_name" not in COMBAT.attack_fields


# --- Joining an order under way -----------------------------------------------------------------------


def entry(key: int, total: int, reflex: str = "d6") -> InitiativeEntry:
    return InitiativeEntry(key, total, D(reflex))


def test_a_newcomer_goes_before_the_first_it_outranks_and_the_order_stands():
    # The GM has moved 3 (a 9) below 2 (a 4): the order stands as it is.
    standing = [entry(1, 10), entry(2, 4), entry(3, 9), entry(4, 2)]
    order, rolloffs = join_order(standing, [entry(5, 7)], Explosion.GRITTY, Scripted())
    assert [e.key for e in order] == [1, 5, 2, 3, 4]
    assert rolloffs == ()
    order, _ = join_order(standing, [entry(5, 1)], Explosion.GRITTY, Scripted())
    assert [e.key for e in order] == [1, 2, 3, 4, 5]


def test_a_tie_goes_to_the_higher_reflex_then_to_a_roll_off():
    standing = [entry(1, 6, "d8"), entry(2, 6, "d6"), entry(3, 3)]
    # 6 on a d6 against 6 on a d8 (behind) and 6 on a d6 (a roll-off: 2 against 5, then 4 against 1).
    order, rolloffs = join_order(standing, [entry(5, 6, "d6")], Explosion.GRITTY, Scripted(2, 5))
    assert [e.key for e in order] == [1, 2, 5, 3]
    assert [(r.newcomer, r.standing, r.newcomer_totals, r.standing_totals) for r in rolloffs] == [(5, 2, (2,), (5,))]
    order, rolloffs = join_order(standing, [entry(5, 6, "d6")], Explosion.GRITTY, Scripted(3, 3, 4, 1))
    assert [e.key for e in order] == [1, 5, 2, 3]
    assert rolloffs[0].newcomer_totals == (3, 4)
    assert rolloffs[0].newcomer_first
    # A roll-off that keeps tying leaves the one already in the order ahead.
    order, rolloffs = join_order(standing[1:2], [entry(5, 6)], Explosion.GRITTY, Scripted(*[2] * 2 * MAX_ROLLOFFS))
    assert [e.key for e in order] == [2, 5]
    assert len(rolloffs[0].newcomer_totals) == MAX_ROLLOFFS


@settings(max_examples=200, deadline=None)
@given(
    standing=st.lists(st.tuples(st.integers(1, 12), st.sampled_from(["d4", "d6", "d8"])), max_size=8),
    newcomers=st.lists(st.tuples(st.integers(1, 12), st.sampled_from(["d4", "d6", "d8"])), min_size=1, max_size=4),
    seed=st.integers(0, 10_000),
)
def test_joining_keeps_both_orders_and_places_each_newcomer_by_its_roll(standing, newcomers, seed):
    present = [entry(i, total, reflex) for i, (total, reflex) in enumerate(standing, 1)]
    joining = [entry(100 + i, total, reflex) for i, (total, reflex) in enumerate(newcomers)]
    order, rolloffs = join_order(present, joining, Explosion.GRITTY, random.Random(seed))
    keys = [e.key for e in order]
    assert [k for k in keys if k < 100] == [e.key for e in present]  # nobody already there moves past anyone
    assert [k for k in keys if k >= 100] == [e.key for e in joining]
    won = {(r.newcomer, r.standing): r.newcomer_first for r in rolloffs}
    for newcomer in joining:
        place = keys.index(newcomer.key)
        rank = (newcomer.total, newcomer.reflex.rung)
        after = order[place + 1] if place + 1 < len(order) else None
        if after is not None and after.key < 100:  # it went just before one it outranks
            assert rank > (after.total, after.reflex.rung) or won.get((newcomer.key, after.key)) is True
        before = order[place - 1] if place else None
        if before is not None and before.key < 100 and (before.total, before.reflex.rung) == rank:
            assert won[(newcomer.key, before.key)] is False  # a tie it lost


def test_the_engine_join_rolls_the_newcomers_and_logs_every_roll_off():
    standing = [(npc(1, "Goblin", reflex="d6"), 5), (npc(2, "Orc", reflex="d8"), 2)]
    wolves = [npc(3, "Wolf 1", reflex="d6"), npc(4, "Wolf 2", reflex="d6")]
    # The wolves' one roll: 5, tied between them (the same d6): they roll off, 4 against 3, Wolf 1 first.
    # Wolf 1 ties with the goblin too and loses that roll-off, 2 against 4, so it goes after the goblin
    # and before the orc (a 2); Wolf 2 comes after Wolf 1, before the orc.
    rolled = COMBAT.join([wolves], standing, OPTIONS, Scripted(5, 4, 3, 2, 4))
    assert rolled.values == {3: 5, 4: 5}
    assert rolled.order == (1, 3, 4, 2)
    assert [entry.label for entry in rolled.logged] == [
        "Initiative for Wolf 1, Wolf 2",
        "Initiative roll-off for Wolf 1",
        "Initiative roll-off for Wolf 2",
        "Initiative roll-off for Wolf 1 against Goblin",
    ]
    assert [entry.outcome.get("place") for entry in rolled.logged[1:3]] == [2, 3]
    against = rolled.logged[-1]
    assert against.outcome == {"roll_offs": [2], "against_roll_offs": [4], "ahead": False, "place": 2}
    assert (against.spec["against"], against.fighter) == ("Goblin", 3)
