"""The one page of every sheet move (:mod:`play.moves`): its form, made from the move's input model,
in the place of the sheet region the move changes (htmx) or on a page of its own (without JavaScript),
carrying the version it was made from, with the decision that waits on the character, if any (its
choices for the one who makes it). Made, the region comes back read-only and current (or the sheet, at
that region; with htmx, the sheet's decision region too when one opened or was made); refused, the
form comes back with the reason by its field (400), with things as they are now (409), or a page that
says why (403). A system may present what the move shows of the sheet before it is made
(``systems/<key>/moves/<move>_shows.html``); the form and the rest are generic.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from django import forms
from django.contrib import messages
from django.db import transaction
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template import TemplateDoesNotExist
from django.template.loader import render_to_string, select_template
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from campaigns.errors import NotAllowed, NotFound, Refused
from characters import access
from characters.generated import Unsupported, input_form
from characters.models import Character
from characters.operations import sections_for
from characters.views import saved_region
from characters.write import sentence
from play import moves
from rules.systems.moves import Move
from web import limits
from web.fields import version_number
from web.templatetags.urls import kept_reverse

NO_VERSION = "This form did not say which version of the sheet it was made from, so nothing was changed"


def _shows_template(character: Character, move: Move) -> str:
    """The system's template for what the move shows of the sheet, or "" when it has none."""
    try:
        return select_template([f"systems/{character.system}/moves/{move.key}_shows.html"]).template.name
    except TemplateDoesNotExist:
        return ""


def _fresh(character: Character) -> Character:
    fresh = Character.objects.select_related("campaign", "owner").get(pk=character.pk)
    fresh.can_edit, fresh.viewer_is_gm = character.can_edit, character.viewer_is_gm
    return fresh


def _page(
    request: HttpRequest,
    character: Character,
    move: Move,
    *,
    form: forms.Form,
    version: int | None = None,
    status: int = 200,
    conflict: str = "",
    problem: str = "",
) -> HttpResponse:
    """The move's form (with htmx, the region that takes the sheet region's place)."""
    section = sections_for(character).get(move.parts[0]) if move.parts else None
    region = section.where if section is not None else "move"
    url = kept_reverse("play:move", (character.pk, move.key))
    situation = moves.situation_for(character, move, request.user)
    context = {
        "character": character,
        "move": move,
        "form": form,
        "fields": [form[name] for name in form.fields],
        "region": region,
        "version": moves.made_from(character, move) if version is None else version,
        "action_url": url,
        "cancel_url": kept_reverse("characters:sheet-section", (character.pk, section.key)) if section else "",
        "sheet_url": f"{kept_reverse('characters:sheet', (character.pk,))}#{region}",
        "conflict": conflict,
        "problem": problem,
        "why_not": moves.allowed(character, move, request.user),
        "shows": move.shows(situation) if situation is not None else {},
        "shows_template": _shows_template(character, move),
        "in_place": bool(request.htmx) and section is not None,
        "next": _back(request),
        "decision": moves.waiting(character, request.user, is_gm=character.viewer_is_gm),
    }
    template = "play/move.html" + ("#move-form" if context["in_place"] else "")
    return render(request, template, context, status=status)


def _stale(request: HttpRequest, character: Character, move: Move, form: forms.Form) -> HttpResponse:
    """The form again, as things stand now (409): what the move depends on changed since it was opened."""
    fresh = _fresh(character)
    what = moves.StaleMove(fresh, move).what
    conflict = f"{what} changed since you opened this form, so nothing was changed. This is how it stands now"
    return _page(request, fresh, move, form=form, status=409, conflict=conflict)


def _checked(form: forms.Form, character: Character, move: Move, user: Any) -> bool:
    """Whether the form may be sent on: every message at once, the fields' and the move's own checks on
    every value the fields could read (a value its field refused goes to them as None)."""
    form.is_valid()
    refused = set(form.errors)
    values = {name: None if name in refused else form.cleaned_data.get(name) for name in form.fields}
    situation = moves.situation_for(character, move, user)
    if situation is not None:
        for problem in move.check(situation, values):
            if problem.field in refused:
                continue
            form.add_error(problem.field if problem.field in form.fields else None, sentence(problem.message))
    return not form.errors


def _no_version(request: HttpRequest, character: Character, move: Move, form: forms.Form) -> HttpResponse:
    """The form again (400): it did not say which version of the sheet it was made from."""
    return _page(request, _fresh(character), move, form=form, status=400, conflict=NO_VERSION)


def _back(request: HttpRequest) -> str:
    """The page of this site the move was opened from (``next``), to go back to once it is made; "" if none."""
    back = request.POST.get("next", "") if request.method == "POST" else request.GET.get("next", "")
    return back if back and url_has_allowed_host_and_scheme(back, allowed_hosts=None) else ""


def _refused(request: HttpRequest, character: Character, message: str) -> HttpResponse:
    return render(request, "characters/edit_refused.html", {"character": character, "message": message}, status=403)


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
@limits.limited(limits.ROLLS, methods=("POST",))
def move(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    """A sheet move: its form (GET), and the move it asks for (POST, :func:`_made`)."""
    if request.method == "POST":
        return _made(request, pk, key)
    character = access.character_for(request.user, pk, write=True)
    if character.viewer_is_gm:
        moves.viewer_is_gm(character, request.user)
    chosen, forbidden = _chosen(character, key, request.user)
    if forbidden:
        return _refused(request, character, forbidden)
    form = _form(chosen, None)
    for name in form.fields.keys() & request.GET.keys():  # a link may name what the form starts from
        form.fields[name].initial = request.GET[name]
    return _page(request, character, chosen, form=form)


def _chosen(character: Character, key: str, user: Any) -> tuple[Move, str | None]:
    """The move ``key`` of the character's campaign (404 when it offers none), and why the user may not make
    it (None: they may)."""
    try:
        chosen = moves.move_of(character, key)
    except NotFound as missing:
        raise Http404(missing.message) from None
    return chosen, moves.forbidden(character, chosen, user)


def _form(chosen: Move, data: Any) -> forms.Form:
    try:
        return input_form(chosen.input, data)
    except Unsupported:  # a move whose input no generic form can show (a round's declared actions)
        raise Http404("This move is made from its own page, not from a form of its own.") from None


def _made(request: HttpRequest, pk: int, key: str) -> HttpResponse:
    """The move, made from the version it was read at: the character locked first, and read once for the
    access check, the form's checks and the move (:func:`play.moves.lock_for`). Every page is drawn once the
    lock is let go (a refusal too: the campaign's other writes wait for it); refused, nothing the move did
    is kept (its transaction rolls back), and the form shows the sheet as it is, read again."""
    refusal: Callable[[], HttpResponse] | None = None
    try:
        with transaction.atomic():
            character = moves.lock_for(request.user, pk)
            chosen, forbidden = _chosen(character, key, request.user)
            form = None if forbidden else _form(chosen, request.POST)
            version = version_number(request.POST.get("version", ""))
            if form is None:
                refusal = partial(_refused, request, character, forbidden or "")
            elif version is None:
                refusal = partial(_no_version, request, character, chosen, form)
            # The form reads the sheet as it is now: one changed since the page was opened is a conflict first.
            elif version > character.version or moves.made_from(character, chosen) > version:
                refusal = partial(_stale, request, character, chosen, form)
            elif not _checked(form, character, chosen, request.user):
                problem = " ".join(form.non_field_errors())
                refusal = partial(_page, request, character, chosen, form=form, version=version, status=400,
                                  problem=problem)  # fmt: skip
            else:
                given = {name: value for name, value in form.cleaned_data.items() if value is not None}
                done = moves.make_locked(character, key=key, version=version, given=given, by=request.user)
    except moves.StaleMove:
        return _stale(request, character, chosen, form)
    except NotAllowed as refused:
        return _refused(request, _fresh(character), refused.message)
    except Refused as refused:
        problem = refused.message
        for field, message in refused.errors.items():
            if field in form.fields:
                form.add_error(field, message)
                problem = ""
        # The move may have changed the character it was made on before it was refused: read it again.
        return _page(request, _fresh(character), chosen, form=form, version=version, status=400, problem=problem)
    if refusal is not None:
        return refusal()
    saved, notice = done.character, moves.told(character.name, done.made)
    section = chosen.parts[0] if chosen.parts else ""
    if not request.htmx or section not in sections_for(character):
        messages.success(request, notice)
    back = _back(request)
    if not request.htmx and back:
        return redirect(back)  # the page the move was opened from (a round's planner, say)
    if section not in sections_for(character):
        return redirect("characters:sheet", saved.pk)
    response = saved_region(request, character, section, notice=notice, saved=saved)
    if request.htmx and done.decided:
        # A decision opened or made: the sheet's decision region too, out of band.
        decision = moves.waiting(saved, request.user, is_gm=character.viewer_is_gm)
        context = {"character": character, "decision": decision, "oob": True}
        response.content += render_to_string("play/_sheet_decision.html", context, request=request).encode()
    return response
