"""Guided creation for every system, through its protocol: a draft is started with a name (and what
else the system's ``start_fields`` ask), goes through the system's ``creation_steps`` (the server rolls
where a step rolls, the player fills in a step's ``fields`` and may ask for a step's other ``rolls``) and
is finished by the system's ``finish``.

Every save goes through the sheet's one write path, made from the draft's version: a draft saved
elsewhere since the page was opened (another tab, the GM) is refused with :class:`StaleDraft` and
nothing is written. Where the draft stands is its system's ``summary(sheet).step``; a step is open
once the draft has got that far, and earlier steps can be revisited.

A system whose steps need forms of their own (Lucky 13's ability methods, skill dice and lists of
rows) registers them with :func:`register`, by step; :func:`step_form` finds them, and the generic
pages serve every step with them (:mod:`characters.drafting_views`).
"""

from __future__ import annotations

from collections.abc import Mapping
from random import Random
from typing import Any, ClassVar, Final, Protocol

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import ProtectedError
from django.http import QueryDict
from pydantic import TypeAdapter, ValidationError

from campaigns.errors import Conflict, NotAllowed, Refused
from campaigns.models import Campaign, Membership
from characters import creation_dice, write
from characters.models import Character, SheetChange
from rules import systems
from rules.document import MAX_NAME, Name
from rules.systems.base import CreationStep, SheetInvalid, SpecError

#: The words of a refused draft save that was made from an older version.
STALE: Final = (
    "This draft was saved somewhere else (another tab, or your GM) since you opened this page, so nothing was "
    "saved. What you entered is still below: save again to keep it, or open the step afresh to see the draft as it is."
)
_NAME: Final = TypeAdapter(Name)


class StaleDraft(Conflict):
    code = "stale_draft"


class StepForm(Protocol):
    """A system's own form of a creation step, in place of the one made from the sheet model: it reads
    what was posted as the step's value (``fill_step``'s, and a named roll's) and gives its page's
    context, showing what was typed after a refusal with each message by what it is about."""

    #: The step's page (it extends ``characters/create/base.html``).
    template: ClassVar[str]
    #: The part of the page a named roll swaps with htmx ("": the whole page).
    partial: ClassVar[str]

    def __init__(self, character: Character, step: CreationStep, data: QueryDict | None = None) -> None: ...

    def value(self) -> Mapping[str, Any]:
        """What was posted, as the step's value; :class:`Refused` with each problem by its form field."""
        ...

    def context(self, error: str, errors: Mapping[str, str]) -> dict[str, Any]:
        """The page's own context: the step as the draft has it, or as posted (a bound form), with
        ``errors`` (by field, in a player's words) placed and ``error`` said at the top."""
        ...


_STEP_FORMS: dict[str, dict[str, type[StepForm]]] = {}


def register(system: str, forms: Mapping[str, type[StepForm]]) -> None:
    """Use ``forms`` (by step key) for those creation steps of ``system``'s characters."""
    _STEP_FORMS.setdefault(system, {}).update(forms)


def step_form(system: str, step: str) -> type[StepForm] | None:
    """The system's own form of ``step``, or None for the one made from the sheet model."""
    return _STEP_FORMS.get(system, {}).get(step)


def steps(character: Character) -> tuple[CreationStep, ...]:
    return tuple(character.rules.creation_steps)


def progress(character: Character) -> str:
    """The step the draft has got to (the last one once every step is done)."""
    keys = [s.key for s in steps(character)]
    current = character.rules.summary(character.document).step
    return current if current in keys else keys[-1]


def reached(character: Character, step: str) -> bool:
    """Whether the draft has got as far as ``step``."""
    keys = [s.key for s in steps(character)]
    return step in keys and keys.index(step) <= keys.index(progress(character))


def step_of(character: Character, key: str) -> CreationStep | None:
    return next((s for s in steps(character) if s.key == key), None)


def problems_at(character: Character, step: CreationStep) -> dict[str, str]:
    """What the draft still lacks or breaks at ``step``, by path, each as a sentence."""
    found = character.rules.check_step(character.document, step.key, character.campaign.settings)
    return {problem.field: write.sentence(problem.message) for problem in found}


def clean_name(name: str) -> str:
    """A character's name as every sheet's ``Name`` takes it: one line, trimmed, not blank; or :class:`Refused`."""
    try:
        return str(_NAME.validate_python(name))
    except ValidationError:
        if not name.strip():
            message = "Give the character a name."
        elif len(" ".join(name.split())) > MAX_NAME:
            message = f"A name is at most {MAX_NAME} characters."
        else:
            message = "Keep the name on one line, without control characters."
        raise Refused(message, errors={"name": message}) from None


@transaction.atomic
def start(
    *, campaign: Campaign, owner: AbstractBaseUser, name: str, given: Mapping[str, str] | None = None
) -> Character:
    """A new draft in ``campaign``: the system's fresh draft with what the first page asked besides the
    name (``given``, by the system's ``start_fields``), with the first step to go."""
    if campaign.archived_at is not None:
        raise Conflict("This campaign is archived; no new characters can join it.")
    rules = systems.get(campaign.system)
    asked = {field.key: (given or {}).get(field.key, "") for field in rules.start_fields}
    try:
        sheet = rules.start_draft(campaign.settings, {**asked, "name": name})
    except SheetInvalid as error:
        raise write.refusal(error) from None
    clean = clean_name(name)
    character = Character.objects.create(campaign=campaign, owner=owner, name=clean)
    character = write.lock(character.pk)
    try:
        return write.write(character, sheet, by=owner, what="Started")
    except SheetInvalid as error:
        raise write.refusal(error) from None


def _locked(character_id: int, version: int) -> Character:
    character = write.lock(character_id)
    if character.status != Character.Status.DRAFT:
        raise Conflict("This character is already finished; change it on its sheet.")
    if character.arrival:
        raise Conflict("This imported character waits for the GM's decision; nothing of it changes until then.")
    if write.is_stale(character, version):
        raise StaleDraft(STALE)
    return character


@transaction.atomic
def roll(
    *, character_id: int, version: int, step: str, by: AbstractBaseUser | None, rng: Random, roll: str = "",
    value: Mapping[str, Any] | None = None,
) -> Character:  # fmt: skip
    """A roll the player asks for at ``step``: its server's dice (``roll`` "": rolled once and kept, the
    system never rolls a step twice, and a deleted draft's dice come back) or one of the step's other
    ``rolls``, with what the player had typed at the step (``value``) saved with it."""
    character = _locked(character_id, version)
    found = step_of(character, step)
    if found is None or (not found.server_rolls if not roll else roll not in dict(found.rolls)):
        raise Refused("The server rolls nothing at this step." if not roll else "There is no such roll at this step.")
    rules, document, options = character.rules, character.document, character.campaign.settings

    def rolled(dice: Random) -> Any:
        return rules.roll_at(document, step, roll, value or {}, options, dice)

    try:
        sheet = creation_dice.roll_kept(character, step, rng, rolled) if not roll else rolled(rng)
    except SheetInvalid as error:
        raise write.refusal(error) from None
    except SpecError as error:
        message = write.sentence(error.message)
        raise Refused(message, errors={error.field: message}) from None
    if sheet == document:
        return character
    what = rules.creation_words(document, sheet, step, roll, options) or f"Rolled at {found.label}"
    try:
        return write.write(character, sheet, by=by, what=what)
    except SheetInvalid as error:
        raise write.refusal(error) from None


@transaction.atomic
def fill(
    *, character_id: int, version: int, step: str, value: Mapping[str, Any], by: AbstractBaseUser | None
) -> Character:
    """What the player gives at ``step`` (its fields, as JSON), checked by the system; :class:`Refused`
    with each problem at its document path. What the GM gives at a step is approved as the GM gives it:
    anything of the step that waits for the GM's approval (a player's gear) is approved with it."""
    character = _locked(character_id, version)
    found = step_of(character, step)
    if found is None or not reached(character, step):
        raise Refused("This step is not open yet.")
    rules, options = character.rules, character.campaign.settings
    try:
        sheet = rules.fill_step(character.document, step, value, options)
        if _is_gm(character, by):
            for item in rules.awaiting(sheet):
                if item.section in (found.key, *found.fields):
                    sheet = rules.decide(sheet, item.item, approve=True)
        if sheet == character.document:
            return character  # nothing changed (a step with nothing to choose, saved again): nothing recorded
        what = rules.creation_words(character.document, sheet, step, None, options) or found.label
        return write.write(character, sheet, by=by, what=what)
    except SheetInvalid as error:
        raise write.refusal(error) from None


def _is_gm(character: Character, user: AbstractBaseUser | None) -> bool:
    return (
        user is not None
        and Membership.objects.filter(
            campaign_id=character.campaign_id, user_id=user.pk, role=Membership.Role.GM
        ).exists()
    )


@transaction.atomic
def finish(*, character_id: int, version: int, by: AbstractBaseUser | None) -> Character:
    """Every step done: the system finishes the draft and the character joins the party."""
    character = _locked(character_id, version)
    try:
        sheet = character.rules.finish(character.document, character.campaign.settings)
        return write.write(character, sheet, by=by, what="Finished", status=Character.Status.ACTIVE)
    except SheetInvalid as error:
        raise write.refusal(error) from None


def unfinished(character: Character) -> bool:
    """A draft, or a draft archived when its player left or was removed (never finished): the
    owner may still throw it away. A character that was ever finished is only archived."""
    if character.status == Character.Status.DRAFT:
        return True
    if character.status != Character.Status.ARCHIVED:
        return False
    try:
        return character.rules.summary(character.document).step != ""
    except SheetInvalid:
        return False


@transaction.atomic
def delete_draft(*, character_id: int, by: AbstractBaseUser) -> str:
    """The owner throws away a draft they no longer want, even after leaving the campaign;
    returns its name. A finished character is never deleted (it is archived instead), and
    nobody else's draft is."""
    character = write.lock(character_id)
    if not unfinished(character):
        raise Conflict("This character is already finished; edit it on its sheet.")
    if character.owner_id != by.pk:
        raise NotAllowed("Only the player who started a draft can delete it.")
    name = character.name
    SheetChange.objects.discard_draft(character)  # the draft's history goes with it
    try:
        character.delete()
    except ProtectedError:  # rolled dice or ledger entries point at it: history is never deleted
        raise Conflict(f"{name} is in the campaign's records, so the draft stays.") from None
    return name
