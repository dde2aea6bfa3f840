"""Proposed rolls (``play.proposals``): a player proposes from the sheet's roll page, the GM calls or
declines on the dashboard, the player withdraws there.

The roll page (each system's own, or the generic one) posts its situation with ``propose`` and an
optional note; it hands the situation it built to :func:`propose`, which answers with the page's
``roll-proposal`` region (htmx) or a redirect back to the page. On the dashboard's list of requests
the GM's Call it posts the call form as the proposal fills it (:func:`call`, whose page is that form,
to change before calling), and Decline declines; the player's Withdraw withdraws. Plain forms that
work without JavaScript; htmx swaps the list in place, and the live socket tells every dashboard.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final
from urllib.parse import urlencode

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from campaigns import access as campaign_access
from campaigns.errors import NotAllowed, NotFound, Refused
from campaigns.models import Campaign
from campaigns.presenters import refusals
from characters.models import Character
from play import proposals, sheet_rolls
from play.models import RollProposal
from play.request_views import LIST_TEMPLATE, call_form, requests_context
from web.fields import TextField

PROPOSE_TEMPLATE: Final = "play/_roll_proposal.html"
CALL_TEMPLATE: Final = "play/proposal_call.html"
ANSWERING: Final = "This roll answers the GM's call already: roll it rather than propose it."


class ProposeForm(forms.Form):
    """A line for the GM saying why; the roll itself comes from the roll page's own form."""

    note = TextField(label="Why (optional)", required=False, max_length=proposals.NOTE_LENGTH)


def wants_proposal(request: HttpRequest) -> bool:
    """Whether a roll page's POST proposes its roll rather than rolls it."""
    return request.method == "POST" and "propose" in request.POST


def propose(
    request: HttpRequest,
    character: Character,
    situation: Mapping[str, Any],
    *,
    query: Mapping[str, Any],
    page: Callable[[dict[str, Any], int], HttpResponse],
) -> HttpResponse:
    """Propose the roll a roll page built (``situation``, its choices ``query``) to the GM. With htmx,
    the page's proposal region; without, a redirect back to the page, or on a refusal the whole page
    again (``page``, given the region's context and the status) with the note kept."""
    form = ProposeForm(request.POST)
    url = reverse("play:sheet-roll", args=[character.pk])
    context: dict[str, Any] = {"character": character, "roll_url": url, "query": query}
    status = 400
    if form.is_valid():
        try:
            made = proposals.propose(
                character_id=character.pk, by=request.user, situation=situation, note=form.cleaned_data["note"]
            )
        except Refused as refused:
            for field, message in (refused.errors or {None: refused.message}).items():
                form.add_error(field if field in form.fields else None, message)
            status = refused.status
        else:
            if not request.htmx:
                messages.success(request, f"Proposed to the GM: {made.label}.")
                return redirect(f"{url}?{urlencode(dict(query))}#roll-proposal")
            return render(request, PROPOSE_TEMPLATE, {**context, "proposed": made, "propose_form": ProposeForm()})
    context["propose_form"] = form
    if request.htmx:
        return render(request, PROPOSE_TEMPLATE, context, status=status)
    return page(context, status)


def refused(request: HttpRequest, character: Character, message: str, status: int = 400) -> HttpResponse:
    """Why nothing was proposed, where the roll page's own form refused the roll: the proposal region
    (htmx), or a page that says it."""
    if not request.htmx:
        context = {"message": message, "character": character}
        return render(request, "characters/edit_refused.html", context, status=status)
    form = ProposeForm(request.POST)
    form.is_valid()
    form.add_error(None, message)
    url = reverse("play:sheet-roll", args=[character.pk])
    context = {"character": character, "roll_url": url, "query": {}, "propose_form": form}
    return render(request, PROPOSE_TEMPLATE, context, status=status)


def _back(campaign: Campaign) -> str:
    return f"{reverse('play:dashboard', args=[campaign.pk])}#dashboard-requests"


def _list(request: HttpRequest, campaign: Campaign, *, gm: bool, status: int = 200, **extra: Any) -> HttpResponse:
    return render(request, LIST_TEMPLATE, {**requests_context(request.user, campaign, gm=gm), **extra}, status=status)


def _open_proposal(campaign: Campaign, pk: int) -> RollProposal:
    proposal = RollProposal.objects.open().filter(campaign=campaign, pk=pk).select_related("character", "by").first()
    if proposal is None:
        raise NotFound("There is no such roll proposal waiting for you.")
    proposal.character.campaign = campaign
    return proposal


@require_http_methods(["GET", "HEAD", "POST"])
@refusals
def call(request: HttpRequest, pk: int, proposal_pk: int) -> HttpResponse:
    """The GM calls a proposed roll. GET: the call form as the proposal fills it, to change before
    calling. POST: call it (the dashboard's Call it posts the form unchanged); the proposal closes as
    called. A form error, or a proposal answered meanwhile, comes back with what was sent."""
    campaign = campaign_access.campaign_for(request.user, pk, gm=True)
    if request.method == "POST":
        return _call(request, campaign, proposal_pk)
    proposal = _open_proposal(campaign, proposal_pk)
    initial = {**proposal.call, "characters": [proposal.character_id]}
    form = call_form(campaign, also=proposal.character_id, initial=initial)
    return render(request, CALL_TEMPLATE, _call_context(campaign, proposal, form))


def _call_context(campaign: Campaign, proposal: RollProposal, form: Any) -> dict[str, Any]:
    chance, words, steps = sheet_rolls.as_proposed(proposal)
    return {"campaign": campaign, "proposal": proposal, "call_form": form, "chance": chance, "words": words,
            "steps": steps}  # fmt: skip


def _call(request: HttpRequest, campaign: Campaign, proposal_pk: int) -> HttpResponse:
    proposal = RollProposal.objects.filter(campaign=campaign, pk=proposal_pk).select_related("character", "by").first()
    if proposal is None:
        raise NotFound("There is no such roll proposal.")
    proposal.character.campaign = campaign
    form = call_form(campaign, request.POST, also=proposal.character_id)
    problem = None
    if form.is_valid():
        try:
            made = proposals.call_proposal(
                campaign_id=campaign.pk,
                proposal_id=proposal.pk,
                by=request.user,
                call=form.call(),
                characters=form.cleaned_data["characters"],
                secret=form.cleaned_data["secret"],
            )
        except Refused as refusal:
            for field, message in (refusal.errors or {None: refusal.message}).items():
                form.add_error(field if field in form.fields else None, message)
            problem, status = refusal.message, refusal.status
        else:
            if request.htmx:
                return _list(request, campaign, gm=True, called=made.label)
            messages.success(request, f"You called for a roll: {made.label}.")
            return redirect(_back(campaign))
    else:
        problem, status = " ".join(m for errors in form.errors.values() for m in errors), 400
    if request.htmx:
        return _list(request, campaign, gm=True, status=status, proposal_error=problem)
    return render(request, CALL_TEMPLATE, _call_context(campaign, proposal, form), status=status)


@require_POST
@refusals
def decline(request: HttpRequest, pk: int, proposal_pk: int) -> HttpResponse:
    campaign = campaign_access.campaign_for(request.user, pk, gm=True)
    declined = proposals.decline(campaign_id=campaign.pk, proposal_id=proposal_pk, by=request.user)
    if request.htmx:
        return _list(request, campaign, gm=True)
    messages.success(request, f"Declined: {declined.label} for {declined.character.name}.")
    return redirect(_back(campaign))


@require_POST
@refusals
def withdraw(request: HttpRequest, pk: int, proposal_pk: int) -> HttpResponse:
    """A player takes back their own proposal while it waits (the GM declines instead: 403)."""
    campaign = campaign_access.campaign_for(request.user, pk)
    if campaign_access.is_gm(request.user, campaign):
        raise NotAllowed("The GM declines a proposal rather than withdrawing it.")
    withdrawn = proposals.withdraw(campaign_id=campaign.pk, proposal_id=proposal_pk, by=request.user)
    if request.htmx:
        return _list(request, campaign, gm=False)
    messages.success(request, f"Withdrawn: {withdrawn.label}.")
    return redirect(_back(campaign))


__all__ = ["call", "decline", "propose", "refused", "wants_proposal", "withdraw"]
