"""The campaign's table page: each member's own view of the table (what the engine lets them see), the
decision that waits for them with the exact chance each choice leaves, and the table's moves, each a
form made from the move's input model carrying the version of the table it was made from. A move made
comes back to the page (or, with htmx, the table's region, fresh); refused, the page says why beside
the field (400), as things stand now (409), or that they may not (403). The GM reads the table's
history, newest first, a page at a time."""

from __future__ import annotations

from typing import Any, Final

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import select_template
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from campaigns import access as campaign_access
from campaigns.errors import NotAllowed, NotFound, Refused
from campaigns.models import Campaign
from characters.generated import Unsupported, input_form
from play import table
from web import limits
from web.fields import version_number, whole_key

#: The changes the history page shows at once.
HISTORY_PAGE: Final = 50


def _view_template(campaign: Campaign) -> str:
    """The system's template for its table's view, or the generic one."""
    try:
        return select_template([f"systems/{campaign.system}/table.html", "play/_table_view.html"]).template.name
    except TemplateDoesNotExist:  # pragma: no cover - the generic one is always there
        return "play/_table_view.html"


def _page(
    request: HttpRequest,
    campaign: Campaign,
    *,
    forms_given: dict[str, forms.Form] | None = None,
    status: int = 200,
    problem: str = "",
    conflict: str = "",
) -> HttpResponse:
    seen = table.view_for(campaign, request.user)
    moves = []
    for offered in table.offered(campaign, request.user):
        try:
            form = (forms_given or {}).get(offered.move.key) or input_form(offered.move.input)
        except Unsupported:  # a move no generic form can show is made from its system's own page
            continue
        form.auto_id = f"{offered.move.key}-%s"
        moves.append({"move": offered.move, "why_not": offered.why_not, "version": offered.version, "form": form,
                      "fields": [form[name] for name in form.fields]})  # fmt: skip
    who = table.viewer(campaign, request.user)
    context: dict[str, Any] = {
        "campaign": campaign,
        "view": seen.view,
        "version": seen.version,
        "prompt": seen.prompt,
        "moves": moves,
        "view_template": _view_template(campaign),
        "is_gm": who is not None and who.role.value == "gm",
        "problem": problem,
        "conflict": conflict,
    }
    template = "play/table.html" + ("#table-body" if request.htmx else "")
    return render(request, template, context, status=status)


def _campaign(request: HttpRequest, pk: int) -> Campaign:
    campaign = campaign_access.campaign_for(request.user, pk)
    if campaign.rules.table is None:
        raise Http404("This campaign's system keeps no table")
    return campaign


@require_safe
@vary_on_headers("HX-Request")
def table_page(request: HttpRequest, pk: int) -> HttpResponse:
    """The table as this member sees it, with what they may do there now."""
    return _page(request, _campaign(request, pk))


@require_POST
@vary_on_headers("HX-Request")
@limits.limited(limits.ROLLS)
def table_move(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    """A table move, made from the version of the table its form was made from."""
    campaign = _campaign(request, pk)
    offered = {o.move.key: o.move for o in table.offered(campaign, request.user)}
    move = offered.get(key)
    if move is None:
        raise Http404("No such move at this table")
    try:
        form = input_form(move.input, request.POST)
    except Unsupported:
        raise Http404("This move is made from its own page, not from the table's.") from None
    version = version_number(request.POST.get("version", ""))
    if version is None:
        problem = "This form did not say which version of the table it was made from, so nothing was done."
        return _page(request, campaign, status=400, problem=problem)
    if not form.is_valid():
        return _page(request, campaign, forms_given={key: form}, status=400, problem="Please check what is marked.")
    given = {name: value for name, value in form.cleaned_data.items() if value is not None}
    try:
        made = table.make(campaign_id=campaign.pk, key=key, version=version, given=given, by=request.user)
    except table.StaleTable as stale:
        return _page(request, campaign, status=409, conflict=stale.message)
    except NotAllowed as refused:
        return _page(request, campaign, status=403, problem=refused.message)
    except NotFound as missing:
        raise Http404(missing.message) from None
    except Refused as refused:
        problem = refused.message
        for field, message in refused.errors.items():
            if field in form.fields:
                form.add_error(field, message)
                problem = ""
        return _page(request, campaign, forms_given={key: form}, status=400, problem=problem)
    notice = f"You {made.notice}."
    if request.htmx:
        response = _page(request, campaign)
        response["HX-Trigger"] = "tableMoved"
        return response
    messages.success(request, notice)
    return redirect("play:table", campaign.pk)


@require_http_methods(["GET", "HEAD"])
def table_history(request: HttpRequest, pk: int) -> HttpResponse:
    """The table's changes, newest first: the GM's (they hold what the table hides)."""
    campaign = _campaign(request, pk)
    raw = request.GET.get("before", "")
    before = whole_key(raw) if raw else None
    if raw and before is None:
        return render(request, "play/table_history.html", {"campaign": campaign, "changes": [], "next": None,
                      "error": "That is not a page of this history."}, status=400)  # fmt: skip
    try:
        changes = table.history(campaign, request.user, before=before, size=HISTORY_PAGE + 1)
    except NotAllowed as refused:
        return render(request, "campaigns/refused.html", {"campaign": campaign, "message": refused.message},
                      status=403)  # fmt: skip
    more = len(changes) > HISTORY_PAGE
    changes = changes[:HISTORY_PAGE]
    following = f"{reverse('play:table-history', args=[campaign.pk])}?before={changes[-1].version}" if more else None
    return render(request, "play/table_history.html", {"campaign": campaign, "changes": changes, "next": following})
