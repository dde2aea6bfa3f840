"""D13's sheet moves played through ``Move.apply``: the task roll at each difficulty, the decisions it leaves
and their answers, the unclear task and its reveal, the cards a player plays and the turn number (rules text,
"Dice Roll", "Doubles", "Unclear Tasks", "Using Poker Cards"; rules README, "D13")."""

from __future__ import annotations

import json
from dataclasses import replace
from fractions import Fraction
from typing import Any

import pytest

from rules.systems.d13 import SYSTEM, cards
from rules.systems.d13.chance import Level, Roll, check, host_choices, player_choices, unclear_choices
from rules.systems.d13.moves import TABLE_PARTS, target_of
from rules.systems.d13.sheet import Last, Task
from rules.systems.d13.table import Boost, Hand, Secret, Table, Turn, new_table
from rules.systems.moves import Choice, NoInput, Prompt, Scope, Situation
from rules.systems.protocol.editing import Role
from rules.systems.protocol.errors import SpecError
from tests.systems.d13.engine import (
    CHARACTER,
    GM,
    OPTIONS,
    OTHER_CHARACTER,
    OWNER,
    Dice,
    Play,
    finished,
    mara,
    move,
    options,
    shuffled_table,
    skill_id,
)

OCCULT, ATHLETICS = 7, 1  # Mara's skills by id: Wits 3 + Occult 2 is a target of 5
ROLL_MOVES = (
    "d13-roll",
    "d13-keep",
    "d13-reroll",
    "d13-stand",
    "d13-force",
    "d13-reveal",
    "d13-card",
    "d13-automatic",
    "d13-mark",
    "d13-turn",
)


def chances(prompt: Prompt | None) -> list[tuple[str, dict[str, Any], Fraction | None]]:
    assert prompt is not None
    return [(c.move, dict(c.input), c.chance) for c in prompt.choices]


def test_the_sheet_moves_and_who_makes_them() -> None:
    sheet_moves = {m.key: m for m in SYSTEM.moves if m.scope is Scope.SHEET}
    assert tuple(sheet_moves) == ROLL_MOVES
    both, host = frozenset({Role.OWNER, Role.GM}), frozenset({Role.GM})
    assert {k: m.who for k, m in sheet_moves.items()} == {"d13-roll": both, "d13-keep": both, "d13-reroll": both,
                                                          "d13-stand": host, "d13-force": host, "d13-reveal": host,
                                                          "d13-card": both, "d13-automatic": host,
                                                          "d13-mark": host, "d13-turn": both}  # fmt: skip
    assert {k for k, m in sheet_moves.items() if m.answers} == {"d13-keep", "d13-reroll", "d13-stand", "d13-force",
                                                                "d13-reveal"}  # fmt: skip
    # Every roll move is made from the roll waiting and the last settled, and may change the table.
    assert all(m.parts == ("roll",) for k, m in sheet_moves.items() if k != "d13-mark")
    assert sheet_moves["d13-mark"].parts == ("condition",)
    assert all(m.table_parts == TABLE_PARTS for k, m in sheet_moves.items()
               if k not in ("d13-turn", "d13-automatic", "d13-mark"))  # fmt: skip
    assert sheet_moves["d13-turn"].table_parts == ("turns",)
    assert sheet_moves["d13-automatic"].table_parts == ()


# --- The roll at each difficulty ------------------------------------------------------------------------


def test_an_easy_roll_stands_at_once_and_anything_but_13_succeeds() -> None:
    play = Play(mara())
    made = play.roll("easy", 3, 6)
    assert made.prompt is None
    assert play.sheet.pending is None
    assert play.sheet.last == Last(task=Task(level=Level.EASY, ability="wits", skill=OCCULT, target=5), total=9,
                                   success=True, effect=9, roll=1)  # fmt: skip
    (rolled,) = made.rolls
    assert (rolled.kind, rolled.total, rolled.dice, dict(rolled.outcome)) == (
        "check", 9, {"d4": 3, "d9": 6}, {"success": True, "doubles": False})  # fmt: skip
    assert (rolled.chance, rolled.chance_of, rolled.secret) == (check(5, Level.EASY).success, "success", False)
    assert rolled.spec == {"system": "d13", "roll": "check", "difficulty": "easy", "target": 5, "ability": "wits",
                           "skill": "Occult", "unclear": False}  # fmt: skip
    assert rolled.label == "Easy Wits + Occult (5)"
    assert made.result == {"d4": 3, "d9": 6, "total": 9}
    assert made.words == "Easy Wits + Occult (5): 9, a success"
    assert made.notice == "rolled 9, a success"

    made = play.roll("easy", 4, 9)
    assert made.prompt is None
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success, play.sheet.last.roll) == (13, False, 2)
    assert made.words == "Easy Wits + Occult (5): 13, a failure: a 13 always fails"


def test_a_difficult_roll_stands_at_once() -> None:
    play = Play(mara())
    made = play.roll("difficult", 1, 6)
    assert made.prompt is None
    assert play.sheet.pending is None
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success) == (7, False)
    # 14 totals of 5 or less, and the doubles 3 + 3 and 4 + 4: 16 rolls in 40.
    assert made.rolls[0].chance == check(5, Level.DIFFICULT).success == Fraction(16, 40)
    made = play.roll("difficult", 2, 3)
    assert made.prompt is None
    assert play.sheet.last is not None
    assert play.sheet.last.success


def test_a_13_fails_even_when_the_target_is_13_or_more() -> None:
    boosts = tuple(Boost(character=CHARACTER, skill=OCCULT, size=2, card=code) for code in ("QH", "KH", "JH"))
    play = Play(finished((5, 3, 2, 2), Occult=4), table=Table(boosts=boosts))
    play.roll("difficult", 4, 9, ability="brawn")
    assert play.sheet.last is not None
    assert (play.sheet.last.task.target, play.sheet.last.total, play.sheet.last.success) == (15, 13, False)


def test_the_ability_alone_is_rolled_without_a_skill() -> None:
    play = Play(mara())
    made = play.roll("difficult", 2, 1, ability="grace", skill=None)
    assert play.sheet.last is not None
    assert play.sheet.last.task == Task(level=Level.DIFFICULT, ability="grace", skill=None, target=3)
    assert made.words == "Difficult Grace (3): 3, a success"


def test_an_average_roll_leaves_the_player_the_choice_with_its_exact_chances() -> None:
    play = Play(mara())
    made = play.roll("average", 2, 6)
    assert made.prompt is not None
    assert made.prompt.to == OWNER
    offered = player_choices(Roll(2, 6), 5)
    assert chances(made.prompt) == [("d13-keep", {}, offered[0].success), ("d13-reroll", {"die": "d4"},
                                    offered[1].success), ("d13-reroll", {"die": "d9"}, offered[2].success)]  # fmt: skip
    assert [c.label for c in made.prompt.choices] == ["Keep it", "Reroll the d4",
                                                      "Reroll the d9 (a card: 10%)"]  # fmt: skip
    pending = play.sheet.pending
    assert pending is not None
    assert (pending.d4, pending.d9, pending.stage, pending.secret, pending.roll) == (2, 6, "player", False, 1)
    assert play.sheet.last is None
    assert made.rolls[0].chance == check(5, Level.AVERAGE).success
    assert made.words == "Average Wits + Occult (5): d4 2 + d9 6 = 8, the player may reroll a die"


def test_an_average_success_may_still_be_rerolled() -> None:
    # Rules README: "a reroll after a success is the player's choice for a better effect or turn number".
    play = Play(mara())
    made = play.roll("average", 1, 3)
    assert [c[0] for c in chances(made.prompt)] == ["d13-keep", "d13-reroll", "d13-reroll"]
    assert chances(made.prompt)[0][2] == 1


def test_an_average_13_stands_at_once() -> None:
    play = Play(mara())
    made = play.roll("average", 4, 9)
    assert made.prompt is None
    assert play.sheet.pending is None
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success) == (13, False)


def test_the_decision_goes_to_the_one_who_rolled_when_the_sheet_has_no_owner() -> None:
    play = Play(mara())
    situation = play.situation(Role.GM, Dice(2, 6))
    made = move("d13-roll").apply(replace(situation, owner=None), move("d13-roll").input.model_validate(
        {"level": "average", "ability": "wits", "skill": OCCULT}))  # fmt: skip
    assert made.prompt is not None
    assert made.prompt.to == GM


def test_a_monstrous_success_leaves_the_host_the_choice_with_its_exact_chances() -> None:
    play = Play(mara())
    made = play.roll("monstrous", 1, 3)
    assert made.prompt is not None
    assert made.prompt.to == GM
    offered = host_choices(Roll(1, 3), 5)
    assert chances(made.prompt) == [("d13-stand", {}, offered[0].success), ("d13-force", {"die": "d4"},
                                    offered[1].success), ("d13-force", {"die": "d9"}, offered[2].success)]  # fmt: skip
    assert made.prompt.question == "d4 1 + d9 3 succeeds: let it stand, or force a reroll?"
    pending = play.sheet.pending
    assert pending is not None
    assert (pending.d4, pending.d9, pending.stage) == (1, 3, "host")
    assert made.rolls[0].chance == check(5, Level.MONSTROUS).success


def test_a_monstrous_failure_stands_at_once() -> None:
    play = Play(mara())
    made = play.roll("monstrous", 3, 6)
    assert made.prompt is None
    assert play.sheet.pending is None
    assert play.sheet.last is not None
    assert not play.sheet.last.success


# --- The answers --------------------------------------------------------------------------------------------


def test_the_player_keeps_an_average_roll() -> None:
    play = Play(mara())
    play.roll("average", 2, 6)
    made = play.make("d13-keep")
    assert made.rolls == ()
    assert made.prompt is None
    assert play.sheet.pending is None
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success, play.sheet.last.roll) == (8, False, 1)
    assert made.words == "Kept average Wits + Occult (5): 8, a failure"
    assert made.notice == "kept the roll: 8, a failure"


@pytest.mark.parametrize(("die", "face", "total", "success"), [("d4", 1, 7, False), ("d9", 2, 4, True),
                                                               ("d9", 0, 2, True)])  # fmt: skip
def test_the_player_rerolls_one_die_once_and_the_new_roll_stands(die: str, face: int, total: int,
                                                                 success: bool) -> None:  # fmt: skip
    play = Play(mara())
    play.roll("average", 2, 6)
    made = play.make("d13-reroll", {"die": die}, rng=Dice(face))
    assert made.prompt is None
    assert play.sheet.pending is None
    last = play.sheet.last
    assert last is not None
    assert (last.total, last.success, last.effect, last.roll) == (total, success, total, 2)
    rolled, *drawn = made.rolls
    assert [r.kind for r in drawn] == (["draw"] if Roll(2, face).doubles else [])  # doubles draw a card
    option = next(o for o in player_choices(Roll(2, 6), 5) if o.key == die)
    assert (rolled.chance, rolled.total, rolled.spec["rerolled"], rolled.secret) == (option.success, total, die, False)
    assert rolled.label == f"Average Wits + Occult (5): the {die} rerolled"
    # A second reroll is no answer: the roll stands.
    assert play.why_not("d13-reroll") == "no roll waits for this decision"


def test_the_host_lets_a_monstrous_success_stand() -> None:
    play = Play(mara())
    play.roll("monstrous", 1, 3)
    made = play.make("d13-stand", role=Role.GM)
    assert made.rolls == ()
    assert made.reveals == ()
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success, play.sheet.last.roll) == (4, True, 1)
    assert made.words == "The host let it stand: Monstrous Wits + Occult (5): 4, a success"


@pytest.mark.parametrize(("die", "face", "total", "success"), [("d4", 4, 7, False), ("d9", 9, 10, False),
                                                               ("d9", 1, 2, True)])  # fmt: skip
def test_the_host_forces_a_reroll_and_the_new_roll_stands(die: str, face: int, total: int, success: bool) -> None:
    play = Play(mara())
    play.roll("monstrous", 1, 3)
    made = play.make("d13-force", {"die": die}, role=Role.GM, rng=Dice(face))
    assert made.prompt is None
    assert play.sheet.pending is None
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success, play.sheet.last.roll) == (total, success, 2)
    option = next(o for o in host_choices(Roll(1, 3), 5) if o.key == die)
    assert made.rolls[0].chance == option.success
    assert made.rolls[0].label == f"Monstrous Wits + Occult (5): the {die} rerolled (the host forced it)"


def test_each_answer_is_refused_at_another_stage() -> None:
    play = Play(mara())
    nothing = "no roll waits for this decision"
    for key in ("d13-keep", "d13-reroll"):
        assert play.why_not(key) == nothing
    for key in ("d13-stand", "d13-force", "d13-reveal"):
        assert play.why_not(key, Role.GM) == nothing
    play.roll("average", 2, 6)
    assert play.why_not("d13-keep") is None
    assert play.why_not("d13-reroll") is None
    for key in ("d13-stand", "d13-force", "d13-reveal"):
        assert play.why_not(key, Role.GM) == nothing
    play.make("d13-keep")
    play.roll("monstrous", 1, 3)
    assert play.why_not("d13-stand", Role.GM) is None
    assert play.why_not("d13-force", Role.GM) is None
    for key in ("d13-keep", "d13-reroll"):
        assert play.why_not(key) == nothing
    assert play.why_not("d13-reveal", Role.GM) == nothing


def test_nothing_else_is_rolled_or_played_while_a_decision_waits() -> None:
    play = Play(mara(), table=shuffled_table(c7=("5S",)))
    play.roll("average", 2, 6)
    assert play.why_not("d13-roll") == "the last roll waits for a decision"
    assert play.why_not("d13-card") == "the last roll waits for a decision: play the card once it stands"
    assert play.why_not("d13-turn") == "the last roll waits for a decision"


# --- Doubles ------------------------------------------------------------------------------------------------


def test_doubles_that_stand_draw_the_top_card_into_the_hand() -> None:
    play = Play(mara())
    top = play.table.draw[0]
    made = play.roll("difficult", 4, 4, ability="brawn", skill="Brawling")  # target 3: doubles succeed
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success, play.sheet.last.doubles) == (8, True, True)
    assert play.hand == (top,)
    assert made.table is not None
    assert made.table.draw[0] != top
    assert made.words == "Difficult Brawn + Brawling (3): 8, a success: doubles, a card; drew a card"
    assert made.rolls[0].outcome == {"success": True, "doubles": True}


def test_doubles_draw_only_once_the_roll_stands() -> None:
    play = Play(mara())
    top = play.table.draw[0]
    play.roll("average", 3, 3)
    assert play.hand == ()
    play.make("d13-keep")
    assert play.hand == (top,)
    assert play.sheet.last is not None
    assert play.sheet.last.doubles


def test_doubles_rerolled_away_draw_nothing_and_doubles_rerolled_in_draw() -> None:
    play = Play(mara())
    play.roll("average", 3, 3)
    play.make("d13-reroll", {"die": "d9"}, rng=Dice(5))
    assert play.hand == ()
    assert play.sheet.last is not None
    assert not play.sheet.last.doubles
    assert not play.sheet.last.success
    play.roll("average", 1, 6)
    play.make("d13-reroll", {"die": "d9"}, rng=Dice(1))
    assert len(play.hand) == 1
    play.roll("monstrous", 2, 2)
    play.make("d13-force", {"die": "d4"}, role=Role.GM, rng=Dice(4))
    assert len(play.hand) == 1
    play.roll("monstrous", 2, 2)
    play.make("d13-stand", role=Role.GM)
    assert len(play.hand) == 2


def test_the_first_draw_of_a_campaign_shuffles_its_deck() -> None:
    play = Play(mara(), table=new_table(OPTIONS))
    made = play.make("d13-roll", {"level": "difficult", "ability": "wits", "skill": OCCULT}, rng=Dice(2, 2))
    assert made.words.endswith("; the deck was shuffled, drew a card")
    assert len(play.hand) == 1
    assert len(play.table.draw) == 53


def test_doubles_with_no_card_left_draw_nothing() -> None:
    deck = cards.deck("poker")
    play = Play(mara(), table=Table(hands=(Hand(character=OTHER_CHARACTER, cards=deck),)))
    made = play.roll("difficult", 2, 2)
    assert made.words == (
        "Difficult Wits + Occult (5): 4, a success: doubles, a card; no card is left in the deck or the discard pile"
    )
    assert play.hand == ()
    assert play.sheet.last is not None
    assert play.sheet.last.success


# --- The unclear task -----------------------------------------------------------------------------------------


def test_only_the_host_or_the_hosts_call_rolls_the_d4_in_secret() -> None:
    play = Play(mara())
    values = {"level": "average", "ability": "wits", "skill": OCCULT, "unclear": True}
    assert play.problems("d13-roll", values) == {"unclear": "only the host rolls the d4 in secret"}
    assert play.problems("d13-roll", values, Role.GM) == {}
    assert move("d13-roll").check(play.situation(called=True), values) == ()


def test_a_roll_needs_a_skill_of_the_sheet() -> None:
    play = Play(mara())
    values = {"level": "average", "ability": "wits", "skill": 999}
    assert play.problems("d13-roll", values) == {"skill": "there is no such skill on this sheet"}


def test_an_unclear_roll_keeps_the_d4_on_the_table_and_the_roll_secret() -> None:
    play = Play(mara())
    made = play.roll("average", 2, 6, unclear=True, role=Role.GM)
    pending = play.sheet.pending
    assert pending is not None
    assert (pending.d4, pending.d9, pending.secret, pending.stage, pending.roll, pending.secret_rolls) == (
        None, 6, True, "player", 1, (1,))  # fmt: skip
    assert play.table.secrets == (Secret(character=CHARACTER, d4=2),)
    (rolled,) = made.rolls
    assert rolled.secret
    assert rolled.dice == {"d4": 2, "d9": 6}
    assert rolled.spec["unclear"] is True
    assert rolled.label == "Average Wits + Occult (5) (unclear)"
    # What everyone may read says nothing of the d4.
    assert made.result == {"d9": 6}
    assert made.words == "Average Wits + Occult (5): d4 ? + d9 6, the d4 rolled in secret"
    assert made.notice == "rolled: the host keeps the d4 secret"
    assert '"d4": 2' not in json.dumps(play.sheet.model_dump(mode="json"))
    # The player decides first, on the chances given the d9 alone.
    assert made.prompt is not None
    assert made.prompt.to == OWNER
    assert chances(made.prompt) == [("d13-keep", {}, o.success) if o.key == "keep" else
                                    ("d13-reroll", {"die": o.key}, o.success)
                                    for o in unclear_choices(6, 5, Level.AVERAGE)]  # fmt: skip


def test_the_hosts_call_rolls_an_unclear_task_the_player_answers() -> None:
    play = Play(mara())
    made = play.roll("difficult", 2, 6, unclear=True, called=True)
    assert made.rolls[0].secret
    assert play.table.secret(CHARACTER) == 2


def test_the_player_keeps_an_unclear_roll_and_the_host_reveals_it() -> None:
    play = Play(mara())
    play.roll("average", 2, 3, unclear=True, role=Role.GM)
    made = play.make("d13-keep")
    assert made.rolls == ()
    assert made.prompt is not None
    assert made.prompt.to == GM
    assert chances(made.prompt) == [("d13-reveal", {}, None)]
    pending = play.sheet.pending
    assert pending is not None
    assert (pending.stage, pending.rerolled, pending.d4) == ("reveal", "kept", None)
    assert play.why_not("d13-keep") == "no roll waits for this decision"
    made = play.make("d13-reveal", role=Role.GM)
    assert made.reveals == (1,)
    assert play.table.secrets == ()
    assert play.sheet.pending is None
    last = play.sheet.last
    assert last is not None
    assert (last.total, last.success, last.roll) == (5, True, 1)
    assert made.result == {"d4": 2, "total": 5}
    assert made.words == "The host revealed the d4 (2): Average Wits + Occult (5): 5, a success"


def test_doubles_of_an_unclear_roll_draw_at_the_reveal() -> None:
    play = Play(mara())
    top = play.table.draw[0]
    play.roll("difficult", 3, 3, unclear=True, role=Role.GM)
    assert play.hand == ()
    play.make("d13-reveal", role=Role.GM)
    assert play.hand == (top,)


def test_an_unclear_reroll_asked_before_the_reveal_is_rolled_at_the_reveal() -> None:
    play = Play(mara())
    play.roll("average", 2, 6, unclear=True, role=Role.GM)
    made = play.make("d13-reroll", {"die": "d4"}, rng=Dice())  # nothing is rolled yet
    assert made.rolls == ()
    assert made.words == "Average Wits + Occult (5): asked to reroll the d4, rolled when the host reveals the d4"
    assert play.table.secrets == (Secret(character=CHARACTER, d4=2),)
    pending = play.sheet.pending
    assert pending is not None
    assert (pending.d4, pending.d9, pending.stage, pending.rerolled, pending.secret_rolls) == (
        None,
        6,
        "reveal",
        "d4",
        (1,),
    )
    assert made.prompt is not None
    assert chances(made.prompt) == [("d13-reveal", {}, None)]
    made = play.make("d13-reveal", role=Role.GM, rng=Dice(1))  # the d4 again: 1 + 6 = 7, over 5
    (rolled,) = made.rolls
    assert not rolled.secret
    assert rolled.dice == {"d4": 1, "d9": 6}
    assert rolled.chance == next(o.success for o in player_choices(Roll(2, 6), 5) if o.key == "d4")
    assert made.reveals == (1,)
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success, play.sheet.last.roll) == (7, False, 2)
    assert play.table.secrets == ()


def test_an_unclear_d9_asked_for_is_rolled_at_the_reveal() -> None:
    play = Play(mara())
    play.roll("average", 2, 6, unclear=True, role=Role.GM)
    play.make("d13-reroll", {"die": "d9"}, rng=Dice())
    pending = play.sheet.pending
    assert pending is not None
    assert (pending.d4, pending.d9) == (None, 6)  # the d9 seen stays until the reveal
    made = play.make("d13-reveal", role=Role.GM, rng=Dice(3))
    assert made.rolls[0].dice == {"d4": 2, "d9": 3}
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success) == (5, True)


def test_a_hidden_13_rerolled_changes_nothing() -> None:
    play = Play(mara())
    play.roll("average", 4, 9, unclear=True, role=Role.GM)
    made = play.make("d13-reroll", {"die": "d9"}, rng=Dice())
    assert made.rolls == ()
    pending = play.sheet.pending
    assert pending is not None
    assert (pending.d9, pending.stage, pending.rerolled) == (9, "reveal", "d9")
    assert play.table.secret(CHARACTER) == 4
    made = play.make("d13-reveal", role=Role.GM, rng=Dice())  # a 13 stands: nothing is rolled
    assert made.rolls == ()
    assert made.reveals == (1,)
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success) == (13, False)


def test_an_unclear_average_roll_reads_the_same_whatever_the_hidden_d4() -> None:
    # A hidden 13 (4 + 9) and a hidden 10 (1 + 9) leave the same sheet and the same words.
    seen = []
    for d4 in (4, 1):
        play = Play(mara())
        made = play.roll("average", d4, 9, unclear=True, role=Role.GM)
        assert made.prompt is not None
        seen.append((play.sheet, made.words, made.notice, made.result, chances(made.prompt)))
    assert seen[0] == seen[1]


@pytest.mark.parametrize("level", ["easy", "difficult"])
def test_an_unclear_roll_with_no_choice_waits_for_the_reveal(level: str) -> None:
    play = Play(mara())
    made = play.roll(level, 1, 9, unclear=True, role=Role.GM)
    assert made.prompt is not None
    assert made.prompt.to == GM
    assert chances(made.prompt) == [("d13-reveal", {}, None)]
    assert play.why_not("d13-keep") == "no roll waits for this decision"
    play.make("d13-reveal", role=Role.GM)
    assert play.sheet.last is not None
    assert play.sheet.last.success is (level == "easy")


def test_the_hosts_decision_on_an_unclear_monstrous_success_reveals_it() -> None:
    play = Play(mara())
    made = play.roll("monstrous", 1, 3, unclear=True, role=Role.GM)
    assert made.prompt is not None
    assert made.prompt.to == GM
    assert chances(made.prompt) == [("d13-stand", {}, o.success) if o.key == "keep" else
                                    ("d13-force", {"die": o.key}, o.success)
                                    for o in host_choices(Roll(1, 3), 5)]  # fmt: skip
    assert "your decision reveals it" in made.prompt.question
    assert play.why_not("d13-reveal", Role.GM) == "no roll waits for this decision"
    made = play.make("d13-stand", role=Role.GM)
    assert made.reveals == (1,)
    assert play.table.secrets == ()
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success) == (4, True)


def test_a_forced_reroll_of_an_unclear_monstrous_success_reveals_it() -> None:
    play = Play(mara())
    play.roll("monstrous", 1, 3, unclear=True, role=Role.GM)
    made = play.make("d13-force", {"die": "d9"}, role=Role.GM, rng=Dice(9))
    assert made.reveals == (1,)
    (rolled,) = made.rolls
    assert not rolled.secret
    assert rolled.dice == {"d4": 1, "d9": 9}
    assert play.table.secrets == ()
    assert play.sheet.pending is None
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success, play.sheet.last.roll) == (10, False, 2)
    assert made.result == {"d4": 1, "d9": 9, "total": 10}


def test_an_unclear_monstrous_failure_waits_for_the_host_to_let_it_stand() -> None:
    play = Play(mara())
    made = play.roll("monstrous", 4, 3, unclear=True, role=Role.GM)
    assert made.prompt is not None
    assert made.prompt.to == GM
    assert made.prompt.choices == (Choice("d13-stand", "Let it stand", Fraction(0)),)
    assert made.prompt.question == "d4 4 + d9 3 fails (the d4 is secret: your decision reveals it): it stands."
    assert play.why_not("d13-force", Role.GM) == "the roll fails and stands: the host forces a reroll of a success only"
    made = play.make("d13-stand", role=Role.GM)
    assert made.reveals == (1,)
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success) == (7, False)


def test_an_unclear_monstrous_roll_reads_the_same_to_the_player_success_or_failure() -> None:
    # Rules text, "Unclear Tasks": the player judges "likely success by the d9 result alone".
    seen = []
    for d4 in (1, 4):  # 1 + 3 succeeds against 5, 4 + 3 fails
        play = Play(mara())
        made = play.roll("monstrous", d4, 3, unclear=True, role=Role.GM)
        assert made.prompt is not None
        assert made.prompt.to == GM
        seen.append((play.sheet, made.words, made.notice, made.result))
    assert seen[0] == seen[1]


# --- Made.then: the rolls' numbers in the log ---------------------------------------------------------------


def test_the_state_keeps_the_number_of_its_roll_in_the_log() -> None:
    play = Play(mara())
    situation = play.situation(rng=Dice(2, 6))
    made = move("d13-roll").apply(situation, move("d13-roll").input.model_validate(
        {"level": "average", "ability": "wits", "skill": OCCULT}))  # fmt: skip
    assert made.then is not None
    waiting = made.then(made.state, (41,))
    assert waiting.model_dump()["pending"]["roll"] == 41
    assert made.then(made.state, ()) == made.state
    settled = move("d13-roll").apply(play.situation(rng=Dice(1, 1)), move("d13-roll").input.model_validate(
        {"level": "easy", "ability": "wits"}))  # fmt: skip
    assert settled.then is not None
    assert settled.then(settled.state, (42,)).model_dump()["last"]["roll"] == 42


def test_an_answers_roll_number_follows_the_first() -> None:
    play = Play(mara())
    play.roll("difficult", 1, 1)  # doubles: the roll, then the card drawn, in the log
    play.roll("average", 2, 6)
    assert play.sheet.pending is not None
    assert play.sheet.pending.roll == 3
    play.make("d13-reroll", {"die": "d4"}, rng=Dice(3))
    assert play.sheet.last is not None
    assert play.sheet.last.roll == 4
    assert [(n, rolled.kind) for n, rolled in play.log] == [(1, "check"), (2, "draw"), (3, "check"), (4, "check")]


# --- Cards --------------------------------------------------------------------------------------------------

HAND = ("4S", "7S", "4H", "9C", "QS", "KH", "JK1", "10D")


def carded(hand: tuple[str, ...] = HAND, *, level: str = "difficult", d4: int = 3, d9: int = 6,
           given: dict[str, Any] | None = None, ability: str = "wits") -> Play:  # fmt: skip
    """Mara with a hand, her last roll Wits + Occult against 5 (by default a Difficult 9, a failure)."""
    play = Play(mara(), table=shuffled_table(c7=hand), given=given or OPTIONS)
    play.roll(level, d4, d9, ability=ability)
    return play


def test_no_card_is_played_from_an_empty_hand() -> None:
    assert Play(mara()).why_not("d13-card") == "there is no card in the hand"


@pytest.mark.parametrize(("values", "problems"), [
    ({"card": "2C", "use": "roll"}, {"card": "that card is not in the hand"}),
    ({"card": "7S", "use": "boost"}, {"use": "the 7 of spades is a number card: a face card boosts"}),
    ({"card": "QS", "use": "roll"}, {"use": "the Queen of spades is a face card: it boosts a skill"}),
    ({"card": "QS", "use": "effect"}, {"use": "the Queen of spades is a face card: it boosts a skill"}),
    ({"card": "QS", "use": "turn"}, {"use": "the Queen of spades is a face card: it boosts a skill"}),
    ({"card": "JK1", "use": "roll"}, {"value": "say which number the joker is played as"}),
    ({"card": "JK1", "use": "turn"}, {"value": "say which number the joker is played as"}),
    ({"card": "4H", "use": "roll"}, {"rationale": "the 4 of hearts is not of Wits's suit (Spades ♠): say how it "
                                                  "fits the story"}),
    ({"card": "4H", "use": "roll", "rationale": "   "}, {"rationale": "the 4 of hearts is not of Wits's suit "
                                                                      "(Spades ♠): say how it fits the story"}),
    ({"card": "KH", "use": "boost"}, {"rationale": "the King of hearts is not of Wits's suit (Spades ♠): say how "
                                                   "it fits the story"}),
    ({"card": "QS", "use": "boost", "skill": 999}, {"skill": "name a skill on this sheet to boost"}),
    ({"card": "4H", "use": "roll", "rationale": "A dream of the drowned girl"}, {}),
    ({"card": "JK1", "use": "roll", "value": 3}, {}),
    ({"card": "JK1", "use": "boost"}, {}),
    ({"card": "4S", "use": "roll"}, {}),
])  # fmt: skip
def test_the_problems_of_a_card_played(values: dict[str, Any], problems: dict[str, str]) -> None:
    assert carded().problems("d13-card", values) == problems


def test_a_card_with_no_roll_to_play_it_on() -> None:
    play = Play(mara(), table=shuffled_table(c7=HAND))
    assert play.why_not("d13-card") is None
    assert play.problems("d13-card", {"card": "4S", "use": "roll"}) == {"use": "there is no roll yet to play it on"}
    assert play.problems("d13-card", {"card": "4S", "use": "effect"}) == {"use": "there is no roll yet to play it on"}
    assert play.problems("d13-card", {"card": "JK1", "use": "effect"}) == {
        "value": "say which number the joker is played as", "use": "there is no roll yet to play it on"}  # fmt: skip
    assert play.problems("d13-card", {"card": "QS", "use": "boost"}) == {"skill": "name a skill on this sheet to boost"}
    # With no roll there is no ability tested, so no suit to match; a turn number needs no roll.
    assert play.problems("d13-card", {"card": "4H", "use": "turn"}) == {}
    assert play.problems("d13-card", {"card": "KH", "use": "boost", "skill": OCCULT}) == {}


@pytest.mark.parametrize(("ability", "suit"), [("brawn", "C"), ("grace", "D"), ("wits", "S"), ("will", "H")])
def test_the_default_suits_of_the_abilities(ability: str, suit: str) -> None:
    # Rules README: "default Brawn ♣, Grace ♦, Wits ♠, Will ♥".
    hand = ("5C", "5D", "5H", "5S")
    play = carded(hand, ability=ability)
    for code in hand:
        problems = play.problems("d13-card", {"card": code, "use": "effect"})
        assert (problems == {}) is (code[-1] == suit), code


def test_the_campaign_sets_the_suits() -> None:
    given = options(wits_suit="hearts", will_suit="spades")
    play = carded(given=given)
    assert play.problems("d13-card", {"card": "4H", "use": "roll"}) == {}
    assert set(play.problems("d13-card", {"card": "4S", "use": "roll"})) == {"rationale"}


def test_a_tarot_card_counts_in_its_mapped_suit() -> None:
    play = Play(mara(), table=shuffled_table("tarot", c7=("5Sw", "5Cu", "PgCu", "M13")), given=options(deck="tarot"))
    play.roll("difficult", 3, 6)
    assert play.problems("d13-card", {"card": "5Sw", "use": "roll"}) == {}  # swords -> spades, Wits's suit
    assert set(play.problems("d13-card", {"card": "5Cu", "use": "roll"})) == {"rationale"}  # cups -> hearts
    assert play.problems("d13-card", {"card": "PgCu", "use": "roll"}) == {
        "use": "the Page of cups is a face card: it boosts a skill",
        "rationale": "the Page of cups is not of Wits's suit (Spades ♠): say how it fits the story"}  # fmt: skip
    assert play.problems("d13-card", {"card": "M13", "use": "roll"}) == {
        "value": "say which number the joker is played as"}  # fmt: skip
    play.make("d13-card", {"card": "M13", "use": "roll", "value": 2})
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.replaced_by) == (2, "M13")
    assert play.table.discard[-1] == "M13"


@pytest.mark.parametrize(("code", "total", "success"), [("4S", 4, True), ("7S", 7, False)])
def test_a_number_card_replaces_the_roll(code: str, total: int, success: bool) -> None:
    play = carded()
    made = play.make("d13-card", {"card": code, "use": "roll"})
    last = play.sheet.last
    assert last is not None
    assert (last.total, last.success, last.doubles, last.effect, last.replaced_by, last.roll) == (
        total, success, False, total, code, 1)  # fmt: skip
    assert code not in play.hand
    assert play.table.discard[-1] == code
    assert made.result == {"total": total, "success": success}
    outcome = "a success" if success else "a failure"
    assert made.words == f"Played the {code[0]} of spades on the roll: {total}, {outcome}"
    (logged,) = made.rolls  # the play, in the campaign's log
    assert (logged.kind, logged.dice, logged.total, logged.outcome) == ("card", [code], total, {"success": success})
    assert logged.spec == {"system": "d13", "roll": "card", "card": code, "use": "roll"}


def test_a_number_card_makes_no_doubles() -> None:
    play = carded(d4=2, d9=2)  # doubles: a success, and a card drawn
    assert play.sheet.last is not None
    assert play.sheet.last.doubles
    assert len(play.hand) == len(HAND) + 1
    play.make("d13-card", {"card": "7S", "use": "roll"})
    assert play.sheet.last is not None
    assert (play.sheet.last.doubles, play.sheet.last.success) == (False, False)
    assert len(play.hand) == len(HAND)  # the drawn card stays in the hand


def test_a_number_card_on_an_easy_roll_always_succeeds() -> None:
    play = carded(level="easy", d4=4, d9=9)  # a 13
    assert play.sheet.last is not None
    assert not play.sheet.last.success
    play.make("d13-card", {"card": "10D", "use": "roll", "rationale": "Luck of the draw"})
    assert play.sheet.last is not None
    assert (play.sheet.last.total, play.sheet.last.success) == (10, True)


def test_an_ace_is_one() -> None:
    play = carded(("AS",))
    play.make("d13-card", {"card": "AS", "use": "roll"})
    assert play.sheet.last is not None
    assert play.sheet.last.total == 1


def test_a_number_card_sets_the_effect() -> None:
    play = carded()
    made = play.make("d13-card", {"card": "9C", "use": "effect", "rationale": "An old grudge"})
    last = play.sheet.last
    assert last is not None
    assert (last.total, last.success, last.effect) == (9, False, 9)
    assert made.words == "Played the 9 of clubs: the effect is 9 (An old grudge)"
    play.make("d13-card", {"card": "JK1", "use": "effect", "value": 10})
    assert play.sheet.last is not None
    assert play.sheet.last.effect == 10


def test_a_number_card_sets_the_turn_number() -> None:
    play = carded()
    play.make("d13-card", {"card": "4S", "use": "turn"})
    assert play.table.turns == (Turn(id=1, name="Mara", character=CHARACTER, number=4),)
    play.make("d13-card", {"card": "JK1", "use": "turn", "value": 1})
    # A character holds one place in the turn order.
    assert play.table.turns == (Turn(id=2, name="Mara", character=CHARACTER, number=1),)
    assert play.table.next_id == 3


def test_a_face_card_boosts_the_tested_skill_until_the_scene_ends() -> None:
    play = carded()
    made = play.make("d13-card", {"card": "QS", "use": "boost"})
    assert play.table.boosts == (
        Boost(character=CHARACTER, skill=OCCULT, size=2, card="QS", name="Mara", skill_name="Occult"),
    )
    # The card lies on the boost: neither in the hand nor on the discard pile.
    assert "QS" not in play.hand
    assert "QS" not in play.table.discard
    assert made.result == {"boost": 2, "skill": OCCULT, "success": False}
    assert made.words == "Played the Queen of spades: Occult +2 until the scene ends; the last roll still fails"
    assert target_of(play.sheet, "wits", OCCULT, play.table, CHARACTER) == 7
    assert target_of(play.sheet, "wits", ATHLETICS, play.table, CHARACTER) == 4
    assert target_of(play.sheet, "wits", OCCULT, play.table, OTHER_CHARACTER) == 5
    play.roll("difficult", 1, 6)  # 7: a success at 7
    assert play.sheet.last is not None
    assert (play.sheet.last.task.target, play.sheet.last.success) == (7, True)


def test_a_face_card_on_the_tested_skill_judges_the_last_roll_again() -> None:
    # Mara's 9 against 5 fails; a boost of 4 (the campaign's) on Occult lifts the target to 9.
    play = carded(given=options(boost=4))
    made = play.make("d13-card", {"card": "QS", "use": "boost"})
    last = play.sheet.last
    assert last is not None
    assert (last.task.target, last.success, last.total) == (9, True, 9)
    assert made.words.endswith("; the last roll now succeeds")
    assert play.table.boosts[0].size == 4


def test_a_face_card_never_saves_a_13() -> None:
    play = carded(level="difficult", d4=4, d9=9, given=options(boost=6))
    play.make("d13-card", {"card": "QS", "use": "boost"})
    assert play.sheet.last is not None
    assert (play.sheet.last.task.target, play.sheet.last.success) == (11, False)


def test_a_face_card_on_another_skill_leaves_the_last_roll() -> None:
    play = carded()
    before = play.sheet.last
    made = play.make("d13-card", {"card": "QS", "use": "boost", "skill": ATHLETICS})
    assert play.sheet.last == before
    assert play.table.boosts == (
        Boost(character=CHARACTER, skill=ATHLETICS, size=2, card="QS", name="Mara", skill_name="Athletics"),
    )
    assert made.result == {"boost": 2, "skill": ATHLETICS}


def test_boosts_add_up_and_end_with_the_scene() -> None:
    play = carded()
    play.make("d13-card", {"card": "QS", "use": "boost"})
    play.make("d13-card", {"card": "JK1", "use": "boost"})
    play.make("d13-card", {"card": "KH", "use": "boost", "rationale": "My sister's ghost"})
    assert target_of(play.sheet, "wits", OCCULT, play.table, CHARACTER) == 11
    assert SYSTEM.table is not None
    assert SYSTEM.table.for_sheet(play.table, CHARACTER) == {"boosts": {OCCULT: 6}}
    ended = move("end-scene").apply(Situation(play.table, OPTIONS, Role.GM, None), NoInput())
    assert isinstance(ended.state, Table)
    assert target_of(play.sheet, "wits", OCCULT, ended.state, CHARACTER) == 5
    assert ended.state.discard[-3:] == ("QS", "JK1", "KH")


def test_the_card_move_keeps_every_card_in_one_place() -> None:
    play = carded()
    for values in ({"card": "4S", "use": "roll"}, {"card": "QS", "use": "boost"}, {"card": "9C", "use": "turn",
                   "rationale": "x"}, {"card": "JK1", "use": "effect", "value": 5}):  # fmt: skip
        play.make("d13-card", values)
        everywhere = [*play.table.draw, *play.table.discard, *play.hand, *(b.card for b in play.table.boosts)]
        assert sorted(everywhere) == sorted(cards.deck("poker"))


# --- The turn number ------------------------------------------------------------------------------------------


def test_the_last_rolls_total_is_the_turn_number() -> None:
    play = Play(mara(), table=shuffled_table())
    assert play.why_not("d13-turn") == "there is no roll yet to take a turn number from"
    play.roll("difficult", 3, 6)
    made = play.make("d13-turn")
    assert play.table.turns == (Turn(id=1, name="Mara", character=CHARACTER, number=9),)
    assert made.words == "Took turn number 9"
    assert made.result == {"turn": 9}
    play.roll("difficult", 1, 0)
    play.make("d13-turn", role=Role.GM)
    assert play.table.turns == (Turn(id=2, name="Mara", character=CHARACTER, number=1),)


# --- What may not be rolled -----------------------------------------------------------------------------------


def test_a_draft_cannot_roll() -> None:
    play = Play(SYSTEM.new_draft(OPTIONS))
    assert play.why_not("d13-roll") == "the character is not finished yet"


def test_a_helpless_character_cannot_roll() -> None:
    play = Play(mara().model_copy(update={"condition": 6}))
    assert play.why_not("d13-roll") == "at 6 on the Wounds track the character is helpless and cannot act"
    play = Play(mara().model_copy(update={"condition": 3}), given=options(helpless_at=3, condition="Harm"))
    assert play.why_not("d13-roll") == "at 3 on the Harm track the character is helpless and cannot act"
    play = Play(mara().model_copy(update={"condition": 5}))
    assert play.why_not("d13-roll") is None


def test_a_roll_without_dice_is_refused() -> None:
    play = Play(mara())
    with pytest.raises(SpecError):
        move("d13-roll").apply(play.situation(rng=None), move("d13-roll").input.model_validate(
            {"level": "easy", "ability": "wits"}))  # fmt: skip


def test_the_skill_is_found_by_id_whatever_its_name() -> None:
    sheet = finished(Occult=3)
    assert skill_id(sheet, "Occult") == OCCULT
    renamed = sheet.model_copy(update={"skills": tuple(s.model_copy(update={"name": "Arcana"}) if s.id == OCCULT
                                                       else s for s in sheet.skills)})  # fmt: skip
    play = Play(renamed)
    made = play.make("d13-roll", {"level": "difficult", "ability": "will", "skill": OCCULT}, rng=Dice(1, 2))
    assert made.words == "Difficult Will + Arcana (6): 3, a success"


# --- Automatic tasks --------------------------------------------------------------------------------------------


def test_the_host_declares_a_task_automatic_no_roll_and_no_card() -> None:
    play = Play(mara())
    before_sheet, before_table = play.sheet, play.table
    made = play.make("d13-automatic", {"ability": "wits", "skill": OCCULT}, role=Role.GM)
    assert made.words == "The host declared Wits + Occult automatic: a success, with no roll and no card"
    (logged,) = made.rolls
    assert (logged.kind, logged.dice, logged.total, logged.chance, logged.outcome) == (
        "automatic",
        [],
        None,
        None,
        {"success": True},
    )
    assert (play.sheet, play.table) == (before_sheet, before_table)  # nothing rolled, nothing drawn
    assert move("d13-automatic").who == frozenset({Role.GM})
    assert play.problems("d13-automatic", {"ability": "wits", "skill": 999}, role=Role.GM) == {
        "skill": "there is no such skill on this sheet"
    }


# --- The condition track -----------------------------------------------------------------------------------------


def test_the_host_marks_the_condition_track_never_past_its_ends() -> None:
    play = Play(mara())
    made = play.make("d13-mark", {"marks": 4}, role=Role.GM)
    assert (play.sheet.condition, made.words) == (4, "Marked 4 on the Wounds track: 4 of 6")
    made = play.make("d13-mark", {"marks": 5}, role=Role.GM)
    assert (play.sheet.condition, made.words) == (6, "Marked 5 on the Wounds track: 6 of 6 (helpless)")
    assert made.result == {"condition": 6, "helpless": True}
    assert play.why_not("d13-roll") is not None  # helpless: no more tasks
    made = play.make("d13-mark", {"marks": -9}, role=Role.GM)
    assert (play.sheet.condition, made.words) == (0, "Took off 9 on the Wounds track: 0 of 6")
    assert play.problems("d13-mark", {"marks": 0}, role=Role.GM) == {
        "marks": "mark at least one, or take at least one off"
    }
