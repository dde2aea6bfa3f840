"""Who may see and change a campaign. An object a user may not see is a 404;
one they may see but not change is a 403. Views load campaigns only through here."""

from __future__ import annotations

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db.models import OuterRef, Prefetch, QuerySet, Subquery
from django.http import Http404

from campaigns.models import Campaign, Invitation, Membership
from web.prepared import Fetched, Prepared


def membership(user: AbstractBaseUser | AnonymousUser, campaign: Campaign) -> Membership | None:
    if not user.is_authenticated:
        return None
    return next((m for m in campaign.memberships.all() if m.user_id == user.pk), None)


def campaign_for(user: AbstractBaseUser | AnonymousUser, pk: int, *, gm: bool = False) -> Campaign:
    """The campaign ``pk`` if ``user`` is a member (404 otherwise); with ``gm``, only its GM may act (403).

    Two queries: the campaign, and its members with their users (GM first, then by name).
    """
    members = Membership.objects.select_related("user").order_by("role", "user__username")  # "gm" < "player"
    campaign = (
        Campaign.objects.visible_to(user).filter(pk=pk).prefetch_related(Prefetch("memberships", members)).first()
    )
    if campaign is None:
        raise Http404("No such campaign")
    campaign.viewer = membership(user, campaign)  # type: ignore[attr-defined]
    if gm and campaign.viewer.role != Membership.Role.GM:  # type: ignore[attr-defined]
        raise PermissionDenied("Only the campaign's GM can do that.")
    return campaign


def member_rows(campaign: int, user: int) -> QuerySet[Membership]:
    """The membership of ``user`` in ``campaign`` (a row, or none) with its campaign: what
    :func:`campaign_of_member` reads, which a page may annotate with more of its own to read in the same query."""
    return Membership.objects.select_related("campaign").filter(campaign_id=campaign, user_id=user)


#: A membership with its campaign, compiled once (:func:`campaign_of_member`).
member_with_campaign = Prepared(Membership, lambda campaign, user: member_rows(campaign, user)[:1])


def campaign_of_member(
    user: AbstractBaseUser | AnonymousUser, pk: int, *, read: Prepared[Membership] = member_with_campaign
) -> Campaign:
    """The campaign ``pk`` if ``user`` is a member (404 otherwise), with ``viewer`` their membership, in one
    query: the membership joined to its campaign. The same rule as :func:`campaign_for`, for a page that
    shows nothing of the other members (the campaign's ``memberships`` are not loaded). ``read``: that
    query, :func:`member_rows` with the page's own annotations (on ``viewer``), prepared by the page."""
    return campaign_of_row(member_row(user, pk, read=read), user)


def member_row(user: AbstractBaseUser | AnonymousUser, pk: int, *, read: Prepared[Membership]) -> Fetched[Membership]:
    """The row :func:`campaign_of_member` reads (the same 404s), not yet made into its instances: a page that
    needs only a few of its values (the key of a page it kept) reads them (``Fetched.columns``) and makes the
    campaign (:func:`campaign_of_row`) only if it draws."""
    if not user.is_authenticated:
        raise Http404("No such campaign")
    found = read.fetch(campaign=pk, user=user.pk)
    if not found:
        raise Http404("No such campaign")
    return found


def campaign_of_row(found: Fetched[Membership], user: AbstractBaseUser | AnonymousUser) -> Campaign:
    """The campaign of the row :func:`member_row` read, with ``viewer`` the user's membership."""
    member = found.instance(0)
    member.user = user  # type: ignore[assignment]
    campaign = member.campaign
    campaign.viewer = member  # type: ignore[attr-defined]
    return campaign


def is_gm(user: AbstractBaseUser | AnonymousUser, campaign: Campaign) -> bool:
    member = membership(user, campaign)
    return member is not None and member.role == Membership.Role.GM


def campaigns_of(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Campaign]:
    """The user's campaigns, each with ``my_role`` and ``party_size`` (active characters), in one query."""
    role = Membership.objects.filter(campaign=OuterRef("pk"), user=user.pk).values("role")[:1]
    return (
        Campaign.objects.visible_to(user)
        .annotate(my_role=Subquery(role))
        .with_party_size()
        .order_by("-last_activity_at", "name", "pk")
    )


def invitation_for(user: AbstractBaseUser | AnonymousUser, campaign: Campaign, pk: int) -> Invitation:
    """One of the campaign's invitations, for its GM (the campaign comes from :func:`campaign_for` with ``gm``)."""
    if not is_gm(user, campaign):
        raise PermissionDenied("Only the campaign's GM can do that.")
    invitation = campaign.invitations.filter(pk=pk).first()
    if invitation is None:
        raise Http404("No such invitation")
    return invitation


def member_of(user: AbstractBaseUser | AnonymousUser, campaign: Campaign, pk: int) -> Membership:
    """One membership of the campaign, for its GM; the members are already loaded by :func:`campaign_for`."""
    if not is_gm(user, campaign):
        raise PermissionDenied("Only the campaign's GM can do that.")
    member = next((m for m in campaign.memberships.all() if m.pk == pk), None)
    if member is None:
        raise Http404("No such member")
    return member
