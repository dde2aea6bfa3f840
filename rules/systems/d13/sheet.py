"""The D13 character sheet as one document: the four abilities (Brawn, Grace, Wits, Will), the skills of the
campaign's list with their ratings, the condition track the host sets, notes, how far creation has come, the
roll that waits for a decision and the last roll settled (what a card may change).

What the table shares or hides is the table's (:mod:`rules.systems.d13.table`): the deck, each character's
hand (seen by its player and the host), the face-card boosts of the scene, the turn order, and the d4 the host
rolled in secret. The sheet holds nothing a member of the campaign may not read.
"""

from __future__ import annotations

from typing import Annotated, Final, Literal

from pydantic import Field, model_validator

from rules.document import Document, ItemId, LongText, Name, require_unique
from rules.systems.d13.chance import Level
from rules.systems.d13.options import ABILITIES, MAX_RATING, Kind

SCHEMA_VERSION: Final = 1
MAX_NOTES: Final = 20_000
MAX_SKILLS: Final = 60
#: The longest condition track a campaign may set (its options bound it further).
MAX_CONDITION: Final = 30

Rating = Annotated[int, Field(ge=0, le=MAX_RATING, strict=True)]
Ability = Literal["brawn", "grace", "wits", "will"]
D4 = Annotated[int, Field(ge=1, le=4, strict=True)]
D9 = Annotated[int, Field(ge=0, le=9, strict=True)]
Seq = Annotated[int, Field(ge=1, strict=True)]


class Skill(Document):
    """A skill of the campaign's list, with its rating on this sheet (0: untrained)."""

    id: ItemId
    name: Name = Field(..., json_schema_extra={"fixed": True})
    kind: Kind = Field("physical", json_schema_extra={"fixed": True})
    rating: Rating = 0


class Task(Document):
    """What a roll tests: the difficulty level, the ability, the skill (by id; none: the ability alone), and
    the target the dice must not exceed (ability + skill + the scene's boosts on that skill) as it was rolled."""

    level: Level
    ability: Ability
    skill: ItemId | None = None
    target: Annotated[int, Field(ge=-99, le=99, strict=True)]


class Pending(Document):
    """A roll that waits for a decision: its task, the dice as everyone may see them (``d4`` is None while the
    host keeps it secret: the table holds it), whose decision it is (``stage``: the player's reroll, the
    host's forced reroll, the host's reveal), the die already rerolled, and the number of its last roll in the
    log (an answer's roll follows it)."""

    task: Task
    d4: D4 | None = None
    d9: D9
    secret: bool = False
    stage: Literal["player", "host", "reveal"]
    rerolled: Literal["", "d4", "d9", "kept"] = ""
    roll: Seq | None = None
    #: The numbers in the log of its rolls kept secret (the host's reveal shows them).
    secret_rolls: tuple[Seq, ...] = Field(default=(), max_length=4)


class Last(Document):
    """The last roll settled, for what a card may still do with it: its task, the total that stands, whether
    it succeeded, whether doubles stood (and drew a card), the effect (the total, or a card's value), the
    number card that replaced it, and its roll's number in the log."""

    task: Task
    total: Annotated[int, Field(ge=1, le=13, strict=True)]
    success: bool
    doubles: bool = False
    effect: Annotated[int, Field(ge=0, le=13, strict=True)]
    replaced_by: str = ""
    roll: Seq | None = None


class Sheet(Document):
    schema_version: Literal[1] = 1
    brawn: Rating | None = None
    grace: Rating | None = None
    wits: Rating | None = None
    will: Rating | None = None
    #: The campaign keeps the list (its options): a sheet rates each skill, never renames or drops one.
    skills: tuple[Skill, ...] = Field(default=(), max_length=MAX_SKILLS, json_schema_extra={"fixed_rows": True})
    condition: Annotated[int, Field(ge=0, le=MAX_CONDITION, strict=True)] = 0
    notes: Annotated[LongText, Field(max_length=MAX_NOTES)] = ""
    step: Literal["", "abilities", "skills"] = "abilities"
    next_id: Annotated[int, Field(ge=1, strict=True)] = 1
    pending: Pending | None = None
    last: Last | None = None

    @model_validator(mode="after")
    def _unique(self) -> Sheet:
        require_unique(self.skills, "skills")
        return self

    def ability(self, key: str) -> int:
        """The rating of ability ``key`` (0 before creation sets it)."""
        if key not in ABILITIES:
            raise KeyError(key)
        value = getattr(self, key)
        return int(value) if value is not None else 0

    def skill(self, skill_id: int | None) -> Skill | None:
        return next((skill for skill in self.skills if skill.id == skill_id), None)
