"""Who may see and change a campaign. An object a user may not see is a 404;
one they may see but not change is a 403. Views load campaigns only through here."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.http import Http404

from campaigns.models import Campaign, Membership


def membership(user: AbstractBaseUser | AnonymousUser, campaign: Campaign) -> Membership | None:
    if not user.is_authenticated:
        return None
    return next((m for m in campaign.memberships.all() if m.user_id == user.pk), None)


def campaign_for(user: AbstractBaseUser | AnonymousUser, pk: int, *, gm: bool = False) -> Campaign:
    """The campaign ``pk`` if ``user`` is a member (404 otherwise); with ``gm``, only its GM may act (403)."""
    campaign = Campaign.objects.visible_to(user).filter(pk=pk).prefetch_related("memberships").first()
    if campaign is None:
        raise Http404("No such campaign")
    campaign.viewer = membership(user, campaign)  # type: ignore[attr-defined]
    if gm and campaign.viewer.role != Membership.Role.GM:  # type: ignore[attr-defined]
        raise PermissionDenied("Only the campaign's GM can do that.")
    return campaign


def is_gm(user: AbstractBaseUser | AnonymousUser, campaign: Campaign) -> bool:
    member = membership(user, campaign)
    return member is not None and member.role == Membership.Role.GM
