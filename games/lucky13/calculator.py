"""The Lucky 13 dice calculator (skill checks and opposed rolls), public: anyone may work out the odds.

The calculator works without JavaScript: the form is a plain GET that shows the
chance, and Roll is a POST that redirects back with the result kept for one page
view in a signed cookie of that page, never in the session: a visitor who is not
signed in leaves no session row behind, however often they roll. With htmx, every
change swaps the chance in place and Roll swaps in its result. Roll rolls the dice
whose odds are on the page. Both are rate-limited (:mod:`web.limits`).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode

from django import forms
from django.conf import settings
from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.core import signing
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from campaigns.errors import Refused
from campaigns.models import Campaign, Membership
from games.lucky13.calculator_forms import CheckForm, OpposedForm, SpecForm
from play.models import RollKind
from play.rolls import record_roll
from rules.systems import lucky13
from rules.systems.lucky13 import Check, Opposed
from web import heavy, limits, presenters
from web.fields import TextField, TypedChoiceField

#: The cookie that carries a roll to the page the Roll button redirects to (one per tab: ``-check``,
#: ``-opposed``), and its salt.
ROLL_COOKIE = "calculator-roll"
#: How long a roll waits for its page (seconds): the redirect follows at once.
ROLL_COOKIE_AGE = 60
#: The longest roll a cookie carries (browsers keep 4 kB a cookie); a roll of the largest dice of
#: the calculator, exploding, compresses to well under 1 kB, so a longer one is only ever forged.
MAX_ROLL_COOKIE = 3500


def _check_context(check: Check) -> dict[str, Any]:
    """The chance and the chart of totals, worked out off the server's own process (:mod:`web.heavy`)."""
    return {
        "chance": heavy.compute(lucky13.check_chance, check),
        "chart": _totals_chart(heavy.compute(lucky13.check_distribution, check)),
        "dice_label": f"{check.ability} + {check.skill} + {check.difficulty}",
    }


def _opposed_context(opposed: Opposed) -> dict[str, Any]:
    chance = heavy.compute(lucky13.opposed_chance, opposed)
    return {
        "chance": chance,
        "chart": presenters.damage_chart(chance.damage_given_hit) if chance.damage_given_hit else None,
        "expected_damage": chance.p_attacker_wins * chance.expected_damage_given_hit,
    }


@dataclass(frozen=True, slots=True)
class Calculator:
    """One tab of the calculator: a roll kind of the engine, its form, page and presenters."""

    roll_kind: str
    form: type[SpecForm]
    template: str
    url_name: str
    chance_context: Callable[[Any], dict[str, Any]]
    present_roll: Callable[[Any], dict[str, Any]]


CHECK = Calculator("check", CheckForm, "systems/lucky13/calculator.html", "lucky13:calculator", _check_context,
                   lucky13.check_roll_view)  # fmt: skip
OPPOSED = Calculator("opposed", OpposedForm, "systems/lucky13/opposed.html", "lucky13:opposed", _opposed_context,
                     lucky13.opposed_roll_view)  # fmt: skip


def _calculator(request: HttpRequest, calculator: Calculator) -> HttpResponse:
    form = calculator.form(request.GET)  # an empty query is the defaults
    context: dict[str, Any] = {
        "form": form, "kind": calculator.roll_kind, "calculator": calculator, "rules_system": lucky13.KEY,
    }  # fmt: skip
    status = 200
    if form.is_valid():
        context.update(calculator.chance_context(form.dice))
        context["query"] = form.query()
        if calculator is CHECK:  # a GM may record the check for an NPC in one of their campaigns
            campaigns = gm_campaigns(request.user)
            context["npc_form"] = NpcForm(campaigns=campaigns) if campaigns else None
    else:
        status = 400
    cookie = f"{ROLL_COOKIE}-{calculator.roll_kind}"
    if not request.htmx:
        context["roll"] = _kept_roll(request, cookie)
    partial = request.htmx and not request.htmx.history_restore_request
    template = calculator.template + ("#calculation" if partial else "")
    response = render(request, template, context, status=status)
    if not request.htmx and cookie in request.COOKIES:  # shown once
        response.delete_cookie(cookie, path=reverse(calculator.url_name), samesite="Lax")
    return response


def _kept_roll(request: HttpRequest, cookie: str) -> dict[str, Any] | None:
    """The roll the Roll button just made on this page, from its signed cookie, or None."""
    value = request.COOKIES.get(cookie, "")
    if not value or len(value) > MAX_ROLL_COOKIE:
        return None
    try:
        roll = signing.loads(value, salt=ROLL_COOKIE, max_age=ROLL_COOKIE_AGE)
    except signing.BadSignature:
        return None
    return roll if isinstance(roll, dict) else None


def _keep_roll(response: HttpResponse, roll: dict[str, Any], calculator: Calculator) -> None:
    """Carry ``roll`` to ``calculator``'s page in a signed cookie of that page only."""
    value = signing.dumps(roll, salt=ROLL_COOKIE, compress=True)
    if len(value) <= MAX_ROLL_COOKIE:
        response.set_cookie(f"{ROLL_COOKIE}-{calculator.roll_kind}", value, max_age=ROLL_COOKIE_AGE,
                            path=reverse(calculator.url_name), secure=settings.SESSION_COOKIE_SECURE, httponly=True,
                            samesite="Lax")  # fmt: skip


@login_not_required
@require_safe
@vary_on_headers("HX-Request")
@limits.limited(limits.CALCULATOR, anonymous=limits.CALCULATOR_ANONYMOUS)
def calculator(request: HttpRequest) -> HttpResponse:
    return _calculator(request, CHECK)


@login_not_required
@require_safe
@vary_on_headers("HX-Request")
@limits.limited(limits.CALCULATOR, anonymous=limits.CALCULATOR_ANONYMOUS)
def opposed(request: HttpRequest) -> HttpResponse:
    return _calculator(request, OPPOSED)


def _roll(request: HttpRequest, calculator: Calculator) -> HttpResponse:
    form = calculator.form(request.POST)
    if not form.is_valid():
        context = {"form": form, "kind": calculator.roll_kind, "calculator": calculator, "roll_errors": True}
        template = "pages/_roll_result.html" if request.htmx else calculator.template
        return render(request, template, context, status=400)
    kind = lucky13.ROLL_KINDS[calculator.roll_kind]
    roll = calculator.present_roll(kind.roll(form.dice, secrets.SystemRandom()))
    if request.htmx:
        return render(request, "pages/_roll_result.html", {"roll": roll})
    response = redirect(f"{reverse(calculator.url_name)}?{urlencode(form.query())}#roll-result")
    _keep_roll(response, roll, calculator)
    return response


@login_not_required
@require_POST
@limits.limited(limits.CALCULATOR, anonymous=limits.CALCULATOR_ANONYMOUS)
def roll_check(request: HttpRequest) -> HttpResponse:
    return _roll(request, CHECK)


@login_not_required
@require_POST
@limits.limited(limits.CALCULATOR, anonymous=limits.CALCULATOR_ANONYMOUS)
def roll_opposed(request: HttpRequest) -> HttpResponse:
    return _roll(request, OPPOSED)


def _totals_chart(distribution: lucky13.Distribution) -> dict[str, Any]:
    """A check's totals, the bars that reach 13 highlighted ("Skill checks")."""
    return presenters.totals_chart(distribution.totals, target=lucky13.TARGET, open_ended=distribution.open_ended)


# --- The GM's roll for an NPC ------------------------------------------------------------------------

#: The campaigns the calculator offers a GM to record an NPC's roll in (the most recently active first).
NPC_CAMPAIGNS = 20


def gm_campaigns(user: Any) -> list[Campaign]:
    """The open Lucky 13 campaigns ``user`` runs, the most recently active first, at most :data:`NPC_CAMPAIGNS`."""
    if not getattr(user, "is_authenticated", False):
        return []
    runs = Campaign.objects.filter(
        system=lucky13.KEY, archived_at__isnull=True, memberships__user=user, memberships__role=Membership.Role.GM
    )
    return list(runs.order_by("-last_activity_at", "pk")[:NPC_CAMPAIGNS])


class NpcForm(forms.Form):
    """Where and for whom the GM records a check of the calculator's dice."""

    campaign = TypedChoiceField(label="In the campaign", coerce=int)
    npc = TextField(label="For (an NPC, a trap, the weather)", max_length=60)
    secret = forms.BooleanField(label="In secret (the players see it when you reveal it)", required=False)

    def __init__(self, data: Any = None, *, campaigns: list[Campaign]) -> None:
        super().__init__(data)
        self.fields["campaign"].choices = [(c.pk, c.name) for c in campaigns]


@require_POST
@limits.limited(limits.ROLLS)
def roll_for_npc(request: HttpRequest) -> HttpResponse:
    """The GM rolls the calculator's check for an NPC: recorded in the campaign's log with its exact
    chance (in secret if the GM likes), by the GM, with the NPC's name in its words."""
    form = CheckForm(request.POST)
    npc = NpcForm(request.POST, campaigns=gm_campaigns(request.user))
    if not form.is_valid() or not npc.is_valid():
        context = {"form": form, "kind": "check", "calculator": CHECK, "npc_form": npc, "roll_errors": True}
        if form.is_valid():
            context.update(_check_context(form.dice), query=form.query())
        return render(request, CHECK.template, context, status=400)
    kind = lucky13.ROLL_KINDS["check"]
    check = form.dice
    chance = kind.success(kind.chance(check))
    recorded = kind.record(kind.roll(check, secrets.SystemRandom()))
    name = npc.cleaned_data["npc"]
    try:
        made = record_roll(
            campaign_id=npc.cleaned_data["campaign"],
            by=request.user,
            kind=RollKind.CHECK,
            spec={**form.spec(), "npc": name},
            dice=recorded.dice,
            total=recorded.total,
            outcome=dict(recorded.outcome),
            chance=chance,
            chance_of="success",
            secret=npc.cleaned_data["secret"],
            label=f"{name}: {check.ability} + {check.skill} + {check.difficulty}",
        )
    except Refused as refused:
        context = {"message": refused.message}
        return render(request, "campaigns/refused.html", context, status=refused.status)
    messages.success(request, f"Rolled for {name} in the log{' in secret' if made.secret else ''}: #{made.seq}.")
    return redirect(f"{reverse('play:rolls', args=[made.campaign_id])}#roll-{made.seq}")
