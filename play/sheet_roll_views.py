"""The roll page of a character's sheet: its system's own page where it has one (``register``;
Lucky 13's), else a page made from the system's protocol: a form for each part of its roll
``situation_model`` (the GM's parts only for the GM), the roll the sheet makes in that situation
in words, with its exact chance of success before anyone rolls, and Roll, which rolls on the
server and records the roll in the campaign's log; the page then shows that roll as the log does.

This view checks access once for every system: any member may look at the odds, the owner and the
GM roll (a POST loads the character for writing). Plain forms: the page works without JavaScript
(GET shows the chance; Roll redirects back to the page with the roll it made).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from campaigns.errors import NotFound, Refused
from characters import access
from characters.generated import Unsupported, fields_of
from characters.models import Character
from play import proposal_views, requests, sheet_rolls
from play.models import Roll, RollAsked
from play.roll_views import roll_entry
from rules.systems.base import SheetRoll, SpecError
from web import limits, presenters
from web.fields import TypedChoiceField, whole_key

RollPage = Callable[[HttpRequest, Character], HttpResponse]

_OWN_PAGES: dict[str, RollPage] = {}


def register(system: str, page: RollPage) -> None:
    """Use ``page`` for the roll page of ``system``'s characters."""
    _OWN_PAGES[system] = page


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@limits.limited(limits.ROLLS, methods=("POST",))
def roll(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.character_for(request.user, pk, write=request.method == "POST", at_table=True)
    page = _OWN_PAGES.get(character.system)
    return page(request, character) if page is not None else _roll_page(request, character)


def asked_in(request: HttpRequest, character: Character) -> RollAsked | None:
    """The GM's open request for ``character`` the page answers (``asked``, in the query or the
    form), or None; a 404 (:class:`~campaigns.errors.NotFound`) for one that is not open for it."""
    data = request.POST if request.method == "POST" else request.GET
    raw = data.get("asked", "")
    if raw == "":
        return None
    pk = whole_key(raw)
    if pk is None:
        raise NotFound("There is no such roll request.")
    return requests.asked_of(request.user, pk, character)


class SituationForm(forms.Form):
    """The parts of the system's roll situation, as form fields made from its model; a part left out
    of a query takes its default, so a plain link from the sheet is enough."""

    def __init__(self, data: QueryDict, *, character: Character, gm: bool, asked: RollAsked | None = None) -> None:
        rules = character.rules
        leave_out = frozenset() if gm else frozenset(rules.gm_situation)
        if asked is not None:  # what the GM called is the call's: the page says it in words
            leave_out |= rules.called_situation
        leave_out |= rules.situation_fixed(character.document, character.campaign.settings)
        fields = fields_of(rules.situation_model, leave_out=leave_out)
        #: The other characters in play a part of the situation may name (a helper, an opponent).
        self.others = sheet_rolls.helpers_for(character, helper=_key_in(data, rules.situation_characters & set(fields)))
        choices = dict(rules.situation_choices(character.document, character.campaign.settings))
        choices |= {name: [(other.pk, other.name) for other in self.others] for name in rules.situation_characters}
        for name, offered in choices.items():
            if name in fields:
                fields[name] = _offered(fields[name], offered)
        if gm:
            fields["secret"] = forms.BooleanField(
                label="Roll in secret (the players see it when you reveal it)", required=False
            )
        merged = {name: field.initial for name, field in fields.items()}
        if asked is not None:  # a called proposal's additions are where the answer starts
            merged.update({k: v for k, v in sheet_rolls.added_of(character, asked).items() if k in fields})
        merged.update({key: data.get(key) for key in data if key in fields})
        super().__init__(merged)
        self.fields.update(fields)
        self.character, self.gm, self.asked = character, gm, asked
        self.made: SheetRoll | None = None
        self.situation: dict[str, Any] = {}

    def clean(self) -> dict[str, Any]:
        cleaned = super().clean() or {}
        if not self.errors:
            situation = {key: value for key, value in cleaned.items() if value is not None and key != "secret"}
            self.situation = situation
            try:
                self.made = sheet_rolls.build(self.character, self.others, situation, gm=self.gm, asked=self.asked)
            except SpecError as error:
                self.add_error(error.field if error.field in self.fields else None, error.message)
            except Refused as refused:
                self.add_error(None, refused.message)
        return cleaned

    def query(self) -> dict[str, str]:
        """The cleaned situation, for links and the hidden fields of the Roll form."""
        out = {
            name: str(self.cleaned_data[name])
            for name in self.fields
            if self.cleaned_data.get(name) not in (None, False)
        }
        if self.asked is not None:
            out["asked"] = str(self.asked.pk)
        return out


def _key_in(data: QueryDict, names: set[str]) -> list[int]:
    """The character ids ``names`` give (those a page names beyond the first few offered)."""
    return [key for name in sorted(names) if (key := whole_key(data.get(name, ""))) is not None]


def _offered(field: forms.Field, offered: Any) -> forms.Field:
    """``field`` as a list of what the system offers for it (a whole number stays one), with an empty
    choice first where the part may be left out."""
    number = isinstance(field, forms.IntegerField)
    choices = list(offered) if field.required else [("", "—"), *offered]
    return TypedChoiceField(
        label=field.label,
        choices=choices,
        coerce=int if number else str,
        required=field.required,
        empty_value=None,
        initial=field.initial,
        help_text=field.help_text,
    )


def _rolled(request: HttpRequest, character: Character) -> dict[str, Any] | None:
    """The roll the page just made (``?rolled=<seq>``), as the log shows it to this viewer; None if
    there is none of this character's by that number."""
    seq = whole_key(request.GET.get("rolled", ""))
    if seq is None:
        return None
    found = Roll.objects.filter(campaign_id=character.campaign_id, seq=seq, character=character).first()
    return roll_entry(found, gm=character.viewer_is_gm) if found is not None else None


def _roll_page(request: HttpRequest, character: Character) -> HttpResponse:
    url = reverse("play:sheet-roll", args=[character.pk])
    try:
        asked = asked_in(request, character)
        form = SituationForm(request.POST if request.method == "POST" else request.GET, character=character,
                             gm=character.viewer_is_gm, asked=asked)  # fmt: skip
    except Unsupported:
        return render(request, "play/sheet_roll.html", {"character": character, "unsupported": True}, status=404)
    except Refused as refused:
        context = {"message": refused.message, "character": character}
        return render(request, "characters/edit_refused.html", context, status=refused.status)
    valid = form.is_valid() and form.made is not None
    status = 200 if valid else 400
    context: dict[str, Any] = {
        "character": character,
        "form": form,
        "roll_url": url,
        "asked": asked,
        "needs_call": sheet_rolls.needs_call(character, asked=asked),
        "propose_form": proposal_views.ProposeForm(),
    }
    if valid:
        context.update(made=form.made, chance=sheet_rolls.chance_of(character, form.made), query=form.query())
        shown = form.made.totals
        if shown is not None:
            context["chart"] = presenters.totals_chart(shown.totals, target=shown.target, open_ended=shown.open_ended,
                                                       wins=shown.wins)  # fmt: skip
            context["chart_caption"] = shown.words
            context["chart_value"] = shown.value
            context["chart_expectation"] = shown.expectation
    if proposal_views.wants_proposal(request):
        return _propose(request, character, form, context)
    if valid and request.method == "POST":
        secret = bool(form.gm and form.cleaned_data.get("secret"))
        try:
            rolled = sheet_rolls.roll(
                character,
                form.made,
                by=request.user,
                rng=secrets.SystemRandom(),
                asked=asked,
                secret=secret,
                is_gm=character.viewer_is_gm,
            )
        except Refused as refused:
            context["error"], status = refused.message, refused.status
        else:
            kept = {key: value for key, value in form.query().items() if key != "asked"}
            query = urlencode({**kept, "rolled": rolled.roll.seq})
            return redirect(f"{url}?{query}#roll-result")
    context["rolled"] = _rolled(request, character) if request.method != "POST" else None
    return render(request, "play/sheet_roll.html", context, status=status)


def _propose(request: HttpRequest, character: Character, form: SituationForm, context: dict[str, Any]) -> HttpResponse:
    """Propose the page's roll to the GM rather than roll it (a player, where the GM calls the rolls)."""
    if form.asked is not None:
        return proposal_views.refused(request, character, proposal_views.ANSWERING, 409)
    if form.made is None:
        if request.htmx:
            message = " ".join(error for errors in form.errors.values() for error in errors)
            return proposal_views.refused(request, character, message)
        return render(request, "play/sheet_roll.html", context, status=400)

    def page(extra: dict[str, Any], status: int) -> HttpResponse:
        return render(request, "play/sheet_roll.html", {**context, **extra}, status=status)

    return proposal_views.propose(request, character, form.situation, query=context["query"], page=page)
