"""Home, About, and the Lucky 13 dice calculator (skill checks and opposed rolls).

The calculator works without JavaScript: the form is a plain GET that shows the
chance, and Roll is a POST that redirects back with the result kept in the
session for one page view. With htmx, every change swaps the chance in place
and Roll swaps in its result.
"""

from __future__ import annotations

import secrets
from functools import cache
from typing import Any
from urllib.parse import urlencode

from django.conf import settings
from django.contrib.auth.decorators import login_not_required
from django.db import connection
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.templatetags.static import static
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django.views.decorators.vary import vary_on_headers

from pages import presenters
from pages.forms import CheckForm, OpposedForm, SpecForm
from rules.systems import lucky13

TEMPLATES = {"check": "pages/calculator.html", "opposed": "pages/opposed.html"}
URLS = {"check": "pages:calculator", "opposed": "pages:opposed"}
FORMS: dict[str, type[SpecForm]] = {"check": CheckForm, "opposed": OpposedForm}
ROLL_SESSION_KEY = "calculator-roll"


@login_not_required
@require_GET
def home(request: HttpRequest) -> HttpResponse:
    return render(request, "pages/home.html")


@login_not_required
@require_GET
def healthz(request: HttpRequest) -> HttpResponse:
    """For load balancers and the container health check: up, and the database answers."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
    return HttpResponse("ok", content_type="text/plain")


@login_not_required
@require_GET
def favicon(request: HttpRequest) -> HttpResponse:
    """Browsers ask for /favicon.ico whatever the page says; send them to the real one."""
    return redirect(static("favicon.svg"), permanent=True)


@cache
def _elf_text() -> str:
    return (settings.BASE_DIR / "LICENSES" / "LUCKY13-ELF.md").read_text(encoding="utf-8")


@login_not_required
@require_GET
def about(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "pages/about.html",
        {"attribution": lucky13.ATTRIBUTION, "disclaimer": lucky13.DISCLAIMER, "elf": _elf_text()},
    )


def _chance_context(kind: str, form: SpecForm) -> dict[str, Any]:
    if kind == "check":
        chance = lucky13.check_chance(form.dice)
        return {
            "chance": chance,
            "chart": presenters.totals_chart(lucky13.check_distribution(form.dice)),
            "dice_label": f"{form.dice.ability} + {form.dice.skill} + {form.dice.difficulty}",
        }
    chance = lucky13.opposed_chance(form.dice)
    return {
        "chance": chance,
        "chart": presenters.damage_chart(chance.damage_given_hit) if chance.damage_given_hit else None,
        "expected_damage": chance.p_attacker_wins * chance.expected_damage_given_hit,
    }


def _calculator(request: HttpRequest, kind: str) -> HttpResponse:
    form = FORMS[kind](request.GET)  # an empty query is the defaults
    context: dict[str, Any] = {"form": form, "kind": kind}
    status = 200
    if form.is_valid():
        context.update(_chance_context(kind, form))
        context["query"] = form.query()
    else:
        status = 400
    partial = request.htmx and not request.htmx.history_restore_request
    if not request.htmx:
        context["roll"] = request.session.pop(ROLL_SESSION_KEY, None)
    template = TEMPLATES[kind] + ("#calculation" if partial else "")
    return render(request, template, context, status=status)


@login_not_required
@require_GET
@vary_on_headers("HX-Request")
def calculator(request: HttpRequest) -> HttpResponse:
    return _calculator(request, "check")


@login_not_required
@require_GET
@vary_on_headers("HX-Request")
def opposed(request: HttpRequest) -> HttpResponse:
    return _calculator(request, "opposed")


def _roll(request: HttpRequest, kind: str) -> HttpResponse:
    form = FORMS[kind](request.POST)
    if not form.is_valid():
        template = TEMPLATES[kind] + ("#roll-result" if request.htmx else "")
        return render(request, template, {"form": form, "kind": kind, "roll_errors": form.errors}, status=400)
    rng = secrets.SystemRandom()
    if kind == "check":
        roll = presenters.check_roll_view(lucky13.roll_check(form.dice, rng))
    else:
        roll = presenters.opposed_roll_view(lucky13.roll_opposed(form.dice, rng))
    if request.htmx:
        return render(request, TEMPLATES[kind] + "#roll-result", {"roll": roll, "kind": kind})
    request.session[ROLL_SESSION_KEY] = roll
    return redirect(f"{reverse(URLS[kind])}?{urlencode(form.query())}#roll-result")


@login_not_required
@require_POST
def roll_check(request: HttpRequest) -> HttpResponse:
    return _roll(request, "check")


@login_not_required
@require_POST
def roll_opposed(request: HttpRequest) -> HttpResponse:
    return _roll(request, "opposed")
