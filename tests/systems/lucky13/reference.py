"""Independent reference computations for the Lucky 13 chances.

Nothing here imports the engine: the dice of every label are written out by
hand, non-exploding chances come from enumerating every face with
``itertools.product``, exploding chances from a memoized recursion over the
dice still to roll (the total held at 13), Cinematic distributions from
following each die's chain face by face, and Cinematic opposed rolls from
float distributions explored far deeper than any chance that matters.

With a background or an impairment, every pair of Ability rolls is judged by
the rule itself (:func:`kept`): only the kept roll's dice make a dilemma, and on
equal totals a background keeps the roll without a 1, an impairment the roll
with one (rules README, "Dilemmas come only from dice that count"). Without
unlimited explosions every total is enumerated. With them, a pair whose rolls
both reach the cap needs their true totals: :func:`kept_ability` takes that
share from the fitted series of :mod:`bench.lucky13.series` (exact, and apart
from the engine), and :func:`truncated_check` from totals followed deep enough
that what it cannot decide is below 1e-12.
"""

from __future__ import annotations

import itertools
import math
from collections import Counter
from collections.abc import Sequence
from fractions import Fraction
from functools import cache

from hypothesis import settings

from bench.lucky13 import series

#: Hypothesis settings for every property: small, no deadline, and derandomized so a run never differs.
PROPERTY = settings(max_examples=60, deadline=None, derandomize=True, database=None)

TARGET = 13

#: The ladder as physical dice, written out rather than derived from the engine.
LADDER: dict[str, tuple[int, ...]] = {
    "none": (),
    "d4": (4,),
    "d6": (6,),
    "d8": (8,),
    "d10": (10,),
    "d12": (12,),
    "d12+d4": (12, 4),
    "d12+d6": (12, 6),
    "d12+d8": (12, 8),
    "d12+d10": (12, 10),
    "d12+d12": (12, 12),
    "d12+d12+d4": (12, 12, 4),
}

#: Rung of each ladder label: no die is 0, d4 is 1, d12 is 5, d12+d4 is 6.
RUNGS: dict[str, int] = {label: rung for rung, label in enumerate(LADDER)}

#: The ladder and a few larger dice, for the checks that reach past the table.
DICE: dict[str, tuple[int, ...]] = {
    **LADDER,
    "d12+d12+d6": (12, 12, 6),
    "d12+d12+d12+d6": (12, 12, 12, 6),
    "d12+d12+d12+d12+d4": (12, 12, 12, 12, 4),
}

DIFFICULTIES: dict[str, tuple[int, ...]] = {
    "easy": (12,),
    "moderate": (10,),
    "difficult": (8,),
    "challenging": (6,),
    "extraordinary": (4,),
    "heroic": (),
}

ROLLS = ("normal", "background", "impairment")
EXPLOSIONS = ("none", "cinematic", "gritty")


# --- Brute force: every face of every die, no explosions --------------------------------------


Roll = tuple[int, bool]  # (total, whether a die of it came up 1 first)


def kept(first: Roll, second: Roll, how: str) -> Roll:
    """The roll that counts of two Ability rolls: the higher total with a background, the lower
    with an impairment; on equal totals a background keeps the roll without a 1, an impairment
    the roll with one (rules README, "Dilemmas come only from dice that count")."""
    (a, a_one), (b, b_one) = first, second
    if a != b:
        return first if (a > b) == (how == "background") else second
    if a_one == b_one:
        return first
    with_one, without = (first, second) if a_one else (second, first)
    return without if how == "background" else with_one


@cache
def enumerate_ability(sides: tuple[int, ...], how: str, cap: int | None = TARGET) -> tuple[Counter, int]:
    """Counts of (total, dilemma) over every face of the Ability dice; with a
    background or an impairment, over every face of *both* rolls, the roll that
    counts chosen by :func:`kept`.

    Totals are cut at ``cap`` (when given) only after enumerating, which does
    not change whether a sum of non-negative totals reaches ``cap``.
    """
    counts: Counter = Counter()
    if how == "normal":
        for faces in itertools.product(*(range(1, s + 1) for s in sides)):
            total = sum(faces)
            counts[_cut(total, cap), 1 in faces] += 1
        return counts, math.prod(sides)
    n = len(sides)
    for faces in itertools.product(*(range(1, s + 1) for s in sides + sides)):
        first, second = faces[:n], faces[n:]
        total, one = kept((sum(first), 1 in first), (sum(second), 1 in second), how)
        counts[_cut(total, cap), one] += 1
    return counts, math.prod(sides) ** 2


def enumerate_plain(sides: tuple[int, ...], cap: int | None = TARGET) -> tuple[Counter, int]:
    """Counts of (total, dilemma) over every face of some dice rolled once, summed."""
    return enumerate_ability(sides, "normal", cap)


def _cut(total: int, cap: int | None) -> int:
    return total if cap is None else min(total, cap)


def combine_check(ability: tuple[Counter, int], rest: tuple[Counter, int]) -> tuple[Fraction, Fraction, Fraction]:
    """P(success), P(dilemma), P(success with a dilemma) of Ability + the rest against 13."""
    (a_counts, a_den), (r_counts, r_den) = ability, rest
    success = dilemma = both = 0
    for (a_total, a_flag), a_n in a_counts.items():
        for (r_total, r_flag), r_n in r_counts.items():
            n = a_n * r_n
            hit = a_total + r_total >= TARGET
            flag = a_flag or r_flag
            success += n * hit
            dilemma += n * flag
            both += n * (hit and flag)
    den = a_den * r_den
    return Fraction(success, den), Fraction(dilemma, den), Fraction(both, den)


def brute_check(ability: str, skill: str, difficulty: str, how: str) -> tuple[Fraction, Fraction, Fraction]:
    """A non-exploding check, enumerated in full (labels and difficulty names as in the tables above)."""
    rest = enumerate_plain(LADDER[skill] + DIFFICULTIES[difficulty])
    return combine_check(enumerate_ability(LADDER[ability], how), rest)


def _chains(sides: int, explosions: int) -> list[tuple[tuple[int, ...], Fraction]]:
    """Every way one die can come up with at most ``explosions`` explosions, with its chance."""
    chains: list[tuple[tuple[int, ...], Fraction]] = []

    def grow(faces: tuple[int, ...]) -> None:
        for face in range(1, sides + 1):
            now = (*faces, face)
            if face == sides and len(now) <= explosions:
                grow(now)
            else:
                chains.append((now, Fraction(1, sides ** len(now))))

    grow(())
    return chains


# --- Brute force of opposed rolls without unbounded explosions ------------------------------


def side_totals(dice: Sequence[str], how: str, explosion: str) -> dict[int, Fraction]:
    """P(total = v) of some dice, the first one the Ability die, by enumerating every face sequence.

    Gritty explodes the Ability dice once; no explosions otherwise (Cinematic is
    not handled here). With a background or an impairment, the two Ability rolls
    are enumerated separately and every pair of their totals is compared.
    """
    if explosion == "cinematic":
        raise ValueError("unbounded explosions cannot be enumerated")
    once = _chain_totals(LADDER[dice[0]], 1 if explosion == "gritty" else 0)
    if how == "normal":
        ability = once
    else:
        pick = max if how == "background" else min
        ability = {}
        for t1, p1 in once.items():
            for t2, p2 in once.items():
                ability[pick(t1, t2)] = ability.get(pick(t1, t2), 0) + p1 * p2
    rest = _chain_totals(tuple(s for label in dice[1:] for s in LADDER[label]), 0)
    out: dict[int, Fraction] = {}
    for a, pa in ability.items():
        for r, pr in rest.items():
            out[a + r] = out.get(a + r, 0) + pa * pr
    return out


@cache
def _chain_totals(sides: tuple[int, ...], explosions: int) -> dict[int, Fraction]:
    """P(total = v) of some dice rolled once each, by walking every combination of their chains."""
    out: dict[int, Fraction] = {}
    for outcome in itertools.product(*(_chains(s, explosions) for s in sides)):
        p = math.prod((chance for _, chance in outcome), start=Fraction(1))
        total = sum(sum(faces) for faces, _ in outcome)
        out[total] = out.get(total, 0) + p
    return out


def opposed_from_totals(
    attacker: dict[int, float] | dict[int, Fraction],
    defender: dict[int, float] | dict[int, Fraction],
    weapon: dict[int, float] | dict[int, Fraction],
) -> dict:
    """Win, draw, loss and the damage on a hit (weapon + margin) from the three distributions."""
    win = draw = lose = 0
    margins: dict[int, object] = {}
    for a, pa in attacker.items():
        for d, pd in defender.items():
            p = pa * pd
            if a > d:
                win += p
                margins[a - d] = margins.get(a - d, 0) + p
            elif a == d:
                draw += p
            else:
                lose += p
    damage: dict[int, object] = {}
    for m, pm in margins.items():
        for w, pw in weapon.items():
            damage[m + w] = damage.get(m + w, 0) + pm * pw
    given_hit = {x: p / win for x, p in damage.items()} if win else {}
    expected = sum(x * p for x, p in given_hit.items())
    return {"win": win, "draw": draw, "lose": lose, "damage": given_hit, "expected": expected}


def brute_opposed(
    attacker: Sequence[str],
    defender: Sequence[str],
    weapon: str,
    explosion: str = "none",
    attacker_roll: str = "normal",
    defender_roll: str = "normal",
) -> dict:
    weapon_totals = side_totals([weapon], "normal", "none")
    return opposed_from_totals(
        side_totals(attacker, attacker_roll, explosion),
        side_totals(defender, defender_roll, explosion),
        weapon_totals,
    )


# --- Exploding checks: a recursion over the dice still to roll --------------------------------


@cache
def _finish(dice: tuple[tuple[int, int | None], ...], i: int, rolled: int, total: int, flag: bool):
    """(P(success), P(dilemma), P(both)) from here: die ``i`` has shown ``rolled`` faces so far.

    ``dice`` holds (sides, explosions allowed; ``None`` for again and again).
    The running total is held at 13: once there, further explosions of the
    same die change nothing, but the later dice can still show a 1 first.
    """
    if i == len(dice):
        hit = total >= TARGET
        return (Fraction(hit), Fraction(flag), Fraction(hit and flag))
    sides, limit = dice[i]
    success = dilemma = both = Fraction(0)
    for face in range(1, sides + 1):
        new_total = min(total + face, TARGET)
        new_flag = flag or (rolled == 0 and face == 1)
        again = face == sides and (limit is None or rolled < limit) and new_total < TARGET
        s, d, b = (
            _finish(dice, i, rolled + 1, new_total, new_flag) if again else _finish(dice, i + 1, 0, new_total, new_flag)
        )
        success += s
        dilemma += d
        both += b
    return (success / sides, dilemma / sides, both / sides)


@cache
def _die_states(sides: int, limit: int | None, cap: int) -> dict[tuple[int, bool], Fraction]:
    """One die, following its chain face by face: P(min(total, cap) = v and first face 1)."""
    out: dict[tuple[int, bool], Fraction] = {}
    depth, base, reach = 0, 0, Fraction(1)
    while True:
        may_explode = limit is None or depth < limit
        for face in range(1, sides + 1):
            total = min(base + face, cap)
            if face == sides and may_explode and total < cap:
                continue  # followed on the next pass, one face deeper
            key = (total, depth == 0 and face == 1)
            out[key] = out.get(key, 0) + reach / sides
        if not may_explode or base + sides >= cap:
            return out
        depth, base, reach = depth + 1, base + sides, reach / sides


@cache
def _roll_states(dice: tuple[tuple[int, int | None], ...], cap: int) -> dict[tuple[int, bool], Fraction]:
    """P(min(total, cap) = v and dilemma flag) for some dice, adding one die at a time.

    Counted in whole numbers over a common denominator, so that deep caps stay quick.
    """
    states: dict[tuple[int, bool], int] = {(0, False): 1}
    den = 1
    for sides, limit in dice:
        one = _die_states(sides, limit, cap)
        die_den = math.lcm(*(q.denominator for q in one.values()))
        weights = [(value, imploded, int(q * die_den)) for (value, imploded), q in one.items()]
        after: dict[tuple[int, bool], int] = {}
        for (total, flag), p in states.items():
            for value, imploded, q in weights:
                key = (min(total + value, cap), flag or imploded)
                after[key] = after.get(key, 0) + p * q
        states, den = after, den * die_den
    return {key: Fraction(w, den) for key, w in states.items()}


def _limits(explosion: str) -> tuple[int | None, int | None]:
    """Explosions allowed on the Ability dice and on every other die."""
    return {"none": (0, 0), "cinematic": (None, None), "gritty": (1, 0)}[explosion]


def largest(sides: Sequence[int], limit: int) -> int:
    """The highest total of some dice, each exploding at most ``limit`` times."""
    return sum(s * (limit + 1) for s in sides)


def every_total(sides: Sequence[int], limit: int) -> dict[Roll, Fraction]:
    """P(total = v, dilemma) of one roll of some dice, each exploding at most ``limit`` times: every total."""
    return _roll_states(tuple((s, limit) for s in sides), largest(sides, limit) + 1)


def _judge_pairs(states: dict[Roll, Fraction], how: str) -> dict[Roll, Fraction]:
    """Every pair of rolls, the one that counts chosen by :func:`kept`."""
    out: dict[Roll, Fraction] = {}
    for r1, p1 in states.items():
        for r2, p2 in states.items():
            key = kept(r1, r2, how)
            out[key] = out.get(key, 0) + p1 * p2
    return out


@cache
def kept_ability(sides: tuple[int, ...], how: str, explosion: str, cap: int) -> dict[Roll, Fraction]:
    """The Ability roll that counts, exactly, its total capped at ``cap``: P(min(total, cap) = v, dilemma).

    Cached: read it, never change it."""
    limit, _ = _limits(explosion)
    dice = tuple((s, limit) for s in sides)
    if how == "normal":
        return _roll_states(dice, cap)
    if limit is not None:
        # Every total, none held: each pair is judged on its true totals.
        judged = _judge_pairs(every_total(sides, limit), how)
        out: dict[Roll, Fraction] = {}
        for (total, one), p in judged.items():
            out[min(total, cap), one] = out.get((min(total, cap), one), 0) + p
        return out
    states = _roll_states(dice, cap)
    judged = _judge_pairs(states, how)
    if not states.get((cap, True)):
        return judged  # only rolls without a 1 reach the cap: a pair of them keeps one without a 1
    # Both rolls at the cap or past it: their share with a 1 kept, from the series, replaces the held guess.
    moved = kept_over_cap(sides, cap, how == "background") - _held_guess(states, cap, how)
    judged[cap, True] += moved
    judged[cap, False] = judged.get((cap, False), 0) - moved
    return judged


def _held_guess(states: dict[Roll, Fraction], cap: int, how: str) -> Fraction:
    """What :func:`kept` gives, with totals held at the cap, for pairs that both reach it: as if tied."""
    reach_one, reach_none = states.get((cap, True), 0), states.get((cap, False), 0)
    if how == "background":
        return reach_one * reach_one
    return (reach_one + reach_none) ** 2 - reach_none * reach_none


@cache
def kept_over_cap(sides: tuple[int, ...], cap: int, higher: bool) -> Fraction:
    """P(both rolls reach the cap and the kept one has a 1), by the fitted series, fed with
    this module's own face-by-face distribution of one roll."""
    period = math.lcm(*sides)
    reach = cap + 2 * period + period * (len(sides) + series.CHECKED) + 2
    deep = _roll_states(tuple((s, None) for s in sides), reach)

    def exact(v: int) -> tuple[Fraction, Fraction]:
        if v >= reach:
            raise ValueError(f"exact only below {reach}")
        with_one = deep.get((v, True), Fraction(0))
        return deep.get((v, False), Fraction(0)) + with_one, with_one

    return series.kept_dilemma_over_cap(sides, exact, cap, higher=higher)


def _kept_totals(sides: Sequence[int], how: str, explosion: str, cap: int) -> dict[int, Fraction]:
    """P(min(kept total, cap) = v): which of two equal totals is kept does not matter here."""
    limit, _ = _limits(explosion)
    totals: dict[int, Fraction] = {}
    for (total, _), p in _roll_states(tuple((s, limit) for s in sides), cap).items():
        totals[total] = totals.get(total, 0) + p
    if how == "normal":
        return totals
    pick = max if how == "background" else min
    out: dict[int, Fraction] = {}
    for t1, p1 in totals.items():
        for t2, p2 in totals.items():
            out[pick(t1, t2)] = out.get(pick(t1, t2), 0) + p1 * p2
    return out


def exploding_check(
    ability: str, skill: str, difficulty: str, how: str, explosion: str
) -> tuple[Fraction, Fraction, Fraction]:
    """P(success), P(dilemma), P(both) of any check, explosions included, exactly."""
    _, other = _limits(explosion)
    rest = tuple((s, other) for s in DICE[skill] + DIFFICULTIES[difficulty])
    success = dilemma = both = Fraction(0)
    for (total, flag), p in kept_ability(DICE[ability], how, explosion, TARGET).items():
        s, d, b = _finish(rest, 0, 0, total, flag)
        success += p * s
        dilemma += p * d
        both += p * b
    return success, dilemma, both


def truncated_check(
    ability: str, skill: str, difficulty: str, how: str, explosion: str, depth: int
) -> tuple[tuple[Fraction, Fraction, Fraction], Fraction]:
    """The three chances with the Ability rolls followed up to ``depth``, and how far off they can be.

    Every total below ``depth`` is exact; a pair of rolls that both reach it is judged as if
    tied (:func:`kept`), so only the dilemma of those pairs is uncertain, and each chance is
    off by at most their chance, the second value.
    """
    _, other = _limits(explosion)
    judged, undecided = _truncated_kept(DICE[ability], how, explosion, depth)
    rest = tuple((s, other) for s in DICE[skill] + DIFFICULTIES[difficulty])
    success = dilemma = both = Fraction(0)
    for (total, flag), p in judged.items():
        s, d, b = _finish(rest, 0, 0, min(total, TARGET), flag)
        success += p * s
        dilemma += p * d
        both += p * b
    return (success, dilemma, both), undecided


@cache
def _truncated_kept(
    sides: tuple[int, ...], how: str, explosion: str, depth: int
) -> tuple[dict[Roll, Fraction], Fraction]:
    limit, _ = _limits(explosion)
    states = _roll_states(tuple((s, limit) for s in sides), depth)
    if how == "normal":
        return states, Fraction(0)
    reach = states.get((depth, True), 0) + states.get((depth, False), 0)
    return _judge_pairs(states, how), reach * reach


def capped_check_totals(ability: str, skill: str, difficulty: str, how: str, explosion: str, cap: int):
    """P(min(total, cap) = v) of a check, explosions included."""
    _, other = _limits(explosion)
    rest = _roll_states(tuple((s, other) for s in LADDER[skill] + DIFFICULTIES[difficulty]), cap)
    out: dict[int, Fraction] = {}
    for a, pa in _kept_totals(LADDER[ability], how, explosion, cap).items():
        for (r, _), pr in rest.items():
            v = min(a + r, cap)
            out[v] = out.get(v, 0) + pa * pr
    return out


# --- Cinematic opposed rolls: floats, explored deep enough to leave nothing that matters -----

#: Totals above this are dropped: a d4 reaching it has exploded 60 times (a chance of 4**-60, about 1e-36).
FLOAT_LIMIT = 240


def _exploding_floats(sides: int) -> list[float]:
    """P(total = v) of one die exploding again and again, for v up to FLOAT_LIMIT."""
    out = [0.0] * (FLOAT_LIMIT + 1)
    j = 0
    while j * sides + 1 <= FLOAT_LIMIT:
        p = float(sides) ** -(j + 1)
        for r in range(1, sides):
            if j * sides + r <= FLOAT_LIMIT:
                out[j * sides + r] += p
        j += 1
    return out


def _convolve(a: list[float], b: list[float]) -> list[float]:
    out = [0.0] * (FLOAT_LIMIT + 1)
    b_support = [(j, q) for j, q in enumerate(b) if q]
    for i, p in enumerate(a):
        if not p:
            continue
        for j, q in b_support:
            if i + j > FLOAT_LIMIT:
                break
            out[i + j] += p * q
    return out


def _zero() -> list[float]:
    out = [0.0] * (FLOAT_LIMIT + 1)
    out[0] = 1.0
    return out


def cinematic_side(dice: Sequence[str], how: str) -> list[float]:
    """P(total = v) of one side with every die exploding again and again."""
    ability = _zero()
    for s in LADDER[dice[0]]:
        ability = _convolve(ability, _exploding_floats(s))
    if how != "normal":
        # P(max = v) = p(v)·(F(v) + F(v-1)) and P(min = v) = p(v)·(S(v-1) + S(v)), with S(v) = P(total > v):
        # products of positive numbers, so even the far tail keeps its relative precision.
        below = [0.0, *itertools.accumulate(ability)]  # below[v] = P(total < v)
        above = [*reversed(list(itertools.accumulate(reversed(ability)))), 0.0]  # above[v] = P(total ≥ v)
        if how == "background":
            ability = [p * (below[v] + below[v + 1]) for v, p in enumerate(ability)]
        else:
            ability = [p * (above[v] + above[v + 1]) for v, p in enumerate(ability)]
    total = ability
    for label in dice[1:]:
        for s in LADDER[label]:
            total = _convolve(total, _exploding_floats(s))
    return total


def cinematic_opposed(
    attacker: Sequence[str],
    defender: Sequence[str],
    weapon: str,
    attacker_roll: str = "normal",
    defender_roll: str = "normal",
) -> dict:
    """Floats: the dropped totals all lie beyond FLOAT_LIMIT, far below 1e-15 in chance."""
    weapon_dist = _zero()
    for s in LADDER[weapon]:
        weapon_dist = _convolve(weapon_dist, _exploding_floats(s))

    def as_dict(weights: list[float]) -> dict[int, float]:
        return {v: p for v, p in enumerate(weights) if p}

    return opposed_from_totals(
        as_dict(cinematic_side(attacker, attacker_roll)),
        as_dict(cinematic_side(defender, defender_roll)),
        as_dict(weapon_dist),
    )
