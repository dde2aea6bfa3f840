"""The live campaign dashboard: a page of the party, the initiative order and the roll feed on one
page, kept current over a WebSocket (:mod:`play.consumers`) and whole again on every reload."""

from __future__ import annotations

from typing import Final

from django.db.models import Exists, OuterRef
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_safe

from campaigns import access
from campaigns.models import Campaign, Membership
from campaigns.presenters import page_key, refusals
from characters import access as character_access
from characters.models import Character
from play import live, proposals, request_views, requests
from web.prepared import Prepared

#: Characters with something waiting for the GM's approval that the dashboard shows.
AWAITING_SHOWN: Final = 6


#: The viewer's membership with its campaign (``campaigns.access.campaign_of_member``'s one query), and in
#: the same query whether each list of the GM's below has anything to show, asked of the very queries that
#: read them: the running encounter, the open roll requests, the open proposals, the characters waiting for
#: the GM's approval. A list known to be empty is not read.
member_and_lists = Prepared(
    Membership,
    lambda campaign, user: access.member_rows(campaign, user).annotate(
        any_encounter=Exists(live.running_encounters(OuterRef("campaign_id"))),
        any_requests=Exists(requests.open_requests_of(OuterRef("campaign_id"))),
        any_proposals=Exists(proposals.open_proposals(OuterRef("campaign_id"))),
        any_awaiting=Exists(character_access.awaiting_gm(OuterRef("campaign_id"))),
    )[:1],
)

#: The first of those waiting by name, and one more (is there more?), as ``page_by_name`` reads them:
#: compiled once, as the GM's dashboard asks on every load.
first_awaiting = Prepared(
    Character,
    lambda campaign: character_access.awaiting_gm(Campaign(pk=campaign)).order_by("name", "pk")[: AWAITING_SHOWN + 1],
)


@require_safe
@refusals
def dashboard(request: HttpRequest, pk: int) -> HttpResponse:
    """The party a page at a time by name (``?after=<id>:<name>``, the last row of the page before;
    a bad key is a 400), never by OFFSET. At most nine queries for the GM however large the party and the
    fight: the session with its user, the GM's membership with its campaign (access.campaign_of_member) and
    whether each of the lists below has anything to show (:data:`member_and_lists`), the page of active
    characters with their owners (on the first page, as many as the call form offers too), the feed's rolls
    with who rolled, their character and any reveal; and, each only when it has something to show, the
    running encounter and its combatants with their characters (live.initiative), the open roll requests
    with their characters and answers, the open proposals with their characters and players, and those
    with something waiting for the GM's approval; on a later page of the party, the characters the call
    form offers too. A player's page reads what is asked of their characters and their own proposals
    instead of the GM's lists. The queries read on every load are compiled once (``web.prepared``)."""
    campaign = access.campaign_of_member(request.user, pk, read=member_and_lists)
    member = campaign.viewer  # type: ignore[attr-defined]
    after = page_key(request.GET, "after", "the party")
    gm = member.role == Membership.Role.GM
    # The GM's call form offers the first characters by name: on the first page, read with the party.
    # Its party and its feed in one trip to the database.
    (party, next_key, first), (entries, last_seq) = live.dashboard_reads(
        campaign, after, gm=gm, first=requests.MAX_ASKED if gm else 0
    )
    context = {
        "campaign": campaign,
        "is_gm": gm,
        "party": party,
        "party_after": str(after) if after else "",
        "party_next_url": f"?{urlencode({'after': str(next_key)})}#dashboard-party" if next_key else None,
        "party_first_url": f"{request.path}#dashboard-party" if after else None,
        **live.initiative(campaign, any_running=member.any_encounter),
        "entries": entries,
        "last_seq": last_seq,
        "feed_size": live.FEED_SIZE,
        **request_views.requests_context(
            request.user, campaign, gm=gm, requests_open=member.any_requests, proposals_open=member.any_proposals
        ),
    }
    if gm:
        context["call_form"] = request_views.unsent_call_form(campaign, offered=first if after is None else None)
        # What waits for the GM's approval: its first page (the rest from the campaign page).
        read = first_awaiting(campaign=campaign.pk) if member.any_awaiting else []
        waiting, more = read[:AWAITING_SHOWN], len(read) > AWAITING_SHOWN
        more_url = reverse("campaigns:detail", args=[campaign.pk]) + "#awaiting-gm" if more else None
        context["awaiting"] = {"rows": [character_access.awaiting_row(c) for c in waiting], "next_url": more_url}
    return render(request, "play/dashboard.html", context)
