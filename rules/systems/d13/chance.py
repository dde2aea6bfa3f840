"""Exact chances of a D13 roll: success and a card before the roll, each choice's chance after it,
the unclear task, the host's range on a Monstrous task, the totals for a chart, and the chance
interface.

Rules text, "Dice Roll": "adding the result of 1d4 and 1d9, for a total ranging from 1 to 13"; the
d9 is a ten-sided die read 0–9, so there are 40 rolls, each 1/40. Rules README, "D13": "Success:
total ≤ ability + skill, or doubles (1+1 … 4+4), which always succeed and draw a card. A 13 always
fails … for every level." Every chance here is an exact ``Fraction`` summed over those 40 rolls and
over the 4 or 10 faces of a rerolled die.

**The policies** (rules README, "D13"). The chance shown assumes:

- **Average**: the player rerolls only after a failure that is not a 13, the die with the better
  chance of success, on equal chances the die with the better chance of a card
  (:func:`best_reroll`);
- **Monstrous**: the host forces a reroll only after a success and only when it lowers the player's
  chance below certainty, the die that hurts most, on equal chances the die with the worse chance
  of a card (:func:`host_force`);
- **Unclear, Average**: with only the d9 seen, the player takes the choice (keep, reroll the hidden
  d4, reroll the d9) with the best chance given that d9, on equal chances the better chance of a
  card, and keeps on a full tie (:func:`unclear_choices`).

A full tie between the two dice (same chance of success and of a card) cannot happen after a
roll is seen: a new d9 makes doubles with chance 1/10, a new d4 with 1/4 or 0. The d9 is named for
it all the same, so the policy is a function. Doubles and the 13 are judged on the roll that
stands.

**One path.** :func:`check` is the mean, over the 40 rolls, of the option the policy takes among
:func:`player_choices` or :func:`host_choices` (or, given the d9 seen, the option taken among
:func:`unclear_choices`), and :func:`standing_totals` follows the same choices: the chance shown
before the roll and the choices offered after it always agree.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from math import lcm
from typing import Any, Final, Literal

from rules.systems.protocol.errors import SpecError

__all__ = [
    "ALWAYS_FAILS",
    "CHECK_FIELDS",
    "D4_FACES",
    "D9_FACES",
    "LEVELS",
    "LEVEL_WORDS",
    "MAX_TARGET",
    "MIN_TARGET",
    "ROLLS",
    "Check",
    "Choice",
    "Level",
    "Odds",
    "Option",
    "Roll",
    "best_reroll",
    "chance",
    "chance_json",
    "check",
    "host_choices",
    "host_force",
    "monstrous_range",
    "parse",
    "player_choices",
    "standing_totals",
    "succeeds",
    "unclear_choices",
]

D4_FACES: Final = range(1, 5)
D9_FACES: Final = range(0, 10)

#: Rules text, "Easy task": "any result but a 13 succeeds"; rules README, "D13": "A 13 always fails
#: … we read it for every level, even when a boost lifts ability + skill to 13 or more."
ALWAYS_FAILS: Final = 13

#: The targets a spec may give: ability + skill, +2 per face card, with room to spare both ways.
MIN_TARGET: Final = -50
MAX_TARGET: Final = 99


class Level(StrEnum):
    """Rules text, "Difficulty Level": "Difficulty levels are Easy, Average, Difficult, and Monstrous." """

    EASY = "easy"
    AVERAGE = "average"
    DIFFICULT = "difficult"
    MONSTROUS = "monstrous"


#: Each level in the rules text's words.
LEVEL_WORDS: Final = {Level.EASY: "Easy", Level.AVERAGE: "Average", Level.DIFFICULT: "Difficult",
                      Level.MONSTROUS: "Monstrous"}  # fmt: skip


LEVELS: Final = tuple(Level)


def _face(value: object, faces: range, field: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value not in faces:
        raise SpecError(field, f"a {field} shows {faces[0]} to {faces[-1]}, not {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class Roll:
    """One d13 roll: the d4 (1–4) and the d9 (0–9)."""

    d4: int
    d9: int

    def __post_init__(self) -> None:
        _face(self.d4, D4_FACES, "d4")
        _face(self.d9, D9_FACES, "d9")

    @property
    def total(self) -> int:
        return self.d4 + self.d9

    @property
    def doubles(self) -> bool:
        """Rules text, "Doubles": "1+1, 2+2, 3+3, or 4+4" (a d9 of 0 or 5–9 never doubles)."""
        return self.d4 == self.d9

    @property
    def turn_number(self) -> int:
        """Rules text, "Dice Roll": the total "may be used for effect and timing"; the turn number is
        the total of the roll that stands."""
        return self.total


#: The 40 rolls, each with chance 1/40.
ROLLS: Final = tuple(Roll(d4, d9) for d4 in D4_FACES for d9 in D9_FACES)


def succeeds(roll: Roll, target: int, level: Level) -> bool:
    """Whether a roll that stands succeeds.

    Rules text, "Success or Failure": "If the dice total is equal to or less than the total of
    ability plus skill, the task attempt succeeds"; "Doubles": "the character automatically
    succeeds"; "Easy task": "any result but a 13 succeeds". Rules README, "D13": a 13 fails at every
    level, whatever the target.
    """
    if roll.total == ALWAYS_FAILS:
        return False
    return level is Level.EASY or roll.doubles or roll.total <= target


#: What may be done with a roll: keep it (or let it stand), or reroll the d4 or the d9.
Choice = Literal["keep", "d4", "d9"]


@dataclass(frozen=True, slots=True)
class Odds:
    """The chance of success, and of a card (doubles on the roll that stands)."""

    success: Fraction
    card: Fraction


@dataclass(frozen=True, slots=True)
class Option:
    """One choice after the dice, with the exact chance it leaves of success and of a card."""

    key: Choice
    success: Fraction
    card: Fraction

    @property
    def odds(self) -> Odds:
        return Odds(self.success, self.card)


@dataclass(frozen=True, slots=True)
class _Spread:
    """The rolls that may stand after a choice, each with a whole-number weight over ``den``."""

    weights: tuple[tuple[Roll, int], ...]
    den: int


def _mix(parts: Sequence[_Spread]) -> _Spread:
    """Equally likely spreads as one: each weight brought over a common denominator."""
    common = lcm(*(part.den for part in parts))
    weights = tuple((r, w * (common // part.den)) for part in parts for r, w in part.weights)
    return _Spread(weights, common * len(parts))


def _rerolled(roll: Roll, key: Choice) -> _Spread:
    """The roll that stands after ``key``: the same roll, or one die rolled again (the new roll stands)."""
    if key == "d4":
        return _Spread(tuple((Roll(d4, roll.d9), 1) for d4 in D4_FACES), len(D4_FACES))
    if key == "d9":
        return _Spread(tuple((Roll(roll.d4, d9), 1) for d9 in D9_FACES), len(D9_FACES))
    return _Spread(((roll, 1),), 1)


def _option(key: Choice, spread: _Spread, target: int, level: Level) -> Option:
    success = sum(w for r, w in spread.weights if succeeds(r, target, level))
    card = sum(w for r, w in spread.weights if r.doubles)
    return Option(key, Fraction(success, spread.den), Fraction(card, spread.den))


def _mean(options: Iterable[Option], key: Choice) -> Option:
    """The mean of equally likely options' chances."""
    taken = list(options)
    success = sum((o.success for o in taken), Fraction(0))
    card = sum((o.card for o in taken), Fraction(0))
    return Option(key, success / len(taken), card / len(taken))


def player_choices(roll: Roll, target: int) -> tuple[Option, ...]:
    """An Average task after the dice: keep, reroll the d4, or reroll the d9 (none on a 13).

    Rules text, "Average task": "(on any result but a 13) may reroll either the d4 or d9 for a better
    result." Rules README, "D13": "the new roll stands"; a reroll after a success is the player's
    choice (a better effect or turn number), so it is offered with its chance too.
    """
    keys: tuple[Choice, ...] = ("keep",) if roll.total == ALWAYS_FAILS else ("keep", "d4", "d9")
    return tuple(_option(key, _rerolled(roll, key), target, Level.AVERAGE) for key in keys)


def host_choices(roll: Roll, target: int) -> tuple[Option, ...]:
    """A Monstrous task after the dice, the host's choice: let it stand, force the d4, force the d9.

    Rules text, "Monstrous task": "the game host may force the reroll of the d4 or d9." Rules README,
    "D13": "after a success the host, having seen the dice, may force a reroll … the new roll
    stands." After a failure the roll stands: one option.
    """
    keys: tuple[Choice, ...] = ("keep", "d4", "d9") if succeeds(roll, target, Level.MONSTROUS) else ("keep",)
    return tuple(_option(key, _rerolled(roll, key), target, Level.MONSTROUS) for key in keys)


def _player_pick(offered: tuple[Option, ...]) -> Choice | None:
    keep, *rerolls = offered
    if not rerolls or keep.success == 1:
        return None
    return max(rerolls, key=lambda o: (o.success, o.card, o.key == "d9")).key


def _host_pick(offered: tuple[Option, ...]) -> Choice | None:
    keep, *forced = offered
    if not forced:
        return None
    worst = min(forced, key=lambda o: (o.success, o.card, o.key != "d9"))
    return worst.key if worst.success < keep.success else None


def best_reroll(roll: Roll, target: int) -> Choice | None:
    """The die the player rerolls on an Average task, as the chance assumes; None to keep.

    Rules README, "D13": "the player rerolls only after a failure, the die that gives the best
    chance"; "Equal choices: … the player picks the one with the better chance of a card". A 13
    cannot be rerolled. After a failure the kept roll has no chance at all, and a new d9 has at least
    1/10 (doubles), so the player always rerolls then.
    """
    return _player_pick(player_choices(roll, target))


def host_force(roll: Roll, target: int) -> Choice | None:
    """The die the host forces on a Monstrous task, as the chance assumes; None to let it stand.

    Rules README, "D13": "the host forces a reroll only when it lowers the player's chance, on the
    die that hurts most"; "Equal choices: … the host the one with the worse [chance of a card]".
    When neither die can lower a success's certainty the roll stands (doubles that stand draw).
    """
    return _host_pick(host_choices(roll, target))


def _taken(roll: Roll, target: int, level: Level) -> Option:
    """The option the policy takes after ``roll``: among the choices a page offers, the one
    :func:`best_reroll` or :func:`host_force` names, else keeping the roll."""
    if level is Level.AVERAGE:
        offered = player_choices(roll, target)
        key = _player_pick(offered) or "keep"
    elif level is Level.MONSTROUS:
        offered = host_choices(roll, target)
        key = _host_pick(offered) or "keep"
    else:
        return _option("keep", _rerolled(roll, "keep"), target, level)
    return next(o for o in offered if o.key == key)


def _unclear_rerolled(d9: int, key: Choice) -> _Spread:
    """An unclear Average roll after the player's request, made before the hidden d4 is revealed.

    Rules README, "D13": "an Average reroll may be asked before the reveal". A hidden 13 cannot be
    rerolled ("on any result but a 13"): the request has no effect and the 13 stands.
    """
    hidden = (Roll(d4, d9) for d4 in D4_FACES)
    return _mix([_rerolled(roll, "keep" if roll.total == ALWAYS_FAILS else key) for roll in hidden])


def unclear_choices(d9: int, target: int, level: Level) -> tuple[Option, ...]:
    """An unclear task: the player's choices seeing only the d9, each chance given that d9.

    Rules text, "Unclear Tasks": "the game host may choose to roll the player's d4 secretly, leaving
    the player to judge likely success by the d9 result alone." On an Average task the player may ask
    before the reveal to keep, to reroll the hidden d4 (rolled secretly again) or to reroll the d9,
    not knowing whether the roll failed; a hidden 13 stays a 13. The chance shown is that of the
    request made then: the roll that stands is revealed, with no second request. The other levels leave the player no
    choice: one option, ``keep``, whose chance is that of the level's roll given the d9, the host's
    forcing on a Monstrous task included (the host sees the real dice).
    """
    _face(d9, D9_FACES, "d9")
    if level is Level.AVERAGE:
        keys: tuple[Choice, ...] = ("keep", "d4", "d9")
        return tuple(_option(key, _unclear_rerolled(d9, key), target, level) for key in keys)
    return (_mean((_taken(Roll(d4, d9), target, level) for d4 in D4_FACES), "keep"),)


#: On a full tie the player keeps (asks nothing), else rerolls the d9.
_PLAYER_PREFERS: Final[Mapping[Choice, int]] = {"keep": 2, "d9": 1, "d4": 0}


def _unclear_taken(d9: int, target: int, level: Level) -> Option:
    """The best of :func:`unclear_choices`: the better chance of success, then of a card."""
    return max(unclear_choices(d9, target, level), key=lambda o: (o.success, o.card, _PLAYER_PREFERS[o.key]))


def check(target: int, level: Level, d9_seen: int | None = None) -> Odds:
    """The chance of success and of a card before the roll, or given the d9 the player sees.

    Rules README, "D13": the chance follows the policies (module docstring); "Unclear tasks: the
    player's page shows P(success | the d9 seen)". Before the roll it is the mean over the 40 rolls
    of the chance the option taken leaves; given the d9, the chance of the player's best choice.
    """
    if d9_seen is not None:
        return _unclear_taken(d9_seen, target, level).odds
    return _mean((_taken(roll, target, level) for roll in ROLLS), "keep").odds


def monstrous_range(target: int, d9_seen: int | None = None) -> tuple[Odds, Odds]:
    """A Monstrous task's chance at its worst (the host forces as the policy says: :func:`check`) and
    at its best (the host lets every success stand: one roll, the chance of a Difficult task)."""
    return check(target, Level.MONSTROUS, d9_seen), check(target, Level.DIFFICULT, d9_seen)


def _standing(target: int, level: Level, d9_seen: int | None) -> _Spread:
    if d9_seen is not None and level is Level.AVERAGE:
        return _unclear_rerolled(d9_seen, _unclear_taken(d9_seen, target, level).key)
    firsts = ROLLS if d9_seen is None else tuple(Roll(d4, d9_seen) for d4 in D4_FACES)
    return _mix([_rerolled(roll, _taken(roll, target, level).key) for roll in firsts])


def standing_totals(target: int, level: Level, d9_seen: int | None = None) -> dict[int, Fraction]:
    """The chance of each total of the roll that stands, under the same policies as :func:`check`
    (rules README, "D13": "Doubles and the 13 are judged on the roll that stands"): for a chart of
    the total, the effect and the turn number. Only totals that can stand appear, lowest first."""
    spread = _standing(target, level, d9_seen)
    weights: dict[int, int] = {}
    for roll, w in spread.weights:
        weights[roll.total] = weights.get(roll.total, 0) + w
    return {total: Fraction(weights[total], spread.den) for total in sorted(weights)}


# The chance interface (rules README, "The chance interface").


@dataclass(frozen=True, slots=True)
class Check:
    """A check as a spec names it: the difficulty, the target, and the d9 seen on an unclear task."""

    level: Level
    target: int
    d9_seen: int | None = None


CHECK_FIELDS: Final = frozenset({"system", "roll", "difficulty", "target", "d9_seen"})


def _whole(spec: Mapping[str, Any], field: str, low: int, high: int, what: str) -> int:
    value = spec.get(field)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise SpecError(field, f"{what} is a whole number from {low} to {high}, not {value!r}")
    return value


def parse(spec: Mapping[str, Any]) -> Check:
    """``{"system": "d13", "roll": "check", "difficulty": "average", "target": 8}``, with an optional
    ``"d9_seen"`` (0–9) for an unclear task; a bad field raises :class:`SpecError` naming it."""
    if not isinstance(spec, Mapping):
        raise SpecError("spec", "a roll is a JSON object")
    for key in spec:
        if key not in CHECK_FIELDS:
            raise SpecError(str(key), "is not a field of this roll")
    if spec.get("system", "d13") != "d13":
        raise SpecError("system", f"this is a d13 roll, not {spec['system']!r}")
    if spec.get("roll", "check") != "check":
        raise SpecError("roll", f"a d13 roll is a check, not {spec['roll']!r}")
    difficulty = spec.get("difficulty")
    if not isinstance(difficulty, str) or difficulty not in {level.value for level in Level}:
        names = ", ".join(LEVELS)
        raise SpecError("difficulty", f"a difficulty is one of {names}, not {difficulty!r}")
    target = _whole(spec, "target", MIN_TARGET, MAX_TARGET, "the target (ability + skill, +2 per face card)")
    seen = spec.get("d9_seen")
    d9_seen = None if seen is None else _whole(spec, "d9_seen", D9_FACES[0], D9_FACES[-1], "the d9 seen")
    return Check(Level(difficulty), target, d9_seen)


def chance(parsed: Check) -> Odds:
    """The chance of a parsed spec: :func:`check` of its target, difficulty and d9 seen."""
    return check(parsed.target, parsed.level, parsed.d9_seen)


def _ratio(p: Fraction) -> str:
    return f"{p.numerator}/{p.denominator}"


def chance_json(spec: Mapping[str, Any]) -> dict[str, str]:
    """``{"p_success": "p/q", "p_card": "p/q"}``; a Monstrous check adds the chance at its best,
    the host letting every success stand (``"p_success_best"``, ``"p_card_best"``)."""
    parsed = parse(spec)
    odds = chance(parsed)
    out = {"p_success": _ratio(odds.success), "p_card": _ratio(odds.card)}
    if parsed.level is Level.MONSTROUS:
        _, best = monstrous_range(parsed.target, parsed.d9_seen)
        out |= {"p_success_best": _ratio(best.success), "p_card_best": _ratio(best.card)}
    return out
