"""Changes of a campaign that change its characters too: its options (the system says what they do to
each sheet, saved through the one write path) and its members (a player who leaves or is removed
leaves their characters archived, never deleted). Each locks the campaign first, as every write does.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

from campaigns import operations
from campaigns.errors import Conflict, NotFound, Refused
from campaigns.models import Campaign, Membership
from campaigns.operations import ARCHIVED
from characters import write
from characters.models import Character
from rules.systems.base import OptionsError


def _archive_characters(campaign: Campaign, owner_id: int, *, by: AbstractBaseUser, why: str) -> int:
    """A departing player's characters stay, archived: their work is never deleted, and each one's
    history says who archived it, when and why."""
    leaving = Character.objects.select_for_update().filter(campaign=campaign, owner_id=owner_id)
    archived = 0
    for character in leaving.exclude(status=Character.Status.ARCHIVED).order_by("pk"):
        write.record_status(character, Character.Status.ARCHIVED, by=by, what=f"Archived: {why}")
        archived += 1
    return archived


@transaction.atomic
def update_campaign(
    *,
    campaign_id: int,
    by: AbstractBaseUser,
    name: str,
    description: str,
    options: Mapping[str, Any],
    renames: Mapping[str, str],
    players_call_rolls: bool | None = None,
) -> Campaign:
    """The GM changes the name, description and options, and whether players call their own rolls
    (None: as it was).

    Nobody's character loses anything: the system says what the change does to the campaign's
    characters (Lucky 13: a skill that characters have can be renamed, their sheets following,
    but not removed), and each sheet it changes goes through the one write path.
    """
    campaign = operations.gm_of(campaign_id, by)
    name = " ".join(name.split())
    if not name:
        raise Refused("A campaign needs a name.", errors={"name": "A campaign needs a name."})
    before = campaign.settings
    after = campaign.rules.validate_options(options)
    characters = list(Character.objects.select_for_update().filter(campaign=campaign).order_by("name", "pk"))
    try:
        change = campaign.rules.change_options(before, after, renames, [(c.name, c.document) for c in characters])
    except OptionsError as error:
        raise Refused(" ".join(error.errors.values()), errors=error.errors) from None
    if change.conflicts:
        raise Conflict(
            "Nothing was changed: the campaign's characters depend on these settings.", errors=dict(change.conflicts)
        )
    campaign.name, campaign.description, campaign.options = name, description.strip(), after
    if players_call_rolls is not None:
        campaign.players_call_rolls = players_call_rolls
    for character, sheet in zip(characters, change.sheets, strict=True):
        if sheet is not None:
            character.campaign = campaign
            write.write(character, sheet, by=by, what=change.what, sections=list(change.sections))
    campaign.last_activity_at = timezone.now()
    campaign.save(update_fields=["name", "description", "options", "players_call_rolls", "last_activity_at"])
    return campaign


@transaction.atomic
def remove_member(*, campaign_id: int, membership_id: int, by: AbstractBaseUser) -> int:
    """The GM removes a player; their characters in the campaign are archived. Returns how many."""
    campaign = operations.gm_of(campaign_id, by)
    member = operations.member_of(campaign, membership_id)
    if member.role == Membership.Role.GM:
        raise Refused("The GM can't be removed. Hand the GM role to another member first.")
    archived = _archive_characters(
        campaign, member.user_id, by=by, why=f"{member.user.get_username()} was removed from the campaign by the GM"
    )
    member.delete()
    operations.touch(campaign)
    operations.announce_membership(campaign.pk, member.user_id)
    return archived


@transaction.atomic
def leave_campaign(*, campaign_id: int, user: AbstractBaseUser) -> int:
    """A player leaves; their characters in the campaign are archived. Returns how many."""
    campaign = operations.locked(campaign_id)
    member = Membership.objects.filter(campaign=campaign, user=user).first()
    if member is None:
        raise NotFound("You are not a member of this campaign.")
    if member.role == Membership.Role.GM:
        raise Refused("The GM can't leave their campaign. Hand the GM role to another member first.")
    if campaign.archived_at:
        raise Conflict(ARCHIVED)
    archived = _archive_characters(campaign, user.pk, by=user, why=f"{user.get_username()} left the campaign")
    member.delete()
    operations.touch(campaign)
    operations.announce_membership(campaign.pk, user.pk)
    return archived
