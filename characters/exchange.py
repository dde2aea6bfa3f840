"""A character as one JSON document: exported from its sheet, imported into another campaign.

The document is described field by field in ``docs/character-schema.md`` (schema
``dicehall.character``, ``schema_version`` 1).

An import is a fresh creation in the target campaign: :func:`import_character` runs the
creation operations of :mod:`characters.creation` in their order, in one transaction, so
every creation rule of that campaign applies and a refusal leaves nothing behind. Before
that, the document is checked against those same rules (with the same engine functions)
so that each problem names the field of the document it is in, e.g. ``skills[2].die``.

Dice are rolled on the server only; a client never tells the server what it rolled. A
character whose abilities (or skills) were rolled carries its rolls and an ``integrity``
signature this server made over them and the dice they give. An import hands those rolls
back to the very operations that roll (they take their randomness as an argument) only
when the signature holds; otherwise the player is told to use the array method.
"""

from __future__ import annotations

import json
import random
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Final

from django.core import signing
from django.db import transaction
from django.utils.text import slugify

from campaigns.models import Campaign
from characters import creation
from characters.creation import (
    MAX_CONCEPT,
    MAX_DESCRIPTION,
    MAX_NOTES,
    ArmorChoice,
    AssetChoice,
    SpecializationChoice,
    TraitChoice,
    WeaponChoice,
)
from characters.models import Asset, Character, Trait
from rules import systems
from rules.dice import DiceError, StepDie
from rules.systems import lucky13

SCHEMA: Final = "dicehall.character"
SCHEMA_VERSION: Final = 1

#: Bounds on what an import reads: the raw document, every list in it, the free text.
MAX_BYTES: Final = 256 * 1024
MAX_ROWS: Final = creation.MAX_ROWS
MAX_SIGNATURE: Final = 200
#: A document with more problems than this is reported in part: enough to see what is wrong.
MAX_ERRORS: Final = 20

ARRAY_METHODS: Final = ("balanced", "specialized")
ABILITY_METHODS: Final = ("random", *ARRAY_METHODS)

_SALT: Final = "dicehall.characters.exchange.creation-rolls"

FIELDS: Final = {
    # field: required
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


class DocumentError(ValueError):
    """A document that cannot be imported; ``errors`` lists ``(field, message)`` pairs for players.

    The field is a path into the document (``skills[2].die``, ``abilities.will``), or
    ``document`` for the document as a whole.
    """

    def __init__(self, errors: Sequence[tuple[str, str]]) -> None:
        self.errors = list(errors)
        super().__init__("; ".join(self.messages))

    @property
    def messages(self) -> list[str]:
        return [f"{field}: {message}" for field, message in self.errors]


def _refuse(field: str, message: str) -> DocumentError:
    return DocumentError([(field, message)])


def _key(at: str, key: str) -> str:
    shown = key if len(key) <= 40 else key[:40] + "…"
    return f"{at}.{shown}" if at else shown


def _item(at: str, index: int) -> str:
    return f"{at}[{index}]"


# --- Export ----------------------------------------------------------------------------------


def _label(die: StepDie | None) -> str | None:
    return die.label if die is not None else None


def _rolls_payload(
    system: str, ability_rolls: Sequence[int] | None, skill_rolls: Sequence[tuple[str, int]] | None
) -> str:
    """What the signature covers, as one canonical string: the rolls, the dice they give,
    and for skills the name each roll was for."""
    payload = {
        "system": system,
        "abilities": None
        if ability_rolls is None
        else {
            "rolls": list(ability_rolls),
            "dice": {key: die.label for key, die in lucky13.abilities_from_percentiles(ability_rolls).items()},
        },
        "skills": None
        if skill_rolls is None
        else [[name, roll, lucky13.ability_from_percentile(roll).label] for name, roll in skill_rolls],
    }
    return json.dumps(payload, sort_keys=True, separators=(",", ":"))


def _signer() -> signing.Signer:
    return signing.Signer(salt=_SALT)


def _sign(payload: str) -> str:
    return _signer().sign(payload).rsplit(_signer().sep, 1)[1]


def _verified(payload: str, signature: str) -> bool:
    try:
        _signer().unsign(f"{payload}{_signer().sep}{signature}")
    except signing.BadSignature:
        return False
    return True


def _percentiles(value: Any, count: int | None = None) -> list[int] | None:
    if not isinstance(value, list) or (count is not None and len(value) != count):
        return None
    if not all(isinstance(r, int) and not isinstance(r, bool) and 1 <= r <= 100 for r in value):
        return None
    return list(value)


def export_character(character: Character) -> dict[str, Any]:
    """The character as a document of the export schema; best loaded through ``sheets.with_sheet``.

    A draft exports too, with ``null`` for what it has not chosen yet (an import refuses those).
    """
    options = character.campaign.settings
    skills = list(character.skills.all())
    traits = list(character.traits.all())
    ability_rolls = (
        _percentiles(character.creation_rolls.get("abilities"), len(lucky13.ABILITY_KEYS))
        if character.ability_method == Character.AbilityMethod.RANDOM
        else None
    )
    skill_rolls = _percentiles(character.creation_rolls.get("skills"), len(skills))
    rolls: dict[str, list[int]] = {}
    if ability_rolls is not None:
        rolls["abilities"] = ability_rolls
    if skill_rolls is not None:
        rolls["skills"] = skill_rolls
    integrity = None
    if rolls:
        named = None if skill_rolls is None else list(zip([s.name for s in skills], skill_rolls, strict=True))
        integrity = _sign(_rolls_payload(character.campaign.system, ability_rolls, named))
    return {
        "schema": SCHEMA,
        "schema_version": SCHEMA_VERSION,
        "system": character.campaign.system,
        "version": character.version,
        "name": character.name,
        "concept": character.concept,
        "ability_names": dict(zip(lucky13.ABILITY_KEYS, options["ability_names"], strict=True)),
        "abilities": {key: _label(character.ability(key)) for key in lucky13.ABILITY_KEYS},
        "ability_method": character.ability_method or None,
        "creation_rolls": rolls,
        "skills": [
            {
                "name": skill.name,
                "ability": skill.ability or None,
                "die": skill.step_die.label,
                "specializations": [{"name": s.name, "level": s.level} for s in skill.specializations.all()],
            }
            for skill in skills
        ],
        "took_impairment": character.took_impairment,
        "backgrounds": [
            {"name": t.name, "description": t.description} for t in traits if t.kind == Trait.Kind.BACKGROUND
        ],
        "impairments": [
            {"name": t.name, "description": t.description} for t in traits if t.kind == Trait.Kind.IMPAIRMENT
        ],
        "assets": [
            {
                "name": asset.name,
                "kind": asset.kind,
                "level": asset.level,
                "skills": [s.name for s in asset.skills.all()],
                "description": asset.description,
            }
            for asset in character.assets.all()
        ],
        "weapons": [
            {"name": w.name, "accuracy": StepDie(w.accuracy).label, "damage": StepDie(w.damage).label}
            for w in character.weapons.all()
        ],
        "armor": [{"name": a.name, "defense": StepDie(a.defense).label} for a in character.armor.all()],
        "hit_points": character.hit_points,
        "reputation": character.reputation,
        "notes": character.notes,
        "integrity": integrity,
    }


def filename(character: Character) -> str:
    """The download's name: the character's name, made safe for any file system."""
    return f"{slugify(character.name) or 'character'}.json"


# --- Reading a document ----------------------------------------------------------------------


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    keys = Counter(key for key, _ in pairs)
    twice = [key for key, n in keys.items() if n > 1]
    if twice:
        raise _refuse("document", f"the key {_key('', twice[0])!r} appears twice in one object")
    return dict(pairs)


def _no_constant(name: str) -> None:
    raise _refuse("document", f"{name} is not a number JSON allows")


def load_document(raw: bytes | str) -> Any:
    """The parsed JSON of an uploaded or pasted document: at most :data:`MAX_BYTES`,
    UTF-8, strict JSON (no repeated keys, no NaN)."""
    size = len(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)
    if size > MAX_BYTES:
        raise _refuse(
            "document",
            f"the document is {size / 1024:,.0f} KB; a character document is at most {MAX_BYTES // 1024} KB",
        )
    if isinstance(raw, bytes):
        try:
            raw = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise _refuse("document", "the file is not UTF-8 text; export the character again") from None
    text = raw.removeprefix("\ufeff")
    if not text.strip():
        raise _refuse("document", "the document is empty")
    try:
        return json.loads(text, object_pairs_hook=_no_duplicates, parse_constant=_no_constant)
    except DocumentError:
        raise
    except json.JSONDecodeError as problem:
        raise _refuse(
            "document", f"not valid JSON: {problem.msg} (line {problem.lineno}, column {problem.colno})"
        ) from None
    except RecursionError:
        raise _refuse("document", "not a character document: it is nested far too deeply") from None
    except ValueError as problem:  # e.g. a number with thousands of digits
        raise _refuse("document", f"not valid JSON: {problem}") from None


@dataclass(frozen=True, slots=True)
class SkillEntry:
    name: str
    die: StepDie
    specializations: tuple[tuple[str, int], ...]


@dataclass(frozen=True, slots=True)
class Document:
    """A document that has the shape of the schema; the rules of a campaign are checked later."""

    system: str
    name: str
    concept: str
    abilities: dict[str, StepDie]
    ability_method: str
    ability_rolls: tuple[int, ...] | None
    skill_rolls: tuple[int, ...] | None
    skills: tuple[SkillEntry, ...]
    took_impairment: bool
    backgrounds: tuple[TraitChoice, ...]
    impairments: tuple[TraitChoice, ...]
    assets: tuple[AssetChoice, ...]
    weapons: tuple[WeaponChoice, ...]
    armor: tuple[ArmorChoice, ...]
    hit_points: int | None
    reputation: int
    notes: str
    integrity: str | None


#: A field the document leaves out: the reader reports it if it is required, and reads nothing.
_MISSING: Final = object()
#: Text with ``\u0000`` in it: PostgreSQL cannot store it, and no form of the site takes it.
NUL: Final = "must not contain the NUL character (\\u0000)"


class _Problems:
    """Every problem found, each with the field it is in, so that the player sees them all at once."""

    def __init__(self) -> None:
        self.errors: list[tuple[str, str]] = []

    def fail(self, at: str, message: str) -> None:
        if len(self.errors) < MAX_ERRORS:
            self.errors.append((at, message))


class _Reader(_Problems):
    """Reads a document field by field.

    Each method returns the value read, or None after recording why it could not (or
    silently, for a value that is :data:`_MISSING`: ``fields`` reported it already).
    """

    def fields(self, value: Any, at: str, required: Sequence[str], optional: Sequence[str] = ()) -> dict[str, Any]:
        """The object's fields; ``{}`` if it is not an object. Unknown and missing fields are refused."""
        if value is _MISSING:
            return {}
        if not isinstance(value, dict):
            self.fail(at or "document", "must be an object ({…})")
            return {}
        known = (*required, *optional)
        for key in value:
            if key not in known:
                self.fail(_key(at, key), f"is not a field here (the fields are {', '.join(known)})")
        for key in required:
            if key not in value:
                self.fail(_key(at, key), "is missing")
        return value

    def rows(self, value: Any, at: str, limit: int = MAX_ROWS) -> list[Any]:
        """The list's entries; ``[]`` if it is not a list or is too long (its entries are not read)."""
        if value is _MISSING:
            return []
        if not isinstance(value, list):
            self.fail(at, "must be a list ([…])")
            return []
        if len(value) > limit:
            self.fail(at, f"at most {limit} entries; this list has {len(value)}")
            return []
        return value

    def text(self, value: Any, at: str, limit: int) -> str | None:
        if value is _MISSING:
            return None
        if not isinstance(value, str):
            self.fail(at, "must be text")
            return None
        if "\x00" in value:
            self.fail(at, NUL)
            return None
        if len(value) > limit:
            self.fail(at, f"at most {limit:,} characters; this has {len(value):,}")
            return None
        return value.strip()

    def name(self, value: Any, at: str, what: str) -> str | None:
        """A name by the rule every name on a sheet follows (``lucky13.clean_name``)."""
        if value is _MISSING:
            return None
        if not isinstance(value, str):
            self.fail(at, "must be text")
            return None
        if "\x00" in value:
            self.fail(at, NUL)
            return None
        try:
            return lucky13.clean_name(value, what)
        except ValueError as problem:
            self.fail(at, str(problem))
            return None

    def whole(self, value: Any, at: str, low: int, high: int) -> int | None:
        if value is _MISSING:
            return None
        if isinstance(value, bool) or not isinstance(value, int):
            self.fail(at, "must be a whole number")
            return None
        if not low <= value <= high:
            self.fail(at, f"must be from {low} to {high}")
            return None
        return value

    def flag(self, value: Any, at: str) -> bool | None:
        if not isinstance(value, bool):
            self.fail(at, "must be true or false")
            return None
        return value

    def choice(self, value: Any, at: str, allowed: Sequence[str]) -> str | None:
        if value is _MISSING:
            return None
        if not isinstance(value, str) or value not in allowed:
            self.fail(at, f"must be one of {', '.join(json.dumps(a) for a in allowed)}")
            return None
        return value

    def die(self, value: Any, at: str) -> StepDie | None:
        """A die of a starting sheet: d4 … d12."""
        if value is _MISSING:
            return None
        if not isinstance(value, str):
            self.fail(at, 'must be a die label, "d4" … "d12"')
            return None
        try:
            die = StepDie.parse(value)
        except DiceError as problem:
            self.fail(at, str(problem))
            return None
        if not StepDie.of(4) <= die <= lucky13.MAX_ABILITY:
            self.fail(at, f"a die here is d4 … d12, not {die.label}")
            return None
        return die

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
        if len(value) > MAX_ROWS:
            self.fail(at, f"at most {MAX_ROWS} entries; this list has {len(value)}")
            return None
        rolls = [self.whole(roll, _item(at, i), 1, 100) for i, roll in enumerate(value)]
        return None if None in rolls else tuple(r for r in rolls if r is not None)


def _header(document: Any) -> None:
    """The schema and its version come first: another version may have other fields."""
    if not isinstance(document, dict):
        raise _refuse("document", "a character document is a JSON object ({…})")
    if document.get("schema") != SCHEMA:
        raise _refuse("schema", f'this is not a Dicehall character document ("schema" must be "{SCHEMA}")')
    if "schema_version" not in document:
        raise _refuse("schema_version", "is missing: every character document says which version of the schema it is")
    version = document["schema_version"]
    if isinstance(version, bool) or not isinstance(version, int):
        raise _refuse("schema_version", "must be a whole number")
    if version != SCHEMA_VERSION:
        raise _refuse(
            "schema_version",
            f"this Dicehall reads version {SCHEMA_VERSION} of the character schema, and this document is version "
            f"{version}: export the character again from a Dicehall that writes version {SCHEMA_VERSION}",
        )


def _skills(r: _Reader, value: Any) -> list[SkillEntry]:
    skills = []
    specializations = 0
    for i, row in enumerate(r.rows(value, "skills")):
        at = _item("skills", i)
        fields = r.fields(row, at, ("name", "die"), ("ability", "specializations"))
        name = r.name(fields.get("name", _MISSING), _key(at, "name"), "Each skill")
        die = r.die(fields.get("die", _MISSING), _key(at, "die"))
        if fields.get("ability") is not None:  # informational: the target campaign links its own skills
            r.choice(fields["ability"], _key(at, "ability"), lucky13.ABILITY_KEYS)
        specs = []
        for j, spec in enumerate(r.rows(fields.get("specializations", []), _key(at, "specializations"))):
            spec_at = _item(_key(at, "specializations"), j)
            spec_fields = r.fields(spec, spec_at, ("name",), ("level",))
            specializations += 1
            specs.append(
                (
                    r.name(spec_fields.get("name", _MISSING), _key(spec_at, "name"), "Each specialization"),
                    r.whole(spec_fields.get("level", 1), _key(spec_at, "level"), 1, lucky13.MAX_SPECIALIZATION_LEVEL),
                )
            )
        skills.append(SkillEntry(name, die, tuple(specs)))
    if specializations > MAX_ROWS:
        r.fail("skills", f"at most {MAX_ROWS} specializations in all; these skills have {specializations}")
    return skills


def _traits(r: _Reader, document: Mapping[str, Any], key: str, kind: str) -> list[TraitChoice]:
    traits = []
    for i, row in enumerate(r.rows(document.get(key, []), key)):
        at = _item(key, i)
        fields = r.fields(row, at, ("name",), ("description",))
        traits.append(
            TraitChoice(
                kind=kind,
                name=r.name(fields.get("name", _MISSING), _key(at, "name"), "Each background and impairment"),
                description=r.text(fields.get("description", ""), _key(at, "description"), MAX_DESCRIPTION),
            )
        )
    return traits


def _assets(r: _Reader, value: Any) -> list[AssetChoice]:
    assets = []
    for i, row in enumerate(r.rows(value, "assets")):
        at = _item("assets", i)
        fields = r.fields(row, at, ("name", "level"), ("kind", "skills", "description"))
        helped = [
            r.text(name, _item(_key(at, "skills"), j), lucky13.MAX_NAME)
            for j, name in enumerate(r.rows(fields.get("skills", []), _key(at, "skills")))
        ]
        assets.append(
            AssetChoice(
                name=r.name(fields.get("name", _MISSING), _key(at, "name"), "Each asset"),
                level=r.whole(fields.get("level", _MISSING), _key(at, "level"), 1, 5),
                kind=r.choice(fields.get("kind", Asset.Kind.THING.value), _key(at, "kind"), Asset.Kind.values),
                skills=tuple(helped),
                description=r.text(fields.get("description", ""), _key(at, "description"), MAX_DESCRIPTION),
            )
        )
    return assets


def _weapons(r: _Reader, value: Any) -> list[WeaponChoice]:
    weapons = []
    for i, row in enumerate(r.rows(value, "weapons")):
        at = _item("weapons", i)
        fields = r.fields(row, at, ("name", "accuracy", "damage"))
        weapons.append(
            WeaponChoice(
                name=r.name(fields.get("name", _MISSING), _key(at, "name"), "Each weapon"),
                accuracy=r.die(fields.get("accuracy", _MISSING), _key(at, "accuracy")),
                damage=r.die(fields.get("damage", _MISSING), _key(at, "damage")),
            )
        )
    return weapons


def _armor(r: _Reader, value: Any) -> list[ArmorChoice]:
    armor = []
    for i, row in enumerate(r.rows(value, "armor")):
        at = _item("armor", i)
        fields = r.fields(row, at, ("name", "defense"))
        armor.append(
            ArmorChoice(
                name=r.name(fields.get("name", _MISSING), _key(at, "name"), "Each piece of armor"),
                defense=r.die(fields.get("defense", _MISSING), _key(at, "defense")),
            )
        )
    return armor


def read_document(document: Any) -> Document:
    """The document checked against the schema: fields, types, sizes. :class:`DocumentError`
    names every problem found. Nothing here knows the target campaign."""
    _header(document)
    r = _Reader()
    r.fields(document, "", [k for k, req in FIELDS.items() if req], [k for k, req in FIELDS.items() if not req])
    get = document.get

    system = r.text(get("system", _MISSING), "system", 40)
    r.whole(get("version", 1), "version", 1, 2**31 - 1)  # informational: an import is a new character
    name = r.name(get("name", _MISSING), "name", "A character")
    concept = r.text(get("concept", ""), "concept", MAX_CONCEPT)
    names = r.fields(get("ability_names", {}), "ability_names", (), lucky13.ABILITY_KEYS)
    for key in lucky13.ABILITY_KEYS:  # informational: the target campaign names its own abilities
        r.text(names.get(key, _MISSING), _key("ability_names", key), lucky13.MAX_NAME)
    given = r.fields(get("abilities", _MISSING), "abilities", lucky13.ABILITY_KEYS)
    abilities = {key: r.die(given.get(key, _MISSING), _key("abilities", key)) for key in lucky13.ABILITY_KEYS}
    method = r.choice(get("ability_method", _MISSING), "ability_method", ABILITY_METHODS)
    rolls = r.fields(get("creation_rolls", {}), "creation_rolls", (), ("abilities", "skills"))
    ability_rolls = skill_rolls = None
    if "abilities" in rolls:
        ability_rolls = r.percentiles(rolls["abilities"], "creation_rolls.abilities", len(lucky13.ABILITY_KEYS))
    if "skills" in rolls:
        skill_rolls = r.percentiles(rolls["skills"], "creation_rolls.skills")
    skills = _skills(r, get("skills", _MISSING))
    took = r.flag(get("took_impairment", False), "took_impairment")
    backgrounds = _traits(r, document, "backgrounds", Trait.Kind.BACKGROUND)
    impairments = _traits(r, document, "impairments", Trait.Kind.IMPAIRMENT)
    if len(backgrounds) + len(impairments) > MAX_ROWS:
        r.fail("impairments", f"at most {MAX_ROWS} backgrounds and impairments together")
    assets = _assets(r, get("assets", []))
    weapons = _weapons(r, get("weapons", []))
    armor = _armor(r, get("armor", []))
    hit_points = None
    if get("hit_points") is not None:  # informational: an import starts at full hit points
        hit_points = r.whole(document["hit_points"], "hit_points", -10_000, 10_000)
    reputation = r.whole(get("reputation", 0), "reputation", -5, 5)
    notes = r.text(get("notes", ""), "notes", MAX_NOTES)
    integrity = None
    if get("integrity") is not None:
        integrity = r.text(document["integrity"], "integrity", MAX_SIGNATURE)

    if r.errors:
        raise DocumentError(r.errors)
    # Past this point every value was read: none of them is None.
    return Document(
        system=system,
        name=name,
        concept=concept,
        abilities=abilities,
        ability_method=method,
        ability_rolls=ability_rolls,
        skill_rolls=skill_rolls,
        skills=tuple(skills),
        took_impairment=took,
        backgrounds=tuple(backgrounds),
        impairments=tuple(impairments),
        assets=tuple(assets),
        weapons=tuple(weapons),
        armor=tuple(armor),
        hit_points=hit_points,
        reputation=reputation,
        notes=notes,
        integrity=integrity,
    )


# --- Import ----------------------------------------------------------------------------------

_ARRAY_ADVICE: Final = (
    'to use the array method, set "ability_method" to "balanced" or "specialized", give each ability a die '
    'of that array, and leave out "creation_rolls.abilities"'
)


class _ServerRolls(random.Random):
    """d100s this server rolled and signed, handed back in order to the creation operation
    that rolls them. The operations take their randomness as an argument (views pass
    ``secrets.SystemRandom()``), so an import replays the rolls through exactly the code
    that made them, and nothing is rolled anew or taken from the client unsigned."""

    def __init__(self, rolls: Sequence[int]) -> None:
        super().__init__()
        self.left = list(rolls)

    def randint(self, a: int, b: int) -> int:
        if (a, b) != (1, 100) or not self.left:
            raise RuntimeError("a creation operation asked for a roll the document does not hold")
        return self.left.pop(0)

    def random(self) -> float:
        raise RuntimeError("only the signed d100 rolls can be replayed")

    def getrandbits(self, k: int) -> int:
        raise RuntimeError("only the signed d100 rolls can be replayed")


def _replay(rolls: Sequence[int], operation: Any, **kwargs: Any) -> None:
    rng = _ServerRolls(rolls)
    operation(rng=rng, **kwargs)
    if rng.left:
        raise RuntimeError("a creation operation used fewer rolls than the document holds")


def _signed(doc: Document) -> bool:
    """Whether this server signed the document's rolls, and the dice they give, as they stand."""
    if doc.integrity is None:
        return False
    named = None
    if doc.skill_rolls is not None:
        if len(doc.skill_rolls) != len(doc.skills):
            return False
        named = [(skill.name, roll) for skill, roll in zip(doc.skills, doc.skill_rolls, strict=True)]
    return _verified(_rolls_payload(doc.system, doc.ability_rolls, named), doc.integrity)


def _check_rolled(rolls: Sequence[int], dice: Sequence[tuple[str, StepDie]], found: _Problems) -> None:
    """Each die must be what its roll gives ("Random ability method": 01–20 d4 … 81–00 d12)."""
    for (at, die), roll in zip(dice, rolls, strict=True):
        expected = lucky13.ability_from_percentile(roll)
        if die != expected:
            found.fail(at, f"{die} is not what its roll gives: {roll} is {expected}")


def _check_abilities(doc: Document, campaign: Campaign, found: _Problems, *, signed: bool) -> None:
    """ "Random ability method" and "Array method", as the campaign allows them."""
    allowed = creation.allowed_ability_methods(campaign.settings)
    if doc.ability_method == Character.AbilityMethod.RANDOM:
        if "random" not in allowed:
            found.fail("ability_method", f"{campaign.name} allows only the array method for abilities: {_ARRAY_ADVICE}")
        elif doc.ability_rolls is None:
            found.fail(
                "creation_rolls.abilities",
                f"rolled abilities come with their rolls, and there are none here: {_ARRAY_ADVICE}",
            )
        elif not signed:
            found.fail(
                "integrity",
                "these rolls were not made by this Dicehall, or were changed since; dice are rolled on the "
                f"server only, so rolls cannot be taken on trust: {_ARRAY_ADVICE}",
            )
        else:
            at = [(_key("abilities", key), doc.abilities[key]) for key in lucky13.ABILITY_KEYS]
            _check_rolled(doc.ability_rolls, at, found)
        return
    if doc.ability_rolls is not None:
        found.fail(
            "creation_rolls.abilities",
            f"only rolled abilities have rolls; leave them out with the {doc.ability_method} array",
        )
    if doc.ability_method not in allowed:
        found.fail(
            "ability_method",
            f"{campaign.name} rolls every character's abilities on the server, so a character cannot join it "
            "with chosen dice: create the character in the campaign instead",
        )
        return
    try:
        lucky13.check_ability_array(doc.ability_method, doc.abilities)
    except lucky13.SheetError as problem:
        found.fail("abilities", problem.message)


def _check_skills(doc: Document, campaign: Campaign, found: _Problems, *, signed: bool) -> None:
    """The campaign's skill list, and its skill method: linked ability, array, point buy or random."""
    options = campaign.settings
    listed = [s["name"] for s in options["skills"]]
    seen: set[str] = set()
    matched = True
    for i, skill in enumerate(doc.skills):
        at = _key(_item("skills", i), "name")
        if skill.name in seen or skill.name not in listed:
            matched = False
            found.fail(
                at,
                f"{skill.name} is listed twice"
                if skill.name in seen
                else f"{skill.name} is not one of {campaign.name}'s skills ({', '.join(listed)})",
            )
        seen.add(skill.name)
    missing = [name for name in listed if name not in seen]
    if missing:
        matched = False
        found.fail("skills", f"{campaign.name} also has {', '.join(missing)}: give each of its skills a die")
    if not matched:
        return

    method = options["skill_method"]
    if method == "ability":
        expected = lucky13.skill_dice_by_ability(options["skills"], doc.abilities)
        names = dict(zip(lucky13.ABILITY_KEYS, options["ability_names"], strict=True))
        linked = {s["name"]: s["ability"] for s in options["skills"]}
        for i, skill in enumerate(doc.skills):
            if skill.die != expected[skill.name]:
                source = (
                    f"its linked ability's die, {names[linked[skill.name]]} {expected[skill.name]}"
                    if linked[skill.name]
                    else "d4, as it has no linked ability"
                )
                found.fail(
                    _key(_item("skills", i), "die"), f"in {campaign.name} {skill.name} has {source}, not {skill.die}"
                )
    elif method == "random":
        if doc.skill_rolls is None or len(doc.skill_rolls) != len(doc.skills):
            found.fail(
                "creation_rolls.skills",
                f"{campaign.name} rolls skill dice on the server, and this document brings no skill rolls made "
                "here, one per skill: create the character in the campaign instead",
            )
        elif not signed:
            found.fail(
                "integrity",
                "these skill rolls were not made by this Dicehall, or were changed since, and "
                f"{campaign.name} rolls skill dice on the server: create the character in the campaign instead",
            )
        else:
            at = [(_key(_item("skills", i), "die"), skill.die) for i, skill in enumerate(doc.skills)]
            _check_rolled(doc.skill_rolls, at, found)
    else:
        try:
            lucky13.check_skill_dice(method, options, doc.abilities, {s.name: s.die for s in doc.skills})
        except lucky13.SheetError as problem:
            found.fail("skills", problem.message)


def _check_the_rest(doc: Document, campaign: Campaign, found: _Problems) -> None:
    """Starting specializations (+1 with an impairment), the impairment itself, the skills assets help."""
    allowance = lucky13.specialization_allowance(campaign.settings, impairment=doc.took_impairment)
    total = sum(len(skill.specializations) for skill in doc.skills)
    count = 0
    for i, skill in enumerate(doc.skills):
        names: set[str] = set()
        for j, (name, _) in enumerate(skill.specializations):
            at = _item(_key(_item("skills", i), "specializations"), j)
            count += 1
            if count == allowance + 1:
                extra = "" if doc.took_impairment else " (one more with an impairment)"
                found.fail(
                    at,
                    f"a new character in {campaign.name} starts with at most {allowance} specializations{extra}, "
                    f"and this document has {total}",
                )
            if name.lower() in names:
                found.fail(_key(at, "name"), f"{skill.name} has {name} twice")
            names.add(name.lower())
    if doc.took_impairment and not doc.impairments:
        found.fail(
            "impairments",
            "took_impairment is true (an impairment bought one more specialization), so name the impairment here",
        )
    skills = {skill.name for skill in doc.skills}
    for i, asset in enumerate(doc.assets):
        for j, name in enumerate(asset.skills):
            if name not in skills:
                found.fail(_item(_key(_item("assets", i), "skills"), j), f"{name} is not one of the skills")


@contextmanager
def _reported_at(field: str) -> Iterator[None]:
    """A creation rule an operation enforced, reported at the document's field it concerns."""
    try:
        yield
    except lucky13.SheetError as problem:
        raise _refuse("campaign" if problem.field == "campaign" else field, problem.message) from problem
    except ValueError as problem:  # lucky13.clean_name's
        raise _refuse(field, str(problem)) from problem


def import_character(*, campaign: Campaign, owner: Any, document: Any) -> Character:
    """A new character in ``campaign``, owned by ``owner``, from an exported document.

    A fresh creation: the creation operations run in order in one transaction, so every
    creation rule of ``campaign`` applies; specializations start at level 1, reputation at
    0, hit points full, no Adventure Points (see :func:`resets`). Raises
    :class:`DocumentError`, naming the fields, with nothing written.
    """
    doc = read_document(document)
    if doc.system != campaign.system:
        other = systems.get(doc.system).name if doc.system in systems.registered_keys() else json.dumps(doc.system)
        raise _refuse(
            "system",
            f"{campaign.name} plays {campaign.rules.name} and this is a {other} character: "
            "a character moves only between campaigns of the same rules system",
        )
    found = _Problems()
    signed = _signed(doc)
    _check_abilities(doc, campaign, found, signed=signed)
    _check_skills(doc, campaign, found, signed=signed)
    _check_the_rest(doc, campaign, found)
    if found.errors:
        raise DocumentError(found.errors)

    options = campaign.settings
    with transaction.atomic():
        with _reported_at("name"):
            character = creation.start_character(campaign=campaign, owner=owner, name=doc.name, concept=doc.concept)
        pk = character.pk
        with _reported_at("abilities"):
            if doc.ability_method == Character.AbilityMethod.RANDOM:
                _replay(doc.ability_rolls or (), creation.roll_abilities, character_id=pk)
            else:
                creation.assign_abilities(character_id=pk, array=doc.ability_method, dice=doc.abilities)
        with _reported_at("skills"):
            if options["skill_method"] == "random":
                rolls = dict(zip([skill.name for skill in doc.skills], doc.skill_rolls or (), strict=True))
                _replay([rolls[s["name"]] for s in options["skills"]], creation.set_skills, character_id=pk)
            elif options["skill_method"] == "ability":
                creation.set_skills(character_id=pk)
            else:
                creation.set_skills(character_id=pk, dice={skill.name: skill.die for skill in doc.skills})
        with _reported_at("skills"):
            creation.set_specializations(
                character_id=pk,
                choices=[
                    SpecializationChoice(skill.name, name) for skill in doc.skills for name, _ in skill.specializations
                ],
                took_impairment=doc.took_impairment,
            )
        with _reported_at("impairments"):
            creation.set_traits(character_id=pk, traits=[*doc.backgrounds, *doc.impairments])
        with _reported_at("assets"):
            creation.set_equipment(character_id=pk, assets=doc.assets, weapons=doc.weapons, armor=doc.armor)
        with _reported_at("document"):
            creation.finish(character_id=pk)
        if doc.notes:
            # Notes have no creation step and no rule but their length (checked when read).
            Character.objects.filter(pk=pk).update(notes=doc.notes)
    return Character.objects.get(pk=pk)


def resets(*, campaign: Campaign, document: Any) -> list[str]:
    """What an import of ``document`` into ``campaign`` starts afresh, said for the player:
    an import is a new character, so specializations are level 1, reputation 0, hit points
    full and Adventure Points none. Raises :class:`DocumentError` for a malformed document."""
    doc = read_document(document)
    options = campaign.settings
    changes = [
        f"{name} ({skill.name}) from level {level} to level 1"
        for skill in doc.skills
        for name, level in skill.specializations
        if level > 1
    ]
    if doc.reputation:
        changes.append(f"reputation from {doc.reputation:+d} to 0")
    full = lucky13.max_hit_points(doc.abilities["pulse"], options["hit_points_per_step"])
    if doc.hit_points is not None and doc.hit_points != full:
        changes.append(f"hit points from {doc.hit_points} to {full} (full)")
    changes.append("Adventure Points start at 0 (points earned stay with the original character)")
    return changes
