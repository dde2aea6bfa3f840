"""Coin's table, a test of the platform's table state and prompts: a shared pot everyone sees, a bag of
tokens whose order nobody may read (not even the GM), each player's hand (seen by its player and the
GM only), and a flip of two coins that leaves its flipper a decision — keep them, or flip one again —
with the exact chance each choice leaves of the double heads that wins."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.document import Document
from rules.systems.base import Role
from rules.systems.moves import Choice, Made, Move, NoInput, Prompt, Rolled, Scope, Situation, TableRules, Viewer

#: The tokens a full bag holds, before it is shuffled.
TOKENS: Final = ("zorblat", "quintrel", "vashmere", "orrilex", "thundrap", "mirkwell")
MAX_POT: Final = 999
Face = Literal["heads", "tails"]
Token = Annotated[str, Field(min_length=1, max_length=20, pattern=r"^[a-z-]+$")]
UserId = Annotated[int, Field(ge=1, le=2**63 - 1, strict=True)]


class Hand(Document):
    user: UserId
    tokens: tuple[Token, ...] = Field(default=(), max_length=len(TOKENS))


class Flip(Document):
    """The last flip: who flipped, the faces, whether its flipper has decided, and its roll's number in the
    campaign's log (a reroll follows it)."""

    by: UserId
    faces: tuple[Face, Face]
    settled: bool = False
    roll: Annotated[int, Field(ge=1, strict=True)] | None = None


class Table(Document):
    schema_version: Literal[1] = 1
    pot: Annotated[int, Field(ge=0, le=MAX_POT, strict=True)] = 0
    bag: tuple[Token, ...] = Field(default=(), max_length=len(TOKENS))
    hands: tuple[Hand, ...] = Field(default=(), max_length=100)
    flip: Flip | None = None


def new_table(options: Mapping[str, Any]) -> Table:
    return Table()


def hand_of(table: Table, user: int) -> tuple[str, ...]:
    """The tokens in ``user``'s hand."""
    return next((h.tokens for h in table.hands if h.user == user), ())


def with_hand(table: Table, user: int, tokens: tuple[str, ...], bag: tuple[str, ...]) -> Table:
    """The table with ``user``'s hand holding ``tokens`` and the bag holding ``bag`` (the hands in order of
    their players)."""
    hands = [h for h in table.hands if h.user != user] + [Hand(user=user, tokens=tokens)]
    return table.model_copy(update={"bag": bag, "hands": tuple(sorted(hands, key=lambda h: h.user))})


def view(state: BaseModel, viewer: Viewer, options: Mapping[str, Any]) -> dict[str, Any]:
    """The pot and the last flip for all; the bag as a count (its order is nobody's); a player's own hand,
    and the others' as counts; the GM sees every hand."""
    table: Table = state  # type: ignore[assignment]
    hands = [
        {"user": h.user, "count": len(h.tokens),
         **({"tokens": list(h.tokens)} if viewer.role is Role.GM or h.user == viewer.user else {})}
        for h in table.hands
    ]  # fmt: skip
    flip = None if table.flip is None else {"by": table.flip.by, "faces": list(table.flip.faces),
                                            "settled": table.flip.settled}  # fmt: skip
    return {"pot": table.pot, "bag": len(table.bag), "hands": hands, "flip": flip}


def _wins(faces: tuple[str, ...]) -> bool:
    return all(face == "heads" for face in faces)


def _prompt(table: Table) -> Prompt | None:
    """The flipper's decision: keep the coins, or flip one of them again, each with its chance of double heads."""
    flip = table.flip
    if flip is None or flip.settled:
        return None
    first, second = flip.faces
    choices = (
        Choice("keep", "Keep them", Fraction(int(_wins(flip.faces)))),
        Choice("reroll", "Flip the first again", Fraction(1, 2) if second == "heads" else Fraction(0), {"coin": 1}),
        Choice("reroll", "Flip the second again", Fraction(1, 2) if first == "heads" else Fraction(0), {"coin": 2}),
    )
    return Prompt(flip.by, f"{first.capitalize()} and {second}: keep them, or flip one again?", choices)


def prompt(state: BaseModel, viewer: Viewer) -> Prompt | None:
    waiting = _prompt(state)  # type: ignore[arg-type]
    return waiting if waiting is not None and waiting.to == viewer.user else None


def for_sheet(state: BaseModel, character: int) -> dict[str, Any]:
    """What a sheet's flips read of the table: the pot, which everyone sees (a flip made while coins lie
    in it is made for the pot)."""
    table: Table = state  # type: ignore[assignment]
    return {"pot": table.pot}


TABLE: Final = TableRules(model=Table, new=new_table, view=view, prompt=prompt, for_sheet=for_sheet)


# --- The moves ------------------------------------------------------------------------------------


class Ante(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    coins: int = Field(..., ge=1, le=10, strict=True, title="Coins", description="How many go in the pot.")


class Reroll(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    coin: Literal[1, 2] = Field(..., title="Which coin")


EVERYONE: Final = frozenset({Role.GM, Role.PLAYER})


def _ante(situation: Situation, given: Ante) -> Made:
    table: Table = situation.state  # type: ignore[assignment]
    pot = min(table.pot + given.coins, MAX_POT)
    return Made(table.model_copy(update={"pot": pot}), words=f"Put {given.coins} in the pot: {pot}",
                notice=f"put {given.coins} in the pot", result={"pot": pot})  # fmt: skip


def _fill(situation: Situation, given: NoInput) -> Made:
    table: Table = situation.state  # type: ignore[assignment]
    held = [token for hand in table.hands for token in hand.tokens]
    bag = [token for token in TOKENS if token not in held]
    situation.dice().shuffle(bag)
    return Made(table.model_copy(update={"bag": tuple(bag)}), words=f"Shuffled {len(bag)} tokens into the bag",
                notice=f"shuffled {len(bag)} tokens into the bag", result={"bag": len(bag)})  # fmt: skip


def _empty_bag(situation: Situation) -> str | None:
    return None if situation.state.bag else "the bag is empty: the GM fills it"  # type: ignore[attr-defined]


def _draw(situation: Situation, given: NoInput) -> Made:
    table: Table = situation.state  # type: ignore[assignment]
    assert situation.by is not None
    user, token = situation.by.user, table.bag[0]
    after = with_hand(table, user, (*hand_of(table, user), token), table.bag[1:])
    return Made(after, words="Drew a token from the bag", notice=f"drew {token}", changed=("bag", "hands"))


def _flipping(situation: Situation) -> str | None:
    flip = situation.state.flip  # type: ignore[attr-defined]
    return "the last flip waits for its flipper's decision" if flip is not None and not flip.settled else None


def _flip(situation: Situation, given: NoInput) -> Made:
    table: Table = situation.state  # type: ignore[assignment]
    assert situation.by is not None
    rng = situation.dice()
    faces: tuple[Face, Face] = (rng.choice(("heads", "tails")), rng.choice(("heads", "tails")))
    after = table.model_copy(update={"flip": Flip(by=situation.by.user, faces=faces)})
    rolled = Rolled("flip", "Two coins at the table", {"coins": 2, "wins": "double heads"}, list(faces), None,
                    {"success": _wins(faces)}, Fraction(1, 4), "double heads")  # fmt: skip
    return Made(after, words=f"Flipped {faces[0]} and {faces[1]}", notice=f"flipped {faces[0]} and {faces[1]}",
                prompt=_prompt(after), result={"faces": list(faces)}, rolls=(rolled,), then=_numbered)  # fmt: skip


def _numbered(state: BaseModel, seqs: tuple[int, ...]) -> BaseModel:
    """The flip with its roll's number, for a reroll to follow."""
    table: Table = state  # type: ignore[assignment]
    assert table.flip is not None
    return table.model_copy(update={"flip": table.flip.model_copy(update={"roll": seqs[0]})})


def _not_theirs(situation: Situation) -> str | None:
    flip = situation.state.flip  # type: ignore[attr-defined]
    if flip is None or flip.settled:
        return "no flip waits for a decision"
    if situation.by is None or situation.by.user != flip.by:
        return "only the one who flipped decides"
    return None


def _keep(situation: Situation, given: NoInput) -> Made:
    table: Table = situation.state  # type: ignore[assignment]
    assert table.flip is not None
    won = _wins(table.flip.faces)
    after = table.model_copy(update={"flip": table.flip.model_copy(update={"settled": True})})
    words = f"Kept {table.flip.faces[0]} and {table.flip.faces[1]}: {'double heads' if won else 'no double heads'}"
    return Made(after, words=words, notice=words[:1].lower() + words[1:], result={"won": won})


def _reroll(situation: Situation, given: Reroll) -> Made:
    table: Table = situation.state  # type: ignore[assignment]
    assert table.flip is not None
    faces = list(table.flip.faces)
    faces[given.coin - 1] = situation.dice().choice(("heads", "tails"))
    won = _wins(tuple(faces))
    after = table.model_copy(update={"flip": Flip(by=table.flip.by, faces=(faces[0], faces[1]), settled=True,
                                                  roll=table.flip.roll)})  # fmt: skip
    words = f"Flipped coin {given.coin} again: {faces[0]} and {faces[1]}"
    other = table.flip.faces[2 - given.coin]
    spec = {"coins": 1, "coin": given.coin, "wins": "double heads"}
    chance = Fraction(1, 2) if other == "heads" else Fraction(0)
    rolled = Rolled("flip", f"Coin {given.coin} flipped again", spec, list(faces), None, {"success": won}, chance,
                    "double heads", follows=table.flip.roll)  # fmt: skip
    return Made(after, words=words, notice=words[:1].lower() + words[1:], result={"won": won, "faces": faces},
                rolls=(rolled,))  # fmt: skip


MOVES: Final[tuple[Move, ...]] = (
    Move("ante", "Put coins in the pot", Scope.TABLE, Ante, ("pot",), _ante, who=EVERYONE, button="Put them in"),
    Move("fill", "Fill the bag", Scope.TABLE, NoInput, ("bag",), _fill, who=frozenset({Role.GM}),
         note="only the GM fills the bag", button="Shuffle them in"),
    Move("draw", "Draw a token", Scope.TABLE, NoInput, ("bag",), _draw, who=EVERYONE, why_not=_empty_bag,
         button="Draw"),
    Move("flip", "Flip two coins", Scope.TABLE, NoInput, ("flip",), _flip, who=EVERYONE, why_not=_flipping,
         button="Flip"),
    Move("keep", "Keep the coins", Scope.TABLE, NoInput, ("flip",), _keep, who=EVERYONE, why_not=_not_theirs),
    Move("reroll", "Flip one again", Scope.TABLE, Reroll, ("flip",), _reroll, who=EVERYONE, why_not=_not_theirs),
)  # fmt: skip
