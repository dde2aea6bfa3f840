"""The D6 system as the apps see it (``rules.systems.base.RulesSystem``): options, the sheet, creation,
edits, vitals, the roll a sheet makes, the GM's calls, character points and what they buy, and
export. The rules themselves live in the package's other modules; this one puts them behind the
protocol."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from random import Random
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Final, Literal

from pydantic import Field, StrictInt, ValidationError

from rules.document import MAX_ITEM_ID, MAX_NAME, Document, Name, Problem, ShortText, problems_of, with_new_ids
from rules.systems.base import (
    CreationStep,
    Currency,
    EditRefused,
    EditSection,
    Effect,
    Kept,
    Offer,
    Option,
    OptionsChange,
    Other,
    Others,
    Role,
    SheetInvalid,
    SheetRoll,
    SpecError,
    Summary,
    Totals,
    Track,
    Vitals,
    nobody,
)
from rules.systems.d6 import advancement, arrival, creation, luck, luck_moves, options, round_moves, round_state
from rules.systems.d6.chance import DIFFICULTY_BANDS, MAX_DIFFICULTY, RANGE_BANDS, band, band_chance, distribution
from rules.systems.d6.codes import DieCode
from rules.systems.d6.combat import COMBAT
from rules.systems.d6.luck_moves import LUCK_HEROISM, ROUND
from rules.systems.d6.rolls import CHECK, OPPOSED, ROLL_KINDS
from rules.systems.d6.rounds import REACTION_SKILLS, one_use
from rules.systems.d6.sheet import (
    MAX_WOUNDS,
    SCHEMA_VERSION,
    WOUND_LEVELS,
    Sheet,
    Skill,
    Stat,
    code,
    incomplete,
    migrate,
    raised_by,
)
from rules.systems.defaults import SystemDefaults

KEY: Final = "d6"
NAME: Final = "D6 die codes"

CHARACTER_POINTS: Final = Currency(
    advancement.CURRENCY,
    "Character points",
    "CP",
    typical_award=(2, 5),
    reasons=("Finished the adventure", "Good roleplaying", "A clever plan", "A heroic moment"),
)

#: Every band of the text, for the forms: "Moderate (11–15)".
BANDS: Final = tuple((b.key, f"{b.name} ({b.low}–{b.high})" if b.high else f"{b.name} ({b.low}+)")
                     for b in (*DIFFICULTY_BANDS, *RANGE_BANDS))  # fmt: skip
MAX_ACTIONS: Final = 10
#: The GM's call on a luck point's spend, as the sheet offers it (rules text, "luck points").
ItemRef = Annotated[StrictInt, Field(ge=1, le=MAX_ITEM_ID)]
CharacterRef = Annotated[StrictInt, Field(ge=1, le=2**63 - 1)]
Difficulty = Annotated[StrictInt, Field(ge=1, le=MAX_DIFFICULTY)]
if TYPE_CHECKING:  # the keys are read from the rules' tables, which a type checker cannot run
    BandKey = str
else:
    BandKey = Literal[tuple(key for key, _ in BANDS)]


class Situation(Document):
    """A roll from a D6 sheet: a stat or a skill against a difficulty (a number, a band, or both), or
    against another character in play (opposed), with the round's penalties."""

    kind: Literal["check", "opposed"] = Field("check", description="Against a difficulty, or opposed.")
    item: ItemRef = Field(..., description="The stat or the skill, by its id on the sheet.")
    difficulty: Difficulty | None = Field(None, description="The difficulty number the GM names.")
    band: BandKey | None = Field(None, description="The band the GM names (the number inside it, if known).")
    opponent: CharacterRef | None = Field(None, description="Opposed: another character in play, by id.")
    opponent_item: Annotated[ShortText, Field(max_length=MAX_NAME)] | None = Field(
        None, description="Opposed: the opponent's stat or skill by name (the same name by default)."
    )
    opponent_code: Annotated[str, Field(max_length=10)] | None = Field(
        None, description="Opposed: a code the GM names for the other side, such as 3d+2."
    )
    actions: Annotated[StrictInt, Field(ge=1, le=MAX_ACTIONS)] = Field(
        1, description="The uses declared this round: each code takes −(N−1)d. A declared round sets them: leave 1."
    )
    running: bool = Field(False, description="Running this round: −1d. A declared round sets it: leave false.")
    no_resisting_side: bool = Field(
        False,
        title="Opposed: no side resists, a tie is a draw (arm wrestling)",
        description="Opposed: a contest with no resisting side, where a tie is a draw with its own chance; "
        "otherwise the other side resists (the status quo) and a tie holds for it.",
    )


class Call(Document):
    """The GM's call: what is rolled (a stat or a skill by its name in the campaign's list) and against
    what difficulty: a number, a band, or a number inside a band."""

    item: Annotated[Name, Field(min_length=1)] = Field(..., title="Stat or skill")
    difficulty: Difficulty | None = Field(None, title="Difficulty number")
    band: BandKey | None = Field(None, title="Band")


def _difficulty_words(difficulty: int | None, band_key: str | None) -> str:
    named = band(band_key) if band_key else None
    if difficulty is not None and named is not None:
        return f"{named.name} ({difficulty})"
    if difficulty is not None:
        return f"difficulty {difficulty}"
    return f"{named.name}" if named is not None else ""


def _named(sheet: Sheet, name: str) -> int | None:
    """The id of the sheet's stat or skill called ``name`` (case aside)."""
    wanted = name.casefold()
    items: tuple[Stat | Skill, ...] = (*sheet.stats, *sheet.skills)
    found = next((s.id for s in items if s.name.casefold() == wanted), None)
    return found


def _skill_name(sheet: Sheet, item: int) -> str:
    """The name of the sheet's skill ``item``; a purchase of a skill the sheet lacks is refused."""
    skill = sheet.skill(item)
    if skill is None:
        raise SpecError("offer", f"there is no skill {item} on this sheet")
    return skill.name


def round_code(
    base: DieCode,
    name: str,
    sheet: Sheet,
    situation: Mapping[str, Any],
    given: Mapping[str, Any],
    item: int | None = None,
) -> tuple[DieCode, tuple[str, ...]]:
    """The code a roll of ``name`` (``item`` on the sheet) is made at this round, and the words of each change,
    as the round planner (:class:`rules.systems.d6.rounds.RoundPlan`) gives them for the first of the round's
    uses: the situation's ``actions``, or the uses the declared round counts so far if more; a luck point
    spent on the round doubles first; running, wounded and stunned (the sheet's conditions) and the +1d the
    last round prepared for it (:func:`rules.systems.d6.round_state.prepared_for`; a single use only); never
    below 0d. The
    doubling and the preparation are the sheet's round's alone: a situation cannot claim them."""
    uses = max(int(situation.get("actions") or 1), round_state.uses_so_far(sheet, given))
    return one_use(
        name,
        base,
        uses,
        wounded=sheet.wounded,
        stunned=sheet.stunned,
        running=bool(situation.get("running")),
        doubled=round_state.doubled_now(sheet),
        prepared=uses == 1 and item is not None and round_state.prepared_for(sheet, item),
        reaction_skills=options.reaction_skills(given) if given else REACTION_SKILLS,
    )


def _doubled_round(sheet: Sheet) -> str:
    """Which round a luck point doubles: the one in play, or the next one declared (spent between rounds)."""
    record = sheet.round
    return "of the next round declared" if record is not None and not record.declared else "this round"


def _stun_round(sheet: Sheet) -> str:
    """Which round's end clears the stun (rules README, "Stun")."""
    if round_state.stun_clears_now(sheet):
        return "this round" if sheet.round is not None and sheet.round.declared else "the next round"
    return "the next round"


class D6(SystemDefaults):
    key: Final = KEY
    name: Final = NAME
    attribution: Final = "D6 die codes, the rules text of the same name."
    disclaimer: Final = ""
    license_name: Final = ""
    license_file: Final = ""
    options_model: ClassVar = options.Options
    moves = (*luck_moves.MOVES, *round_moves.MOVES)
    log_kinds = {"check": "Check", "opposed": "Opposed roll"}
    sheet_model: ClassVar = Sheet
    sheet_version = SCHEMA_VERSION
    creation_steps: Final = (
        CreationStep("stats", "Stats", fields=("stats",)),
        CreationStep("skills", "Skills", fields=("skills",)),
        CreationStep("review", "Concept and gear", fields=("concept", "gear", "notes")),
    )
    edit_sections: Final = (
        EditSection("concept", "concept", fields=("concept",), region="details"),
        EditSection("gear", "gear", fields=("gear",)),
        EditSection("notes", "notes", fields=("notes",)),
        EditSection("codes", "stats and skills", frozenset({Role.GM}), fields=("stats", "skills"), region="stats",
                    note="stats are fixed after creation and skills improve with character points; "
                         "only the GM corrects them"),
        EditSection("luck", "luck points", frozenset({Role.GM}), fields=("luck_points",), region="vitals",
                    note="luck points are spent from the sheet; only the GM corrects them"),
        EditSection("conditions", "wounds and stun", frozenset({Role.GM}), fields=("wounds", "stunned"),
                    region="vitals", note="the GM sets how badly a character is hurt (0 unhurt, 1 wounded, "
                                          "2 incapacitated, 3 dead) and whether stunned"),
    )  # fmt: skip
    roll_kinds: Final = ROLL_KINDS
    currencies: Final = (CHARACTER_POINTS,)
    standing: Final = None
    offer_situation: Final = (
        Option("difficulty", "Against a difficulty of", "15",
               choices=tuple((str(n), f"{n}") for n in (5, 10, 15, 20, 25, 30))),
    )  # fmt: skip
    combat: Final = COMBAT
    gm_situation: Final[frozenset[str]] = frozenset()
    situation_model: ClassVar = Situation
    situation_characters: Final = frozenset({"opponent"})
    call_model: ClassVar = Call
    called_situation: Final = frozenset({"kind", "item", "difficulty", "band"})
    legacy_formats: Final = ()

    # Options

    def default_options(self) -> dict[str, Any]:
        return options.default_options()

    def validate_options(self, given: Mapping[str, Any]) -> dict[str, Any]:
        return options.validate_options(given)

    def change_options(
        self,
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        renames: Mapping[str, str],
        characters: Sequence[tuple[str, Sheet]],
    ) -> OptionsChange:
        """The stats and skills of the options are what a new character is made with; a character made
        already keeps its own (a stat is fixed after creation, and a skill keeps what was bought)."""
        return OptionsChange(conflicts={}, sheets=tuple(None for _ in characters))

    def options_summary(self, given: Mapping[str, Any]) -> list[dict[str, Any]]:
        def marked(skill: Mapping[str, Any]) -> str:
            role = skill.get("combat", "")
            if role in options.ATTACKS:
                return f"{skill['name']} (attacks: {role})"
            if role in options.DEFENCES:
                return f"{skill['name']} (reaction: {role})"
            return skill["name"] + (" (reaction)" if skill["reaction"] else "")

        stats = [f"{stat['name']}: " + (", ".join(marked(s) for s in stat["skills"]) or "no skills")
                 for stat in given["stats"]]  # fmt: skip
        return [
            {"label": "Stats and skills", "value": f"{len(given['stats'])} stats", "list": stats},
            {"label": "Creation", "value": f"{given['stat_dice']}d among the stats, {given['skill_dice']}d among "
                                           f"the skills, a skill at most +{given['skill_cap']}d above its stat"},
            {"label": "Stats at creation", "value": f"{given['stat_minimum']} to {given['stat_maximum']}"},
            {"label": "Luck points at the start", "value": given["starting_luck"]},
            {"label": "Character points per pip", "value": f"the skill's whole dice × {given['pip_cost']}"},
        ]  # fmt: skip

    # The sheet

    def migrate(self, document: dict[str, Any], from_version: int) -> dict[str, Any]:
        return migrate(document, from_version)

    def read_sheet(self, document: Mapping[str, Any]) -> Sheet:
        sheet = super().read_sheet(document)
        assert isinstance(sheet, Sheet)  # the sheet model's: SystemDefaults.read_sheet reads nothing else
        return sheet

    def validate(self, sheet: Sheet, given: Mapping[str, Any], *, finished: bool) -> tuple[Problem, ...]:
        if not finished:
            return ()
        found = [Problem(field=path, message="needs a die code") for path in incomplete(sheet)]
        if not found and (broken := round_state.problem(sheet, given)) is not None:
            found.append(Problem(field="round", message=f"the round in play would break: {broken.message}"))
        return tuple(found)

    # Creation

    def new_draft(self, given: Mapping[str, Any]) -> Sheet:
        return creation.new_draft(given)

    def check_step(self, sheet: Sheet, step: str, given: Mapping[str, Any]) -> tuple[Problem, ...]:
        return creation.check_step(sheet, step, given)

    def roll_step(self, sheet: Sheet, step: str, given: Mapping[str, Any], rng: Random) -> Sheet:
        raise SpecError("step", "the server rolls nothing in D6 creation: the player spends dice")

    def fill_step(self, sheet: Sheet, step: str, value: Mapping[str, Any], given: Mapping[str, Any]) -> Sheet:
        """``stats``: ``{"stats": {id: code}}``; ``skills``: ``{"skills": {id: code}}``; ``review``: the
        concept, gear and notes. Checked as far as the step goes."""
        spec = next((s for s in self.creation_steps if s.key == step), None)
        if spec is None:
            raise SheetInvalid([Problem(field="step", message=f"there is no step {step!r} in D6 creation")])
        extra = sorted(set(value) - set(spec.fields))
        if extra:
            raise SheetInvalid([Problem(field=extra[0], message="is not part of this step")])
        # Every problem at once: each code typed, then the step's rules on every code that could be read.
        typed: tuple[Problem, ...] = ()
        unread: dict[str, frozenset[int]] = {}
        try:
            if step == "stats":
                done = creation.fill_stats(sheet, value.get("stats", {}))
                filled, typed, unread = done.sheet, done.problems, {"stats": done.unread}
            elif step == "skills":
                done = creation.fill_skills(sheet, value.get("skills", {}))
                filled, typed, unread = done.sheet, done.problems, {"skills": done.unread}
            else:
                filled = self.read_sheet(with_new_ids(sheet.model_dump(mode="json"), value))
        except SpecError as error:
            raise SheetInvalid([Problem(field=error.field, message=error.message)]) from None
        except ValidationError as error:
            raise SheetInvalid(problems_of(error)) from None
        problems = typed + creation.check_step(filled, step, given, unread=unread)
        if problems:
            raise SheetInvalid(problems)
        following = creation.STEPS[min(creation.STEPS.index(step) + 1, len(creation.STEPS) - 1)]
        at = creation.STEPS.index(filled.creation.step) if filled.creation.step in creation.STEPS else 0
        if creation.STEPS.index(following) > at:
            filled = filled.model_copy(update={"creation": filled.creation.model_copy(update={"step": following})})
        return filled

    def finish(self, sheet: Sheet, given: Mapping[str, Any]) -> Sheet:
        problems = creation.check_step(sheet, "review", given)
        if problems:
            raise SheetInvalid(problems)
        return creation.finish(sheet, given)

    # Edits

    def edit(
        self, sheet: Sheet, section: str, value: Mapping[str, Any], *, role: Role, options: Mapping[str, Any]
    ) -> Sheet:
        spec = next((s for s in self.edit_sections if s.key == section), None)
        if spec is None:
            raise SheetInvalid([Problem(field="section", message=f"there is no section {section!r}")])
        if role not in spec.editors:
            raise EditRefused(section, f"only the GM can change the {spec.label}")
        extra = sorted(set(value) - set(spec.fields))
        if extra:
            raise SheetInvalid([Problem(field=extra[0], message="is not part of this section")])
        if section == "codes" and all(isinstance(v, Mapping) for v in value.values()):
            return self._set_codes(sheet, value)
        return self.read_sheet(with_new_ids(sheet.model_dump(mode="json"), value))

    def _set_codes(self, sheet: Sheet, value: Mapping[str, Any]) -> Sheet:
        """The GM's correction of codes by id (``{"stats": {id: code}, "skills": {id: code}}``), the
        form's shape; a list of items (the whole document's shape) goes through the sheet instead."""
        problems: list[Problem] = []
        unread_stats: frozenset[int] = frozenset()
        try:
            if "stats" in value:
                done = creation.fill_stats(sheet, value["stats"])
                sheet, unread_stats = done.sheet, done.unread
                problems += done.problems
            if "skills" in value:
                done = creation.fill_skills(sheet, value["skills"], unread_stats=unread_stats)
                sheet = done.sheet
                problems += done.problems
        except SpecError as error:
            raise SheetInvalid([Problem(field=error.field, message=error.message)]) from None
        except ValidationError as error:
            raise SheetInvalid(problems_of(error)) from None
        if problems:
            # What the sheet would still lack comes with them, as the save would say it.
            missing = [p for p in incomplete(sheet) if int(p.split(".")[1]) not in unread_stats]
            raise SheetInvalid([*problems, *(Problem(field=path, message="needs a die code") for path in missing)])
        return sheet

    # The table

    def vitals(self, sheet: Sheet, given: Mapping[str, Any]) -> Vitals:
        luck = Track("luck_points", "Luck points", sheet.luck_points, minimum=0)
        level = WOUND_LEVELS[sheet.wounds]
        wounds = Track("wounds", "Wounds", sheet.wounds, maximum=MAX_WOUNDS, minimum=0)
        doubled = round_state.doubled_now(sheet)
        conditions = tuple(c for c, on in ((level, sheet.wounds > 0), ("stunned", sheet.stunned),
                                           ("doubled", doubled)) if on)  # fmt: skip
        notes: tuple[tuple[str, str], ...] = (("wounded", "−1d to every roll"),) if sheet.wounds == 1 else ()
        if sheet.stunned:
            notes += (("stunned", f"−1d to every roll until the end of {_stun_round(sheet)}"),)
        if doubled:
            notes += (("doubled", f"a luck point doubles every code {_doubled_round(sheet)}"),)
        if not sheet.can_act:
            return Vitals((luck, wounds), level, can_act=False, why_not=f"{level}: the character cannot act",
                          conditions=conditions)  # fmt: skip
        return Vitals((luck, wounds), level if sheet.wounds else "up", conditions=conditions, notes=notes)

    def summary(self, sheet: Sheet) -> Summary:
        return Summary(concept=sheet.concept, step=sheet.creation.step)

    def situation_choices(self, sheet: Sheet, given: Mapping[str, Any]) -> Mapping[str, Sequence[tuple[Any, str]]]:
        """Each stat with its skills, grouped, each at the code it rolls; the bands in the text's words."""
        items: list[tuple[Any, Any]] = []
        for stat in sheet.stats:
            group = [(stat.id, f"{stat.name} {stat.code or '—'}")]
            group += [(s.id, f"{s.name} {sheet.code_of(s.id) or '—'}") for s in sheet.skills_of(stat.id)]
            items.append((stat.name, group))
        return {"item": items, "band": BANDS, "kind": (("check", "Against a difficulty"), ("opposed", "Opposed"))}

    def situation_fixed(self, sheet: Sheet, given: Mapping[str, Any]) -> frozenset[str]:
        """A declared round sets the uses and the running of every roll (the rules README, "The round is one")."""
        return frozenset({"actions", "running"}) if sheet.round is not None and sheet.round.declared else frozenset()

    def _code(self, sheet: Sheet, item: int, field: str) -> tuple[str, DieCode]:
        thing = sheet.stat(item) or sheet.skill(item)
        if thing is None:
            raise SpecError(field, "that is not a stat or a skill of this character")
        found = sheet.code_of(item)
        if found is None:
            raise SpecError(field, f"{thing.name} has no die code yet")
        return thing.name, found

    def sheet_roll(
        self,
        sheet: Sheet,
        situation: Mapping[str, Any],
        given: Mapping[str, Any],
        others: Others = nobody,
        table: Mapping[str, Any] | None = None,
    ) -> SheetRoll:
        try:
            asked = Situation.model_validate(situation)
        except ValidationError as error:
            problem = problems_of(error)[0]
            raise SpecError(problem.field, problem.message) from None
        if not sheet.can_act:
            raise SpecError("wounds", f"{WOUND_LEVELS[sheet.wounds]}: the character cannot act")
        name, base = self._code(sheet, asked.item, "item")
        rolled, steps, kept = self._in_round(sheet, asked, name, base, given)
        if asked.kind == "check":
            if asked.difficulty is None and asked.band is None:
                raise SpecError("difficulty", "name a difficulty number or a band")
            spec: dict[str, Any] = {"system": KEY, "roll": "check", "code": str(rolled)}
            if asked.difficulty is not None:
                spec["difficulty"] = asked.difficulty
            if asked.band is not None:
                spec["band"] = asked.band
            if steps:
                spec["steps"] = list(steps)
            check = CHECK.parse(spec)  # a difficulty outside its band is refused here
            label = f"{name} {rolled} against {_difficulty_words(asked.difficulty, asked.band)}"
            chances: tuple[tuple[str, Fraction], ...] = ()
            if asked.difficulty is None and check.band is not None:  # README, "Bands": both ends
                ends = band_chance(check.code, check.band)
                chances = ((f"At {check.band.low}, the low end of {check.band.name}", ends.at_low),)
                if ends.at_high is not None:
                    chances += ((f"At {check.band.high}, the high end", ends.at_high),)
            details = {"item": asked.item, "name": name} | ({"round": True} if kept and kept.sections else {})
            shown = distribution(rolled)
            if asked.difficulty is not None:
                target = asked.difficulty
            elif check.band is not None:
                target = check.band.low
            else:
                raise SpecError("difficulty", "name a difficulty number or a band")
            totals = Totals(shown.totals, target, shown.open_ended)
            return SheetRoll("check", spec, label, details=details, steps=steps, chances=chances, totals=totals,
                             kept=kept)  # fmt: skip
        theirs, who = self._other_side(asked, name, others, given)
        spec = {"system": KEY, "roll": "opposed", "attacker": str(rolled), "defender": str(theirs),
                "resisting": not asked.no_resisting_side}  # fmt: skip
        if steps:
            spec["steps"] = list(steps)
        details = {"item": asked.item, "name": name, "opponent": who, "contest": True}
        label = f"{name} {rolled} against {who} ({theirs})"
        odds = OPPOSED.chance(OPPOSED.parse(spec))
        chances = (
            (f"{name} wins", odds.p_attacker_wins),
            ("A tie: the side that resists holds" if not asked.no_resisting_side else "A draw", odds.p_tie),
            (f"{who} wins", odds.p_defender_wins),
        )
        return SheetRoll("opposed", spec, label, log_kind="opposed", details=details, steps=steps, chances=chances,
                         kept=kept)  # fmt: skip

    def _in_round(
        self, sheet: Sheet, asked: Situation, name: str, base: DieCode, given: Mapping[str, Any]
    ) -> tuple[DieCode, tuple[str, ...], Kept | None]:
        """The code a roll of ``asked.item`` is made at, the words of each change, and what rolling it keeps on
        the sheet (the rules README, "The round is one"): in a declared round, the use of the round it is
        (:func:`round_state.use_of`), recorded in the round with the roll's number; outside one, the uses the
        situation says (:func:`round_code`), and the +1d the last round prepared spent by the one roll that
        takes it (:func:`round_state.prepared_use`)."""
        in_round = round_state.use_of(sheet, asked.item, asked.difficulty, given)
        if in_round is None:
            rolled, steps = round_code(base, name, sheet, asked.model_dump(), given, asked.item)
            spent = round_state.prepared_use(sheet, asked.item) if asked.actions == 1 else None
            if spent is None:
                return rolled, steps, None
            return rolled, steps, Kept(lambda seq: spent, f"{name} rolled with the +1d prepared: it is spent", (ROUND,))
        if asked.actions != 1 or asked.running:
            field = "actions" if asked.actions != 1 else "running"
            raise SpecError(field, "the declared round sets the uses and the running: change them on the round's page")
        after, use = in_round
        words = tuple(str(m) for m in use.modifiers) + ((use.warning,) if use.warning else ())
        how = "an undeclared use" if use.undeclared else "a reaction" if use.reaction else f"declared {use.label}"
        return use.code, words, Kept(lambda seq: round_state.with_roll(after, seq), f"{name} rolled in the round, "
                                     f"as {how}, at {use.code}", (ROUND,))  # fmt: skip

    def _other_side(self, asked: Situation, name: str, others: Others, given: Mapping[str, Any]) -> tuple[DieCode, str]:
        if asked.opponent is not None and asked.opponent_code:
            raise SpecError("opponent_code", "name another character or a code, not both")
        if asked.opponent_code:
            return DieCode.parse(asked.opponent_code, field="opponent_code"), "the GM's code"
        if asked.opponent is None:
            raise SpecError("opponent", "name the other side: a character in play or a code")
        other: Other | None = others(asked.opponent)
        if other is None or not isinstance(other.sheet, Sheet):
            raise SpecError("opponent", "choose another character in play in this campaign")
        wanted = (asked.opponent_item or "").strip() or name
        item = _named(other.sheet, wanted)
        if item is None:
            raise SpecError("opponent_item", f"{other.name} has no stat or skill called {wanted}")
        their_name, their_code = self._code(other.sheet, item, "opponent_item")
        theirs, _ = round_code(their_code, their_name, other.sheet, {}, given, item)
        return theirs, f"{other.name} ({their_name})"

    # Luck points

    def _luck(self, sheet: Sheet) -> luck.LuckState:
        return luck_moves.luck_state(sheet)

    def luck_spend_problems(self, sheet: Sheet, kind: str | None, explanation: str | None) -> tuple[Problem, ...]:
        """Every reason :meth:`spend_luck` would refuse, at once (:func:`luck_moves.spend_problems`)."""
        return luck_moves.spend_problems(sheet, kind, explanation)

    def spend_luck(self, sheet: Sheet, kind: str, explanation: str = "",
                   given: Mapping[str, Any] | None = None) -> tuple[Sheet, str]:  # fmt: skip
        """One luck point spent (:func:`luck_moves.spend_luck`)."""
        return luck_moves.spend_luck(sheet, kind, explanation, given)

    def judge_luck(self, sheet: Sheet, spend_id: int, heroism: str) -> tuple[Sheet, str]:
        """The GM's call on a luck point spent this adventure (:func:`luck_moves.judge_luck`)."""
        return luck_moves.judge_luck(sheet, spend_id, heroism)

    def grant_extra(self, sheet: Sheet, spend_id: int, granted: bool = True) -> tuple[Sheet, str]:
        """The GM grants (or takes back) one more point for a dramatic spend (:func:`luck_moves.grant_extra`)."""
        return luck_moves.grant_extra(sheet, spend_id, granted)

    def end_adventure(self, sheet: Sheet, given: Mapping[str, Any]) -> tuple[Sheet, str] | None:
        """The adventure's end: every spend the GM judged heroic or dramatic comes back, and the extra points
        the GM granted (rules text, "luck points"); one judged unheroic, or not judged, is gone. Any round in
        play ends with it (a point never doubles past the adventure it was spent in). None when no point was
        spent and no round is in play."""
        if not sheet.luck_spends and sheet.round is None and sheet.prepared is None:
            return None
        extra = {s.id for s in sheet.luck_spends if s.extra}
        state = luck.end_adventure(self._luck(sheet), extra)
        back = state.points - sheet.luck_points
        gone = sum(1 for s in sheet.luck_spends if s.heroism not in ("heroic", "dramatic"))
        after = sheet.model_copy(update={"luck_points": state.points, "luck_spends": (), "round": None,
                                         "prepared": None})  # fmt: skip
        words = f"End of the adventure: {back} luck point{'s' if back != 1 else ''} back"
        if gone:
            words += f", {gone} gone (unheroic or not judged)"
        return after, words + ("; the round in play is over" if sheet.round is not None else "")

    # The GM's calls

    def call_choices(self, given: Mapping[str, Any]) -> Mapping[str, Sequence[tuple[str, str]]]:
        items = [(stat["name"], stat["name"]) for stat in given["stats"]]
        items += [(s["name"], f"{s['name']} ({stat['name']})") for stat in given["stats"] for s in stat["skills"]]
        return {"item": items, "band": BANDS}

    def call_situation(self, sheet: Sheet, call: Call, given: Mapping[str, Any]) -> dict[str, Any]:
        item = _named(sheet, call.item)
        if item is None:
            raise SpecError("item", f"this character has no stat or skill called {call.item}")
        if call.difficulty is None and call.band is None:
            raise SpecError("difficulty", "name a difficulty number or a band")
        return {"kind": "check", "item": item, "difficulty": call.difficulty, "band": call.band}

    def situation_call(self, sheet: Sheet, situation: Mapping[str, Any], given: Mapping[str, Any]) -> Call:
        """A player's proposal: the stat or the skill by its name in the campaign's list and the
        difficulty; the round's penalties and a luck point are the player's own, not a call's."""
        try:
            asked = Situation.model_validate(situation)
        except ValidationError as error:
            problem = problems_of(error)[0]
            raise SpecError(problem.field, problem.message) from None
        if asked.kind != "check":
            raise SpecError("kind", "the GM calls for checks; an opposed roll is the GM's to make")
        name, _ = self._code(sheet, asked.item, "item")
        listed = {stat["name"].casefold() for stat in given["stats"]}
        listed |= {s["name"].casefold() for stat in given["stats"] for s in stat["skills"]}
        if name.casefold() not in listed:
            raise SpecError("item", f"{name} is not on the campaign's list, so the GM cannot call it")
        if asked.difficulty is None and asked.band is None:
            raise SpecError("difficulty", "name a difficulty number or a band")
        return Call(item=name, difficulty=asked.difficulty, band=asked.band)

    def call_words(self, call: Call, given: Mapping[str, Any]) -> str:
        return f"{call.item} against {_difficulty_words(call.difficulty, call.band)}"

    # Advancement

    def _difficulty(self, situation: Mapping[str, Any]) -> int:
        value = str(situation.get("difficulty", "15"))
        if not (value.isascii() and value.isdigit() and len(value) <= 4) or not 1 <= int(value) <= MAX_DIFFICULTY:
            raise SpecError("difficulty", f"a difficulty is a whole number from 1 to {MAX_DIFFICULTY}")
        return int(value)

    def offers(self, sheet: Sheet, given: Mapping[str, Any], situation: Mapping[str, Any]) -> tuple[Offer, ...]:
        """One pip more for each skill, at the cost of its whole dice (README, "Advancement"), with the
        exact chance before and after against the situation's difficulty."""
        difficulty = self._difficulty(situation)
        out = []
        for skill in sheet.skills:
            before = sheet.code_of(skill.id)
            if before is None or before.dice >= 60:
                continue
            after = before.add_pips(1)
            p_before, p_after = advancement.gain(before, after, difficulty)
            effect = Effect(f"{skill.name} against {difficulty}", p_before, p_after)
            cost = advancement.pip_cost(before, given["pip_cost"])
            out.append(Offer(f"skill:{skill.id}", f"{skill.name} {before} → {after}", CHARACTER_POINTS.key, cost,
                             (effect,)))  # fmt: skip
        return tuple(out)

    def _skill_of(self, sheet: Sheet, offer: str) -> int:
        prefix, _, rest = offer.partition(":")
        if prefix != "skill" or not (rest.isascii() and rest.isdigit()) or sheet.skill(int(rest)) is None:
            raise SpecError("offer", f"there is no purchase {offer!r} on this sheet")
        return int(rest)

    def offer_fields(self, sheet: Sheet, offer: str, given: Mapping[str, Any]) -> dict[str, Any]:
        skill = self._skill_of(sheet, offer)
        current = sheet.code_of(skill)
        return {"before": 0 if current is None else current.steps}

    def offer_note(self, sheet: Sheet, offer: str, given: Mapping[str, Any]) -> str:
        skill = sheet.skill(self._skill_of(sheet, offer))
        return "" if skill is None or skill.code is not None else "The skill leaves its stat's code and keeps its own."

    def buy(
        self, sheet: Sheet, offer: str, given: Mapping[str, Any], choice: Mapping[str, Any] | None = None
    ) -> tuple[Sheet, Offer]:
        choice = choice or {}
        skill = self._skill_of(sheet, offer)
        current = sheet.code_of(skill)
        if "before" in choice and current is not None and choice["before"] != current.steps:
            raise SpecError("before", f"{_skill_name(sheet, skill)} is {current} now")
        found = next((o for o in self.offers(sheet, given, {}) if o.key == offer), None)
        if found is None:
            raise SpecError("skill", "this skill cannot rise any higher")
        bought, _, _, _ = advancement.raise_skill(sheet, skill, given)
        return bought, found

    def receipt(
        self, before: Sheet, after: Sheet, offer: Offer, given: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        skill = self._skill_of(before, offer.key)
        was, now = before.code_of(skill), after.code_of(skill)
        name = _skill_name(after, skill)
        return f"{name} {was} → {now}", {
            "offer": offer.key, "cost": offer.cost, "skill_id": skill, "name": name, "before": str(was),
            "after": str(now),
        }  # fmt: skip

    def purchase_sections(self, purchase: Mapping[str, Any]) -> tuple[str, ...]:
        return ("codes",)

    def refund(self, sheet: Sheet, purchase: Mapping[str, Any], given: Mapping[str, Any]) -> Sheet:
        skill = purchase.get("skill_id")
        if not isinstance(skill, int) or sheet.skill(skill) is None:
            raise SpecError("purchase", "the skill is no longer on the sheet: correct the sheet first")
        if str(sheet.code_of(skill)) != purchase.get("after"):
            raise SpecError("purchase", "the skill is no longer what this purchase bought: correct the sheet first")
        return advancement.lower_skill(sheet, skill, DieCode.parse(purchase.get("before")))

    # The sheet's pages

    def sheet_view(self, sheet: Sheet, given: Mapping[str, Any]) -> dict[str, Any]:
        """Each stat with its code and its skills, each at the code it rolls (its stat's until raised)."""
        rows = []
        for stat in sheet.stats:
            skills = [{"skill": s, "code": sheet.code_of(s.id), "raised": s.code is not None,
                       "above": raised_by(sheet, s)} for s in sheet.skills_of(stat.id)]  # fmt: skip
            rows.append({"stat": stat, "code": None if stat.code is None else code(stat.code), "skills": skills})
        budgets = {}
        if sheet.creation.step:
            budgets = {"stats": creation.stat_budget(sheet, given), "skills": creation.skill_budget(sheet, given)}
        doubling = ""
        if round_state.doubled_now(sheet):
            doubling = f"A luck point doubles every code {_doubled_round(sheet)}."
        stun = f"−1d to every roll until the end of {_stun_round(sheet)}" if sheet.stunned else ""
        return {"stat_rows": rows, "budgets": budgets, "luck_heroism": LUCK_HEROISM, "doubling": doubling,
                "stun": stun}  # fmt: skip

    def fresh_problems(
        self, sheet: Sheet, given: Mapping[str, Any], *, campaign: str, rolls_verified: bool
    ) -> tuple[Problem, ...]:
        """A document nobody vouches for is held to the campaign's creation: its stats and the skills
        as creation allows them (no dice are rolled in D6 creation, so no signature is needed)."""
        if sheet.creation.step == "stats":
            return ()
        step = "skills" if sheet.creation.step in ("skills",) else "review"
        return tuple(
            Problem(field=p.field, message=f"{p.message} (the creation rules of {campaign})")
            for p in creation.check_step(sheet, step, given)
        )

    def afresh(self, sheet: Sheet, given: Mapping[str, Any], *, finished: bool) -> tuple[Sheet, tuple[str, ...]]:
        """A fresh start: the campaign's starting luck points, unhurt and not stunned, in no round."""
        changes = []
        update: dict[str, Any] = {}
        points = given["starting_luck"] if finished else 0
        if sheet.luck_points != points:
            changes.append(f"luck points from {sheet.luck_points} to {points}")
            update["luck_points"] = points
        if sheet.luck_spends:
            changes.append("no luck points spent this adventure")
            update["luck_spends"] = []
        if sheet.wounds:
            changes.append(f"no longer {WOUND_LEVELS[sheet.wounds]}")
            update["wounds"] = 0
        if sheet.stunned:
            changes.append("no longer stunned")
            update["stunned"] = False
        if sheet.round is not None or sheet.prepared is not None:
            changes.append("no round in play")
            update["round"], update["prepared"] = None, None
        if not update:
            return sheet, ()
        return self.read_sheet({**sheet.model_dump(mode="json"), **update}), tuple(changes)

    #: What travels with an export: the stats and skills it was made with (each skill's part in a fight there).
    carried_options: Final = arrival.CARRIED

    def differences(
        self, sheet: Sheet, given: Mapping[str, Any], origin: Mapping[str, Any] | None = None
    ) -> tuple[str, ...]:
        """Each stat and skill matched to the campaign's by name (case and spacing aside): one of another
        spelling, stat or reaction mark, one it does not have, one it lacks, and a skill whose part in a
        fight differs from where it comes from (:func:`rules.systems.d6.arrival.arrive`)."""
        return arrival.arrive(sheet, given, origin).words

    def mapped(
        self, sheet: Sheet, given: Mapping[str, Any], origin: Mapping[str, Any] | None = None
    ) -> tuple[Sheet, tuple[str, ...]]:
        """Each matched stat and skill in the campaign's spelling, each skill under the campaign's stat and
        marked a reaction skill as the campaign marks it."""
        taken = arrival.arrive(sheet, given, origin)
        return self.read_sheet(taken.sheet.model_dump(mode="json")), taken.changed

    def moved(self, sheet: Sheet) -> tuple[Sheet, tuple[str, ...]]:
        """A round in play belongs to the campaign it is played in (its steps name that campaign's rolls by
        their number in its log), and so does the +1d prepared for that campaign's next round."""
        if sheet.round is None and sheet.prepared is None:
            return sheet, ()
        changes = ["no round in play (the round and its rolls stay with the campaign it was played in)"]
        if sheet.prepared is not None:
            changes.append("no +1d prepared for a next round")
        return sheet.model_copy(update={"round": None, "prepared": None}), tuple(changes)

    def fresh_rules(self, given: Mapping[str, Any]) -> tuple[str, ...]:
        return (
            f"Stats: {given['stat_dice']}d spent among them, each {given['stat_minimum']} to {given['stat_maximum']}.",
            f"Skills: at most {given['skill_dice']}d above their stats, none more than +{given['skill_cap']}d.",
            f"Such a character starts its play afresh: {given['starting_luck']} luck point(s), no character points.",
        )


SYSTEM: Final = D6()
