"""A D13 campaign's table: a real deck of cards (draw pile, discard pile, reshuffle), each character's hand,
the face-card boosts of the scene, the scene's turn order, and the d4s the host rolled in secret.

Who sees what (:func:`view`): the draw pile's order is nobody's — not even the host's; a view gives its count.
The discard pile lies face up. A hand is seen by its character's player and the host; everyone else sees how
many cards it holds. A secret d4 is the host's until revealed. Boosts and the turn order are everyone's.

"Doubles: … the player draws a card to his/her hand from the top of the poker deck": a draw takes the top
card; an empty draw pile is made again from the discard pile, shuffled on the server (the reshuffle, said in
the history), and with no card left anywhere nothing is drawn. The host may also shuffle every card not in a
hand into a new draw pile, and ends the scene: the face-card boosts end with it ("This boost lasts to the end
of the current scene") and the turn order is cleared.

A fight is played here (the text's combat chapter is missing, and in D13 only the players roll): the scene's
turn order is its tracker — the host passes the turn, a new round after the last — and the host marks the
condition of those they play on their place in it (a character's track is on its sheet).
"""

from __future__ import annotations

from collections.abc import Mapping
from random import Random
from typing import Annotated, Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.document import Document, ItemId, Name, Problem, ShortText
from rules.systems.d13 import cards
from rules.systems.d13.options import MAX_RATING
from rules.systems.moves import Made, Move, NoInput, Scope, Situation, TableRules, Viewer
from rules.systems.protocol.editing import Role

#: The most characters with a hand, boosts or a turn at one table (a bound on the document).
MAX_AT_TABLE: Final = 200
MAX_TURNS: Final = 100
#: The longest condition track (a campaign's options bound it further).
MAX_MARKS: Final = 30
#: The most boosts one scene holds (every face card and joker of a tarot deck, with room to spare).
MAX_BOOSTS: Final = 100

CharacterId = Annotated[int, Field(ge=1, le=2**53, strict=True)]
Codes = tuple[cards.Code, ...]


class Hand(Document):
    """A character's hand of cards, and its name when it last drew (for the table's page)."""

    character: CharacterId
    name: ShortText = ""
    cards: Codes = Field(default=(), max_length=cards.MAX_CARDS)


class Boost(Document):
    """A face card played on a skill: it adds ``size`` to the skill until the scene ends."""

    character: CharacterId
    skill: ItemId
    size: Annotated[int, Field(ge=1, le=MAX_RATING, strict=True)]
    card: cards.Code
    #: The character's and the skill's names when it was played (for the table's page).
    name: ShortText = ""
    skill_name: ShortText = ""


class Turn(Document):
    """One place in the scene's turn order: a character (by id) or someone the host names, and the turn
    number (a roll's total, or a card's value)."""

    id: ItemId
    name: Name
    character: CharacterId | None = None
    number: Annotated[int, Field(ge=0, le=99, strict=True)]
    #: Someone the host plays keeps their condition here, in marks (a character's is on its sheet).
    marks: Annotated[int, Field(ge=0, le=MAX_MARKS, strict=True)] = 0


class Secret(Document):
    """A d4 the host rolled in secret for a character's unclear task, until the host reveals it."""

    character: CharacterId
    d4: Annotated[int, Field(ge=1, le=4, strict=True)]


class Table(Document):
    schema_version: Literal[1] = 1
    deck: cards.Deck = "poker"
    draw: Codes = Field(default=(), max_length=cards.MAX_CARDS)
    discard: Codes = Field(default=(), max_length=cards.MAX_CARDS)
    hands: tuple[Hand, ...] = Field(default=(), max_length=MAX_AT_TABLE)
    scene: Annotated[int, Field(ge=1, strict=True)] = 1
    boosts: tuple[Boost, ...] = Field(default=(), max_length=MAX_BOOSTS)
    turns: tuple[Turn, ...] = Field(default=(), max_length=MAX_TURNS)
    secrets: tuple[Secret, ...] = Field(default=(), max_length=MAX_AT_TABLE)
    next_id: Annotated[int, Field(ge=1, strict=True)] = 1
    #: Whose turn it is (a turn's id; none before the host starts the order) and the round of the scene.
    current: ItemId | None = None
    round: Annotated[int, Field(ge=1, strict=True)] = 1

    @model_validator(mode="after")
    def _one_deck(self) -> Table:
        """Every card is in one place at most: the draw pile, the discard pile, a hand or a boost."""
        held = [*self.draw, *self.discard, *(c for hand in self.hands for c in hand.cards),
                *(boost.card for boost in self.boosts)]  # fmt: skip
        full = set(cards.deck(self.deck))
        strange = sorted(set(held) - full)
        if strange:
            raise ValueError(f"{strange[0]} is no card of a {self.deck} deck")
        if len(held) != len(set(held)):
            raise ValueError("a card is in two places at once")
        return self

    def hand(self, character: int) -> tuple[str, ...]:
        return next((hand.cards for hand in self.hands if hand.character == character), ())

    def boost(self, character: int, skill: int | None) -> int:
        """What the scene's face cards add to a character's skill."""
        return sum(b.size for b in self.boosts if b.character == character and b.skill == skill and skill is not None)

    def secret(self, character: int) -> int | None:
        return next((s.d4 for s in self.secrets if s.character == character), None)


def new_table(options: Mapping[str, Any]) -> Table:
    """A campaign's first table: its deck, no card laid out yet. The first shuffle (the host's, or the first
    draw's: :func:`draw`) makes the draw pile, so no order of it is ever known; until then a view counts the
    whole deck as the cards to draw (:func:`unshuffled`)."""
    return Table(deck=options.get("deck", "poker"))


def unshuffled(table: Table) -> bool:
    """Whether the table was never shuffled: no card in any place yet (after the first shuffle every card
    is in the draw pile, the discard pile, a hand or a boost)."""
    return not table.draw and not table.discard and not in_play(table)


def _with_hand(table: Table, character: int, held: tuple[str, ...], name: str = "") -> tuple[Hand, ...]:
    others = [hand for hand in table.hands if hand.character != character]
    named = name or next((hand.name for hand in table.hands if hand.character == character), "")
    mine = [Hand(character=character, name=named, cards=held)] if held else []
    return tuple(sorted([*others, *mine], key=lambda hand: hand.character))


def in_play(table: Table) -> set[str]:
    """Every card in a hand or on a boost: what a shuffle leaves where it is."""
    return {c for hand in table.hands for c in hand.cards} | {boost.card for boost in table.boosts}


def shuffled(table: Table, rng: Random) -> Table:
    """Every card not in play shuffled into a new draw pile; the discard pile is empty."""
    pile = [code for code in cards.deck(table.deck) if code not in in_play(table)]
    rng.shuffle(pile)
    return table.model_copy(update={"draw": tuple(pile), "discard": ()})


def draw(table: Table, character: int, rng: Random, name: str = "") -> tuple[Table, str | None, str]:
    """The top card drawn into the character's hand: the table after, the card (None: there is none left),
    and what happened to the deck first, in words ("" when nothing did). A table never shuffled is shuffled
    first; an empty draw pile is the discard pile shuffled."""
    said = ""
    if not table.draw:
        never = unshuffled(table)
        if not table.discard and not never:
            return table, None, "no card is left in the deck or the discard pile"
        table = shuffled(table, rng)
        said = "the deck was shuffled" if never else "the discard pile was shuffled into a new deck"
        if not table.draw:
            return table, None, "no card is left in the deck or the discard pile"
    top, rest = table.draw[0], table.draw[1:]
    hands = _with_hand(table, character, (*table.hand(character), top), name)
    after = table.model_copy(update={"draw": rest, "hands": hands})
    return after, top, said


def discard(table: Table, character: int, code: str) -> Table:
    """The card ``code`` from the character's hand onto the discard pile (face up)."""
    held = list(table.hand(character))
    held.remove(code)
    return table.model_copy(update={"hands": _with_hand(table, character, tuple(held)),
                                    "discard": (*table.discard, code)})  # fmt: skip


def ordered(table: Table, options: Mapping[str, Any]) -> list[Turn]:
    """The scene's turn order: lowest turn number first, or highest where the campaign plays it so; equal numbers
    in the order they were taken."""
    high = options.get("turn_order", "low") == "high"
    return sorted(table.turns, key=lambda t: (-t.number if high else t.number, t.id))


def with_turn(table: Table, character: int, name: str, number: int) -> Table:
    """The character's place in the turn order at ``number`` (a new one, or its old one moved); if it was the
    character's turn, it still is."""
    old = next((t for t in table.turns if t.character == character), None)
    turn = Turn(id=table.next_id, name=name, character=character, number=number)
    turns = (*(t for t in table.turns if t.character != character), turn)
    current = turn.id if old is not None and table.current == old.id else table.current
    return table.model_copy(update={"turns": turns, "next_id": table.next_id + 1, "current": current})


def view(state: BaseModel, viewer: Viewer, options: Mapping[str, Any]) -> dict[str, Any]:
    """What one viewer may see: the draw pile as a count (the whole deck before the first shuffle); the
    discard pile; each hand as a count, with its cards for the host and for the character's own player; the
    boosts and the turn order (low or high first, as the campaign plays it); the secret d4s for the host
    alone."""
    table = _read(state)
    host = viewer.role is Role.GM
    hands = []
    for hand in table.hands:
        seen = host or hand.character in viewer.characters
        shown = [_card_view(code) for code in hand.cards] if seen else None
        hands.append({"character": hand.character, "name": hand.name, "count": len(hand.cards), "cards": shown})
    high = options.get("turn_order", "low") == "high"
    turns = ordered(table, options)
    out: dict[str, Any] = {
        "deck": table.deck,
        "draw": len(cards.deck(table.deck)) if unshuffled(table) else len(table.draw),
        "discard": [_card_view(code) for code in table.discard[-10:]],
        "discarded": len(table.discard),
        "hands": hands,
        "scene": table.scene,
        "boosts": [{"character": b.character, "name": b.name, "skill": b.skill, "skill_name": b.skill_name,
                    "size": b.size, "card": _card_view(b.card)} for b in table.boosts],
        "turns": [{"id": t.id, "name": t.name, "character": t.character, "number": t.number, "marks": t.marks,
                   "current": t.id == table.current} for t in turns],
        "round": table.round,
        "track": {"name": options.get("condition", "Wounds"), "max": options.get("condition_max", 6),
                  "helpless_at": options.get("helpless_at", 6)},
        "turn_order": "high" if high else "low",
    }  # fmt: skip
    if host:
        out["secrets"] = [{"character": s.character, "d4": s.d4} for s in table.secrets]
    return out


def _read(state: BaseModel) -> Table:
    return state if isinstance(state, Table) else Table.model_validate(state.model_dump())


def for_sheet(state: BaseModel, character: int) -> dict[str, Any]:
    """What the table holds for one character's sheet rolls (:meth:`D13.sheet_roll` reads it): the scene's
    boosts on each of its skills, ``{"boosts": {skill id: the sizes of its face cards added up}}`` ("boosts
    from several face cards add up", rules README, "D13"). Boosts are everyone's to see."""
    boosts: dict[int, int] = {}
    for boost in _read(state).boosts:
        if boost.character == character:
            boosts[boost.skill] = boosts.get(boost.skill, 0) + boost.size
    return {"boosts": boosts}


def _card_view(code: str) -> dict[str, Any]:
    card = cards.card(code)
    return {"code": card.code, "name": card.name, "short": card.short, "kind": card.kind, "value": card.value,
            "suit": card.suit}  # fmt: skip


TABLE: Final = TableRules(model=Table, new=new_table, view=view, for_sheet=for_sheet)


# --- The host's moves at the table --------------------------------------------------------------------

HOST: Final = frozenset({Role.GM})


def _shuffle(situation: Situation[Table], given: NoInput) -> Made:
    table = shuffled(situation.state, situation.dice())
    words = f"Shuffled {len(table.draw)} cards into a new deck"
    return Made(table, words=words, notice=words[:1].lower() + words[1:], result={"draw": len(table.draw)},
                changed=("deck",))  # fmt: skip


def _end_scene(situation: Situation[Table], given: NoInput) -> Made:
    table = situation.state
    spent = tuple(boost.card for boost in table.boosts)
    after = table.model_copy(update={"scene": table.scene + 1, "boosts": (), "turns": (), "current": None,
                                     "round": 1, "discard": (*table.discard, *spent)})  # fmt: skip
    ended = len(table.boosts)
    words = f"Ended scene {table.scene}" + (f": {ended} boost{'s' * (ended != 1)} ended with it" if ended else "")
    return Made(after, words=words, notice=words[:1].lower() + words[1:], result={"scene": after.scene},
                changed=("scene", "boosts", "turns", "deck"))  # fmt: skip


class AddTurn(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Annotated[Name, Field(min_length=1)] = Field(..., title="Who", description="Someone the host plays.")
    number: Annotated[int, Field(ge=0, le=99, strict=True)] = Field(..., title="Turn number")


def _add_turn(situation: Situation[Table], given: AddTurn) -> Made:
    table = situation.state
    turn = Turn(id=table.next_id, name=given.name, number=given.number)
    after = table.model_copy(update={"turns": (*table.turns, turn), "next_id": table.next_id + 1})
    words = f"{given.name} takes turn number {given.number}"
    return Made(after, words=words, notice=f"put {given.name} in the turn order at {given.number}")


def _full(situation: Situation[Table]) -> str | None:
    return f"the turn order holds {MAX_TURNS} at most" if len(situation.state.turns) >= MAX_TURNS else None


def _no_turns(situation: Situation[Table]) -> str | None:
    return None if situation.state.turns else "the turn order is empty"


def _clear_turns(situation: Situation[Table], given: NoInput) -> Made:
    return Made(situation.state.model_copy(update={"turns": (), "current": None, "round": 1}),
                words="Cleared the turn order",
                notice="cleared the turn order")  # fmt: skip


def _next_turn(situation: Situation[Table], given: NoInput) -> Made:
    """The turn passes to the next in the order; after the last, a new round begins with the first."""
    table = situation.state
    order = ordered(table, situation.options)
    ids = [turn.id for turn in order]
    at = ids.index(table.current) if table.current in ids else -1
    round_ = table.round + 1 if at == len(ids) - 1 else table.round
    turn = order[(at + 1) % len(ids)]
    after = table.model_copy(update={"current": turn.id, "round": round_})
    words = f"Round {round_}: {turn.name}'s turn ({turn.number})"
    return Made(after, words=words, notice=f"passed the turn: {words[0].lower()}{words[1:]}",
                result={"current": turn.id, "round": round_})  # fmt: skip


class MarkNpc(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)
    name: Annotated[Name, Field(min_length=1)] = Field(
        ..., title="Who", description="Someone the host plays, by their name in the turn order."
    )
    marks: Annotated[int, Field(ge=-MAX_MARKS, le=MAX_MARKS, strict=True)] = Field(
        ..., title="Marks", description="Damage marks on their track (a recovery takes them off: a negative number)."
    )


def _played(table: Table, name: str) -> list[Turn]:
    """The turns of those the host plays named ``name`` (case and spaces aside)."""
    wanted = " ".join(name.split()).casefold()
    return [t for t in table.turns if t.character is None and " ".join(t.name.split()).casefold() == wanted]


def _check_mark_npc(situation: Situation[Table], values: Mapping[str, Any]) -> tuple[Problem, ...]:
    problems = []
    name = values.get("name")
    if name is not None:
        found = _played(situation.state, str(name))
        if not found:
            problems.append(Problem(field="name", message=f"nobody the host plays is named {name!r} in the turn "
                                                          "order (a character's track is on its sheet)"))  # fmt: skip
        elif len(found) > 1:
            problems.append(Problem(field="name", message=f"{len(found)} in the turn order are named {name!r}: "
                                                          "give each a name of its own"))  # fmt: skip
    if values.get("marks") == 0:
        problems.append(Problem(field="marks", message="mark at least one, or take at least one off"))
    return tuple(problems)


def _mark_npc(situation: Situation[Table], given: MarkNpc) -> Made:
    """The host marks the condition track of someone they play, as a character's is marked, never past its ends."""
    table, options = situation.state, situation.options
    track, most = str(options.get("condition", "Wounds")), int(options.get("condition_max", 6))
    helpless = int(options.get("helpless_at", most))
    [turn] = _played(table, given.name)
    now = min(max(turn.marks + given.marks, 0), min(most, MAX_MARKS))
    turns = tuple(t.model_copy(update={"marks": now}) if t.id == turn.id else t for t in table.turns)
    state = " (helpless)" if now >= helpless else ""
    words = f"{'Marked' if given.marks > 0 else 'Took off'} {abs(given.marks)} on {turn.name}'s {track}: {now} of " \
            f"{most}{state}"  # fmt: skip
    return Made(table.model_copy(update={"turns": turns}), words=words, notice=f"{words[0].lower()}{words[1:]}",
                result={"marks": now, "helpless": now >= helpless})  # fmt: skip


MOVES: Final[tuple[Move[Any], ...]] = (
    Move("shuffle", "Shuffle the deck", Scope.TABLE, NoInput, ("deck",), _shuffle, who=HOST,
         note="only the host shuffles the deck", button="Shuffle",
         help="Every card not in a hand or on a boost goes into a new deck, shuffled on the server."),
    Move("end-scene", "End the scene", Scope.TABLE, NoInput, ("scene",), _end_scene, who=HOST,
         note="only the host ends a scene", button="End the scene",
         help="The face-card boosts end with the scene, and the turn order is cleared."),
    Move("add-turn", "Add to the turn order", Scope.TABLE, AddTurn, ("turns",), _add_turn, who=HOST,
         note="only the host adds someone to the turn order", why_not=_full, button="Add"),
    Move("next-turn", "Next turn", Scope.TABLE, NoInput, ("turns",), _next_turn, who=HOST,
         note="only the host passes the turn", why_not=_no_turns, button="Next turn",
         help="The turn passes to the next in the order; after the last, a new round begins."),
    Move("mark-npc", "Mark someone you play", Scope.TABLE, MarkNpc, ("turns",), _mark_npc, who=HOST,
         note="only the host marks the condition of those they play", why_not=_no_turns, check=_check_mark_npc,
         button="Mark it", help="Damage or a recovery, in marks, for someone in the turn order the host plays."),
    Move("clear-turns", "Clear the turn order", Scope.TABLE, NoInput, ("turns",), _clear_turns, who=HOST,
         note="only the host clears the turn order", why_not=_no_turns, button="Clear"),
)  # fmt: skip
