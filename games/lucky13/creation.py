"""Creating a Lucky 13 character, step by step, as the rule text orders it.

A draft is a character (status draft) whose sheet document its system started
(``new_draft``); each step is a keyword-only, atomic operation: it locks the draft, checks the
version the page was made from, changes the document, checks it with the system
(``check_step``, ``roll_step`` for the server's d100s) and saves it through the one write
path (:mod:`characters.write`), moving the draft's progress (``sheet.creation.step``) on. A
draft can be left at any step and finished later; nothing a player chose is lost when they go
back to an earlier step, and every item keeps its id when a step is saved again.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Final

from django.db import transaction

from campaigns.models import Campaign, Membership
from characters import creation_dice, write
from characters.models import Character
from rules import systems
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.base import Role, SheetInvalid
from rules.systems.lucky13 import SheetError
from rules.systems.lucky13.system import gear_approval

#: The steps after name and concept, in order (the system's own list).
STEPS: Final = tuple((step.key, step.label) for step in lucky13.SYSTEM.creation_steps)
STEP_KEYS: Final = tuple(key for key, _ in STEPS)
#: The fields a step's checks report at: a step is refused only for what it itself decides.
STEP_FIELDS: Final = {
    "abilities": frozenset({"abilities", "ability_method", "array"}),
    "skills": frozenset({"skills", "skill_method"}),
    "specializations": frozenset({"specializations"}),
    "traits": frozenset({"traits"}),
    "equipment": frozenset({"assets", "weapons", "armor"}),
}
TRAIT_KINDS: Final = (("background", "Background"), ("impairment", "Impairment"))
ASSET_KINDS: Final = (("thing", "Thing"), ("person", "Person"))

MAX_ROWS = 20
#: Limits on what players type, shared by creation, sheet editing and import.
MAX_CONCEPT: Final = 200
MAX_DESCRIPTION: Final = 2000
MAX_NOTES: Final = 20_000

#: How a refused part of the document is named in a message.
_NOUNS: Final = {
    "concept": "the concept",
    "abilities": "each ability",
    "skills": "each skill and specialization",
    "traits": "each background and impairment",
    "assets": "each asset",
    "weapons": "each weapon",
    "armor": "each piece of armor",
}


def clean_description(text: str) -> str:
    text = text.strip()
    if len(text) > MAX_DESCRIPTION:
        raise SheetError("description", f"keep descriptions under {MAX_DESCRIPTION} characters")
    return text


class StaleDraft(SheetError):
    """The draft changed (another tab, or the GM helping) since the page was shown."""


def _refusal(error: SheetInvalid, field: str) -> SheetError:
    """The system's refusal of a document as the step's error, its first problem said for a player."""
    problem = error.problems[0] if error.problems else None
    if problem is None:
        return SheetError(field, "the draft is not valid")
    parts = problem.field.split(".")
    top = parts[0] if parts[0] in _NOUNS else field
    message = problem.message  # in words already (rules.document.plain_words): "must be at most 60 characters"
    if message.startswith(("must", "should", "needs", "is ")):
        part = parts[-1] if len(parts) > 1 and not parts[-1].isdecimal() else ""
        message = f"{_NOUNS.get(top, 'the draft')}{f' {part}' if part and part != top else ''} {message}"
    return SheetError(top, message)


def _read(character: Character, document: Mapping[str, Any], field: str) -> Any:
    """A document of the draft's system, validated whole (refusals as :class:`SheetError`)."""
    try:
        return character.rules.read_sheet(document)
    except SheetInvalid as error:
        raise _refusal(error, field) from None


def _dump(sheet: Any) -> dict[str, Any]:
    return sheet.model_dump(mode="json")


def _locked(character_id: int, version: int | None = None) -> Character:
    """The draft, locked; with ``version``, only if nobody saved it since that version."""
    character = write.lock(character_id)
    if character.status != Character.Status.DRAFT:
        raise SheetError("status", "this character is already finished; edit it on its sheet")
    if version is not None and write.is_stale(character, version):
        raise StaleDraft(
            "version",
            "this draft was saved somewhere else (another tab, or your GM) since you opened this page, so nothing "
            "was saved. What you entered is still below: save again to keep it, or open the step afresh to see the "
            "draft as it is",
        )
    return character


def _following(current: str, done: str) -> str:
    """Progress after ``done``: the next step unless the draft already went further."""
    following = STEP_KEYS[min(STEP_KEYS.index(done) + 1, len(STEP_KEYS) - 1)]
    if current in STEP_KEYS and STEP_KEYS.index(current) >= STEP_KEYS.index(following):
        return current
    return following


def _check(character: Character, sheet: Any, step: str) -> None:
    """The system's check of ``step``: the first problem of this step (all of them at review)."""
    problems = character.rules.check_step(sheet, step, character.campaign.settings)
    if step != "review":
        problems = tuple(p for p in problems if p.field.split(".")[0] in STEP_FIELDS[step])
    if problems:
        raise SheetError(problems[0].field.split(".")[0], problems[0].message)


def _save(
    character: Character,
    sheet: Any,
    *,
    step: str,
    by: Any,
    what: str,
    sections: Sequence[str] = (),
    advance: bool = True,
) -> Character:
    """The step's sheet through the write path, with the draft's progress moved on (unless the
    change does not finish the step: ``advance=False``)."""
    document = _dump(sheet)
    if advance:
        document["creation"]["step"] = _following(sheet.creation.step, step)
    saved = _read(character, document, step)
    try:
        return write.write(character, saved, by=by, what=what, sections=sections)
    except SheetInvalid as error:
        raise _refusal(error, step) from None


def reached(character: Character, step: str) -> bool:
    """Whether the draft has got as far as ``step`` (earlier steps can be revisited)."""
    current = character.document.creation.step or STEP_KEYS[-1]
    return STEP_KEYS.index(step) <= STEP_KEYS.index(current)


@transaction.atomic
def start_character(*, campaign: Campaign, owner: Any, name: str, concept: str = "") -> Character:
    """Name and concept: the draft exists from here on, with the campaign's skills and no dice."""
    if campaign.archived_at:
        raise SheetError("campaign", "this campaign is archived; no new characters can join it")
    try:
        clean = lucky13.clean_name(name, "A character")
    except ValueError as error:
        raise SheetError("name", str(error)) from None
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in clean):  # what every sheet's names refuse (rules.document)
        raise SheetError("name", "keep the name on one line, without control characters")
    concept = " ".join(concept.split())
    if len(concept) > MAX_CONCEPT:
        raise SheetError("concept", f"keep the concept under {MAX_CONCEPT} characters")
    character = Character.objects.create(campaign=campaign, owner=owner, name=clean)
    character = write.lock(character.pk)
    rules = systems.get(campaign.system)
    sheet = _read(character, {**_dump(rules.new_draft(campaign.settings)), "concept": concept}, "concept")
    try:
        return write.write(character, sheet, by=owner, what="Started", sections=["details"])
    except SheetInvalid as error:
        raise _refusal(error, "concept") from None


def _methods(options: Mapping[str, Any]) -> set[str]:
    allowed = options["ability_methods"]
    return (
        {"random", "balanced", "specialized"}
        if allowed == "either"
        else ({"random"} if allowed == "random" else {"balanced", "specialized"})
    )


def allowed_ability_methods(options: Mapping[str, Any]) -> list[str]:
    return [m for m in ("random", "balanced", "specialized") if m in _methods(options)]


def _abilities(sheet: Any) -> dict[str, StepDie]:
    dice = sheet.abilities.dice()
    if len(dice) != len(lucky13.ABILITY_KEYS):
        raise SheetError("abilities", "choose the abilities first")
    return dice


def abilities_of(character: Character) -> dict[str, StepDie]:
    return _abilities(character.document)


def _with_abilities(character: Character, sheet: Any, dice: Mapping[str, StepDie], method: str) -> Any:
    document = _dump(sheet)
    document["abilities"] = {key: dice[key].label for key in lucky13.ABILITY_KEYS}
    document["creation"]["ability_method"] = method
    return _skills_follow_abilities(character, _read(character, document, "abilities"))


@transaction.atomic
def roll_abilities(*, version: int | None = None, character_id: int, rng: Random, by: Any = None) -> Character:
    """ "Random ability method": the server rolls d100 for each ability, in order; the rolls are kept."""
    character = _locked(character_id, version)
    options = character.campaign.settings
    if "random" not in _methods(options):
        raise SheetError("method", "this campaign uses the array method for abilities")
    sheet = character.document
    if sheet.creation.ability_method == "random":
        raise SheetError("method", "the abilities were rolled already; the rolls stand")
    rolled = creation_dice.roll_kept(
        character, "abilities", rng, lambda dice: character.rules.roll_step(sheet, "abilities", options, dice)
    )
    # Rolls already on record (a draft that went to an array since) stand: the system never rerolls.
    dice = lucky13.abilities_from_percentiles(rolled.creation.ability_rolls)
    rolled = _with_abilities(character, rolled, dice, "random")
    _check(character, rolled, "abilities")
    return _save(character, rolled, step="abilities", by=by, what="Rolled the abilities", sections=["abilities"])


@transaction.atomic
def assign_abilities(
    *, version: int | None = None, character_id: int, array: str, dice: Mapping[str, StepDie], by: Any = None
) -> Character:
    """ "Array method": balanced or specialized dice, one per ability."""
    character = _locked(character_id, version)
    options = character.campaign.settings
    if array not in ("balanced", "specialized"):
        raise SheetError("method", "choose the balanced or the specialized array")
    if array not in _methods(options):
        raise SheetError("method", "this campaign rolls abilities randomly")
    sheet = character.document
    if sheet.creation.ability_method == "random":
        raise SheetError("method", "the abilities were rolled already; the rolls stand")
    lucky13.check_ability_array(array, dice)  # before the dice go on the sheet: each is one of the array's
    assigned = _with_abilities(character, sheet, dice, array)
    _check(character, assigned, "abilities")
    what = f"Abilities: the {array} array"
    return _save(character, assigned, step="abilities", by=by, what=what, sections=["abilities"])


def _skills_follow_abilities(character: Character, sheet: Any) -> Any:
    """With skills "equal to the linked ability", skill dice already set follow new abilities."""
    options = character.campaign.settings
    if options["skill_method"] != "ability" or all(skill.die is None for skill in sheet.skills):
        return sheet
    synced = _campaign_skills(character, sheet)
    return _with_skill_dice(character, synced, _dice_by_ability(synced))


def _campaign_skills(character: Character, sheet: Any) -> Any:
    """The draft's skills as the campaign lists them now, in its order: a skill keeps its id, die,
    roll and specializations by name; a skill new to the list (every skill, for a draft that has
    none yet) gets a fresh id; one the campaign dropped stays only if something hangs on it."""
    listed = character.campaign.settings["skills"]
    by_name = {skill.name.casefold(): skill for skill in sheet.skills}
    new = [entry for entry in listed if entry["name"].casefold() not in by_name]
    sheet, fresh = sheet.with_ids(len(new))
    ids = dict(zip((entry["name"] for entry in new), fresh, strict=True))
    skills = []
    for entry in listed:
        old = by_name.pop(entry["name"].casefold(), None)
        kept = _dump(old) if old is not None else {"id": ids[entry["name"]]}
        skills.append({**kept, "name": entry["name"], "ability": entry["ability"]})
    helped = {skill_id for asset in sheet.assets for skill_id in asset.skills}
    skills += [_dump(skill) for skill in by_name.values() if skill.specializations or skill.id in helped]
    return _read(character, {**_dump(sheet), "skills": skills}, "skills")


def _dice_by_ability(sheet: Any) -> dict[int, StepDie]:
    """Skill method "equal to the linked ability": each skill's die is its ability's (d4 without one)."""
    abilities = _abilities(sheet)
    return {skill.id: abilities[skill.ability] if skill.ability else StepDie.of(4) for skill in sheet.skills}


def _with_skill_dice(character: Character, sheet: Any, dice: Mapping[int, StepDie]) -> Any:
    skills = [{**_dump(skill), "die": dice[skill.id].label} for skill in sheet.skills]
    return _read(character, {**_dump(sheet), "skills": skills}, "skills")


def _skill_id(sheet: Any, skill: str | int) -> int | None:
    """A skill of the draft named by its id or by its name (any case, spaces collapsed)."""
    if isinstance(skill, int) and not isinstance(skill, bool):
        return skill if sheet.skill(skill) is not None else None
    name = " ".join(str(skill).split()).casefold()
    return next((s.id for s in sheet.skills if s.name.casefold() == name), None)


def skills_for_step(character: Character) -> Any:
    """The draft's sheet with the skills the skills step works on (the campaign's, kept by name)."""
    return _campaign_skills(character, character.document)


@transaction.atomic
def set_skills(
    *,
    version: int | None = None,
    character_id: int,
    dice: Mapping[str | int, StepDie] | None = None,
    rng: Random | None = None,
    by: Any = None,
) -> Character:
    """Skill dice by the campaign's method: equal to the linked ability, an array, random, or point
    buy. ``dice`` names each skill by its name or its id."""
    character = _locked(character_id, version)
    options = character.campaign.settings
    abilities = _abilities(character.document)
    sheet = _campaign_skills(character, character.document)
    method = options["skill_method"]
    if method == "ability":
        sheet = _with_skill_dice(character, sheet, _dice_by_ability(sheet))
        what = "Skill dice from the abilities"
    elif method == "random":
        if rng is None:
            if any(skill.rolled is None for skill in sheet.skills):
                raise SheetError("skills", "roll for the skills")
        else:
            skills = sheet  # a roll on record stands; a deleted draft's rolls stand too
            sheet = creation_dice.roll_kept(
                character, "skills", rng, lambda dice: character.rules.roll_step(skills, "skills", options, dice)
            )
        what = "Rolled the skills"
    else:
        if dice is None:
            raise SheetError("skills", lucky13.skill_dice_allowed(method, options, abilities))
        if any(not StepDie.of(4) <= die <= lucky13.MAX_ABILITY for die in dice.values()):
            raise SheetError("skills", "skill dice run from d4 to d12")
        chosen = {_skill_id(sheet, key): die for key, die in dice.items()}
        if set(chosen) != {skill.id for skill in sheet.skills}:
            raise SheetError("skills", f"give a die to each skill: {', '.join(s.name for s in sheet.skills)}")
        sheet = _with_skill_dice(character, sheet, chosen)  # type: ignore[arg-type]
        what = "Skill dice"
    _check(character, sheet, "skills")
    return _save(character, sheet, step="skills", by=by, what=what, sections=["skills"])


@dataclass(frozen=True, slots=True)
class SpecializationChoice:
    skill: str | int  # the skill's name, or its id
    name: str


def _reused_ids(sheet: Any, old: Mapping[Hashable, int], keys: Sequence[Hashable]) -> tuple[Any, list[int]]:
    """An id for each of ``keys``: an item chosen again keeps its id, a new one gets a fresh id."""
    left = dict(old)
    reused = [left.pop(key, None) for key in keys]
    sheet, fresh = sheet.with_ids(reused.count(None))
    handed = iter(fresh)
    return sheet, [item_id if item_id is not None else next(handed) for item_id in reused]


@transaction.atomic
def set_specializations(
    *,
    version: int | None = None,
    character_id: int,
    choices: Sequence[SpecializationChoice],
    took_impairment: bool,
    by: Any = None,
) -> Character:
    """Starting specializations at level 1, as many as the campaign allows (+1 for an impairment)."""
    character = _locked(character_id, version)
    options = character.campaign.settings
    sheet = character.document
    if not sheet.skills or any(skill.die is None for skill in sheet.skills):
        raise SheetError("specializations", "set the skills first")
    allowance = lucky13.specialization_allowance(options, impairment=took_impairment)
    if len(choices) > allowance:
        extra = " (one more with an impairment)" if not took_impairment else ""
        raise SheetError("specializations", f"a new character starts with at most {allowance}{extra}")
    picked: list[tuple[int, str]] = []
    for choice in choices:
        name = lucky13.clean_name(choice.name, "Each specialization")
        skill_id = _skill_id(sheet, choice.skill)
        if skill_id is None:
            raise SheetError("specializations", f"choose one of this character's skills for {name}")
        if (skill_id, name.casefold()) in {(s, n.casefold()) for s, n in picked}:
            raise SheetError("specializations", f"{name} is listed twice under {sheet.skill(skill_id).name}")
        picked.append((skill_id, name))
    old = {(skill.id, spec.name.casefold()): spec.id for skill in sheet.skills for spec in skill.specializations}
    sheet, ids = _reused_ids(sheet, old, [(s, n.casefold()) for s, n in picked])
    skills = [
        {**_dump(skill), "specializations": [
            {"id": spec_id, "name": name, "level": 1} for (s, name), spec_id in zip(picked, ids, strict=True)
            if s == skill.id
        ]}
        for skill in sheet.skills
    ]  # fmt: skip
    document = {**_dump(sheet), "skills": skills}
    document["creation"]["took_impairment"] = took_impairment
    chosen = _read(character, document, "specializations")
    _check(character, chosen, "specializations")
    return _save(character, chosen, step="specializations", by=by, what="Specializations", sections=["skills"])


@dataclass(frozen=True, slots=True)
class TraitChoice:
    kind: str
    name: str
    description: str = ""


def _trait_rows(character: Character, traits: Sequence[TraitChoice]) -> list[dict[str, str]]:
    """Backgrounds and impairments as the player gave them, each checked; a trait named as an entry
    of the campaign's table of its kind and given no description takes the entry's ("choose from")."""
    if len(traits) > MAX_ROWS:
        raise SheetError("traits", f"at most {MAX_ROWS} backgrounds and impairments")
    options = character.campaign.settings
    rows = []
    for trait in traits:
        if trait.kind not in dict(TRAIT_KINDS):
            raise SheetError("traits", "a trait is a background or an impairment")
        name = lucky13.clean_name(trait.name, "Each background and impairment")
        description = clean_description(trait.description)
        entry = lucky13.table_entry(trait.kind, options, name)
        if entry is not None and not description:
            description = entry["description"]
        rows.append({"kind": trait.kind, "name": name, "description": description})
    return rows


def _with_traits(sheet: Any, rows: Sequence[Mapping[str, str]]) -> tuple[Any, dict[str, Any]]:
    """The document with ``rows`` as its traits: a trait given again (same kind and name) keeps its id."""
    old = {(t.kind, t.name.casefold()): t.id for t in sheet.traits}
    sheet, ids = _reused_ids(sheet, old, [(row["kind"], row["name"].casefold()) for row in rows])
    return sheet, {**_dump(sheet), "traits": [{"id": i, **row} for i, row in zip(ids, rows, strict=True)]}


@transaction.atomic
def set_traits(
    *, version: int | None = None, character_id: int, traits: Sequence[TraitChoice], by: Any = None
) -> Character:
    """Backgrounds and impairments: a name and a description each, chosen from the campaign's
    tables or invented (with the GM's approval, "Backgrounds")."""
    character = _locked(character_id, version)
    sheet = character.document
    rows = _trait_rows(character, traits)
    if sheet.creation.took_impairment and not any(row["kind"] == "impairment" for row in rows):
        raise SheetError(
            "traits",
            "you took an impairment for an extra specialization: describe it here, "
            "or go back and give up the extra specialization",
        )
    _, document = _with_traits(sheet, rows)
    chosen = _read(character, document, "traits")
    _check(character, chosen, "traits")
    return _save(character, chosen, step="traits", by=by, what="Backgrounds and impairments", sections=["traits"])


@transaction.atomic
def roll_on_table(
    *,
    version: int | None = None,
    character_id: int,
    kind: str,
    rng: Random,
    traits: Sequence[TraitChoice] | None = None,
    by: Any = None,
) -> Character:
    """A roll on the campaign's table of backgrounds or of impairments (``kind``): the server draws an
    entry (:func:`rules.systems.lucky13.roll_on_table`: uniform among the entries not on the sheet
    yet) and adds it as a trait, name and description; the roll is kept in the creation record
    (``creation.table_rolls``, pointing at the trait by its id), as the ability rolls are.

    ``traits`` are the step's rows as the page holds them (None: the draft's own), so that a roll
    loses nothing typed on the page: they are saved with the rolled trait, in one write. A roll does
    not finish the step (nor move the draft past it): an impairment owed for an extra specialization
    is asked for when the step is saved, as before. Rolling an impairment is not taking one for a
    specialization: that stays the player's tick at the specializations step."""
    character = _locked(character_id, version)
    if kind not in dict(TRAIT_KINDS):
        raise SheetError("kind", "a table is of backgrounds or of impairments")
    if not reached(character, "traits"):
        raise SheetError(f"{kind}_roll", "choose the specializations first")
    sheet = character.document
    if traits is None:
        rows = [{"kind": t.kind, "name": t.name, "description": t.description} for t in sheet.traits]
    else:
        rows = _trait_rows(character, traits)
    if len(rows) >= MAX_ROWS:
        raise SheetError(f"{kind}_roll", f"at most {MAX_ROWS} backgrounds and impairments: remove one to roll")
    if len(sheet.creation.table_rolls) >= lucky13.MAX_TABLE_ROLLS:
        raise SheetError(
            f"{kind}_roll",
            f"this draft has rolled on the tables {lucky13.MAX_TABLE_ROLLS} times, the most it keeps: choose instead",
        )
    taken = [row["name"] for row in rows if row["kind"] == kind]
    draw = lucky13.roll_on_table(kind, character.campaign.settings, taken, rng)
    rows.append({"kind": kind, "name": draw.name, "description": draw.description})
    sheet, document = _with_traits(sheet, rows)
    trait = document["traits"][-1]["id"]
    record = {"kind": kind, "roll": draw.number, "of": draw.of, "name": draw.name, "trait": trait}
    document["creation"]["table_rolls"] = [*document["creation"]["table_rolls"], record]
    rolled = _read(character, document, "traits")
    what = f"Rolled a {kind} on the table: {draw.number} of {draw.of}, {draw.name}"
    return _save(character, rolled, step="traits", by=by, what=what, sections=["traits"], advance=False)


@dataclass(frozen=True, slots=True)
class AssetChoice:
    name: str
    level: int
    kind: str = "thing"
    skills: tuple[str | int, ...] = ()  # each skill's name, or its id
    description: str = ""


@dataclass(frozen=True, slots=True)
class WeaponChoice:
    name: str
    accuracy: StepDie
    damage: StepDie


@dataclass(frozen=True, slots=True)
class ArmorChoice:
    name: str
    defense: StepDie


def check_die(die: StepDie, what: str) -> StepDie:
    if not StepDie.of(4) <= die <= lucky13.MAX_ABILITY:
        raise SheetError(what, f"{lucky13.indefinite(what)} {what} die is d4 … d12")
    return die


@transaction.atomic
def set_equipment(
    *,
    version: int | None = None,
    character_id: int,
    assets: Sequence[AssetChoice],
    weapons: Sequence[WeaponChoice],
    armor: Sequence[ArmorChoice],
    by: Any = None,
) -> Character:
    """Assets (level 1 Inferior … 5 Perfect, the skills each helps; a person can be one),
    weapons (accuracy and damage dice) and armor (a defensive die)."""
    character = _locked(character_id, version)
    sheet = character.document
    if max(len(assets), len(weapons), len(armor)) > MAX_ROWS:
        raise SheetError("equipment", f"at most {MAX_ROWS} of each")
    asset_rows = []
    for asset in assets:
        lucky13.check_level(asset.level, "asset level")
        helped = [_skill_id(sheet, skill) for skill in asset.skills]
        unknown = [skill for skill, found in zip(asset.skills, helped, strict=True) if found is None]
        named = [skill for skill in unknown if isinstance(skill, str)]
        if named:
            raise SheetError("assets", f"{', '.join(named)}: this character has no such skill")
        if unknown:  # by an id no skill of the sheet has: a page out of date, or a forged one
            raise SheetError("assets", "an asset helps only skills this character has: choose them from the list")
        if asset.kind not in dict(ASSET_KINDS):
            raise SheetError("assets", "an asset is a thing or a person")
        asset_rows.append({
            "name": lucky13.clean_name(asset.name, "Each asset"), "kind": asset.kind, "level": asset.level,
            "skills": list(dict.fromkeys(helped)), "description": clean_description(asset.description),
        })  # fmt: skip
    weapon_rows = [
        {
            "name": lucky13.clean_name(w.name, "Each weapon"),
            "accuracy": check_die(w.accuracy, "accuracy").label,
            "damage": check_die(w.damage, "damage").label,
        }
        for w in weapons
    ]
    armor_rows = [
        {"name": lucky13.clean_name(a.name, "Each armor"), "defense": check_die(a.defense, "defensive").label}
        for a in armor
    ]
    document = _dump(sheet)
    lists = (("assets", asset_rows, sheet.assets), ("weapons", weapon_rows, sheet.weapons))
    for field, rows, items in (*lists, ("armor", armor_rows, sheet.armor)):
        old = {item.name.casefold(): item.id for item in items}
        sheet, ids = _reused_ids(sheet, old, [row["name"].casefold() for row in rows])
        document[field] = [{"id": i, **row} for i, row in zip(ids, rows, strict=True)]
    document["next_id"] = sheet.next_id
    chosen = _read(character, document, "equipment")
    # A player's weapon, armor or asset above level 1 waits for the GM, as gear added in play does;
    # the GM's own choice is approved as it is made.
    gm = (
        by is None
        or Membership.objects.filter(campaign_id=character.campaign_id, user=by, role=Membership.Role.GM).exists()
    )
    chosen = gear_approval(sheet, chosen, role=Role.GM if gm else Role.OWNER, options=character.campaign.settings)
    _check(character, chosen, "equipment")
    sections = ["equipment"]
    return _save(character, chosen, step="equipment", by=by, what="Equipment", sections=sections)


@transaction.atomic
def finish(*, version: int | None = None, character_id: int, by: Any = None) -> Character:
    """Review done: the character joins the party at full hit points."""
    character = _locked(character_id, version)
    options = character.campaign.settings
    sheet = character.document
    _abilities(sheet)  # every ability has its die
    listed = {entry["name"].casefold() for entry in options["skills"]}
    if {skill.name.casefold() for skill in sheet.skills} != listed or any(s.die is None for s in sheet.skills):
        raise SheetError("skills", "set the skill dice first")
    # The whole draft once more: the skill dice must still fit the campaign's method with the
    # abilities as they are now, and an impairment taken for a specialization must be described.
    _check(character, sheet, "review")
    if not reached(character, "review"):
        raise SheetError("review", "go through every step first")
    try:
        finished = character.rules.finish(sheet, options)
        return write.write(character, finished, by=by, what="Finished", status=Character.Status.ACTIVE)
    except SheetInvalid as error:
        raise _refusal(error, "review") from None
