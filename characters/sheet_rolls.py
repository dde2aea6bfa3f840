"""A roll from the sheet, built and made on the server: a skill check or a reaction check.

The sheet roll page (``characters.roll_views``) and the JSON API both come here, so a check is
rebuilt from the sheet as it is now, the same way, whoever asks: the caller says only which
skill, specialization, asset and helper (by id, or by name from the API) and which options;
the dice come from the sheet. :func:`build` refuses with a :class:`SheetError` naming the field
when a choice is not on the sheet (and with :class:`~campaigns.operations.NotAllowed` extra steps
from anyone but the GM); :func:`roll` computes the exact chance, rolls the dice with the
caller's random source and records the roll in the campaign's log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from random import Random
from typing import Any, Final, TypeVar

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from campaigns.operations import NotAllowed
from characters import access
from characters.models import Asset, Character, Skill, Specialization
from characters.sheets import with_sheet
from play.models import Roll, RollKind
from play.rolls import record_roll
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import AbilityRoll, Check, CheckRoll, Difficulty, Modifiers, SheetError
from web import presenters

GM_ONLY_STEPS: Final = "Only the GM can add extra steps."
HELP_WITH: Final = ("skill", "ability")

#: A thing on the sheet, named by its id (an int) or, from the API, by its name (a str).
Ref = int | str
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Choices:
    """What the roller chose; everything else comes from the sheet.

    ``ability`` None takes the skill's own ability (a reaction check always rolls Charm).
    """

    skill: Ref
    reaction: bool = False
    specialization: Ref | None = None
    ability: str | None = None
    difficulty: Difficulty = Difficulty.MODERATE
    ability_roll: AbilityRoll = AbilityRoll.NORMAL
    asset: Ref | None = None
    helper: Ref | None = None
    help_with: str = "skill"
    ability_steps: int = 0
    skill_steps: int = 0


@dataclass(frozen=True, slots=True)
class Built:
    """A check as the sheet gives it, with what went into it (for the page and the log)."""

    check: Check
    reaction: bool
    skill: Skill
    ability_key: str
    ability_name: str
    spec: dict[str, Any]
    steps: list[str]  # what stepped the dice, said for the player


@dataclass(frozen=True, slots=True)
class Rolled:
    roll: Roll
    rolled: CheckRoll
    chance: Fraction
    view: dict[str, Any]


def ability_names(character: Character) -> dict[str, str]:
    """The campaign's names for the five abilities, by key."""
    return dict(zip(lucky13.ABILITY_KEYS, character.campaign.settings["ability_names"], strict=True))


def helps(asset: Asset, skill: Skill) -> bool:
    """Only an asset that lists the skill steps it ("Equipment / assets")."""
    return any(s.pk == skill.pk for s in asset.skills.all())


def load(user: AbstractBaseUser | AnonymousUser, pk: int, *, write: bool) -> tuple[Character, list[Character]]:
    """The character with its sheet, and the party members who could assist (other active characters);
    404 or 403 as :func:`characters.access.character_for` decides."""
    seen = access.character_for(user, pk, write=write)
    character = with_sheet(Character.objects.filter(pk=seen.pk)).get()
    character.can_edit, character.viewer_is_gm = seen.can_edit, seen.viewer_is_gm
    helpers = list(
        Character.objects.filter(campaign_id=character.campaign_id)
        .active()
        .exclude(pk=character.pk)
        .prefetch_related("skills")
        .order_by("name", "pk")
    )
    return character, helpers


def _pick(items: Sequence[T], ref: Ref, field: str, missing: str) -> T:
    """The item ``ref`` names among ``items``: by id when it is an int, else by name (exactly, then
    ignoring case). A name two of them share is refused: the caller names it by id instead."""
    if isinstance(ref, int) and not isinstance(ref, bool):
        found = [item for item in items if item.pk == ref]  # type: ignore[attr-defined]
    else:
        text = " ".join(str(ref).split())
        found = [item for item in items if item.name == text] or [  # type: ignore[attr-defined]
            item
            for item in items
            if item.name.casefold() == text.casefold()  # type: ignore[attr-defined]
        ]
        if len(found) > 1:
            raise SheetError(field, f"more than one is called {text!r}: name it by its id")
    if not found:
        raise SheetError(field, missing)
    return found[0]


def build(character: Character, helpers: Sequence[Character], choices: Choices, *, gm: bool) -> Built:
    """The check ``choices`` make from ``character``'s sheet (loaded by :func:`load`): the
    specialization's and the asset's levels step the skill die, a helper steps what they help
    with, the GM's extra steps either die, reputation steps Charm in a reaction check
    (Lucky 13, "Skill checks", "Characters assisting characters", "Reputation")."""
    if not gm and (choices.ability_steps or choices.skill_steps):
        raise NotAllowed(GM_ONLY_STEPS)
    names = ability_names(character)
    skill = _pick(list(character.skills.all()), choices.skill, "skill", "choose a skill from the sheet")
    reaction = choices.reaction
    if reaction:
        if choices.ability not in (None, "charm"):
            raise SheetError("ability", f"a reaction check rolls {names['charm']}")
        ability_key = "charm"
    else:
        ability_key = choices.ability or skill.ability or lucky13.ABILITY_KEYS[0]
        if ability_key not in names:
            raise SheetError("ability", f"choose one of {', '.join(names)}")
    ability_die = character.ability(ability_key) or StepDie.none()
    skill_die = StepDie(skill.die)
    difficulty = Difficulty(choices.difficulty)
    if choices.help_with not in HELP_WITH:
        raise SheetError("help_with", "a helper helps with the skill or with the ability")
    sheet: dict[str, Any] = {
        "character": character.pk,
        "reaction": reaction,
        "ability": ability_key,
        "ability_name": names[ability_key],
        "ability_die": ability_die.label,
        "skill_id": skill.pk,
        "skill_name": skill.name,
        "skill_die": skill_die.label,
        "difficulty": difficulty.value,
        "specialization": None,
        "asset": None,
        "assist": None,
        "reputation": None,
        "ability_steps": choices.ability_steps,
        "skill_steps": choices.skill_steps,
    }
    said: list[str] = []
    level = 0
    if choices.specialization is not None:
        if reaction:
            raise SheetError("specialization", "a reaction check rolls the skill without a specialization")
        specializations: list[Specialization] = list(skill.specializations.all())
        missing = "choose a specialization of this skill"
        special = _pick(specializations, choices.specialization, "specialization", missing)
        level = special.level
        sheet["specialization"] = {"id": special.pk, "name": special.name, "level": level}
        said.append(f"{special.name} {level}: Skill +{level}")
    asset_level = 0
    if choices.asset is not None:
        usable = [a for a in character.assets.all() if helps(a, skill)]
        asset = _pick(usable, choices.asset, "asset", f"choose an asset that helps {skill.name}")
        asset_level = asset.level
        sheet["asset"] = {"id": asset.pk, "name": asset.name, "level": asset_level}
        said.append(f"{asset.name}: Skill +{asset_level}")
    assist: StepDie | None = None
    target = choices.help_with
    if choices.helper is not None:
        helper = _pick(helpers, choices.helper, "helper", "choose another character in play in this campaign")
        if target == "skill":
            theirs = next((s for s in helper.skills.all() if s.name == skill.name), None)
            if theirs is None:
                raise SheetError("help_with", f"{helper.name} has no {skill.name} skill to help with")
            assist = StepDie(theirs.die)
        else:
            assist = helper.ability(ability_key) or StepDie.none()
        steps = lucky13.assist_steps(assist)
        what = "Skill" if target == "skill" else "Ability"
        sheet["assist"] = {"character": helper.pk, "name": helper.name, "with": target, "die": assist.label,
                           "steps": steps}  # fmt: skip
        said.append(f"{helper.name} helps ({assist.label}): {what} +{steps}")
    reputation = character.reputation if reaction else None
    if reaction:
        sheet["reputation"] = reputation
        said.append(f"Reputation {reputation:+d}: {names['charm']} {reputation:+d}")
    for steps_taken, what in ((choices.ability_steps, "Ability"), (choices.skill_steps, "Skill")):
        if steps_taken:
            said.append(f"GM: {what} {steps_taken:+d}")
    modifiers = Modifiers(
        specialization_level=level,
        asset_level=asset_level,
        assist=assist,
        assist_target=target,
        ability_steps=choices.ability_steps,
        skill_steps=choices.skill_steps,
        reputation=reputation,
    )
    check = lucky13.sheet_check(
        ability_die,
        skill_die,
        difficulty.die,
        modifiers,
        ability_roll=AbilityRoll(choices.ability_roll),
        explosion=lucky13.Explosion(character.campaign.settings["explosion"]),
    )
    spec = {
        "system": "lucky13",
        "roll": "check",
        "ability": check.ability.label,
        "skill": check.skill.label,
        "difficulty": check.difficulty.label,
        "ability_roll": check.ability_roll.value,
        "explosion": check.explosion.value,
        "sheet": sheet,
    }
    return Built(check, reaction, skill, ability_key, names[ability_key], spec, said)


def roll(character: Character, built: Built, *, by: AbstractBaseUser, rng: Random) -> Rolled:
    """Roll a built check with ``rng`` (``secrets.SystemRandom()`` outside tests) and record it,
    with its exact chance of success computed before the dice are rolled. Refused
    (:class:`~campaigns.operations.Refused`) as :func:`play.rolls.record_roll` refuses."""
    chance = lucky13.check_chance(built.check).p_success
    rolled = lucky13.roll_check(built.check, rng)
    view = presenters.check_roll_view(rolled)
    recorded = record_roll(
        campaign_id=character.campaign_id,
        by=by,
        character_id=character.pk,
        kind=RollKind.REACTION if built.reaction else RollKind.CHECK,
        spec=built.spec,
        dice=view,
        total=rolled.total,
        outcome={"success": rolled.success, "margin": rolled.margin, "dilemma": rolled.dilemma},
        chance=chance,
        chance_of="success",
    )
    return Rolled(recorded, rolled, chance, view)
