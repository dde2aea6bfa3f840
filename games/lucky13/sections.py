"""Lucky 13's own section forms' saves: reading a form's (or the API's) rows into the document's
values, then saving through the generic edit (:func:`characters.operations.locked_for_edit`,
the system's ``edit`` and the one write path).

An existing row is addressed by its item id, a new row gets a fresh one, and each refusal is put
next to the field it is about, in words for players: the row's ``at`` (the form's prefix for that
row) and the field. The skill dice are one section and the specializations (their names and
levels) another, and each is rebuilt from the sheet as it is under the lock, so a save to one
never overwrites the other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from pydantic import TypeAdapter, ValidationError

from characters import write
from characters.models import Character, ReputationChange
from characters.operations import InvalidSection, NotAllowed, locked_for_edit, sections_for, sentence
from rules.dice import StepDie
from rules.document import MAX_SHORT_TEXT, Name, problems_of
from rules.systems import lucky13
from rules.systems.base import EditRefused, Problem, Role, SheetInvalid
from rules.systems.lucky13 import SheetError

__all__ = [
    "ArmorRow",
    "AssetRow",
    "Details",
    "Equipment",
    "SpecializationRow",
    "TraitRow",
    "WeaponRow",
    "save_section",
]


# --- What a save carries ---------------------------------------------------------------------
# Values are parsed (dice as StepDie, numbers as int) but not yet checked. A row's ``at`` says
# where a message about it belongs (the form's prefix for that row); ``id`` is the item id of
# the row on the sheet, None for a new row.
#
# The other sections carry: abilities, ``{ability key: StepDie}``; skills (their dice),
# ``{skill id: StepDie}``; hit points and reputation, an int; notes, the text.


@dataclass(frozen=True, slots=True)
class Details:
    name: str
    concept: str = ""


@dataclass(frozen=True, slots=True)
class SpecializationRow:
    at: str
    id: int | None
    name: str
    skill: int | None = None  # new rows only: the id of the skill it belongs to
    level: int | None = None  # None leaves the level as it is
    remove: bool = False


@dataclass(frozen=True, slots=True)
class TraitRow:
    at: str
    id: int | None
    kind: str
    name: str
    description: str = ""
    remove: bool = False


@dataclass(frozen=True, slots=True)
class AssetRow:
    at: str
    id: int | None
    name: str
    level: int | None
    kind: str = "thing"
    skills: tuple[int, ...] = ()  # the ids of the skills it helps
    description: str = ""
    remove: bool = False


@dataclass(frozen=True, slots=True)
class WeaponRow:
    at: str
    id: int | None
    name: str
    accuracy: StepDie
    damage: StepDie
    remove: bool = False


@dataclass(frozen=True, slots=True)
class ArmorRow:
    at: str
    id: int | None
    name: str
    defense: StepDie
    remove: bool = False


@dataclass(frozen=True, slots=True)
class Equipment:
    assets: Sequence[AssetRow] = ()
    weapons: Sequence[WeaponRow] = ()
    armor: Sequence[ArmorRow] = ()


# --- From rows to the document ---------------------------------------------------------------

GONE: Final = "this row is no longer on the sheet: reload the page and try again"
_NAME: Final = TypeAdapter(Name)


class _Problems:
    """Every value a save cannot take, collected so that the player sees them all at once."""

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}

    def add(self, where: str, message: str) -> None:
        self.errors.setdefault(where, []).append(sentence(message))

    def check(self, where: str, check: Callable[..., Any], *args: Any) -> Any:
        """Runs a check; its message, if it refuses, goes to ``where``."""
        try:
            return check(*args)
        except ValueError as problem:  # SheetError too
            self.add(where, getattr(problem, "message", str(problem)))
            return None


@dataclass
class _Edit:
    """A section's new value for the system's ``edit``, and where the system's refusals belong."""

    value: dict[str, Any]
    #: Document path (``skills.0.specializations.1``) → the key its problems go to.
    places: dict[str, str] = field(default_factory=dict)
    #: Document path → words added to the system's message there.
    after: dict[str, str] = field(default_factory=dict)
    #: The sheet to edit, when the save handed out fresh ids.
    sheet: Any = None


def _field(at: str, name: str) -> str:
    return f"{at}-{name}" if at else name


def _name(value: Any, what: str) -> str:
    """A name as typed: trimmed, on one line, not blank, not too long, no control characters."""
    if isinstance(value, str) and len(" ".join(value.split())) > lucky13.MAX_NAME:
        raise ValueError(f"a name is at most {lucky13.MAX_NAME} characters")
    name = lucky13.clean_name(value, what)
    try:
        return _NAME.validate_python(name)
    except ValidationError as error:
        raise ValueError(f"a name {problems_of(error)[0].message}") from None


def _die(die: Any, what: str) -> str:
    """A die of the sheet (d4 … d12) as the document's label."""
    if not isinstance(die, StepDie) or not StepDie.of(4) <= die <= lucky13.MAX_ABILITY:
        raise ValueError(f"{lucky13.indefinite(what)} {what} die is d4 … d12")
    return die.label


def _text(value: Any, limit: int, what: str) -> str:
    text = value.strip() if isinstance(value, str) else ""
    if len(text) > limit:
        raise ValueError(f"keep {what} under {limit:,} characters")
    return text


def _whole(value: Any, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ValueError(f"enter {what} as a whole number")
    return value


def _rows_of(rows: Sequence[Any], existing: Mapping[int, Any], what: str, problems: _Problems) -> None:
    if len([r for r in rows if not r.remove]) > lucky13.MAX_ITEMS:
        problems.add("", f"at most {lucky13.MAX_ITEMS} {what}")
    for row in rows:
        if row.id is not None and row.id not in existing:
            problems.add(row.at, GONE)


def _list(
    items: Sequence[Any], rows: Sequence[Any], path: str, row: Callable[[Any, Any], dict[str, Any]]
) -> tuple[list[dict[str, Any]], dict[str, str], list[tuple[Any, dict[str, Any]]]]:
    """A list of the sheet with ``rows`` applied: the items no row mentions stay, removed rows go,
    changed rows change in place and new rows come last. ``row(row, current)`` gives the item's
    new document value (``current`` is None for a new row). Returns the list, the places of its
    rows' problems, and each (row, value) kept."""
    rows_by_id = {r.id: r for r in rows if r.id is not None}
    out: list[dict[str, Any]] = []
    kept: list[tuple[Any, dict[str, Any]]] = []
    places: dict[str, str] = {}
    for item in items:
        given = rows_by_id.get(item.id)
        if given is None:
            out.append(item.model_dump(mode="json"))
        elif not given.remove:
            kept.append((given, row(given, item)))
            places[f"{path}.{len(out)}"] = given.at
            out.append(kept[-1][1])
    for given in rows:
        if given.id is None and not given.remove:
            kept.append((given, row(given, None)))
            places[f"{path}.{len(out)}"] = given.at
            out.append(kept[-1][1])
    return out, places, kept


def _unique_names(
    items: Sequence[Any], rows: Sequence[Any], kept: Sequence[tuple[Any, dict[str, Any]]],
    message: Callable[[str], str], problems: _Problems, *, kind: str | None = None,
) -> None:  # fmt: skip
    """Names used twice in one list (the document allows each once, whatever the case), said next
    to the new or renamed rows (else the later ones). ``kind`` narrows the list to one kind."""
    mentioned = {r.id for r in rows if r.id is not None}
    before = {item.id: (getattr(item, "kind", None), item.name) for item in items}
    entries = [(item.name, "", False) for item in items
               if item.id not in mentioned and (kind is None or item.kind == kind)]  # fmt: skip
    entries += [
        (value["name"], _field(given.at, "name"), before.get(given.id) != (value.get("kind"), value["name"]))
        for given, value in kept
        if kind is None or value["kind"] == kind
    ]
    by_name: dict[str, list[tuple[str, str, bool]]] = {}
    for entry in entries:
        by_name.setdefault(entry[0].casefold(), []).append(entry)
    for same in (same for same in by_name.values() if len(same) > 1):
        blamed = [entry for entry in same if entry[2]] or same[1:]
        for name, where, _ in blamed:
            problems.add(where, message(name))


# --- Each section: its new value ---------------------------------------------------------------
# A builder reads the save into the section's document value, adding what it cannot read to
# ``problems``; where it cannot read a value it keeps what the sheet says, so that the system
# still says whether this role may make the change at all.


def _details(character: Character, doc: Any, data: Details, problems: _Problems, gm: bool) -> _Edit:
    name = problems.check("name", _name, data.name, "A character")
    concept = problems.check("concept", _text, " ".join(str(data.concept).split()), MAX_SHORT_TEXT, "the concept")
    if name is not None:
        character.name = name
    return _Edit({"concept": concept if concept is not None else doc.concept}, {"concept": "concept"})


def _abilities(character: Character, doc: Any, data: Mapping[str, StepDie], problems: _Problems, gm: bool) -> _Edit:
    dice = {}
    for key in lucky13.ABILITY_KEYS:
        label = problems.check(key, _die, data.get(key), "character's ability")
        dice[key] = label if label is not None else getattr(doc.abilities, key)
    # A smaller Pulse die must still hold the hit points ("Hit points"): said next to the Pulse.
    after = {"hit_points": f", and {character.name} has {doc.hit_points}: change the hit points first"}
    return _Edit({"abilities": dice}, {"abilities": "", "hit_points": "pulse"}, after)


def _skills(character: Character, doc: Any, data: Mapping[int, StepDie], problems: _Problems, gm: bool) -> _Edit:
    ids = {skill.id for skill in doc.skills}
    if any(key not in ids for key in data):
        problems.add("", "one of these skills is no longer on the sheet: reload the page and try again")
    skills, places = [], {}
    for i, skill in enumerate(doc.skills):
        value = skill.model_dump(mode="json")
        if skill.id in data:
            label = problems.check(str(skill.id), _die, data[skill.id], "skill")
            value["die"] = label if label is not None else skill.die
        places[f"skills.{i}"] = str(skill.id)
        places[f"skills.{i}.die"] = str(skill.id)
        skills.append(value)
    return _Edit({"skills": skills}, places)


def _fresh_ids(doc: Any, *lists: Sequence[Any]) -> tuple[Any, Callable[[Any], int]]:
    """The sheet that has handed out an id to each new row of ``lists``, and each new row's id."""
    new_rows = [row for rows in lists for row in rows if row.id is None and not row.remove]
    sheet, fresh = doc.with_ids(len(new_rows))
    ids = {id(row): item_id for row, item_id in zip(new_rows, fresh, strict=True)}
    return sheet, lambda row: ids[id(row)]


def _or(value: Any, current: Any, attribute: str, default: Any) -> Any:
    """What was read, else what the row says now (or ``default`` for a new row)."""
    if value is not None:
        return value
    return getattr(current, attribute) if current is not None else default


def _specializations(
    character: Character, doc: Any, rows: Sequence[SpecializationRow], problems: _Problems, gm: bool
) -> _Edit:
    existing = {spec.id: skill.id for skill in doc.skills for spec in skill.specializations}
    _rows_of(rows, existing, "specializations per save", problems)
    sheet, new_id = _fresh_ids(doc, rows)
    by_skill: dict[int, list[SpecializationRow]] = {}
    for row in rows:
        if row.id is not None:
            if row.id in existing:
                by_skill.setdefault(existing[row.id], []).append(row)
        elif not row.remove:
            skill = doc.skill(row.skill) if isinstance(row.skill, int) and not isinstance(row.skill, bool) else None
            if skill is None and not gm:  # the system refuses any new one; this one it would not even see
                raise NotAllowed(sentence(sections_for(character)["specializations"].note))
            if skill is None:
                problems.add(_field(row.at, "skill"), f"choose one of {character.name}'s skills")
            else:
                by_skill.setdefault(skill.id, []).append(row)

    def specialization(row: SpecializationRow, current: Any) -> dict[str, Any]:
        name = problems.check(_field(row.at, "name"), _name, row.name, "Each specialization")
        level = _or(row.level, current, "level", 1)
        level = problems.check(_field(row.at, "level"), lucky13.check_level, level, "specialization level")
        return {
            "id": current.id if current else new_id(row),
            "name": _or(name, current, "name", row.name),
            "level": _or(level, current, "level", 1),
        }

    skills, places = [], {}
    for i, skill in enumerate(doc.skills):
        mine = by_skill.get(skill.id, [])
        specs, where, kept = _list(skill.specializations, mine, f"skills.{i}.specializations", specialization)
        places.update(where)
        places[f"skills.{i}"] = ""
        _unique_names(skill.specializations, mine, kept,
                      lambda name, skill=skill: f"{skill.name} already has a specialization called {name}",
                      problems)  # fmt: skip
        skills.append({**skill.model_dump(mode="json"), "specializations": specs})
    return _Edit({"skills": skills}, places, sheet=sheet)


KINDS: Final = {"background", "impairment"}


def _traits(character: Character, doc: Any, rows: Sequence[TraitRow], problems: _Problems, gm: bool) -> _Edit:
    _rows_of(rows, {t.id: t for t in doc.traits}, "backgrounds and impairments", problems)
    sheet, new_id = _fresh_ids(doc, rows)

    def trait(row: TraitRow, current: Any) -> dict[str, Any]:
        if row.kind not in KINDS:
            problems.add(_field(row.at, "kind"), "a trait is a background or an impairment")
        name = problems.check(_field(row.at, "name"), _name, row.name, "Each background and impairment")
        description = problems.check(_field(row.at, "description"), _text, row.description,
                                     lucky13.MAX_DESCRIPTION, "descriptions")  # fmt: skip
        return {
            "id": current.id if current else new_id(row),
            "kind": _or(row.kind if row.kind in KINDS else None, current, "kind", "background"),
            "name": _or(name, current, "name", row.name),
            "description": _or(description, current, "description", ""),
        }

    traits, places, kept = _list(doc.traits, rows, "traits", trait)
    for kind in sorted(KINDS):
        _unique_names(doc.traits, rows, kept, lambda name, kind=kind: f"there is already {lucky13.indefinite(kind)} "
                      f"{kind} called {name}", problems, kind=kind)  # fmt: skip
    return _Edit({"traits": traits}, places, sheet=sheet)


ASSET_KINDS: Final = {"thing", "person"}


def _equipment(character: Character, doc: Any, data: Equipment, problems: _Problems, gm: bool) -> _Edit:
    """Assets (level 1 Inferior … 5 Perfect, the skills each helps; a person can be one),
    weapons (accuracy and damage dice d4 … d12) and armor (a defensive die d4 … d12)."""
    _rows_of(data.assets, {a.id: a for a in doc.assets}, "assets", problems)
    _rows_of(data.weapons, {w.id: w for w in doc.weapons}, "weapons", problems)
    _rows_of(data.armor, {a.id: a for a in doc.armor}, "pieces of armor", problems)
    sheet, new_id = _fresh_ids(doc, data.assets, data.weapons, data.armor)
    skill_ids = {skill.id for skill in doc.skills}

    def asset(row: AssetRow, current: Any) -> dict[str, Any]:
        name = problems.check(_field(row.at, "name"), _name, row.name, "Each asset")
        level = problems.check(_field(row.at, "level"), lucky13.check_level, row.level, "level")
        if row.kind not in ASSET_KINDS:
            problems.add(_field(row.at, "kind"), "an asset is a thing or a person")
        helped = list(dict.fromkeys(row.skills))
        if any(skill not in skill_ids for skill in helped):
            problems.add(_field(row.at, "skills"), f"choose among {character.name}'s skills")
        description = problems.check(_field(row.at, "description"), _text, row.description,
                                     lucky13.MAX_DESCRIPTION, "descriptions")  # fmt: skip
        return {
            "id": current.id if current else new_id(row),
            "name": _or(name, current, "name", row.name),
            "kind": _or(row.kind if row.kind in ASSET_KINDS else None, current, "kind", "thing"),
            "level": _or(level, current, "level", 1),
            "skills": [skill for skill in helped if skill in skill_ids],
            "description": _or(description, current, "description", ""),
        }

    def weapon(row: WeaponRow, current: Any) -> dict[str, Any]:
        name = problems.check(_field(row.at, "name"), _name, row.name, "Each weapon")
        accuracy = problems.check(_field(row.at, "accuracy"), _die, row.accuracy, "weapon's accuracy")
        damage = problems.check(_field(row.at, "damage"), _die, row.damage, "weapon's damage")
        return {
            "id": current.id if current else new_id(row),
            "name": _or(name, current, "name", row.name),
            "accuracy": _or(accuracy, current, "accuracy", "d4"),
            "damage": _or(damage, current, "damage", "d4"),
        }

    def armor(row: ArmorRow, current: Any) -> dict[str, Any]:
        name = problems.check(_field(row.at, "name"), _name, row.name, "Each piece of armor")
        defense = problems.check(_field(row.at, "defense"), _die, row.defense, "defensive")
        return {
            "id": current.id if current else new_id(row),
            "name": _or(name, current, "name", row.name),
            "defense": _or(defense, current, "defense", "d4"),
        }

    value, places = {}, {}
    lists: tuple[tuple[str, Sequence[Any], Sequence[Any], Callable[[Any, Any], dict[str, Any]], str], ...] = (
        ("assets", doc.assets, data.assets, asset, "asset"),
        ("weapons", doc.weapons, data.weapons, weapon, "weapon"),
        ("armor", doc.armor, data.armor, armor, "piece of armor"),
    )
    for key, items, rows, read, noun in lists:
        value[key], where, kept = _list(items, rows, key, read)
        places.update(where)
        _unique_names(items, rows, kept, lambda name, noun=noun: f"there is already "
                      f"{lucky13.indefinite(noun)} {noun} called {name}", problems)  # fmt: skip
    return _Edit(value, places, sheet=sheet)


def _hit_points(character: Character, doc: Any, data: int, problems: _Problems, gm: bool) -> _Edit:
    hit_points = problems.check("hit_points", _whole, data, "the hit points")
    # "Hit points" and "Death & dying": the system's track runs from death to full.
    vitals = character.rules.vitals(doc, character.campaign.settings)
    track = next((t for t in vitals.tracks if t.key == "hit_points"), None)
    if hit_points is not None and track is not None and not track.minimum <= hit_points <= track.maximum:
        problems.add("hit_points", f"hit points run from {track.minimum} (dead) to {track.maximum} (full)")
    return _Edit({"hit_points": hit_points if hit_points is not None else doc.hit_points}, {"hit_points": "hit_points"})


def _reputation(character: Character, doc: Any, data: int, problems: _Problems, gm: bool) -> _Edit:
    reputation = problems.check("reputation", lucky13.check_reputation, data)
    return _Edit({"reputation": reputation if reputation is not None else doc.reputation}, {"reputation": "reputation"})


def _notes(character: Character, doc: Any, data: str, problems: _Problems, gm: bool) -> _Edit:
    notes = problems.check("notes", _text, data, lucky13.MAX_NOTES, "the notes")
    return _Edit({"notes": notes if notes is not None else doc.notes}, {"notes": "notes"})


BUILDERS: Final[dict[str, Callable[[Character, Any, Any, _Problems, bool], _Edit]]] = {
    "details": _details,
    "abilities": _abilities,
    "skills": _skills,
    "specializations": _specializations,
    "traits": _traits,
    "equipment": _equipment,
    "hit-points": _hit_points,
    "reputation": _reputation,
    "notes": _notes,
}
LUCKY13_SECTIONS: Final = {section.key: section for section in lucky13.SYSTEM.edit_sections}
assert BUILDERS.keys() == LUCKY13_SECTIONS.keys()


def _placed(problems: Sequence[Problem], edit: _Edit) -> dict[str, list[str]]:
    """The system's problems, each at the key of the nearest place the section knows."""
    errors: dict[str, list[str]] = {}
    for problem in problems:
        parts = problem.field.split(".")
        key = ""
        for n in range(len(parts), 0, -1):
            path = ".".join(parts[:n])
            if path in edit.places:
                key = edit.places[path]
                if n < len(parts) and not parts[-1].isdecimal():
                    key = _field(key, parts[-1])
                break
        message = problem.message + edit.after.get(problem.field, "")
        errors.setdefault(key, []).append(sentence(message))
    return errors


# --- The save ----------------------------------------------------------------------------------


@transaction.atomic
def save_section(*, character_id: int, section: str, version: int, data: Any, by: AbstractBaseUser) -> Character:
    """Save one section of a finished character's sheet, made from ``version`` of that section.

    Raises :class:`NotAllowed` if ``by`` may not change it (its system's ``edit_sections``),
    :class:`StaleSection` if it changed since ``version`` (nothing is written), and
    :class:`InvalidSection` with every broken rule (nothing is written). A change of the
    reputation is also kept in its history (:class:`ReputationChange`).
    """
    if section not in LUCKY13_SECTIONS:
        raise SheetError("section", f"there is no section {section!r} on the sheet")
    character, spec, is_gm = locked_for_edit(character_id, section, version, by)
    before = character.document
    problems = _Problems()
    edit = BUILDERS[section](character, before, data, problems, is_gm)
    invalid: SheetInvalid | None = None
    try:
        sheet = character.rules.edit(
            edit.sheet or before, section, edit.value, role=Role.GM if is_gm else Role.OWNER,
            options=character.campaign.settings,
        )  # fmt: skip
    except EditRefused as refused:
        raise NotAllowed(sentence(refused.message)) from None
    except SheetInvalid as error:
        invalid = error
    # Every message at once: what could not be read, and the system's refusals by the other fields.
    # Where a value could not be read the system saw what stood in for it, so its message there is not
    # said; nor, then, is a refusal of the section as a whole (a rule across rows may read that value).
    errors = dict(problems.errors)
    if invalid is not None:
        placed = _placed(invalid.problems, edit)
        errors |= {key: said for key, said in placed.items() if key not in errors and (key or not errors)}
    if errors:
        raise InvalidSection(errors)
    try:
        write.write(character, sheet, by=by, what=f"Edited the {spec.label}", sections=[section],
                    fields=["name"] if section == "details" else [])  # fmt: skip
    except SheetInvalid as error:
        raise InvalidSection(_placed(error.problems, edit)) from None
    if sheet.reputation != before.reputation:  # the reputation's history is kept, whoever changes it
        ReputationChange.objects.create(
            character=character,
            change=sheet.reputation - before.reputation,
            reputation=sheet.reputation,
            reason="Changed on the sheet",
            by=by,
        )
    return character
