"""Coin's sheet moves, a test of the platform's decisions after a sheet's dice: a dare flips two coins on a
character's Luck — double heads wins a Luck point, anything else costs one — and leaves the one who dared a
decision: keep the coins, or flip one of them again, each with the exact chance of double heads it leaves.
The coins that fell wait on the sheet (``dare``) until the decision is made; the GM may always make it."""

from __future__ import annotations

from fractions import Fraction
from typing import Final, Literal

from pydantic import BaseModel, ConfigDict, Field

from rules.document import Document
from rules.systems.moves import Choice, Made, Move, NoInput, Prompt, Rolled, Scope, Situation

Face = Literal["heads", "tails"]
#: The most Luck a sheet holds.
MAX_LUCK: Final = 20
#: The parts of the sheet a dare is made from: the Luck it wins or costs, and the coins that wait.
PARTS: Final = ("luck", "dare")


class Dare(Document):
    """The coins of a dare that wait for a decision."""

    faces: tuple[Face, Face]


class Reroll(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    coin: Literal[1, 2] = Field(..., title="Which coin")


def wins(faces: tuple[str, ...]) -> bool:
    return all(face == "heads" for face in faces)


def choices(faces: tuple[str, str]) -> tuple[Choice, ...]:
    """Keep the coins (double heads or not, for certain), or flip one again: double heads then has even
    odds if the other coin shows heads, and none if it shows tails."""
    first, second = faces
    return (
        Choice("dare-keep", "Keep them", Fraction(int(wins(faces)))),
        Choice(
            "dare-reroll", "Flip the first again", Fraction(1, 2) if second == "heads" else Fraction(0), {"coin": 1}
        ),
        Choice(
            "dare-reroll", "Flip the second again", Fraction(1, 2) if first == "heads" else Fraction(0), {"coin": 2}
        ),
    )


def _daring(situation: Situation) -> str | None:
    sheet = situation.state
    if sheet.nerve is None:  # type: ignore[attr-defined]
        return "flip for Nerve first"
    if sheet.luck == 0:  # type: ignore[attr-defined]
        return "out of Luck: there is nothing left to dare"
    return None


def _dare(situation: Situation, given: NoInput) -> Made:
    rng = situation.dice()
    faces: tuple[Face, Face] = (rng.choice(("heads", "tails")), rng.choice(("heads", "tails")))
    after = situation.state.model_copy(update={"dare": Dare(faces=faces)})
    to = situation.by.user if situation.by is not None else situation.owner
    assert to is not None
    question = f"{faces[0].capitalize()} and {faces[1]}: keep them, or flip one again?"
    rolled = Rolled("dare", "A dare: two coins", {"coins": 2, "wins": "double heads"}, list(faces), None,
                    {"success": wins(faces)}, Fraction(1, 4), "double heads")  # fmt: skip
    words = f"Dared fate: {faces[0]} and {faces[1]}"
    return Made(after, words=words, notice=f"dared fate: {faces[0]} and {faces[1]}", result={"faces": list(faces)},
                rolls=(rolled,), prompt=Prompt(to, question, choices(faces)))  # fmt: skip


def _settled(situation: Situation, faces: tuple[str, str]) -> tuple[BaseModel, bool, int]:
    """The sheet once the dare's coins are kept: a Luck point won with double heads, lost otherwise."""
    sheet = situation.state
    won = wins(faces)
    luck = min(sheet.luck + 1, MAX_LUCK) if won else max(sheet.luck - 1, 0)  # type: ignore[attr-defined]
    return sheet.model_copy(update={"dare": None, "luck": luck}), won, luck


def _no_dare(situation: Situation) -> str | None:
    return None if situation.state.dare is not None else "no dare waits for a decision"  # type: ignore[attr-defined]


def _keep(situation: Situation, given: NoInput) -> Made:
    dare: Dare = situation.state.dare  # type: ignore[attr-defined]
    after, won, luck = _settled(situation, dare.faces)
    words = f"Kept {dare.faces[0]} and {dare.faces[1]}: {'a Luck point won' if won else 'a Luck point lost'}"
    return Made(after, words=words, notice=words[:1].lower() + words[1:], result={"won": won, "luck": luck})


def _reroll(situation: Situation, given: Reroll) -> Made:
    dare: Dare = situation.state.dare  # type: ignore[attr-defined]
    faces = list(dare.faces)
    faces[given.coin - 1] = situation.dice().choice(("heads", "tails"))
    after, won, luck = _settled(situation, (faces[0], faces[1]))
    other = dare.faces[2 - given.coin]
    chance = Fraction(1, 2) if other == "heads" else Fraction(0)
    spec = {"coins": 1, "coin": given.coin, "wins": "double heads"}
    # The reroll follows the dare's roll: the pipeline says which, from the decision it answers.
    rolled = Rolled("dare", f"A dare: coin {given.coin} flipped again", spec, faces, None, {"success": won}, chance,
                    "double heads")  # fmt: skip
    said = "a Luck point won" if won else "a Luck point lost"
    words = f"Flipped coin {given.coin} again: {faces[0]} and {faces[1]}, {said}"
    return Made(after, words=words, notice=words[:1].lower() + words[1:], result={"won": won, "luck": luck,
                "faces": faces}, rolls=(rolled,))  # fmt: skip


MOVES: Final[tuple[Move, ...]] = (
    Move("dare", "Dare fate", Scope.SHEET, NoInput, PARTS, _dare, why_not=_daring, button="Flip two coins",
         help="Flip two coins: double heads wins a Luck point, anything else costs one. Once they fall, keep them "
              "or flip one of them again."),
    Move("dare-keep", "Keep the coins", Scope.SHEET, NoInput, PARTS, _keep, why_not=_no_dare, answers=True,
         button="Keep them"),
    Move("dare-reroll", "Flip one again", Scope.SHEET, Reroll, PARTS, _reroll, why_not=_no_dare, answers=True,
         button="Flip it"),
)  # fmt: skip
