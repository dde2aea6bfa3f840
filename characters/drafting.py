"""Guided creation for every system, through its protocol: a draft is started with a name, goes
through the system's ``creation_steps`` (the server rolls where a step rolls, the player fills in a
step's ``fields``) and is finished by the system's ``finish``.

Every save goes through the sheet's one write path, made from the draft's version: a draft saved
elsewhere since the page was opened (another tab, the GM) is refused with :class:`StaleDraft` and
nothing is written. Where the draft stands is its system's ``summary(sheet).step``; a step is open
once the draft has got that far, and earlier steps can be revisited.

A system whose creation needs pages of its own (Lucky 13's ability methods and skill dice)
registers them with :func:`register`; :func:`own_pages` finds them.
"""

from __future__ import annotations

from collections.abc import Mapping
from random import Random
from typing import Any, Final, Protocol

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import ProtectedError
from django.http import HttpRequest, HttpResponse
from pydantic import TypeAdapter, ValidationError

from campaigns.errors import Conflict, NotAllowed, Refused
from campaigns.models import Campaign
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


class OwnPages(Protocol):
    """A system's own creation pages: the start page of a campaign and a draft's step page."""

    def start(self, request: HttpRequest, campaign: Campaign) -> HttpResponse: ...

    def step(self, request: HttpRequest, character: Character, step: str) -> HttpResponse: ...


_OWN_PAGES: dict[str, OwnPages] = {}


def register(system: str, pages: OwnPages) -> None:
    """Use ``pages`` for the creation of ``system``'s characters."""
    _OWN_PAGES[system] = pages


def own_pages(system: str) -> OwnPages | None:
    return _OWN_PAGES.get(system)


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
def start(*, campaign: Campaign, owner: AbstractBaseUser, name: str) -> Character:
    """A new draft in ``campaign``: the system's fresh draft, with the first step to go."""
    if campaign.archived_at is not None:
        raise Conflict("This campaign is archived; no new characters can join it.")
    clean = clean_name(name)
    rules = systems.get(campaign.system)
    character = Character.objects.create(campaign=campaign, owner=owner, name=clean)
    character = write.lock(character.pk)
    try:
        return write.write(character, rules.new_draft(campaign.settings), by=owner, what="Started")
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
def roll(*, character_id: int, version: int, step: str, by: AbstractBaseUser, rng: Random) -> Character:
    """The server's dice of ``step``, rolled once and kept (the system never rolls a step twice)."""
    character = _locked(character_id, version)
    found = step_of(character, step)
    if found is None or not found.server_rolls:
        raise Refused("The server rolls nothing at this step.")
    try:
        sheet = creation_dice.roll_kept(
            character,
            step,
            rng,
            lambda dice: character.rules.roll_step(character.document, step, character.campaign.settings, dice),
        )
    except SpecError as error:
        raise Refused(write.sentence(error.message)) from None
    if sheet == character.document:
        return character
    try:
        return write.write(character, sheet, by=by, what=f"Rolled at {found.label}")
    except SheetInvalid as error:
        raise write.refusal(error) from None


@transaction.atomic
def fill(*, character_id: int, version: int, step: str, value: Mapping[str, Any], by: AbstractBaseUser) -> Character:
    """What the player gives at ``step`` (its fields, as JSON), checked by the system; :class:`Refused`
    with each problem at its document path."""
    character = _locked(character_id, version)
    found = step_of(character, step)
    if found is None or not reached(character, step):
        raise Refused("This step is not open yet.")
    try:
        sheet = character.rules.fill_step(character.document, step, value, character.campaign.settings)
        return write.write(character, sheet, by=by, what=found.label)
    except SheetInvalid as error:
        raise write.refusal(error) from None


@transaction.atomic
def finish(*, character_id: int, version: int, by: AbstractBaseUser) -> Character:
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
