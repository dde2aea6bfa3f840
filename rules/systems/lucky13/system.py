"""Lucky 13 behind the system protocol (``rules.systems.base.RulesSystem``): the one object the
apps reach through the registry. Every method works on the sheet document
(:mod:`rules.systems.lucky13.sheet`) and leaves the rules to the modules beside it.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from random import Random
from typing import Any, ClassVar, Final, TypeGuard

from pydantic import ValidationError

from rules.dice import BASE_SIZES, DiceError, StepDie
from rules.document import Problem, problems_of, with_new_ids
from rules.systems.base import (
    Awaiting,
    CreationStep,
    Currency,
    EditRefused,
    EditSection,
    Effect,
    LegacyRead,
    Offer,
    Option,
    OptionsChange,
    Other,
    Others,
    Role,
    SheetInvalid,
    SheetRoll,
    SpecError,
    Standing,
    StartField,
    Summary,
    Track,
    Vitals,
    Worded,
    nobody,
)
from rules.systems.defaults import SystemDefaults
from rules.systems.lucky13 import arrival, creation, identity, import_checks, legacy, view
from rules.systems.lucky13.advancement import (
    PurchaseKind,
    SheetSkill,
    buy_ability,
    buy_level,
    buy_specialization,
    describe,
    note,
    now,
    record,
    refund,
    sections,
    suggestions,
    target,
    title,
)
from rules.systems.lucky13.campaign import change_options
from rules.systems.lucky13.checks import (
    ABILITY_ROLL_CHOICES,
    AbilityRoll,
    Difficulty,
    Draw,
    Explosion,
    parse_choice,
    parse_die,
    parse_difficulty,
    parse_side,
    parse_steps,
)
from rules.systems.lucky13.creation import (
    ability_from_percentile,
    check_ability_array,
    check_skill_dice,
    specialization_allowance,
    without_a_die,
)
from rules.systems.lucky13.encounter import COMBAT
from rules.systems.lucky13.health import Condition, condition, current_pulse, death_threshold, max_hit_points
from rules.systems.lucky13.modifiers import Modifiers, assist_steps, sheet_check
from rules.systems.lucky13.moves import MOVES
from rules.systems.lucky13.options import Options, default_options, validate_options
from rules.systems.lucky13.record import ROLL_KINDS
from rules.systems.lucky13.recovery import RECOVERING_STEPS, recovering, settle
from rules.systems.lucky13.recovery import ability_steps as recovery_steps
from rules.systems.lucky13.sheet import (
    MAX_ITEMS,
    SCHEMA_VERSION,
    Abilities,
    Armor,
    Asset,
    Creation,
    Sheet,
    Skill,
    Specialization,
    Weapon,
    incomplete,
    migrate,
)
from rules.systems.lucky13.situation import Call, Situation
from rules.systems.lucky13.vocabulary import (
    ABILITIES,
    ABILITY_KEYS,
    MAX_SPECIALIZATION_LEVEL,
    TABLE_OPTIONS,
    SheetError,
)

#: The steps of guided creation after name and concept, in the rule text's order, with what the
#: player gives at each (:mod:`rules.systems.lucky13.creation` says each value's shape).
CREATION_STEPS: Final = (
    CreationStep("abilities", "Abilities", server_rolls=True, fields=("ability_method", "abilities")),
    CreationStep("skills", "Skills", server_rolls=True, fields=("skills",)),
    CreationStep("specializations", "Specializations", fields=("specializations", "took_impairment")),
    CreationStep("traits", "Backgrounds and impairments", fields=("traits",),
                 rolls=(("background", "Roll a background on the table"),
                        ("impairment", "Roll an impairment on the table"))),
    CreationStep("equipment", "Equipment", fields=("assets", "weapons", "armor")),
    CreationStep("review", "Review"),
)  # fmt: skip
STEP_KEYS: Final = tuple(step.key for step in CREATION_STEPS)
#: The parts of the draft each step decides: a step is refused only for what it itself decides.
STEP_PARTS: Final = {
    "abilities": frozenset({"abilities", "ability_method", "array"}),
    "skills": frozenset({"skills", "skill_method"}),
    "specializations": frozenset({"specializations"}),
    "traits": frozenset({"traits"}),
    "equipment": frozenset({"assets", "weapons", "armor"}),
}
#: Each step's own rule (:mod:`rules.systems.lucky13.creation`) for what the player gives at it.
_FILLS: Final = {
    "abilities": creation.fill_abilities,
    "skills": creation.fill_skills,
    "specializations": creation.fill_specializations,
    "traits": creation.fill_traits,
    "equipment": creation.fill_equipment,
    "review": lambda sheet, value, options: sheet,
}

_EVERYONE: Final = frozenset({Role.OWNER, Role.GM})
_GM: Final = frozenset({Role.GM})

#: Who may change each part of a finished sheet: our reading of the rule text (issue 3). The
#: player keeps the story (concept, backgrounds, gear, notes); the numbers that move in play
#: through Adventure Points, damage or the GM's judgement are the GM's to correct.
EDIT_SECTIONS: Final = (
    EditSection("details", "concept", _EVERYONE, ("concept",)),
    EditSection("abilities", "abilities", _GM,
                note="only the GM can correct the ability dice; in play they rise by spending Adventure Points"),
    EditSection("skills", "skill dice", _GM,
                note="only the GM can correct the skill dice, which are set when a character is created"),
    EditSection("specializations", "specializations", _EVERYONE, ("skills",), region="skills",
                note="only the GM can add or remove specializations or change their levels; you can rename them"),
    EditSection("traits", "backgrounds and impairments", _EVERYONE),
    EditSection("equipment", "equipment", _EVERYONE, ("assets", "weapons", "armor")),
    EditSection("hit-points", "hit points", _GM, ("hit_points",), note="only the GM can change the hit points"),
    EditSection("reputation", "reputation", _GM, region="standing", note="only the GM can change the reputation"),
    EditSection("notes", "notes", _EVERYONE),
)  # fmt: skip
#: The document fields each section replaces.
SECTION_FIELDS: Final = {section.key: section.replaces for section in EDIT_SECTIONS}

#: "Characters are typically expected to be able to earn between 10 and 20 Adventure Points per
#: adventure", for the reasons of "Skill advancement / Adventure Points".
ADVENTURE_POINTS: Final = Currency(
    "ap", "Adventure Points", "AP", typical_award=(10, 20),
    reasons=("Completing the mission", "A heroic act", "Saving another character's life", "Discovering vital intel"),
)  # fmt: skip
#: "Reputation": from −5 to +5, moved by the GM.
REPUTATION: Final = Standing("reputation", "reputation", "Reputation", low=-5, high=5)
#: What "What should I buy?" compares the odds of a purchase at: the difficulty, Moderate to begin.
OFFER_SITUATION: Final = (
    Option(
        "difficulty",
        "Compare at",
        Difficulty.MODERATE.value,
        choices=tuple((d.value, f"{d.value.title()} ({d.die.label})") for d in Difficulty),
    ),
)


def _invalid(field: str, message: str) -> SheetInvalid:
    return SheetInvalid([Problem(field=field, message=message)])


def _reached(sheet: Sheet, step: str) -> bool:
    """Whether the draft has got as far as ``step`` (earlier steps can be revisited)."""
    current = sheet.creation.step if sheet.creation.step in STEP_KEYS else STEP_KEYS[-1]
    return STEP_KEYS.index(step) <= STEP_KEYS.index(current)


class Lucky13(SystemDefaults):
    """The Lucky 13 Game Engine v1.0 as the apps see it."""

    key: Final = identity.KEY
    name: Final = identity.NAME
    attribution: Final = identity.ATTRIBUTION
    disclaimer: Final = identity.DISCLAIMER
    license_name: Final = identity.LICENSE_NAME
    license_file: Final = identity.LICENSE_FILE

    options_model: ClassVar = Options
    sheet_model: ClassVar = Sheet
    sheet_version = SCHEMA_VERSION
    creation_steps: Final = CREATION_STEPS
    edit_sections: Final = EDIT_SECTIONS
    roll_kinds: Final = ROLL_KINDS
    currencies: Final = (ADVENTURE_POINTS,)
    standing: Final = REPUTATION
    offer_situation: Final = OFFER_SITUATION
    combat: Final = COMBAT
    moves = MOVES
    log_kinds = {"check": "Check", "reaction": "Reaction check", "opposed": "Opposed roll"}

    def outcome_words(self, kind: str, spec: Mapping[str, Any], outcome: Mapping[str, Any]) -> Worded | None:
        """A check's success or failure with its dilemma called out ("Dilemma!": both dice at their highest
        but no success); every other outcome in the platform's words."""
        if outcome.get("success") is None:
            return None
        words = "Success" if outcome["success"] else "Failure"
        return Worded(words, words.lower(), ("Dilemma!",) if outcome.get("dilemma") else ())

    # --- Options -------------------------------------------------------------------------

    def default_options(self) -> dict[str, Any]:
        return default_options()

    def validate_options(self, options: Mapping[str, Any]) -> dict[str, Any]:
        return validate_options(options)

    def change_options(
        self,
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        renames: Mapping[str, str],
        characters: Sequence[tuple[str, Sheet]],
    ) -> OptionsChange:
        return change_options(before, after, renames, characters)

    def options_summary(self, options: Mapping[str, Any]) -> list[dict[str, Any]]:
        """The options that matter under the chosen methods, in words."""
        labels = {o.key: dict(o.choices) for o in self.option_fields if o.choices}
        titles = {o.key: o.label for o in self.option_fields}
        names = dict(zip(ABILITY_KEYS, options["ability_names"], strict=True))
        skill_method = labels["skill_method"][options["skill_method"]]
        if options["skill_method"] == "array":
            skill_method += f": {' '.join(options['skill_array'])}"
        elif options["skill_method"] == "point_buy":
            skill_method += f": a budget of {options['skill_points']} points"
        skills = [
            (f"{s['name']} ({names[s['ability']]})" if s["ability"] else s["name"])
            + (": the skill that fights" if s.get("combat") else "")
            for s in options["skills"]
        ]
        return [
            {"label": "Play style", "value": labels["explosion"][options["explosion"]]},
            {"label": "Abilities", "value": ", ".join(options["ability_names"])},
            {"label": "Skills", "value": labels["skill_preset"].get(options["skill_preset"], "Custom"), "list": skills},
            {"label": "Hit points per Pulse step", "value": options["hit_points_per_step"]},
            {"label": "Ability methods", "value": labels["ability_methods"][options["ability_methods"]]},
            {"label": "Skill method", "value": skill_method},
            {"label": "Starting specializations", "value": options["starting_specializations"]},
            {"label": "Resting", "value": labels["resting"][options["resting"]]},
            {"label": "Recovery from dying", "value": labels["recovery"][options["recovery"]]},
            *(
                {
                    "label": titles[key],
                    "value": f"{len(options[key])} to roll for or choose from",
                    "list": [entry["name"] for entry in options[key]],
                }
                for key in TABLE_OPTIONS.values()
                if options.get(key)
            ),
        ]

    # --- The sheet -----------------------------------------------------------------------

    def migrate(self, document: dict[str, Any], from_version: int) -> dict[str, Any]:
        return migrate(document, from_version)

    def read_sheet(self, document: Mapping[str, Any]) -> Sheet:
        if not isinstance(document, Mapping):
            raise _invalid("sheet", "must be an object")
        version = document.get("schema_version", SCHEMA_VERSION)
        if isinstance(version, bool) or not isinstance(version, int):
            raise _invalid("schema_version", "must be a whole number")
        try:
            upgraded = migrate(dict(document), version) if version != SCHEMA_VERSION else document
            return Sheet.model_validate(upgraded)
        except ValidationError as error:
            raise SheetInvalid(problems_of(error)) from None
        except ValueError as error:
            raise _invalid("schema_version", str(error)) from None

    def validate(self, sheet: Sheet, options: Mapping[str, Any], *, finished: bool) -> tuple[Problem, ...]:
        problems = []
        if finished:
            problems += [Problem(field=f, message="is needed on a finished character") for f in incomplete(sheet)]
        pulse = sheet.abilities.pulse
        if pulse is not None and sheet.hit_points is not None:
            base = StepDie.parse(pulse)
            top = max_hit_points(base, options["hit_points_per_step"])
            if not death_threshold(base) <= sheet.hit_points <= top:
                problems.append(
                    Problem(
                        field="hit_points",
                        message=f"hit points run from {death_threshold(base)} to {top} with a {pulse} Pulse",
                    )
                )
        return tuple(problems)

    # --- Creation ------------------------------------------------------------------------

    def new_draft(self, options: Mapping[str, Any]) -> Sheet:
        """A fresh draft: the campaign's skills, each with its id and linked ability, no dice yet."""
        skills = tuple(
            Skill(id=number, name=skill["name"], ability=skill["ability"])
            for number, skill in enumerate(options["skills"], 1)
        )
        return Sheet(skills=skills, next_id=len(skills) + 1, creation=Creation(step="abilities"))

    def check_step(self, sheet: Sheet, step: str, options: Mapping[str, Any]) -> tuple[Problem, ...]:
        if step not in STEP_KEYS:
            return (Problem(field="step", message=f"there is no creation step {step!r}"),)
        checks: dict[str, Callable[[Sheet, Mapping[str, Any]], None]] = {
            "abilities": _check_abilities,
            "skills": _check_skills,
            "specializations": _check_specializations,
            "traits": _check_traits,
            "equipment": lambda sheet, options: None,
            "review": lambda sheet, options: None,
        }
        problems: list[Problem] = []
        for key in STEP_KEYS[: STEP_KEYS.index(step) + 1]:
            try:
                checks[key](sheet, options)
            except SheetError as error:
                problems.append(Problem(field=error.field, message=error.message))
        if step == "review":
            problems += self.validate(sheet, options, finished=False)
        return tuple(problems)

    #: "Character creation": a one-line concept, asked with the name.
    start_fields = (
        StartField("concept", "Concept", 'optional, e.g. "Sellsword with a broadsword"', "a one-line concept",
                   creation.MAX_CONCEPT),
    )  # fmt: skip

    def start_draft(self, options: Mapping[str, Any], given: Mapping[str, str]) -> Sheet:
        """A fresh draft with its concept; a name is refused in the words of Lucky 13's other names."""
        try:
            creation.clean_name_of(given.get("name", ""), "A character", "name")
            concept = creation.clean_concept(given.get("concept", ""))
        except SheetError as error:
            raise _invalid(error.field, error.message) from None
        return self.new_draft(options).model_copy(update={"concept": concept})

    def roll_step(self, sheet: Sheet, step: str, options: Mapping[str, Any], rng: Random) -> Sheet:
        """The server's d100s ("Random ability method"; the random skill method likewise).

        Abilities are rolled once per draft, and each skill once: a roll on record is never
        replaced (the rule text gives no reroll), and it stays with the skill's id if it is renamed.
        """
        if step == "abilities":
            if sheet.creation.ability_rolls:
                return sheet
            rolls = tuple(rng.randint(1, 100) for _ in ABILITY_KEYS)
            dice = {key: ability_from_percentile(roll).label for key, roll in zip(ABILITY_KEYS, rolls, strict=True)}
            made = sheet.creation.model_copy(update={"ability_rolls": rolls, "ability_method": "random"})
            return sheet.model_copy(update={"abilities": Abilities.model_validate(dice), "creation": made})
        if step == "skills" and options["skill_method"] == "random":
            skills = []
            for skill in sheet.skills:
                if skill.rolled is None:
                    roll = rng.randint(1, 100)
                    skill = skill.model_copy(update={"rolled": roll, "die": ability_from_percentile(roll).label})
                skills.append(skill)
            return sheet.model_copy(update={"skills": tuple(skills)})
        raise SpecError("step", f"the server rolls nothing at the {step} step")

    def roll_at(
        self, sheet: Sheet, step: str, roll: str, value: Mapping[str, Any], options: Mapping[str, Any], rng: Random
    ) -> Sheet:
        """A roll the player asks for: the abilities' d100s (refused when the campaign allows only the
        arrays, or once rolled: the rolls stand), the random skills' d100s, each with the step saved and
        the draft moved past it; or a roll on the campaign's table of backgrounds or of impairments,
        which does not finish the step (an impairment owed is asked for when the step is saved)."""
        try:
            if step == "traits" and roll in dict(creation.TRAIT_KINDS):
                if not _reached(sheet, "traits"):
                    raise SheetError(f"{roll}_roll", "choose the specializations first")
                return creation.roll_trait(sheet, roll, value, options, rng)
            if roll:
                raise SpecError("roll", f"there is no roll {roll!r} at the {step} step")
            if step == "abilities":
                rolled = creation.roll_abilities(sheet, options, self.roll_step(sheet, "abilities", options, rng))
            elif step == "skills":
                rolled = creation.roll_skills(sheet, options, lambda s: self.roll_step(s, "skills", options, rng))
            else:
                rolled = self.roll_step(sheet, step, options, rng)
        except SheetError as error:
            raise _invalid(error.field, error.message) from None
        return self._step_done(rolled, step, options)

    def fill_step(self, sheet: Sheet, step: str, value: Mapping[str, Any], options: Mapping[str, Any]) -> Sheet:
        """What the player gives at a step (its ``fields``, :mod:`rules.systems.lucky13.creation` says each
        one's shape), checked by the step's rule and then as far as the step goes; the draft moves past
        the step. A player's gear waits for the GM at creation as in play (the campaign's ``gear``)."""
        spec = next((s for s in CREATION_STEPS if s.key == step), None)
        if spec is None:
            raise _invalid("step", f"there is no creation step {step!r}")
        unknown = sorted(set(value) - set(spec.fields))
        if unknown:
            raise _invalid(unknown[0], f"is not filled in at the {spec.label.lower()} step")
        try:
            filled = _FILLS[step](sheet, value, options)
        except SheetError as error:
            raise _invalid(error.field, error.message) from None
        if step == "equipment":
            filled = gear_approval(sheet, filled, role=Role.OWNER, options=options)
        return self._step_done(filled, step, options)

    def _step_done(self, sheet: Sheet, step: str, options: Mapping[str, Any]) -> Sheet:
        """The draft checked at ``step`` (the first problem of what the step decides) and moved past it."""
        problems = self.check_step(sheet, step, options)
        if step in STEP_PARTS:
            problems = tuple(p for p in problems if p.field.split(".")[0] in STEP_PARTS[step])
        if problems:
            raise _invalid(problems[0].field.split(".")[0], problems[0].message)
        reached = STEP_KEYS.index(sheet.creation.step) if sheet.creation.step in STEP_KEYS else len(STEP_KEYS) - 1
        following = STEP_KEYS[max(reached, min(STEP_KEYS.index(step) + 1, len(STEP_KEYS) - 1))]
        return sheet.model_copy(update={"creation": sheet.creation.model_copy(update={"step": following})})

    def creation_words(
        self, before: Sheet, after: Sheet, step: str, roll: str | None, options: Mapping[str, Any]
    ) -> str:
        """The history's words for each save of a step, as the player did it."""
        if roll:
            record = after.creation.table_rolls[-1]
            return f"Rolled a {record.kind} on the table: {record.roll} of {record.of}, {record.name}"
        if step == "abilities":
            method = after.creation.ability_method
            return "Rolled the abilities" if method == "random" else f"Abilities: the {method} array"
        if step == "skills":
            return {"ability": "Skill dice from the abilities", "random": "Rolled the skills"}.get(
                options["skill_method"], "Skill dice"
            )
        return ""

    def finish(self, sheet: Sheet, options: Mapping[str, Any]) -> Sheet:
        """Hit points: the character starts at full hit points, the Pulse die's steps times the
        campaign's hit points per step; the draft must have every ability and skill die, pass every
        step's check once more, and have been through every step."""
        try:
            creation.ready(sheet, options)
        except SheetError as error:
            raise _invalid(error.field, error.message) from None
        problems = self.check_step(sheet, "review", options)
        if problems:
            raise SheetInvalid(problems)
        if not _reached(sheet, "review"):
            raise _invalid("review", "go through every step first")
        if sheet.abilities.pulse is None:
            raise _invalid("abilities.pulse", "choose the abilities first")
        document = sheet.model_dump(mode="json")
        document["hit_points"] = max_hit_points(StepDie.parse(sheet.abilities.pulse), options["hit_points_per_step"])
        document["creation"]["step"] = ""
        finished = self.read_sheet(document)
        problems = self.validate(finished, options, finished=True)
        if problems:
            raise SheetInvalid(problems)
        return finished

    # --- Edits ---------------------------------------------------------------------------

    def edit(
        self, sheet: Sheet, section: str, value: Mapping[str, Any], *, role: Role, options: Mapping[str, Any]
    ) -> Sheet:
        spec = next((s for s in EDIT_SECTIONS if s.key == section), None)
        if spec is None:
            raise _invalid("section", f"there is no section {section!r}")
        if role not in spec.editors:
            raise EditRefused(section, f"only the GM can change the {spec.label}")
        fields = SECTION_FIELDS[section]
        unknown = sorted(set(value) - set(fields))
        if unknown:
            raise _invalid(unknown[0], f"is not part of the {spec.label}")
        if section == "specializations" and role is not Role.GM:
            _only_renamed(sheet, value.get("skills", ()))
        edited = self.read_sheet(with_new_ids(sheet.model_dump(mode="json"), value))
        if section == "specializations":
            _only_specializations_changed(sheet, edited)
        if section == "traits" and role is not Role.GM:
            _impairment_stays(sheet, edited)
        if section == "equipment":
            edited = gear_approval(sheet, edited, role=role, options=options)
        edited = settle(sheet, edited, options)
        problems = self.validate(edited, options, finished=True)
        if problems:
            raise SheetInvalid(problems)
        return edited

    # --- The table -----------------------------------------------------------------------

    def vitals(self, sheet: Sheet, options: Mapping[str, Any]) -> Vitals:
        """ "Hit points", "Death & dying": the hit points as rows of slots, one row a Pulse step (d4
        first), the Pulse die the remaining hit points reach, the reputation, and whether a character healed
        from dying is still recovering (gritty recovery)."""
        if sheet.abilities.pulse is None or sheet.hit_points is None:
            return Vitals(tracks=(), state="draft", can_act=False, why_not="the character is not finished")
        base = StepDie.parse(sheet.abilities.pulse)
        per_step = int(options["hit_points_per_step"])
        state = condition(sheet.hit_points, base)
        rows = tuple(
            (StepDie(step).label, min(max(sheet.hit_points - (step - 1) * per_step, 0), per_step), per_step)
            for step in range(1, base.rung + 1)
        )
        hit_points = Track(
            "hit_points",
            "Hit points",
            sheet.hit_points,
            maximum=max_hit_points(base, per_step),
            minimum=death_threshold(base),
            unit="hp",
            segments=rows,
        )
        why_not = {
            Condition.DYING: "dying: at 0 hit points or fewer the character does not act",
            Condition.DEAD: "dead",
        }.get(state, "")
        pulse = current_pulse(sheet.hit_points, per_step)
        notes: tuple[tuple[str, str], ...] = (
            ("Pulse now", pulse.label if pulse.rung else "no die"),
            ("Reputation", f"{sheet.reputation:+d}"),
        )
        conditions: tuple[str, ...] = ()
        if recovering(sheet, options):  # "Death & dying", gritty: not yet at full strength
            conditions = ("recovering",)
            notes += (("Recovering", f"Ability dice {RECOVERING_STEPS:+d} step until the GM says recovered"),)
        return Vitals(
            tracks=(hit_points,),
            state=state.value,
            can_act=state is Condition.UP,
            why_not=why_not,
            conditions=conditions,
            notes=notes,
        )

    def summary(self, sheet: Sheet) -> Summary:
        """The concept, the step a draft was left at, and the d100s of the random ability method."""
        return Summary(
            concept=sheet.concept,
            step=sheet.creation.step,
            rolls=tuple(str(roll) for roll in sheet.creation.ability_rolls),
        )

    #: "Modifiers": the GM's extra steps are the GM's to give.
    gm_situation: Final = frozenset(
        {
            "ability_steps",
            "skill_steps",
            "npc_helper",
            "npc_helper_die",
            "opponent_ability_steps",
            "opponent_skill_steps",
            "opponent_npc_helper",
            "opponent_npc_helper_die",
        }
    )
    situation_model: ClassVar = Situation
    situation_characters: Final = frozenset({"helper", "opponent", "opponent_helper"})

    def situation_choices(self, sheet: Sheet, options: Mapping[str, Any]) -> Mapping[str, Sequence[tuple[Any, str]]]:
        """The sheet's skills, their specializations and its assets, by id (Lucky 13's own roll page offers
        the same; a page made from the protocol offers these)."""
        specializations = [(spec.id, f"{spec.name} ({skill.name})") for skill in sheet.skills
                           for spec in skill.specializations]  # fmt: skip
        return {
            "skill": [(skill.id, skill.name) for skill in sheet.skills],
            "specialization": specializations,
            "asset": [(asset.id, asset.name) for asset in sheet.assets if asset.approved],
        }

    call_model: ClassVar = Call
    called_situation: Final = frozenset(
        {"kind", "reaction", "skill", "ability", "difficulty", "ability_roll", "ability_steps", "skill_steps"}
    )

    def call_choices(self, options: Mapping[str, Any]) -> Mapping[str, Sequence[tuple[str, str]]]:
        """The kinds of check, the campaign's skills by name, the abilities by the campaign's names (or
        none: the skill's own), and each difficulty with its die."""
        names = _ability_names(options)
        return {
            "kind": [("check", "Skill check"), ("reaction", f"Reaction check ({names['charm']} + the skill)")],
            "skill": [(entry["name"], entry["name"]) for entry in options["skills"]],
            "ability": [("", "The skill’s own ability"), *names.items()],
            "difficulty": [(d.value, f"{d.value.title()} ({d.die.label})") for d in Difficulty],
            "ability_roll": [(value, words) for value, words in ABILITY_ROLL_CHOICES],
        }

    def call_situation(self, sheet: Sheet, call: Call, options: Mapping[str, Any]) -> dict[str, Any]:
        """The situation's called parts for this sheet: its skill of the call's name (case aside) by id,
        and the ability: the call's ("Roll a d10 plus your Pulse and your Fighting dice"), else the
        skill's linked one; a skill linked to none asks the call for one. A reaction check rolls Charm
        ("Reaction checks")."""
        names = _ability_names(options)
        reaction = call.kind == "reaction"
        if reaction and call.ability not in (None, "charm"):
            raise SpecError("ability", f"a reaction check rolls {names['charm']}")
        situation: dict[str, Any] = {
            "kind": call.kind,
            "reaction": call.kind == "reaction",
            "difficulty": call.difficulty.value,
            "ability_roll": call.ability_roll.value,
            "ability_steps": call.ability_steps,
            "skill_steps": call.skill_steps,
            "ability": None,
            "skill": None,
        }
        if call.skill is None:
            if call.kind == "check":
                raise SpecError("skill", "a check names a skill")
            return situation
        wanted = call.skill.casefold()
        skill = next((s for s in sheet.skills if s.name.casefold() == wanted), None)
        if skill is None:
            raise SpecError("skill", f"the sheet has no skill called {call.skill}")
        situation["skill"] = skill.id
        if not reaction:
            ability = call.ability or skill.ability
            if ability is None:
                raise SpecError("ability", f"{skill.name} has no linked ability: name the ability the call rolls")
            situation["ability"] = ability
        return situation

    def call_words(self, call: Call, options: Mapping[str, Any]) -> str:
        """ "Stealth check, Difficult (d8), with a background, Ability +1 step"."""
        charm = dict(zip(ABILITY_KEYS, options["ability_names"], strict=True))["charm"]
        if call.kind == "reaction":
            what = f"Reaction check ({charm}" + (f" + {call.skill})" if call.skill else ")")
        elif call.ability:
            what = f"{_ability_names(options)[call.ability]} + {call.skill} check"
        else:
            what = f"{call.skill} check"
        words = [what, f"{call.difficulty.value.title()} ({call.difficulty.die.label})"]
        if call.ability_roll is not AbilityRoll.NORMAL:
            words.append(f"with {'a background' if call.ability_roll is AbilityRoll.BACKGROUND else 'an impairment'}")
        for name, steps in (("Ability", call.ability_steps), ("Skill", call.skill_steps)):
            if steps:
                words.append(f"{name} {steps:+d} step{'s' if abs(steps) != 1 else ''}")
        return ", ".join(words)

    def situation_call(self, sheet: Sheet, situation: Mapping[str, Any], options: Mapping[str, Any]) -> Call:
        """A player's roll as the GM would call it: the kind, the skill by its name in the campaign's
        list, the ability where it is not the skill's linked one (a player may propose one, as the GM
        may call one), the difficulty, a background or an impairment and any extra steps. The
        specialization, asset and helper are not a call's: a proposal carries them beside it."""
        reaction = bool(situation.get("reaction")) or situation.get("kind") == "reaction"
        skill, _ = _skill_of(sheet, situation, required=not reaction)
        name = None
        ability = None
        if skill is not None:
            wanted = skill.name.casefold()
            name = next((e["name"] for e in options["skills"] if e["name"].casefold() == wanted), None)
            if name is None:
                raise SpecError("skill", f"the GM calls only the campaign's skills, and {skill.name} is not one")
            if not reaction:
                chosen = situation.get("ability") or skill.ability
                if chosen is None:
                    raise SpecError("ability", f"{skill.name} has no linked ability: choose the ability to roll")
                ability = chosen if chosen != skill.ability else None
        return Call(
            kind="reaction" if reaction else "check",
            skill=name,
            ability=ability,
            difficulty=parse_choice(situation, "difficulty", Difficulty, Difficulty.MODERATE),
            ability_roll=parse_choice(situation, "ability_roll", AbilityRoll, AbilityRoll.NORMAL),
            ability_steps=parse_steps(situation, "ability_steps"),
            skill_steps=parse_steps(situation, "skill_steps"),
        )

    def sheet_roll(
        self,
        sheet: Sheet,
        situation: Mapping[str, Any],
        options: Mapping[str, Any],
        others: Others[Sheet] = nobody,
        table: Mapping[str, Any] | None = None,
    ) -> SheetRoll:
        """A check or a reaction check from the sheet, as a player makes one: the skill (by id, and a
        specialization and an asset of it by id), the ability (default: the skill's link, else the
        first), and a helper among the other characters in play by id (``helper``, with
        ``help_with``: the helper's skill of the same name, or their die of the same ability,
        "Characters assisting characters"); then :meth:`check_roll`. The roll says what went into it
        (``details``, for the log) and each thing that stepped the dice (``steps``)."""
        names = dict(zip(ABILITY_KEYS, options["ability_names"], strict=True))
        reaction = bool(situation.get("reaction")) or situation.get("kind") == "reaction"
        if reaction and situation.get("skill") is None:
            return self.check_roll(sheet, situation, options)  # Charm alone: nothing of a skill to resolve
        skill, special = _skill_of(sheet, situation)
        if skill is None:  # _skill_of requires one: this is for the type checker
            raise SpecError("skill", "the sheet has no such skill")
        if reaction:
            if situation.get("ability") not in (None, "charm"):
                raise SpecError("ability", f"a reaction check rolls {names['charm']}")
            ability_key = "charm"
        else:
            chosen = situation.get("ability") or skill.ability
            if chosen is None:
                raise SpecError("ability", f"{skill.name} has no linked ability: choose the ability to roll")
            if chosen not in names:
                raise SpecError("ability", f"choose one of {', '.join(names.values())}")
            ability_key = chosen
        help_with = situation.get("help_with", "skill")
        if help_with not in ("skill", "ability"):
            raise SpecError("help_with", "a helper helps with the skill or with the ability")
        difficulty = situation.get("difficulty", Difficulty.MODERATE.value)
        difficulty = difficulty.value if isinstance(difficulty, Difficulty) else difficulty
        ability_steps, skill_steps = parse_steps(situation, "ability_steps"), parse_steps(situation, "skill_steps")
        normal: dict[str, Any] = {
            "skill": skill.id,
            "reaction": reaction,
            "difficulty": difficulty,
            "ability_roll": parse_choice(situation, "ability_roll", AbilityRoll, AbilityRoll.NORMAL).value,
            "ability_steps": ability_steps,
            "skill_steps": skill_steps,
        }
        if not reaction:
            normal["ability"] = ability_key
        details: dict[str, Any] = {
            "reaction": reaction,
            "ability": ability_key,
            "ability_name": names[ability_key],
            "ability_die": getattr(sheet.abilities, ability_key) or StepDie.none().label,
            "skill_id": skill.id,
            "skill_name": skill.name,
            "skill_die": skill.die or StepDie.none().label,
            "difficulty": difficulty,
            "specialization": None,
            "asset": None,
            "assist": None,
            "reputation": None,
            "ability_steps": ability_steps,
            "skill_steps": skill_steps,
        }
        said: list[str] = []
        if special is not None:
            if reaction:
                raise SpecError("specialization", "a reaction check rolls the skill without a specialization")
            normal["specialization"] = special.id
            details["specialization"] = {"id": special.id, "name": special.name, "level": special.level}
            said.append(f"{special.name} {special.level}: Skill +{special.level}")
        if situation.get("asset") is not None:
            usable = [a for a in sheet.assets if skill.id in a.skills and a.approved]
            asset = _item(usable, situation["asset"], "asset", f"choose an asset that helps {skill.name}")
            normal["asset"] = asset.id
            details["asset"] = {"id": asset.id, "name": asset.name, "level": asset.level}
            said.append(f"{asset.name}: Skill +{asset.level}")
        if situation.get("helper") is not None:
            helper_id = situation["helper"]
            helper = others(helper_id) if _is_id(helper_id) else None
            if helper is None:
                raise SpecError("helper", "choose another character in play in this campaign")
            if situation.get("npc_helper") or situation.get("npc_helper_die"):
                raise SpecError("npc_helper", "one helper: another character or an NPC, not both")
            try:
                able(helper.sheet, options)
            except SpecError as error:  # README, "Dying and dead characters": they neither act nor help
                raise SpecError("helper", f"{helper.name} cannot help: {error.message}") from None
            die = _helper_die(helper, skill, ability_key, help_with, options)
            steps = assist_steps(die)
            normal["assist"] = {"die": die.label, "with": help_with, "name": helper.name}
            details["assist"] = {"character": helper_id, "name": helper.name, "with": help_with,
                                 "die": die.label, "steps": steps}  # fmt: skip
            what = "Skill" if help_with == "skill" else "Ability"
            said.append(f"{helper.name} helps ({die.label}): {what} +{steps}")
        elif situation.get("npc_helper") or situation.get("npc_helper_die"):
            name, die = _npc_helper(situation)
            steps = assist_steps(die)
            normal["assist"] = {"die": die.label, "with": help_with, "name": name}
            details["assist"] = {"character": None, "npc": True, "name": name, "with": help_with,
                                 "die": die.label, "steps": steps}  # fmt: skip
            what = "Skill" if help_with == "skill" else "Ability"
            said.append(f"{name} (an NPC) helps ({die.label}): {what} +{steps}")
        elif situation.get("assist") is not None:
            normal["assist"] = situation["assist"]
        if reaction:
            details["reputation"] = sheet.reputation
            said.append(f"Reputation {sheet.reputation:+d}: {names['charm']} {sheet.reputation:+d}")
        for steps_taken, what in ((ability_steps, "Ability"), (skill_steps, "Skill")):
            if steps_taken:
                said.append(f"GM: {what} {steps_taken:+d}")
        rolled = rolled_ability(sheet, ability_key, options)
        if rolled != StepDie.parse(details["ability_die"]):
            details["ability_die_now"] = rolled.label
            said.append(f"Wounded: {names[ability_key]} {details['ability_die']} → {rolled.label}")
        if recovering(sheet, options):  # check_roll adds the step; the roll says why the die is lower
            details["recovering"] = True
            said.append(
                f"Recovering from dying: {names[ability_key]} {RECOVERING_STEPS:+d} until the GM says recovered"
            )
        if _opposed(situation):  # a contest: the difficulty is the other side
            if reaction:
                raise SpecError("opponent", "a reaction check is not a contest")
            normal["difficulty"] = Difficulty.HEROIC.value
        made = self.check_roll(sheet, normal, options)
        if _opposed(situation):
            return self._contest(made, situation, options, others, details, said, skill)
        return SheetRoll(
            kind=made.kind,
            spec=made.spec,
            label=made.label,
            log_kind="reaction" if reaction else "check",
            details=details,
            steps=tuple(said),
        )

    def _contest(
        self,
        made: SheetRoll,
        situation: Mapping[str, Any],
        options: Mapping[str, Any],
        others: Others[Sheet],
        details: dict[str, Any],
        said: list[str],
        skill: Skill,
    ) -> SheetRoll:
        """ "Opposed rolls" outside a fight: the sheet's Ability + Skill (stepped as for a check) against
        another character in play (``opponent``, by id: their skill of ``opponent_skill``'s name, by
        default the same skill, with its own ability), or against dice the GM names
        (``opponent_dice``: the Ability die first, e.g. ``["d10", "d10"]``, and ``opponent_name``).
        Higher wins; a draw goes to the side that resists (README, "Opposed rolls and combat")."""
        names = dict(zip(ABILITY_KEYS, options["ability_names"], strict=True))
        ours = [made.spec["ability"], *([made.spec["skill"]] if made.spec["skill"] != "none" else [])]
        raw_dice = situation.get("opponent_dice")
        if situation.get("opponent") is not None:
            if raw_dice:
                raise SpecError("opponent_dice", "name another character or dice, not both")
            other = others(situation["opponent"]) if _is_id(situation["opponent"]) else None
            if other is None:
                raise SpecError("opponent", "choose another character in play in this campaign")
            if situation.get("helper") == situation["opponent"]:
                raise SpecError("helper", f"{other.name} is the other side and cannot help this one")
            theirs_sheet: Sheet = other.sheet
            try:
                able(theirs_sheet, options)
            except SpecError as error:
                raise SpecError("opponent", f"{other.name}: {error.message}") from None
            wanted = str(situation.get("opponent_skill") or skill.name).casefold()
            their_skill = next((s for s in theirs_sheet.skills if s.name.casefold() == wanted), None)
            if their_skill is None or their_skill.die is None:
                raise SpecError(
                    "opponent_skill", f"{other.name} has no die in {situation.get('opponent_skill') or skill.name}"
                )
            theirs_made = self._their_side(theirs_sheet, their_skill, situation, options, others)
            theirs = [
                theirs_made.spec["ability"],
                *([theirs_made.spec["skill"]] if theirs_made.spec["skill"] != "none" else []),
            ]
            their_roll = theirs_made.spec["ability_roll"]
            seen = theirs_made.details
            key = seen["ability"]
            special = seen["specialization"]
            their_words = f"{their_skill.name} ({special['name']} {special['level']})" if special else their_skill.name
            against = f"{other.name} ({names[key]} + {their_words})"
            said.extend(f"{other.name}: {step}" for step in theirs_made.steps)
            details["opponent"] = {
                "character": situation["opponent"], "name": other.name, "skill": their_skill.name, "ability": key,
                "dice": theirs, "ability_roll": their_roll, "specialization": special, "asset": seen["asset"],
                "assist": seen["assist"], "ability_steps": seen["ability_steps"], "skill_steps": seen["skill_steps"],
            }  # fmt: skip
        elif raw_dice:
            sheet_only = [key for key in _SHEET_ONLY if situation.get(key) not in (None, "")]
            if sheet_only:
                raise SpecError(sheet_only[0], "the GM's dice have no sheet: name a character for this")
            spec_side = {"opponent_dice": list(raw_dice) if isinstance(raw_dice, list | tuple) else raw_dice}
            dice = list(parse_side(spec_side, "opponent_dice"))
            for i, field in enumerate(("opponent_ability_steps", "opponent_skill_steps")):
                steps = parse_steps(situation, field)
                if steps and i < len(dice):
                    try:
                        dice[i] = dice[i].step(steps)
                    except DiceError as error:
                        raise SpecError(field, str(error)) from None
                    said.append(f"GM: {'Ability' if i == 0 else 'Skill'} of the other side {steps:+d}")
            theirs = [d.label for d in dice]
            their_roll = parse_choice(situation, "opponent_ability_roll", AbilityRoll, AbilityRoll.NORMAL).value
            who = str(situation.get("opponent_name") or "").strip() or "the GM's dice"
            against = f"{who} ({' + '.join(theirs)})"
            details["opponent"] = {"character": None, "name": who, "dice": theirs, "ability_roll": their_roll}
        else:
            raise SpecError("opponent", "name the other side: a character in play or the dice the GM names")
        if their_roll != AbilityRoll.NORMAL.value:
            kept = "higher" if their_roll == AbilityRoll.BACKGROUND.value else "lower"
            said.append(f"{details['opponent']['name']}: {their_roll}, Ability rolled twice, the {kept} kept")
        resists = situation.get("resists") or "them"
        if resists not in RESISTS:
            raise SpecError("resists", "say who resists: them, us, or neither (a race)")
        spec = {
            "system": self.key,
            "roll": "opposed",
            "attacker": ours,
            "defender": theirs,
            "weapon_die": StepDie.none().label,
            "attacker_roll": made.spec["ability_roll"],
            "defender_roll": their_roll,
            "explosion": made.spec["explosion"],
            "draw": RESISTS[resists].value,
        }
        label = made.label.split(" vs ", 1)[0] + f" against {against}"
        details["contest"] = True
        details["resists"] = resists
        draw = {"them": "a draw holds for them", "us": "a draw holds for us", "neither": "a draw is a draw (a race)"}
        said.append(f"Against {against}: higher wins, {draw[resists]}")
        return SheetRoll(kind="opposed", spec=spec, label=label, log_kind="opposed", details=details, steps=tuple(said))

    def _their_side(
        self,
        sheet: Sheet,
        skill: Skill,
        situation: Mapping[str, Any],
        options: Mapping[str, Any],
        others: Others[Sheet],
    ) -> SheetRoll:
        """The other character's side of a contest, built as their check would be (README, "Contests
        outside combat": "Both sides roll what they would roll for a check"): their skill with its own
        ability, and what the situation gives them under ``opponent_*``: a background or an impairment,
        a specialization and an asset of theirs by id, a helper (another character in play, or an NPC
        the GM names) and the GM's steps. A refusal names the ``opponent_*`` field."""
        theirs: dict[str, Any] = {"skill": skill.id, "difficulty": Difficulty.HEROIC.value}
        for key in ("ability_roll", "specialization", "asset", "helper", "help_with", "npc_helper", "npc_helper_die",
                    "ability_steps", "skill_steps"):  # fmt: skip
            if situation.get(f"opponent_{key}") not in (None, ""):
                theirs[key] = situation[f"opponent_{key}"]
        if theirs.get("helper") is not None and theirs["helper"] == situation.get("helper"):
            raise SpecError("opponent_helper", "one character cannot help both sides")
        try:
            return self.sheet_roll(sheet, theirs, options, others)
        except SpecError as error:
            field = "opponent" if error.field == "hit_points" else f"opponent_{error.field}"
            raise SpecError(field, error.message) from None

    def check_roll(self, sheet: Sheet, situation: Mapping[str, Any], options: Mapping[str, Any]) -> SheetRoll:
        """A check from the sheet ("Skill checks"): ``situation`` names the skill and optionally a
        specialization of it (by id), an asset that helps it (by id, "Equipment / assets"), a
        helper's die and what it helps with (``{"assist": {"die": "d10", "with": "skill",
        "name": "Otto"}}``, "Characters assisting characters"), the ability (default: the skill's
        link), the difficulty, a background or impairment, and the GM's steps; or
        ``{"reaction": true}``, with a skill or without, for a reaction check ("Reputation": Charm
        stepped by the reputation + the skill + the decision die)."""
        able(sheet, options)
        names = dict(zip(ABILITY_KEYS, options["ability_names"], strict=True))
        abilities = sheet.abilities.dice()
        difficulty = parse_difficulty(situation)
        how = parse_choice(situation, "ability_roll", AbilityRoll, AbilityRoll.NORMAL)
        ability_steps, skill_steps = parse_steps(situation, "ability_steps"), parse_steps(situation, "skill_steps")
        reaction = bool(situation.get("reaction"))
        skill, specialization = _skill_of(sheet, situation, required=not reaction)
        asset = _asset_of(sheet, skill, situation)
        assist, assist_target, helper = _assist_of(situation)
        if reaction:
            if specialization is not None:
                raise SpecError("specialization", "a reaction check rolls the skill without a specialization")
            if situation.get("ability") not in (None, "charm"):
                raise SpecError("ability", f"a reaction check rolls {names['charm']}")
            if "charm" not in abilities:
                raise SpecError("reaction", f"the sheet has no {names['charm']} die yet")
            ability_key = "charm"
            what = f"{names['charm']} + {skill.name} reaction" if skill else f"{names['charm']} reaction"
        else:
            assert skill is not None  # required above
            chosen = situation.get("ability") or skill.ability
            if chosen is None or chosen not in abilities:
                raise SpecError("ability", f"choose the ability {skill.name} is rolled with")
            ability_key = chosen
            what = f"{skill.name} ({specialization.name} {specialization.level})" if specialization else skill.name
            what = f"{names[ability_key]} + {what}"
        if skill is not None and skill.die is None:
            raise SpecError("skill", f"{skill.name} has no die yet")
        modifiers = Modifiers(
            specialization_level=specialization.level if specialization else 0,
            asset_level=asset.level if asset else 0,
            assist=assist,
            assist_target=assist_target,
            ability_steps=ability_steps + recovery_steps(sheet, options),
            skill_steps=skill_steps,
            reputation=sheet.reputation if reaction else None,
        )
        skill_die = StepDie.parse(skill.die) if skill is not None and skill.die else StepDie.none()
        check = sheet_check(rolled_ability(sheet, ability_key, options), skill_die, difficulty, modifiers,
                            ability_roll=how, explosion=Explosion(options["explosion"]))  # fmt: skip
        label = f"{what} vs {_difficulty_words(situation)}"
        if how is not AbilityRoll.NORMAL:
            label += f", with {'a background' if how is AbilityRoll.BACKGROUND else 'an impairment'}"
        if asset is not None:
            label += f", with {asset.name}"
        if assist is not None:
            label += f", {helper or 'a helper'} assisting"
        spec = {
            "system": self.key,
            "roll": "check",
            "ability": check.ability.label,
            "skill": check.skill.label,
            "difficulty": check.difficulty.label,
            "ability_roll": check.ability_roll.value,
            "explosion": check.explosion.value,
        }
        return SheetRoll(kind="check", spec=spec, label=label)

    # --- Advancement ---------------------------------------------------------------------

    def offers(self, sheet: Sheet, options: Mapping[str, Any], situation: Mapping[str, Any]) -> tuple[Offer, ...]:
        """ "Skill advancement": every purchase the sheet allows, labelled with what it buys
        ("Teleport (Spellcasting) 2 → 3", "Will d6 → d8"), with how it changes each check it touches
        at the situation's difficulty (Moderate by default; ``offer_situation`` lists them)."""
        chosen = situation.get("difficulty", Difficulty.MODERATE.value)
        difficulty = parse_difficulty({"difficulty": chosen})
        at = _difficulty_words({"difficulty": chosen})
        names = _ability_names(options)
        skills = [
            SheetSkill(
                s.name, s.ability or "", StepDie.parse(s.die), tuple((p.name, p.level) for p in s.specializations)
            )
            for s in sheet.skills
            if s.die is not None
        ]
        by_name = {s.name: s for s in sheet.skills}
        out = []
        for suggestion in suggestions(
            sheet.abilities.dice(), skills, difficulty=difficulty, explosion=Explosion(options["explosion"])
        ):
            purchase = suggestion.purchase
            if purchase.kind == "ability":
                if purchase.ability == "pulse" and _down(sheet) is not None:
                    continue  # nothing bought raises the dying or the dead (:func:`_not_down`)
                key = f"ability:{purchase.ability}"
            else:
                skill = by_name[purchase.skill]
                if purchase.kind == "level":
                    key = f"level:{next(p for p in skill.specializations if p.name == purchase.name).id}"
                elif len(skill.specializations) >= MAX_ITEMS:
                    continue  # the skill holds no more
                else:
                    key = f"specialization:{skill.id}"
            effects = tuple(
                Effect(
                    f"{f'{e.skill} ({e.specialization})' if e.specialization else e.skill} at {at}", e.before, e.after
                )
                for e in suggestion.effects
            )
            label = title(target(sheet, key), names)
            out.append(Offer(key, label, ADVENTURE_POINTS.key, purchase.cost, effects))
        return tuple(out)

    def offer_fields(self, sheet: Sheet, offer: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """What a buy form sends with an offer's key: ``before``, what the buyer sees now (the
        specialization's level, 0 for a new one, or the ability's rung, 1 d4 … 5 d12), and for a new
        specialization its ``name``, for the buyer to give."""
        aimed = target(sheet, offer)
        if aimed.kind is PurchaseKind.SPECIALIZATION:
            return {"before": aimed.before, "name": None}
        return {"before": aimed.before}

    def offer_note(self, sheet: Sheet, offer: str, options: Mapping[str, Any]) -> str:
        return note(sheet, target(sheet, offer))

    def buy(
        self, sheet: Sheet, offer: str, options: Mapping[str, Any], choice: Mapping[str, Any] | None = None
    ) -> tuple[Sheet, Offer]:
        """The sheet after a purchase ("Skill advancement / Adventure Points"): a new specialization
        (4, at level 1; ``choice`` names it: ``{"name": …}``), one more level (4, at most 5), or the
        next ability die (its size × 4, up to d12; a larger Pulse brings its row of hit points, full,
        and is refused to the dying and the dead: README, "Dying and dead characters").

        ``choice["before"]``, when given, is what the buyer saw (:meth:`offer_fields`): if the
        sheet shows something else now, nothing is bought (``SpecError`` on ``before``). A
        ``SpecError`` on ``offer`` or ``name`` is the buyer's; on anything else, the sheet cannot
        take the purchase now (at the top already, or full)."""
        choice = choice or {}
        aimed = target(sheet, offer)
        names = _ability_names(options)
        if aimed.kind is PurchaseKind.ABILITY:
            if aimed.ability == "pulse":
                _not_down(sheet, names["pulse"])
            purchase = buy_ability(aimed.ability, StepDie(aimed.before))
            abilities = sheet.abilities.model_copy(update={aimed.ability: StepDie(purchase.after).label})
            bought = sheet.model_copy(update={"abilities": abilities})
            if aimed.ability == "pulse" and sheet.hit_points is not None:  # "Hit points": the new row comes filled
                bought = bought.model_copy(update={"hit_points": sheet.hit_points + options["hit_points_per_step"]})
            label = f"Raise {names[aimed.ability]} to {StepDie(purchase.after).label}"
        elif aimed.kind is PurchaseKind.LEVEL:
            # target() found the specialization, and its skill, on this sheet.
            assert aimed.specialization_id is not None
            found = sheet.specialization(aimed.specialization_id)
            assert found is not None
            skill, spec = found
            purchase = buy_level(skill.name, spec.name, spec.level)
            raised = spec.model_copy(update={"level": purchase.after})
            levels = tuple(raised if p.id == spec.id else p for p in skill.specializations)
            bought = _replace_skill(sheet, skill, _with_specs(skill, levels))
            label = f"{spec.name} ({skill.name}) to level {purchase.after}"
        else:
            # target() found the skill on this sheet.
            assert aimed.skill_id is not None
            under = sheet.skill(aimed.skill_id)
            assert under is not None
            skill = under
            if len(skill.specializations) >= MAX_ITEMS:
                raise SpecError(
                    "specializations", f"{skill.name} has {MAX_ITEMS} specializations, the most a skill holds"
                )
            try:
                purchase = buy_specialization(skill.name, choice.get("name"), [p.name for p in skill.specializations])
            except SpecError:
                raise
            except ValueError as error:  # a missing or overlong name
                raise SpecError("name", str(error)) from None
            sheet, (new_id,) = sheet.with_ids(1)
            spec = Specialization(id=new_id, name=purchase.name, level=1)
            bought = _replace_skill(sheet, skill, _with_specs(skill, (*skill.specializations, spec)))
            label = f"{purchase.name} ({skill.name}), a new specialization"
        if "before" in choice and choice["before"] != aimed.before:
            raise SpecError("before", now(aimed, names))
        bought = settle(sheet, bought, options)
        return self.read_sheet(bought.model_dump(mode="json")), Offer(
            aimed.key, label, ADVENTURE_POINTS.key, purchase.cost
        )

    def receipt(
        self, before: Sheet, after: Sheet, offer: Offer, options: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        """What the ledger keeps of a purchase: its words ("Teleport (Spellcasting) 2 → 3") and
        the record (the items by id with their words at the time, the level or rung before and
        after, the cost)."""
        kept = record(target(before, offer.key), offer.cost, before, after)
        return describe(kept, _ability_names(options)), kept

    def purchase_sections(self, purchase: Mapping[str, Any]) -> tuple[str, ...]:
        return sections(purchase)

    def refund(self, sheet: Sheet, purchase: Mapping[str, Any], options: Mapping[str, Any]) -> Sheet:
        """The sheet with a purchase taken back (the specialization or its level, the ability die
        and, for Pulse, the row of hit points it brought); ``SpecError`` if the sheet no longer
        shows it as bought, ``SheetInvalid`` if the sheet cannot take it back as it stands."""
        undone = settle(sheet, refund(sheet, purchase, hit_points_per_step=options["hit_points_per_step"]), options)
        return self.read_sheet(undone.model_dump(mode="json"))

    def awaiting(self, sheet: Sheet) -> tuple[Awaiting, ...]:
        """A player's weapon, armor or asset above level 1 waits for the GM (the campaign's ``gear``
        option, :func:`gear_approval`), at creation as in play."""
        waiting = []
        for asset in sheet.assets:
            if not asset.approved:
                words = f"Asset: {asset.name} ({asset.kind}, level {asset.level})"
                waiting.append(Awaiting(str(asset.id), words, "equipment"))
        for weapon in sheet.weapons:
            if not weapon.approved:
                words = f"Weapon: {weapon.name}, accuracy {weapon.accuracy}, damage {weapon.damage}"
                waiting.append(Awaiting(str(weapon.id), words, "equipment"))
        for armor in sheet.armor:
            if not armor.approved:
                waiting.append(Awaiting(str(armor.id), f"Armor: {armor.name}, defense {armor.defense}", "equipment"))
        return tuple(waiting)

    def decide(self, sheet: Sheet, item: str, *, approve: bool) -> Sheet:
        """The GM approves a waiting item (it steps dice and is fought with from now on) or refuses
        it (it is taken off the sheet)."""
        for field in ("assets", "weapons", "armor"):
            items = getattr(sheet, field)
            found = next((i for i in items if str(i.id) == item and not i.approved), None)
            if found is None:
                continue
            if approve:
                kept = tuple(i.model_copy(update={"approved": True}) if i is found else i for i in items)
            else:
                kept = tuple(i for i in items if i is not found)
            return sheet.model_copy(update={field: kept})
        raise SpecError("item", "nothing of that id waits for the GM's approval on this sheet")

    def sheet_view(self, sheet: Sheet, options: Mapping[str, Any]) -> dict[str, Any]:
        return view.sheet_view(sheet, options)

    # --- Export and import ---------------------------------------------------------------

    def named_fields(self, sheet: Sheet, options: Mapping[str, Any]) -> dict[str, Any]:
        """The fields of the export format before sheet documents, which API clients read beside the
        sheet: the concept, the abilities by key with the campaign's names, skills with their
        specializations, traits by kind, assets with the names of the skills they help, weapons,
        armor, hit points, reputation, notes."""
        names = {skill.id: skill.name for skill in sheet.skills}

        def traits(kind: str) -> list[dict[str, Any]]:
            return [{"id": t.id, "name": t.name, "description": t.description} for t in sheet.traits if t.kind == kind]

        return {
            "concept": sheet.concept,
            "ability_names": dict(zip(ABILITY_KEYS, options["ability_names"], strict=True)),
            "abilities": sheet.abilities.model_dump(mode="json"),
            "ability_method": sheet.creation.ability_method or None,
            "took_impairment": sheet.creation.took_impairment,
            "skills": [
                {
                    "id": skill.id,
                    "name": skill.name,
                    "ability": skill.ability,
                    "die": skill.die,
                    "specializations": [{"id": s.id, "name": s.name, "level": s.level} for s in skill.specializations],
                }
                for skill in sheet.skills
            ],
            "backgrounds": traits("background"),
            "impairments": traits("impairment"),
            "assets": [
                {
                    "id": a.id,
                    "name": a.name,
                    "kind": a.kind,
                    "level": a.level,
                    "skills": [names[i] for i in a.skills],
                    "description": a.description,
                }
                for a in sheet.assets
            ],
            "weapons": [
                {"id": w.id, "name": w.name, "accuracy": w.accuracy, "damage": w.damage} for w in sheet.weapons
            ],
            "armor": [{"id": a.id, "name": a.name, "defense": a.defense} for a in sheet.armor],
            "hit_points": sheet.hit_points,
            "reputation": sheet.reputation,
            "notes": sheet.notes,
        }

    #: The ``schema`` strings of the older export format :meth:`read_legacy` reads.
    legacy_formats: Final = ("dicehall.character",)

    def fresh_problems(
        self, sheet: Sheet, options: Mapping[str, Any], *, campaign: str, rolls_verified: bool
    ) -> tuple[Problem, ...]:
        """What the campaign refuses in a sheet nobody vouches for, before its creation steps are
        checked: the ability method, rolled dice (unless ``rolls_verified``), the skill list."""
        return tuple(import_checks.fresh_problems(sheet, options, campaign=campaign, rolls_verified=rolls_verified))

    def afresh(self, sheet: Sheet, options: Mapping[str, Any], *, finished: bool) -> tuple[Sheet, tuple[str, ...]]:
        """The sheet with its played state started afresh (specializations at level 1, reputation
        0, hit points full, skills linked as the campaign links them), and what changed, in words."""
        fresh, changes = import_checks.afresh(sheet, options, finished=finished)
        return self.read_sheet(fresh.model_dump(mode="json")), tuple(changes)

    #: What travels with an export: the hit points per Pulse step its hit points were counted at, and
    #: the skill list (which skill fought there).
    carried_options: Final = arrival.CARRIED

    def differences(
        self, sheet: Sheet, options: Mapping[str, Any], origin: Mapping[str, Any] | None = None
    ) -> tuple[str, ...]:
        """Each skill matched to the campaign's by name (case and spacing aside): one of another spelling
        or link, one it does not have, one it has that the sheet lacks, and which skill fights here; hit
        points counted at another rate (:func:`rules.systems.lucky13.arrival.arrive`)."""
        return arrival.arrive(sheet, options, origin).words

    def mapped(
        self, sheet: Sheet, options: Mapping[str, Any], origin: Mapping[str, Any] | None = None
    ) -> tuple[Sheet, tuple[str, ...]]:
        """Each matched skill in the campaign's spelling and link, hit points counted at its rate."""
        taken = arrival.arrive(sheet, options, origin)
        return self.read_sheet(taken.sheet.model_dump(mode="json")), taken.changed

    def moved(self, sheet: Sheet) -> tuple[Sheet, tuple[str, ...]]:
        """A Lucky 13 sheet holds nothing of the campaign it is played in: it moves as it stands."""
        return sheet, ()

    def fresh_rules(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        """What a document nobody vouches for must fit in a campaign with these options, in words."""
        return import_checks.fresh_rules(options)

    def read_legacy(
        self, document: Mapping[str, Any], options: Mapping[str, Any], *, verify: Callable[[str, str], bool]
    ) -> LegacyRead:
        """A document of the format before the envelope (version 1), converted; ``SheetInvalid``
        names each bad field of the old document."""
        return legacy.read(document, options, verify=verify)


# --- Creation checks, each raising SheetError for the player -------------------------------------


def _check_abilities(sheet: Sheet, options: Mapping[str, Any]) -> None:
    dice = sheet.abilities.dice()
    missing = [key for key in ABILITY_KEYS if key not in dice]
    names = options.get("ability_names", ABILITIES)
    if missing:
        raise SheetError("abilities", without_a_die(missing, names))
    method = sheet.creation.ability_method
    if method == "random":
        expected = [ability_from_percentile(roll) for roll in sheet.creation.ability_rolls]
        if expected != [dice[key] for key in ABILITY_KEYS]:
            raise SheetError("abilities", "the ability dice must be the ones the server rolled")
    elif method in ("balanced", "specialized"):
        check_ability_array(method, dice, names)
    else:
        raise SheetError("ability_method", "choose how the abilities are made: rolled, or an array")


def _check_skills(sheet: Sheet, options: Mapping[str, Any]) -> None:
    empty = [skill.name for skill in sheet.skills if skill.die is None]
    if empty:
        raise SheetError("skills", f"give a die to each skill ({', '.join(empty)} has none)")
    dice = {skill.name: StepDie.parse(skill.die) for skill in sheet.skills if skill.die}
    if options["skill_method"] == "random":
        if any(s.rolled is None or ability_from_percentile(s.rolled).label != s.die for s in sheet.skills):
            raise SheetError("skills", "the skill dice must be the ones the server rolled")
        return
    campaign = {"skills": [{"name": s.name, "ability": s.ability} for s in sheet.skills]}
    check_skill_dice(options["skill_method"], {**options, **campaign}, sheet.abilities.dice(), dice)


def _check_specializations(sheet: Sheet, options: Mapping[str, Any]) -> None:
    taken = [spec for skill in sheet.skills for spec in skill.specializations]
    allowed = specialization_allowance(options, impairment=sheet.creation.took_impairment)
    if len(taken) > allowed:
        raise SheetError("specializations", f"choose at most {allowed} starting specializations")
    if any(spec.level != 1 for spec in taken):
        raise SheetError("specializations", "starting specializations are at level 1")


def _check_traits(sheet: Sheet, options: Mapping[str, Any]) -> None:
    if sheet.creation.took_impairment and not any(t.kind == "impairment" for t in sheet.traits):
        raise SheetError("traits", "describe the impairment you took for the extra specialization")


# --- Edits -------------------------------------------------------------------------------------


def _only_renamed(sheet: Sheet, skills: Any) -> None:
    """A player may rename specializations but not add, remove or level them (issue 3)."""
    try:
        levels = Counter((s["id"], p["id"], p.get("level", 1)) for s in skills for p in s.get("specializations", ()))
    except (TypeError, KeyError, AttributeError):
        raise _invalid("skills", "list the skills, each with its specializations") from None
    before = Counter((s.id, p.id, p.level) for s in sheet.skills for p in s.specializations)
    if levels != before:
        raise EditRefused(
            "specializations",
            "only the GM can add or remove specializations or change their levels; you can rename them",
        )


def _only_specializations_changed(before: Sheet, after: Sheet) -> None:
    def bare(sheet: Sheet) -> list[dict[str, Any]]:
        return [s.model_dump(exclude={"specializations"}) for s in sheet.skills]

    if bare(before) != bare(after):
        raise _invalid("skills", "only the specializations change here; skill dice are a section of their own")
    for skill in after.skills:
        if any(p.level > MAX_SPECIALIZATION_LEVEL for p in skill.specializations):
            raise _invalid("skills", f"specializations stop at level {MAX_SPECIALIZATION_LEVEL}")


def _impairment_stays(before: Sheet, after: Sheet) -> None:
    """ "Impairments": one taken at creation for an extra specialization stays on the sheet; only
    the GM removes the last one."""

    def impaired(sheet: Sheet) -> bool:
        return any(trait.kind == "impairment" for trait in sheet.traits)

    if before.creation.took_impairment and impaired(before) and not impaired(after):
        raise _invalid(
            "traits",
            "you took an impairment for an extra specialization, so one stays on the sheet; "
            "only the GM can remove the last one",
        )


def _skill_of(
    sheet: Sheet, situation: Mapping[str, Any], *, required: bool = True
) -> tuple[Skill | None, Specialization | None]:
    """The skill (and specialization) a situation names by id; a specialization must be of the
    skill when both are named."""
    spec_id = situation.get("specialization")
    skill_id = situation.get("skill")
    if spec_id is not None:
        found = sheet.specialization(spec_id) if _is_id(spec_id) else None
        if found is None or (skill_id is not None and found[0].id != skill_id):
            raise SpecError("specialization", "the sheet has no such specialization of this skill")
        return found
    if skill_id is None and not required:
        return None, None
    skill = sheet.skill(skill_id) if _is_id(skill_id) else None
    if skill is None:
        raise SpecError("skill", "the sheet has no such skill")
    return skill, None


def _what_counts(item: Asset | Weapon | Armor) -> tuple[Any, ...]:
    """What of an item changes the dice (a rename or a description does not)."""
    if isinstance(item, Asset):
        return (item.kind, item.level, item.skills)
    if isinstance(item, Weapon):
        return (item.accuracy, item.damage)
    return (item.defense,)


def _needs_approval(item: Asset | Weapon | Armor) -> bool:
    """A weapon, an armor or an asset above level 1 ("Equipment / assets"; the GM's calls)."""
    return not isinstance(item, Asset) or item.level > 1


def gear_approval(before: Sheet, after: Sheet, *, role: Role, options: Mapping[str, Any]) -> Sheet:
    """The equipment after an edit, each item approved or waiting for the GM. The GM's save approves
    everything in the section. A player's new item, or one whose dice the player changed, waits when it
    needs approval (a weapon, an armor, an asset above level 1), unless the campaign lets players add
    gear freely; an item the player left as it was keeps its state (a rename keeps an approval)."""
    if role is Role.GM or options.get("gear") == "free":
        approve = {"assets": after.assets, "weapons": after.weapons, "armor": after.armor}
        return after.model_copy(update={k: tuple(i.model_copy(update={"approved": True}) for i in v)
                                        for k, v in approve.items()})  # fmt: skip
    update = {}
    for field in ("assets", "weapons", "armor"):
        old = {item.id: item for item in getattr(before, field)}
        items = []
        for item in getattr(after, field):
            was = old.get(item.id)
            if was is not None and _what_counts(was) == _what_counts(item):
                approved = was.approved
            else:
                approved = not _needs_approval(item)
            items.append(item.model_copy(update={"approved": approved}))
        update[field] = tuple(items)
    return after.model_copy(update=update)


def _opposed(situation: Mapping[str, Any]) -> bool:
    return situation.get("opponent") is not None or bool(situation.get("opponent_dice"))


def _is_id(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _asset_of(sheet: Sheet, skill: Skill | None, situation: Mapping[str, Any]) -> Asset | None:
    """ "Equipment / assets": only an asset that lists the skill steps it."""
    asset_id = situation.get("asset")
    if asset_id is None:
        return None
    asset = next((a for a in sheet.assets if a.id == asset_id), None) if _is_id(asset_id) else None
    if asset is None or skill is None or skill.id not in asset.skills:
        raise SpecError("asset", f"choose an asset that helps {skill.name if skill else 'the skill'}")
    return asset


def _item(items: Any, item_id: Any, field: str, missing: str) -> Any:
    """The item of a sheet ``item_id`` names (by its id), or :class:`SpecError` on ``field``."""
    found = next((i for i in items if i.id == item_id), None) if _is_id(item_id) else None
    if found is None:
        raise SpecError(field, missing)
    return found


#: Who resists in a contest (README, "Contests outside combat"), and so who a draw goes to.
RESISTS: Final = {"them": Draw.DEFENDER, "us": Draw.ATTACKER, "neither": Draw.NONE}
#: The other side's parts only a character's sheet can give.
_SHEET_ONLY: Final = ("opponent_specialization", "opponent_asset", "opponent_helper", "opponent_npc_helper")


def _helper_die(
    helper: Other[Sheet], skill: Skill, ability_key: str, help_with: str, options: Mapping[str, Any]
) -> StepDie:
    """ "Characters assisting characters": the helper's die in what they help with: their skill of the
    same name, or their die of the same ability, as they would roll it (a wounded helper's Pulse is
    the current Pulse die: README, "Wounded Pulse")."""
    theirs: Sheet = helper.sheet
    if help_with == "skill":
        same = next((s for s in theirs.skills if s.name.casefold() == skill.name.casefold()), None)
        if same is None or same.die is None:
            raise SpecError("help_with", f"{helper.name} has no {skill.name} skill to help with")
        return StepDie.parse(same.die)
    if not getattr(theirs.abilities, ability_key):
        return StepDie.none()
    return rolled_ability(theirs, ability_key, options)


def _npc_helper(situation: Mapping[str, Any]) -> tuple[str, StepDie]:
    """ "Characters assisting characters": "When a PC or NPC assists". Outside a fight an NPC has no
    sheet: the GM names it (``npc_helper``) and its die in what it helps with (``npc_helper_die``,
    d4 … d12)."""
    name = situation.get("npc_helper")
    if not isinstance(name, str) or not name.strip():
        raise SpecError("npc_helper", "name the NPC who helps")
    dice = {StepDie(rung).label: StepDie(rung) for rung in range(1, len(BASE_SIZES) + 1)}
    given = situation.get("npc_helper_die")
    die = dice.get(given) if isinstance(given, str) else None
    if die is None:
        raise SpecError("npc_helper_die", f"give {name.strip()}'s die in what they help with (d4 … d12)")
    return name.strip(), die


def _assist_of(situation: Mapping[str, Any]) -> tuple[StepDie | None, str, str]:
    """The helper's die, what it helps with (the skill or the ability) and the helper's name."""
    assist = situation.get("assist")
    if assist is None:
        return None, "skill", ""
    if not isinstance(assist, Mapping):
        raise SpecError("assist", "name the helper's die and what it helps with")
    target = assist.get("with", "skill")
    if target not in ("skill", "ability"):
        raise SpecError("help_with", "a helper helps with the skill or with the ability")
    die = parse_die(assist, "die")
    return die, target, str(assist.get("name", ""))


def _difficulty_words(situation: Mapping[str, Any]) -> str:
    value = situation.get("difficulty")
    if isinstance(value, str) and value.strip().lower() in Difficulty.__members__.values():
        return value.strip().capitalize()
    try:
        return f"a {StepDie.parse(value).label} Difficulty die"
    except (DiceError, TypeError):
        return str(value)


def _ability_names(options: Mapping[str, Any]) -> dict[str, str]:
    """The campaign's names for the five abilities, by key."""
    return dict(zip(ABILITY_KEYS, options["ability_names"], strict=True))


def _with_specs(skill: Skill, specializations: tuple[Specialization, ...]) -> Skill:
    return skill.model_copy(update={"specializations": specializations})


def _replace_skill(sheet: Sheet, old: Skill, new: Skill) -> Sheet:
    return sheet.model_copy(update={"skills": tuple(new if s.id == old.id else s for s in sheet.skills)})


SYSTEM: Final = Lucky13()


def _down(sheet: Sheet) -> Condition | None:
    """Whether a finished character is dying or dead ("Death & dying"); None for one who is up, or a draft."""
    if sheet.creation.step or sheet.abilities.pulse is None or sheet.hit_points is None:
        return None
    state = condition(sheet.hit_points, StepDie.parse(sheet.abilities.pulse))
    return None if state is Condition.UP else state


def _not_down(sheet: Sheet, pulse: str) -> None:
    """README, "Dying and dead characters": "nothing bought with points raises them … A purchase of
    Pulse by a dying or dead character is refused" (a larger Pulse would bring a row of hit points and
    push death further off). :class:`SpecError` on ``hit_points``: the sheet cannot take it now."""
    state = _down(sheet)
    if state is not None:
        raise SpecError(
            "hit_points",
            f"the character is {state.value}: Adventure Points buy training, not healing, so {pulse} cannot be "
            "raised until they are healed above 0 hit points"
            if state is Condition.DYING
            else f"the character is dead: Adventure Points buy training, not healing, so {pulse} cannot be raised",
        )


def able(sheet: Sheet, options: Mapping[str, Any]) -> None:
    """ "Death & dying": a finished character at 0 hit points or fewer is dying (or dead) and does not
    act, so makes no check (README: "a dying or dead character does not act"); :class:`SpecError`
    says why. A draft has no hit points yet and is not held to it."""
    if sheet.creation.step or sheet.abilities.pulse is None:
        return
    assert sheet.hit_points is not None  # a finished character has its hit points (sheet.incomplete)
    state = condition(sheet.hit_points, StepDie.parse(sheet.abilities.pulse))
    if state is Condition.DYING:
        raise SpecError("hit_points", "the character is dying: at 0 hit points or fewer a character does not act")
    if state is Condition.DEAD:
        raise SpecError("hit_points", "the character is dead")


def rolled_ability(sheet: Sheet, key: str, options: Mapping[str, Any]) -> StepDie:
    """The die a check rolls for the ability ``key``: the sheet's, but for Pulse while wounded, the
    current Pulse die, the step the remaining hit points reach ("Hit points": "as your hit points are
    depleted, your Pulse temporarily goes down as well"; README, Wounded Pulse)."""
    die = sheet.abilities.dice().get(key)
    if die is None:  # a draft whose abilities are not set yet rolls nothing
        raise SpecError("ability", "this character has no abilities yet: they are set in creation")
    if key != "pulse" or sheet.creation.step:
        return die
    per_step = int(options["hit_points_per_step"])
    assert sheet.hit_points is not None  # a finished character has its hit points (sheet.incomplete)
    if sheet.hit_points >= max_hit_points(die, per_step):
        return die  # unhurt
    now = current_pulse(sheet.hit_points, per_step)
    return now if 0 < now.rung < die.rung else die
