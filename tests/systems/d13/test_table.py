"""D13's table: one real deck (draw pile, discard pile, hands, boosts), the host's moves, and what each viewer
sees of it (rules text, "Doubles", "Using Poker Cards"; rules README, "D13")."""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from pydantic import ValidationError

from rules.systems.d13 import SYSTEM, cards
from rules.systems.d13.table import (
    MAX_TURNS,
    MOVES,
    TABLE,
    Boost,
    Hand,
    Secret,
    Table,
    Turn,
    discard,
    draw,
    for_sheet,
    new_table,
    ordered,
    shuffled,
    view,
    with_turn,
)
from rules.systems.moves import NoInput, Scope, Situation, Viewer, find
from rules.systems.protocol.editing import Role
from tests.systems.d13.engine import OPTIONS, options, shuffled_table

GM = Viewer(Role.GM, 1)
ANNA = Viewer(Role.PLAYER, 2, frozenset({7}))  # plays character 7
BORIS = Viewer(Role.PLAYER, 3, frozenset({8, 9}))  # plays characters 8 and 9
NOBODY = Viewer(Role.PLAYER, 4)  # plays no character at the table
EVERYONE = (GM, ANNA, BORIS, NOBODY)


def every_card_once(table: Table) -> list[str]:
    """Every card of the table, wherever it lies."""
    return sorted([*table.draw, *table.discard, *(c for h in table.hands for c in h.cards),
                   *(b.card for b in table.boosts)])  # fmt: skip


def host(key: str, table: Table, values: dict[str, Any] | None = None, *, given: dict[str, Any] = OPTIONS,
         rng: random.Random | None = None) -> Any:  # fmt: skip
    move = find(MOVES, key)
    assert move is not None
    assert move.scope is Scope.TABLE
    assert move.who == frozenset({Role.GM})
    situation = Situation(table, given, Role.GM, GM, rng)
    assert move.why_not(situation) is None
    return move.apply(situation, move.input.model_validate(values or {}))


# --- The model -----------------------------------------------------------------------------------------


def test_a_card_in_two_places_is_refused() -> None:
    with pytest.raises(ValidationError, match="a card is in two places at once"):
        Table(draw=("AC", "2C"), hands=(Hand(character=7, cards=("AC",)),))
    with pytest.raises(ValidationError, match="two places"):
        Table(discard=("QS",), boosts=(Boost(character=7, skill=1, size=2, card="QS"),))
    with pytest.raises(ValidationError, match="two places"):
        Table(hands=(Hand(character=7, cards=("5H",)), Hand(character=8, cards=("5H",))))
    with pytest.raises(ValidationError, match="two places"):
        Table(draw=("5H", "5H"))


def test_a_card_of_another_deck_is_refused() -> None:
    with pytest.raises(ValidationError, match="AWa is no card of a poker deck"):
        Table(deck="poker", draw=("AWa",))
    with pytest.raises(ValidationError, match="JK1 is no card of a tarot deck"):
        Table(deck="tarot", hands=(Hand(character=7, cards=("JK1",)),))
    with pytest.raises(ValidationError, match="is no card"):
        Table(deck="poker", discard=("M3",))


def test_a_code_that_is_no_card_at_all_is_refused() -> None:
    with pytest.raises(ValidationError):
        Table(draw=("A C",))


def test_a_new_table_has_the_campaigns_deck_and_no_card_laid_out() -> None:
    assert new_table(OPTIONS) == Table(deck="poker")
    tarot = TABLE.new(options(deck="tarot"))
    assert isinstance(tarot, Table)
    assert (tarot.deck, tarot.draw, tarot.discard, tarot.hands, tarot.scene) == ("tarot", (), (), (), 1)


# --- Drawing and discarding ---------------------------------------------------------------------------


def test_a_draw_takes_the_top_card_into_the_hand() -> None:
    table = shuffled_table()
    top, second = table.draw[:2]
    after, code, said = draw(table, 7, random.Random(1))
    assert (code, said) == (top, "")
    assert after.draw == table.draw[1:]
    assert after.hand(7) == (top,)
    after, code, _ = draw(after, 7, random.Random(1))
    assert code == second
    assert after.hand(7) == (top, second)
    assert every_card_once(after) == sorted(cards.deck("poker"))


def test_hands_are_kept_in_character_order() -> None:
    table, _, _ = draw(shuffled_table(), 9, random.Random(1))
    table, _, _ = draw(table, 7, random.Random(1))
    assert [hand.character for hand in table.hands] == [7, 9]


@pytest.mark.parametrize("deck", ["poker", "tarot"])
def test_a_table_never_shuffled_is_shuffled_by_its_first_draw(deck: str) -> None:
    table = new_table({"deck": deck})
    after, code, said = draw(table, 7, random.Random(3))
    assert said == "the deck was shuffled"
    assert code is not None
    assert after.hand(7) == (code,)
    assert len(after.draw) == len(cards.deck(deck)) - 1
    assert every_card_once(after) == sorted(cards.deck(deck))
    # The order is the server's dice: another seed, another order.
    other, _, _ = draw(table, 7, random.Random(4))
    assert other.draw != after.draw


def test_an_empty_draw_pile_is_made_again_from_the_discard_pile() -> None:
    deck = cards.deck("poker")
    table = Table(draw=(), discard=deck[40:], hands=(Hand(character=7, cards=deck[:40]),))
    after, code, said = draw(table, 8, random.Random(2))
    assert said == "the discard pile was shuffled into a new deck"
    assert after.discard == ()
    assert after.hand(8) == (code,)
    assert sorted([*after.draw, code]) == sorted(deck[40:])
    assert after.draw != tuple(c for c in deck[40:] if c != code)  # shuffled, not the pile's order
    assert after.hand(7) == deck[:40]


def test_the_reshuffle_keeps_every_card_in_play_where_it_is() -> None:
    deck = cards.deck("poker")
    boost = Boost(character=8, skill=3, size=2, card="KH")
    in_hand = tuple(c for c in deck[:20] if c != "KH")
    table = Table(draw=(), discard=tuple(c for c in deck if c not in in_hand and c != "KH"),
                  hands=(Hand(character=7, cards=in_hand),), boosts=(boost,))  # fmt: skip
    after, code, _ = draw(table, 7, random.Random(2))
    assert after.boosts == (boost,)
    assert after.hand(7) == (*in_hand, code)
    assert every_card_once(after) == sorted(deck)


def test_with_no_card_left_anywhere_nothing_is_drawn() -> None:
    deck = cards.deck("poker")
    table = Table(hands=(Hand(character=7, cards=deck[:30]), Hand(character=8, cards=deck[30:53])),
                  boosts=(Boost(character=8, skill=1, size=2, card=deck[53]),))  # fmt: skip
    after, code, said = draw(table, 9, random.Random(2))
    assert (after, code, said) == (table, None, "no card is left in the deck or the discard pile")


def test_a_discard_goes_face_up_on_the_discard_pile() -> None:
    table = Table(discard=("2C",), hands=(Hand(character=7, cards=("AC", "QS")), Hand(character=8, cards=("3D",))))
    after = discard(table, 7, "QS")
    assert after.hand(7) == ("AC",)
    assert after.discard == ("2C", "QS")
    after = discard(after, 7, "AC")
    # An empty hand is no hand at all.
    assert after.hands == (Hand(character=8, cards=("3D",)),)
    assert after.hand(7) == ()


def test_a_card_not_in_the_hand_cannot_be_discarded() -> None:
    with pytest.raises(ValueError):
        discard(Table(hands=(Hand(character=7, cards=("AC",)),)), 7, "2C")


def test_a_shuffle_leaves_the_cards_in_hands_and_on_boosts() -> None:
    table = Table(draw=("2C", "3C"), discard=("4C", "5C"), hands=(Hand(character=7, cards=("AC", "JK1")),),
                  boosts=(Boost(character=7, skill=2, size=2, card="QH"),))  # fmt: skip
    after = shuffled(table, random.Random(8))
    assert after.hands == table.hands
    assert after.boosts == table.boosts
    assert after.discard == ()
    assert len(after.draw) == 54 - 3
    assert not {"AC", "JK1", "QH"} & set(after.draw)
    assert every_card_once(after) == sorted(cards.deck("poker"))


def test_a_characters_boosts_add_up_on_a_skill() -> None:
    table = Table(boosts=(Boost(character=7, skill=2, size=2, card="QH"), Boost(character=7, skill=2, size=2,
                  card="KH"), Boost(character=7, skill=3, size=2, card="JH"), Boost(character=8, skill=2, size=3,
                  card="QS")))  # fmt: skip
    assert (table.boost(7, 2), table.boost(7, 3), table.boost(7, 4), table.boost(8, 2), table.boost(7, None)) == (
        4, 2, 0, 3, 0)  # fmt: skip


def test_what_the_table_holds_for_a_sheet_is_its_boosts_added_up() -> None:
    table = Table(boosts=(Boost(character=7, skill=2, size=2, card="QH"), Boost(character=7, skill=2, size=3,
                  card="KH"), Boost(character=7, skill=5, size=2, card="JH"), Boost(character=8, skill=2, size=2,
                  card="QS")))  # fmt: skip
    assert TABLE.for_sheet is for_sheet
    assert for_sheet(table, 7) == {"boosts": {2: 5, 5: 2}}
    assert for_sheet(table, 8) == {"boosts": {2: 2}}
    assert for_sheet(table, 9) == {"boosts": {}}


# --- The host's moves ------------------------------------------------------------------------------------


def test_the_host_shuffles_every_card_not_in_play() -> None:
    table = Table(discard=("4C", "5C"), hands=(Hand(character=7, cards=("AC",)),))
    made = host("shuffle", table, rng=random.Random(4))
    after = made.state
    assert isinstance(after, Table)
    assert len(after.draw) == 53
    assert after.discard == ()
    assert after.hand(7) == ("AC",)
    assert made.words == "Shuffled 53 cards into a new deck"
    assert made.result == {"draw": 53}
    assert made.changed == ("deck",)


def test_only_the_host_makes_the_table_moves() -> None:
    assert {move.key for move in MOVES} == {"shuffle", "end-scene", "add-turn", "next-turn", "mark-npc",
                                            "clear-turns"}  # fmt: skip
    assert all(move.who == frozenset({Role.GM}) and move.note for move in MOVES)
    assert set(MOVES) <= set(SYSTEM.moves)


def test_ending_the_scene_ends_its_boosts_and_clears_the_turn_order() -> None:
    table = Table(draw=("2C",), discard=("3C",), scene=2,
                  boosts=(Boost(character=7, skill=2, size=2, card="QH"), Boost(character=8, skill=1, size=2,
                          card="KS")),
                  turns=(Turn(id=1, name="Mara", character=7, number=4), Turn(id=2, name="The ghoul", number=9)),
                  secrets=(Secret(character=7, d4=3),), hands=(Hand(character=7, cards=("AC",)),))  # fmt: skip
    made = host("end-scene", table)
    after = made.state
    assert isinstance(after, Table)
    assert (after.scene, after.boosts, after.turns) == (3, (), ())
    # "This boost lasts to the end of the current scene": the face cards go to the discard pile.
    assert after.discard == ("3C", "QH", "KS")
    # What the scene does not hold stays: the deck, the hands, a d4 still secret.
    assert (after.draw, after.hands, after.secrets) == (table.draw, table.hands, table.secrets)
    assert made.words == "Ended scene 2: 2 boosts ended with it"
    assert made.result == {"scene": 3}
    assert set(made.changed) == {"scene", "boosts", "turns", "deck"}
    assert host("end-scene", Table()).words == "Ended scene 1"


def test_the_host_adds_to_the_turn_order_and_clears_it() -> None:
    made = host("add-turn", Table(next_id=4), {"name": "The ghoul", "number": 6})
    after = made.state
    assert isinstance(after, Table)
    assert after.turns == (Turn(id=4, name="The ghoul", number=6),)
    assert after.next_id == 5
    assert made.words == "The ghoul takes turn number 6"
    cleared = host("clear-turns", after).state
    assert isinstance(cleared, Table)
    assert cleared.turns == ()
    assert cleared.next_id == 5


def test_the_turn_order_cannot_be_cleared_empty_nor_filled_past_its_bound() -> None:
    clear, add = find(MOVES, "clear-turns"), find(MOVES, "add-turn")
    assert clear is not None
    assert add is not None
    assert clear.why_not(Situation(Table(), OPTIONS, Role.GM, GM)) == "the turn order is empty"
    full = Table(turns=tuple(Turn(id=n, name=f"Ghoul {n}", number=5) for n in range(1, MAX_TURNS + 1)),
                 next_id=MAX_TURNS + 1)  # fmt: skip
    assert add.why_not(Situation(full, OPTIONS, Role.GM, GM)) == f"the turn order holds {MAX_TURNS} at most"


@pytest.mark.parametrize("values", [{"name": "", "number": 3}, {"name": "Ghoul", "number": 100},
                                    {"name": "Ghoul", "number": -1}, {"name": "Ghoul", "number": "3"}])  # fmt: skip
def test_a_turn_needs_a_name_and_a_number_from_0_to_99(values: dict[str, Any]) -> None:
    add = find(MOVES, "add-turn")
    assert add is not None
    with pytest.raises(ValidationError):
        add.input.model_validate(values)


def test_the_table_moves_that_ask_nothing_take_no_input() -> None:
    assert {move.key for move in MOVES if move.input is NoInput} == {"shuffle", "end-scene", "next-turn",
                                                                     "clear-turns"}  # fmt: skip


# --- What each viewer sees --------------------------------------------------------------------------------


def busy_table() -> Table:
    """A table in play: a shuffled deck, cards discarded, two characters' hands, boosts, a turn order and a
    secret d4."""
    table = shuffled_table(c7=("AC", "QH", "JK1"), c8=("7S", "KD"), c9=("2H",))
    table = table.model_copy(update={
        "discard": table.draw[:5], "draw": table.draw[8:],
        "boosts": tuple(Boost(character=8, skill=4, size=2, card=c) for c in table.draw[5:6]),
        "turns": (Turn(id=1, name="Mara", character=7, number=9), Turn(id=2, name="The ghoul", number=3),
                  Turn(id=3, name="Ivo", character=8, number=9), Turn(id=4, name="Boss", number=12)),
        "secrets": (Secret(character=8, d4=2),), "next_id": 5,
    })  # fmt: skip
    return Table.model_validate(table.model_dump())


@pytest.mark.parametrize("who", EVERYONE, ids=["gm", "anna", "boris", "nobody"])
def test_no_view_shows_the_draw_piles_cards_not_even_the_hosts(who: Viewer) -> None:
    table = busy_table()
    assert len(table.draw) > 30
    seen = view(table, who, OPTIONS)
    assert seen["draw"] == len(table.draw)
    text = json.dumps(seen)
    leaked = [code for code in table.draw if f'"{code}"' in text]
    assert leaked == []


@pytest.mark.parametrize("who", EVERYONE, ids=["gm", "anna", "boris", "nobody"])
def test_the_discard_pile_boosts_and_turns_are_everyones(who: Viewer) -> None:
    table = busy_table()
    seen = view(table, who, OPTIONS)
    assert [c["code"] for c in seen["discard"]] == list(table.discard)
    assert seen["discarded"] == 5
    assert seen["discard"][0] == {"code": table.discard[0], **{k: v for k, v in _card(table.discard[0]).items()}}
    assert [(b["character"], b["skill"], b["size"], b["card"]["code"]) for b in seen["boosts"]] == [
        (8, 4, 2, table.boosts[0].card)]  # fmt: skip
    assert seen["scene"] == 1
    assert seen["deck"] == "poker"


def _card(code: str) -> dict[str, Any]:
    played = cards.card(code)
    return {"name": played.name, "short": played.short, "kind": played.kind, "value": played.value,
            "suit": played.suit}  # fmt: skip


def test_only_the_last_ten_discards_are_listed() -> None:
    table = shuffled_table()
    table = table.model_copy(update={"discard": table.draw[:15], "draw": table.draw[15:]})
    seen = view(table, NOBODY, OPTIONS)
    assert [c["code"] for c in seen["discard"]] == list(table.discard[-10:])
    assert seen["discarded"] == 15


def hands(who: Viewer) -> dict[int, tuple[int, list[str] | None]]:
    seen = view(busy_table(), who, OPTIONS)["hands"]
    return {h["character"]: (h["count"], None if h["cards"] is None else [c["code"] for c in h["cards"]]) for h in seen}


def test_the_host_sees_every_hand() -> None:
    assert hands(GM) == {7: (3, ["AC", "QH", "JK1"]), 8: (2, ["7S", "KD"]), 9: (1, ["2H"])}


def test_a_player_sees_the_hands_of_their_own_characters_and_the_count_of_the_others() -> None:
    assert hands(ANNA) == {7: (3, ["AC", "QH", "JK1"]), 8: (2, None), 9: (1, None)}
    assert hands(BORIS) == {7: (3, None), 8: (2, ["7S", "KD"]), 9: (1, ["2H"])}
    assert hands(NOBODY) == {7: (3, None), 8: (2, None), 9: (1, None)}


@pytest.mark.parametrize("who", [ANNA, BORIS, NOBODY], ids=["anna", "boris", "nobody"])
def test_a_hidden_hand_shows_none_of_its_cards(who: Viewer) -> None:
    table = busy_table()
    text = json.dumps(view(table, who, OPTIONS))
    for hand in table.hands:
        if hand.character not in who.characters:
            assert [code for code in hand.cards if f'"{code}"' in text] == []


def test_the_secret_d4s_are_the_hosts_alone() -> None:
    assert view(busy_table(), GM, OPTIONS)["secrets"] == [{"character": 8, "d4": 2}]
    for who in (ANNA, BORIS, NOBODY):
        seen = view(busy_table(), who, OPTIONS)
        assert "secrets" not in seen
        assert '"d4"' not in json.dumps(seen)


def test_the_turn_order_runs_from_the_lowest_number_by_default() -> None:
    seen = view(busy_table(), ANNA, OPTIONS)
    assert seen["turn_order"] == "low"
    # Equal numbers keep the order they were taken in.
    assert [(t["name"], t["number"]) for t in seen["turns"]] == [("The ghoul", 3), ("Mara", 9), ("Ivo", 9),
                                                                 ("Boss", 12)]  # fmt: skip
    assert seen["turns"][1] == {"id": 1, "name": "Mara", "character": 7, "number": 9, "marks": 0, "current": False}


def test_the_turn_order_runs_from_the_highest_number_where_the_campaign_says() -> None:
    seen = view(busy_table(), GM, options(turn_order="high"))
    assert seen["turn_order"] == "high"
    assert [(t["name"], t["number"]) for t in seen["turns"]] == [("Boss", 12), ("Mara", 9), ("Ivo", 9),
                                                                 ("The ghoul", 3)]  # fmt: skip


def test_a_table_never_shuffled_counts_the_whole_deck_to_draw() -> None:
    # No order is known before the first shuffle, yet every card of the deck waits to be drawn.
    assert view(new_table(OPTIONS), NOBODY, OPTIONS)["draw"] == 54
    assert view(new_table({"deck": "tarot"}), GM, OPTIONS)["draw"] == 78
    drawn, _, _ = draw(new_table(OPTIONS), 7, random.Random(1))
    assert view(drawn, NOBODY, OPTIONS)["draw"] == 53


def test_a_view_is_json_and_goes_by_the_table_rules() -> None:
    table = busy_table()
    seen = TABLE.view(table, GM, OPTIONS)
    assert json.loads(json.dumps(seen)) == seen
    # The document read back from JSON is the same table, and gives the same view.
    assert TABLE.read(table.model_dump(mode="json")) == table
    assert TABLE.view(TABLE.read(table.model_dump(mode="json")), ANNA, OPTIONS) == view(table, ANNA, OPTIONS)


# --- The turn-order tracker ---------------------------------------------------------------------------------


def tracked() -> Table:
    return Table(turns=(Turn(id=1, name="Maud", character=7, number=5), Turn(id=2, name="The ghoul", number=3),
                        Turn(id=3, name="Elias", character=8, number=9)), next_id=4)  # fmt: skip


def test_the_turn_passes_lowest_first_and_a_new_round_follows_the_last() -> None:
    table = tracked()
    seen = []
    for _ in range(4):
        made = host("next-turn", table)
        table = made.state
        assert isinstance(table, Table)
        seen.append((table.current, table.round))
    assert seen == [(2, 1), (1, 1), (3, 1), (2, 2)]  # 3, 5, 9, then the ghoul again in round 2
    assert made.words == "Round 2: The ghoul's turn (3)"
    view_of = view(table, Viewer(Role.PLAYER, 5, frozenset()), OPTIONS)
    assert [(t["name"], t["current"]) for t in view_of["turns"]] == [("The ghoul", True), ("Maud", False),
                                                                     ("Elias", False)]  # fmt: skip
    assert view_of["round"] == 2
    high = host("next-turn", tracked(), given=options(turn_order="high")).state
    assert isinstance(high, Table)
    assert high.current == 3  # Elias's 9 first


def test_a_characters_new_turn_number_keeps_its_turn() -> None:
    table = tracked().model_copy(update={"current": 1})
    moved = with_turn(table, 7, "Maud", 2)
    assert moved.current == moved.turns[-1].id == 4
    assert [(t.name, t.number) for t in ordered(moved, OPTIONS)] == [("Maud", 2), ("The ghoul", 3), ("Elias", 9)]
    assert with_turn(table.model_copy(update={"current": 2}), 7, "Maud", 2).current == 2


def test_the_host_marks_someone_they_play_never_past_the_track() -> None:
    made = host("mark-npc", tracked(), {"name": "the  Ghoul", "marks": 4})
    table = made.state
    assert isinstance(table, Table)
    assert [t.marks for t in table.turns] == [0, 4, 0]
    assert made.words == "Marked 4 on The ghoul's Wounds: 4 of 6"
    table = host("mark-npc", table, {"name": "The ghoul", "marks": 9}).state
    assert isinstance(table, Table)
    assert table.turns[1].marks == 6
    move = find(MOVES, "mark-npc")
    assert move is not None
    situation = Situation(tracked(), OPTIONS, Role.GM, GM)
    problems = move.check(situation, {"name": "Maud", "marks": 0})
    assert [p.field for p in problems] == ["name", "marks"]  # a character's track is on its sheet
    twins = tracked().model_copy(update={"turns": (*tracked().turns, Turn(id=4, name="The Ghoul", number=7))})
    [twice] = move.check(Situation(twins, OPTIONS, Role.GM, GM), {"name": "the ghoul", "marks": 1})
    assert twice.message == "2 in the turn order are named 'the ghoul': give each a name of its own"


def test_ending_the_scene_or_clearing_the_order_stops_the_tracker() -> None:
    table = tracked().model_copy(update={"current": 3, "round": 4})
    for key in ("end-scene", "clear-turns"):
        after = host(key, table).state
        assert isinstance(after, Table)
        assert (after.current, after.round, after.turns) == (None, 1, ())
