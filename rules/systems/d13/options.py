"""A D13 campaign's options: its skills (physical and mental), the creation budgets and limits, the suit of
each ability, the deck, a face card's boost, the turn order, the condition track and experience.

The text's creation, card, health and combat chapters are missing; the rules README fixes the readings:
"ability and skill budgets are campaign options with documented defaults", "the suit of each ability is a
campaign option (default Brawn ♣, Grace ♦, Wits ♠, Will ♥)", "a face card adds +2 to the tested skill until
the host ends the scene (a campaign option)", "the sheet keeps a condition track that the host names and sets
(default: Wounds 0–6, helpless at 6)", "turn order runs from the lowest turn number (a campaign option)",
"experience is optional, spent on skills".

Our defaults where the readings leave a number open (written down in ``docs/rules/d13.md``): abilities 1 to
5 with 12 points among the four (3 each on average), skills 0 to 4 at creation with 10 points among them, a
skill at most 6 in play; experience off, a skill's next rating costing twice that rating. With a middling
ability and skill (3 + 2 = 5) a Difficult task succeeds 16 times in 40: a d13 game is meant to be hard.

One model (:class:`Options`) says it all: its defaults, bounds, words and rules are what the options form,
the summary, the API's schema and :func:`validate_options` read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, Final, Literal

from pydantic import Field, ValidationInfo, field_validator

from rules.document import Document, Name

#: The four abilities, in the text's order, with their names.
ABILITIES: Final = ("brawn", "grace", "wits", "will")
ABILITY_NAMES: Final = {"brawn": "Brawn", "grace": "Grace", "wits": "Wits", "will": "Will"}
#: The suits, with their words and symbols.
SUITS: Final = ("clubs", "diamonds", "hearts", "spades")
SUIT_WORDS: Final = {"clubs": "Clubs ♣", "diamonds": "Diamonds ♦", "hearts": "Hearts ♥", "spades": "Spades ♠"}
MAX_SKILLS: Final = 60
#: The highest rating an ability or a skill can have at all (a bound on the options).
MAX_RATING: Final = 12

#: The skills a table expects, physical and mental (the text's skill chapters are missing: a preset to edit).
PRESET_SKILLS: Final = (
    ("Athletics", "physical"), ("Brawling", "physical"), ("Driving", "physical"), ("Firearms", "physical"),
    ("Melee", "physical"), ("Stealth", "physical"), ("Occult", "mental"), ("Investigation", "mental"),
    ("Medicine", "mental"), ("Persuasion", "mental"), ("Perception", "mental"), ("Technology", "mental"),
)  # fmt: skip

Rating = Annotated[int, Field(ge=0, le=MAX_RATING, strict=True)]
Kind = Literal["physical", "mental"]


class SkillOption(Document):
    """One skill of the campaign's list."""

    name: Annotated[Name, Field(min_length=1)] = Field(..., title="Skill")
    kind: Kind = Field(..., title="Kind", json_schema_extra={"labels": {"physical": "Physical",
                                                                     "mental": "Mental"}})  # fmt: skip


def preset_skills() -> tuple[SkillOption, ...]:
    return tuple(SkillOption(name=name, kind=kind) for name, kind in PRESET_SKILLS)  # type: ignore[arg-type]


SUIT_LABELS: Final[dict[str, Any]] = {"labels": {suit: SUIT_WORDS[suit] for suit in SUITS}, "group": "Cards"}


class Options(Document):
    """D13's options, in one model: what a form shows of each (title, help, bounds) is read from it."""

    skills: tuple[SkillOption, ...] = Field(
        default_factory=preset_skills, min_length=1, max_length=MAX_SKILLS, title="Skills",
        description="The campaign's skills, each physical or mental. Renaming one renames it on every sheet.",
        json_schema_extra={"renames": True, "noun": "skill", "group": "Skills"},
    )  # fmt: skip
    ability_min: Annotated[int, Field(ge=0, le=MAX_RATING, strict=True)] = Field(
        1, title="Lowest ability", json_schema_extra={"group": "Creation"}
    )
    ability_max: Annotated[int, Field(ge=1, le=MAX_RATING, strict=True)] = Field(
        5, title="Highest ability", json_schema_extra={"group": "Creation"}
    )
    ability_points: Annotated[int, Field(ge=0, le=4 * MAX_RATING, strict=True)] = Field(
        12, title="Ability points", description="Points a new character shares among Brawn, Grace, Wits and Will.",
        json_schema_extra={"group": "Creation"},
    )  # fmt: skip
    skill_points: Annotated[int, Field(ge=0, le=200, strict=True)] = Field(
        10, title="Skill points", description="Points a new character shares among the skills.",
        json_schema_extra={"group": "Creation"},
    )  # fmt: skip
    skill_max: Annotated[int, Field(ge=1, le=MAX_RATING, strict=True)] = Field(
        4, title="Highest skill at creation", json_schema_extra={"group": "Creation"}
    )
    skill_cap: Annotated[int, Field(ge=1, le=MAX_RATING, strict=True)] = Field(
        6, title="Highest skill in play", description="Experience raises no skill above it.",
        json_schema_extra={"group": "Advancement"},
    )  # fmt: skip
    experience: bool = Field(
        False, title="Experience",
        description="The text gives no advancement: with this on, the GM awards experience, spent on skills.",
        json_schema_extra={"group": "Advancement"},
    )  # fmt: skip
    experience_per_rating: Annotated[int, Field(ge=1, le=50, strict=True)] = Field(
        2, title="Experience per rating",
        description="Raising a skill to a rating costs that rating times this (to 3: 6 with the default).",
        json_schema_extra={"group": "Advancement"},
    )  # fmt: skip
    deck: Literal["poker", "tarot"] = Field(
        "poker", title="Deck",
        description="A poker deck (52 cards and two jokers) or a tarot deck (78 cards: the major arcana are "
                    "jokers; page, knight, queen and king are face cards).",
        json_schema_extra={"labels": {"poker": "Poker deck", "tarot": "Tarot deck"}, "group": "Cards"},
    )  # fmt: skip
    brawn_suit: Literal["clubs", "diamonds", "hearts", "spades"] = Field(
        "clubs", title="Suit of Brawn", json_schema_extra=SUIT_LABELS
    )
    grace_suit: Literal["clubs", "diamonds", "hearts", "spades"] = Field(
        "diamonds", title="Suit of Grace", json_schema_extra=SUIT_LABELS
    )
    wits_suit: Literal["clubs", "diamonds", "hearts", "spades"] = Field(
        "spades", title="Suit of Wits", json_schema_extra=SUIT_LABELS
    )
    will_suit: Literal["clubs", "diamonds", "hearts", "spades"] = Field(
        "hearts", title="Suit of Will", json_schema_extra=SUIT_LABELS
    )
    boost: Annotated[int, Field(ge=1, le=6, strict=True)] = Field(
        2, title="Face card boost", description="What a face card adds to the tested skill until the scene ends.",
        json_schema_extra={"group": "Cards"},
    )  # fmt: skip
    turn_order: Literal["low", "high"] = Field(
        "low", title="Turn order",
        json_schema_extra={"labels": {"low": "Lowest turn number first", "high": "Highest turn number first"},
                           "group": "Play"},
    )  # fmt: skip
    condition: Annotated[Name, Field(min_length=1)] = Field(
        "Wounds", title="Condition track", description="What the host marks on it.", json_schema_extra={"group": "Play"}
    )
    condition_max: Annotated[int, Field(ge=1, le=30, strict=True)] = Field(
        6, title="Track length", json_schema_extra={"group": "Play"}
    )
    helpless_at: Annotated[int, Field(ge=1, le=30, strict=True)] = Field(
        6, title="Helpless at", description="A character at this mark or beyond cannot act.",
        json_schema_extra={"group": "Play"},
    )  # fmt: skip

    @field_validator("skills")
    @classmethod
    def _unique_skills(cls, skills: tuple[SkillOption, ...]) -> tuple[SkillOption, ...]:
        seen: set[str] = set()
        for skill in skills:
            folded = skill.name.casefold()
            if folded in seen:
                raise ValueError(f"two skills are named {skill.name!r}")
            seen.add(folded)
        return skills

    @field_validator("ability_max")
    @classmethod
    def _max_over_min(cls, value: int, info: ValidationInfo) -> int:
        low = info.data.get("ability_min")
        if isinstance(low, int) and value < low:
            raise ValueError(f"the highest ability is at least the lowest ({low})")
        return value

    @field_validator("ability_points")
    @classmethod
    def _points_fit(cls, value: int, info: ValidationInfo) -> int:
        low, high = info.data.get("ability_min"), info.data.get("ability_max")
        if isinstance(low, int) and isinstance(high, int) and not 4 * low <= value <= 4 * high:
            raise ValueError(f"four abilities of {low} to {high} share {4 * low} to {4 * high} points")
        return value

    @field_validator("skill_cap")
    @classmethod
    def _cap_over_creation(cls, value: int, info: ValidationInfo) -> int:
        at_creation = info.data.get("skill_max")
        if isinstance(at_creation, int) and value < at_creation:
            raise ValueError(f"the highest skill in play is at least the highest at creation ({at_creation})")
        return value

    @field_validator("will_suit")
    @classmethod
    def _four_suits(cls, value: str, info: ValidationInfo) -> str:
        suits = [info.data.get(f"{ability}_suit") for ability in ABILITIES[:3]] + [value]
        if None not in suits and len(set(suits)) != len(suits):
            raise ValueError("each ability has a suit of its own")
        return value

    @field_validator("helpless_at")
    @classmethod
    def _helpless_on_track(cls, value: int, info: ValidationInfo) -> int:
        length = info.data.get("condition_max")
        if isinstance(length, int) and value > length:
            raise ValueError(f"a character is helpless at a mark on the track (at most {length})")
        return value


def suit_of(options: Mapping[str, Any], ability: str) -> str:
    """The suit of ``ability`` in the campaign's options."""
    return str(options[f"{ability}_suit"])
