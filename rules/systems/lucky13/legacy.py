"""Lucky 13's old export format (``"schema": "dicehall.character"``, version 1), read into a sheet
document with the same content.

Before the envelope (``characters/exchange.py``, format version 2), an export spread the sheet over
named fields and named its items instead of numbering them: skills, specializations, backgrounds,
impairments, assets (helping skills by name), weapons and armor. :func:`read` converts such a
document: items get ids in the document's order, a draft's step is the furthest its content shows
(the format did not say), and its status is what its content shows (a finished character always
had its hit points, a draft never).

That format signed only the server's rolls (``integrity``, an HMAC over :func:`payload`). Checking
that signature needs the server's key, so the caller passes ``verify``; the rest of the document
was never signed, and the caller checks it as a fresh creation.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Final

from rules.dice import DiceError, StepDie
from rules.document import MAX_NAME, Problem
from rules.reading import MISSING as _MISSING
from rules.reading import Reader
from rules.reading import field_at as _key
from rules.reading import item_at as _item
from rules.reading import shown as _shown
from rules.systems.base import LegacyRead, SheetInvalid
from rules.systems.lucky13.creation import abilities_from_percentiles, ability_from_percentile
from rules.systems.lucky13.identity import KEY
from rules.systems.lucky13.import_checks import ARRAY_ADVICE
from rules.systems.lucky13.vocabulary import ABILITY_KEYS, MAX_ABILITY, MAX_SPECIALIZATION_LEVEL

#: The ``schema`` strings of the old format this system reads.
FORMATS: Final = ("dicehall.character",)
#: What the old format allowed: rows per list.
ROWS: Final = 20
#: The longest ``integrity`` signature read.
MAX_INTEGRITY: Final = 200

#: The old format's fields, and whether each is required.
FIELDS: Final = {
    "schema": True,
    "schema_version": True,
    "system": True,
    "version": False,
    "name": True,
    "concept": False,
    "ability_names": False,
    "abilities": True,
    "ability_method": True,
    "creation_rolls": False,
    "skills": True,
    "took_impairment": False,
    "backgrounds": False,
    "impairments": False,
    "assets": False,
    "weapons": False,
    "armor": False,
    "hit_points": False,
    "reputation": False,
    "notes": False,
    "integrity": False,
}


class _Reader(Reader):
    """The shared reader, with the dice and d100s of the older format."""

    def die(self, value: Any, at: str, *, optional: bool = False) -> str | None:
        """A die label: d4 … d12 (``null`` where ``optional``)."""
        if value is _MISSING or (optional and value is None):
            return None
        if not isinstance(value, str):
            self.fail(at, 'must be a die label, "d4" … "d12"')
            return None
        try:
            die = StepDie.parse(value)
        except DiceError as problem:
            self.fail(at, str(problem))
            return None
        if not StepDie.of(4) <= die <= MAX_ABILITY:
            self.fail(at, f"a die here is d4 … d12, not {die.label}")
            return None
        return die.label

    def percentiles(self, value: Any, at: str, count: int | None = None) -> tuple[int, ...] | None:
        """d100 rolls, 1 … 100 each (00 is 100); ``count`` of them if given."""
        if value is _MISSING:
            return None
        if not isinstance(value, list):
            self.fail(at, "must be a list ([…])")
            return None
        if count is not None and len(value) != count:
            self.fail(at, f"one roll for each of the {count}, in order; this list has {len(value)}")
            return None
        rolls = [self.whole(roll, _item(at, i), 1, 100) for i, roll in enumerate(self.rows(value, at, ROWS))]
        return None if None in rolls or len(rolls) != len(value) else tuple(r for r in rolls if r is not None)


class _Ids:
    """Item ids for a converted document, handed out in the document's order from 1."""

    def __init__(self, start: int = 1) -> None:
        self.next = start

    def take(self) -> int:
        self.next += 1
        return self.next - 1


def _skills(r: _Reader, value: Any, ids: _Ids, options: Mapping[str, Any]) -> list[dict[str, Any]]:
    rows = r.rows(value, "skills", ROWS)
    if not rows:  # a draft before its skills step: the campaign's skills, without dice yet
        return [
            {"id": ids.take(), "name": s["name"], "ability": s["ability"], "die": None, "specializations": []}
            for s in options["skills"]
        ]
    skills = []
    for i, row in enumerate(rows):
        at = _item("skills", i)
        fields = r.fields(row, at, ("name", "die"), ("ability", "specializations"))
        ability = fields.get("ability")
        if ability is not None:
            r.choice(ability, _key(at, "ability"), ABILITY_KEYS)
        skills.append(
            {
                "id": ids.take(),
                "name": r.name(fields.get("name", _MISSING), _key(at, "name"), "Each skill"),
                "ability": ability,
                "die": r.die(fields.get("die", _MISSING), _key(at, "die"), optional=True),
                "specializations": fields.get("specializations", []),
            }
        )
    for i, skill in enumerate(skills):
        at = _key(_item("skills", i), "specializations")
        specs = []
        for j, spec in enumerate(r.rows(skill["specializations"], at, ROWS)):
            spec_at = _item(at, j)
            spec_fields = r.fields(spec, spec_at, ("name",), ("level",))
            specs.append(
                {
                    "id": ids.take(),
                    "name": r.name(spec_fields.get("name", _MISSING), _key(spec_at, "name"), "Each specialization"),
                    "level": r.whole(spec_fields.get("level", 1), _key(spec_at, "level"), 1, MAX_SPECIALIZATION_LEVEL),
                }
            )
        skill["specializations"] = specs
    return skills


def _traits(r: _Reader, document: Mapping[str, Any], key: str, kind: str, ids: _Ids) -> list[dict[str, Any]]:
    traits = []
    for i, row in enumerate(r.rows(document.get(key, []), key, ROWS)):
        at = _item(key, i)
        fields = r.fields(row, at, ("name",), ("description",))
        traits.append(
            {
                "id": ids.take(),
                "kind": kind,
                "name": r.name(fields.get("name", _MISSING), _key(at, "name"), "Each background and impairment"),
                "description": r.text(fields.get("description", ""), _key(at, "description"), 2000),
            }
        )
    return traits


def _equipment(
    r: _Reader, document: Mapping[str, Any], skills: Sequence[Mapping[str, Any]], ids: _Ids
) -> dict[str, list[dict[str, Any]]]:
    by_name = {skill["name"]: skill["id"] for skill in skills}
    assets = []
    for i, row in enumerate(r.rows(document.get("assets", []), "assets", ROWS)):
        at = _item("assets", i)
        fields = r.fields(row, at, ("name", "level"), ("kind", "skills", "description"))
        helped = []
        for j, name in enumerate(r.rows(fields.get("skills", []), _key(at, "skills"), ROWS)):
            if not isinstance(name, str) or name not in by_name:
                r.fail(_item(_key(at, "skills"), j), f"the sheet has no skill called {_shown(str(name))}")
            else:
                helped.append(by_name[name])
        assets.append(
            {
                "id": ids.take(),
                "name": r.name(fields.get("name", _MISSING), _key(at, "name"), "Each asset"),
                "kind": r.choice(fields.get("kind", "thing"), _key(at, "kind"), ("thing", "person")),
                "level": r.whole(fields.get("level", _MISSING), _key(at, "level"), 1, 5),
                "skills": helped,
                "description": r.text(fields.get("description", ""), _key(at, "description"), 2000),
            }
        )
    weapons = []
    for i, row in enumerate(r.rows(document.get("weapons", []), "weapons", ROWS)):
        at = _item("weapons", i)
        fields = r.fields(row, at, ("name", "accuracy", "damage"))
        weapons.append(
            {
                "id": ids.take(),
                "name": r.name(fields.get("name", _MISSING), _key(at, "name"), "Each weapon"),
                "accuracy": r.die(fields.get("accuracy", _MISSING), _key(at, "accuracy")),
                "damage": r.die(fields.get("damage", _MISSING), _key(at, "damage")),
            }
        )
    armor = []
    for i, row in enumerate(r.rows(document.get("armor", []), "armor", ROWS)):
        at = _item("armor", i)
        fields = r.fields(row, at, ("name", "defense"))
        armor.append(
            {
                "id": ids.take(),
                "name": r.name(fields.get("name", _MISSING), _key(at, "name"), "Each piece of armor"),
                "defense": r.die(fields.get("defense", _MISSING), _key(at, "defense")),
            }
        )
    return {"assets": assets, "weapons": weapons, "armor": armor}


def _step(sheet: Mapping[str, Any], method: str | None) -> str:
    """How far a draft had come (the format did not say): the furthest step its content shows."""
    if method is None or None in sheet["abilities"].values():
        return "abilities"
    if any(skill["die"] is None for skill in sheet["skills"]):
        return "skills"
    if sheet["assets"] or sheet["weapons"] or sheet["armor"]:
        return "review"
    if sheet["traits"]:
        return "equipment"
    if any(skill["specializations"] for skill in sheet["skills"]):
        return "traits"
    return "specializations"


def payload(system: str, ability_rolls: Sequence[int] | None, skill_rolls: Sequence[tuple[str, int]] | None) -> str:
    """What an ``integrity`` signed: the rolls, the dice they gave, and for skills the name each
    roll was for, as one canonical string."""
    document = {
        "system": system,
        "abilities": None
        if ability_rolls is None
        else {
            "rolls": list(ability_rolls),
            "dice": {key: die.label for key, die in abilities_from_percentiles(ability_rolls).items()},
        },
        "skills": None
        if skill_rolls is None
        else [[name, roll, ability_from_percentile(roll).label] for name, roll in skill_rolls],
    }
    return json.dumps(document, sort_keys=True, separators=(",", ":"))


def _rolls(
    document: Mapping[str, Any],
    key: str,
    sheet: Mapping[str, Any],
    method: str | None,
    verify: Callable[[str, str], bool],
) -> list[Problem]:
    """Today's rule for the rolls of an old document: only this server's, signed by it, and each
    die at least what its roll gave (a die only goes up after creation, by Adventure Points)."""
    found: list[Problem] = []
    rolls = sheet["creation"]["ability_rolls"]
    skill_rolls = [(skill["name"], skill["rolled"]) for skill in sheet["skills"] if skill["rolled"] is not None]
    if method == "random" and not rolls:
        return [
            Problem(
                field="creation_rolls.abilities",
                message=f"rolled abilities come with their rolls, and there are none here: {ARRAY_ADVICE}",
            )
        ]
    if method != "random" and rolls:
        return [
            Problem(
                field="creation_rolls.abilities",
                message=f"only rolled abilities have rolls; leave them out with the {method} array",
            )
        ]
    if not rolls and not skill_rolls:
        return []
    integrity = document.get("integrity")
    signed = payload(key, rolls or None, skill_rolls or None)
    if not isinstance(integrity, str) or not verify(signed, integrity):
        what = "these rolls" if rolls else "these skill rolls"
        return [
            Problem(
                field="integrity",
                message=f"{what} were not made by this Dicehall, or were changed since; dice are rolled on the "
                f"server only, so rolls cannot be taken on trust: {ARRAY_ADVICE}",
            )
        ]
    rolled = zip(ABILITY_KEYS, rolls, strict=True) if rolls else ()
    dice = [(_key("abilities", k), sheet["abilities"][k], roll) for k, roll in rolled]
    dice += [
        (_key(_item("skills", i), "die"), skill["die"], skill["rolled"])
        for i, skill in enumerate(sheet["skills"])
        if skill["rolled"] is not None
    ]
    for at, label, roll in dice:
        expected = ability_from_percentile(roll)
        if label is not None and StepDie.parse(label) < expected:
            found.append(
                Problem(
                    field=at, message=f"{label} is not what its roll gives: {roll} is {expected}, and dice only go up"
                )
            )
    return found


def read(document: Mapping[str, Any], options: Mapping[str, Any], *, verify: Callable[[str, str], bool]) -> LegacyRead:
    """An old document as a sheet document with the same content (ids in the document's order:
    skills, specializations, backgrounds, impairments, assets, weapons, armor), for a campaign with
    ``options`` (a draft without skill rows gets the campaign's skills).

    ``verify(payload, integrity)`` says whether ``integrity`` signs ``payload`` (see :func:`payload`).
    Raises :class:`SheetInvalid` naming every bad field at its path in the old document.
    """
    r = _Reader()
    required = [k for k, req in FIELDS.items() if req]
    r.fields(document, "", required, [k for k, req in FIELDS.items() if not req])
    get = document.get
    key = r.text(get("system", _MISSING), "system", 40)
    r.whole(get("version", 1), "version", 1, 2**31 - 1)
    name = r.name(get("name", _MISSING), "name", "A character")
    concept = r.text(get("concept", ""), "concept", 200)
    names = r.fields(get("ability_names", {}), "ability_names", (), ABILITY_KEYS)
    for ability in ABILITY_KEYS:  # informational: the target campaign names its own abilities
        r.text(names.get(ability, _MISSING), _key("ability_names", ability), MAX_NAME)
    given = r.fields(get("abilities", _MISSING), "abilities", ABILITY_KEYS)
    abilities = {k: r.die(given.get(k, _MISSING), _key("abilities", k), optional=True) for k in ABILITY_KEYS}
    method = get("ability_method")
    if method is not None:
        method = r.choice(method, "ability_method", ("random", "balanced", "specialized"))
    rolls = r.fields(get("creation_rolls", {}), "creation_rolls", (), ("abilities", "skills"))
    ability_rolls = r.percentiles(rolls.get("abilities", _MISSING), "creation_rolls.abilities", 5)
    skill_rolls = r.percentiles(rolls.get("skills", _MISSING), "creation_rolls.skills")
    ids = _Ids()
    skills = _skills(r, get("skills", _MISSING), ids, options)
    if skill_rolls is not None:
        if len(skill_rolls) != len(skills):
            r.fail("creation_rolls.skills", f"one roll for each of the {len(skills)} skills, in order")
        else:
            for skill, roll in zip(skills, skill_rolls, strict=True):
                skill["rolled"] = roll
    for skill in skills:
        skill.setdefault("rolled", None)
    took = r.flag(get("took_impairment", False), "took_impairment")
    traits = _traits(r, document, "backgrounds", "background", ids)
    traits += _traits(r, document, "impairments", "impairment", ids)
    if len(traits) > ROWS:
        r.fail("impairments", f"at most {ROWS} backgrounds and impairments together")
    if took and not any(t["kind"] == "impairment" for t in traits):
        r.fail(
            "impairments",
            "took_impairment is true (an impairment bought one more specialization), so name the impairment here",
        )
    equipment = _equipment(r, document, skills, ids)
    hit_points = None
    if get("hit_points") is not None:
        hit_points = r.whole(document["hit_points"], "hit_points", -10_000, 10_000)
    reputation = r.whole(get("reputation", 0), "reputation", -5, 5)
    notes = r.text(get("notes", ""), "notes", 20_000)
    if get("integrity") is not None:
        r.text(document["integrity"], "integrity", MAX_INTEGRITY)
    if r.errors:
        raise SheetInvalid([Problem(field=at, message=message) for at, message in r.errors])

    creation = {
        "step": "",
        "ability_method": method or "",
        "ability_rolls": list(ability_rolls or ()),
        "took_impairment": took,
    }
    sheet: dict[str, Any] = {
        "schema_version": 1,
        "concept": concept,
        "abilities": abilities,
        "skills": skills,
        "traits": traits,
        **equipment,
        "hit_points": hit_points,
        "reputation": reputation,
        "notes": notes,
        "creation": creation,
        "next_id": ids.next,
    }
    # The old format had no status: a finished character always had its hit points, a draft never.
    finished = (
        method is not None
        and hit_points is not None
        and None not in abilities.values()
        and all(skill["die"] is not None for skill in skills)
    )
    if not finished:
        creation["step"] = _step(sheet, method)
    return LegacyRead(
        system=key or KEY,
        name=name or "",
        status="active" if finished else "draft",
        sheet=sheet,
        rolls_verified=True,
        problems=tuple(_rolls(document, key or "", sheet, method, verify)),
    )
