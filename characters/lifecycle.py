"""A character's place in the campaign: retired to the archive, and brought back.

A draft or an active character is archived by its player or the GM (it leaves play: no rolls,
no points, its sheet read-only, nothing deleted); the GM restores an archived one, to play if it
was ever finished and to its draft otherwise, once its player is in the campaign. Each move goes
through the sheet's one write path, with its version, its history entry and the open pages told.
"""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from campaigns.errors import Conflict, NotAllowed
from campaigns.models import Membership
from characters import write
from characters.models import Character
from rules.systems.base import SheetInvalid

ARCHIVED_CAMPAIGN = "This campaign is archived: its characters stay as they are."


def _role(character: Character, user: AbstractBaseUser) -> str | None:
    return (
        Membership.objects.filter(campaign_id=character.campaign_id, user_id=user.pk)
        .values_list("role", flat=True)
        .first()
    )


def finished(character: Character) -> bool:
    """Whether the character was ever finished (its system's summary names no creation step)."""
    try:
        return character.rules.summary(character.document).step == ""
    except SheetInvalid:
        return False


@transaction.atomic
def archive(*, character_id: int, version: int, by: AbstractBaseUser) -> Character:
    """The character leaves play, kept whole: by its player or the GM, from ``version`` of it."""
    character = write.lock(character_id)
    role = _role(character, by)
    if role is None or (role != Membership.Role.GM and character.owner_id != by.pk):
        raise NotAllowed("Only the character's player and the GM can archive it.")
    if character.campaign.archived_at is not None:
        raise Conflict(ARCHIVED_CAMPAIGN)
    if character.status == Character.Status.ARCHIVED:
        raise Conflict(f"{character.name} is already archived.")
    if write.is_stale(character, version):
        raise write.StaleSheet(character)
    return write.write(character, character.document, by=by, what="Archived", status=Character.Status.ARCHIVED)


@transaction.atomic
def restore(*, character_id: int, version: int, by: AbstractBaseUser) -> Character:
    """The GM brings an archived character back: into play if it was finished, else as the draft it
    was. Its player must be in the campaign (invite them back first)."""
    character = write.lock(character_id)
    if _role(character, by) != Membership.Role.GM:
        raise NotAllowed("Only the campaign's GM can restore an archived character.")
    if character.campaign.archived_at is not None:
        raise Conflict(ARCHIVED_CAMPAIGN)
    if character.status != Character.Status.ARCHIVED:
        raise Conflict(f"{character.name} is not archived.")
    if write.is_stale(character, version):
        raise write.StaleSheet(character)
    if _role(character, character.owner) is None:
        raise Conflict(
            f"{character.owner.get_username()}, who plays {character.name}, is no longer in the campaign: "
            "invite them back first."
        )
    # An import that still waits for the GM's decision comes back as that waiting draft.
    status = Character.Status.ACTIVE if finished(character) and not character.arrival else Character.Status.DRAFT
    try:
        return write.write(character, character.document, by=by, what="Restored", status=status)
    except SheetInvalid as error:
        raise write.refusal(error) from None
