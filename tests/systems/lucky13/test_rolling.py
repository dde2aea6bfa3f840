"""Rolling with an injected random source: each roll obeys the rules, and many rolls match the exact chance."""

from __future__ import annotations

import math
import random

import pytest

from rules.dice import DieResult, StepDie, roll_die
from rules.systems.lucky13 import (
    TARGET,
    AbilityRoll,
    Check,
    CheckRoll,
    Explosion,
    Opposed,
    Pool,
    PoolRoll,
    check_chance,
    opposed_chance,
    roll_check,
    roll_opposed,
)
from rules.systems.lucky13.checks import kept_roll

LADDER_DICE = [StepDie(rung) for rung in range(12)]


def random_check(rng: random.Random, explosion: Explosion) -> Check:
    return Check(
        ability=rng.choice(LADDER_DICE),
        skill=rng.choice(LADDER_DICE),
        difficulty=rng.choice(LADDER_DICE[:6]),
        ability_roll=rng.choice(list(AbilityRoll)),
        explosion=explosion,
    )


def random_pool(rng: random.Random) -> Pool:
    return Pool(
        rng.choice(LADDER_DICE),
        tuple(rng.choice(LADDER_DICE) for _ in range(rng.randint(0, 3))),
        rng.choice(list(AbilityRoll)),
    )


def assert_chain_obeys(die: DieResult, explosion: Explosion, *, ability: bool) -> None:
    """Faces in range; explosions as the play style allows (rules README, "Cinematic", "Gritty")."""
    assert die.faces
    assert all(1 <= face <= die.sides for face in die.faces)
    assert die.value == sum(die.faces)
    assert die.imploded == (die.faces[0] == 1)
    if explosion is Explosion.CINEMATIC:
        # Again and again: every face but the last is the highest, and the last is not.
        assert all(face == die.sides for face in die.faces[:-1])
        assert die.faces[-1] < die.sides
    elif explosion is Explosion.GRITTY and ability:
        # At most once: a highest first face is rolled once more, whatever that shows.
        assert len(die.faces) == (2 if die.faces[0] == die.sides else 1)
    else:
        assert len(die.faces) == 1


def assert_pool_obeys(rolled: PoolRoll, pool: Pool, explosion: Explosion) -> None:
    assert len(rolled.ability_rolls) == (1 if pool.ability_roll is AbilityRoll.NORMAL else 2)
    for ability_roll in rolled.ability_rolls:
        assert tuple(d.sides for d in ability_roll) == pool.ability.sides
        for die in ability_roll:
            assert_chain_obeys(die, explosion, ability=True)
    assert len(rolled.others) == len(pool.others)
    for dice, step_die in zip(rolled.others, pool.others, strict=True):
        assert tuple(d.sides for d in dice) == step_die.sides
        for die in dice:
            assert_chain_obeys(die, explosion, ability=False)

    totals = [sum(d.value for d in roll) for roll in rolled.ability_rolls]
    ones = [any(d.faces[0] == 1 for d in roll) for roll in rolled.ability_rolls]
    kept = totals[rolled.kept]
    if pool.ability_roll is AbilityRoll.BACKGROUND:
        assert kept == max(totals)
        # Equal totals: the roll without a 1 is kept.
        assert not ones[rolled.kept] or all(ones[i] for i in range(2) if totals[i] == kept)
    elif pool.ability_roll is AbilityRoll.IMPAIRMENT:
        assert kept == min(totals)
        # Equal totals: the roll with a 1 is kept.
        assert ones[rolled.kept] or not any(ones[i] for i in range(2) if totals[i] == kept)
    assert rolled.ability_total == kept
    assert rolled.total == kept + sum(d.value for dice in rolled.others for d in dice)

    # A dilemma is a die whose first face is 1 among the dice that count: the kept Ability roll's
    # and the others'; the discarded Ability roll never makes one.
    counted = [*rolled.ability_rolls[rolled.kept], *(d for dice in rolled.others for d in dice)]
    assert rolled.dilemma == any(d.faces[0] == 1 for d in counted)


@pytest.mark.parametrize("explosion", list(Explosion))
@pytest.mark.parametrize("seed", range(4))
def test_rolled_checks_obey_the_rules(seed: int, explosion: Explosion) -> None:
    rng = random.Random(seed)
    for _ in range(400):
        check = random_check(rng, explosion)
        rolled = roll_check(check, rng)

        assert isinstance(rolled, CheckRoll)
        assert rolled.check == check
        assert_pool_obeys(rolled.dice, check.pool, explosion)
        assert rolled.skill == rolled.dice.others[0]
        assert rolled.difficulty == rolled.dice.others[1]
        assert rolled.success == (rolled.total >= TARGET)
        assert rolled.margin == rolled.total - TARGET
        assert rolled.dilemma == rolled.dice.dilemma


@pytest.mark.parametrize("explosion", list(Explosion))
@pytest.mark.parametrize("seed", range(4))
def test_rolled_opposed_rolls_obey_the_rules(seed: int, explosion: Explosion) -> None:
    rng = random.Random(seed)
    hits = 0
    for _ in range(300):
        opposed = Opposed(random_pool(rng), random_pool(rng), rng.choice(LADDER_DICE[:8]), explosion)
        rolled = roll_opposed(opposed, rng)

        assert_pool_obeys(rolled.attacker, opposed.attacker, explosion)
        assert_pool_obeys(rolled.defender, opposed.defender, explosion)
        assert rolled.margin == rolled.attacker.total - rolled.defender.total
        # A draw is a failed attack.
        assert rolled.hit == (rolled.attacker.total > rolled.defender.total)
        if rolled.hit:
            hits += 1
            assert tuple(d.sides for d in rolled.damage_dice) == opposed.weapon.sides
            for die in rolled.damage_dice:
                assert_chain_obeys(die, explosion, ability=False)
            assert rolled.damage == sum(d.value for d in rolled.damage_dice) + rolled.margin
            assert rolled.damage >= 1 + len(opposed.weapon.sides)
        else:
            assert rolled.damage_dice == ()
            assert rolled.damage == 0
    assert hits  # the loop did exercise hits


def ability_roll(*faces: tuple[int, ...]) -> tuple[DieResult, ...]:
    """A d12+d4 Ability roll from its two dice's faces."""
    return tuple(DieResult(sides, f) for sides, f in zip((12, 4), faces, strict=True))


@pytest.mark.parametrize("with_one_first", [True, False])
def test_on_equal_totals_a_background_keeps_the_roll_without_a_1_and_an_impairment_the_roll_with_one(
    with_one_first: bool,
) -> None:
    with_one = ability_roll((1,), (4, 2))  # 1 + 6 = 7
    without = ability_roll((5,), (2,))  # 5 + 2 = 7
    rolls = (with_one, without) if with_one_first else (without, with_one)
    skill = ((DieResult(8, (5,)),), (DieResult(6, (3,)),))

    background = PoolRoll(rolls, kept_roll(rolls, AbilityRoll.BACKGROUND), skill)
    impairment = PoolRoll(rolls, kept_roll(rolls, AbilityRoll.IMPAIRMENT), skill)

    assert background.ability_rolls[background.kept] == without
    assert not background.dilemma  # the 1 was on the discarded roll
    assert impairment.ability_rolls[impairment.kept] == with_one
    assert impairment.dilemma
    assert background.total == impairment.total == 7 + 5 + 3


def test_the_discarded_roll_never_makes_a_dilemma() -> None:
    low = ability_roll((1,), (3,))  # 4, with a 1
    high = ability_roll((12, 2), (2,))  # 16, without
    others = ((DieResult(8, (5,)),), (DieResult(6, (3,)),))
    for rolls in [(low, high), (high, low)]:
        background = PoolRoll(rolls, kept_roll(rolls, AbilityRoll.BACKGROUND), others)
        impairment = PoolRoll(rolls, kept_roll(rolls, AbilityRoll.IMPAIRMENT), others)
        assert (background.ability_total, background.dilemma) == (16, False)
        assert (impairment.ability_total, impairment.dilemma) == (4, True)
    # A 1 on a die that counts still makes one.
    skill_one = ((DieResult(8, (1,)),), (DieResult(6, (3,)),))
    assert PoolRoll((low, high), 1, skill_one).dilemma


def test_equal_totals_alike_in_their_1s_keep_the_first_roll() -> None:
    # Which of two such rolls is kept changes neither the total nor the dilemma.
    both_clean = (ability_roll((3,), (2,)), ability_roll((2,), (3,)))
    both_ones = (ability_roll((1,), (4,)), ability_roll((4,), (1,)))
    for rolls in (both_clean, both_ones):
        assert kept_roll(rolls, AbilityRoll.BACKGROUND) == kept_roll(rolls, AbilityRoll.IMPAIRMENT) == 0
    assert kept_roll((ability_roll((7,), (3,)),), AbilityRoll.NORMAL) == 0


def test_the_same_seed_gives_the_same_rolls() -> None:
    check = Check(StepDie.parse("d12+d4"), StepDie.parse("d8"), StepDie.parse("d6"), AbilityRoll.BACKGROUND)
    first = [roll_check(check, random.Random(7)) for _ in range(3)]
    assert first[0] == first[1] == first[2]


@pytest.mark.parametrize("explosion", [0, 1, 3])
def test_roll_die_explodes_at_most_the_limit(explosion: int) -> None:
    rng = random.Random(11)
    for _ in range(2000):
        die = roll_die(4, rng, explosion)
        assert len(die.faces) <= explosion + 1
        assert all(face == 4 for face in die.faces[:-1])
        if len(die.faces) < explosion + 1:
            assert die.faces[-1] < 4


@pytest.mark.parametrize(
    "check",
    [
        Check(StepDie.parse("d10"), StepDie.parse("d12"), StepDie.parse("d6"), explosion=Explosion.NONE),
        Check(
            StepDie.parse("d8"), StepDie.parse("d6"), StepDie.parse("d10"), AbilityRoll.BACKGROUND, Explosion.CINEMATIC
        ),
        Check(
            StepDie.parse("d6"), StepDie.parse("d12+d4"), StepDie.parse("d4"), AbilityRoll.IMPAIRMENT, Explosion.GRITTY
        ),
        Check(
            StepDie.parse("d4"), StepDie.parse("d4"), StepDie.parse("none"), AbilityRoll.BACKGROUND, Explosion.CINEMATIC
        ),
        Check(
            StepDie.parse("d12+d4"),
            StepDie.parse("d8"),
            StepDie.parse("d6"),
            AbilityRoll.BACKGROUND,
            Explosion.CINEMATIC,
        ),
        Check(
            StepDie.parse("d12+d12+d4"),
            StepDie.parse("d4"),
            StepDie.parse("none"),
            AbilityRoll.IMPAIRMENT,
            Explosion.CINEMATIC,
        ),
    ],
    ids=[
        "d10-d12-d6-none",
        "d8-d6-d10-background-cinematic",
        "d6-d12+d4-d4-impairment-gritty",
        "d4-d4-heroic-background-cinematic",
        "d12+d4-d8-d6-background-cinematic",
        "d12+d12+d4-d4-heroic-impairment-cinematic",
    ],
)
def test_seeded_frequencies_match_the_exact_chances(check: Check) -> None:
    # Seeded, so the outcome never changes; 5 standard errors leave room for any honest seed.
    n = 20_000
    rng = random.Random(20_240_613)
    rolls = [roll_check(check, rng) for _ in range(n)]
    chance = check_chance(check)

    for observed, p in [
        (sum(r.success for r in rolls), chance.p_success),
        (sum(r.dilemma for r in rolls), chance.p_dilemma),
        (sum(r.success and r.dilemma for r in rolls), chance.p_success_with_dilemma),
    ]:
        standard_error = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(observed / n - float(p)) <= 5 * standard_error + 1e-12


def test_seeded_opposed_frequencies_match_the_exact_chances() -> None:
    opposed = Opposed(
        Pool(StepDie.parse("d8"), (StepDie.parse("d6"),), AbilityRoll.BACKGROUND),
        Pool(StepDie.parse("d6"), (StepDie.parse("d6"),)),
        StepDie.parse("d6"),
        Explosion.GRITTY,
    )
    n = 20_000
    rng = random.Random(5)
    rolls = [roll_opposed(opposed, rng) for _ in range(n)]
    chance = opposed_chance(opposed)

    for observed, p in [
        (sum(r.hit for r in rolls), chance.p_attacker_wins),
        (sum(r.margin == 0 for r in rolls), chance.p_draw),
    ]:
        standard_error = math.sqrt(float(p) * (1 - float(p)) / n)
        assert abs(observed / n - float(p)) <= 5 * standard_error
    hits = [r.damage for r in rolls if r.hit]
    mean = sum(hits) / len(hits)
    variance = sum((x - mean) ** 2 for x in hits) / (len(hits) - 1)
    assert abs(mean - float(chance.expected_damage_given_hit)) <= 5 * math.sqrt(variance / len(hits))
