"""The live campaign dashboard: a page of the party, the initiative order and the roll feed on one
page, kept current over a WebSocket (:mod:`play.consumers`) and whole again on every reload."""

from __future__ import annotations

from typing import Final

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_safe

from campaigns import access
from campaigns.models import Membership
from campaigns.presenters import page_by_name, page_key, refusals
from characters import access as character_access
from play import live, request_views

#: Characters with something waiting for the GM's approval that the dashboard shows.
AWAITING_SHOWN: Final = 6


@require_safe
@refusals
def dashboard(request: HttpRequest, pk: int) -> HttpResponse:
    """The party a page at a time by name (``?after=<id>:<name>``, the last row of the page before;
    a bad key is a 400), never by OFFSET. Twelve queries for the GM however large the party and the fight,
    on any of its pages: the session, the user, the campaign and its members (access.campaign_for), the
    page of active characters with their owners, the running encounter and its combatants with their
    characters (live.initiative), the feed's rolls with who rolled, their character and any reveal, the
    open roll requests (with their characters and answers when there are some), the open proposals
    with their characters and players, the characters the call form offers, and those with something
    waiting for the GM's approval; a player's page reads
    what is asked of their characters and their own proposals instead of the last four."""
    campaign = access.campaign_for(request.user, pk)
    after = page_key(request.GET, "after", "the party")
    gm = campaign.viewer.role == Membership.Role.GM  # type: ignore[attr-defined]
    party, next_key = live.party_page(campaign, after)
    rolls = live.feed_rolls(campaign.pk, gm=gm)
    context = {
        "campaign": campaign,
        "is_gm": gm,
        "party": party,
        "party_after": str(after) if after else "",
        "party_next_url": f"?{urlencode({'after': str(next_key)})}#dashboard-party" if next_key else None,
        "party_first_url": f"{request.path}#dashboard-party" if after else None,
        **live.initiative(campaign),
        "entries": [live.feed_entry(r, gm=gm) for r in rolls],
        "last_seq": rolls[0].seq if rolls else 0,
        "feed_size": live.FEED_SIZE,
        **request_views.requests_context(request.user, campaign, gm=gm),
    }
    if gm:
        context["call_form"] = request_views.call_form(campaign)
        # What waits for the GM's approval: its first page (the rest from the campaign page).
        waiting, more = page_by_name(character_access.awaiting_gm(campaign), None, AWAITING_SHOWN)
        more_url = reverse("campaigns:detail", args=[campaign.pk]) + "#awaiting-gm" if more else None
        context["awaiting"] = {"rows": [character_access.awaiting_row(c) for c in waiting], "next_url": more_url}
    return render(request, "play/dashboard.html", context)
