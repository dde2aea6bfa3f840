"""Lucky 13 rolls: the dice of a check or an opposed roll, rolling them, their exact chances,
and the specs of the chance interface ("Skill checks", "Opposed rolls", "Exploding & imploding dice")."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from typing import TYPE_CHECKING, Any, Final, TypeVar, cast

from rules.dice import UNLIMITED, DiceError, DieResult, StepDie, roll_die
from rules.probability import (
    Capped,
    add_all,
    capped_sum,
    convolve,
    die,
    keep,
    keep_totals,
    kept_dilemma_over_cap,
    success_split,
    suffix_sums,
)
from rules.systems.protocol.errors import SpecError

if TYPE_CHECKING:  # rolling takes a source of randomness; the chance of a roll needs none
    from random import Random

E = TypeVar("E", bound=StrEnum)


#: "Skill checks always require a 13 to succeed."
TARGET: Final = 13


#: Opposed rolls with Cinematic explosions are summed until what is left out is below this.
OPPOSED_TOLERANCE: Final = Fraction(1, 10**14)


#: Largest net number of steps a spec may ask for, each way.
MAX_STEPS: Final = 20


#: Largest number of dice on one side of an opposed roll, as listed and as rolled
#: (d12+d4 is two): past any table's need, and it keeps a spec from tying up the server.
MAX_POOL: Final = 8


MAX_POOL_DICE: Final = 12


class Explosion(StrEnum):
    """Which dice explode ("Exploding & imploding dice", "Cinematic", "Gritty")."""

    NONE = "none"
    CINEMATIC = "cinematic"
    GRITTY = "gritty"

    @property
    def ability_explosions(self) -> int:
        return _ABILITY_EXPLOSIONS[self.value]

    @property
    def other_explosions(self) -> int:
        """Skill, Difficulty, weapon and defensive dice: only Cinematic explodes them."""
        return UNLIMITED if self is Explosion.CINEMATIC else 0


#: How many times an Ability die explodes, by the explosion rule's value.
_ABILITY_EXPLOSIONS: Final = {"none": 0, "cinematic": UNLIMITED, "gritty": 1}


class AbilityRoll(StrEnum):
    """ "Backgrounds" and "Impairments": roll the Ability die twice, keep the higher or lower."""

    NORMAL = "normal"
    BACKGROUND = "background"
    IMPAIRMENT = "impairment"


#: The ways to roll the Ability die, in words for a form's choices.
ABILITY_ROLL_CHOICES: Final = (
    (AbilityRoll.NORMAL.value, "Normal"),
    (AbilityRoll.BACKGROUND.value, "Background (roll Ability twice, keep higher)"),
    (AbilityRoll.IMPAIRMENT.value, "Impairment (roll Ability twice, keep lower)"),
)


class Difficulty(StrEnum):
    """ "Difficulty": the smaller the die, the harder the task; Heroic has none."""

    EASY = "easy"
    MODERATE = "moderate"
    DIFFICULT = "difficult"
    CHALLENGING = "challenging"
    EXTRAORDINARY = "extraordinary"
    HEROIC = "heroic"

    @property
    def die(self) -> StepDie:
        return _DIFFICULTY_DICE[self]


_DIFFICULTY_DICE: Final = {
    Difficulty.EASY: StepDie.of(12),
    Difficulty.MODERATE: StepDie.of(10),
    Difficulty.DIFFICULT: StepDie.of(8),
    Difficulty.CHALLENGING: StepDie.of(6),
    Difficulty.EXTRAORDINARY: StepDie.of(4),
    Difficulty.HEROIC: StepDie.none(),
}

#: Each difficulty's die by its name, as a spec gives it.
_DIFFICULTY_BY_NAME: Final = {difficulty.value: die for difficulty, die in _DIFFICULTY_DICE.items()}


@dataclass(frozen=True, slots=True)
class Pool:
    """One side's dice: an Ability die (rolled twice with a background or an
    impairment, and the only die Gritty play explodes) and the other dice."""

    ability: StepDie
    others: tuple[StepDie, ...] = ()
    ability_roll: AbilityRoll = AbilityRoll.NORMAL

    @property
    def dice(self) -> tuple[StepDie, ...]:
        return (self.ability, *self.others)

    def maximum(self, explosion: Explosion) -> int | None:
        """The highest total, or ``None`` when explosions leave it unbounded."""
        if explosion is Explosion.CINEMATIC and (self.ability.rung or any(d.rung for d in self.others)):
            return None
        per_ability_die = 2 if explosion is Explosion.GRITTY else 1
        return self.ability.maximum * per_ability_die + sum(d.maximum for d in self.others)


@dataclass(frozen=True, slots=True)
class Check:
    """A skill check: Ability + Skill + Difficulty against 13 ("Skill checks")."""

    ability: StepDie
    skill: StepDie
    difficulty: StepDie
    ability_roll: AbilityRoll = AbilityRoll.NORMAL
    explosion: Explosion = Explosion.CINEMATIC

    @property
    def pool(self) -> Pool:
        return Pool(self.ability, (self.skill, self.difficulty), self.ability_roll)


class Draw(StrEnum):
    """Who a draw goes to (rules README, "Contests outside combat"): the side that resists, the
    status quo (the defender: "A draw is considered a failed attack"; or the side that rolls first,
    holding a door), or neither, in a contest with no resisting side (a race), where a draw is a draw."""

    DEFENDER = "defender"
    ATTACKER = "attacker"
    NONE = "none"


@dataclass(frozen=True, slots=True)
class Opposed:
    """An opposed roll ("Opposed rolls", "Combat"): the higher total wins, a draw
    goes as ``draw`` says (a failed attack in a fight), and a hit deals the weapon's
    damage die + the margin."""

    attacker: Pool
    defender: Pool
    weapon: StepDie
    explosion: Explosion = Explosion.CINEMATIC
    draw: Draw = Draw.DEFENDER


@dataclass(frozen=True, slots=True)
class PoolRoll:
    """A pool as rolled: every die with its explosions; both Ability rolls when two were made."""

    ability_rolls: tuple[tuple[DieResult, ...], ...]
    kept: int
    others: tuple[tuple[DieResult, ...], ...]

    @property
    def ability_total(self) -> int:
        return sum(d.value for d in self.ability_rolls[self.kept])

    @property
    def total(self) -> int:
        return self.ability_total + sum(d.value for dice in self.others for d in dice)

    @property
    def dilemma(self) -> bool:
        """A die that counts came up 1 first ("Dilemmas"): one of the kept Ability roll or
        of the other dice; the discarded Ability roll never makes a dilemma (rules README,
        "Dilemmas come only from dice that count")."""
        counted = [*self.ability_rolls[self.kept], *(d for dice in self.others for d in dice)]
        return any(d.imploded for d in counted)


@dataclass(frozen=True, slots=True)
class CheckRoll:
    check: Check
    dice: PoolRoll

    @property
    def ability(self) -> tuple[tuple[DieResult, ...], ...]:
        return self.dice.ability_rolls

    @property
    def skill(self) -> tuple[DieResult, ...]:
        return self.dice.others[0]

    @property
    def difficulty(self) -> tuple[DieResult, ...]:
        return self.dice.others[1]

    @property
    def total(self) -> int:
        return self.dice.total

    @property
    def success(self) -> bool:
        return self.total >= TARGET

    @property
    def margin(self) -> int:
        """How far the total is above (or below, negative) 13."""
        return self.total - TARGET

    @property
    def dilemma(self) -> bool:
        return self.dice.dilemma


@dataclass(frozen=True, slots=True)
class OpposedRoll:
    opposed: Opposed
    attacker: PoolRoll
    defender: PoolRoll
    damage_dice: tuple[DieResult, ...]  # empty unless the attack hit

    @property
    def hit(self) -> bool:
        return self.attacker.total > self.defender.total

    @property
    def margin(self) -> int:
        return self.attacker.total - self.defender.total

    @property
    def damage(self) -> int:
        return sum(d.value for d in self.damage_dice) + self.margin if self.hit else 0

    @property
    def winner(self) -> str:
        """ "attacker" or "defender", the higher total or, on a draw, the side it goes to; "" for a
        draw that goes to neither side (:class:`Draw`)."""
        if self.margin:
            return "attacker" if self.margin > 0 else "defender"
        return "" if self.opposed.draw is Draw.NONE else self.opposed.draw.value


def _roll_step_die(step_die: StepDie, rng: Random, explosions: int) -> tuple[DieResult, ...]:
    return tuple(roll_die(sides, rng, explosions) for sides in step_die.sides)


def kept_roll(ability_rolls: tuple[tuple[DieResult, ...], ...], how: AbilityRoll) -> int:
    """Which Ability roll counts: the higher total with a background, the lower with an
    impairment; on equal totals a background keeps the roll without a 1, an impairment
    the roll with one (rules README, "Dilemmas come only from dice that count"), and
    otherwise the first."""

    def rank(i: int) -> tuple[int, bool]:
        total = sum(d.value for d in ability_rolls[i])
        with_a_one = any(d.imploded for d in ability_rolls[i])
        return (total, not with_a_one) if how is AbilityRoll.BACKGROUND else (-total, with_a_one)

    return max(range(len(ability_rolls)), key=rank)


def roll_pool(pool: Pool, explosion: Explosion, rng: Random) -> PoolRoll:
    """Roll a pool; with a background or an impairment the whole Ability die is
    rolled twice, each roll with its own explosions, and one kept (:func:`kept_roll`)."""
    times = 1 if pool.ability_roll is AbilityRoll.NORMAL else 2
    ability_rolls = tuple(_roll_step_die(pool.ability, rng, explosion.ability_explosions) for _ in range(times))
    others = tuple(_roll_step_die(d, rng, explosion.other_explosions) for d in pool.others)
    return PoolRoll(ability_rolls, kept_roll(ability_rolls, pool.ability_roll), others)


def roll_check(check: Check, rng: Random) -> CheckRoll:
    return CheckRoll(check, roll_pool(check.pool, check.explosion, rng))


def roll_opposed(opposed: Opposed, rng: Random) -> OpposedRoll:
    attacker = roll_pool(opposed.attacker, opposed.explosion, rng)
    defender = roll_pool(opposed.defender, opposed.explosion, rng)
    damage: tuple[DieResult, ...] = ()
    if attacker.total > defender.total:
        damage = _roll_step_die(opposed.weapon, rng, opposed.explosion.other_explosions)
    return OpposedRoll(opposed, attacker, defender, damage)


@dataclass(frozen=True, slots=True)
class CheckChance:
    p_success: Fraction
    p_dilemma: Fraction
    p_success_with_dilemma: Fraction


@dataclass(frozen=True, slots=True)
class Distribution:
    """P(total = v) for each total; when ``open_ended`` the last entry is P(total ≥ v)."""

    totals: tuple[tuple[int, Fraction], ...]
    open_ended: bool


@dataclass(frozen=True, slots=True)
class OpposedChance:
    """``p_attacker_wins`` and ``p_defender_wins`` are the higher total; ``p_draw`` equal totals, which
    go as the roll's :class:`Draw` says (``p_attacker_prevails``, ``p_defender_prevails``). Each side's
    chance of a dilemma is exact even with Cinematic explosions (only first faces count)."""

    p_attacker_wins: Fraction
    p_draw: Fraction
    p_defender_wins: Fraction
    damage_given_hit: tuple[tuple[int, Fraction], ...]
    expected_damage_given_hit: Fraction
    exact: bool  # False when Cinematic explosions made it a bounded sum (error below 1e-12)
    p_attacker_prevails: Fraction
    p_defender_prevails: Fraction
    p_attacker_dilemma: Fraction
    p_defender_dilemma: Fraction


@lru_cache(maxsize=4096)
def _step_die_dist(step_die: StepDie, explosions: int, cap: int) -> Capped:
    return add_all((die(s, explosions, cap) for s in step_die.sides), cap)


@lru_cache(maxsize=4096)
def _ability_dist(ability: StepDie, how: AbilityRoll, explosions: int, cap: int) -> Capped:
    """The Ability roll that counts, capped, with whether it has a dilemma ("Backgrounds",
    "Impairments"; rules README, "Dilemmas come only from dice that count").

    When both rolls reach the cap, the kept one is found by their true totals: only a
    stepped die (two dice or more) can reach the cap with a 1, and then the chance that the
    kept roll has it comes from :func:`rules.probability.kept_dilemma_over_cap`, exact in
    every explosion mode.
    """
    once = _step_die_dist(ability, explosions, cap)
    if how is AbilityRoll.NORMAL:
        return once
    higher = how is AbilityRoll.BACKGROUND
    over_cap = Fraction(0)
    if once.flagged[cap]:
        over_cap = kept_dilemma_over_cap(ability.sides, explosions, cap, higher=higher)
    return keep(once, higher=higher, over_cap=over_cap)


@lru_cache(maxsize=4096)
def _others_dist(others: tuple[StepDie, ...], explosions: int, cap: int) -> Capped:
    return add_all((_step_die_dist(step_die, explosions, cap) for step_die in others), cap)


def _pool_parts(pool: Pool, explosion: Explosion, cap: int) -> tuple[Capped, Capped]:
    ability = _ability_dist(pool.ability, pool.ability_roll, explosion.ability_explosions, cap)
    return ability, _others_dist(pool.others, explosion.other_explosions, cap)


@lru_cache(maxsize=4096)
def pool_dilemma(pool: Pool, explosion: Explosion) -> Fraction:
    """P(a die that counts comes up 1 first) for one side of an opposed roll ("Dilemmas"; rules
    README, "Dilemmas come only from dice that count": with a background or an impairment, only the
    kept Ability roll). Exact in every explosion mode: it is the chance of a check's dilemma."""
    ability, rest = _pool_parts(pool, explosion, TARGET)
    return 1 - Fraction(sum(ability.plain), ability.den) * Fraction(sum(rest.plain), rest.den)


def _pool_totals(pool: Pool, explosion: Explosion, cap: int) -> tuple[list[int], int]:
    """Weights of a pool's capped total, and their denominator: all that the distribution of
    totals and opposed rolls need. Which Ability roll counts for a dilemma does not change the
    kept total, so this skips finding it."""
    once = _step_die_dist(pool.ability, explosion.ability_explosions, cap)
    ability, den = once.merged(), once.den
    if pool.ability_roll is not AbilityRoll.NORMAL:
        ability, den = keep_totals(ability, higher=pool.ability_roll is AbilityRoll.BACKGROUND), den * den
    rest = _others_dist(pool.others, explosion.other_explosions, cap)
    return capped_sum(ability, rest.merged(), cap), den * rest.den


@lru_cache(maxsize=8192)
def check_chance(check: Check) -> CheckChance:
    """P(total ≥ 13), P(a die that counts imploded) and P(both), exact even with explosions.

    Only ``min(total, 13)`` decides success, so every distribution is capped at
    13 (rules README, "Exact odds"); with a background or an impairment, whether
    the kept Ability roll has a dilemma is exact too (:func:`_ability_dist`).
    """
    ability, rest = _pool_parts(check.pool, check.explosion, TARGET)
    return CheckChance(*success_split(ability, rest))


def check_distribution(check: Check) -> Distribution:
    """The distribution of totals for display; with Cinematic explosions the
    last bar is "this total or more" (it stays exact)."""
    pool = check.pool
    highest = pool.maximum(check.explosion)
    if highest is not None:
        cap = highest + 1
    else:
        # Past the largest total without explosions, a dozen more bars show the tail; the rest is one bar.
        cap = max(pool.maximum(Explosion.NONE) + 13, 2 * TARGET)  # type: ignore[operator]
    weights, den = _pool_totals(pool, check.explosion, cap)
    last = cap if highest is None else highest
    totals = tuple((v, Fraction(weights[v], den)) for v in range(last + 1) if weights[v] or v == last)
    lowest = next(i for i, (_, p) in enumerate(totals) if p)
    return Distribution(totals[lowest:], open_ended=highest is None)


@lru_cache(maxsize=256)
def opposed_chance(opposed: Opposed) -> OpposedChance:
    """P(attacker wins), P(draw) and the damage on a hit: exact without
    Cinematic explosions; with them, summed until the part left out is below
    1e-14 of the chance to hit, then shown as the nearest fraction with a
    denominator below 10**15 (rules README, "Exact odds")."""
    explosion = opposed.explosion
    bounds = [opposed.attacker.maximum(explosion), opposed.defender.maximum(explosion)]
    weapon_max = opposed.weapon.maximum if explosion is not Explosion.CINEMATIC or not opposed.weapon.rung else None
    bounds.append(weapon_max)
    exact = all(b is not None for b in bounds)
    if exact:
        cap = max(2, *(b for b in bounds if b is not None)) + 1
    else:
        plain_max = max(opposed.attacker.maximum(Explosion.NONE) or 0, opposed.defender.maximum(Explosion.NONE) or 0)
        cap = 2 * plain_max + 32
    while True:
        result = _opposed_at(opposed, cap, exact)
        if isinstance(result, OpposedChance):
            return result
        # An exploding die's tail shrinks by a factor of its size every time its size is added
        # to the total, the smallest die slowest: jump to about where the tail is small enough.
        dice = (*opposed.attacker.dice, *opposed.defender.dice, opposed.weapon)
        slowest = min(s for step_die in dice for s in step_die.sides)
        shrink_per_pip = math.log(slowest) / slowest
        cap = max(cap + cap // 8, cap + math.ceil(math.log(result) / shrink_per_pip) + slowest)


def _opposed_at(opposed: Opposed, cap: int, exact: bool) -> OpposedChance | float:
    """The chances summed to ``cap``; when that leaves out too much, how many times too much."""
    a, attacker_den = _pool_totals(opposed.attacker, opposed.explosion, cap)
    d, defender_den = _pool_totals(opposed.defender, opposed.explosion, cap)
    weapon = _step_die_dist(opposed.weapon, opposed.explosion.other_explosions, cap)
    w = weapon.merged()
    a_above = suffix_sums(a)
    win = sum(d[v] * a_above[v + 1] for v in range(cap))
    draw = sum(d[v] * a[v] for v in range(cap))
    den = attacker_den * defender_den
    if not exact:
        left_out = Fraction(a[cap], attacker_den) + Fraction(d[cap], defender_den) + Fraction(w[cap], weapon.den)
        # What is left out may carry damage of about the cap or more, so it must be small against
        # the chance to hit times the cap: that bounds the error of the expected damage too.
        allowed = OPPOSED_TOLERANCE * min(Fraction(1), Fraction(win, den) or Fraction(1)) / (4 * cap)
        if left_out > allowed:
            return float(left_out / allowed)
    # margin[m] = sum over d of P(D = d) P(A = d + m): a convolution of A with D reversed.
    against = convolve(a[:cap], d[:cap][::-1])
    margins = [0, *against[cap : 2 * cap - 1]]
    damage = {x: n for x, n in enumerate(convolve(margins, w[:cap])) if n}

    def shown(p: Fraction) -> Fraction:
        return p if exact else p.limit_denominator(10**15)

    p_win = Fraction(win, den)
    p_draw = Fraction(draw, den)
    p_lose = 1 - p_win - p_draw
    hit_den = win * weapon.den
    # Shown to 15 digits, amounts too unlikely to register (below 1e-15) are left out.
    given_hit = tuple((x, p) for x, n in sorted(damage.items()) if win and (p := shown(Fraction(n, hit_den))))
    expected = shown(Fraction(sum(x * n for x, n in damage.items()), hit_den)) if win else Fraction(0)
    return OpposedChance(
        p_attacker_wins=shown(p_win),
        p_draw=shown(p_draw),
        p_defender_wins=shown(p_lose),
        damage_given_hit=given_hit,
        expected_damage_given_hit=expected,
        exact=exact,
        p_attacker_prevails=shown(p_win + p_draw if opposed.draw is Draw.ATTACKER else p_win),
        p_defender_prevails=shown(p_lose + p_draw if opposed.draw is Draw.DEFENDER else p_lose),
        p_attacker_dilemma=pool_dilemma(opposed.attacker, opposed.explosion),
        p_defender_dilemma=pool_dilemma(opposed.defender, opposed.explosion),
    )


def parse_die(spec: Mapping[str, Any], field: str, default: str | None = None) -> StepDie:
    value = spec.get(field, default)
    if value is None:
        raise SpecError(field, "is required (a die such as 'd8', 'd12+d4', or 'none')")
    try:
        return StepDie.parse(value)
    except DiceError as error:
        raise SpecError(field, str(error)) from None


def parse_difficulty(spec: Mapping[str, Any], field: str = "difficulty") -> StepDie:
    value = spec.get(field)
    if value is None:
        names = ", ".join(d.value for d in Difficulty)
        raise SpecError(field, f"is required (a die such as 'd8', or a difficulty: {names})")
    if isinstance(value, str) and (named := _DIFFICULTY_BY_NAME.get(value.strip().lower())) is not None:
        return named
    try:
        return parse_die(spec, field)
    except SpecError:
        names = ", ".join(d.value for d in Difficulty)
        raise SpecError(field, f"{value!r} is neither a die (d4 … d12, none) nor a difficulty ({names})") from None


def parse_steps(spec: Mapping[str, Any], field: str) -> int:
    value = spec.get(field, 0)
    if isinstance(value, bool) or not isinstance(value, int):
        raise SpecError(field, f"must be a whole number of steps, not {value!r}")
    if not -MAX_STEPS <= value <= MAX_STEPS:
        raise SpecError(field, f"must be between -{MAX_STEPS} and {MAX_STEPS}")
    return value


#: Each kind of choice's members by their values, for :func:`parse_choice`: a dictionary's look-up, where
#: calling the enum takes several times as long, once for every choice of every spec of a batch.
_MEMBERS: dict[type[StrEnum], dict[str, StrEnum]] = {}


def parse_choice(spec: Mapping[str, Any], field: str, kind: type[E], default: E) -> E:
    if field not in spec:
        return default
    value = spec[field]
    members = _MEMBERS.get(kind) or _MEMBERS.setdefault(kind, {member.value: member for member in kind})
    member = members.get(value) if isinstance(value, str) else None
    if member is None:
        allowed = ", ".join(repr(k.value) for k in kind)
        raise SpecError(field, f"must be one of {allowed}, not {value!r}")
    return cast(E, member)


def _check_fields(spec: Mapping[str, Any], allowed: frozenset[str]) -> None:
    if not isinstance(spec, Mapping):
        raise SpecError("spec", "must be a JSON object")
    if not allowed.issuperset(spec):
        field = next(field for field in spec if field not in allowed)
        raise SpecError(str(field), "is not a field of this roll")


CHECK_FIELDS: Final = frozenset(
    {
        "system",
        "roll",
        "ability",
        "skill",
        "difficulty",
        "ability_steps",
        "skill_steps",
        "difficulty_steps",
        "ability_roll",
        "explosion",
        "distribution",
    }
)


OPPOSED_FIELDS: Final = frozenset(
    {"system", "roll", "attacker", "defender", "weapon_die", "attacker_roll", "defender_roll", "explosion", "draw"}
)


def _stepped(step_die: StepDie, spec: Mapping[str, Any], field: str) -> StepDie:
    if field not in spec:  # most specs step nothing
        return step_die
    try:
        return step_die.step(parse_steps(spec, field))
    except DiceError as error:
        raise SpecError(field, str(error)) from None


def parse_check(spec: Mapping[str, Any]) -> Check:
    """A check from its spec; the steps are applied once each to their die."""
    _check_fields(spec, CHECK_FIELDS)
    return Check(
        ability=_stepped(parse_die(spec, "ability"), spec, "ability_steps"),
        skill=_stepped(parse_die(spec, "skill"), spec, "skill_steps"),
        difficulty=_stepped(parse_difficulty(spec), spec, "difficulty_steps"),
        ability_roll=parse_choice(spec, "ability_roll", AbilityRoll, AbilityRoll.NORMAL),
        explosion=parse_choice(spec, "explosion", Explosion, Explosion.CINEMATIC),
    )


def parse_side(spec: Mapping[str, Any], field: str) -> tuple[StepDie, ...]:
    value = spec.get(field)
    if not isinstance(value, list) or not value:
        raise SpecError(field, "must be a list of dice, the Ability die first, e.g. ['d8', 'd6']")
    if len(value) > MAX_POOL:
        raise SpecError(field, f"may hold at most {MAX_POOL} dice")
    dice = []
    for i, label in enumerate(value):
        try:
            dice.append(StepDie.parse(label))
        except DiceError as error:
            raise SpecError(f"{field}[{i}]", str(error)) from None
    if sum(len(d.sides) for d in dice) > MAX_POOL_DICE:
        raise SpecError(field, f"may roll at most {MAX_POOL_DICE} dice in all (a stepped die such as d12+d4 is two)")
    return tuple(dice)


def parse_opposed(spec: Mapping[str, Any]) -> Opposed:
    """An opposed roll from its spec: each side lists its dice, the Ability die first."""
    _check_fields(spec, OPPOSED_FIELDS)
    attacker = parse_side(spec, "attacker")
    defender = parse_side(spec, "defender")
    return Opposed(
        attacker=Pool(attacker[0], attacker[1:], parse_choice(spec, "attacker_roll", AbilityRoll, AbilityRoll.NORMAL)),
        defender=Pool(defender[0], defender[1:], parse_choice(spec, "defender_roll", AbilityRoll, AbilityRoll.NORMAL)),
        weapon=parse_die(spec, "weapon_die"),
        explosion=parse_choice(spec, "explosion", Explosion, Explosion.CINEMATIC),
        draw=parse_choice(spec, "draw", Draw, Draw.DEFENDER),
    )


def _ratio(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def check_chance_json(spec: Mapping[str, Any]) -> dict[str, Any]:
    check = parse_check(spec)
    want_distribution = spec.get("distribution", False)
    if not isinstance(want_distribution, bool):
        raise SpecError("distribution", "must be true or false")
    chance = check_chance(check)
    out: dict[str, Any] = {
        "p_success": _ratio(chance.p_success),
        "p_dilemma": _ratio(chance.p_dilemma),
        "p_success_with_dilemma": _ratio(chance.p_success_with_dilemma),
    }
    if want_distribution:
        dist = check_distribution(check)
        items = [(str(v), _ratio(p)) for v, p in dist.totals]
        if dist.open_ended:
            items[-1] = (f"{items[-1][0]}+", items[-1][1])
        out["distribution"] = dict(items)
    return out


def opposed_chance_json(spec: Mapping[str, Any]) -> dict[str, Any]:
    chance = opposed_chance(parse_opposed(spec))
    return {
        "p_attacker_wins": _ratio(chance.p_attacker_wins),
        "p_draw": _ratio(chance.p_draw),
        "p_defender_wins": _ratio(chance.p_defender_wins),
        "p_attacker_prevails": _ratio(chance.p_attacker_prevails),
        "p_defender_prevails": _ratio(chance.p_defender_prevails),
        "p_attacker_dilemma": _ratio(chance.p_attacker_dilemma),
        "p_defender_dilemma": _ratio(chance.p_defender_dilemma),
        "damage_given_hit": {str(x): _ratio(p) for x, p in chance.damage_given_hit},
        "expected_damage_given_hit": _ratio(chance.expected_damage_given_hit),
        "exact": chance.exact,
    }


def _pool_words(pool: Pool) -> str:
    words = " + ".join(die.label for die in pool.dice)
    if pool.ability_roll is AbilityRoll.BACKGROUND:
        words += " (background: Ability rolled twice, higher kept)"
    elif pool.ability_roll is AbilityRoll.IMPAIRMENT:
        words += " (impairment: Ability rolled twice, lower kept)"
    return words


def describe_check(check: Check) -> str:
    """A check in words: "d8 + d6 + d10, 13 or more" (the dice of Ability + Skill + Difficulty)."""
    return f"{_pool_words(check.pool)}, {TARGET} or more"


def describe_opposed(opposed: Opposed) -> str:
    """An opposed roll in words: "d8 + d10 against d6 + d8, weapon d8" (and who a draw goes to, but
    for the defender, as in a fight)."""
    words = f"{_pool_words(opposed.attacker)} against {_pool_words(opposed.defender)}, weapon {opposed.weapon.label}"
    if opposed.draw is Draw.ATTACKER:
        words += ", a draw holds for the first side"
    elif opposed.draw is Draw.NONE:
        words += ", a draw is a draw"
    return words
