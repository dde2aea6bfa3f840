"""D13's cards: the poker and tarot decks, every code and what its card is when played (rules text, "Using
Poker Cards"; rules README, "D13", "Cards")."""

from __future__ import annotations

import pytest

from rules.systems.d13.cards import MAJOR_ARCANA, MAX_CARDS, card, deck, is_card

SUITS = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
TAROT = {"Wa": ("wands", "clubs"), "Cu": ("cups", "hearts"), "Sw": ("swords", "spades"),
         "Pe": ("pentacles", "diamonds")}  # fmt: skip
NUMBERS = {"A": 1, "2": 2, "3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "10": 10}


def test_a_poker_deck_is_52_cards_and_two_jokers() -> None:
    cards = deck("poker")
    assert len(cards) == len(set(cards)) == 54
    kinds = [card(code).kind for code in cards]
    assert (kinds.count("number"), kinds.count("face"), kinds.count("joker")) == (40, 12, 2)
    for suit in SUITS.values():
        assert sum(1 for code in cards if card(code).suit == suit) == 13


def test_a_tarot_deck_is_56_minor_and_22_major_arcana() -> None:
    cards = deck("tarot")
    assert len(cards) == len(set(cards)) == 78 == MAX_CARDS
    kinds = [card(code).kind for code in cards]
    assert (kinds.count("number"), kinds.count("face"), kinds.count("joker")) == (40, 16, 22)
    majors = [code for code in cards if code.startswith("M")]
    assert majors == [f"M{n}" for n in range(22)]
    assert len(MAJOR_ARCANA) == 22
    for suit in SUITS.values():
        assert sum(1 for code in cards if card(code).suit == suit) == 14


@pytest.mark.parametrize("kind", ["poker", "tarot"])
def test_every_code_of_a_deck_is_a_card_named_once(kind: str) -> None:
    cards = [card(code) for code in deck(kind)]
    assert all(is_card(c.code) for c in cards)
    assert [c.code for c in cards] == list(deck(kind))
    # Every card but the two jokers has a name of its own.
    names = [c.name for c in cards if c.code not in ("JK1", "JK2")]
    assert len(names) == len(set(names))


def test_a_deck_is_always_in_the_same_order() -> None:
    assert deck("poker") == deck("poker")
    assert deck("poker")[:3] == ("AC", "2C", "3C")
    assert deck("tarot")[:2] == ("AWa", "2Wa")


def test_there_is_no_other_deck() -> None:
    with pytest.raises(ValueError, match="no 'uno' deck"):
        deck("uno")


@pytest.mark.parametrize(("rank", "value"), list(NUMBERS.items()))
@pytest.mark.parametrize("letter", list(SUITS))
def test_a_poker_number_card_is_worth_its_rank_an_ace_one(rank: str, value: int, letter: str) -> None:
    played = card(f"{rank}{letter}")
    assert (played.kind, played.value, played.suit) == ("number", value, SUITS[letter])
    said = "Ace" if rank == "A" else rank
    assert played.name == f"{said} of {SUITS[letter]}"


@pytest.mark.parametrize(("rank", "value"), list(NUMBERS.items()))
@pytest.mark.parametrize("letters", list(TAROT))
def test_a_tarot_number_card_counts_in_its_mapped_suit(rank: str, value: int, letters: str) -> None:
    # Rules README: wands -> clubs, cups -> hearts, swords -> spades, pentacles -> diamonds.
    tarot_suit, suit = TAROT[letters]
    played = card(f"{rank}{letters}")
    assert (played.kind, played.value, played.suit) == ("number", value, suit)
    assert played.name == f"{'Ace' if rank == 'A' else rank} of {tarot_suit}"


@pytest.mark.parametrize(("rank", "name"), [("J", "Jack"), ("Q", "Queen"), ("K", "King")])
@pytest.mark.parametrize("letter", list(SUITS))
def test_jack_queen_and_king_are_face_cards(rank: str, name: str, letter: str) -> None:
    played = card(f"{rank}{letter}")
    assert (played.kind, played.value, played.suit, played.name) == ("face", None, SUITS[letter],
                                                                      f"{name} of {SUITS[letter]}")  # fmt: skip


@pytest.mark.parametrize(("rank", "name"), [("Pg", "Page"), ("Kn", "Knight"), ("Q", "Queen"), ("K", "King")])
@pytest.mark.parametrize("letters", list(TAROT))
def test_page_knight_queen_and_king_are_tarot_face_cards(rank: str, name: str, letters: str) -> None:
    tarot_suit, suit = TAROT[letters]
    played = card(f"{rank}{letters}")
    assert (played.kind, played.value, played.suit, played.name) == ("face", None, suit, f"{name} of {tarot_suit}")


@pytest.mark.parametrize("code", ["JK1", "JK2"])
def test_a_joker_has_no_value_and_no_suit(code: str) -> None:
    played = card(code)
    assert (played.kind, played.value, played.suit, played.name, played.short) == ("joker", None, None, "Joker",
                                                                                    "Joker")  # fmt: skip


@pytest.mark.parametrize("n", range(22))
def test_a_major_arcanum_is_played_as_a_joker(n: int) -> None:
    played = card(f"M{n}")
    assert (played.kind, played.value, played.suit) == ("joker", None, None)
    assert played.name == f"{MAJOR_ARCANA[n]} (a major arcanum)"
    assert played.short == played.name


def test_the_major_arcana_run_from_the_fool_to_the_world() -> None:
    assert (card("M0").name, card("M13").name, card("M21").name) == (
        "The Fool (a major arcanum)", "Death (a major arcanum)", "The World (a major arcanum)")  # fmt: skip


SHORT = [("AC", "A♣"), ("10H", "10♥"), ("QS", "Q♠"), ("7D", "7♦"), ("PgCu", "Pg♥"), ("KnSw", "Kn♠"), ("10Pe", "10♦"),
         ("KWa", "K♣")]  # fmt: skip


@pytest.mark.parametrize(("code", "short"), SHORT)
def test_a_card_in_a_few_characters(code: str, short: str) -> None:
    assert card(code).short == short


@pytest.mark.parametrize("code", [
    "", "A", "1C", "11C", "0H", "AX", "JK", "JK0", "JK3", "M22", "M00", "M01", "M-1", "Mx", "PgC", "KnH",
    "JWa", "1Wa", "11Cu", "AWA", "ac", "10", "QQ", "jk1", "CA", "M",
])  # fmt: skip
def test_a_code_that_is_no_card_is_refused(code: str) -> None:
    assert not is_card(code)
    with pytest.raises(ValueError, match="is no card"):
        card(code)
