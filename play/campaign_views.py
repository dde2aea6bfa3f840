"""The campaign pages that show or change its characters as well: the campaign page with the party
(a glance of it, the drafts and the archived characters, each list a page at a time by key), the
GM's settings (an options change the system applies to every sheet) and a member leaving or
removed (their characters archived). The rest of the campaign pages are :mod:`campaigns.views`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from campaigns import access, operations
from campaigns import views as campaign_views
from campaigns.forms import CampaignForm
from campaigns.models import Campaign, Membership
from campaigns.presenters import NameKey, options_summary, page_by_name, page_key, refusals
from characters import access as character_access
from characters import campaign_changes
from characters.models import Character
from play import live
from play.templatetags import kept


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@refusals
def campaign_settings(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    data = request.POST if request.method == "POST" else None
    initial = {
        "name": campaign.name,
        "description": campaign.description,
        "players_call_rolls": campaign.players_call_rolls,
    }
    form = CampaignForm(data, initial=initial)
    options_form = campaign_views.options_form_for(campaign.system, data, options=campaign.settings)
    context = {"form": form, "options_form": options_form, "campaign": campaign, "system_name": campaign.rules.name}
    if data is None:
        return campaign_views.campaign_form_page(request, context)
    if campaign.archived_at:
        raise operations.Conflict(operations.ARCHIVED)

    def save(fields: dict[str, Any], new_options: dict[str, Any], renames: dict[str, str]) -> Campaign:
        return campaign_changes.update_campaign(
            campaign_id=campaign.pk,
            by=request.user,
            name=fields["name"],
            description=fields["description"],
            options=new_options if options_form is not None else campaign.options,
            renames=renames,
            players_call_rolls=fields["players_call_rolls"],
        )

    return campaign_views.submit_campaign_form(request, context, save, "The campaign's settings are saved.")


# --- The campaign page ---------------------------------------------------------------------------


#: Characters the campaign page shows of the party; the rest are a page at a time on the dashboard.
PARTY_PREVIEW: Final = 12
#: Characters on a page of each of the campaign page's other lists (drafts, archived characters).
LIST_PAGE_SIZE: Final = 12
#: The query's keys: each list's page, independent of the others.
LIST_KEYS: Final = ("drafts_after", "others_drafts_after", "archived_after", "awaiting_after")


def _list_urls(request: HttpRequest, name: str, next_key: NameKey | None) -> dict[str, str | None]:
    """The links to the next page of one list (``name`` its key) and back to its first page, each
    keeping the other lists' pages and going to the party section."""
    keep = {k: v for k, v in request.GET.items() if k in LIST_KEYS and k != name}
    return {
        "next_url": f"?{urlencode({**keep, name: str(next_key)})}#party" if next_key else None,
        "first_url": f"?{urlencode(keep)}#party" if request.GET.get(name) else None,
    }


@require_safe
@refusals
def campaign_detail(request: HttpRequest, pk: int) -> HttpResponse:
    """Everything a member sees of the campaign, each list bounded: the first
    :data:`PARTY_PREVIEW` of the party by name, with a link to the rest on the dashboard (the party's
    own paginated page), and the drafts (and for the GM the players' drafts and the archived
    characters) a page at a time by key (``?drafts_after=<id>:<name>``…; a bad key is a 400).

    The same queries on every page however large the campaign: the session with its user, the
    campaign and its members (access.campaign_for), the party's first characters with their
    players, the viewer's drafts; for the GM, the players' drafts, the archived characters and those
    with something waiting for the GM's approval."""
    campaign = access.campaign_for(request.user, pk)
    keys = {name: page_key(request.GET, name, "characters") for name in LIST_KEYS}
    is_gm = campaign.viewer.role == Membership.Role.GM
    options = campaign.settings
    characters = Character.objects.filter(campaign=campaign).select_related("owner")
    drafts = characters.filter(status=Character.Status.DRAFT)

    def listed(name: str, rows: Any, row: Callable[[Character], Any] = lambda c: c) -> dict[str, Any]:
        page, next_key = page_by_name(rows, keys[name], LIST_PAGE_SIZE)
        return {"rows": [row(c) for c in page], **_list_urls(request, name, next_key)}

    options_digest = kept.options_digest(campaign)
    party, more = page_by_name(characters.filter(status=Character.Status.ACTIVE).with_balances(), None, PARTY_PREVIEW)
    dashboard = reverse("play:dashboard", args=[campaign.pk])
    hidden = {"rows": [], "next_url": None, "first_url": None}  # the players' drafts and the archived: the GM's
    return render(
        request,
        "campaigns/detail.html",
        {
            "campaign": campaign,
            "is_gm": is_gm,
            "has_table": campaign.rules.table is not None,
            "has_encounters": campaign.rules.combat is not None,
            "members": list(campaign.memberships.all()),
            "summary": options_summary(campaign.system, options),
            # Each card kept while what it shows is the same; a sheet is read only to draw a card, and no
            # query per character.
            "party": [live.party_row(c, options, options_digest) for c in party],
            "party_more_url": f"{dashboard}?{urlencode({'after': str(more)})}#dashboard-party" if more else None,
            "drafts": listed("drafts_after", drafts.filter(owner=request.user.pk), _draft_row),
            "others_drafts": listed("others_drafts_after", drafts.exclude(owner=request.user.pk), _draft_row)
            if is_gm
            else hidden,
            # Their names only: an archived character's sheet is not shown here.
            "archived_characters": listed(
                "archived_after", characters.filter(status=Character.Status.ARCHIVED).defer("sheet")
            )
            if is_gm
            else hidden,
            # For the GM: the characters with gear (or anything of the sheet) waiting for approval.
            "awaiting": listed("awaiting_after", character_access.awaiting_gm(campaign), character_access.awaiting_row)
            if is_gm
            else hidden,
        },
    )


def _draft_row(character: Character) -> dict[str, Any]:
    """A draft as the campaign page lists it: the step it was left at, and the server's rolls in it."""
    steps = character.rules.creation_steps
    return {
        "character": character,
        "summary": character.rules.summary(character.document),
        "first_step": steps[0].key,
        "last_step": steps[-1].key,
    }


@require_POST
@refusals
def remove_member(request: HttpRequest, pk: int, member_pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    member = access.member_of(request.user, campaign, member_pk)
    archived = campaign_changes.remove_member(campaign_id=campaign.pk, membership_id=member.pk, by=request.user)
    archived_words = campaign_views.count_of(archived, "character")
    messages.success(request, f"{member.user.get_username()} has left {campaign.name}; {archived_words} archived.")
    return redirect("campaigns:detail", pk=campaign.pk)


@require_POST
@refusals
def leave(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk)
    archived = campaign_changes.leave_campaign(campaign_id=campaign.pk, user=request.user)
    archived_words = campaign_views.count_of(archived, "character")
    messages.success(request, f"You left {campaign.name}; {archived_words} of yours archived.")
    return redirect("campaigns:list")
