"""A roll from the sheet, built and made on the server: a skill check or a reaction check.

The sheet roll page (``characters.roll_views``) and the JSON API both come here, so a check is
rebuilt from the sheet as it is now, the same way, whoever asks: the caller says only which
skill, specialization and asset (by their ids on the sheet), which helper (a character's id)
and which options; the dice come from the sheet document, through the system's ``sheet_roll``.
:func:`build` refuses with a :class:`SheetError` naming the field when a choice is not on the
sheet (and with :class:`~campaigns.errors.NotAllowed` extra steps from anyone but the GM);
:func:`roll` computes the exact chance, rolls the dice with the caller's random source and
records the roll, with the words that say what was rolled, in the campaign's log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from random import Random
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser

from campaigns.errors import NotAllowed
from characters import access
from characters.models import Character
from play.models import Roll, RollKind
from play.rolls import record_roll
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.base import SpecError
from rules.systems.lucky13 import AbilityRoll, Check, CheckRoll, Difficulty, SheetError
from web import presenters

GM_ONLY_STEPS: Final = "Only the GM can add extra steps."
HELP_WITH: Final = ("skill", "ability")


@dataclass(frozen=True, slots=True)
class Choices:
    """What the roller chose, each thing on the sheet by its id (the helper by the character's);
    everything else comes from the sheet.

    ``ability`` None takes the skill's own ability (a reaction check always rolls Charm).
    """

    skill: int
    reaction: bool = False
    specialization: int | None = None
    ability: str | None = None
    difficulty: Difficulty = Difficulty.MODERATE
    ability_roll: AbilityRoll = AbilityRoll.NORMAL
    asset: int | None = None
    helper: int | None = None
    help_with: str = "skill"
    ability_steps: int = 0
    skill_steps: int = 0


@dataclass(frozen=True, slots=True)
class Built:
    """A check as the sheet gives it, with what went into it (for the page and the log)."""

    check: Check
    reaction: bool
    skill: Any  # the sheet's skill
    ability_key: str
    ability_name: str
    spec: dict[str, Any]
    steps: list[str]  # what stepped the dice, said for the player
    label: str  # what is rolled, in words: "Intellect + Spellcasting (Teleport 2) vs Moderate"


@dataclass(frozen=True, slots=True)
class Rolled:
    roll: Roll
    rolled: CheckRoll
    chance: Fraction
    view: dict[str, Any]


def ability_names(character: Character) -> dict[str, str]:
    """The campaign's names for the five abilities, by key."""
    return dict(zip(lucky13.ABILITY_KEYS, character.campaign.settings["ability_names"], strict=True))


def helps(asset: Any, skill: Any) -> bool:
    """Only an asset that lists the skill (by id) steps it ("Equipment / assets")."""
    return skill.id in asset.skills


def load(user: AbstractBaseUser | AnonymousUser, pk: int, *, write: bool) -> tuple[Character, list[Character]]:
    """The character with its sheet, and the party members who could assist (other active characters);
    404 or 403 as :func:`characters.access.character_for` decides."""
    character = access.character_for(user, pk, write=write)
    helpers = list(
        Character.objects.filter(campaign_id=character.campaign_id)
        .active()
        .exclude(pk=character.pk)
        .order_by("name", "pk")
    )
    return character, helpers


def _is_id(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _found(items: Sequence[Any], item_id: Any, field: str, missing: str) -> Any:
    """The item ``item_id`` names among ``items`` (sheet items by ``id``, characters by ``pk``)."""
    found = next((i for i in items if getattr(i, "id", None) == item_id), None) if _is_id(item_id) else None
    if found is None:
        raise SheetError(field, missing)
    return found


def build(character: Character, helpers: Sequence[Character], choices: Choices, *, gm: bool) -> Built:
    """The check ``choices`` make from ``character``'s sheet (loaded by :func:`load`), built by its
    system: the specialization's and the asset's levels step the skill die, a helper steps what
    they help with, the GM's extra steps either die, reputation steps Charm in a reaction check
    (Lucky 13, "Skill checks", "Characters assisting characters", "Reputation")."""
    if not gm and (choices.ability_steps or choices.skill_steps):
        raise NotAllowed(GM_ONLY_STEPS)
    names = ability_names(character)
    sheet = character.document
    skill = _found(sheet.skills, choices.skill, "skill", "choose a skill from the sheet")
    reaction = choices.reaction
    if reaction:
        if choices.ability not in (None, "charm"):
            raise SheetError("ability", f"a reaction check rolls {names['charm']}")
        ability_key = "charm"
    else:
        ability_key = choices.ability or skill.ability or lucky13.ABILITY_KEYS[0]
        if ability_key not in names:
            raise SheetError("ability", f"choose one of {', '.join(names.values())}")
    if choices.help_with not in HELP_WITH:
        raise SheetError("help_with", "a helper helps with the skill or with the ability")
    difficulty = Difficulty(choices.difficulty)
    situation: dict[str, Any] = {
        "skill": skill.id,
        "reaction": reaction,
        "difficulty": difficulty.value,
        "ability_roll": AbilityRoll(choices.ability_roll).value,
        "ability_steps": choices.ability_steps,
        "skill_steps": choices.skill_steps,
    }
    if not reaction:
        situation["ability"] = ability_key
    recorded: dict[str, Any] = {
        "character": character.pk,
        "reaction": reaction,
        "ability": ability_key,
        "ability_name": names[ability_key],
        "ability_die": getattr(sheet.abilities, ability_key) or StepDie.none().label,
        "skill_id": skill.id,
        "skill_name": skill.name,
        "skill_die": skill.die or StepDie.none().label,
        "difficulty": difficulty.value,
        "specialization": None,
        "asset": None,
        "assist": None,
        "reputation": None,
        "ability_steps": choices.ability_steps,
        "skill_steps": choices.skill_steps,
    }
    said: list[str] = []
    if choices.specialization is not None:
        if reaction:
            raise SheetError("specialization", "a reaction check rolls the skill without a specialization")
        missing = "choose a specialization of this skill"
        special = _found(skill.specializations, choices.specialization, "specialization", missing)
        situation["specialization"] = special.id
        recorded["specialization"] = {"id": special.id, "name": special.name, "level": special.level}
        said.append(f"{special.name} {special.level}: Skill +{special.level}")
    if choices.asset is not None:
        usable = [a for a in sheet.assets if helps(a, skill)]
        asset = _found(usable, choices.asset, "asset", f"choose an asset that helps {skill.name}")
        situation["asset"] = asset.id
        recorded["asset"] = {"id": asset.id, "name": asset.name, "level": asset.level}
        said.append(f"{asset.name}: Skill +{asset.level}")
    if choices.helper is not None:
        helper = next((h for h in helpers if _is_id(choices.helper) and h.pk == choices.helper), None)
        if helper is None:
            raise SheetError("helper", "choose another character in play in this campaign")
        assist = _assist(helper, skill, ability_key, choices.help_with)
        steps = lucky13.assist_steps(assist)
        situation["assist"] = {"die": assist.label, "with": choices.help_with, "name": helper.name}
        recorded["assist"] = {"character": helper.pk, "name": helper.name, "with": choices.help_with,
                              "die": assist.label, "steps": steps}  # fmt: skip
        what = "Skill" if choices.help_with == "skill" else "Ability"
        said.append(f"{helper.name} helps ({assist.label}): {what} +{steps}")
    if reaction:
        recorded["reputation"] = sheet.reputation
        said.append(f"Reputation {sheet.reputation:+d}: {names['charm']} {sheet.reputation:+d}")
    for steps_taken, what in ((choices.ability_steps, "Ability"), (choices.skill_steps, "Skill")):
        if steps_taken:
            said.append(f"GM: {what} {steps_taken:+d}")
    try:
        made = character.rules.sheet_roll(sheet, situation, character.campaign.settings)
        check = character.rules.roll_kinds[made.kind].parse(made.spec)
    except SpecError as problem:
        raise SheetError(problem.field, problem.message) from None
    spec = {**made.spec, "label": made.label, "sheet": recorded}
    return Built(check, reaction, skill, ability_key, names[ability_key], spec, said, made.label)


def _assist(helper: Character, skill: Any, ability_key: str, help_with: str) -> StepDie:
    """The helper's die in what they help with: their skill of the same name, or the same ability."""
    theirs = helper.document
    if help_with == "skill":
        same = next((s for s in theirs.skills if s.name.casefold() == skill.name.casefold()), None)
        if same is None or same.die is None:
            raise SheetError("help_with", f"{helper.name} has no {skill.name} skill to help with")
        return StepDie.parse(same.die)
    die = getattr(theirs.abilities, ability_key)
    return StepDie.parse(die) if die else StepDie.none()


def roll(character: Character, built: Built, *, by: AbstractBaseUser, rng: Random) -> Rolled:
    """Roll a built check with ``rng`` (``secrets.SystemRandom()`` outside tests) and record it,
    with its exact chance of success computed before the dice are rolled. Refused
    (:class:`~campaigns.errors.Refused`) as :func:`play.rolls.record_roll` refuses."""
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
        label=built.label,
    )
    return Rolled(recorded, rolled, chance, view)
