"""Who may see and change a campaign. An object a user may not see is a 404;
one they may see but not change is a 403. Views load campaigns only through here."""

from __future__ import annotations

import operator
from functools import reduce

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db import connections
from django.db.models import Count, IntegerField, OuterRef, Prefetch, Q, QuerySet, Subquery, Value
from django.db.models.functions import Coalesce
from django.http import Http404

from campaigns.models import Campaign, Invitation, Membership
from characters.models import Character


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


def is_gm(user: AbstractBaseUser | AnonymousUser, campaign: Campaign) -> bool:
    member = membership(user, campaign)
    return member is not None and member.role == Membership.Role.GM


def campaigns_of(user: AbstractBaseUser | AnonymousUser) -> QuerySet[Campaign]:
    """The user's campaigns, each with ``my_role`` and ``party_size`` (active characters), in one query."""
    role = Membership.objects.filter(campaign=OuterRef("pk"), user=user.pk).values("role")[:1]
    party = (
        Character.objects.active()
        .filter(campaign=OuterRef("pk"))
        .order_by()
        .values("campaign")
        .annotate(n=Count("pk"))
        .values("n")
    )
    return (
        Campaign.objects.visible_to(user)
        .annotate(my_role=Subquery(role), party_size=Coalesce(Subquery(party, output_field=IntegerField()), Value(0)))
        .order_by("-last_activity_at", "name", "pk")
    )


def _shown_by_status(campaign: Campaign, user: AbstractBaseUser | AnonymousUser) -> list[Q]:
    """Which of the campaign's characters ``user`` may see, one part per status: every active
    character, the viewer's own drafts, and (for the GM) every draft, with the server's rolls in
    it, and the archived ones. Each part is one range of the index on (campaign, status, name, id)."""
    if is_gm(user, campaign):
        return [Q(status=status) for status in Character.Status.values]
    return [Q(status=Character.Status.ACTIVE), Q(status=Character.Status.DRAFT, owner=user.pk)]


def listed_characters(campaign: Campaign, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Character]:
    """The characters the campaign page lists for ``user``, with their owners, in order of name: every
    active character, the viewer's own drafts, and (for the GM) every draft, with the server's
    rolls in it, and the archived ones. A query, to be read a page at a time."""
    shown = reduce(operator.or_, _shown_by_status(campaign, user))
    return Character.objects.filter(shown, campaign=campaign).select_related("owner").order_by("name", "pk")


def character_choices(
    campaign: Campaign, user: AbstractBaseUser | AnonymousUser, *, limit: int, name_starts: str = ""
) -> list[Character]:
    """The first ``limit`` characters by (name, id) of those :func:`listed_characters` gives
    ``user``, only those whose name starts with ``name_starts`` (in any case) if it is given: what a
    page offers to choose from. Only their ids and names are loaded.

    One query however large the campaign: for each status the viewer may see, the index on
    (campaign, status, name, id) is read in order and stops after ``limit`` rows, and only those
    few are merged (UNION ALL) and cut to ``limit``; no sort of the whole party. A name start is
    matched as the index is read (the index orders names as they are, not case-folded), so a start
    that few names have reads further along it."""
    rows = Character.objects.filter(campaign=campaign).only("name")
    if name_starts:
        rows = rows.filter(name__istartswith=name_starts)
    parts = [rows.filter(shown).order_by("name", "pk")[:limit] for shown in _shown_by_status(campaign, user)]
    if not connections[rows.db].features.supports_slicing_ordering_in_compound:
        # SQLite takes no LIMIT in a member of a UNION: there each member is its first ids, looked up by key.
        parts = [Character.objects.filter(pk__in=part.values("pk")).only("name").order_by() for part in parts]
    return list(parts[0].union(*parts[1:], all=True).order_by("name", "pk")[:limit])


def character_choice(campaign: Campaign, user: AbstractBaseUser | AnonymousUser, pk: int) -> Character | None:
    """The character ``pk`` if it is one of the campaign's that :func:`listed_characters` gives
    ``user`` (None otherwise), with only its id and name loaded: one query, by its key."""
    shown = reduce(operator.or_, _shown_by_status(campaign, user))
    return Character.objects.filter(shown, campaign=campaign, pk=pk).only("pk", "name").first()


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
