"""Changing a finished character's sheet, one section at a time.

Who may change what is written down once, in :data:`SECTIONS`; the views show
Edit buttons from it and :func:`save_section` enforces it, whoever calls.

No lost work: every save carries the version of the section it was made from
(``Character.section_versions``; a section with no entry has not changed since
creation, version 0). A save made from an older version is refused with
:class:`StaleSection` before anything is checked or written. Sections never
share what they write: the skill dice are one section and the specializations
(their names and levels) another, so a save to one never overwrites the other.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

import django.dispatch
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import transaction
from django.utils import timezone

from campaigns.models import Campaign, Membership
from characters.creation import MAX_CONCEPT, MAX_DESCRIPTION, MAX_NOTES, MAX_ROWS, check_die
from characters.models import Armor, Asset, Character, ReputationChange, Skill, Specialization, Trait, Weapon
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import SheetError

# --- Who may change what ---------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Section:
    """A part of the sheet that is edited and saved on its own."""

    key: str
    label: str
    #: Whether the character's player may change it; the GM always may.
    player: bool
    #: Why only the GM may change it, or what in it only the GM may change; said to players.
    gm_only: str = ""


#: Who may change each section of a Lucky 13 sheet: our reading of the rule text (issue 3).
#: The player keeps the story (names, backgrounds, gear, notes); the numbers that in play
#: move through Adventure Points, damage or the GM's judgement are the GM's to correct.
SECTIONS: Final[dict[str, Section]] = {
    section.key: section
    for section in (
        Section("details", "name and concept", player=True),
        Section("abilities", "abilities", player=False,
                gm_only="only the GM can correct the ability dice; in play they rise by spending Adventure Points"),
        Section("skills", "skill dice", player=False,
                gm_only="only the GM can correct the skill dice, which are set when a character is created"),
        Section("specializations", "specializations", player=True,
                gm_only="only the GM can add or remove specializations or change their levels; "
                        "you can rename them"),
        Section("traits", "backgrounds and impairments", player=True),
        Section("equipment", "equipment", player=True),
        Section("hit-points", "hit points", player=False,
                gm_only="only the GM can change the hit points"),
        Section("reputation", "reputation", player=False,
                gm_only="only the GM can change the reputation"),
        Section("notes", "notes", player=True),
    )
}  # fmt: skip


def sentence(message: str) -> str:
    """An engine message ("a level is from 1 to 5") as a sentence for the page."""
    message = message.strip()
    if not message:
        return message
    message = message[0].upper() + message[1:]
    return message if message.endswith((".", "!", "?")) else message + "."


def refusal(character: Character, section: Section, *, is_owner: bool, is_gm: bool) -> str | None:
    """Why this user may not change ``section`` of ``character``, for them to read; None if they may."""
    if character.campaign.archived_at is not None:
        return "This campaign is archived: its sheets can be read but not changed."
    if character.status == Character.Status.ARCHIVED:
        return "This character is archived and can no longer be changed."
    if character.status == Character.Status.DRAFT:
        return "This character is still a draft: finish it in the creation steps first."
    if is_gm:
        return None
    if not is_owner:
        return "Only the character's player and the GM can change this sheet."
    if not section.player:
        return sentence(section.gm_only)
    return None


def editable_sections(character: Character, user: AbstractBaseUser) -> set[str]:
    """The sections ``user`` may change, for a character loaded through ``characters.access``."""
    is_gm, is_owner = character.viewer_is_gm, character.owner_id == user.pk
    return {key for key, section in SECTIONS.items() if not refusal(character, section, is_owner=is_owner, is_gm=is_gm)}


class NotAllowed(PermissionDenied):
    """The user may not make this change; the message says why, for them."""


class StaleSection(Exception):
    """The section changed since the form was made; nothing was written."""

    def __init__(self, section: str, *, made_from: int, now: int) -> None:
        super().__init__(f"{section} changed at version {now}, after version {made_from}")
        self.section = section
        self.made_from = made_from
        self.now = now


class InvalidSection(SheetError):
    """Values that break a rule; ``errors`` maps where each problem is to its messages, for players.

    A key is a field (``"name"``), a row's field (``"spec-2-level"``: the row's ``at`` and the
    field), or ``""`` for the section as a whole.
    """

    def __init__(self, errors: dict[str, list[str]]) -> None:
        where, messages = next(iter(errors.items()))
        super().__init__(where or "section", messages[0])
        self.errors = errors


def section_version(character: Character, section: str) -> int:
    """The version at which ``section`` last changed; 0 if it has not changed since creation."""
    return int(character.section_versions.get(section, 0))


def is_stale(character: Character, section: str, version: int) -> bool:
    return section_version(character, section) > version or version > character.version


# --- What a save carries ---------------------------------------------------------------------
# Values are parsed (dice as StepDie, numbers as int) but not yet checked: the checks are here.
# A row's ``at`` says where a message about it belongs (the form's prefix for that row);
# ``id`` is None for a new row.


@dataclass(frozen=True, slots=True)
class Details:
    name: str
    concept: str = ""


@dataclass(frozen=True, slots=True)
class SpecializationRow:
    at: str
    id: int | None
    name: str
    skill: str = ""  # new rows only: the skill it belongs to
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
    skills: tuple[str, ...] = ()
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


class _Problems:
    """Every rule a save breaks, collected so that the player sees them all at once."""

    def __init__(self) -> None:
        self.errors: dict[str, list[str]] = {}

    def add(self, where: str, message: str) -> None:
        self.errors.setdefault(where, []).append(sentence(message))

    def check(self, where: str, check: Callable[..., Any], *args: Any) -> Any:
        """Runs an engine check; its message, if it refuses, goes to ``where``."""
        try:
            return check(*args)
        except ValueError as problem:  # SheetError, and clean_name's ValueError
            self.add(where, getattr(problem, "message", str(problem)))
            return None

    def raise_any(self) -> None:
        if self.errors:
            raise InvalidSection(self.errors)


def _field(at: str, name: str) -> str:
    return f"{at}-{name}" if at else name


def _rows_of(rows: Sequence[Any], existing: Mapping[int, Any], what: str, problems: _Problems) -> None:
    if len([r for r in rows if not r.remove]) > MAX_ROWS:
        problems.add("", f"at most {MAX_ROWS} {what}")
    for row in rows:
        if row.id is not None and row.id not in existing:
            problems.add(row.at, "this row is no longer on the sheet: reload the page and try again")


def _description(value: str, where: str, problems: _Problems) -> str:
    value = value.strip()
    if len(value) > MAX_DESCRIPTION:
        problems.add(where, f"keep descriptions under {MAX_DESCRIPTION} characters")
    return value


# --- Each section: check, then write ---------------------------------------------------------
# A writer checks everything first and writes only if nothing is wrong; it returns the
# Character fields it changed. ``gm`` says whether the GM is saving.


def _save_details(character: Character, data: Details, *, gm: bool) -> list[str]:
    problems = _Problems()
    name = problems.check("name", lucky13.clean_name, data.name, "A character")
    concept = " ".join(data.concept.split())
    if len(concept) > MAX_CONCEPT:
        problems.add("concept", f"keep the concept under {MAX_CONCEPT} characters")
    problems.raise_any()
    character.name, character.concept = name, concept
    return ["name", "concept"]


def _hit_point_range(pulse: StepDie, options: Mapping[str, Any]) -> tuple[int, int]:
    """ "Hit points" and "Death & dying": from death (minus the base Pulse die's size) to the maximum."""
    return lucky13.death_threshold(pulse), lucky13.max_hit_points(pulse, options["hit_points_per_step"])


def _save_abilities(character: Character, data: Mapping[str, StepDie], *, gm: bool) -> list[str]:
    problems = _Problems()
    options = character.campaign.settings
    names = dict(zip(lucky13.ABILITY_KEYS, options["ability_names"], strict=True))
    dice = {}
    for key in lucky13.ABILITY_KEYS:
        die = data.get(key)
        dice[key] = problems.check(key, check_die, die if die is not None else StepDie.none(), "character's ability")
    pulse = dice["pulse"]
    if pulse is not None and character.hit_points is not None:
        low, high = _hit_point_range(pulse, options)
        if not low <= character.hit_points <= high:
            problems.add(
                "pulse",
                f"with {names['pulse']} {pulse} the hit points run from {low} to {high}, and {character.name} "
                f"has {character.hit_points}: change the hit points first",
            )
    problems.raise_any()
    for key, die in dice.items():
        setattr(character, key, die.rung)
    return list(lucky13.ABILITY_KEYS)


def _save_skills(character: Character, data: Mapping[str, StepDie], *, gm: bool) -> list[str]:
    problems = _Problems()
    skills = list(character.skills.all())
    unknown = sorted(set(data) - {s.name for s in skills})
    if unknown:
        problems.add("", f"{', '.join(unknown)} is not one of {character.name}'s skills")
    for skill in skills:
        if skill.name in data:
            problems.check(skill.name, check_die, data[skill.name], "skill")
    problems.raise_any()
    changed = [s for s in skills if s.name in data and data[s.name].rung != s.die]
    for skill in changed:
        skill.die = data[skill.name].rung
    Skill.objects.bulk_update(changed, ["die"])
    return []


def _save_specializations(character: Character, rows: Sequence[SpecializationRow], *, gm: bool) -> list[str]:
    problems = _Problems()
    skills = {s.name: s for s in character.skills.all()}
    existing = {s.pk: s for s in Specialization.objects.filter(skill__character=character).select_related("skill")}
    _rows_of(rows, existing, "specializations per save", problems)
    if not gm:
        for row in rows:
            current = existing.get(row.id) if row.id is not None else None
            if row.id is None or row.remove or (current and row.level is not None and row.level != current.level):
                raise NotAllowed(sentence(SECTIONS["specializations"].gm_only))
    # Every specialization left afterwards, by skill: (name, where a clash is reported, whether it is new or renamed).
    kept: dict[int, list[tuple[str, str, bool]]] = {}
    changes: list[tuple[Specialization, str, int]] = []
    new: list[Specialization] = []
    seen = {row.id for row in rows if row.id is not None}
    for spec in existing.values():
        if spec.pk not in seen:
            kept.setdefault(spec.skill_id, []).append((spec.name, "", False))
    for row in rows:
        current = existing.get(row.id) if row.id is not None else None
        if row.remove or (row.id is not None and current is None):
            continue  # removed, or reported above
        name = problems.check(_field(row.at, "name"), lucky13.clean_name, row.name, "Each specialization")
        level = row.level if row.level is not None else (current.level if current else 1)
        level = problems.check(_field(row.at, "level"), lucky13.check_level, level, "specialization level")
        skill = current.skill if current else skills.get(row.skill)
        if skill is None:
            problems.add(_field(row.at, "skill"), f"choose one of {character.name}'s skills")
            continue
        if name is None or level is None:
            continue
        kept.setdefault(skill.pk, []).append((name, _field(row.at, "name"), current is None or name != current.name))
        if current is None:
            new.append(Specialization(skill=skill, name=name, level=level))
        elif (name, level) != (current.name, current.level):
            changes.append((current, name, level))
    skill_names = {s.pk: s.name for s in skills.values()}
    for skill_id, names in kept.items():
        by_name: dict[str, list[tuple[str, str, bool]]] = {}
        for entry in names:
            by_name.setdefault(entry[0].lower(), []).append(entry)
        for same in (same for same in by_name.values() if len(same) > 1):
            blamed = [entry for entry in same if entry[2]] or same[1:]
            for name, where, _ in blamed:
                problems.add(where, f"{skill_names[skill_id]} already has a specialization called {name}")
    problems.raise_any()
    removed = [row.id for row in rows if row.remove]
    Specialization.objects.filter(skill__character=character, pk__in=removed).delete()
    renamed = [spec for spec, name, _ in changes if name != spec.name]
    if renamed:  # two names swapped would clash on the way: step through names nobody uses
        for spec in renamed:
            spec.name = f"\u2060{spec.pk}\u2060"
        Specialization.objects.bulk_update(renamed, ["name"])
    for spec, name, level in changes:
        spec.name, spec.level = name, level
    Specialization.objects.bulk_update([spec for spec, _, _ in changes], ["name", "level"])
    Specialization.objects.bulk_create(new)
    return []


def _save_traits(character: Character, rows: Sequence[TraitRow], *, gm: bool) -> list[str]:
    problems = _Problems()
    existing = {t.pk: t for t in character.traits.all()}
    had_impairment = any(t.kind == Trait.Kind.IMPAIRMENT for t in existing.values())
    _rows_of(rows, existing, "backgrounds and impairments", problems)
    updates, new = [], []
    for row in rows:
        current = existing.get(row.id) if row.id is not None else None
        if row.remove or (row.id is not None and current is None):
            continue
        if row.kind not in Trait.Kind.values:
            problems.add(_field(row.at, "kind"), "a trait is a background or an impairment")
        name = problems.check(_field(row.at, "name"), lucky13.clean_name, row.name, "Each background and impairment")
        description = _description(row.description, _field(row.at, "description"), problems)
        trait = current or Trait(character=character)
        trait.kind, trait.name, trait.description = row.kind, name, description
        (new if current is None else updates).append(trait)
    removed = {row.id for row in rows if row.remove}
    # Updated rows are the existing objects, changed in place: their kind is the new one.
    left = [t for t in existing.values() if t.pk not in removed] + new
    if (
        character.took_impairment
        and had_impairment
        and not gm
        and not any(t.kind == Trait.Kind.IMPAIRMENT for t in left)
    ):
        problems.add(
            "",
            "you took an impairment for an extra specialization, so one stays on the sheet; "
            "only the GM can remove the last one",
        )
    problems.raise_any()
    Trait.objects.filter(character=character, pk__in=removed).delete()
    Trait.objects.bulk_update(updates, ["kind", "name", "description"])
    Trait.objects.bulk_create(new)
    return []


def _save_equipment(character: Character, data: Equipment, *, gm: bool) -> list[str]:
    """Assets (level 1 Inferior … 5 Perfect, the skills each helps; a person can be one),
    weapons (accuracy and damage dice d4 … d12) and armor (a defensive die d4 … d12)."""
    problems = _Problems()
    skills = {s.name: s for s in character.skills.all()}
    assets = {a.pk: a for a in Asset.objects.filter(character=character).prefetch_related("skills")}
    weapons = {w.pk: w for w in character.weapons.all()}
    armor = {a.pk: a for a in character.armor.all()}
    _rows_of(data.assets, assets, "assets", problems)
    _rows_of(data.weapons, weapons, "weapons", problems)
    _rows_of(data.armor, armor, "pieces of armor", problems)

    asset_rows: list[tuple[Asset, list[Skill] | None]] = []
    for row in data.assets:
        current = assets.get(row.id) if row.id is not None else None
        if row.remove or (row.id is not None and current is None):
            continue
        name = problems.check(_field(row.at, "name"), lucky13.clean_name, row.name, "Each asset")
        level = problems.check(_field(row.at, "level"), lucky13.check_level, row.level, "level")
        if row.kind not in Asset.Kind.values:
            problems.add(_field(row.at, "kind"), "an asset is a thing or a person")
        unknown = [s for s in row.skills if s not in skills]
        if unknown:
            problems.add(_field(row.at, "skills"), f"{', '.join(unknown)} is not one of {character.name}'s skills")
        asset = current or Asset(character=character)
        asset.name, asset.level, asset.kind = name, level, row.kind
        asset.description = _description(row.description, _field(row.at, "description"), problems)
        helped = [skills[s] for s in dict.fromkeys(row.skills) if s in skills]
        unchanged = current is not None and {s.pk for s in current.skills.all()} == {s.pk for s in helped}
        asset_rows.append((asset, None if unchanged else helped))

    weapon_rows = []
    for row in data.weapons:
        current = weapons.get(row.id) if row.id is not None else None
        if row.remove or (row.id is not None and current is None):
            continue
        weapon = current or Weapon(character=character)
        weapon.name = problems.check(_field(row.at, "name"), lucky13.clean_name, row.name, "Each weapon")
        accuracy = problems.check(_field(row.at, "accuracy"), check_die, row.accuracy, "weapon's accuracy")
        damage = problems.check(_field(row.at, "damage"), check_die, row.damage, "weapon's damage")
        if accuracy and damage:
            weapon.accuracy, weapon.damage = accuracy.rung, damage.rung
        weapon_rows.append(weapon)

    armor_rows = []
    for row in data.armor:
        current = armor.get(row.id) if row.id is not None else None
        if row.remove or (row.id is not None and current is None):
            continue
        piece = current or Armor(character=character)
        piece.name = problems.check(_field(row.at, "name"), lucky13.clean_name, row.name, "Each piece of armor")
        defense = problems.check(_field(row.at, "defense"), check_die, row.defense, "defensive")
        if defense:
            piece.defense = defense.rung
        armor_rows.append(piece)
    problems.raise_any()

    Asset.objects.filter(character=character, pk__in=[r.id for r in data.assets if r.remove]).delete()
    Weapon.objects.filter(character=character, pk__in=[r.id for r in data.weapons if r.remove]).delete()
    Armor.objects.filter(character=character, pk__in=[r.id for r in data.armor if r.remove]).delete()
    for asset, helped in asset_rows:
        asset.save()
        if helped is not None:
            asset.skills.set(helped)
    for row in (*weapon_rows, *armor_rows):
        row.save()
    return []


def _save_hit_points(character: Character, data: int, *, gm: bool) -> list[str]:
    problems = _Problems()
    options = character.campaign.settings
    pulse_name = options["ability_names"][lucky13.ABILITY_KEYS.index("pulse")]
    if character.pulse is None:
        problems.add("hit_points", f"hit points come from the {pulse_name} die, once the abilities are set")
        problems.raise_any()
    low, high = _hit_point_range(StepDie(character.pulse), options)
    if isinstance(data, bool) or not isinstance(data, int) or not low <= data <= high:
        problems.add(
            "hit_points",
            f"with a {StepDie(character.pulse)} {pulse_name}, hit points run from {low} (dead) to {high} (full)",
        )
    problems.raise_any()
    character.hit_points = data
    return ["hit_points"]


def _save_reputation(character: Character, data: int, *, gm: bool) -> list[str]:
    problems = _Problems()
    problems.check("reputation", lucky13.check_reputation, data)
    problems.raise_any()
    character.reputation = data
    return ["reputation"]


def _save_notes(character: Character, data: str, *, gm: bool) -> list[str]:
    problems = _Problems()
    notes = data.strip()
    if len(notes) > MAX_NOTES:
        problems.add("notes", f"keep the notes under {MAX_NOTES:,} characters")
    problems.raise_any()
    character.notes = notes
    return ["notes"]


WRITERS: Final[dict[str, Callable[..., list[str]]]] = {
    "details": _save_details,
    "abilities": _save_abilities,
    "skills": _save_skills,
    "specializations": _save_specializations,
    "traits": _save_traits,
    "equipment": _save_equipment,
    "hit-points": _save_hit_points,
    "reputation": _save_reputation,
    "notes": _save_notes,
}
assert WRITERS.keys() == SECTIONS.keys()


#: Sent after commit with ``character_id`` whenever a sheet is saved: the live dashboard listens.
character_changed = django.dispatch.Signal()


def mark_changed(character: Character, *sections: str, fields: Sequence[str] = ()) -> None:
    """Record a change to ``sections`` (the caller holds the row lock): a new version, and each
    section's version is now that one, so that forms made from before it are refused."""
    character.version += 1
    character.section_versions = {**character.section_versions, **dict.fromkeys(sections, character.version)}
    character.save(update_fields=[*fields, "version", "section_versions", "updated_at"])
    Campaign.objects.filter(pk=character.campaign_id).update(last_activity_at=timezone.now())
    # Every sheet save passes here: announce it (hit points, AP, reputation) once it is committed.
    transaction.on_commit(lambda: character_changed.send(sender=Character, character_id=character.pk))


@transaction.atomic
def save_section(*, character_id: int, section: str, version: int, data: Any, by: AbstractBaseUser) -> Character:
    """Save one section of a finished character's sheet, made from ``version`` of that section.

    Raises :class:`NotAllowed` if ``by`` may not change it (see :data:`SECTIONS`),
    :class:`StaleSection` if it changed since ``version`` (nothing is written), and
    :class:`InvalidSection` with every broken rule (nothing is written).
    """
    spec = SECTIONS.get(section)
    if spec is None:
        raise SheetError("section", f"{section!r} is not a section of the sheet")
    character = Character.objects.lock(character_id)
    if character is None:
        raise Character.DoesNotExist(f"No character {character_id}")
    is_gm = Membership.objects.filter(
        campaign_id=character.campaign_id, user_id=by.pk, role=Membership.Role.GM
    ).exists()
    reason = refusal(character, spec, is_owner=character.owner_id == by.pk, is_gm=is_gm)
    if reason:
        raise NotAllowed(reason)
    if is_stale(character, section, version):
        raise StaleSection(section, made_from=version, now=section_version(character, section))
    reputation = character.reputation
    fields = WRITERS[section](character, data, gm=is_gm)
    if character.reputation != reputation:  # the reputation's history is kept, whoever changes it
        ReputationChange.objects.create(
            character=character,
            change=character.reputation - reputation,
            reputation=character.reputation,
            reason="Changed on the sheet",
            by=by,
        )
    mark_changed(character, section, fields=fields)
    return character
