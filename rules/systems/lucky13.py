"""The Lucky 13 Game Engine v1.0 (Solarian Games), released under the ELF.

Rule text: ``shared/rules/lucky13.md``; where it reads two ways, the rules
README fixes the reading. Section names in the docstrings below are the rule
text's own headings.
"""

from __future__ import annotations

import copy
import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from functools import lru_cache
from random import Random
from typing import Any, Final, TypeVar

from rules.dice import BASE_SIZES, UNLIMITED, DiceError, DieResult, StepDie, roll_die
from rules.probability import Capped, add, add_all, convolve, die, keep, success_split, suffix_sums
from rules.systems.base import Option, RollKind, SpecError

E = TypeVar("E", bound=StrEnum)

KEY: Final = "lucky13"
NAME: Final = "Lucky 13"
ATTRIBUTION: Final = "The Lucky 13 Game Engine was originally created by Solarian Games."
LICENSE_NAME: Final = "Everlasting License for Free (ELF), version 1.0"
LICENSE_FILE: Final = "LUCKY13-ELF.md"
DISCLAIMER: Final = (
    "The Lucky 13 name and logo are the property of Solarian LLC. Use of the Lucky 13 name and logo is "
    "exclusively for the purpose of identifying compatibility with the Lucky 13 Game Engine and does not "
    "imply sponsorship, affiliation, or endorsement by the original creators of the Lucky 13 Game Engine."
)

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
        return {"none": 0, "cinematic": UNLIMITED, "gritty": 1}[self.value]

    @property
    def other_explosions(self) -> int:
        """Skill, Difficulty, weapon and defensive dice: only Cinematic explodes them."""
        return UNLIMITED if self is Explosion.CINEMATIC else 0


class AbilityRoll(StrEnum):
    """ "Backgrounds" and "Impairments": roll the Ability die twice, keep the higher or lower."""

    NORMAL = "normal"
    BACKGROUND = "background"
    IMPAIRMENT = "impairment"


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


# --- The dice of a roll --------------------------------------------------------------------


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


@dataclass(frozen=True, slots=True)
class Opposed:
    """An opposed roll ("Opposed rolls", "Combat"): the higher total wins, a draw
    fails the attack, and a hit deals the weapon's damage die + the margin."""

    attacker: Pool
    defender: Pool
    weapon: StepDie
    explosion: Explosion = Explosion.CINEMATIC


# --- Rolling -------------------------------------------------------------------------------


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
        """Any die that came up 1 first, in any Ability roll made ("Dilemmas")."""
        rolled = [d for roll in self.ability_rolls for d in roll] + [d for dice in self.others for d in dice]
        return any(d.imploded for d in rolled)


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


def _roll_step_die(step_die: StepDie, rng: Random, explosions: int) -> tuple[DieResult, ...]:
    return tuple(roll_die(sides, rng, explosions) for sides in step_die.sides)


def roll_pool(pool: Pool, explosion: Explosion, rng: Random) -> PoolRoll:
    """Roll a pool; with a background or an impairment the whole Ability die is
    rolled twice, each roll with its own explosions, and the higher or lower kept."""
    times = 1 if pool.ability_roll is AbilityRoll.NORMAL else 2
    ability_rolls = tuple(_roll_step_die(pool.ability, rng, explosion.ability_explosions) for _ in range(times))
    totals = [sum(d.value for d in roll) for roll in ability_rolls]
    if pool.ability_roll is AbilityRoll.IMPAIRMENT:
        kept = totals.index(min(totals))
    else:
        kept = totals.index(max(totals))
    others = tuple(_roll_step_die(d, rng, explosion.other_explosions) for d in pool.others)
    return PoolRoll(ability_rolls, kept, others)


def roll_check(check: Check, rng: Random) -> CheckRoll:
    return CheckRoll(check, roll_pool(check.pool, check.explosion, rng))


def roll_opposed(opposed: Opposed, rng: Random) -> OpposedRoll:
    attacker = roll_pool(opposed.attacker, opposed.explosion, rng)
    defender = roll_pool(opposed.defender, opposed.explosion, rng)
    damage: tuple[DieResult, ...] = ()
    if attacker.total > defender.total:
        damage = _roll_step_die(opposed.weapon, rng, opposed.explosion.other_explosions)
    return OpposedRoll(opposed, attacker, defender, damage)


# --- Exact chances -------------------------------------------------------------------------


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
    p_attacker_wins: Fraction
    p_draw: Fraction
    p_defender_wins: Fraction
    damage_given_hit: tuple[tuple[int, Fraction], ...]
    expected_damage_given_hit: Fraction
    exact: bool  # False when Cinematic explosions made it a bounded sum (error below 1e-12)


@lru_cache(maxsize=4096)
def _step_die_dist(step_die: StepDie, explosions: int, cap: int) -> Capped:
    return add_all((die(s, explosions, cap) for s in step_die.sides), cap)


@lru_cache(maxsize=4096)
def _ability_dist(ability: StepDie, how: AbilityRoll, explosions: int, cap: int) -> Capped:
    once = _step_die_dist(ability, explosions, cap)
    if how is AbilityRoll.NORMAL:
        return once
    return keep(once, once, higher=how is AbilityRoll.BACKGROUND)


@lru_cache(maxsize=4096)
def _others_dist(others: tuple[StepDie, ...], explosions: int, cap: int) -> Capped:
    return add_all((_step_die_dist(step_die, explosions, cap) for step_die in others), cap)


def _pool_parts(pool: Pool, explosion: Explosion, cap: int) -> tuple[Capped, Capped]:
    ability = _ability_dist(pool.ability, pool.ability_roll, explosion.ability_explosions, cap)
    return ability, _others_dist(pool.others, explosion.other_explosions, cap)


@lru_cache(maxsize=8192)
def check_chance(check: Check) -> CheckChance:
    """P(total ≥ 13), P(some die imploded) and P(both), exact even with explosions.

    Only ``min(total, 13)`` decides success, so every distribution is capped at
    13 (rules README, "Exact odds").
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
    total = add(*_pool_parts(pool, check.explosion, cap))
    weights = total.merged()
    last = cap if highest is None else highest
    totals = tuple((v, Fraction(weights[v], total.den)) for v in range(last + 1) if weights[v] or v == last)
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
    attacker = add(*_pool_parts(opposed.attacker, opposed.explosion, cap))
    defender = add(*_pool_parts(opposed.defender, opposed.explosion, cap))
    weapon = _step_die_dist(opposed.weapon, opposed.explosion.other_explosions, cap)
    a, d, w = attacker.merged(), defender.merged(), weapon.merged()
    a_above = suffix_sums(a)
    win = sum(d[v] * a_above[v + 1] for v in range(cap))
    draw = sum(d[v] * a[v] for v in range(cap))
    den = attacker.den * defender.den
    if not exact:
        left_out = Fraction(a[cap], attacker.den) + Fraction(d[cap], defender.den) + Fraction(w[cap], weapon.den)
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
    hit_den = win * weapon.den
    # Shown to 15 digits, amounts too unlikely to register (below 1e-15) are left out.
    given_hit = tuple((x, p) for x, n in sorted(damage.items()) if win and (p := shown(Fraction(n, hit_den))))
    expected = shown(Fraction(sum(x * n for x, n in damage.items()), hit_den)) if win else Fraction(0)
    return OpposedChance(
        p_attacker_wins=shown(p_win),
        p_draw=shown(p_draw),
        p_defender_wins=shown(1 - p_win - p_draw),
        damage_given_hit=given_hit,
        expected_damage_given_hit=expected,
        exact=exact,
    )


# --- Specs: the chance interface, the API and the calculator's forms ------------------------


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
    if isinstance(value, str) and value.strip().lower() in Difficulty.__members__.values():
        return Difficulty(value.strip().lower()).die
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


def parse_choice(spec: Mapping[str, Any], field: str, kind: type[E], default: E) -> E:
    value = spec.get(field, default.value)
    try:
        return kind(value)
    except ValueError:
        allowed = ", ".join(repr(k.value) for k in kind)
        raise SpecError(field, f"must be one of {allowed}, not {value!r}") from None


def _check_fields(spec: Mapping[str, Any], allowed: frozenset[str]) -> None:
    if not isinstance(spec, Mapping):
        raise SpecError("spec", "must be a JSON object")
    for field in spec:
        if field not in allowed:
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
    {"system", "roll", "attacker", "defender", "weapon_die", "attacker_roll", "defender_roll", "explosion"}
)


def _stepped(step_die: StepDie, spec: Mapping[str, Any], field: str) -> StepDie:
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


def _parse_side(spec: Mapping[str, Any], field: str) -> tuple[StepDie, ...]:
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
    attacker = _parse_side(spec, "attacker")
    defender = _parse_side(spec, "defender")
    return Opposed(
        attacker=Pool(attacker[0], attacker[1:], parse_choice(spec, "attacker_roll", AbilityRoll, AbilityRoll.NORMAL)),
        defender=Pool(defender[0], defender[1:], parse_choice(spec, "defender_roll", AbilityRoll, AbilityRoll.NORMAL)),
        weapon=parse_die(spec, "weapon_die"),
        explosion=parse_choice(spec, "explosion", Explosion, Explosion.CINEMATIC),
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
        "damage_given_hit": {str(x): _ratio(p) for x, p in chance.damage_given_hit},
        "expected_damage_given_hit": _ratio(chance.expected_damage_given_hit),
        "exact": chance.exact,
    }


ROLL_KINDS: Final[Mapping[str, RollKind[Any, Any, Any]]] = {
    "check": RollKind(
        key="check",
        label="Skill check",
        fields=CHECK_FIELDS,
        parse=parse_check,
        roll=roll_check,
        chance=check_chance,
        chance_json=check_chance_json,
    ),
    "opposed": RollKind(
        key="opposed",
        label="Opposed roll",
        fields=OPPOSED_FIELDS,
        parse=parse_opposed,
        roll=roll_opposed,
        chance=opposed_chance,
        chance_json=opposed_chance_json,
    ),
}


# --- Campaign options, creation and advancement ---------------------------------------------

#: The five abilities, by the key the code uses; a campaign may rename them ("Abilities").
ABILITY_KEYS: Final = ("will", "charm", "pulse", "intellect", "reflex")
ABILITIES: Final = ("Will", "Charm", "Pulse", "Intellect", "Reflex")

#: "Skills example" presets. The rule text links no skill to an ability; these links are our
#: reading of what each skill leans on (recorded in the closing note); a GM can change them.
SKILL_PRESETS: Final = {
    "fantasy": (
        "Fantasy",
        (("Spellcasting", "intellect"), ("Scholarship", "intellect"), ("Healing", "will"), ("Sneaking", "reflex"),
         ("Fighting", "reflex")),
    ),
    "post_apocalyptic": (
        "Post-Apocalyptic",
        (("History", "intellect"), ("Communication", "charm"), ("Technology", "intellect"), ("Weaponry", "reflex")),
    ),
    "sci_fi": (
        "Sci-fi",
        (("Technology", "intellect"), ("Astrogation", "intellect"), ("Mysticism", "will"), ("Mechanics", "intellect"),
         ("Diplomacy", "charm"), ("Combat", "reflex")),
    ),
}  # fmt: skip

ABILITY_METHODS: Final = (("either", "Random or array, as each player likes"), ("random", "Random"), ("array", "Array"))
SKILL_METHODS: Final = (
    ("ability", "Equal to the linked ability"),
    ("array", "Array"),
    ("random", "Random"),
    ("point_buy", "Point buy"),
)
#: Point buy: a skill die costs its rung (d4 1, d6 2, d8 3, d10 4, d12 5).
MAX_SKILLS: Final = 20
MAX_NAME: Final = 60

OPTIONS: Final = (
    Option("explosion", "Play style", Explosion.CINEMATIC.value,
           ((Explosion.CINEMATIC.value, "Cinematic: every die explodes, again and again"),
            (Explosion.GRITTY.value, "Gritty: only Ability dice explode, once"))),
    Option("ability_names", "Ability names", list(ABILITIES), help="Rename the five abilities to suit your game."),
    Option("skill_preset", "Skill list", "fantasy",
           (*((key, label) for key, (label, _) in SKILL_PRESETS.items()), ("custom", "Custom"))),
    Option("skills", "Skills", [{"name": n, "ability": a} for n, a in SKILL_PRESETS["fantasy"][1]]),
    Option("hit_points_per_step", "Hit points per Pulse step", 10, help="10 in the rule text; 1 to 100."),
    Option("ability_methods", "Ability methods", "either", ABILITY_METHODS),
    Option("skill_method", "Skill method", "ability", SKILL_METHODS),
    Option("skill_array", "Skill array", ["d4", "d6", "d6", "d8", "d10"],
           help="With the array method: the dice players assign to skills, one each."),
    Option("skill_points", "Skill point budget", 15,
           help="With point buy: d4 costs 1, d6 2, d8 3, d10 4, d12 5."),
    Option("starting_specializations", "Starting specializations", 3, help="0 to 10; one more for an impairment."),
)  # fmt: skip


def default_options() -> dict[str, Any]:
    return {option.key: copy.deepcopy(option.default) for option in OPTIONS}


class OptionsError(ValueError):
    """Campaign options that break a rule; ``errors`` maps each option to its message."""

    def __init__(self, errors: dict[str, str]) -> None:
        super().__init__("; ".join(f"{key}: {message}" for key, message in errors.items()))
        self.errors = errors


def _whole(value: Any, low: int, high: int) -> int | None:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        return None
    return value


def clean_name(value: Any, what: str) -> str:
    """A name a player typed: trimmed, not empty, not too long."""
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} needs a name")
    name = " ".join(value.split())
    if len(name) > MAX_NAME:
        raise ValueError(f"{name[:24]}…: names are at most {MAX_NAME} characters")
    return name


def validate_options(options: Mapping[str, Any]) -> dict[str, Any]:
    """Campaign options with defaults filled in; :class:`OptionsError` names every bad one."""
    if not isinstance(options, Mapping):
        raise OptionsError({"options": "must be an object"})
    known = {option.key for option in OPTIONS}
    errors: dict[str, str] = {key: "is not an option of Lucky 13" for key in options if key not in known}
    out = default_options()
    preset = options.get("skill_preset")
    if "skills" not in options and isinstance(preset, str) and preset in SKILL_PRESETS:
        out["skills"] = [{"name": n, "ability": a} for n, a in SKILL_PRESETS[preset][1]]
    out.update({key: value for key, value in options.items() if key in known})
    choices = {option.key: {c for c, _ in option.choices} for option in OPTIONS if option.choices}
    for key, allowed in choices.items():
        if not isinstance(out[key], str) or out[key] not in allowed:  # a list or an object is no choice
            errors[key] = f"must be one of {', '.join(sorted(allowed))}"
    names = out["ability_names"]
    try:
        if not isinstance(names, list | tuple) or len(names) != len(ABILITY_KEYS):
            raise ValueError("five ability names are needed")
        out["ability_names"] = [clean_name(name, "Each ability") for name in names]
        if len({n.lower() for n in out["ability_names"]}) != len(ABILITY_KEYS):
            raise ValueError("the five abilities need different names")
    except ValueError as error:
        errors["ability_names"] = str(error)
    try:
        out["skills"] = _clean_skills(out["skills"])
    except ValueError as error:
        errors["skills"] = str(error)
    if _whole(out["hit_points_per_step"], 1, 100) is None:
        errors["hit_points_per_step"] = "must be a whole number from 1 to 100"
    if _whole(out["starting_specializations"], 0, 10) is None:
        errors["starting_specializations"] = "must be a whole number from 0 to 10"
    if _whole(out["skill_points"], 1, 5 * MAX_SKILLS) is None:
        errors["skill_points"] = f"must be a whole number from 1 to {5 * MAX_SKILLS}"
    try:
        array = [StepDie.parse(label) for label in out["skill_array"]]
        if not array or any(not StepDie.of(4) <= d <= MAX_ABILITY for d in array):
            raise DiceError("list the dice, each d4 … d12")
        out["skill_array"] = [d.label for d in array]
    except (DiceError, TypeError) as error:
        errors["skill_array"] = str(error)
    if not errors and out["skill_method"] == "array" and len(out["skill_array"]) < len(out["skills"]):
        errors["skill_array"] = f"needs a die for each of the {len(out['skills'])} skills"
    if errors:
        raise OptionsError(errors)
    return out


def _clean_skills(skills: Any) -> list[dict[str, Any]]:
    if not isinstance(skills, list) or not skills:
        raise ValueError("list at least one skill")
    if len(skills) > MAX_SKILLS:
        raise ValueError(f"at most {MAX_SKILLS} skills")
    out = []
    for skill in skills:
        if not isinstance(skill, Mapping):
            raise ValueError("each skill has a name and, if it has one, a linked ability")
        ability = skill.get("ability") or None
        if ability is not None and ability not in ABILITY_KEYS:
            raise ValueError(f"{ability!r} is not an ability ({', '.join(ABILITY_KEYS)})")
        out.append({"name": clean_name(skill.get("name"), "Each skill"), "ability": ability})
    if len({s["name"].lower() for s in out}) != len(out):
        raise ValueError("two skills have the same name")
    return out


#: "Array method": one die per ability. Specialized lists seven dice, of which five are used.
BALANCED_ARRAY: Final = tuple(StepDie.of(s) for s in (4, 6, 6, 8, 10))
SPECIALIZED_ARRAY: Final = tuple(StepDie.of(s) for s in (4, 4, 6, 6, 6, 10, 12))


def ability_from_percentile(roll: int) -> StepDie:
    """ "Random ability method": d100 01–20 d4, 21–40 d6, 41–60 d8, 61–80 d10, 81–00 d12 (00 is 100)."""
    if not 1 <= roll <= 100:
        raise ValueError("a percentile roll is 1 … 100")
    return StepDie((roll - 1) // 20 + 1)


class SheetError(SpecError):
    """A character sheet that breaks a creation rule; the message is for the player."""


def abilities_from_percentiles(rolls: Sequence[int]) -> dict[str, StepDie]:
    """ "Random ability method": one d100 per ability, in order (Will, Charm, Pulse, Intellect, Reflex)."""
    if len(rolls) != len(ABILITY_KEYS):
        raise SheetError("abilities", "roll once for each of the five abilities")
    return {key: ability_from_percentile(roll) for key, roll in zip(ABILITY_KEYS, rolls, strict=True)}


def check_ability_array(array: str, dice: Mapping[str, StepDie]) -> None:
    """ "Array method": balanced gives each ability one of d4 d6 d6 d8 d10; specialized
    assigns five of the seven dice d4 d4 d6 d6 d6 d10 d12, one per ability."""
    pool = {"balanced": BALANCED_ARRAY, "specialized": SPECIALIZED_ARRAY}.get(array)
    if pool is None:
        raise SheetError("array", "choose the balanced or the specialized array")
    missing = [key for key in ABILITY_KEYS if key not in dice]
    if missing:
        raise SheetError("abilities", f"give every ability a die ({', '.join(missing)} has none)")
    left = Counter(pool)
    left.subtract(dice[key] for key in ABILITY_KEYS)
    overused = sorted({d.label for d, n in left.items() if n < 0}, key=lambda label: StepDie.parse(label))
    if overused:
        shown = " ".join(d.label for d in pool)
        raise SheetError("abilities", f"the {array} array is {shown}: too many {', '.join(overused)}")


def skill_dice_allowed(method: str, options: Mapping[str, Any], abilities: Mapping[str, StepDie]) -> str:
    """What a player may choose for skill dice under the campaign's method, said for a player."""
    return {
        "ability": "each skill's die is its linked ability's die (d4 for a skill with no linked ability)",
        "array": f"assign the dice {' '.join(options['skill_array'])}, one per skill",
        "random": "the server rolls d100 for each skill, as for abilities",
        "point_buy": f"spend up to {options['skill_points']} points: d4 costs 1, d6 2, d8 3, d10 4, d12 5",
    }[method]


def skill_dice_by_ability(skills: Sequence[Mapping[str, Any]], abilities: Mapping[str, StepDie]) -> dict[str, StepDie]:
    """Skill method "equal to the linked ability" (Top Secret NWO's way, "Skills")."""
    return {s["name"]: abilities[s["ability"]] if s["ability"] else StepDie.of(4) for s in skills}


def check_skill_dice(
    method: str, options: Mapping[str, Any], abilities: Mapping[str, StepDie], dice: Mapping[str, StepDie]
) -> None:
    """The skill dice a player chose, against the campaign's skill method."""
    skills = options["skills"]
    names = [s["name"] for s in skills]
    if sorted(dice) != sorted(names):
        raise SheetError("skills", f"give a die to each skill: {', '.join(names)}")
    if any(not StepDie.of(4) <= d <= MAX_ABILITY for d in dice.values()):
        raise SheetError("skills", "skill dice run from d4 to d12")
    if method == "ability":
        expected = skill_dice_by_ability(skills, abilities)
        wrong = [name for name in names if dice[name] != expected[name]]
        if wrong:
            raise SheetError("skills", f"{', '.join(wrong)}: {skill_dice_allowed(method, options, abilities)}")
    elif method == "array":
        left = Counter(StepDie.parse(label) for label in options["skill_array"])
        left.subtract(dice.values())
        if any(n < 0 for n in left.values()):
            raise SheetError("skills", skill_dice_allowed(method, options, abilities))
    elif method == "point_buy":
        spent = sum(d.rung for d in dice.values())
        if spent > options["skill_points"]:
            raise SheetError("skills", f"those dice cost {spent} points; the budget is {options['skill_points']}")
    elif method != "random":  # random dice come from the server's rolls, never from the player
        raise SheetError("skill_method", f"unknown skill method {method!r}")


def specialization_allowance(options: Mapping[str, Any], *, impairment: bool) -> int:
    """ "Impairments": a player who takes one may select one additional specialization."""
    return options["starting_specializations"] + (1 if impairment else 0)


def indefinite(noun: str) -> str:
    """ "a" or "an", for the messages players read."""
    return "an" if noun[:1].lower() in "aeiou" else "a"


def check_level(level: Any, what: str = "level") -> int:
    """Specialization and asset levels run 1 … 5 ("Specializations", "Equipment / assets")."""
    if isinstance(level, bool) or not isinstance(level, int) or not 1 <= level <= MAX_SPECIALIZATION_LEVEL:
        raise SheetError(what, f"{indefinite(what)} {what} is from 1 to {MAX_SPECIALIZATION_LEVEL}")
    return level


def check_reputation(value: Any) -> int:
    """ "Reputation": from −5 to +5."""
    if isinstance(value, bool) or not isinstance(value, int) or not -5 <= value <= 5:
        raise SheetError("reputation", "reputation runs from -5 to +5")
    return value


ASSET_LEVELS: Final = ((1, "Inferior"), (2, "Adequate"), (3, "Standard"), (4, "Excellent"), (5, "Perfect"))


def effective_skill_die(skill: StepDie, level: int) -> StepDie:
    """ "Specializations": each level steps the skill die up once (Spellcasting d8, Teleport 2 → d12)."""
    return skill.step(level)


def reaction_charm(charm: StepDie, reputation: int) -> StepDie:
    """ "Reputation": in reaction checks the Charm die steps by the reputation."""
    return charm.step(check_reputation(reputation))


def assist_steps(helper: StepDie) -> int:
    """ "Characters assisting characters": the helper's die gives the steps, d4 1 … d12 5.

    A helper's stepped die (d12+d4 and up) still gives 5: the table stops at d12.
    """
    if helper.rung < 1:
        raise SheetError("assist", "a helper needs a die (d4 … d12) in what they help with")
    return min(helper.rung, len(BASE_SIZES))


@dataclass(frozen=True, slots=True)
class Modifiers:
    """Everything that steps the dice of a check from a sheet, before it is rolled.

    The steps from every source are added first, then each die is stepped once by the
    net amount (rules README, "The ladder"): a specialization's level and an asset's
    level step the skill die; a helper steps the die of what they help with (ability or
    skill); the GM may add steps either way; reputation steps Charm in reaction checks.
    """

    specialization_level: int = 0
    asset_level: int = 0
    assist: StepDie | None = None
    assist_target: str = "skill"
    ability_steps: int = 0
    skill_steps: int = 0
    reputation: int | None = None

    def ability_total(self) -> int:
        steps = self.ability_steps + (self.reputation or 0)
        if self.assist is not None and self.assist_target == "ability":
            steps += assist_steps(self.assist)
        return steps

    def skill_total(self) -> int:
        steps = self.skill_steps + self.specialization_level + self.asset_level
        if self.assist is not None and self.assist_target == "skill":
            steps += assist_steps(self.assist)
        return steps


def _check_modifiers(modifiers: Modifiers) -> None:
    if modifiers.assist_target not in ("ability", "skill"):
        raise SheetError("assist_target", "a helper helps with the ability or with the skill")
    if modifiers.specialization_level:
        check_level(modifiers.specialization_level, "specialization level")
    if modifiers.asset_level:
        check_level(modifiers.asset_level, "asset level")
    if modifiers.reputation is not None:
        check_reputation(modifiers.reputation)
    for steps, what in ((modifiers.ability_steps, "ability_steps"), (modifiers.skill_steps, "skill_steps")):
        if isinstance(steps, bool) or not isinstance(steps, int) or not -MAX_STEPS <= steps <= MAX_STEPS:
            raise SheetError(what, f"extra steps are a whole number from -{MAX_STEPS} to {MAX_STEPS}")


def sheet_check(
    ability: StepDie,
    skill: StepDie,
    difficulty: StepDie,
    modifiers: Modifiers = Modifiers(),  # frozen, so sharing the default is safe
    *,
    ability_roll: AbilityRoll = AbilityRoll.NORMAL,
    explosion: Explosion = Explosion.CINEMATIC,
) -> Check:
    """The check a sheet's roll control builds: its dice stepped by every modifier at once."""
    _check_modifiers(modifiers)
    try:
        return Check(
            ability=ability.step(modifiers.ability_total()),
            skill=skill.step(modifiers.skill_total()),
            difficulty=difficulty,
            ability_roll=ability_roll,
            explosion=explosion,
        )
    except DiceError as error:
        raise SheetError("steps", str(error)) from None


def combat_pool(
    reflex: StepDie,
    combat: StepDie,
    third: StepDie,
    modifiers: Modifiers = Modifiers(),  # frozen, so sharing the default is safe
    *,
    ability_roll: AbilityRoll = AbilityRoll.NORMAL,
) -> Pool:
    """One side of an attack ("Combat"): Reflex + Combat + the weapon's Accuracy die for the attacker,
    or the Defensive die for the defender, each die stepped once by the net of its modifiers ("Modifiers":
    "stepping up one of their dice, or giving them an advantage or disadvantage").

    A Combat specialization steps the Combat die up by its level, as any specialization steps its
    skill's die ("Specializations"); Reflex is the Ability die, rolled twice with the higher kept when a
    background applies and the lower when an impairment does ("Backgrounds", "Impairments"). Reputation
    belongs to reaction checks, never to a fight.
    """
    _check_modifiers(modifiers)
    if modifiers.reputation is not None:
        raise SheetError("reputation", "reputation steps Charm in reaction checks, not a fight")
    try:
        how = AbilityRoll(ability_roll)  # "background" as text too: the chances test identity with the enum
    except ValueError:
        raise SheetError("ability_roll", "choose normal, background or impairment") from None
    try:
        return Pool(reflex.step(modifiers.ability_total()), (combat.step(modifiers.skill_total()), third), how)
    except DiceError as error:
        raise SheetError("steps", str(error)) from None


SPECIALIZATION_COST: Final = 4
MAX_SPECIALIZATION_LEVEL: Final = 5
MAX_ABILITY: Final = StepDie.of(12)


def ability_raise_cost(current: StepDie) -> int:
    """ "Skill advancement": raising an ability costs its current die size × 4; d12 is the top."""
    if not StepDie.of(4) <= current < MAX_ABILITY:
        raise ValueError(f"{current} cannot be raised (abilities run d4 … d12)")
    return current.sides[0] * 4


class PurchaseKind(StrEnum):
    """What Adventure Points buy ("Skill advancement / Adventure Points")."""

    SPECIALIZATION = "specialization"  # a new specialization under a skill, at level 1
    LEVEL = "level"  # one more level of a specialization
    ABILITY = "ability"  # the next larger ability die


@dataclass(frozen=True, slots=True)
class Purchase:
    """One thing bought with Adventure Points: what changes, from what to what, and its cost.

    ``before``/``after`` are the specialization level (0 for a new one) or the ability's rung.
    """

    kind: PurchaseKind
    cost: int
    before: int
    after: int
    skill: str = ""
    name: str = ""
    ability: str = ""


def buy_specialization(skill: str, name: Any, taken: Sequence[str]) -> Purchase:
    """ "Adding a new Specialization … costs 4 Adventure Points"; it starts at level 1.

    ``taken`` are the names the skill's specializations already have (one of a name per skill).
    """
    name = clean_name(name, "A specialization")
    if name.casefold() in {other.casefold() for other in taken}:
        raise SheetError("name", f"{skill} already has a specialization called {name}")
    return Purchase(PurchaseKind.SPECIALIZATION, SPECIALIZATION_COST, 0, 1, skill=skill, name=name)


def buy_level(skill: str, name: str, level: int) -> Purchase:
    """ "… or increasing a Specialization Level costs 4 Adventure Points"; levels run 1 … 5."""
    check_level(level, "specialization level")
    if level >= MAX_SPECIALIZATION_LEVEL:
        raise SheetError("level", f"{name} is at level {MAX_SPECIALIZATION_LEVEL}, the highest")
    return Purchase(PurchaseKind.LEVEL, SPECIALIZATION_COST, level, level + 1, skill=skill, name=name)


def buy_ability(key: str, current: StepDie) -> Purchase:
    """ "Increasing an Ability costs the current Ability Die type x4": d4→d6 16 … d10→d12 40."""
    if key not in ABILITY_KEYS:
        raise SheetError("ability", f"{key!r} is not an ability")
    if current >= MAX_ABILITY:
        raise SheetError("ability", f"abilities stop at {MAX_ABILITY}")
    try:
        cost = ability_raise_cost(current)
    except ValueError as error:
        raise SheetError("ability", str(error)) from None
    return Purchase(PurchaseKind.ABILITY, cost, current.rung, current.rung + 1, ability=key)


@dataclass(frozen=True, slots=True)
class SheetSkill:
    """A skill as advancement sees it: its die, linked ability key (or ""), and specializations by level."""

    name: str
    ability: str
    die: StepDie
    specializations: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Effect:
    """How a purchase changes one check: its exact chance of success before and after."""

    skill: str
    specialization: str  # "" for the plain skill check
    before: Fraction
    after: Fraction

    @property
    def gain(self) -> Fraction:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A purchase the character can make, with the checks it changes."""

    purchase: Purchase
    effects: tuple[Effect, ...]

    @property
    def best_gain(self) -> Fraction:
        return max((e.gain for e in self.effects), default=Fraction(0))


def _chance(ability: StepDie, skill: StepDie, difficulty: StepDie, explosion: Explosion) -> Fraction:
    return check_chance(Check(ability=ability, skill=skill, difficulty=difficulty, explosion=explosion)).p_success


def suggestions(
    abilities: Mapping[str, StepDie],
    skills: Sequence[SheetSkill],
    *,
    difficulty: StepDie,
    explosion: Explosion = Explosion.CINEMATIC,
) -> list[Suggestion]:
    """Every purchase the sheet allows, each with how it changes the exact chance of the checks
    it touches at ``difficulty`` (rolled with the skill's linked ability, no other modifier):

    - a new specialization under a skill: the skill's check, now with a level-1 specialization;
    - one more level of a specialization: that specialization's check;
    - a larger ability die: every check of the skills linked to it, plain and specialized.

    A skill with no linked ability has no check to compare (the ability is chosen at each roll).
    """
    options: list[Suggestion] = []
    for skill in skills:
        ability = abilities.get(skill.ability)
        for name, level in skill.specializations:
            if level >= MAX_SPECIALIZATION_LEVEL:
                continue
            effects = ()
            if ability is not None:
                effects = (
                    Effect(
                        skill.name,
                        name,
                        _chance(ability, effective_skill_die(skill.die, level), difficulty, explosion),
                        _chance(ability, effective_skill_die(skill.die, level + 1), difficulty, explosion),
                    ),
                )
            options.append(Suggestion(buy_level(skill.name, name, level), effects))
    for skill in skills:
        ability = abilities.get(skill.ability)
        effects = ()
        if ability is not None:
            effects = (
                Effect(
                    skill.name,
                    "",
                    _chance(ability, skill.die, difficulty, explosion),
                    _chance(ability, effective_skill_die(skill.die, 1), difficulty, explosion),
                ),
            )
        purchase = Purchase(PurchaseKind.SPECIALIZATION, SPECIALIZATION_COST, 0, 1, skill=skill.name)
        options.append(Suggestion(purchase, effects))
    for key in ABILITY_KEYS:
        current = abilities.get(key)
        if current is None or current >= MAX_ABILITY:
            continue
        raised = current.step(1)
        effects = tuple(
            Effect(
                skill.name,
                name,
                _chance(current, effective_skill_die(skill.die, level), difficulty, explosion),
                _chance(raised, effective_skill_die(skill.die, level), difficulty, explosion),
            )
            for skill in skills
            if skill.ability == key
            for name, level in (("", 0), *skill.specializations)
        )
        options.append(Suggestion(buy_ability(key, current), effects))
    return options


def max_hit_points(pulse: StepDie, per_step: int = 10) -> int:
    """ "Hit points": each Pulse step holds ``per_step`` hit points (d4 10 … d12 50)."""
    return pulse.rung * per_step


def current_pulse(hit_points: int, per_step: int = 10) -> StepDie:
    """The Pulse die the remaining hit points reach (d8 Pulse: 21–30 d8, 11–20 d6, 1–10 d4)."""
    if hit_points <= 0:
        return StepDie.none()
    return StepDie(min(-(-hit_points // per_step), len(BASE_SIZES)))


def death_threshold(base_pulse: StepDie) -> int:
    """ "Death & dying": death at minus the base Pulse die's size (d8: −8)."""
    return -base_pulse.sides[0]


# --- Combat --------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class InitiativeEntry:
    """One place in the initiative order: the Reflex roll, and the roll-off totals if a tie needed them."""

    key: int
    total: int
    reflex: StepDie
    rolloffs: tuple[int, ...] = ()


#: A roll-off that keeps tying is settled by the key (who was added first) after this many rounds.
MAX_ROLLOFFS: Final = 20


def initiative_order(
    rolls: Sequence[tuple[int, int, StepDie]], explosion: Explosion, rng: Random
) -> tuple[InitiativeEntry, ...]:
    """ "Initiative": highest Reflex roll first; a tie goes to the higher Reflex die, then to a
    roll-off of the tied Reflex dice (again while they still tie). ``rolls`` are (key, total, Reflex)."""
    entries = [InitiativeEntry(key, total, reflex) for key, total, reflex in rolls]
    groups: dict[tuple[int, int], list[InitiativeEntry]] = {}
    for entry in entries:
        groups.setdefault((entry.total, entry.reflex.rung), []).append(entry)
    settled: list[InitiativeEntry] = []
    for tied in groups.values():
        settled.extend(_roll_off(tied, explosion, rng) if len(tied) > 1 else tied)
    return tuple(sorted(settled, key=lambda e: (-e.total, -e.reflex.rung, tuple(-r for r in e.rolloffs), e.key)))


def _roll_off(tied: list[InitiativeEntry], explosion: Explosion, rng: Random) -> list[InitiativeEntry]:
    """Each tied combatant rolls Reflex again until no two of them have the same roll-off totals."""
    for _ in range(MAX_ROLLOFFS):
        tied = [
            InitiativeEntry(e.key, e.total, e.reflex, (*e.rolloffs, roll_pool(Pool(e.reflex), explosion, rng).total))
            for e in tied
        ]
        if len({e.rolloffs for e in tied}) == len(tied):
            break
    return tied


class Condition(StrEnum):
    """ "Death & dying": up above 0 hit points, dying at 0 or less, dead at minus the base Pulse size."""

    UP = "up"
    DYING = "dying"
    DEAD = "dead"


def condition(hit_points: int, base_pulse: StepDie) -> Condition:
    if hit_points <= death_threshold(base_pulse):
        return Condition.DEAD
    return Condition.DYING if hit_points <= 0 else Condition.UP


@dataclass(frozen=True, slots=True)
class HitPointChange:
    before: int
    after: int
    pulse_before: StepDie
    pulse_after: StepDie
    condition: Condition


def change_hit_points(hit_points: int, amount: int, base_pulse: StepDie, per_step: int = 10) -> HitPointChange:
    """ "Hit points": damage (negative ``amount``) empties slots and the current Pulse steps down;
    healing fills them and it steps back up, never above the base Pulse's maximum; the total
    never goes below the death threshold (dead is dead; the GM heals from there)."""
    low, high = death_threshold(base_pulse), max_hit_points(base_pulse, per_step)
    if amount >= 0:
        after = max(hit_points, min(hit_points + amount, high))
    else:
        after = min(hit_points, max(hit_points + amount, low))
    return HitPointChange(
        hit_points,
        after,
        current_pulse(hit_points, per_step),
        current_pulse(after, per_step),
        condition(after, base_pulse),
    )


def minute_passes(hit_points: int, base_pulse: StepDie, *, stabilized: bool) -> int:
    """ "Death & dying": a dying character who is not stabilized loses one hit point per minute."""
    if stabilized or condition(hit_points, base_pulse) is not Condition.DYING:
        return hit_points
    return hit_points - 1
