"""The cards of a D13 table: a poker deck (52 cards and two jokers) or a tarot deck (78 cards), each card a
short code, and what a card is when played.

"Number Cards: … discard a number card from his/her hand to replace a dice roll, to change his/her
character's turn number, or to change the effect of the roll"; "Face Cards: … discard a face card to
temporarily boost his/her skill rating"; "Card Suit: To justify using a card that does not match the suit of
the ability being tested … the player should create a storytelling rationale." The rules README: an ace is 1
and a 10 is 10; a joker may be played as any number or face card; a tarot deck maps wands → clubs, cups →
hearts, swords → spades, pentacles → diamonds, its page, knight, queen and king are face cards, and a major
arcanum is played as a joker.

Codes: a poker card is its rank and suit letter (``AC``, ``10H``, ``QS``), a joker ``JK1`` or ``JK2``; a tarot
card its rank and suit (``AWa``, ``PgCu``, ``KnSw``, ``QPe``), a major arcanum ``M0`` … ``M21``.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Annotated, Final, Literal

from pydantic import Field

POKER_SUITS: Final = {"C": "clubs", "D": "diamonds", "H": "hearts", "S": "spades"}
TAROT_SUITS: Final = {"Wa": ("wands", "clubs"), "Cu": ("cups", "hearts"), "Sw": ("swords", "spades"),
                      "Pe": ("pentacles", "diamonds")}  # fmt: skip
NUMBER_RANKS: Final = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10")
POKER_FACES: Final = {"J": "Jack", "Q": "Queen", "K": "King"}
TAROT_FACES: Final = {"Pg": "Page", "Kn": "Knight", "Q": "Queen", "K": "King"}
MAJOR_ARCANA: Final = (
    "The Fool", "The Magician", "The High Priestess", "The Empress", "The Emperor", "The Hierophant", "The Lovers",
    "The Chariot", "Strength", "The Hermit", "Wheel of Fortune", "Justice", "The Hanged Man", "Death",
    "Temperance", "The Devil", "The Tower", "The Star", "The Moon", "The Sun", "Judgement", "The World",
)  # fmt: skip
#: The most cards a deck holds (a tarot deck).
MAX_CARDS: Final = 78

#: A card's code as a document holds it.
Code = Annotated[str, Field(min_length=2, max_length=4, pattern=r"^[A-Za-z0-9]{2,4}$")]
Deck = Literal["poker", "tarot"]
Kind = Literal["number", "face", "joker"]


@dataclass(frozen=True, slots=True)
class Card:
    """A card as played: its code, its name, its kind (a number card, a face card, a joker), its value (a
    number card's: an ace is 1) and the suit it counts as (a tarot suit mapped; none for a joker)."""

    code: str
    name: str
    kind: Kind
    value: int | None = None
    suit: str | None = None

    @property
    def short(self) -> str:
        """The card in a few characters, for a hand shown at a glance: 7♣, Q♥, Joker."""
        if self.kind == "joker":
            return "Joker" if self.code.startswith("JK") else self.name
        symbol = {"clubs": "♣", "diamonds": "♦", "hearts": "♥", "spades": "♠"}[self.suit or "clubs"]
        rank = self.code[:2] if self.code[:2] in ("10", "Pg", "Kn") else self.code[:1]
        return f"{rank}{symbol}"


def _number(rank: str) -> int:
    return 1 if rank == "A" else int(rank)


@functools.cache
def deck(kind: str) -> tuple[str, ...]:
    """Every card of a full deck, in a fixed order (the server shuffles it); made once for each kind."""
    if kind == "tarot":
        minor = tuple(f"{rank}{suit}" for suit in TAROT_SUITS for rank in (*NUMBER_RANKS, *TAROT_FACES))
        return (*minor, *(f"M{n}" for n in range(len(MAJOR_ARCANA))))
    if kind != "poker":
        raise ValueError(f"there is no {kind!r} deck")
    cards = tuple(f"{rank}{suit}" for suit in POKER_SUITS for rank in (*NUMBER_RANKS, *POKER_FACES))
    return (*cards, "JK1", "JK2")


def card(code: str) -> Card:
    """The card ``code`` names; ValueError for a code that is no card."""
    if code in ("JK1", "JK2"):
        return Card(code, "Joker", "joker")
    if (
        code.startswith("M")
        and code[1:].isdigit()
        and int(code[1:]) < len(MAJOR_ARCANA)
        and code[1:] == str(int(code[1:]))
    ):
        return Card(code, f"{MAJOR_ARCANA[int(code[1:])]} (a major arcanum)", "joker")
    if code[-2:] in TAROT_SUITS:
        rank, (tarot_suit, suit) = code[:-2], TAROT_SUITS[code[-2:]]
        if rank in NUMBER_RANKS:
            said = "Ace" if rank == "A" else rank
            return Card(code, f"{said} of {tarot_suit}", "number", _number(rank), suit)
        if rank in TAROT_FACES:
            return Card(code, f"{TAROT_FACES[rank]} of {tarot_suit}", "face", None, suit)
    if code[-1:] in POKER_SUITS:
        rank, suit = code[:-1], POKER_SUITS[code[-1:]]
        if rank in NUMBER_RANKS:
            said = "Ace" if rank == "A" else rank
            return Card(code, f"{said} of {suit}", "number", _number(rank), suit)
        if rank in POKER_FACES:
            return Card(code, f"{POKER_FACES[rank]} of {suit}", "face", None, suit)
    raise ValueError(f"{code!r} is no card")


def is_card(code: str) -> bool:
    try:
        card(code)
    except ValueError:
        return False
    return True
