"""Roll requests on the dashboard: the GM calls for a roll, each player rolls it (``play.requests``).

The GM's form is made from the system's ``call_model`` (its campaign-dependent choices from
``call_choices``) with the first :data:`~play.requests.MAX_ASKED` characters in play by name to
tick, and a box to call it in secret. A player's list shows what is asked of their characters with
the exact chance, a Roll button (the call as it stands, with what a called proposal added from the
sheet) and a link to the sheet's roll page, where they may add what the call leaves to them. The players'
proposals (``play.proposals``) are listed with the requests: every open one for the GM, with its exact
chance and the buttons of :mod:`play.proposal_views`; a player's own for the player. Plain forms that
work without JavaScript; htmx swaps them in place, and the live socket tells every open dashboard.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterator, Sequence
from fractions import Fraction
from functools import cached_property
from typing import Any, Final, NamedTuple

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST

from campaigns import access as campaign_access
from campaigns.errors import Refused
from campaigns.models import Campaign, Membership
from campaigns.presenters import refusals
from characters import access
from characters.generated import fields_of
from characters.models import Character
from play import proposals, requests, sheet_rolls
from play.models import RollAsked, RollProposal
from rules.systems.base import SpecError
from web import limits
from web.fields import ChoiceField, TypedMultipleChoiceField
from web.prepared import Prepared

FORM_TEMPLATE: Final = "play/dashboard_call.html"
LIST_TEMPLATE: Final = "play/dashboard_requests.html"


class Offered(NamedTuple):
    """A character the call form offers, as it shows them: its id and name (a character will do as well)."""

    pk: int
    name: str


class CallForm(forms.Form):
    """A call for a roll: the system's call fields, who rolls, and whether in secret."""

    def __init__(
        self,
        data: Any = None,
        *,
        campaign: Campaign,
        characters: Sequence[Character | Offered],
        initial: dict[str, Any] | None = None,
    ) -> None:
        super().__init__(data, initial=initial)
        #: Everything its fields are drawn from, while nobody has sent it: the fragment is kept by it
        #: (``play/templatetags/kept.py``) as the dashboard draws the form on every load.
        self.made_from = made_from(campaign, characters, initial)
        rules = campaign.rules
        fields = fields_of(rules.call_model)
        for key, choices in rules.call_choices(campaign.settings).items():
            if key in fields:
                old = fields[key]
                # A part with a default needs no empty choice; a system may word the empty choice itself
                # (Lucky 13: "the skill's own ability").
                initial = getattr(old.initial, "value", old.initial)
                bare = old.required or initial not in (None, "") or any(value == "" for value, _ in choices)
                blank = [] if bare else [("", "none")]
                fields[key] = ChoiceField(
                    label=old.label, choices=[*blank, *choices], required=old.required, initial=initial
                )
        self.fields.update(fields)
        self.call_fields = tuple(fields)
        self.fields["characters"] = TypedMultipleChoiceField(
            label="Who rolls",
            coerce=int,
            choices=[(c.pk, c.name) for c in characters],
            widget=forms.CheckboxSelectMultiple,
            error_messages={"required": "Choose who rolls.", "invalid_choice": "Choose characters in play."},
        )
        self.fields["secret"] = forms.BooleanField(
            label="In secret (the rolls stay hidden from the players until you reveal them)", required=False
        )

    def call(self) -> dict[str, Any]:
        return {key: self.cleaned_data[key] for key in self.call_fields if self.cleaned_data.get(key) not in (None, "")}

    @property
    def offered(self) -> bool:
        """Whether there is anyone to ask."""
        return bool(self.fields["characters"].choices)


def made_from(
    campaign: Campaign, characters: Sequence[Character | Offered], initial: dict[str, Any] | None
) -> tuple[Any, ...]:
    """What the fields of an unsent call form are drawn from (:attr:`CallForm.made_from`)."""
    return (
        campaign.settings_key,
        tuple((c.pk, c.name) for c in characters),
        repr(sorted((initial or {}).items())),
    )


class UnsentCallForm:
    """The GM's call form as the dashboard shows it before anyone sends it: what its fields are drawn from,
    and the form itself made only when they are drawn (``kept.call_fields`` keeps them by ``made_from``):
    a page whose fields are kept makes no form at all."""

    is_bound = False
    #: What a template reads of it that is not a field of the form.
    OWN: Final = frozenset({"is_bound", "made_from", "offered", "non_field_errors"})

    def __init__(self, campaign: Campaign, characters: Sequence[Character | Offered]) -> None:
        self._made = (campaign, characters)
        self.made_from = made_from(campaign, characters, None)
        self.offered = bool(characters)

    @cached_property
    def _form(self) -> CallForm:
        campaign, characters = self._made
        return CallForm(campaign=campaign, characters=characters)

    def non_field_errors(self) -> list[str]:
        return []

    def __iter__(self) -> Iterator[forms.BoundField]:
        return iter(self._form)

    def __getitem__(self, name: str) -> forms.BoundField:
        if name in self.OWN:  # a template asks by key before it asks by attribute
            raise KeyError(name)
        return self._form[name]


def _callable(campaign: Campaign, also: int | None = None) -> list[Character]:
    """The characters the form offers: the first of those in play by name, and the one ``also``
    names (a proposal's) wherever it is in the order."""
    # Their names only: the form shows nothing else of them, and a sheet is the bulk of a row.
    in_play = Character.objects.filter(campaign=campaign).active().only("pk", "name", "campaign_id")
    offered = list(in_play.order_by("name", "pk")[: requests.MAX_ASKED])
    if also is not None and all(c.pk != also for c in offered):
        offered.extend(in_play.filter(pk=also)[:1])
    return offered


def call_form(
    campaign: Campaign, data: Any = None, *, also: int | None = None, initial: dict[str, Any] | None = None
) -> CallForm:
    return CallForm(data, campaign=campaign, characters=_callable(campaign, also), initial=initial)


def unsent_call_form(campaign: Campaign, *, offered: Sequence[Character | Offered] | None = None) -> UnsentCallForm:
    """The dashboard's call form, unsent; ``offered``, the characters it offers when they were read already
    (the first :data:`~play.requests.MAX_ASKED` in play by name, as :func:`_callable` reads them)."""
    return UnsentCallForm(campaign, _callable(campaign) if offered is None else offered)


def waiting_entries(user: Any, campaign: Campaign) -> list[dict[str, Any]]:
    """What the open requests ask of ``user``'s characters, each with its exact chance as called, and their
    answers to secret requests the GM has not revealed yet (that they were rolled, nothing more)."""
    entries = []
    for asked in requests.asked_of_player(user, campaign.pk):
        character = asked.character
        if asked.roll_id is not None:  # answered in secret: told it was rolled, never the dice
            entries.append({"asked": asked, "character": character, "rolled_in_secret": True})
            continue
        try:
            made = sheet_rolls.as_asked(character, asked)
            chance: Fraction | None = sheet_rolls.chance_of(character, made)
            words, steps = made.label, made.steps
        except SpecError as error:  # the sheet changed since the call: the roll page says what is wrong
            chance, words, steps = None, f"cannot be rolled as the sheet stands: {error.message}", ()
        entries.append({"asked": asked, "character": character, "chance": chance, "words": words, "steps": steps})
    return entries


def call_fields(proposal: RollProposal) -> list[tuple[str, Any]]:
    """The call form's fields as a proposal fills them: what the one-click Call sends."""
    return [*((key, value) for key, value in proposal.call.items() if value is not None),
            ("characters", proposal.character_id)]  # fmt: skip


#: The GM's open proposals (``proposals.open_proposals``), compiled once: the dashboard reads them on every load.
open_proposals = Prepared(RollProposal, lambda campaign: proposals.open_proposals(campaign))


def proposal_entries(user: Any, campaign: Campaign, *, gm: bool, any_open: bool = True) -> list[dict[str, Any]]:
    """The GM's open proposals, or ``user``'s own (waiting, or answered lately), each with its exact chance;
    for the GM none, unread, when the caller knows none is open (``any_open``)."""
    if gm and not any_open:
        return []
    rows = open_proposals(campaign=campaign.pk) if gm else proposals.proposals_of(user, campaign.pk)
    entries = []
    for proposal in rows:
        proposal.character.campaign = campaign  # the campaign at hand: no query per row for its options
        chance, words, steps = sheet_rolls.as_proposed(proposal) if proposal.is_open else (None, "", ())
        entries.append({"proposal": proposal, "chance": chance, "words": words, "steps": steps,
                        "fields": call_fields(proposal)})  # fmt: skip
    return entries


def requests_context(
    user: Any, campaign: Campaign, *, gm: bool, requests_open: bool = True, proposals_open: bool = True
) -> dict[str, Any]:
    """The roll requests and the players' proposals as ``user`` sees them (the GM every open one). For the
    GM, a list the caller knows is empty (``requests_open``, ``proposals_open`` false) is not read."""
    proposed = {
        "proposals": proposal_entries(user, campaign, gm=gm, any_open=proposals_open),
        "proposals_shown": proposals.SHOWN,
    }
    if gm:
        shown = requests.open_requests(campaign.pk) if requests_open else []
        return {"campaign": campaign, "is_gm": True, "open_requests": shown, **proposed}
    return {"campaign": campaign, "is_gm": False, "waiting": waiting_entries(user, campaign), **proposed}


def _back(campaign: Campaign) -> str:
    return f"{reverse('play:dashboard', args=[campaign.pk])}#dashboard-requests"


@require_POST
@refusals
def call(request: HttpRequest, pk: int) -> HttpResponse:
    """The GM calls for a roll. A form error comes back beside its field, with what was typed."""
    campaign = campaign_access.campaign_for(request.user, pk, gm=True)
    form = call_form(campaign, request.POST)
    if form.is_valid():
        try:
            made = requests.call_for_roll(
                campaign_id=campaign.pk,
                by=request.user,
                call=form.call(),
                characters=form.cleaned_data["characters"],
                secret=form.cleaned_data["secret"],
            )
        except Refused as refused:
            for field, message in (refused.errors or {None: refused.message}).items():
                form.add_error(field if field in form.fields else None, message)
        else:
            if not request.htmx:
                messages.success(request, f"You called for a roll: {made.label}.")
                return redirect(_back(campaign))
            context = {
                "campaign": campaign,
                "call_form": call_form(campaign),
                "called": made.label,
                **requests_context(request.user, campaign, gm=True),
                "oob": True,
            }
            return render(request, FORM_TEMPLATE, context)
    context = {"campaign": campaign, "call_form": form}
    return render(request, FORM_TEMPLATE, context, status=400)


@require_POST
@refusals
def cancel(request: HttpRequest, pk: int, request_pk: int) -> HttpResponse:
    campaign = campaign_access.campaign_for(request.user, pk, gm=True)
    closed = requests.cancel(campaign_id=campaign.pk, request_id=request_pk, by=request.user)
    if request.htmx:
        return render(request, LIST_TEMPLATE, requests_context(request.user, campaign, gm=True))
    messages.success(request, f"Closed: {closed.label}.")
    return redirect(_back(campaign))


@require_POST
@limits.limited(limits.ROLLS)
@refusals
def answer(request: HttpRequest, pk: int, asked_pk: int) -> HttpResponse:
    """A player (or the GM for them) rolls what the GM called for, as called, from the dashboard."""
    character = access.character_for(request.user, pk, write=True)
    asked: RollAsked = requests.asked_of(request.user, asked_pk, character)
    try:
        made = sheet_rolls.as_asked(character, asked, gm=character.viewer_is_gm)
    except SpecError as error:
        raise Refused(f"This roll cannot be made as the sheet stands: {error.message}.") from None
    rolled = sheet_rolls.roll(character, made, by=request.user, rng=secrets.SystemRandom(), asked=asked)
    campaign = character.campaign
    gm = campaign.memberships.filter(user=request.user, role=Membership.Role.GM).exists()
    if request.htmx:
        context = requests_context(request.user, campaign, gm=gm)
        return render(request, LIST_TEMPLATE, {**context, "rolled": rolled.roll})
    word = "in secret" if rolled.roll.secret else f"#{rolled.roll.seq}"
    messages.success(request, f"{character.name} rolled {made.label} ({word}).")
    return redirect(_back(campaign))
