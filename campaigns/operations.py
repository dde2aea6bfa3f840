"""Writes of campaigns, memberships and invitations (those that change characters too are
:mod:`characters.campaign_changes`).

Each is a keyword-only, atomic function: lock the campaign (or the invitation),
check again under the lock who is asking and what state things are in, write,
and move the campaign's ``last_activity_at`` forward. Views call these and
nothing else writes those rows. A refusal is a :class:`Refused` whose message
is written for people and whose ``status`` is the HTTP answer it deserves.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import timedelta
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F
from django.dispatch import Signal
from django.utils import timezone

from campaigns.errors import Conflict, Gone, NotAllowed, NotFound, Refused
from campaigns.models import Campaign, Invitation, Membership
from rules import systems

#: How long an invitation link may stay open, in days.
MAX_INVITATION_DAYS = 90


ARCHIVED = "This campaign is archived, so nothing in it can change until the GM unarchives it."

#: Sent with ``campaign_id`` and ``user_id`` once a change to that person's membership has committed
#: (removed, left, became or stopped being the GM): their open dashboards (:mod:`play.live`)
#: check it again, and close if it is gone.
membership_changed = Signal()


def announce_membership(campaign_id: int, *user_ids: int) -> None:
    for user_id in user_ids:
        transaction.on_commit(
            lambda user_id=user_id: membership_changed.send(sender=Membership, campaign_id=campaign_id, user_id=user_id)
        )


def locked(campaign_id: int) -> Campaign:
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound("There is no such campaign.")
    return campaign


def _role(campaign: Campaign, user: AbstractBaseUser) -> str | None:
    return Membership.objects.filter(campaign=campaign, user=user).values_list("role", flat=True).first()


def gm_of(campaign_id: int, by: AbstractBaseUser, *, open_only: bool = True) -> Campaign:
    """The campaign, locked, after checking under the lock that ``by`` is still its GM."""
    campaign = locked(campaign_id)
    if _role(campaign, by) != Membership.Role.GM:
        raise NotAllowed("Only the campaign's GM can do that.")
    if open_only and campaign.archived_at:
        raise Conflict(ARCHIVED)
    return campaign


def touch(campaign: Campaign) -> None:
    campaign.last_activity_at = timezone.now()
    Campaign.objects.filter(pk=campaign.pk).update(last_activity_at=campaign.last_activity_at)


# --- Creating and changing a campaign ------------------------------------------------------------


@transaction.atomic
def create_campaign(
    *,
    by: AbstractBaseUser,
    name: str,
    description: str,
    system: str,
    options: Mapping[str, Any],
    players_call_rolls: bool = False,
) -> Campaign:
    """A new campaign with ``by`` as its GM; the options are checked by the rules system. Players
    roll what the GM calls for unless ``players_call_rolls`` (the GM's calls, rules README)."""
    name = " ".join(name.split())
    if not name:
        raise Refused("A campaign needs a name.", errors={"name": "A campaign needs a name."})
    try:
        rules = systems.get(system)
    except systems.UnknownSystem as error:
        raise Refused(error.message, errors={"system": error.message}) from error
    campaign = Campaign.objects.create(
        name=name,
        description=description.strip(),
        system=system,
        options=rules.validate_options(options),
        players_call_rolls=players_call_rolls,
    )
    Membership.objects.create(campaign=campaign, user=by, role=Membership.Role.GM)
    return campaign


@transaction.atomic
def archive_campaign(*, campaign_id: int, by: AbstractBaseUser) -> Campaign:
    """Archived, the campaign is read-only: no new invitations, members, characters or settings."""
    campaign = gm_of(campaign_id, by, open_only=False)
    if campaign.archived_at:
        raise Conflict("This campaign is already archived.")
    campaign.archived_at = campaign.last_activity_at = timezone.now()
    campaign.save(update_fields=["archived_at", "last_activity_at"])
    return campaign


@transaction.atomic
def unarchive_campaign(*, campaign_id: int, by: AbstractBaseUser) -> Campaign:
    campaign = gm_of(campaign_id, by, open_only=False)
    if not campaign.archived_at:
        raise Conflict("This campaign is not archived.")
    campaign.archived_at = None
    campaign.last_activity_at = timezone.now()
    campaign.save(update_fields=["archived_at", "last_activity_at"])
    return campaign


# --- Members -------------------------------------------------------------------------------------


def member_of(campaign: Campaign, membership_id: int) -> Membership:
    member = Membership.objects.select_related("user").filter(pk=membership_id, campaign=campaign).first()
    if member is None:
        raise NotFound("That person is not a member of this campaign.")
    return member


@transaction.atomic
def hand_over_gm(*, campaign_id: int, membership_id: int, by: AbstractBaseUser) -> Membership:
    """Another member becomes the GM and ``by`` a player. The one-GM unique index
    (``campaigns_membership_one_gm``) is checked per statement, so demote first, then promote."""
    campaign = gm_of(campaign_id, by)
    member = member_of(campaign, membership_id)
    if member.role == Membership.Role.GM:
        raise Refused("You are the GM already.")
    Membership.objects.filter(campaign=campaign, role=Membership.Role.GM).update(role=Membership.Role.PLAYER)
    Membership.objects.filter(pk=member.pk).update(role=Membership.Role.GM)
    member.role = Membership.Role.GM
    touch(campaign)
    announce_membership(campaign.pk, by.pk, member.user_id)
    return member


# --- Invitations ---------------------------------------------------------------------------------


@transaction.atomic
def create_invitation(*, campaign_id: int, by: AbstractBaseUser, days: int, max_uses: int | None) -> Invitation:
    """A link that lets signed-in people join as players for ``days`` days, ``max_uses`` times (None: any)."""
    if not 1 <= days <= MAX_INVITATION_DAYS:
        raise Refused(f"An invitation lasts from 1 to {MAX_INVITATION_DAYS} days.")
    if max_uses is not None and max_uses < 1:
        raise Refused("An invitation can be used at least once.")
    campaign = gm_of(campaign_id, by)
    invitation = Invitation.objects.create(
        campaign=campaign, created_by=by, expires_at=timezone.now() + timedelta(days=days), max_uses=max_uses
    )
    touch(campaign)
    return invitation


@transaction.atomic
def revoke_invitation(*, campaign_id: int, invitation_id: int, by: AbstractBaseUser) -> Invitation:
    """The link stops working at once. Allowed in an archived campaign too: it only closes a door."""
    campaign = gm_of(campaign_id, by, open_only=False)
    invitation = Invitation.objects.select_for_update().filter(pk=invitation_id, campaign=campaign).first()
    if invitation is None:
        raise NotFound("There is no such invitation.")
    if invitation.revoked_at:
        raise Conflict("This invitation was revoked already.")
    invitation.revoked_at = timezone.now()
    invitation.save(update_fields=["revoked_at"])
    touch(campaign)
    return invitation


UNKNOWN_INVITATION = "This invitation link is not valid. Check that you copied all of it, or ask the GM for a new one."
ARCHIVED_NO_JOIN = "This campaign is archived and isn't taking new players."
UNUSABLE = {
    "revoked": "This invitation was revoked by the GM. Ask them for a new link.",
    "expired": "This invitation has expired. Ask the GM for a new link.",
    "used up": "This invitation has been used as many times as it allows. Ask the GM for a new link.",
}


@transaction.atomic
def join_campaign(*, token: str, user: AbstractBaseUser) -> tuple[Membership, bool]:
    """``user`` joins through the invitation ``token`` as a player: ``(membership, True)``,
    or ``(their membership, False)`` if they were a member already (no use is counted).

    The invitation row is locked while its uses are counted, so two people opening
    a single-use link at the same moment cannot both get in.
    """
    invitation = Invitation.objects.select_for_update().filter(token=token).first()
    if invitation is None:
        raise NotFound(UNKNOWN_INVITATION)
    campaign = locked(invitation.campaign_id)
    existing = Membership.objects.filter(campaign=campaign, user=user).first()
    if existing is not None:
        return existing, False
    state = invitation.state()
    if state != "active":
        raise Gone(UNUSABLE[state])
    if campaign.archived_at:
        raise Gone(ARCHIVED_NO_JOIN)
    member = Membership.objects.create(campaign=campaign, user=user, role=Membership.Role.PLAYER)
    Invitation.objects.filter(pk=invitation.pk).update(uses=F("uses") + 1)
    touch(campaign)
    return member, True
