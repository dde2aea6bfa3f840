"""Creating a Lucky 13 character, step by step, as the rule text orders it.

Each step is a keyword-only, atomic operation: it locks the draft, checks the
choice with the engine (``rules.systems.lucky13``), writes, and moves the draft
to the next step. A draft can be left at any step and finished later; nothing
a player chose is lost when they go back to an earlier step.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Final

from django.db import transaction
from django.utils import timezone

from campaigns.models import Campaign
from characters.models import Armor, Asset, Character, Skill, Specialization, Trait, Weapon
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import SheetError

#: The steps after name and concept, in order.
STEPS: tuple[tuple[str, str], ...] = (
    ("abilities", "Abilities"),
    ("skills", "Skills"),
    ("specializations", "Specializations"),
    ("traits", "Backgrounds and impairments"),
    ("equipment", "Equipment"),
    ("review", "Review"),
)
STEP_KEYS = tuple(key for key, _ in STEPS)

MAX_ROWS = 20
#: Limits on what players type, shared by creation, sheet editing and import.
MAX_CONCEPT: Final = 200
MAX_DESCRIPTION: Final = 2000
MAX_NOTES: Final = 20_000


def clean_description(text: str) -> str:
    text = text.strip()
    if len(text) > MAX_DESCRIPTION:
        raise SheetError("description", f"keep descriptions under {MAX_DESCRIPTION} characters")
    return text


class StaleDraft(SheetError):
    """The draft changed (another tab, or the GM helping) since the page was shown."""


def _locked(character_id: int, version: int | None = None) -> Character:
    """The draft, locked; with ``version``, only if nobody saved it since that version."""
    character = Character.objects.lock(character_id)
    if character is None:
        raise Character.DoesNotExist(f"No character {character_id}")
    if character.status != Character.Status.DRAFT:
        raise SheetError("status", "this character is already finished; edit it on its sheet")
    if version is not None and version != character.version:
        raise StaleDraft(
            "version",
            "this draft was saved somewhere else (another tab, or your GM) since you opened this page. "
            "Here it is now; what you entered on this page was not saved",
        )
    return character


def _advance(character: Character, done: str, *, fields: Sequence[str] = ()) -> None:
    """Record progress: the next step unless the draft already went further."""
    following = STEP_KEYS[min(STEP_KEYS.index(done) + 1, len(STEP_KEYS) - 1)]
    if not character.creation_step or STEP_KEYS.index(character.creation_step) < STEP_KEYS.index(following):
        character.creation_step = following
    character.version += 1
    character.save(update_fields=[*fields, "creation_step", "version", "updated_at"])
    Campaign.objects.filter(pk=character.campaign_id).update(last_activity_at=timezone.now())


def reached(character: Character, step: str) -> bool:
    """Whether the draft has got as far as ``step`` (earlier steps can be revisited)."""
    current = character.creation_step or STEP_KEYS[-1]
    return STEP_KEYS.index(step) <= STEP_KEYS.index(current)


@transaction.atomic
def start_character(*, campaign: Campaign, owner: Any, name: str, concept: str = "") -> Character:
    """Name and concept: the draft exists from here on."""
    if campaign.archived_at:
        raise SheetError("campaign", "this campaign is archived; no new characters can join it")
    clean = lucky13.clean_name(name, "A character")
    concept = concept.strip()
    if len(concept) > MAX_CONCEPT:
        raise SheetError("concept", f"keep the concept under {MAX_CONCEPT} characters")
    character = Character.objects.create(
        campaign=campaign, owner=owner, name=clean, concept=concept.strip(), creation_step=STEP_KEYS[0]
    )
    Campaign.objects.filter(pk=campaign.pk).update(last_activity_at=timezone.now())
    return character


@transaction.atomic
def delete_draft(*, character_id: int, by: Any) -> str:
    """The owner throws away a draft they no longer want; returns its name. A finished
    character is never deleted (it is archived instead), and nobody else's draft is."""
    character = _locked(character_id)
    if character.owner_id != by.pk:
        raise SheetError("owner", "only the player who started a draft can delete it")
    name = character.name
    character.delete()  # its skills, specializations, traits and equipment go with it
    return name


def _methods(options: Mapping[str, Any]) -> set[str]:
    allowed = options["ability_methods"]
    return (
        {"random", "balanced", "specialized"}
        if allowed == "either"
        else ({"random"} if allowed == "random" else {"balanced", "specialized"})
    )


def allowed_ability_methods(options: Mapping[str, Any]) -> list[str]:
    return [m for m in ("random", "balanced", "specialized") if m in _methods(options)]


def _set_abilities(character: Character, dice: Mapping[str, StepDie]) -> None:
    for key in lucky13.ABILITY_KEYS:
        setattr(character, key, dice[key].rung)


@transaction.atomic
def roll_abilities(*, version: int | None = None, character_id: int, rng: Random) -> Character:
    """ "Random ability method": the server rolls d100 for each ability, in order; the rolls are kept."""
    character = _locked(character_id, version)
    options = character.campaign.settings
    if "random" not in _methods(options):
        raise SheetError("method", "this campaign uses the array method for abilities")
    if character.ability_method == Character.AbilityMethod.RANDOM:
        raise SheetError("method", "the abilities were rolled already; the rolls stand")
    rolls = [rng.randint(1, 100) for _ in lucky13.ABILITY_KEYS]
    _set_abilities(character, lucky13.abilities_from_percentiles(rolls))
    _skills_follow_abilities(character, options)
    character.ability_method = Character.AbilityMethod.RANDOM
    character.creation_rolls = {**character.creation_rolls, "abilities": rolls}
    _advance(character, "abilities", fields=[*lucky13.ABILITY_KEYS, "ability_method", "creation_rolls"])
    return character


@transaction.atomic
def assign_abilities(
    *, version: int | None = None, character_id: int, array: str, dice: Mapping[str, StepDie]
) -> Character:
    """ "Array method": balanced or specialized dice, one per ability."""
    character = _locked(character_id, version)
    options = character.campaign.settings
    if array not in _methods(options):
        raise SheetError("method", "this campaign rolls abilities randomly")
    if character.ability_method == Character.AbilityMethod.RANDOM:
        raise SheetError("method", "the abilities were rolled already; the rolls stand")
    lucky13.check_ability_array(array, dice)
    _set_abilities(character, dice)
    _skills_follow_abilities(character, options)
    character.ability_method = array
    _advance(character, "abilities", fields=[*lucky13.ABILITY_KEYS, "ability_method"])
    return character


def _skills_follow_abilities(character: Character, options: Mapping[str, Any]) -> None:
    """With skills "equal to the linked ability", skill dice already set follow new abilities."""
    if options["skill_method"] == "ability" and character.skills.exists():
        dice = lucky13.skill_dice_by_ability(
            options["skills"],
            {k: getattr(character, k) and StepDie(getattr(character, k)) for k in lucky13.ABILITY_KEYS},
        )
        _write_skills(character, options, dice)


def _current_skill_dice(character: Character) -> dict[str, StepDie]:
    return {s.name: StepDie(s.die) for s in character.skills.all()}


def abilities_of(character: Character) -> dict[str, StepDie]:
    dice = {key: character.ability(key) for key in lucky13.ABILITY_KEYS}
    if any(d is None for d in dice.values()):
        raise SheetError("abilities", "choose the abilities first")
    return dice  # type: ignore[return-value]


def _write_skills(character: Character, options: Mapping[str, Any], dice: Mapping[str, StepDie]) -> None:
    existing = {s.name: s for s in character.skills.all()}
    for position, skill in enumerate(options["skills"]):
        row = existing.pop(skill["name"], None) or Skill(character=character, name=skill["name"])
        row.position, row.ability, row.die = position, skill["ability"] or "", dice[skill["name"]].rung
        row.save()
    # Skills no longer in the campaign's list: drop them only if nothing hangs on them.
    for stale in existing.values():
        if not stale.specializations.exists():
            stale.delete()


@transaction.atomic
def set_skills(
    *,
    version: int | None = None,
    character_id: int,
    dice: Mapping[str, StepDie] | None = None,
    rng: Random | None = None,
) -> Character:
    """Skill dice by the campaign's method: equal to the linked ability, an array, random, or point buy."""
    character = _locked(character_id, version)
    options = character.campaign.settings
    abilities = abilities_of(character)
    method = options["skill_method"]
    if method == "ability":
        dice = lucky13.skill_dice_by_ability(options["skills"], abilities)
    elif method == "random":
        rolls = _skill_rolls(character, options, rng)
        dice = {name: lucky13.ability_from_percentile(roll) for name, roll in rolls.items()}
    elif dice is None:
        raise SheetError("skills", lucky13.skill_dice_allowed(method, options, abilities))
    lucky13.check_skill_dice(method, options, abilities, dice)
    _write_skills(character, options, dice)
    _advance(character, "skills", fields=["creation_rolls"])
    return character


def _skill_rolls(character: Character, options: Mapping[str, Any], rng: Random | None) -> dict[str, int]:
    """The server's d100 for each skill, kept by skill name: a roll stands once made, a skill the
    GM added since is rolled now, and the record follows the campaign's order of skills."""
    names = [s["name"] for s in options["skills"]]
    before = dict(
        zip(
            character.creation_rolls.get("skill_names", names), character.creation_rolls.get("skills", []), strict=False
        )
    )
    missing = [name for name in names if name not in before]
    if missing and rng is None:
        raise SheetError("skills", "roll for the skills")
    rolls = {name: before[name] if name in before else rng.randint(1, 100) for name in names}  # type: ignore[union-attr]
    character.creation_rolls = {**character.creation_rolls, "skills": list(rolls.values()), "skill_names": names}
    return rolls


@dataclass(frozen=True, slots=True)
class SpecializationChoice:
    skill: str
    name: str


@transaction.atomic
def set_specializations(
    *, version: int | None = None, character_id: int, choices: Sequence[SpecializationChoice], took_impairment: bool
) -> Character:
    """Starting specializations at level 1, as many as the campaign allows (+1 for an impairment)."""
    character = _locked(character_id, version)
    options = character.campaign.settings
    skills = {s.name: s for s in character.skills.all()}
    if not skills:
        raise SheetError("specializations", "set the skills first")
    allowance = lucky13.specialization_allowance(options, impairment=took_impairment)
    if len(choices) > allowance:
        extra = " (one more with an impairment)" if not took_impairment else ""
        raise SheetError("specializations", f"a new character starts with at most {allowance}{extra}")
    seen = set()
    for choice in choices:
        if choice.skill not in skills:
            raise SheetError("specializations", f"{choice.skill!r} is not one of this campaign's skills")
        name = lucky13.clean_name(choice.name, "Each specialization")
        if (choice.skill, name.lower()) in seen:
            raise SheetError("specializations", f"{name} is listed twice under {choice.skill}")
        seen.add((choice.skill, name.lower()))
    Specialization.objects.filter(skill__character=character).delete()
    Specialization.objects.bulk_create(
        Specialization(skill=skills[c.skill], name=lucky13.clean_name(c.name, "Each specialization"), level=1)
        for c in choices
    )
    character.took_impairment = took_impairment
    _advance(character, "specializations", fields=["took_impairment"])
    return character


@dataclass(frozen=True, slots=True)
class TraitChoice:
    kind: str
    name: str
    description: str = ""


@transaction.atomic
def set_traits(*, version: int | None = None, character_id: int, traits: Sequence[TraitChoice]) -> Character:
    """Backgrounds and impairments: a name and a description each."""
    character = _locked(character_id, version)
    if len(traits) > MAX_ROWS:
        raise SheetError("traits", f"at most {MAX_ROWS} backgrounds and impairments")
    rows = []
    for trait in traits:
        if trait.kind not in Trait.Kind.values:
            raise SheetError("traits", "a trait is a background or an impairment")
        name = lucky13.clean_name(trait.name, "Each background and impairment")
        rows.append(
            Trait(character=character, kind=trait.kind, name=name, description=clean_description(trait.description))
        )
    if character.took_impairment and not any(t.kind == Trait.Kind.IMPAIRMENT for t in rows):
        raise SheetError(
            "traits",
            "you took an impairment for an extra specialization: describe it here, "
            "or go back and give up the extra specialization",
        )
    character.traits.all().delete()
    Trait.objects.bulk_create(rows)
    _advance(character, "traits")
    return character


@dataclass(frozen=True, slots=True)
class AssetChoice:
    name: str
    level: int
    kind: str = "thing"
    skills: tuple[str, ...] = ()
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
) -> Character:
    """Assets (level 1 Inferior … 5 Perfect, the skills each helps; a person can be one),
    weapons (accuracy and damage dice) and armor (a defensive die)."""
    character = _locked(character_id, version)
    if max(len(assets), len(weapons), len(armor)) > MAX_ROWS:
        raise SheetError("equipment", f"at most {MAX_ROWS} of each")
    skills = {s.name: s for s in character.skills.all()}
    asset_rows = []
    for asset in assets:
        lucky13.check_level(asset.level, "asset level")
        unknown = [name for name in asset.skills if name not in skills]
        if unknown:
            raise SheetError("assets", f"{', '.join(unknown)} is not one of this character's skills")
        if asset.kind not in Asset.Kind.values:
            raise SheetError("assets", "an asset is a thing or a person")
        asset_rows.append((asset, lucky13.clean_name(asset.name, "Each asset")))
    weapon_rows = [
        Weapon(
            character=character,
            name=lucky13.clean_name(w.name, "Each weapon"),
            accuracy=check_die(w.accuracy, "accuracy").rung,
            damage=check_die(w.damage, "damage").rung,
        )
        for w in weapons
    ]
    armor_rows = [
        Armor(
            character=character,
            name=lucky13.clean_name(a.name, "Each armor"),
            defense=check_die(a.defense, "defensive").rung,
        )
        for a in armor
    ]
    character.assets.all().delete()
    character.weapons.all().delete()
    character.armor.all().delete()
    for asset, name in asset_rows:
        row = Asset.objects.create(
            character=character, name=name, kind=asset.kind, level=asset.level,
            description=clean_description(asset.description),
        )  # fmt: skip
        row.skills.set([skills[s] for s in asset.skills])
    Weapon.objects.bulk_create(weapon_rows)
    Armor.objects.bulk_create(armor_rows)
    _advance(character, "equipment")
    return character


@transaction.atomic
def finish(*, version: int | None = None, character_id: int) -> Character:
    """Review done: the character joins the party at full hit points."""
    character = _locked(character_id, version)
    options = character.campaign.settings
    abilities = abilities_of(character)
    dice = _current_skill_dice(character)
    if set(dice) != {s["name"] for s in options["skills"]}:
        raise SheetError("skills", "set the skill dice first")
    if options["skill_method"] == "random":
        rolls = _skill_rolls(character, options, None)
        if any(dice[name] != lucky13.ability_from_percentile(roll) for name, roll in rolls.items()):
            raise SheetError("skills", "the skill dice must be the ones the server rolled")
    else:
        # The skill dice must still fit the campaign's method with the abilities as they are now.
        lucky13.check_skill_dice(options["skill_method"], options, abilities, dice)
    if character.took_impairment and not character.traits.filter(kind=Trait.Kind.IMPAIRMENT).exists():
        raise SheetError("traits", "describe the impairment you took for the extra specialization")
    if not reached(character, "review"):
        raise SheetError("review", "go through every step first")
    character.hit_points = lucky13.max_hit_points(abilities["pulse"], options["hit_points_per_step"])
    character.status = Character.Status.ACTIVE
    character.creation_step = ""
    character.version += 1
    character.save(update_fields=["hit_points", "status", "creation_step", "version", "updated_at"])
    Campaign.objects.filter(pk=character.campaign_id).update(last_activity_at=timezone.now())
    return character
