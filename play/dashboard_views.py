"""The live campaign dashboard: a page of the party, the initiative order and the roll feed on one
page, kept current over a WebSocket (:mod:`play.consumers`) and whole again on every reload."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from django.db import connections, router
from django.db.models import Exists, OuterRef, QuerySet
from django.db.models.expressions import RawSQL
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
from play.templatetags import kept
from web import whole_pages
from web.kept import Kept
from web.prepared import Prepared

#: Characters with something waiting for the GM's approval that the dashboard shows.
AWAITING_SHOWN: Final = 6
#: GM's dashboards kept whole per process (:func:`whole_key`; some 40 KB each, split at the CSRF token): one
#: for each GM, campaign and browser looking while nothing changes in the campaign.
KEPT_PAGES: Final = 256

#: The GM's dashboards kept whole, each as the bytes around its CSRF token (:func:`dashboard`).
pages: Kept[tuple[bytes, ...]] = Kept(KEPT_PAGES)


def members_with_lists(campaign: int, user: int) -> QuerySet[Membership]:
    """The viewer's membership with its campaign (``campaigns.access.campaign_of_member``'s one query), and in
    the same query whether each list of the GM's below has anything to show, asked of the very queries that
    read them: the running encounter, the open roll requests, the open proposals, the characters waiting for
    the GM's approval. A list known to be empty is not read."""
    return access.member_rows(campaign, user).annotate(
        any_encounter=Exists(live.running_encounters(OuterRef("campaign_id"))),
        any_requests=Exists(requests.open_requests_of(OuterRef("campaign_id"))),
        any_proposals=Exists(proposals.open_proposals(OuterRef("campaign_id"))),
        any_awaiting=Exists(character_access.awaiting_gm(OuterRef("campaign_id"))),
    )


#: :func:`members_with_lists`, compiled once.
member_and_lists = Prepared(Membership, lambda campaign, user: members_with_lists(campaign, user)[:1])


def shown_mark(campaign: Any) -> RawSQL:
    """A digest, worked out by PostgreSQL, of everything the GM's dashboard shows of the campaign when nothing is
    under way: the campaign's row whole, and every row, whole, of the two queries the page draws its party and
    its feed from (:func:`play.live.dashboard_reads`: the party's first page with the characters the call form
    offers, the feed as the GM sees it), run as they are for the page, but for each character's sheet, whose
    64-bit hash stands for its text (``live.party_characters``). Any change to what the page shows changes a
    value of one of those rows, and so the digest (a change to a sheet but once in 2**64): a page drawn at one
    digest is the page at that digest (:func:`whole_key`). ``campaign``: the campaign's id, or the stand-in
    :class:`Prepared` gives it."""
    connection = connections[router.db_for_read(Campaign)]
    quote = connection.ops.quote_name
    party, ids = live.first_of_party_read(campaign, requests.MAX_ASKED, sheets=False)
    read: list[QuerySet[Any]] = [party.build(**ids), live.feed_keys_of_gm.build(campaign=campaign)]
    meta = Campaign._meta
    # Names from the models' own meta, quoted; every value a parameter.
    parts = [f"(SELECT c::text FROM {quote(meta.db_table)} c WHERE c.{quote(meta.pk.column)} = %s)"]  # noqa: S608
    params: list[Any] = [campaign]
    for queryset in read:
        sql, values = queryset.query.get_compiler(connection=connection).as_sql()
        parts.append(f"(SELECT string_agg(r::text, ',') FROM ({sql}) r)")  # noqa: S608
        params += values
    digest = " || '|' || ".join(f"coalesce({part}, '')" for part in parts)
    # Worked out for the GM's page only: a player's is drawn every time (:func:`whole_key`).
    role = f"{quote(Membership._meta.db_table)}.{quote(Membership._meta.get_field('role').column)}"
    # The SQL of the queries as Django compiles them and names from the models' meta; every value a parameter.
    return RawSQL(f"CASE WHEN {role} = %s THEN md5({digest}) END", [Membership.Role.GM.value, *params])  # noqa: S611


#: :data:`member_and_lists` with :func:`shown_mark` (on PostgreSQL: the digest is its own): what the GM's
#: dashboard asks on every load, in one query, to know whether the page it drew last is the page now.
member_lists_and_mark = Prepared(
    Membership,
    lambda campaign, user: members_with_lists(campaign, user).annotate(shown_mark=shown_mark(campaign))[:1],
)


#: What :func:`whole_key` reads of the membership's row beside the digest, in this order.
KEY_COLUMNS: Final = (
    Membership._meta.get_field("role"), "any_encounter", "any_requests", "any_proposals", "any_awaiting",
)  # fmt: skip


def whole_key(pk: int, values: Sequence[Any], mark: str | None, *, after: Any) -> tuple[Any, ...] | None:
    """What the GM's dashboard shows when nothing is under way, for the page to be kept whole and shown again
    while none of it changes (:func:`web.whole_pages.shown`, which adds the viewer's part: who is signed in, the
    browser's CSRF secret): the campaign, the digest of the rows it is drawn from (:func:`shown_mark`) and how
    the page is shown. None when the page must be drawn: a player's (what they proposed shows while answered
    lately, a matter of the clock), a later page of the party, an encounter running, a request or a proposal
    open, a character waiting for approval (their sections are drawn every time). ``pk``: the campaign;
    ``values``: the membership's row's :data:`KEY_COLUMNS`; ``mark``: its digest (None where not asked for)."""
    role, *under_way = values
    if role != Membership.Role.GM or after is not None or mark is None or any(under_way):
        return None
    return pk, mark, *kept.how_shown()


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
    instead of the GM's lists. The queries read on every load are compiled once (``web.prepared``).

    On PostgreSQL the GM's first page while nothing is under way is kept whole (:func:`whole_key`): shown again
    from two queries (the session with its user, the membership with the digest of what the page shows) for
    as long as the digest stays the same, each time with a CSRF token of its own."""
    # The party's first page asks in the same query whether the page drawn last is the page now (PostgreSQL).
    marked = "after" not in request.GET and connections[router.db_for_read(Campaign)].vendor == "postgresql"
    found = access.member_row(request.user, pk, read=member_lists_and_mark if marked else member_and_lists)
    after = page_key(request.GET, "after", "the party")
    # A page shown again reads a few values of the membership's row; its instances are made only to draw.
    (read,) = found.columns(*KEY_COLUMNS, "shown_mark") if marked else found.columns(*KEY_COLUMNS)
    values, mark = (read[:-1], read[-1]) if marked else (read, None)

    def drawn() -> HttpResponse:
        campaign = access.campaign_of_row(found, request.user)
        member = campaign.viewer  # type: ignore[attr-defined]
        return _drawn(request, campaign, member, gm=member.role == Membership.Role.GM, after=after)

    where = f"The GM's dashboard of campaign {pk}"
    return whole_pages.shown(request, pages, whole_key(pk, values, mark, after=after), drawn, where)


def _drawn(request: HttpRequest, campaign: Campaign, member: Membership, *, gm: bool, after: Any) -> HttpResponse:
    """The dashboard drawn from what it reads (:func:`dashboard`)."""
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
