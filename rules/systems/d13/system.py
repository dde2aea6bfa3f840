"""D13 of *When Shadows Rise* (rules text ``d13-when-shadows-rise.md``; readings in the rules README, "D13"):
the sheet, creation within the campaign's budgets, edits, the condition track, the task roll with its exact
chances, the GM's calls, experience spent on skills, and export.

The roll is the move ``d13-roll`` (:mod:`rules.systems.d13.moves`) wherever it is asked for: the roll page, an
answer to the host's call and the API build it here (:meth:`D13.sheet_roll`, with the exact chance and its
chart) and make it through the moves' one pipeline, because its difficulty may leave a decision after the
dice. The deck, the hands, the boosts and the turn order are the table's (:mod:`rules.systems.d13.table`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from random import Random
from typing import Annotated, Any, ClassVar, Final, cast

from pydantic import Field, ValidationError

from rules.document import Document, ItemId, Name, Problem, problems_of, with_new_ids
from rules.systems.base import (
    CreationStep,
    Currency,
    EditRefused,
    EditSection,
    Effect,
    Offer,
    Option,
    OptionsChange,
    Others,
    Role,
    SheetInvalid,
    SheetRoll,
    SpecError,
    Summary,
    Totals,
    Track,
    Vitals,
    Worded,
    nobody,
)
from rules.systems.d13 import chance, moves, options
from rules.systems.d13 import table as d13_table
from rules.systems.d13.chance import Level
from rules.systems.d13.options import ABILITIES, ABILITY_NAMES
from rules.systems.d13.rolls import CHECK as CHECK  # the task roll; its tests and the chart read it here
from rules.systems.d13.rolls import ROLL_KINDS
from rules.systems.d13.sheet import SCHEMA_VERSION, Ability, Sheet, Skill, Task
from rules.systems.defaults import SystemDefaults

KEY: Final = "d13"
NAME: Final = "D13 (When Shadows Rise)"
EXPERIENCE: Final = Currency("xp", "Experience", "XP", reasons=("A session played", "A scene well told"))
LEVEL_CHOICES: Final = tuple((level.value, words) for level, words in chance.LEVEL_WORDS.items())
ABILITY_CHOICES: Final = tuple((key, ABILITY_NAMES[key]) for key in ABILITIES)


class Situation(Document):
    """A roll from the sheet: the difficulty, the ability, the skill by its id (none: the ability alone), and
    whether the host rolls the d4 in secret (the host's part of a situation)."""

    level: Level = Field(Level.AVERAGE, title="Difficulty", description="The difficulty the host names.")
    ability: Ability = Field("brawn", title="Ability", description="The ability the host names.")
    skill: ItemId | None = Field(None, title="Skill", description="The skill, by its id on the sheet.")
    unclear: bool = Field(False, title="Unclear task", description="The host rolls the d4 in secret.")


class Call(Document):
    """The host's call: the difficulty, the ability and the skill (by its name in the campaign's list), and
    whether the task is unclear."""

    level: Level = Field(Level.AVERAGE, title="Difficulty")
    ability: Ability = Field("brawn", title="Ability")
    skill: Annotated[Name, Field(max_length=60)] | None = Field(None, title="Skill")
    unclear: bool = Field(False, title="Unclear task: roll the d4 in secret")


def _ratings(sheet: Sheet) -> dict[str, int | None]:
    return {key: getattr(sheet, key) for key in ABILITIES}


class D13(SystemDefaults):
    key: Final = KEY
    name: Final = NAME
    attribution: Final = "D13™ is the dice system of the When Shadows Rise role-playing game."
    disclaimer: Final = ""
    license_name: Final = ""
    license_file: Final = ""
    options_model: ClassVar = options.Options
    moves = (*moves.MOVES, *d13_table.MOVES)
    log_kinds = {"check": "Task roll", "draw": "A card drawn", "card": "A card played",
                 "automatic": "An automatic task"}  # fmt: skip
    table = d13_table.TABLE
    sheet_model: ClassVar = Sheet
    sheet_version = SCHEMA_VERSION
    creation_steps: Final = (
        CreationStep("abilities", "Abilities", fields=("brawn", "grace", "wits", "will")),
        CreationStep("skills", "Skills", fields=("skills", "notes")),
    )
    edit_sections: Final = (
        EditSection("notes", "notes", fields=("notes",)),
        EditSection("condition", "condition track", frozenset({Role.GM}), fields=("condition",), region="condition",
                    note="the host marks the condition track"),
        EditSection("ratings", "abilities and skills", frozenset({Role.GM}),
                    fields=("brawn", "grace", "wits", "will", "skills"), region="ratings",
                    note="abilities and skills are set at creation and skills raised with experience; only the "
                         "host corrects them"),
    )  # fmt: skip
    roll_kinds: Final = ROLL_KINDS
    currencies: Final = (EXPERIENCE,)
    standing: Final = None
    offer_situation: Final = (
        Option("level", "Difficulty", Level.AVERAGE.value, choices=LEVEL_CHOICES),
        Option("ability", "Ability", "wits", choices=ABILITY_CHOICES),
    )
    combat: Final = None
    gm_situation: Final = frozenset({"unclear"})
    situation_model: ClassVar = Situation
    situation_characters: Final[frozenset[str]] = frozenset()
    call_model: ClassVar = Call
    called_situation: Final = frozenset({"level", "ability", "skill", "unclear"})
    legacy_formats: Final = ()
    carried_options: Final = ()

    # --- Options --------------------------------------------------------------------------------------

    def change_options(
        self, before: Mapping[str, Any], after: Mapping[str, Any], renames: Mapping[str, str],
        characters: Sequence[tuple[str, Sheet]],
    ) -> OptionsChange:  # fmt: skip
        """A skill renamed in the list is renamed on every sheet (and takes the list's kind), and a new skill is added
        to every sheet at 0; a skill taken off the list stays on the sheets that have it (what was bought is kept)."""
        listed = [(s["name"], s.get("kind", "physical")) for s in after.get("skills", ())]
        kinds = {name.casefold(): kind for name, kind in listed}
        sheets: list[Sheet | None] = []
        for _, sheet in characters:
            skills = []
            for skill in sheet.skills:
                name = renames.get(skill.name, skill.name)
                skills.append(skill.model_copy(update={"name": name, "kind": kinds.get(name.casefold(), skill.kind)}))
            held = {s.name.casefold() for s in skills}
            next_id = sheet.next_id
            for name, kind in listed:
                if name.casefold() not in held:
                    skills.append(Skill(id=next_id, name=name, kind=kind))
                    next_id += 1
            changed = sheet.model_copy(update={"skills": tuple(skills), "next_id": next_id})
            sheets.append(changed if changed != sheet else None)
        return OptionsChange(conflicts={}, sheets=tuple(sheets), what="The campaign's skills changed",
                             sections=("ratings",))  # fmt: skip

    # --- The sheet ------------------------------------------------------------------------------------

    def migrate(self, document: dict[str, Any], from_version: int) -> dict[str, Any]:
        """Version 1 is the first: there is nothing older to upgrade."""
        if from_version != SCHEMA_VERSION:
            raise ValueError(f"there is no sheet version {from_version}")
        return document

    def read_sheet(self, document: Mapping[str, Any]) -> Sheet:
        return cast(Sheet, super().read_sheet(document))

    def validate(self, sheet: Sheet, given: Mapping[str, Any], *, finished: bool) -> tuple[Problem, ...]:
        problems = []
        if finished:
            problems += [Problem(field=key, message=f"give {ABILITY_NAMES[key]} a rating")
                         for key, value in _ratings(sheet).items() if value is None]  # fmt: skip
        track = given.get("condition_max")
        if isinstance(track, int) and sheet.condition > track:
            problems.append(Problem(field="condition", message=f"the track runs from 0 to {track}"))
        return tuple(problems)

    def sheet_view(self, sheet: Sheet, given: Mapping[str, Any]) -> dict[str, Any]:
        """What the templates show beyond the document: the chance of the roll waiting (given the d9 when the
        host keeps the d4 secret), and what each number card (and a face card's boost) would make of the last
        roll."""
        suits = {key: options.SUIT_WORDS[options.suit_of(given, key)] for key in ABILITIES}
        out: dict[str, Any] = {
            "abilities": [(key, ABILITY_NAMES[key], getattr(sheet, key), suits[key]) for key in ABILITIES],
            "skill_kinds": (("physical", "Physical skills"), ("mental", "Mental skills")),
        }
        pending = sheet.pending
        if pending is not None:
            out["pending_words"] = moves.task_words(sheet, pending.task)
            if pending.secret:
                out["pending_chance"] = chance.check(pending.task.target, pending.task.level, pending.d9).success
        last = sheet.last
        if last is not None:
            out["last_words"] = moves.task_words(sheet, last.task)
            out["if_card"] = [(value, moves.card_succeeds(value, last.task)) for value in range(1, 11)]
            boost = int(given.get("boost", 2))
            raised = last.task.model_copy(update={"target": last.task.target + boost})
            out["if_face"] = (boost, last.total != chance.ALWAYS_FAILS and (
                last.doubles or moves.card_succeeds(last.total, raised)))  # fmt: skip
        return out

    def vitals(self, sheet: Sheet, given: Mapping[str, Any]) -> Vitals:
        maximum = int(given.get("condition_max", 6))
        helpless = int(given.get("helpless_at", maximum))
        track = Track("condition", str(given.get("condition", "Wounds")), sheet.condition, maximum=maximum, minimum=0)
        facts: tuple[tuple[str, str], ...] = ()
        if sheet.last is not None:
            facts = (("Last roll", f"{sheet.last.total}, {'a success' if sheet.last.success else 'a failure'}"),)
        if sheet.condition >= helpless:
            return Vitals((track,), "helpless", can_act=False, why_not=f"helpless at {sheet.condition}", notes=facts)
        return Vitals((track,), "up", notes=facts)

    def summary(self, sheet: Sheet) -> Summary:
        ratings = _ratings(sheet)
        if any(value is None for value in ratings.values()):
            return Summary(step=sheet.step)
        return Summary(step=sheet.step, concept=" ".join(f"{ABILITY_NAMES[k]} {v}" for k, v in ratings.items()))

    # --- Creation -------------------------------------------------------------------------------------

    def new_draft(self, given: Mapping[str, Any]) -> Sheet:
        skills = tuple(Skill(id=n, name=s["name"], kind=s.get("kind", "physical"))
                       for n, s in enumerate(given["skills"], 1))  # fmt: skip
        return Sheet(skills=skills, next_id=len(skills) + 1)

    def _ability_problems(self, sheet: Sheet, given: Mapping[str, Any]) -> list[Problem]:
        low, high, points = given["ability_min"], given["ability_max"], given["ability_points"]
        problems = []
        for key, value in _ratings(sheet).items():
            if value is None:
                problems.append(Problem(field=key, message=f"give {ABILITY_NAMES[key]} a rating"))
            elif not low <= value <= high:
                problems.append(Problem(field=key, message=f"an ability is {low} to {high} at creation"))
        spent = sum(value or 0 for value in _ratings(sheet).values())
        if spent > points:
            problems.append(Problem(field="brawn", message=f"the abilities share {points} points, not {spent}"))
        return problems

    def _skill_problems(self, sheet: Sheet, given: Mapping[str, Any]) -> list[Problem]:
        most, points = given["skill_max"], given["skill_points"]
        problems = [Problem(field=f"skills.{n}.rating", message=f"a skill is at most {most} at creation")
                    for n, skill in enumerate(sheet.skills) if skill.rating > most]  # fmt: skip
        spent = sum(skill.rating for skill in sheet.skills)
        if spent > points:
            problems.append(Problem(field="skills", message=f"the skills share {points} points, not {spent}"))
        return problems

    def check_step(self, sheet: Sheet, step: str, given: Mapping[str, Any]) -> tuple[Problem, ...]:
        if step == "abilities":
            return tuple(self._ability_problems(sheet, given))
        if step == "skills":
            return tuple(self._skill_problems(sheet, given))
        return (Problem(field="step", message=f"there is no creation step {step!r}"),)

    def roll_step(self, sheet: Sheet, step: str, given: Mapping[str, Any], rng: Random) -> Sheet:
        raise SpecError("step", "D13's creation rolls no dice: the campaign's points are shared out")

    def fill_step(self, sheet: Sheet, step: str, value: Mapping[str, Any], given: Mapping[str, Any]) -> Sheet:
        fields = next((s.fields for s in self.creation_steps if s.key == step), None)
        if fields is None:
            raise SheetInvalid([Problem(field="step", message=f"nothing is filled in at the {step} step")])
        extra = sorted(set(value) - set(fields))
        if extra:
            raise SheetInvalid([Problem(field=extra[0], message="is not part of this step")])
        document = sheet.model_dump(mode="json")
        if step == "skills":
            # The campaign keeps the list: a step sets each skill's rating (by id), never its name.
            ratings = {row.get("id"): row.get("rating", 0) for row in value.get("skills", ()) if isinstance(row, dict)}
            document["skills"] = [{**skill, "rating": ratings.get(skill["id"], skill["rating"])}
                                  for skill in document["skills"]]  # fmt: skip
            if "notes" in value:
                document["notes"] = value["notes"]
        else:
            document.update(value)
        filled = self.read_sheet(document)
        problems = self.check_step(filled, step, given)
        if problems:
            raise SheetInvalid(problems)
        following = {"abilities": "skills"}.get(step, filled.step)
        if sheet.step == step:
            filled = filled.model_copy(update={"step": following})
        return filled

    def finish(self, sheet: Sheet, given: Mapping[str, Any]) -> Sheet:
        problems = (*self._ability_problems(sheet, given), *self._skill_problems(sheet, given))
        if problems:
            raise SheetInvalid(problems)
        return sheet.model_copy(update={"step": ""})

    # --- Edits ----------------------------------------------------------------------------------------

    def edit(self, sheet: Sheet, section: str, value: Mapping[str, Any], *, role: Role, options: Mapping[str, Any],
             ) -> Sheet:  # fmt: skip
        spec = next((s for s in self.edit_sections if s.key == section), None)
        if spec is None:
            raise SheetInvalid([Problem(field="section", message=f"there is no section {section!r} to edit")])
        if role not in spec.editors:
            raise EditRefused(section, f"only the host can change the {spec.label}")
        extra = sorted(set(value) - set(spec.fields))
        if extra:
            raise SheetInvalid([Problem(field=extra[0], message="is not part of it")])
        edited = self.read_sheet(with_new_ids(sheet.model_dump(mode="json"), value))
        problems = self.validate(edited, options, finished=True)
        if problems:
            raise SheetInvalid(problems)
        return edited

    # --- Rolls ----------------------------------------------------------------------------------------

    def situation_choices(self, sheet: Sheet, given: Mapping[str, Any]) -> Mapping[str, Sequence[tuple[Any, str]]]:
        skills = [(None, "No skill (the ability alone)")] + [(s.id, f"{s.name} {s.rating}") for s in sheet.skills]
        return {"level": LEVEL_CHOICES, "ability": [(k, f"{ABILITY_NAMES[k]} {getattr(sheet, k) or 0}")
                                                     for k in ABILITIES], "skill": skills}  # fmt: skip

    def _situation(self, situation: Mapping[str, Any]) -> Situation:
        try:
            return Situation.model_validate(dict(situation))
        except ValidationError as error:
            problem = problems_of(error)[0]
            raise SpecError(problem.field, problem.message) from None

    def sheet_roll(
        self, sheet: Sheet, situation: Mapping[str, Any], given: Mapping[str, Any], others: Others = nobody,
        table: Mapping[str, Any] | None = None,
    ) -> SheetRoll:  # fmt: skip
        """The task roll the situation names, with its exact chance of success and of a card, the chance at
        both ends for a Monstrous task, and the chance of each total that can stand. It is made by the move
        ``d13-roll``: its difficulty may leave a decision after the dice."""
        if sheet.brawn is None or sheet.step:
            raise SpecError("sheet", "finish the character first")
        asked = self._situation(situation)
        skill = sheet.skill(asked.skill)
        if asked.skill is not None and skill is None:
            raise SpecError("skill", "there is no such skill on this sheet")
        boosts = (table or {}).get("boosts", {})
        boost = int(boosts.get(asked.skill, 0)) if asked.skill is not None else 0
        target = sheet.ability(asked.ability) + (skill.rating if skill is not None else 0) + boost
        task = Task(level=asked.level, ability=asked.ability, skill=asked.skill, target=target)
        odds = chance.check(target, asked.level)
        chances: list[tuple[str, Fraction]] = [("Chance of a card (doubles that stand)", odds.card)]
        if asked.level is Level.MONSTROUS:
            worst, best = chance.monstrous_range(target)
            chances = [("If the host lets every success stand", best.success),
                       ("If the host forces a reroll whenever it hurts", worst.success), *chances]  # fmt: skip
        standing = chance.standing_totals(target, asked.level)
        wins = frozenset(t for t in standing if t != chance.ALWAYS_FAILS and (asked.level is Level.EASY or t <= target))
        caption = (f"Chance of each total that stands; the highlighted totals are at or under {target} (doubles "
                   "succeed too, a 13 always fails).")  # fmt: skip
        totals = Totals(tuple(standing.items()), target, succeeds=wins, caption=caption)
        steps = (f"Boosted +{boost} by face cards this scene",) if boost else ()
        label = moves.task_words(sheet, task) + (" (unclear)" if asked.unclear else "")
        move_input = {"level": asked.level.value, "ability": asked.ability, "skill": asked.skill,
                      "unclear": asked.unclear}  # fmt: skip
        return SheetRoll("check", {"system": KEY, "roll": "check", "difficulty": asked.level.value, "target": target},
                         label, steps=steps, chances=tuple(chances), totals=totals, move=("d13-roll", move_input),
                         details={"ability": asked.ability, "skill": asked.skill})  # fmt: skip

    def outcome_words(self, kind: str, spec: Mapping[str, Any], outcome: Mapping[str, Any]) -> Worded | None:
        if outcome.get("success") is None:
            return None
        doubles = " (doubles)" if outcome.get("doubles") else ""
        return Worded(f"Success{doubles}", "success") if outcome["success"] else Worded("Failure", "failure")

    # --- The host's calls -----------------------------------------------------------------------------

    def call_choices(self, given: Mapping[str, Any]) -> Mapping[str, Sequence[tuple[str, str]]]:
        skills = [("", "No skill")] + [(s["name"], s["name"]) for s in given.get("skills", ())]
        return {"level": LEVEL_CHOICES, "ability": ABILITY_CHOICES, "skill": skills}

    def call_situation(self, sheet: Sheet, call: Call, given: Mapping[str, Any]) -> dict[str, Any]:
        skill = None
        if call.skill:
            found = next((s for s in sheet.skills if s.name.casefold() == call.skill.casefold()), None)
            if found is None:
                raise SpecError("skill", f"the character has no skill {call.skill!r}")
            skill = found.id
        return {"level": call.level.value, "ability": call.ability, "skill": skill, "unclear": call.unclear}

    def call_words(self, call: Call, given: Mapping[str, Any]) -> str:
        skill = f" + {call.skill}" if call.skill else ""
        unclear = ", the d4 in secret" if call.unclear else ""
        return f"{chance.LEVEL_WORDS[call.level]} {ABILITY_NAMES[call.ability]}{skill}{unclear}"

    def situation_call(self, sheet: Sheet, situation: Mapping[str, Any], given: Mapping[str, Any]) -> Call:
        asked = self._situation(situation)
        skill = sheet.skill(asked.skill)
        return Call(level=asked.level, ability=asked.ability, skill=skill.name if skill else None,
                    unclear=asked.unclear)  # fmt: skip

    # --- Experience -----------------------------------------------------------------------------------

    def _compare(self, situation: Mapping[str, Any]) -> tuple[Level, str]:
        level, ability = situation.get("level", Level.AVERAGE.value), situation.get("ability", "wits")
        if level not in {value for value, _ in LEVEL_CHOICES}:
            raise SpecError("level", "choose Easy, Average, Difficult or Monstrous")
        if ability not in ABILITIES:
            raise SpecError("ability", "choose Brawn, Grace, Wits or Will")
        return Level(level), str(ability)

    def offers(self, sheet: Sheet, given: Mapping[str, Any], situation: Mapping[str, Any]) -> tuple[Offer, ...]:
        """With experience on: each skill one rating up (to the campaign's cap), costing the new rating times
        the campaign's experience per rating, with how it changes a task of the situation's difficulty and
        ability."""
        if not given.get("experience") or sheet.step:
            return ()
        level, ability = self._compare(situation)
        base, cap, per = sheet.ability(ability), int(given["skill_cap"]), int(given["experience_per_rating"])
        out = []
        for skill in sheet.skills:
            if skill.rating >= cap:
                continue
            before = chance.check(base + skill.rating, level).success
            after = chance.check(base + skill.rating + 1, level).success
            effect = Effect(f"{chance.LEVEL_WORDS[level]} {ABILITY_NAMES[ability]} + {skill.name}", before, after)
            label = f"{skill.name} {skill.rating} → {skill.rating + 1}"
            out.append(Offer(f"skill-{skill.id}", label, EXPERIENCE.key, (skill.rating + 1) * per, (effect,)))
        return tuple(out)

    def _skill_of(self, sheet: Sheet, offer: str) -> Skill:
        prefix, _, number = offer.partition("-")
        found = sheet.skill(int(number)) if prefix == "skill" and number.isdigit() else None
        if found is None:
            raise SpecError("offer", f"there is no purchase {offer!r} on this sheet")
        return found

    def offer_fields(self, sheet: Sheet, offer: str, given: Mapping[str, Any]) -> dict[str, Any]:
        return {"before": self._skill_of(sheet, offer).rating}

    def offer_note(self, sheet: Sheet, offer: str, given: Mapping[str, Any]) -> str:
        self._skill_of(sheet, offer)
        return ""

    def buy(self, sheet: Sheet, offer: str, given: Mapping[str, Any], choice: Mapping[str, Any] | None = None,
            ) -> tuple[Sheet, Offer]:  # fmt: skip
        if not given.get("experience"):
            raise SpecError("offer", "this campaign plays without experience")
        skill = self._skill_of(sheet, offer)
        if choice and "before" in choice and choice["before"] != skill.rating:
            raise SpecError("before", f"{skill.name} is {skill.rating} now")
        found = next((o for o in self.offers(sheet, given, {}) if o.key == offer), None)
        if found is None:
            raise SpecError("offer", f"{skill.name} is at the campaign's highest ({given['skill_cap']})")
        skills = tuple(s.model_copy(update={"rating": s.rating + 1}) if s.id == skill.id else s for s in sheet.skills)
        return sheet.model_copy(update={"skills": skills}), found

    def receipt(
        self, before: Sheet, after: Sheet, offer: Offer, given: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        skill = self._skill_of(before, offer.key)
        now = self._skill_of(after, offer.key)
        return f"{skill.name} {skill.rating} → {now.rating}", {"offer": offer.key, "cost": offer.cost,
                                                              "skill": skill.id, "before": skill.rating,
                                                              "after": now.rating}  # fmt: skip

    def purchase_sections(self, purchase: Mapping[str, Any]) -> tuple[str, ...]:
        return ("ratings",)

    def refund(self, sheet: Sheet, purchase: Mapping[str, Any], given: Mapping[str, Any]) -> Sheet:
        skill = sheet.skill(purchase.get("skill"))
        if skill is None or skill.rating != purchase.get("after"):
            raise SpecError("purchase", "the skill is no longer what this purchase bought: correct the sheet first")
        skills = tuple(s.model_copy(update={"rating": purchase["before"]}) if s.id == skill.id else s
                       for s in sheet.skills)  # fmt: skip
        return sheet.model_copy(update={"skills": skills})

    # --- Export and import ----------------------------------------------------------------------------

    def fresh_problems(self, sheet: Sheet, given: Mapping[str, Any], *, campaign: str, rolls_verified: bool,
                       ) -> tuple[Problem, ...]:  # fmt: skip
        """A fresh character comes within the campaign's creation budgets and limits (nothing is rolled at
        creation, so nothing needs vouching for)."""
        if sheet.step:
            return ()
        return (*self._ability_problems(sheet, given), *self._skill_problems(sheet, given))

    def afresh(self, sheet: Sheet, given: Mapping[str, Any], *, finished: bool) -> tuple[Sheet, tuple[str, ...]]:
        """A fresh start: an unmarked condition track and no roll waiting or settled."""
        fresh = sheet.model_copy(update={"condition": 0, "pending": None, "last": None})
        said = (f"{given.get('condition', 'Condition')} from {sheet.condition} to 0",) if sheet.condition else ()
        return fresh, said

    def fresh_rules(self, given: Mapping[str, Any]) -> tuple[str, ...]:
        return (
            f"Abilities {given['ability_min']} to {given['ability_max']}, sharing {given['ability_points']} points; "
            f"skills at most {given['skill_max']}, sharing {given['skill_points']} points.",
            "Such a character starts its play afresh: an unmarked condition track, no Experience.",
        )


SYSTEM: Final = D13()
