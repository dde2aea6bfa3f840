"""The live campaign dashboard: the party, the initiative order and the roll feed on one page,
kept current over a WebSocket (:mod:`play.consumers`) and whole again on every reload."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from campaigns import access
from campaigns.models import Membership
from campaigns.views import refusals
from play import live


@require_safe
@refusals
def dashboard(request: HttpRequest, pk: int) -> HttpResponse:
    """Eight queries however large the party and the fight: the session, the user, the campaign and
    its members (access.campaign_for), the active characters with their owners, the running
    encounter and its combatants with their characters (live.initiative), and the feed's rolls with
    who rolled, their character and any reveal."""
    campaign = access.campaign_for(request.user, pk)
    gm = campaign.viewer.role == Membership.Role.GM  # type: ignore[attr-defined]
    rolls = live.feed_rolls(campaign.pk, gm=gm)
    context = {
        "campaign": campaign,
        "is_gm": gm,
        "party": live.party(campaign),
        **live.initiative(campaign),
        "entries": [live.feed_entry(r, gm=gm) for r in rolls],
        "last_seq": rolls[0].seq if rolls else 0,
        "feed_size": live.FEED_SIZE,
    }
    return render(request, "play/dashboard.html", context)
