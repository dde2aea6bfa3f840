"""D13's engine played by hand, for its engine tests: a finished sheet made through creation, scripted dice,
and :class:`Play`, which makes sheet moves as the moves' pipeline does (the table locked with the sheet,
the rolls numbered as the log numbers them, the sheet and the table read again after each move)."""

from __future__ import annotations

import random
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from rules.systems.d13 import SYSTEM, cards
from rules.systems.d13.sheet import Sheet
from rules.systems.d13.table import Hand, Table
from rules.systems.moves import Made, Move, Rolled, Situation, Viewer, find
from rules.systems.protocol.editing import Role

OPTIONS = SYSTEM.default_options()
#: The user ids of the cast and the character's id at the table.
OWNER, GM, OTHER = 11, 22, 33
CHARACTER, OTHER_CHARACTER = 7, 8


def options(**changes: Any) -> dict[str, Any]:
    """The default options with ``changes``, validated."""
    return SYSTEM.validate_options({**OPTIONS, **changes})


def skill_id(sheet: Sheet, name: str) -> int:
    return next(skill.id for skill in sheet.skills if skill.name == name)


def finished(abilities: tuple[int, int, int, int] = (3, 3, 3, 3), given: Mapping[str, Any] = OPTIONS,
             **ratings: int) -> Sheet:  # fmt: skip
    """A sheet made through the creation steps: Brawn, Grace, Wits and Will, and skills by name (Occult=2)."""
    sheet = SYSTEM.new_draft(given)
    rated = dict(zip(("brawn", "grace", "wits", "will"), abilities, strict=True))
    sheet = SYSTEM.fill_step(sheet, "abilities", rated, given)
    rows = [{"id": skill_id(sheet, name), "rating": rating} for name, rating in ratings.items()]
    sheet = SYSTEM.fill_step(sheet, "skills", {"skills": rows}, given)
    return SYSTEM.finish(sheet, given)


#: Wits 3 + Occult 2: the target of most tests is 5.
def mara() -> Sheet:
    return finished(Occult=2, Athletics=1)


class Dice(random.Random):
    """The server's dice with every die scripted, in order (a d4, then a d9, then each reroll's die); a shuffle
    is the seeded generator's."""

    def __init__(self, *faces: int, seed: int = 13) -> None:
        super().__init__(seed)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        assert self.faces, "a die was rolled that the test did not script"
        face = self.faces.pop(0)
        assert a <= face <= b, f"a die of {a}-{b} cannot show {face}"
        return face


def move(key: str) -> Move[Any]:
    found = find(SYSTEM.moves, key)
    assert found is not None, key
    return found


def viewer(role: Role) -> Viewer:
    user = {Role.OWNER: OWNER, Role.GM: GM, Role.PLAYER: OTHER}[role]
    return Viewer(role, user, frozenset({CHARACTER}) if role is Role.OWNER else frozenset())


def shuffled_table(deck: str = "poker", *, seed: int = 5, **hands: tuple[str, ...]) -> Table:
    """A table shuffled once, with the hands given (``c7=("7C",)``) taken out of its deck."""
    held = {int(key[1:]): codes for key, codes in hands.items()}
    taken = {code for codes in held.values() for code in codes}
    pile = [code for code in cards.deck(deck) if code not in taken]
    random.Random(seed).shuffle(pile)
    return Table(deck=deck, draw=tuple(pile), hands=tuple(Hand(character=c, cards=h) for c, h in sorted(held.items())))


@dataclass
class Play:
    """One character's sheet and the campaign's table, moved as the pipeline moves them: each move's
    ``why_not`` and ``check`` asked first, its rolls numbered in the log's order, ``then`` given the numbers,
    and the sheet and the table read again through their models (every document a move leaves is valid)."""

    sheet: Sheet
    table: Table = field(default_factory=lambda: shuffled_table())
    given: Mapping[str, Any] = field(default_factory=lambda: OPTIONS)
    log: list[tuple[int, Rolled]] = field(default_factory=list)
    revealed: list[int] = field(default_factory=list)

    def situation(self, role: Role = Role.OWNER, rng: random.Random | None = None, *, called: bool = False,
                  ) -> Situation[Sheet]:  # fmt: skip
        return Situation(self.sheet, self.given, role, viewer(role), rng, owner=OWNER, gm=GM, table=self.table,
                         character=CHARACTER, name="Mara", called=called)  # fmt: skip

    def why_not(self, key: str, role: Role = Role.OWNER) -> str | None:
        return move(key).why_not(self.situation(role))

    def problems(self, key: str, values: Mapping[str, Any], role: Role = Role.OWNER) -> dict[str, str]:
        return {p.field: p.message for p in move(key).check(self.situation(role), values)}

    def make(self, key: str, values: Mapping[str, Any] | None = None, *, role: Role = Role.OWNER,
             rng: random.Random | None = None, called: bool = False) -> Made:  # fmt: skip
        played = move(key)
        assert role in played.who
        # The pipeline always gives the server's dice (a draw may shuffle); a test scripts the dice it rolls.
        situation = self.situation(role, rng if rng is not None else random.Random(99), called=called)
        assert played.why_not(situation) is None, played.why_not(situation)
        given = dict(values or {})
        assert played.check(situation, given) == ()
        made = played.apply(situation, played.input.model_validate(given))
        first = self.log[-1][0] + 1 if self.log else 1
        numbers = tuple(range(first, first + len(made.rolls)))
        self.log += list(zip(numbers, made.rolls, strict=True))
        state = made.then(made.state, numbers) if made.then is not None else made.state
        self.sheet = SYSTEM.read_sheet(state.model_dump(mode="json"))
        if made.table is not None:
            self.table = Table.model_validate(made.table.model_dump(mode="json"))
        self.revealed += made.reveals
        if isinstance(rng, Dice):
            assert rng.faces == [], f"dice scripted but not rolled: {rng.faces}"
        return made

    def roll(self, level: str, d4: int, d9: int, *, ability: str = "wits", skill: str | None = "Occult",
             unclear: bool = False, role: Role = Role.OWNER, called: bool = False) -> Made:  # fmt: skip
        values = {"level": level, "ability": ability, "unclear": unclear,
                  "skill": skill_id(self.sheet, skill) if skill else None}  # fmt: skip
        return self.make("d13-roll", values, role=role, rng=Dice(d4, d9), called=called)

    @property
    def hand(self) -> tuple[str, ...]:
        return self.table.hand(CHARACTER)
