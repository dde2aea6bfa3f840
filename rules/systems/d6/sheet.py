"""The D6 character sheet as one document: stats and skills as die codes, luck points, the
conditions the GM sets (wounds, stunned), gear, notes, and how far creation has come.

"Every character has Stats and Skills measured in Die Codes"; "All skills start with the same die
code as the stat": a skill not raised keeps no code of its own (``code`` is ``None``) and is rolled at
its stat's code, so it is shown at its own code only once raised. Every list item carries a stable id
(ARCHITECTURE.md, "References"); a skill points at its stat by id, so renaming a stat changes nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Annotated, Any, Final, Literal

from pydantic import Field, model_validator

from rules.document import Document, ItemId, LongText, Name, ShortText, fresh_id, require_unique
from rules.systems.d6.chance import MAX_DIFFICULTY
from rules.systems.d6.codes import DieCode
from rules.systems.d6.rounds import MAX_ACTIONS

#: The version of the document this code writes; older documents go through :func:`migrate`.
SCHEMA_VERSION: Final = 2

MAX_DESCRIPTION: Final = 2000
MAX_NOTES: Final = 20_000
MAX_ITEMS: Final = 150
MAX_LUCK: Final = 99
#: The wound levels, from none: wounded is −1d to every roll ("If you are wounded when you use a skill");
#: incapacitated and dead cannot act (our reading: the text stops at wounded, and a fight needs an end).
WOUND_LEVELS: Final = ("unhurt", "wounded", "incapacitated", "dead")
MAX_WOUNDS: Final = len(WOUND_LEVELS) - 1

#: A die code as the sheet writes it: ``3d``, ``3d+1``, ``3d+2`` (``0d+2`` too).
Code = Annotated[str, Field(pattern=r"^[0-9]{1,2}d(\+[12])?$")]
Description = Annotated[LongText, Field(max_length=MAX_DESCRIPTION)]


def code(text: str) -> DieCode:
    """A code the sheet holds (already well formed) as the engine's :class:`DieCode`."""
    return DieCode.parse(text)


class Stat(Document):
    """ "A stat is a basic attribute": fixed once the character is made ("You can't improve your stats")."""

    id: ItemId
    name: Name
    code: Code | None = None  # empty in a draft before the stats step


class Skill(Document):
    """A skill of one stat; ``code`` is ``None`` until it is raised above the stat ("All skills start
    with the same die code as the stat")."""

    id: ItemId
    name: Name
    stat: ItemId
    reaction: bool = False
    code: Code | None = None


class Item(Document):
    """A piece of gear or anything else the character carries (no mechanics in the text)."""

    id: ItemId
    name: Name
    description: Description = ""


class LuckSpend(Document):
    """A luck point spent this adventure, and how heroic the GM judged it (``None`` until the GM says): a heroic
    or dramatic one comes back at the adventure's end ("Heroic, you'll get it back at the end of the
    adventure"); ``extra``: the GM grants a dramatic one "probably another one"."""

    id: Annotated[int, Field(ge=1, strict=True)]
    kind: Literal["double", "escape"]
    heroism: Literal["unheroic", "heroic", "dramatic"] | None = None
    explanation: Annotated[LongText, Field(max_length=500)] = ""
    extra: bool = False

    @model_validator(mode="after")
    def _extra_only_when_dramatic(self) -> LuckSpend:
        if self.extra and self.heroism != "dramatic":
            raise ValueError("only a spend at a dramatic moment earns one more luck point")
        return self


#: The most steps one round keeps: every declared action, every reaction, and each thing that befalls.
MAX_ROUND_STEPS: Final = 24
RoundDifficulty = Annotated[int, Field(ge=1, le=MAX_DIFFICULTY, strict=True)]


class Declared(Document):
    """One action declared at the start of a round: the stat or skill (by id) and its difficulty, if known."""

    item: ItemId
    difficulty: RoundDifficulty | None = None


class RoundStep(Document):
    """What happened in the round, in order: a declared action attempted (``action``, from 0), a reaction
    used (``item``), a use the round did not declare (``extra``: ``item``, the GM's call mid-round), the
    character wounded or stunned (or no longer), or a luck point spent to double. ``roll`` is the
    roll's number in the campaign's log, for a use rolled."""

    what: Literal["attempt", "reaction", "extra", "wounded", "stunned", "healed", "unstunned", "luck"]
    action: Annotated[int, Field(ge=0, lt=MAX_ACTIONS, strict=True)] | None = None
    item: ItemId | None = None
    difficulty: RoundDifficulty | None = None
    roll: Annotated[int, Field(ge=1, strict=True)] | None = None


class Round(Document):
    """The combat round the character is in, kept between pages (:mod:`rules.systems.d6.round_state`).

    ``declared`` is False while a luck point spent before the round waits for its actions; ``wounded``
    and ``stunned`` are the conditions the round began with; ``prepared``: the round takes the +1d the
    last round prepared (the sheet's :attr:`Sheet.prepared`)."""

    declared: bool = False
    actions: tuple[Declared, ...] = Field(default=(), max_length=MAX_ACTIONS)
    running: bool = False
    doubled: bool = False
    prepared: bool = False
    wounded: bool = False
    stunned: bool = False
    steps: tuple[RoundStep, ...] = Field(default=(), max_length=MAX_ROUND_STEPS)


class Creation(Document):
    """Where creation stands: the step a draft was saved at ("" once the character is finished)."""

    step: Literal["", "stats", "skills", "review"] = "stats"


class Sheet(Document):
    """A whole D6 character, draft or finished (the name lives with the character)."""

    schema_version: Literal[2] = SCHEMA_VERSION
    concept: ShortText = ""
    stats: tuple[Stat, ...] = Field(default=(), max_length=MAX_ITEMS)
    skills: tuple[Skill, ...] = Field(default=(), max_length=MAX_ITEMS)
    #: "Every character starts with one Luck Point" (the campaign's ``starting_luck``).
    luck_points: Annotated[int, Field(ge=0, le=MAX_LUCK, strict=True)] = 0
    #: The luck points spent this adventure, each as the GM judged it (the heroic and dramatic ones come back at
    #: its end), and how many were ever spent (the last spend's number: the luck point ledger's entries are in
    #: the sheet's history).
    luck_spends: tuple[LuckSpend, ...] = Field(default=(), max_length=MAX_LUCK)
    luck_spent: Annotated[int, Field(ge=0, strict=True)] = 0
    #: How badly hurt (:data:`WOUND_LEVELS`): "If you are wounded when you use a skill, your skill code is
    #: reduced by 1d"; our reading adds the levels past it, where a character cannot act.
    wounds: Annotated[int, Field(ge=0, le=MAX_WOUNDS, strict=True)] = 0
    stunned: bool = False
    gear: tuple[Item, ...] = Field(default=(), max_length=MAX_ITEMS)
    notes: Annotated[LongText, Field(max_length=MAX_NOTES)] = ""
    creation: Creation = Creation()
    #: The round in play (None between rounds), and the stat or skill the last round, a round of nothing
    #: at all, prepared for: "in the next, you make your skill roll, but get to add 1d to the roll".
    round: Round | None = None
    prepared: ItemId | None = None
    #: Ids are never reused: a new item takes this id (or a larger one) and it moves past it.
    next_id: Annotated[int, Field(ge=1, strict=True)] = 1

    @model_validator(mode="after")
    def _consistent(self) -> Sheet:
        require_unique(self.stats, "stats")
        require_unique(self.skills, "skills")
        require_unique(self.gear, "pieces of gear")
        names = [s.name.casefold() for s in self.stats]
        clash = next((s.name for s in self.skills if s.name.casefold() in names), None)
        if clash is not None:
            raise ValueError(f"a stat and a skill are both called {clash}")
        ids = [item.id for items in self.item_lists() for item in items]
        if len(set(ids)) != len(ids):
            raise ValueError("two items of the sheet have the same id")
        stats = {stat.id: stat for stat in self.stats}
        for skill in self.skills:
            stat = stats.get(skill.stat)
            if stat is None:
                raise ValueError(f"{skill.name} belongs to a stat the sheet does not have (id {skill.stat})")
            if skill.code is not None and stat.code is not None and code(skill.code) < code(stat.code):
                raise ValueError(f"{skill.name} ({skill.code}) is below its stat {stat.name} ({stat.code})")
        if len({s.id for s in self.luck_spends}) != len(self.luck_spends):
            raise ValueError("two luck points spent have the same number")
        if any(s.id > self.luck_spent for s in self.luck_spends):
            raise ValueError("a luck point spent has a number past the count of points ever spent")
        self._round_consistent()
        if self.next_id < fresh_id(1, self.item_lists()):
            raise ValueError("next_id must be past every id on the sheet")
        return self

    def _round_consistent(self) -> None:
        if self.prepared is not None and self.code_of(self.prepared) is None:
            raise ValueError(f"the round was prepared for item {self.prepared}, which the sheet does not have")
        record = self.round
        if record is None:
            return
        for declared in record.actions:
            if self.code_of(declared.item) is None:
                raise ValueError(f"the round declares item {declared.item}, which the sheet does not have")
        if record.prepared and self.prepared is None:
            raise ValueError("the round takes a preparation the last round did not make")
        if record.steps and not record.declared:
            raise ValueError("a round is declared before anything happens in it")
        for step in record.steps:
            if step.what == "attempt" and (step.action is None or step.action >= len(record.actions)):
                raise ValueError("a step of the round attempts an action the round did not declare")
            if step.what == "reaction":
                skill = self.skill(step.item) if step.item is not None else None
                if skill is None or not skill.reaction:
                    raise ValueError("a reaction of the round is not one of the sheet's reaction skills")

    def item_lists(self) -> Iterator[tuple[Any, ...]]:
        yield self.stats
        yield self.skills
        yield self.gear

    @property
    def wounded(self) -> bool:
        """Wounded or worse: −1d to every roll."""
        return self.wounds >= 1

    @property
    def can_act(self) -> bool:
        """Incapacitated or dead, a character does nothing."""
        return self.wounds < 2

    def stat(self, item_id: int) -> Stat | None:
        return next((stat for stat in self.stats if stat.id == item_id), None)

    def skill(self, item_id: int) -> Skill | None:
        return next((skill for skill in self.skills if skill.id == item_id), None)

    def code_of(self, item_id: int) -> DieCode | None:
        """The code a stat or a skill is rolled at: a skill not raised rolls its stat's code; ``None``
        while the draft has no code for it."""
        stat = self.stat(item_id)
        if stat is not None:
            return None if stat.code is None else code(stat.code)
        skill = self.skill(item_id)
        if skill is None:
            return None
        if skill.code is not None:
            return code(skill.code)
        owner = self.stat(skill.stat)
        return None if owner is None or owner.code is None else code(owner.code)

    def skills_of(self, stat_id: int) -> tuple[Skill, ...]:
        return tuple(skill for skill in self.skills if skill.stat == stat_id)

    def with_ids(self, count: int) -> tuple[Sheet, tuple[int, ...]]:
        """``count`` fresh ids, and the sheet that has handed them out."""
        start = fresh_id(self.next_id, self.item_lists())
        return self.model_copy(update={"next_id": start + count}), tuple(range(start, start + count))


def raised_by(sheet: Sheet, skill: Skill) -> int:
    """How many pips ``skill`` stands above its stat (0 for a skill not raised, or a draft's)."""
    stat = sheet.stat(skill.stat)
    if skill.code is None or stat is None or stat.code is None:
        return 0
    return code(skill.code).steps - code(stat.code).steps


def incomplete(sheet: Sheet) -> tuple[str, ...]:
    """What a finished character must have and this sheet lacks (empty when it may be active)."""
    return tuple(f"stats.{stat.id}.code" for stat in sheet.stats if stat.code is None)


def migrate(document: dict[str, Any], from_version: int) -> dict[str, Any]:
    """An older document brought up to :data:`SCHEMA_VERSION`, one step per version.

    Version 2 keeps every luck point spent this adventure for the GM to judge (``luck_spends``): version 1
    kept only the heroic and dramatic ones, owed back (``luck_owed``), which keep the heroism they were
    spent with.
    """
    if from_version > SCHEMA_VERSION:
        raise ValueError(f"sheet version {from_version} is newer than this server reads ({SCHEMA_VERSION})")
    if from_version < 1:
        raise ValueError(f"there is no sheet version {from_version}")
    if from_version < 2:
        document = dict(document)
        owed = document.pop("luck_owed", [])
        document["luck_spends"] = owed
        ids = [s["id"] for s in owed if isinstance(s, dict) and isinstance(s.get("id"), int)]
        spent = document.get("luck_spent", 0)
        if ids and isinstance(spent, int) and not isinstance(spent, bool):
            document["luck_spent"] = max(spent, *ids)
        document["schema_version"] = 2
    return document
