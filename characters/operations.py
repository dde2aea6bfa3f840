"""Changing a finished character's sheet, one section at a time, for every system.

Who may change what is written down once, in the system's ``edit_sections``; the views show Edit
buttons from it and :func:`save_value` enforces it, whoever calls (a system's own forms save
through :func:`locked_for_edit` too). The new sheet is built by the character's system
(``rules.edit``), which also refuses what the role may not change and validates the whole
sheet, and it is saved through the one write path (:mod:`characters.write`); each refusal comes
back at the document path it is about, in words for players.

No lost work: every save carries the version of the section it was made from
(``Character.section_versions``; a section with no entry has not changed since creation,
version 0). A save made from an older version is refused with :class:`StaleSection` before
anything is checked or written. Sections never share what they write, and each is rebuilt from
the sheet as it is under the lock, so a save to one never overwrites another.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import PermissionDenied
from django.db import transaction

from campaigns import errors
from campaigns.models import Membership
from campaigns.operations import ARCHIVED
from characters import write
from characters.models import Character
from characters.write import character_changed, mark_changed, section_version, sentence
from rules.systems.base import EditRefused, EditSection, Problem, Role, SheetInvalid, SpecError

__all__ = [
    "InvalidSection",
    "NotAllowed",
    "StaleSection",
    "character_changed",
    "editable_sections",
    "is_stale",
    "mark_changed",
    "refusal",
    "save_value",
    "section_version",
    "sentence",
]

# --- Who may change what ---------------------------------------------------------------------


def refusal(character: Character, section: EditSection, *, is_owner: bool, is_gm: bool) -> str | None:
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
    if Role.OWNER not in section.editors:
        return sentence(section.note or f"only the GM can change the {section.label}")
    return None


def sections_for(character: Character) -> dict[str, EditSection]:
    """The sections of the character's sheet, as its system has them, by key."""
    return {section.key: section for section in character.rules.edit_sections}


def editable_sections(character: Character, user: AbstractBaseUser, *, where: str | None = None) -> set[str]:
    """The sections ``user`` may change, for a character loaded through ``characters.access``; ``where``: only
    those of that region of the sheet (a section's ``where``), the others not asked about."""
    is_gm, is_owner = character.viewer_is_gm, character.owner_id == user.pk
    return {
        key
        for key, section in sections_for(character).items()
        if (where is None or section.where == where) and not refusal(character, section, is_owner=is_owner, is_gm=is_gm)
    }


class NotAllowed(PermissionDenied):
    """The user may not make this change; the message says why, for them."""


class StaleSection(Exception):
    """The section changed since the form was made; nothing was written."""

    def __init__(self, section: str, *, made_from: int, now: int) -> None:
        super().__init__(f"{section} changed at version {now}, after version {made_from}")
        self.section = section
        self.made_from = made_from
        self.now = now


class InvalidSection(SpecError):
    """Values that break a rule; ``errors`` maps where each problem is to its messages, for players.

    A key is a field (``"name"``, ``"reflex"``), a row's field (``"spec-2-level"``: the row's
    ``at`` and the field), a row as a whole (its ``at``), a skill's die in the skill dice (the
    skill's id, as text: ``"5"``), or ``""`` for the section as a whole.
    """

    def __init__(self, errors: dict[str, list[str]]) -> None:
        where, messages = next(iter(errors.items()))
        super().__init__(where or "section", messages[0])
        self.errors = errors


def is_stale(character: Character, section: str, version: int) -> bool:
    """Whether a save of ``section`` made from ``version`` of it is too old (see :func:`write.is_stale`)."""
    return write.is_stale(character, version, section)


@transaction.atomic
def save_value(*, character_id: int, section: str, version: int, value: Mapping[str, Any], by: AbstractBaseUser
               ) -> Character:  # fmt: skip
    """Save one section of a finished character's sheet of any system as the JSON value its system's
    ``edit`` takes, made from ``version`` of that section.

    Raises :class:`NotAllowed` if ``by`` may not change it, :class:`StaleSection` if it changed since
    ``version`` and :class:`InvalidSection` with every broken rule at its document path
    (``tricks.2.name``); nothing is written.
    """
    character, spec, is_gm = locked_for_edit(character_id, section, version, by)
    role = Role.GM if is_gm else Role.OWNER
    try:
        sheet = character.rules.edit(character.document, section, value, role=role, options=character.campaign.settings)
        write.write(character, sheet, by=by, what=f"Edited the {spec.label}", sections=[section])
    except EditRefused as refused:
        raise NotAllowed(sentence(refused.message)) from None
    except SheetInvalid as error:
        raise InvalidSection(by_path(error.problems)) from None
    return character


def locked_for_edit(character_id: int, section: str, version: int, by: AbstractBaseUser
                     ) -> tuple[Character, EditSection, bool]:  # fmt: skip
    """The character, locked, with its ``section`` and whether ``by`` is its GM, once ``by`` may change
    that section and it has not changed since ``version``: else :class:`InvalidSection` (no such
    section), :class:`NotAllowed` or :class:`StaleSection`."""
    character = Character.objects.lock(character_id)
    if character is None:
        raise Character.DoesNotExist(f"No character {character_id}")
    spec = sections_for(character).get(section)
    if spec is None:
        raise InvalidSection({"": [f"There is no section {section!r} on this sheet."]})
    is_gm = Membership.objects.filter(
        campaign_id=character.campaign_id, user_id=by.pk, role=Membership.Role.GM
    ).exists()
    reason = refusal(character, spec, is_owner=character.owner_id == by.pk, is_gm=is_gm)
    if reason:
        raise NotAllowed(reason)
    if is_stale(character, section, version):
        raise StaleSection(section, made_from=version, now=section_version(character, section))
    return character, spec, is_gm


def locked_for_action(character_id: int, action: EditSection, version: int, by: AbstractBaseUser, *,
                      watched: Sequence[str] = ()) -> tuple[Character, bool]:  # fmt: skip
    """The character, locked, and whether ``by`` is its GM, once ``by`` may do ``action`` (a system's own
    sheet action: a rest, a luck point, a round's step) and none of ``watched`` (the action's section by
    default) has changed since ``version``: else :class:`NotAllowed` (why, for them) or
    :class:`StaleSection`."""
    character = write.lock(character_id)
    is_gm = Membership.objects.filter(
        campaign_id=character.campaign_id, user_id=by.pk, role=Membership.Role.GM
    ).exists()
    reason = refusal(character, action, is_owner=character.owner_id == by.pk, is_gm=is_gm)
    if reason:
        raise NotAllowed(reason)
    now = max(section_version(character, section) for section in (watched or (action.key,)))
    if version > character.version or now > version:
        raise StaleSection(action.key, made_from=version, now=now)
    return character, is_gm


def by_path(problems: Sequence[Problem]) -> dict[str, list[str]]:
    """The system's problems by their document path, each as a sentence."""
    errors: dict[str, list[str]] = {}
    for problem in problems:
        errors.setdefault(problem.field, []).append(sentence(problem.message))
    return errors


# --- What waits for the GM --------------------------------------------------------------------

#: The longest key of a waiting item a page or the API may name (keys are short: an item's id, ``12``).
MAX_ITEM_LENGTH = 40


@transaction.atomic
def decide_awaiting(*, character_id: int, item: str, approve: bool, by: AbstractBaseUser) -> Character:
    """The GM approves a sheet's waiting item (a player's new gear, at creation or in play) or refuses
    it, in one step; through the one write path, in the sheet's history. A decision already taken
    (by another page) is a 409 that changes nothing."""
    character = write.lock(character_id)
    role = Membership.objects.filter(campaign_id=character.campaign_id, user=by).values_list("role", flat=True).first()
    if role != Membership.Role.GM:
        raise errors.NotAllowed("Only the campaign's GM approves or refuses what waits.")
    if character.campaign.archived_at is not None:
        raise errors.Conflict(ARCHIVED)
    if character.status == Character.Status.ARCHIVED:
        raise errors.Conflict("This character is archived and can no longer be changed.")
    waiting = {entry.item: entry for entry in character.rules.awaiting(character.document)}
    entry = waiting.get(item)
    if entry is None:
        raise errors.Conflict("That no longer waits for your approval: it was decided already, or changed.")
    sheet = character.rules.decide(character.document, item, approve=approve)
    what = f"{'Approved' if approve else 'Refused'} by the GM: {entry.words}"
    try:
        return write.write(character, sheet, by=by, what=what, sections=[entry.section] if entry.section else [])
    except SheetInvalid as error:
        raise write.refusal(error) from None
