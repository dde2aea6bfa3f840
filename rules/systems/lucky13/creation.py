"""Creating a Lucky 13 character: ability methods, skill dice by the campaign's method, the
starting specializations, and rolls on the campaign's tables of backgrounds and impairments
("Character creation", "Abilities", "Skills", "Backgrounds", "Impairments"); and each step of a
draft as a pure function, which :class:`~rules.systems.lucky13.system.Lucky13` runs behind the
creation protocol (``fill_step``, ``roll_at``, ``finish``)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Final

from pydantic import ValidationError

from rules.dice import DiceError, StepDie
from rules.document import problems_of
from rules.systems.lucky13.sheet import MAX_TABLE_ROLLS, Sheet
from rules.systems.lucky13.vocabulary import (
    ABILITIES,
    ABILITY_KEYS,
    MAX_ABILITY,
    TABLE_OPTIONS,
    SheetError,
    check_level,
    clean_name,
    indefinite,
)

#: "Array method": one die per ability. Specialized lists seven dice, of which five are used.
BALANCED_ARRAY: Final = tuple(StepDie.of(s) for s in (4, 6, 6, 8, 10))


SPECIALIZED_ARRAY: Final = tuple(StepDie.of(s) for s in (4, 4, 6, 6, 6, 10, 12))


def ability_from_percentile(roll: int) -> StepDie:
    """ "Random ability method": d100 01–20 d4, 21–40 d6, 41–60 d8, 61–80 d10, 81–00 d12 (00 is 100)."""
    if not 1 <= roll <= 100:
        raise ValueError("a percentile roll is 1 … 100")
    return StepDie((roll - 1) // 20 + 1)


def abilities_from_percentiles(rolls: Sequence[int]) -> dict[str, StepDie]:
    """ "Random ability method": one d100 per ability, in order (Will, Charm, Pulse, Intellect, Reflex)."""
    if len(rolls) != len(ABILITY_KEYS):
        raise SheetError("abilities", "roll once for each of the five abilities")
    return {key: ability_from_percentile(roll) for key, roll in zip(ABILITY_KEYS, rolls, strict=True)}


def without_a_die(missing: Sequence[str], names: Sequence[str] = ABILITIES) -> str:
    """The abilities (by key) that have no die yet, said with the campaign's names for them."""
    named = dict(zip(ABILITY_KEYS, names, strict=True))
    said = [named[key] for key in missing]
    listed = said[0] if len(said) == 1 else f"{', '.join(said[:-1])} and {said[-1]}"
    return f"give every ability a die ({listed} {'has' if len(said) == 1 else 'have'} none)"


def check_ability_array(array: str, dice: Mapping[str, StepDie], names: Sequence[str] = ABILITIES) -> None:
    """ "Array method": balanced gives each ability one of d4 d6 d6 d8 d10; specialized
    assigns five of the seven dice d4 d4 d6 d6 d6 d10 d12, one per ability. ``names`` are the
    campaign's names of the five abilities, for the message."""
    pool = {"balanced": BALANCED_ARRAY, "specialized": SPECIALIZED_ARRAY}.get(array)
    if pool is None:
        raise SheetError("array", "choose the balanced or the specialized array")
    missing = [key for key in ABILITY_KEYS if key not in dice]
    if missing:
        raise SheetError("abilities", without_a_die(missing, names))
    left = Counter(pool)
    left.subtract(dice[key] for key in ABILITY_KEYS)
    overused = sorted({d.label for d, n in left.items() if n < 0}, key=lambda label: StepDie.parse(label))
    if overused:
        shown = " ".join(d.label for d in pool)
        raise SheetError("abilities", f"the {array} array is {shown}: too many {', '.join(overused)}")


def skill_point_cost(die: StepDie) -> int:
    """ "Skills" leaves the point buy's prices to the GM; ours: d4 costs 1, d6 2, d8 3, d10 4, d12 5
    (a die's step on the ladder), against the campaign's ``skill_points``."""
    return die.rung


def skill_dice_allowed(method: str, options: Mapping[str, Any], abilities: Mapping[str, StepDie]) -> str:
    """What a player may choose for skill dice under the campaign's method, said for a player."""
    return {
        "ability": "each skill's die is its linked ability's die (d4 for a skill with no linked ability)",
        "array": f"assign the dice {' '.join(options['skill_array'])}, one per skill",
        "random": "the server rolls d100 for each skill, as for abilities",
        "point_buy": f"spend up to {options['skill_points']} points: d4 costs 1, d6 2, d8 3, d10 4, d12 5",
    }[method]


def skill_dice_by_ability(skills: Sequence[Mapping[str, Any]], abilities: Mapping[str, StepDie]) -> dict[str, StepDie]:
    """Skill method "equal to the linked ability" (Top Secret NWO's way, "Skills")."""
    return {s["name"]: abilities[s["ability"]] if s["ability"] else StepDie.of(4) for s in skills}


def check_skill_dice(
    method: str, options: Mapping[str, Any], abilities: Mapping[str, StepDie], dice: Mapping[str, StepDie]
) -> None:
    """The skill dice a player chose, against the campaign's skill method."""
    skills = options["skills"]
    names = [s["name"] for s in skills]
    if sorted(dice) != sorted(names):
        raise SheetError("skills", f"give a die to each skill: {', '.join(names)}")
    if any(not StepDie.of(4) <= d <= MAX_ABILITY for d in dice.values()):
        raise SheetError("skills", "skill dice run from d4 to d12")
    if method == "ability":
        expected = skill_dice_by_ability(skills, abilities)
        wrong = [name for name in names if dice[name] != expected[name]]
        if wrong:
            raise SheetError("skills", f"{', '.join(wrong)}: {skill_dice_allowed(method, options, abilities)}")
    elif method == "array":
        left = Counter(StepDie.parse(label) for label in options["skill_array"])
        left.subtract(dice.values())
        if any(n < 0 for n in left.values()):
            raise SheetError("skills", skill_dice_allowed(method, options, abilities))
    elif method == "point_buy":
        spent = sum(skill_point_cost(d) for d in dice.values())
        if spent > options["skill_points"]:
            raise SheetError("skills", f"those dice cost {spent} points; the budget is {options['skill_points']}")
    elif method != "random":  # random dice come from the server's rolls, never from the player
        raise SheetError("skill_method", "this campaign's way of setting skill dice is not one this server knows")


def skill_dice_over(method: str, options: Mapping[str, Any], abilities: Mapping[str, StepDie],
                    dice: Mapping[str, StepDie]) -> str | None:  # fmt: skip
    """What the skill dice chosen so far already break, whatever the dice still to choose: a point buy
    over its budget (no die costs less than nothing), an array's die used more often than it holds; or
    None. Said while some skills have no die yet, so that the player hears it with them."""
    if method == "point_buy":
        spent = sum(skill_point_cost(d) for d in dice.values())
        if spent > options["skill_points"]:
            return f"those dice cost {spent} points already; the budget is {options['skill_points']}"
    elif method == "array":
        left = Counter(StepDie.parse(label) for label in options["skill_array"])
        left.subtract(dice.values())
        if any(n < 0 for n in left.values()):
            return skill_dice_allowed(method, options, abilities)
    return None


def specialization_allowance(options: Mapping[str, Any], *, impairment: bool) -> int:
    """ "Impairments": a player who takes one may select one additional specialization."""
    return options["starting_specializations"] + (1 if impairment else 0)


@dataclass(frozen=True, slots=True)
class TableDraw:
    """An entry drawn from a campaign's table: its place in the table (``number`` of ``of``), its
    name and its description, and among how many entries not yet taken it was drawn."""

    kind: str
    number: int
    of: int
    name: str
    description: str
    among: int

    @property
    def said(self) -> str:
        """ "Rolled 7 of 20: Smuggler"."""
        return f"Rolled {self.number} of {self.of}: {self.name}"


def roll_on_table(kind: str, options: Mapping[str, Any], taken: Collection[str], rng: Random) -> TableDraw:
    """A roll on the campaign's table of ``kind`` (background or impairment), with the injected ``rng``.

    "Backgrounds": "20 backgrounds that players may roll for or choose from during character
    creation"; "Impairments": "either rolled for or selected during character creation". The text
    gives neither table nor die, so the campaign keeps its own table (``background_table``,
    ``impairment_table``) and the roll is uniform among its entries. Our reading: a character has
    no trait twice, so an entry already ``taken`` (its name, case aside, on the sheet as that kind)
    is rolled again, which is the same as drawing uniformly among the entries not yet taken; when
    every entry is taken there is nothing to roll (:class:`SheetError`, said for the player)."""
    option = TABLE_OPTIONS.get(kind)
    if option is None:
        raise SheetError("kind", "a table is of backgrounds or of impairments")
    table = options.get(option) or []
    if not table:
        raise SheetError(f"{kind}_roll", f"this campaign has no table of {kind}s: choose or invent one instead")
    names = {name.casefold() for name in taken}
    left = [number for number, entry in enumerate(table, 1) if entry["name"].casefold() not in names]
    if not left:
        raise SheetError(
            f"{kind}_roll",
            f"every {kind} of the campaign's table ({len(table)}) is on this character already, so there is "
            f"nothing left to roll: invent one with your GM's approval instead",
        )
    number = left[rng.randrange(len(left))]
    entry = table[number - 1]
    return TableDraw(kind, number, len(table), entry["name"], entry.get("description", ""), len(left))


def table_entry(kind: str, options: Mapping[str, Any], name: str) -> Mapping[str, Any] | None:
    """The entry of the campaign's table of ``kind`` with this name (case and spaces aside), if any:
    a trait chosen from the table by its name takes the entry's description."""
    wanted = " ".join(name.split()).casefold()
    table = options.get(TABLE_OPTIONS.get(kind, ""), None) or []
    return next((entry for entry in table if entry["name"].casefold() == wanted), None)


# --- The steps of a draft, as the creation protocol takes them -------------------------------------
#
# What a player gives at each step, as JSON (``Lucky13.fill_step``); every function below is pure: it
# takes the draft and gives the new draft, or :class:`SheetError` at the field the page shows it by.
#
# - abilities: ``{"ability_method": "balanced" | "specialized", "abilities": {"will": "d6", …}}``
#   (nothing, once the server rolled them);
# - skills: ``{"skills": {"<skill id or name>": "d8", …}}`` with an array or a point buy (nothing
#   when the skill dice are the abilities' or the server's);
# - specializations: ``{"specializations": [{"skill": <id or name>, "name": …}], "took_impairment": …}``;
# - traits: ``{"traits": [{"kind": "background" | "impairment", "name": …, "description": …}]}``;
# - equipment: ``{"assets": [{"name", "kind", "level", "skills", "description"}], "weapons": [{"name",
#   "accuracy", "damage"}], "armor": [{"name", "defense"}]}``.
#
# An item given again (the same name, and kind for a trait) keeps its id; a new one gets a fresh id.

#: At most this many rows of each list a player gives at a step.
MAX_ROWS: Final = 20
#: Limits on what players type, shared by creation, sheet editing and import.
MAX_CONCEPT: Final = 200
MAX_DESCRIPTION: Final = 2000
TRAIT_KINDS: Final = (("background", "Background"), ("impairment", "Impairment"))
ASSET_KINDS: Final = (("thing", "Thing"), ("person", "Person"))

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


def _read(document: Mapping[str, Any], field: str) -> Sheet:
    """A document validated whole as a sheet; its first problem said for a player, at ``field`` unless
    it is about a part of the sheet a message can name."""
    try:
        return Sheet.model_validate(document)
    except ValidationError as error:
        problems = problems_of(error)
    problem = problems[0] if problems else None
    if problem is None:
        raise SheetError(field, "the draft is not valid")
    parts = problem.field.split(".")
    top = parts[0] if parts[0] in _NOUNS else field
    message = problem.message  # in words already (rules.document.plain_words): "must be at most 60 characters"
    if message.startswith(("must", "should", "needs", "is ")):
        part = parts[-1] if len(parts) > 1 and not parts[-1].isdecimal() else ""
        message = f"{_NOUNS.get(top, 'the draft')}{f' {part}' if part and part != top else ''} {message}"
    raise SheetError(top, message)


def _dump(model: Any) -> dict[str, Any]:
    return dict(model.model_dump(mode="json"))


def clean_name_of(value: Any, what: str, field: str) -> str:
    """A name a player typed, read as every sheet reads names; :class:`SheetError` at ``field``."""
    try:
        name = clean_name(value, what)
    except ValueError as error:
        raise SheetError(field, str(error)) from None
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in name):  # what every sheet's names refuse (rules.document)
        raise SheetError(field, "keep the name on one line, without control characters")
    return name


def clean_concept(value: Any) -> str:
    """ "Character creation": a one-line concept, given with the name (optional)."""
    concept = " ".join(str(value or "").split())
    if len(concept) > MAX_CONCEPT:
        raise SheetError("concept", f"keep the concept under {MAX_CONCEPT} characters")
    return concept


def clean_description(text: Any) -> str:
    text = str(text or "").strip()
    if len(text) > MAX_DESCRIPTION:
        raise SheetError("description", f"keep descriptions under {MAX_DESCRIPTION} characters")
    return text


def _die(label: Any, what: str, field: str) -> StepDie:
    """A die of the sheet, d4 … d12, given by its label."""
    try:
        die = StepDie.parse(str(label))
    except DiceError:
        raise SheetError(field, f"{indefinite(what)} {what} die is d4 … d12") from None
    if not StepDie.of(4) <= die <= MAX_ABILITY:
        raise SheetError(field, f"{indefinite(what)} {what} die is d4 … d12")
    return die


def _rows(value: Mapping[str, Any], key: str, field: str) -> list[Mapping[str, Any]]:
    rows = value.get(key, [])
    if not isinstance(rows, list | tuple) or not all(isinstance(row, Mapping) for row in rows):
        raise SheetError(field, f"give the {key} as a list")
    if len(rows) > MAX_ROWS:
        raise SheetError(field, f"at most {MAX_ROWS} of each")
    return list(rows)


def ability_methods(options: Mapping[str, Any]) -> tuple[str, ...]:
    """ "Determining ability scores": the methods the campaign's GM allows (option ``ability_methods``)."""
    allowed = options["ability_methods"]
    if allowed == "either":
        return ("random", "balanced", "specialized")
    return ("random",) if allowed == "random" else ("balanced", "specialized")


def abilities_of(sheet: Sheet) -> dict[str, StepDie]:
    """The draft's ability dice, every ability with one; :class:`SheetError` before they are chosen."""
    dice = sheet.abilities.dice()
    if len(dice) != len(ABILITY_KEYS):
        raise SheetError("abilities", "choose the abilities first")
    return dice


def _with_abilities(sheet: Sheet, dice: Mapping[str, StepDie], method: str, options: Mapping[str, Any]) -> Sheet:
    document = _dump(sheet)
    document["abilities"] = {key: dice[key].label for key in ABILITY_KEYS}
    document["creation"]["ability_method"] = method
    return _skills_follow_abilities(_read(document, "abilities"), options)


def fill_abilities(sheet: Sheet, value: Mapping[str, Any], options: Mapping[str, Any]) -> Sheet:
    """ "Array method": balanced or specialized dice, one per ability; nothing to choose once rolled."""
    if sheet.creation.ability_method == "random" and not value:
        return sheet  # rolled: the rolls stand, and there is nothing to choose
    array = value.get("ability_method", "")
    if array not in ("balanced", "specialized"):
        raise SheetError("method", "choose the balanced or the specialized array")
    if array not in ability_methods(options):
        raise SheetError("method", "this campaign rolls abilities randomly")
    if sheet.creation.ability_method == "random":
        raise SheetError("method", "the abilities were rolled already; the rolls stand")
    given = value.get("abilities")
    if not isinstance(given, Mapping):
        raise SheetError("abilities", "give every ability a die")
    names = options.get("ability_names", ABILITIES)
    dice = {key: _die(given[key], name, key) for key, name in zip(ABILITY_KEYS, names, strict=True) if given.get(key)}
    check_ability_array(array, dice, names)  # before the dice go on the sheet: each is one of the array's
    return _with_abilities(sheet, dice, array, options)


def roll_abilities(sheet: Sheet, options: Mapping[str, Any], rolled: Sheet) -> Sheet:
    """ "Random ability method": the draft once ``rolled`` holds the server's d100s (rolls already on record
    stand: the rule text gives no reroll), with the dice they give and the skills that follow them."""
    if "random" not in ability_methods(options):
        raise SheetError("method", "this campaign uses the array method for abilities")
    if sheet.creation.ability_method == "random":
        raise SheetError("method", "the abilities were rolled already; the rolls stand")
    return _with_abilities(rolled, abilities_from_percentiles(rolled.creation.ability_rolls), "random", options)


def _skills_follow_abilities(sheet: Sheet, options: Mapping[str, Any]) -> Sheet:
    """With skills "equal to the linked ability", skill dice already set follow new abilities."""
    if options["skill_method"] != "ability" or all(skill.die is None for skill in sheet.skills):
        return sheet
    synced = campaign_skills(sheet, options)
    return _with_skill_dice(synced, _dice_by_ability(synced))


def campaign_skills(sheet: Sheet, options: Mapping[str, Any]) -> Sheet:
    """The draft's skills as the campaign lists them now, in its order: a skill keeps its id, die,
    roll and specializations by name; a skill new to the list (every skill, for a draft that has
    none yet) gets a fresh id; one the campaign dropped stays only if something hangs on it."""
    listed = options["skills"]
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
    return _read({**_dump(sheet), "skills": skills}, "skills")


def _dice_by_ability(sheet: Sheet) -> dict[int, StepDie]:
    """Skill method "equal to the linked ability": each skill's die is its ability's (d4 without one)."""
    abilities = abilities_of(sheet)
    return {skill.id: abilities[skill.ability] if skill.ability else StepDie.of(4) for skill in sheet.skills}


def _with_skill_dice(sheet: Sheet, dice: Mapping[int, StepDie]) -> Sheet:
    skills = [{**_dump(skill), "die": dice[skill.id].label} for skill in sheet.skills]
    return _read({**_dump(sheet), "skills": skills}, "skills")


def skill_id(sheet: Sheet, skill: Any) -> int | None:
    """A skill of the draft named by its id (a number, or its digits) or by its name (any case, spaces collapsed)."""
    if isinstance(skill, int) and not isinstance(skill, bool):
        return skill if sheet.skill(skill) is not None else None
    text = str(skill)
    if text.isascii() and text.isdecimal() and len(text) < 17:
        return int(text) if sheet.skill(int(text)) is not None else None
    name = " ".join(text.split()).casefold()
    return next((s.id for s in sheet.skills if s.name.casefold() == name), None)


def fill_skills(sheet: Sheet, value: Mapping[str, Any], options: Mapping[str, Any]) -> Sheet:
    """Skill dice by the campaign's method ("Skills"): equal to the linked ability, an array, random (the
    server's rolls, :func:`roll_skills`), or point buy."""
    abilities = abilities_of(sheet)
    sheet = campaign_skills(sheet, options)
    method = options["skill_method"]
    if method == "ability":
        return _with_skill_dice(sheet, _dice_by_ability(sheet))
    if method == "random":
        if any(skill.rolled is None for skill in sheet.skills):
            raise SheetError("skills", "roll for the skills")
        return sheet
    given = value.get("skills")
    if not isinstance(given, Mapping):
        raise SheetError("skills", skill_dice_allowed(method, options, abilities))
    chosen = {skill_id(sheet, key): _die(label, "skill", "skills") for key, label in given.items()}
    if set(chosen) != {skill.id for skill in sheet.skills}:
        raise SheetError("skills", f"give a die to each skill: {', '.join(s.name for s in sheet.skills)}")
    return _with_skill_dice(sheet, chosen)  # type: ignore[arg-type]


def roll_skills(sheet: Sheet, options: Mapping[str, Any], roll: Callable[[Sheet], Sheet]) -> Sheet:
    """The random skill method: the campaign's skills, each without a roll rolled by ``roll`` (a roll on
    record stands, a deleted draft's rolls too)."""
    abilities_of(sheet)
    return roll(campaign_skills(sheet, options))


def _reused_ids(sheet: Sheet, old: Mapping[Any, int], keys: Sequence[Any]) -> tuple[Sheet, list[int]]:
    """An id for each of ``keys``: an item chosen again keeps its id, a new one gets a fresh id."""
    left = dict(old)
    reused = [left.pop(key, None) for key in keys]
    sheet, fresh = sheet.with_ids(reused.count(None))
    handed = iter(fresh)
    return sheet, [item_id if item_id is not None else next(handed) for item_id in reused]


def fill_specializations(sheet: Sheet, value: Mapping[str, Any], options: Mapping[str, Any]) -> Sheet:
    """Starting specializations at level 1, as many as the campaign allows (+1 for an impairment)."""
    if not sheet.skills or any(skill.die is None for skill in sheet.skills):
        raise SheetError("specializations", "set the skills first")
    took = value.get("took_impairment", False) is True
    choices = _rows(value, "specializations", "specializations")
    allowance = specialization_allowance(options, impairment=took)
    if len(choices) > allowance:
        extra = " (one more with an impairment)" if not took else ""
        raise SheetError("specializations", f"a new character starts with at most {allowance}{extra}")
    picked: list[tuple[int, str]] = []
    for choice in choices:
        name = clean_name_of(choice.get("name"), "Each specialization", "specializations")
        found = skill_id(sheet, choice.get("skill", ""))
        if found is None:
            raise SheetError("specializations", f"choose one of this character's skills for {name}")
        if (found, name.casefold()) in {(s, n.casefold()) for s, n in picked}:
            raise SheetError("specializations", f"{name} is listed twice under {sheet.skill(found).name}")  # type: ignore[union-attr]
        picked.append((found, name))
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
    document["creation"]["took_impairment"] = took
    return _read(document, "specializations")


def _trait_rows(rows: Sequence[Mapping[str, Any]], options: Mapping[str, Any]) -> list[dict[str, str]]:
    """Backgrounds and impairments as the player gave them, each checked; a trait named as an entry
    of the campaign's table of its kind and given no description takes the entry's ("choose from")."""
    out = []
    for row in rows:
        kind = row.get("kind")
        if kind not in dict(TRAIT_KINDS):
            raise SheetError("traits", "a trait is a background or an impairment")
        name = clean_name_of(row.get("name"), "Each background and impairment", "traits")
        description = clean_description(row.get("description", ""))
        entry = table_entry(kind, options, name)
        if entry is not None and not description:
            description = entry["description"]
        out.append({"kind": kind, "name": name, "description": description})
    return out


def _with_traits(sheet: Sheet, rows: Sequence[Mapping[str, str]]) -> dict[str, Any]:
    """The document with ``rows`` as its traits: a trait given again (same kind and name) keeps its id."""
    old = {(t.kind, t.name.casefold()): t.id for t in sheet.traits}
    sheet, ids = _reused_ids(sheet, old, [(row["kind"], row["name"].casefold()) for row in rows])
    return {**_dump(sheet), "traits": [{"id": i, **row} for i, row in zip(ids, rows, strict=True)]}


def fill_traits(sheet: Sheet, value: Mapping[str, Any], options: Mapping[str, Any]) -> Sheet:
    """Backgrounds and impairments: a name and a description each, chosen from the campaign's tables or
    invented (with the GM's approval, "Backgrounds"); an impairment taken for a specialization is owed."""
    if len(value.get("traits") or ()) > MAX_ROWS:
        raise SheetError("traits", f"at most {MAX_ROWS} backgrounds and impairments")
    rows = _trait_rows(_rows(value, "traits", "traits"), options)
    if sheet.creation.took_impairment and not any(row["kind"] == "impairment" for row in rows):
        raise SheetError(
            "traits",
            "you took an impairment for an extra specialization: describe it here, "
            "or go back and give up the extra specialization",
        )
    return _read(_with_traits(sheet, rows), "traits")


def roll_trait(sheet: Sheet, kind: str, value: Mapping[str, Any], options: Mapping[str, Any], rng: Random) -> Sheet:
    """A roll on the campaign's table of backgrounds or of impairments (``kind``): an entry drawn by
    :func:`roll_on_table` is added as a trait, name and description, and the roll is kept in the creation
    record (``creation.table_rolls``, pointing at the trait by its id), as the ability rolls are.

    ``value`` holds the step's rows as the page has them (``{"traits": […]}``; without them, the draft's
    own), saved with the rolled trait so that a roll loses nothing typed. Rolling an impairment is not
    taking one for a specialization: that stays the player's tick at the specializations step."""
    if kind not in dict(TRAIT_KINDS):
        raise SheetError("kind", "a table is of backgrounds or of impairments")
    if "traits" in value:
        if len(value["traits"] or ()) > MAX_ROWS:
            raise SheetError("traits", f"at most {MAX_ROWS} backgrounds and impairments")
        rows = _trait_rows(_rows(value, "traits", "traits"), options)
    else:
        rows = [{"kind": t.kind, "name": t.name, "description": t.description} for t in sheet.traits]
    if len(rows) >= MAX_ROWS:
        raise SheetError(f"{kind}_roll", f"at most {MAX_ROWS} backgrounds and impairments: remove one to roll")
    if len(sheet.creation.table_rolls) >= MAX_TABLE_ROLLS:
        raise SheetError(
            f"{kind}_roll",
            f"this draft has rolled on the tables {MAX_TABLE_ROLLS} times, the most it keeps: choose instead",
        )
    draw = roll_on_table(kind, options, [row["name"] for row in rows if row["kind"] == kind], rng)
    rows.append({"kind": kind, "name": draw.name, "description": draw.description})
    document = _with_traits(sheet, rows)
    record = {
        "kind": kind,
        "roll": draw.number,
        "of": draw.of,
        "name": draw.name,
        "trait": document["traits"][-1]["id"],
    }
    document["creation"]["table_rolls"] = [*document["creation"]["table_rolls"], record]
    return _read(document, "traits")


def fill_equipment(sheet: Sheet, value: Mapping[str, Any], options: Mapping[str, Any]) -> Sheet:
    """Assets (level 1 Inferior … 5 Perfect, the skills each helps; a person can be one), weapons
    (accuracy and damage dice) and armor (a defensive die)."""
    if any(len(value.get(key) or ()) > MAX_ROWS for key in ("assets", "weapons", "armor")):
        raise SheetError("equipment", f"at most {MAX_ROWS} of each")
    asset_rows = []
    for asset in _rows(value, "assets", "assets"):
        check_level(asset.get("level"), "asset level")
        given = list(asset.get("skills") or ())
        helped = [skill_id(sheet, skill) for skill in given]
        unknown = [skill for skill, found in zip(given, helped, strict=True) if found is None]
        named = [str(skill) for skill in unknown if isinstance(skill, str) and not skill.isdecimal()]
        if named:
            raise SheetError("assets", f"{', '.join(named)}: this character has no such skill")
        if unknown:  # by an id no skill of the sheet has: a page out of date, or a forged one
            raise SheetError("assets", "an asset helps only skills this character has: choose them from the list")
        kind = asset.get("kind", "thing")
        if kind not in dict(ASSET_KINDS):
            raise SheetError("assets", "an asset is a thing or a person")
        asset_rows.append({
            "name": clean_name_of(asset.get("name"), "Each asset", "assets"), "kind": kind, "level": asset["level"],
            "skills": list(dict.fromkeys(helped)), "description": clean_description(asset.get("description", "")),
        })  # fmt: skip
    weapon_rows = [
        {
            "name": clean_name_of(w.get("name"), "Each weapon", "weapons"),
            "accuracy": _die(w.get("accuracy"), "accuracy", "accuracy").label,
            "damage": _die(w.get("damage"), "damage", "damage").label,
        }
        for w in _rows(value, "weapons", "weapons")
    ]
    armor_rows = [
        {
            "name": clean_name_of(a.get("name"), "Each armor", "armor"),
            "defense": _die(a.get("defense"), "defensive", "defensive").label,
        }
        for a in _rows(value, "armor", "armor")
    ]
    document = _dump(sheet)
    lists = (("assets", asset_rows, sheet.assets), ("weapons", weapon_rows, sheet.weapons))
    for field, rows, items in (*lists, ("armor", armor_rows, sheet.armor)):
        old = {item.name.casefold(): item.id for item in items}
        sheet, ids = _reused_ids(sheet, old, [row["name"].casefold() for row in rows])
        document[field] = [{"id": i, **row} for i, row in zip(ids, rows, strict=True)]
    document["next_id"] = sheet.next_id
    return _read(document, "equipment")


def ready(sheet: Sheet, options: Mapping[str, Any]) -> None:
    """What a draft needs before it is finished beyond every step's check: every ability and every skill of
    the campaign with its die."""
    abilities_of(sheet)
    listed = {entry["name"].casefold() for entry in options["skills"]}
    if {skill.name.casefold() for skill in sheet.skills} != listed or any(s.die is None for s in sheet.skills):
        raise SheetError("skills", "set the skill dice first")
