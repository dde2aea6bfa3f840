"""The combat round planner (rules text, "game time", "using more than one skill", "reaction skills",
"luck points"; rules README, "D6 die codes")."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from rules.systems.base import SpecError
from rules.systems.d6.chance import p_at_least
from rules.systems.d6.codes import DieCode
from rules.systems.d6.rounds import (
    MAX_ACTIONS,
    MAX_CODE_DICE,
    MAX_REACTIONS,
    Action,
    Attempt,
    Became,
    Modifier,
    RoundError,
    RoundPlan,
    skill_key,
)

PROPERTY = settings(max_examples=80, deadline=None, derandomize=True, database=None)

BLASTER = DieCode.parse("4d+2")
DODGE = DieCode.parse("4d")


def code(text: str) -> DieCode:
    return DieCode.parse(text)


def shots(n: int, base: DieCode = BLASTER, difficulty: int | None = None) -> list[Action]:
    return [Action(f"Shot {i + 1}", "Blaster", base, difficulty) for i in range(n)]


def words(use_modifiers: tuple[Modifier, ...]) -> list[str]:
    return [str(m) for m in use_modifiers]


# The text's example.


def test_jericho_fires_three_times_dodges_after_the_first_shot() -> None:
    # "Jericho has a relic blaster and declares he's going to fire three times. He has a blaster skill
    # of 4d+2, which means he'd make three blaster attacks at 2d+2. He fires once, than is fired upon
    # and decides to dodge. His dodge skill is 4d … He now has a 1d for Dodge for this round; his last
    # two blaster shots are at 1d+2."
    plan = RoundPlan(shots(3))
    assert [u.code for u in plan.declared] == [code("2d+2")] * 3

    plan = plan.attempt(0)
    plan = plan.react("Dodge", DODGE)

    first, dodge, second, third = plan.uses
    assert (first.label, first.code, first.attempted) == ("Shot 1", code("2d+2"), True)
    assert (dodge.label, dodge.code, dodge.reaction) == ("Dodge", code("1d"), True)
    assert (second.code, third.code) == (code("1d+2"), code("1d+2"))
    assert (second.attempted, third.attempted) == (False, False)
    assert words(dodge.modifiers) == ["3 actions: −2d", "reaction: −1d"]
    assert words(first.modifiers) == ["3 actions: −2d"]
    assert plan.pending == (1, 2)
    assert not plan.finished


def test_jericho_keeps_his_penalties_as_he_finishes_the_round() -> None:
    plan = RoundPlan(shots(3)).attempt(0).react("Dodge", DODGE).attempt(1).attempt(2)

    assert [u.code for u in plan.declared] == [code("2d+2"), code("1d+2"), code("1d+2")]
    assert [u.code for u in plan.reactions] == [code("1d")]
    assert plan.finished
    assert plan.warnings == ()


# Several actions declared.


@pytest.mark.parametrize(("n", "expected"), [(1, "4d+2"), (2, "3d+2"), (3, "2d+2"), (4, "1d+2"), (5, "0d+2")])
def test_n_actions_put_every_one_at_minus_n_less_one_dice(n: int, expected: str) -> None:
    # "If you use two skills, all skill codes are reduced by 1d; three skills, a 2d penalty; four
    # skills, a 3d penalty. This applies to every skill use in that combat round."
    plan = RoundPlan(shots(n))

    assert [u.code for u in plan.declared] == [code(expected)] * n
    expected_words = [] if n == 1 else [f"{n} actions: −{n - 1}d"]
    assert all(words(u.modifiers) == expected_words for u in plan.declared)


def test_different_skills_each_take_the_count_penalty() -> None:
    plan = RoundPlan([Action("Shoot", "Blaster", BLASTER), Action("Jump", "Jumping", code("3d"))])

    assert [u.code for u in plan.declared] == [code("3d+2"), code("2d")]


# Reactions mid-round.


def test_a_reaction_only_costs_the_uses_after_it() -> None:
    plan = RoundPlan(shots(4)).attempt(0).attempt(1).react("Dodge", DODGE)

    assert [u.code for u in plan.declared] == [code("1d+2"), code("1d+2"), code("0d+2"), code("0d+2")]
    assert plan.reactions[0].code == code("0d")


def test_a_reaction_before_any_attempt_costs_every_declared_action() -> None:
    plan = RoundPlan(shots(2)).react("Dodge", DODGE)

    assert [u.code for u in plan.declared] == [code("2d+2"), code("2d+2")]
    assert plan.reactions[0].code == code("2d")


def test_a_reaction_in_a_one_action_round_puts_both_at_minus_1d() -> None:
    # README: "A reaction used in a round where one action was declared makes two uses: both at −1d
    # from then on; the declared actions must still be attempted."
    plan = RoundPlan(shots(1)).react("Dodge", DODGE)

    (shot,) = plan.declared
    assert shot.code == code("3d+2")
    assert not shot.attempted
    assert plan.reactions[0].code == code("3d")
    assert words(plan.reactions[0].modifiers) == ["reaction: −1d"]
    assert plan.pending == (0,)


def test_a_reaction_after_the_one_action_leaves_it_as_rolled() -> None:
    plan = RoundPlan(shots(1)).attempt(0).react("Dodge", DODGE)

    assert plan.declared[0].code == BLASTER
    assert plan.reactions[0].code == code("3d")


def test_two_reactions_add_a_die_each() -> None:
    plan = RoundPlan(shots(2)).react("Dodge", DODGE).react("Melee Parry", code("3d+1"))

    dodge, parry = plan.reactions
    assert dodge.code == code("2d")
    assert parry.code == code("0d+1")
    assert words(parry.modifiers) == ["2 actions: −1d", "2 reactions: −2d"]
    assert [u.code for u in plan.declared] == [code("1d+2"), code("1d+2")]


def test_with_nothing_declared_the_first_reaction_is_free() -> None:
    plan = RoundPlan().react("Dodge", DODGE).react("Dodge", DODGE)

    assert [u.code for u in plan.reactions] == [code("4d"), code("3d")]
    assert words(plan.reactions[1].modifiers) == ["2 reactions: −1d"]


def test_a_reaction_skill_is_matched_without_case_or_spacing() -> None:
    plan = RoundPlan().react("  BRAWLING   parry ", code("2d"))

    assert plan.reactions[0].skill == "BRAWLING parry"
    assert skill_key("Melee  Parry") == "melee parry"


def test_a_skill_that_is_not_a_reaction_is_refused_mid_round() -> None:
    with pytest.raises(RoundError, match="Blaster is not a reaction skill") as refused:
        RoundPlan(shots(1)).react("Blaster", BLASTER)

    assert refused.value.field == "reaction.skill"


def test_the_campaign_may_name_other_reaction_skills() -> None:
    plan = RoundPlan(shots(1), reaction_skills={"Block", "Dodge"}).react("block", code("3d"))

    assert plan.reactions[0].code == code("2d")
    with pytest.raises(RoundError):
        RoundPlan(reaction_skills={"Block"}).react("Dodge", DODGE)


def test_a_reaction_carries_its_own_label_and_difficulty() -> None:
    plan = RoundPlan().react("Dodge", DODGE, label="Dodge the mutant", difficulty=12)

    (dodge,) = plan.reactions
    assert dodge.label == "Dodge the mutant"
    assert dodge.chance == p_at_least(DODGE, 12)


def test_a_reaction_skill_may_also_be_declared_at_the_start() -> None:
    plan = RoundPlan([Action("Full dodge", "Dodge", DODGE), *shots(1)])

    assert [u.code for u in plan.declared] == [code("3d"), code("3d+2")]


# Running, wounded, stunned.


def test_running_costs_1d_on_every_use_and_is_not_an_action() -> None:
    # "If you run in the same combat round you use a skill, your skill code is reduced by 1d."
    plan = RoundPlan(shots(2), running=True).attempt(0).react("Dodge", DODGE)

    first, dodge, second = plan.uses
    assert first.code == code("2d+2")
    assert words(first.modifiers) == ["2 actions: −1d", "running: −1d"]
    assert dodge.code == code("1d")
    assert second.code == code("1d+2")


def test_running_alone_makes_no_penalty_for_the_count() -> None:
    assert RoundPlan(shots(1), running=True).declared[0].code == code("3d+2")


def test_wounded_costs_1d_on_every_use() -> None:
    # "If you are wounded when you use a skill, your skill code is reduced by 1d."
    plan = RoundPlan(shots(2), wounded=True)

    assert [u.code for u in plan.declared] == [code("2d+2")] * 2
    assert words(plan.declared[0].modifiers) == ["2 actions: −1d", "wounded: −1d"]


def test_running_and_wounded_add_up() -> None:
    plan = RoundPlan(shots(1), running=True, wounded=True)

    assert plan.declared[0].code == code("2d+2")


def test_a_wound_mid_round_costs_only_later_uses() -> None:
    plan = RoundPlan(shots(2)).attempt(0).wound()

    assert [u.code for u in plan.declared] == [code("3d+2"), code("2d+2")]
    with pytest.raises(RoundError, match="already wounded") as refused:
        plan.wound()
    assert refused.value.field == "wounded"


def test_stunned_costs_1d_from_the_moment_it_is_set() -> None:
    # Our reading: stunned is −1d from the moment the GM sets it, like a wound.
    assert RoundPlan(shots(1), stunned=True).declared[0].code == code("3d+2")

    plan = RoundPlan(shots(2)).attempt(0).stun()
    assert [u.code for u in plan.declared] == [code("3d+2"), code("2d+2")]
    assert words(plan.declared[1].modifiers) == ["2 actions: −1d", "stunned: −1d"]


def test_stunned_is_ignored_when_the_round_is_doubled() -> None:
    # "if you somehow become stunned during the round you ignore stun effects"
    plan = RoundPlan(shots(1), doubled=True).stun()

    (shot,) = plan.declared
    assert shot.code == code("9d+1")  # 4d+2 doubled: 8d+4 = 9d+1
    assert words(shot.modifiers) == ["luck point: doubled", "stunned, ignored by the luck point"]
    assert RoundPlan(shots(1), doubled=True, stunned=True).declared[0].code == code("9d+1")


def test_a_luck_point_spent_mid_round_lifts_the_stun_from_then_on() -> None:
    plan = RoundPlan(shots(2), stunned=True).attempt(0).spend_luck()

    first, second = plan.declared
    assert first.code == code("2d+2")
    assert second.code == code("8d+1")  # 9d+1 less 1d for two actions; the stun ignored
    with pytest.raises(RoundError, match="already doubles") as refused:
        plan.spend_luck()
    assert refused.value.field == "doubled"


# Preparing.


def test_preparing_adds_1d_to_the_one_prepared_skill() -> None:
    # "you make your skill roll, but get to add 1d to the roll … if you have a missle weapons skill
    # of 3d+1 … when you fire you get to roll 4d+1."
    plan = RoundPlan([Action("Aimed shot", "Missile weapons", code("3d+1"))], prepared="missile  Weapons")

    (shot,) = plan.declared
    assert shot.code == code("4d+1")
    assert words(shot.modifiers) == ["prepared: +1d"]


def test_preparation_is_refused_with_a_second_action() -> None:
    # "You can only use one skill or stat in the next round."
    with pytest.raises(RoundError, match="uses only one skill or stat") as refused:
        RoundPlan([*shots(1), Action("Jump", "Jumping", code("3d"))], prepared="Blaster")

    assert refused.value.field == "prepared"


def test_preparation_is_refused_with_two_uses_of_the_prepared_skill() -> None:
    # The text counts each use as a skill: three shots and a dodge are "four skills".
    with pytest.raises(RoundError, match="declares 2 actions"):
        RoundPlan(shots(2), prepared="Blaster")


def test_preparation_is_refused_for_another_skill() -> None:
    with pytest.raises(RoundError, match="prepared to use Blaster, not Jumping") as refused:
        RoundPlan([Action("Jump", "Jumping", code("3d"))], prepared="Blaster")

    assert refused.value.field == "prepared"


def test_a_reaction_spoils_the_preparation_of_what_is_still_to_attempt() -> None:
    plan = RoundPlan(shots(1), prepared="Blaster").react("Dodge", DODGE)

    (shot,) = plan.declared
    assert shot.code == code("3d+2")  # 4d+2, +1d lost, −1d for the reaction
    assert words(shot.modifiers) == ["reaction: −1d", "prepared, spoiled by the reaction"]
    assert plan.reactions[0].code == code("3d")
    assert plan.warnings == (
        "Dodge was a second skill use in a prepared round: the +1d for Blaster is lost from then on",
    )


def test_a_prepared_shot_already_fired_keeps_its_die() -> None:
    plan = RoundPlan(shots(1), prepared="Blaster").attempt(0).react("Dodge", DODGE)

    assert plan.declared[0].code == code("5d+2")
    assert plan.reactions[0].code == code("3d")  # the reaction never takes the +1d


def test_preparing_and_running_net_out() -> None:
    assert RoundPlan(shots(1), prepared="Blaster", running=True).declared[0].code == BLASTER


def test_a_round_of_nothing_prepares_the_next() -> None:
    assert RoundPlan().did_nothing
    assert not RoundPlan(running=True).did_nothing
    assert not RoundPlan(shots(1)).did_nothing
    assert not RoundPlan().react("Dodge", DODGE).did_nothing


# Doubling with a luck point.


def test_doubling_comes_first_then_the_penalties() -> None:
    # README: "Doubling with a luck point doubles dice and pips (3d+1 → 6d+2) first; the round's
    # penalties then apply to the doubled codes".
    skill = code("3d+1")
    plan = RoundPlan([Action("A", "Brawling", skill), Action("B", "Brawling", skill)], doubled=True)

    assert [u.code for u in plan.declared] == [code("5d+2")] * 2
    assert words(plan.declared[0].modifiers) == ["luck point: doubled", "2 actions: −1d"]
    assert RoundPlan([Action("A", "Brawling", skill)], doubled=True).declared[0].code == code("6d+2")


def test_a_luck_point_mid_round_doubles_only_what_follows() -> None:
    plan = RoundPlan(shots(3)).attempt(0).spend_luck().react("Dodge", DODGE)

    first, dodge = plan.uses[0], plan.reactions[0]
    assert first.code == code("2d+2")
    assert dodge.code == code("5d")  # 8d less 3d
    assert [u.code for u in plan.declared][1:] == [code("6d+1")] * 2  # 9d+1 less 3d


# Never below 0d.


def test_a_code_never_goes_below_0d_and_keeps_its_pips() -> None:
    # README: "Penalties … remove whole dice from the code, never below 0d".
    plan = RoundPlan([Action("Blaster", "Blaster", code("1d+2")), *shots(2)])

    blaster = plan.declared[0]
    assert blaster.code == code("0d+2")
    assert blaster.warning == "Blaster is 0d+2 after penalties: no wild die"
    assert plan.warnings == ("Blaster is 0d+2 after penalties: no wild die",)


def test_a_code_of_no_dice_and_no_pips_says_so() -> None:
    plan = RoundPlan(shots(3, base=code("2d")))

    assert plan.declared[0].code == code("0d")
    assert plan.declared[0].warning == "Shot 1 is 0d after penalties: nothing to roll"


def test_a_bonus_is_not_lost_to_the_floor() -> None:
    # Penalties and the bonus are netted first: 1d+2, −2d (reaction, wounded), +1d is 0d+2, not 1d+2.
    plan = RoundPlan([Action("Shot", "Blaster", code("1d+2"))], prepared="Blaster", wounded=True).react("Dodge", DODGE)

    assert plan.declared[0].code == code("0d+2")
    plan = RoundPlan([Action("Shot", "Blaster", code("1d+2"))], prepared="Blaster", wounded=True)
    assert plan.declared[0].code == code("1d+2")


# Exact chances.


@pytest.mark.parametrize("difficulty", [1, 5, 8, 11, 15, 20, 31])
def test_each_chance_is_p_at_least_of_the_effective_code(difficulty: int) -> None:
    plan = RoundPlan(shots(3, difficulty=difficulty)).attempt(0).react("Dodge", DODGE, difficulty=difficulty)

    for i, use in enumerate(plan.declared):
        assert plan.chance(i) == p_at_least(use.code, difficulty)
    assert plan.chance(0) == p_at_least(code("2d+2"), difficulty)
    assert plan.chance(1) == p_at_least(code("1d+2"), difficulty)
    assert plan.reactions[0].chance == p_at_least(code("1d"), difficulty)


def test_no_difficulty_no_chance() -> None:
    assert RoundPlan(shots(1)).chance(0) is None


@st.composite
def rounds(draw: st.DrawFn) -> tuple[RoundPlan, list[str]]:
    """A round of 0–4 declared actions, random conditions and a random order of events."""
    n = draw(st.sampled_from([0, 1, 1, 1, 2, 3, 4]))
    bases = draw(st.lists(st.builds(DieCode, st.integers(0, 8), st.integers(0, 2)), min_size=n, max_size=n))
    actions = [Action(f"A{i}", f"Skill {i}", base, draw(st.integers(1, 30))) for i, base in enumerate(bases)]
    flags = {name: draw(st.booleans()) for name in ("wounded", "stunned", "running", "doubled")}
    prepared = "Skill 0" if n == 1 and draw(st.booleans()) else None
    plan = RoundPlan(actions, prepared=prepared, **flags)
    steps: list[str] = []
    order = draw(st.permutations(range(n)))
    for i in order:
        for _ in range(draw(st.integers(0, 2))):
            what = draw(st.sampled_from(["react", "wound", "stun", "luck"]))
            if what == "wound" and not plan.wounded and "wound" not in steps:
                plan = plan.wound()
            elif what == "stun" and not plan.stunned and "stun" not in steps:
                plan = plan.stun()
            elif what == "luck" and not plan.doubled and "luck" not in steps:
                plan = plan.spend_luck()
            elif what == "react":
                plan = plan.react("Dodge", draw(st.builds(DieCode, st.integers(0, 8), st.integers(0, 2))))
            else:
                continue
            steps.append(what)
        plan = plan.attempt(i)
        steps.append(f"attempt {i}")
    return plan, steps


@settings(max_examples=300, deadline=None, derandomize=True, database=None)
@given(rounds())
def test_every_use_follows_the_rule_at_its_moment(drawn: tuple[RoundPlan, list[str]]) -> None:
    # An independent statement of the rule, event by event: doubled first, then −(N + R − 1)d for
    # the uses, −1d running, −1d wounded, −1d stunned unless doubled, +1d prepared until a reaction.
    plan, steps = drawn
    n = len(plan.actions)
    reactions, wounded, stunned, doubled = 0, plan.wounded, plan.stunned, plan.doubled
    made = iter(plan.uses)
    for step in steps:
        if step == "wound":
            wounded = True
            continue
        if step == "stun":
            stunned = True
            continue
        if step == "luck":
            doubled = True
            continue
        use = next(made)
        if step == "react":
            reactions += 1
        dice = -max(n + reactions - 1, 0)
        dice -= plan.running + wounded + (stunned and not doubled)
        if plan.prepared is not None and not use.reaction and reactions == 0:
            dice += 1
        start = use.base.doubled() if doubled else use.base
        assert use.code == DieCode(max(start.dice + dice, 0), start.pips)
        assert use.chance == (None if use.difficulty is None else p_at_least(use.code, use.difficulty))
    assert plan.finished
    assert len(plan.declared) == n


# Bad input.


def test_at_most_max_actions() -> None:
    assert len(RoundPlan(shots(MAX_ACTIONS)).declared) == MAX_ACTIONS
    with pytest.raises(RoundError, match=f"at most {MAX_ACTIONS} actions") as refused:
        RoundPlan(shots(MAX_ACTIONS + 1))
    assert refused.value.field == "actions"


def test_at_most_max_reactions() -> None:
    plan = RoundPlan()
    for _ in range(MAX_REACTIONS):
        plan = plan.react("Dodge", DODGE)
    with pytest.raises(RoundError, match="reactions"):
        plan.react("Dodge", DODGE)


def test_an_action_is_attempted_once_and_must_exist() -> None:
    plan = RoundPlan(shots(2)).attempt(1)

    with pytest.raises(RoundError, match=r"Shot 2 \(action 1\) was already attempted") as refused:
        plan.attempt(1)
    assert refused.value.field == "action"
    for index in (2, -1, True, "0"):
        with pytest.raises(RoundError, match="there is no action"):
            plan.attempt(index)  # type: ignore[arg-type]
    with pytest.raises(RoundError):
        plan.action(5)


@pytest.mark.parametrize(
    ("make", "field"),
    [
        (lambda: Action("", "Blaster", BLASTER), "label"),
        (lambda: Action("Shot", "  ", BLASTER), "skill"),
        (lambda: Action("Shot", "Bla\x00ster", BLASTER), "skill"),
        (lambda: Action("Shot", "B" * 61, BLASTER), "skill"),
        (lambda: Action("Shot", 3, BLASTER), "skill"),
        (lambda: Action("Shot", "Blaster", "4d+2"), "code"),
        (lambda: Action("Shot", "Blaster", DieCode(MAX_CODE_DICE + 1)), "code"),
        (lambda: Action("Shot", "Blaster", BLASTER, 0), "difficulty"),
        (lambda: Action("Shot", "Blaster", BLASTER, 1001), "difficulty"),
        (lambda: Action("Shot", "Blaster", BLASTER, True), "difficulty"),
        (lambda: Action("Shot", "Blaster", BLASTER, "10"), "difficulty"),
        (lambda: RoundPlan(["Shot"]), "actions[0]"),
        (lambda: RoundPlan("Shot"), "actions"),
        (lambda: RoundPlan(wounded=1), "wounded"),
        (lambda: RoundPlan(running="yes"), "running"),
        (lambda: RoundPlan(prepared=""), "prepared"),
        (lambda: RoundPlan(reaction_skills="Dodge"), "reaction_skills"),
        (lambda: RoundPlan().react("Dodge", "4d"), "reaction.code"),
        (lambda: RoundPlan().react("Dodge", DODGE, difficulty=-3), "reaction.difficulty"),
        (lambda: RoundPlan().react("", DODGE), "reaction.label"),
        (lambda: RoundPlan(events=[Attempt(0)]), "action"),
        (lambda: RoundPlan(events=[Became("asleep")]), "events"),  # type: ignore[arg-type]
        (lambda: RoundPlan(events=["attempt"]), "events"),
        (lambda: RoundPlan(stunned=True).stun(), "stunned"),
    ],
)
def test_bad_input_is_refused_naming_the_field(make: object, field: str) -> None:
    with pytest.raises(RoundError) as refused:
        make()  # type: ignore[operator]

    assert refused.value.field == field
    assert isinstance(refused.value, SpecError)


def test_the_largest_code_still_fits_doubled_and_prepared() -> None:
    top = DieCode(MAX_CODE_DICE, 2)
    plan = RoundPlan([Action("Lift", "Lifting", top, 1000)], prepared="Lifting", doubled=True)

    assert plan.declared[0].code == DieCode(2 * MAX_CODE_DICE + 2, 1)
    assert 0 < plan.chance(0) < 1  # type: ignore[operator]


def test_a_plan_is_frozen_and_each_step_returns_a_new_one() -> None:
    plan = RoundPlan(shots(2))
    later = plan.attempt(0)

    assert plan.events == ()
    assert later.events == (Attempt(0),)
    with pytest.raises(AttributeError):
        plan.running = True  # type: ignore[misc]
