"""Coin's sheet moves at the table, a test of the platform's sheet moves that read and change the campaign's
table (:attr:`Move.table_parts`) and of rolls kept secret in the log until a move reveals them:

- **pocket**: a Luck point of the sheet pays for the bag's top token, drawn into the hand of the character's
  player — the sheet and the table change together;
- **put back**: a token of that hand goes back on top of the bag, and the Luck point comes back; the move's
  check reads the hand on the table, so its form says at the field when the token is not there;
- **toss**: a coin tossed in secret, which only the GM sees fall (its roll is secret in the log); the sheet
  keeps the roll's number until the GM shows it;
- **show**: the GM shows the tossed coin to everyone (the secret roll revealed)."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Final

from pydantic import BaseModel, ConfigDict, Field

from rules.document import Problem
from rules.systems.base import Role
from rules.systems.moves import Made, Move, NoInput, Rolled, Scope, Situation
from tests.systems.coin import table as coin_table
from tests.systems.coin.dare import MAX_LUCK

#: The parts of the table a token moves between.
TABLE_PARTS: Final = ("bag", "hands")


def _table(situation: Situation) -> coin_table.Table:
    table = situation.table
    assert isinstance(table, coin_table.Table), "a move with table_parts is given the table"
    return table


def _hand(situation: Situation) -> tuple[str, ...]:
    """The hand of the character's player on the table."""
    assert situation.owner is not None
    return coin_table.hand_of(_table(situation), situation.owner)


def _pocketing(situation: Situation) -> str | None:
    if situation.state.luck == 0:  # type: ignore[attr-defined]
        return "out of Luck: a token costs a Luck point"
    return None if _table(situation).bag else "the bag is empty: the GM fills it"


def _pocket(situation: Situation, given: NoInput) -> Made:
    sheet, table = situation.state, _table(situation)
    assert situation.owner is not None
    token, luck = table.bag[0], sheet.luck - 1  # type: ignore[attr-defined]
    after = coin_table.with_hand(table, situation.owner, (*_hand(situation), token), table.bag[1:])
    # The sheet's history is every member's to read: it says a token was drawn, never which.
    return Made(sheet.model_copy(update={"luck": luck}), words="Paid a Luck point for a token from the bag",
                notice=f"pocketed {token}", result={"luck": luck}, table=after)  # fmt: skip


class PutBack(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    token: coin_table.Token = Field(..., title="Which token", description="A token in the player's hand.")


def _holding(situation: Situation) -> str | None:
    return None if _hand(situation) else "no token in hand to put back"


def _in_hand(situation: Situation, values: Mapping[str, Any]) -> tuple[Problem, ...]:
    token = values.get("token")
    if token is None or situation.table is None or token in _hand(situation):
        return ()
    return (Problem(field="token", message=f"{token} is not in the hand"),)


def _put_back(situation: Situation, given: PutBack) -> Made:
    sheet, table = situation.state, _table(situation)
    assert situation.owner is not None
    hand = list(_hand(situation))
    hand.remove(given.token)
    after = coin_table.with_hand(table, situation.owner, tuple(hand), (given.token, *table.bag))
    luck = min(sheet.luck + 1, MAX_LUCK)  # type: ignore[attr-defined]
    return Made(sheet.model_copy(update={"luck": luck}), words="Put a token back in the bag for a Luck point",
                notice=f"put {given.token} back", result={"luck": luck}, table=after)  # fmt: skip


def _shows_hand(situation: Situation) -> dict[str, Any]:
    return {"hand": list(_hand(situation))} if situation.table is not None else {}


def _tossing(situation: Situation) -> str | None:
    tossed = situation.state.tossed  # type: ignore[attr-defined]
    return None if tossed is None else "the coin tossed in secret waits for the GM to show it"


def _toss(situation: Situation, given: NoInput) -> Made:
    face = situation.dice().choice(("heads", "tails"))
    rolled = Rolled("toss", "A coin tossed in secret", {"coins": 1}, [face], None, {"success": face == "heads"},
                    Fraction(1, 2), "heads", secret=True)  # fmt: skip
    # Nothing of the face in the words, the notice or the result: only the GM sees how it fell, in the log.
    return Made(situation.state, words="Tossed a coin in secret", notice="tossed a coin: the GM sees how it fell",
                rolls=(rolled,), then=_numbered)  # fmt: skip


def _numbered(state: BaseModel, seqs: tuple[int, ...]) -> BaseModel:
    """The sheet with the tossed coin's number in the log, for the GM to show it."""
    return state.model_copy(update={"tossed": seqs[-1]})


def _nothing_tossed(situation: Situation) -> str | None:
    return None if situation.state.tossed is not None else "no coin tossed in secret waits to be shown"  # type: ignore[attr-defined]


def _show(situation: Situation, given: NoInput) -> Made:
    seq = situation.state.tossed  # type: ignore[attr-defined]
    words = f"Showed the coin tossed in secret (roll #{seq})"
    return Made(situation.state.model_copy(update={"tossed": None}), words=words, notice=words[:1].lower() + words[1:],
                reveals=(seq,))  # fmt: skip


MOVES: Final[tuple[Move, ...]] = (
    Move("pocket", "Pocket a token", Scope.SHEET, NoInput, ("luck",), _pocket, why_not=_pocketing,
         button="Pay a Luck point", table_parts=TABLE_PARTS,
         help="Pay a Luck point for the bag's top token, drawn into your hand."),
    Move("put-back", "Put a token back", Scope.SHEET, PutBack, ("luck",), _put_back, why_not=_holding,
         check=_in_hand, shows=_shows_hand, button="Put it back", table_parts=TABLE_PARTS),
    Move("toss", "Toss a coin in secret", Scope.SHEET, NoInput, ("toss",), _toss, why_not=_tossing,
         button="Toss it"),
    Move("show", "Show the tossed coin", Scope.SHEET, NoInput, ("toss",), _show, who=frozenset({Role.GM}),
         note="only the GM shows a coin tossed in secret", why_not=_nothing_tossed, button="Show it"),
)  # fmt: skip
