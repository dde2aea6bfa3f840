"""Exact D13 chances against a plain enumeration of every roll and every reroll (rules README, "D13",
"The chance interface")."""

from __future__ import annotations

from fractions import Fraction

import pytest

from rules.systems.d13.chance import (
    ROLLS,
    Level,
    Odds,
    Option,
    Roll,
    best_reroll,
    chance_json,
    check,
    host_choices,
    host_force,
    monstrous_range,
    parse,
    player_choices,
    standing_totals,
    succeeds,
    unclear_choices,
)
from rules.systems.protocol.errors import SpecError

TARGETS = range(-1, 16)
D4 = range(1, 5)
D9 = range(0, 10)

# The reference: the rules applied literally to plain (d4, d9) pairs, with no code from the engine.


def ok(d4: int, d9: int, target: int, level: str) -> bool:
    """A 13 fails; Easy: anything else succeeds; otherwise total <= target, or doubles."""
    if d4 + d9 == 13:
        return False
    if level == "easy":
        return True
    return d4 == d9 or d4 + d9 <= target


def after(d4: int, d9: int, die: str) -> list[tuple[int, int]]:
    """The equally likely rolls after rerolling ``die`` (or none)."""
    if die == "d4":
        return [(x, d9) for x in D4]
    if die == "d9":
        return [(d4, y) for y in D9]
    return [(d4, d9)]


def odds_of(rolls: list[tuple[int, int]], target: int, level: str) -> tuple[Fraction, Fraction]:
    """(P(success), P(card)) over equally likely rolls."""
    n = len(rolls)
    wins = sum(1 for d4, d9 in rolls if ok(d4, d9, target, level))
    cards = sum(1 for d4, d9 in rolls if d4 == d9)
    return Fraction(wins, n), Fraction(cards, n)


def player_pick(d4: int, d9: int, target: int) -> str:
    """Average: after a failure that is not a 13, the die with the best chance, then the better card; else d9."""
    if d4 + d9 == 13 or ok(d4, d9, target, "average"):
        return "keep"
    s4, c4 = odds_of(after(d4, d9, "d4"), target, "average")
    s9, c9 = odds_of(after(d4, d9, "d9"), target, "average")
    if s4 > s9 or (s4 == s9 and c4 > c9):
        return "d4"
    return "d9"


def host_pick(d4: int, d9: int, target: int) -> str:
    """Monstrous: after a success, the die that hurts most, then the worse card; only below certainty."""
    if not ok(d4, d9, target, "monstrous"):
        return "keep"
    s4, c4 = odds_of(after(d4, d9, "d4"), target, "monstrous")
    s9, c9 = odds_of(after(d4, d9, "d9"), target, "monstrous")
    die = "d4" if s4 < s9 or (s4 == s9 and c4 < c9) else "d9"
    worst = min(s4, s9)
    return die if worst < 1 else "keep"


def pick(d4: int, d9: int, target: int, level: str) -> str:
    if level == "average":
        return player_pick(d4, d9, target)
    if level == "monstrous":
        return host_pick(d4, d9, target)
    return "keep"


def unclear_after(d9: int, choice: str) -> list[tuple[Fraction, tuple[int, int]]]:
    """Average, d4 hidden: the player's request before the reveal; a hidden 13 is not rerolled."""
    out = []
    for d4 in D4:
        die = "keep" if d4 + d9 == 13 else choice
        rolls = after(d4, d9, die)
        out += [(Fraction(1, 4 * len(rolls)), r) for r in rolls]
    return out


def weighted_odds(spread: list[tuple[Fraction, tuple[int, int]]], target: int, level: str) -> tuple[Fraction, Fraction]:
    success = sum((w for w, (d4, d9) in spread if ok(d4, d9, target, level)), Fraction(0))
    card = sum((w for w, (d4, d9) in spread if d4 == d9), Fraction(0))
    return success, card


def unclear_pick(d9: int, target: int) -> str:
    """The best request seeing the d9: the chance of success, then of a card; keep, then d9, on a tie."""
    best = "keep"
    for choice in ("d9", "d4"):
        if weighted_odds(unclear_after(d9, choice), target, "average") > weighted_odds(
            unclear_after(d9, best), target, "average"
        ):
            best = choice
    return best


def standing(target: int, level: str, d9_seen: int | None = None) -> list[tuple[Fraction, tuple[int, int]]]:
    """Every roll that can stand, with its chance, following the policies literally."""
    if d9_seen is not None and level == "average":
        return unclear_after(d9_seen, unclear_pick(d9_seen, target))
    firsts = [(d4, d9) for d4 in D4 for d9 in D9 if d9_seen is None or d9 == d9_seen]
    out = []
    for d4, d9 in firsts:
        rolls = after(d4, d9, pick(d4, d9, target, level))
        out += [(Fraction(1, len(firsts) * len(rolls)), r) for r in rolls]
    return out


def reference_totals(target: int, level: str, d9_seen: int | None = None) -> dict[int, Fraction]:
    out: dict[int, Fraction] = {}
    for w, (d4, d9) in standing(target, level, d9_seen):
        out[d4 + d9] = out.get(d4 + d9, Fraction(0)) + w
    return out


EVERY_LEVEL = pytest.mark.parametrize("level", list(Level))
EVERY_TARGET = pytest.mark.parametrize("target", TARGETS)


@EVERY_LEVEL
@EVERY_TARGET
def test_check_matches_the_enumeration(level: Level, target: int) -> None:
    assert check(target, level) == Odds(*weighted_odds(standing(target, level), target, level))
    for d9 in D9:
        expected = weighted_odds(standing(target, level, d9), target, level)
        assert check(target, level, d9_seen=d9) == Odds(*expected), d9


@EVERY_LEVEL
@EVERY_TARGET
def test_standing_totals_match_the_enumeration(level: Level, target: int) -> None:
    totals = standing_totals(target, level)
    assert totals == reference_totals(target, level)
    assert sum(totals.values()) == 1
    assert list(totals) == sorted(totals)
    for d9 in D9:
        assert standing_totals(target, level, d9_seen=d9) == reference_totals(target, level, d9), d9


@EVERY_TARGET
def test_player_choices_and_the_reroll_taken(target: int) -> None:
    for roll in ROLLS:
        options = {o.key: o.odds for o in player_choices(roll, target)}
        if roll.total == 13:
            assert options == {"keep": Odds(Fraction(0), Fraction(0))}
        else:
            assert list(options) == ["keep", "d4", "d9"]
            for die in ("d4", "d9"):
                assert options[die] == Odds(*odds_of(after(roll.d4, roll.d9, die), target, "average"))
        keep_success = Fraction(int(ok(roll.d4, roll.d9, target, "average")))
        assert options["keep"] == Odds(keep_success, Fraction(int(roll.doubles)))
        expected = player_pick(roll.d4, roll.d9, target)
        assert best_reroll(roll, target) == (None if expected == "keep" else expected), roll


@EVERY_TARGET
def test_host_choices_and_the_force_taken(target: int) -> None:
    for roll in ROLLS:
        options = {o.key: o.odds for o in host_choices(roll, target)}
        if ok(roll.d4, roll.d9, target, "monstrous"):
            assert options["keep"] == Odds(Fraction(1), Fraction(int(roll.doubles)))
            for die in ("d4", "d9"):
                assert options[die] == Odds(*odds_of(after(roll.d4, roll.d9, die), target, "monstrous"))
        else:
            assert options == {"keep": Odds(Fraction(0), Fraction(0))}
        expected = host_pick(roll.d4, roll.d9, target)
        assert host_force(roll, target) == (None if expected == "keep" else expected), roll


@EVERY_TARGET
def test_unclear_choices(target: int) -> None:
    for d9 in D9:
        average = unclear_choices(d9, target, Level.AVERAGE)
        assert [o.key for o in average] == ["keep", "d4", "d9"]
        for option in average:
            assert option.odds == Odds(*weighted_odds(unclear_after(d9, option.key), target, "average"))
        for level in (Level.EASY, Level.DIFFICULT, Level.MONSTROUS):
            (only,) = unclear_choices(d9, target, level)
            assert only.key == "keep"
            assert only.odds == Odds(*weighted_odds(standing(target, level, d9), target, level))


@EVERY_TARGET
def test_check_is_the_mean_of_the_options_taken(target: int) -> None:
    """The chance before the roll is the mean over the 40 rolls of the chance the option taken leaves."""

    def taken(options: tuple[Option, ...], key: str | None) -> Odds:
        return next(o.odds for o in options if o.key == (key or "keep"))

    def mean(odds: list[Odds]) -> Odds:
        n = len(odds)
        return Odds(sum((o.success for o in odds), Fraction(0)) / n, sum((o.card for o in odds), Fraction(0)) / n)

    average = [taken(player_choices(r, target), best_reroll(r, target)) for r in ROLLS]
    monstrous = [taken(host_choices(r, target), host_force(r, target)) for r in ROLLS]
    for level, options in ((Level.AVERAGE, average), (Level.MONSTROUS, monstrous)):
        assert check(target, level) == mean(options)
    for d9 in D9:
        best = max(unclear_choices(d9, target, Level.AVERAGE), key=lambda o: (o.success, o.card))
        assert check(target, Level.AVERAGE, d9) == best.odds
    # Without a choice to make, the chance before the roll is the mean of the chances given each d9.
    for level in (Level.EASY, Level.DIFFICULT, Level.MONSTROUS):
        assert check(target, level) == mean([check(target, level, d9) for d9 in D9])


@EVERY_TARGET
def test_monstrous_range(target: int) -> None:
    assert monstrous_range(target) == (check(target, Level.MONSTROUS), check(target, Level.DIFFICULT))
    worst, best = monstrous_range(target)
    assert worst.success <= best.success
    assert best == Odds(*weighted_odds([(Fraction(1, 40), (r.d4, r.d9)) for r in ROLLS], target, "monstrous"))
    for d9 in D9:
        assert monstrous_range(target, d9) == (check(target, Level.MONSTROUS, d9), check(target, Level.DIFFICULT, d9))


# Hand-checked.


@pytest.mark.parametrize("target", [-50, -1, 0, 5, 12, 13, 20, 99])
def test_easy_is_anything_but_a_13(target: int) -> None:
    assert check(target, Level.EASY) == Odds(Fraction(39, 40), Fraction(1, 10))


def test_a_13_never_succeeds() -> None:
    thirteen = Roll(4, 9)
    for level in Level:
        assert not succeeds(thirteen, 20, level)
        assert check(20, level).success < 1
    assert check(20, Level.DIFFICULT) == Odds(Fraction(39, 40), Fraction(1, 10))
    # Average cannot reroll a 13: everything else succeeds already.
    assert check(12, Level.AVERAGE).success == Fraction(39, 40)
    assert [o.key for o in player_choices(thirteen, 20)] == ["keep"]
    assert best_reroll(thirteen, 20) is None


def test_difficult_by_hand() -> None:
    # Target 0: only the four doubles succeed, and each draws a card.
    assert check(0, Level.DIFFICULT) == Odds(Fraction(4, 40), Fraction(4, 40))
    for target in TARGETS:
        assert check(target, Level.DIFFICULT).card == Fraction(1, 10)
    # The unclear example of the chance interface: d9 1, so the totals 2, 3, 4, 5 (2 is doubles).
    assert check(3, Level.DIFFICULT, d9_seen=1) == Odds(Fraction(1, 2), Fraction(1, 4))


def test_average_by_hand() -> None:
    # Target -1: only doubles succeed (4 rolls). After a failure with a d9 of 1–4 (12 rolls) a new d4
    # matches it 1 time in 4; with a d9 of 0 or 5–9 (24 rolls, less the 13) only a new d9 can, 1 in 10.
    assert check(-1, Level.AVERAGE) == Odds(Fraction(93, 400), Fraction(93, 400))
    assert best_reroll(Roll(1, 2), -1) == "d4"
    assert best_reroll(Roll(1, 7), -1) == "d9"
    assert best_reroll(Roll(1, 1), -1) is None
    # Equal chances of success: the player takes the die with the better chance of a card. Target 7,
    # 3+5: a new d4 succeeds on 1 or 2, 1/2, never doubles; a new d9 on 0–4, 1/2, with a card 1/10.
    assert best_reroll(Roll(3, 5), 7) == "d9"


def test_monstrous_by_hand() -> None:
    # Target 20: only a 13 fails. A d9 of 9 (d4 1–3) is forced on the d4, 3/4; a d4 of 4 (d9 0–8) on
    # the d9, 9/10; the other 27 successes stand: (27 + 9/4 + 81/10) / 40.
    assert check(20, Level.MONSTROUS) == Odds(Fraction(747, 800), Fraction(39, 400))
    assert host_force(Roll(2, 9), 20) == "d4"
    assert host_force(Roll(4, 4), 20) == "d9"
    # Doubles the host cannot hurt stand, and draw.
    assert host_force(Roll(3, 3), 12) is None
    assert {o.key: o.card for o in host_choices(Roll(3, 3), 12)}["keep"] == 1
    # Equal chances of success: the host takes the die with the worse chance of a card. Target 5,
    # 1+4: a new d4 succeeds on 1 and on 4+4, 1/2, with a card 1/4; a new d9 on 0–4, 1/2, card 1/10.
    assert host_force(Roll(1, 4), 5) == "d9"
    # After a failure the host has nothing to force.
    assert [o.key for o in host_choices(Roll(1, 9), 5)] == ["keep"]


def test_unclear_average_by_hand() -> None:
    # Target 20, d9 9: a hidden 4 makes the 13, which no request rerolls. Keep: 3/4 and no card. A new
    # d4 for the other three: 3/4 · 3/4. A new d9 for them: always 12 or less, and doubles 1 in 10: the
    # same 3/4 with a card 3/40, so the player asks for the d9.
    keep, d4, d9 = unclear_choices(9, 20, Level.AVERAGE)
    assert keep.odds == Odds(Fraction(3, 4), Fraction(0))
    assert d4.odds == Odds(Fraction(9, 16), Fraction(0))
    assert d9.odds == Odds(Fraction(3, 4), Fraction(3, 40))
    assert check(20, Level.AVERAGE, d9_seen=9) == d9.odds
    # A d9 of 1 at target 3: keep and a new d4 are the same roll; the player keeps.
    assert check(3, Level.AVERAGE, d9_seen=1) == Odds(Fraction(1, 2), Fraction(1, 4))
    assert standing_totals(3, Level.AVERAGE, d9_seen=1) == {t: Fraction(1, 4) for t in (2, 3, 4, 5)}


def test_a_roll() -> None:
    roll = Roll(3, 3)
    assert (roll.total, roll.doubles, roll.turn_number) == (6, True, 6)
    assert not Roll(1, 0).doubles
    assert len(ROLLS) == len(set(ROLLS)) == 40


@pytest.mark.parametrize(
    ("d4", "d9", "field"), [(0, 1, "d4"), (5, 1, "d4"), (True, 1, "d4"), (1, 10, "d9"), (1, -1, "d9")]
)
def test_a_roll_off_the_dice_is_refused(d4: int, d9: int, field: str) -> None:
    with pytest.raises(SpecError) as caught:
        Roll(d4, d9)
    assert caught.value.field == field


# The chance interface.


def test_chance_json() -> None:
    spec = {"system": "d13", "roll": "check", "difficulty": "average", "target": 8}
    assert chance_json(spec) == {"p_success": "687/800", "p_card": "13/100"}
    unclear = {"system": "d13", "roll": "check", "difficulty": "difficult", "target": 3, "d9_seen": 1}
    assert chance_json(unclear) == {"p_success": "1/2", "p_card": "1/4"}
    assert chance_json({**spec, "d9_seen": None}) == chance_json(spec)
    monstrous = chance_json({"difficulty": "monstrous", "target": 20})
    assert monstrous == {"p_success": "747/800", "p_card": "39/400", "p_success_best": "39/40", "p_card_best": "1/10"}
    parsed = parse({"difficulty": "easy", "target": -50, "d9_seen": 0})
    assert (parsed.level, parsed.target, parsed.d9_seen) == (Level.EASY, -50, 0)
    assert parse({"difficulty": "easy", "target": 99}).target == 99


@pytest.mark.parametrize(
    ("spec", "field"),
    [
        ({"difficulty": "easy", "target": 5, "ability": 3}, "ability"),
        ({"target": 5}, "difficulty"),
        ({"difficulty": "hard", "target": 5}, "difficulty"),
        ({"difficulty": 2, "target": 5}, "difficulty"),
        ({"difficulty": "easy"}, "target"),
        ({"difficulty": "easy", "target": True}, "target"),
        ({"difficulty": "easy", "target": "5"}, "target"),
        ({"difficulty": "easy", "target": 5.0}, "target"),
        ({"difficulty": "easy", "target": -51}, "target"),
        ({"difficulty": "easy", "target": 100}, "target"),
        ({"difficulty": "easy", "target": 5, "d9_seen": 10}, "d9_seen"),
        ({"difficulty": "easy", "target": 5, "d9_seen": -1}, "d9_seen"),
        ({"difficulty": "easy", "target": 5, "d9_seen": False}, "d9_seen"),
        ({"difficulty": "easy", "target": 5, "d9_seen": "1"}, "d9_seen"),
        ({"system": "d6", "difficulty": "easy", "target": 5}, "system"),
        ({"roll": "opposed", "difficulty": "easy", "target": 5}, "roll"),
        (["difficulty", "easy"], "spec"),
    ],
)
def test_a_bad_spec_names_its_field(spec: object, field: str) -> None:
    with pytest.raises(SpecError) as caught:
        chance_json(spec)  # type: ignore[arg-type]
    assert caught.value.field == field
    assert str(caught.value).startswith(f"{field}: ")


def test_an_unknown_difficulty_lists_the_four() -> None:
    with pytest.raises(SpecError, match="easy, average, difficult, monstrous"):
        parse({"difficulty": "Average", "target": 5})
