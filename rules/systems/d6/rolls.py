"""The D6 roll kinds: a code against a difficulty number ("check"), and two codes against each other
("opposed"); each parsed from a JSON spec, rolled with an injected random source, recorded for the
log (which die was wild, its chain of rerolls, the margin) and given its exact chance before the roll.

The chance interface (rules README, "The chance interface"):
``{"system": "d6", "roll": "check", "code": "3d+2", "difficulty": 15}`` and
``{"system": "d6", "roll": "opposed", "attacker": "4d+1", "defender": "3d+2"}``. A check may name a band
instead of (or beside) its number: with a band alone the answer is the chance at both ends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from random import Random
from typing import Any, Final

from rules.systems.d6.chance import (
    MAX_DIFFICULTY,
    Band,
    OpposedChance,
    band,
    band_chance,
    opposed_chance,
    p_at_least,
)
from rules.systems.d6.codes import DieCode
from rules.systems.d6.rolling import D6Roll, roll
from rules.systems.protocol.errors import SpecError
from rules.systems.protocol.kinds import Recorded, RollKind

#: The penalties and bonuses a roll may carry in its spec, for the log ("3 actions: −2d").
MAX_STEPS: Final = 12
MAX_STEP_WORDS: Final = 80


def _ratio(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def _fields(spec: Mapping[str, Any], allowed: frozenset[str]) -> None:
    if not isinstance(spec, Mapping):
        raise SpecError("spec", "a roll is a JSON object")
    for key in spec:
        if key not in allowed:
            raise SpecError(str(key), "is not a field of this roll")


def _difficulty(value: Any, field: str = "difficulty") -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= MAX_DIFFICULTY:
        raise SpecError(field, f"a difficulty is a whole number from 1 to {MAX_DIFFICULTY}")
    return value


def _steps(value: Any) -> tuple[str, ...]:
    """The words of the penalties and bonuses that made the code (kept for the log, never applied here)."""
    if value is None:
        return ()
    if not isinstance(value, list | tuple) or len(value) > MAX_STEPS:
        raise SpecError("steps", f"a list of at most {MAX_STEPS} penalties and bonuses, in words")
    if not all(isinstance(step, str) and 0 < len(step) <= MAX_STEP_WORDS for step in value):
        raise SpecError("steps", f"each penalty or bonus is said in 1 to {MAX_STEP_WORDS} characters")
    return tuple(value)


@dataclass(frozen=True, slots=True)
class Check:
    """A code against a difficulty number, or against a band the GM has not narrowed yet."""

    code: DieCode
    difficulty: int | None
    band: Band | None = None
    steps: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class CheckRolled:
    check: Check
    dice: D6Roll

    @property
    def total(self) -> int:
        return self.dice.total

    @property
    def success(self) -> bool:
        """ "Equal or roll higher than a difficulty number" (a roll is made only once the number is known)."""
        return self.dice.succeeds(self.check.difficulty or 0)


@dataclass(frozen=True, slots=True)
class CheckChance:
    """P(success) at the number, or at both ends of the band when only a band is known."""

    p_success: Fraction | None
    at_low: Fraction | None = None
    at_high: Fraction | None = None


CHECK_FIELDS: Final = frozenset({"system", "roll", "code", "difficulty", "band", "steps"})


def parse_check(spec: Mapping[str, Any]) -> Check:
    _fields(spec, CHECK_FIELDS)
    code = DieCode.parse(spec.get("code"), field="code")
    named = band(spec["band"]) if spec.get("band") is not None else None
    difficulty = _difficulty(spec["difficulty"]) if spec.get("difficulty") is not None else None
    if difficulty is None and named is None:
        raise SpecError("difficulty", "name a difficulty number or a band")
    if difficulty is not None and named is not None:
        high = named.high if named.high is not None else MAX_DIFFICULTY
        if not named.low <= difficulty <= high:
            top = f"–{named.high}" if named.high is not None else " and up"
            raise SpecError("difficulty", f"{difficulty} is not in {named.name} ({named.low}{top})")
    return Check(code, difficulty, named, _steps(spec.get("steps")))


def _band_of(check: Check) -> Band:
    """The band of a check made without a difficulty number (:func:`parse_check` asks for one or the other)."""
    if check.band is None:
        raise SpecError("difficulty", "name a difficulty number or a band")
    return check.band


def check_chance(check: Check) -> CheckChance:
    if check.difficulty is not None:
        return CheckChance(p_at_least(check.code, check.difficulty))
    ends = band_chance(check.code, _band_of(check))
    return CheckChance(None, ends.at_low, ends.at_high)


def roll_check(check: Check, rng: Random) -> CheckRolled:
    if check.difficulty is None:
        raise SpecError("difficulty", "the GM names the number in the band before the roll")
    return CheckRolled(check, roll(check.code, rng))


def dice_groups(rolled: D6Roll) -> list[dict[str, Any]]:
    """The dice as the log's groups: the wild die with its chain of rerolls, then the other dice."""
    groups = []
    if rolled.wild is not None:
        wild = rolled.dice[rolled.wild]
        groups.append({"label": "Wild die", "total": wild.value,
                       "dice": [{"sides": 6, "faces": list(wild.faces), "value": wild.value,
                                 "exploded": len(wild.faces) > 1}]})  # fmt: skip
    plain = [d for i, d in enumerate(rolled.dice) if i != rolled.wild]
    if plain:
        groups.append({"label": f"{len(plain)} more {'die' if len(plain) == 1 else 'dice'}",
                       "total": sum(d.value for d in plain),
                       "dice": [{"sides": 6, "faces": list(d.faces), "value": d.value} for d in plain]})  # fmt: skip
    if rolled.pips:
        groups.append(
            {"label": f"+{rolled.pips} pip{'s' if rolled.pips > 1 else ''}", "total": rolled.pips, "dice": []}
        )
    return groups


def record_check(rolled: CheckRolled) -> Recorded:
    check, dice = rolled.check, rolled.dice
    difficulty = check.difficulty if check.difficulty is not None else 0
    outcome: dict[str, Any] = {
        "code": str(check.code),
        "difficulty": check.difficulty,
        "success": dice.succeeds(difficulty),
        "margin": dice.margin(difficulty),
        "wild": list(dice.wild_chain),
    }
    if check.band is not None:
        outcome["band"] = check.band.key
    if check.steps:
        outcome["steps"] = list(check.steps)
    return Recorded(dice_groups(dice), dice.total, outcome)


def check_chance_json(spec: Mapping[str, Any]) -> dict[str, Any]:
    check = parse_check(spec)
    if check.difficulty is not None:
        return {"p_success": _ratio(p_at_least(check.code, check.difficulty))}
    ends = band_chance(check.code, _band_of(check))
    out = {"p_success_at_low": _ratio(ends.at_low)}
    if ends.at_high is not None:
        out["p_success_at_high"] = _ratio(ends.at_high)
    return out


def describe_check(check: Check) -> str:
    if check.difficulty is None:
        return f"{check.code} against {_band_of(check).name}"
    named = f" ({check.band.name})" if check.band is not None else ""
    return f"{check.code} against {check.difficulty}{named}"


CHECK: Final = RollKind(
    key="check",
    label="Check",
    fields=CHECK_FIELDS,
    parse=parse_check,
    roll=roll_check,
    chance=check_chance,
    record=record_check,
    success=lambda chance: chance.p_success,
    chance_json=check_chance_json,
    describe=describe_check,
)


@dataclass(frozen=True, slots=True)
class Opposed:
    """Two codes, the higher total wins. ``resisting``: on a tie the defender (the side that resists)
    holds; otherwise a tie is a draw (rules README, "Opposed")."""

    attacker: DieCode
    defender: DieCode
    resisting: bool = True
    steps: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class OpposedRolled:
    opposed: Opposed
    attacker: D6Roll
    defender: D6Roll


OPPOSED_FIELDS: Final = frozenset({"system", "roll", "attacker", "defender", "resisting", "steps"})


def parse_opposed(spec: Mapping[str, Any]) -> Opposed:
    _fields(spec, OPPOSED_FIELDS)
    resisting = spec.get("resisting", True)
    if not isinstance(resisting, bool):
        raise SpecError("resisting", "true when the defender resists (a tie holds for it), false for a draw")
    return Opposed(
        DieCode.parse(spec.get("attacker"), field="attacker"),
        DieCode.parse(spec.get("defender"), field="defender"),
        resisting,
        _steps(spec.get("steps")),
    )


def chance_opposed(opposed: Opposed) -> OpposedChance:
    return opposed_chance(opposed.attacker, opposed.defender)


def roll_opposed(opposed: Opposed, rng: Random) -> OpposedRolled:
    return OpposedRolled(opposed, roll(opposed.attacker, rng), roll(opposed.defender, rng))


def record_opposed(rolled: OpposedRolled) -> Recorded:
    margin = rolled.attacker.total - rolled.defender.total
    groups = [{**group, "label": f"Attacker's {group['label'].lower()}"} for group in dice_groups(rolled.attacker)]
    groups += [{**group, "label": f"Defender's {group['label'].lower()}"} for group in dice_groups(rolled.defender)]
    outcome = {
        "attacker": rolled.attacker.total,
        "defender": rolled.defender.total,
        "hit": margin > 0,
        "margin": margin,
        "draw": margin == 0 and not rolled.opposed.resisting,
        "wild": {"attacker": list(rolled.attacker.wild_chain), "defender": list(rolled.defender.wild_chain)},
    }
    return Recorded(groups, rolled.attacker.total, outcome)


def opposed_chance_json(spec: Mapping[str, Any]) -> dict[str, Any]:
    chance = chance_opposed(parse_opposed(spec))
    return {
        "p_attacker_wins": _ratio(chance.p_attacker_wins),
        "p_tie": _ratio(chance.p_tie),
        "p_defender_wins": _ratio(chance.p_defender_wins),
    }


OPPOSED: Final = RollKind(
    key="opposed",
    label="Opposed roll",
    fields=OPPOSED_FIELDS,
    parse=parse_opposed,
    roll=roll_opposed,
    chance=chance_opposed,
    record=record_opposed,
    success=lambda chance: chance.p_attacker_wins,
    chance_json=opposed_chance_json,
    describe=lambda opposed: f"{opposed.attacker} against {opposed.defender}",
)

ROLL_KINDS: Final[Mapping[str, RollKind[Any, Any, Any]]] = {"check": CHECK, "opposed": OPPOSED}
