"""Rolling D6 codes with a seeded random source (rules text, "the wild die")."""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction

import pytest

from rules.systems.d6.chance import distribution, opposed_chance, p_at_least
from rules.systems.d6.codes import DieCode
from rules.systems.d6.rolling import roll


class Scripted(random.Random):
    """A random source that returns the given faces in order."""

    def __init__(self, faces: list[int]) -> None:
        super().__init__(0)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        assert (a, b) == (1, 6)
        return self.faces.pop(0)


def test_the_wild_die_is_first_and_rerolls_every_six() -> None:
    rolled = roll(DieCode(3, 2), Scripted([6, 6, 3, 4, 6]))
    assert rolled.wild == 0
    assert rolled.wild_chain == (6, 6, 3)
    assert [d.faces for d in rolled.dice] == [(6, 6, 3), (4,), (6,)]  # a plain 6 does not reroll
    assert rolled.pips == 2
    assert rolled.total == 15 + 4 + 6 + 2
    assert rolled.margin(27) == 0
    assert rolled.succeeds(27)
    assert rolled.margin(28) == -1
    assert not rolled.succeeds(28)


def test_0d_plus_2_is_just_2() -> None:
    rng = Scripted([])
    rolled = roll(DieCode(0, 2), rng)
    assert rolled.dice == ()
    assert rolled.wild is None
    assert rolled.wild_chain == ()
    assert rolled.total == 2


def test_1d_is_the_wild_die_alone() -> None:
    rolled = roll(DieCode(1), Scripted([6, 2]))
    assert len(rolled.dice) == 1
    assert rolled.wild_chain == (6, 2)
    assert rolled.total == 8


@pytest.mark.parametrize("seed", range(5))
def test_seeded_rolls_are_whole(seed: int) -> None:
    rng = random.Random(seed)
    for _ in range(500):
        code = DieCode(rng.randint(0, 8), rng.randint(0, 2))
        rolled = roll(code, rng)
        assert len(rolled.dice) == code.dice
        assert rolled.total == sum(sum(d.faces) for d in rolled.dice) + code.pips
        chain = rolled.wild_chain
        if code.dice:
            # A 6 always continues; the chain ends on the first face below 6.
            assert all(face == 6 for face in chain[:-1])
            assert 1 <= chain[-1] <= 5
            assert all(len(d.faces) == 1 for i, d in enumerate(rolled.dice) if i != rolled.wild)


def test_the_same_seed_rolls_the_same() -> None:
    assert roll(DieCode(5, 1), random.Random(7)) == roll(DieCode(5, 1), random.Random(7))


# A fixed seed makes these deterministic; the tolerance is five standard deviations, so a
# correct engine passes for almost any seed and a wrong chance of a few percent fails.
SAMPLES = 20_000


def _within(count: int, p: Fraction) -> bool:
    expected = SAMPLES * float(p)
    spread = (SAMPLES * float(p) * (1 - float(p))) ** 0.5
    return abs(count - expected) <= 5 * spread + 1


@pytest.mark.parametrize(
    ("code", "difficulty", "seed"), [(DieCode(1), 7, 1), (DieCode(2), 13, 2), (DieCode(3, 2), 15, 3)]
)
def test_rolled_successes_match_the_exact_chance(code: DieCode, difficulty: int, seed: int) -> None:
    rng = random.Random(seed)
    successes = sum(roll(code, rng).succeeds(difficulty) for _ in range(SAMPLES))
    assert _within(successes, p_at_least(code, difficulty))


def test_rolled_totals_match_the_distribution() -> None:
    code = DieCode(2, 1)
    rng = random.Random(11)
    chart = distribution(code)
    last = chart.totals[-1][0]
    counts = Counter(min(roll(code, rng).total, last) for _ in range(SAMPLES))
    for total, p in chart.totals:
        assert _within(counts[total], p), total


def test_rolled_opposed_outcomes_match_the_exact_chance() -> None:
    attacker, defender = DieCode(3, 1), DieCode(2, 2)
    rng = random.Random(5)
    outcomes = Counter()
    for _ in range(SAMPLES):
        a, d = roll(attacker, rng).total, roll(defender, rng).total
        outcomes["win" if a > d else "tie" if a == d else "lose"] += 1
    chance = opposed_chance(attacker, defender)
    assert _within(outcomes["win"], chance.p_attacker_wins)
    assert _within(outcomes["tie"], chance.p_tie)
    assert _within(outcomes["lose"], chance.p_defender_wins)
