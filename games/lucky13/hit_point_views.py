"""The sheet's hit point actions of Lucky 13's optional rules: Rest (the player and the GM, in a campaign
that heals by resting) and Recovered (the GM, for a character healed from dying under gritty recovery).

Each is a small form that takes the place of the hit points region (htmx) or a page of its own (without
JavaScript), as a section's Edit does; it carries the version of the hit points it was made from. Saved,
the region comes back read-only and current (or the sheet, at the hit points); refused, the form comes
back with the reason by the field (400), what the hit points say now (409), or a page that says why (403).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from characters import access
from characters.models import Character
from characters.operations import NotAllowed, StaleSection, refusal, section_version, sentence
from characters.views import saved_region
from games.lucky13 import hit_points
from rules.systems import lucky13
from rules.systems.base import EditSection, SpecError
from rules.systems.lucky13.encounter import HIT_POINTS_SECTION
from rules.systems.lucky13.health import MAX_REST_HEALING, MAX_REST_MINUTES, MIN_REST_MINUTES
from rules.systems.lucky13.recovery import gritty, resting_allowed
from rules.systems.lucky13.view import hit_points as hit_points_view
from web.fields import version_number, whole_number

CONFLICT = "The hit points changed since you opened this form, so nothing was changed. Here they are as they are now"
NO_VERSION = "This form did not say which version of the sheet it was made from, so nothing was changed"
BETWEEN = f"Rest for a whole number of minutes from {MIN_REST_MINUTES} to {MAX_REST_MINUTES}."


class RestForm(forms.Form):
    minutes = whole_number("Minutes of rest", minimum=MIN_REST_MINUTES, maximum=MAX_REST_MINUTES, required=True)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["minutes"]
        field.help_text = f"1 hit point for each whole 15 minutes, at most {MAX_REST_HEALING} from resting alone."
        field.error_messages.update({"required": BETWEEN, "invalid": BETWEEN, "min_value": BETWEEN,
                                     "max_value": BETWEEN})  # fmt: skip


def _lucky13(request: HttpRequest, pk: int, offered: Callable[[Mapping[str, Any]], bool]) -> Character:
    """The character, for a user who may change it (404 for one who may not see it, 403 for one who may
    see it only), if it is a Lucky 13 character of a campaign with the option (404 otherwise)."""
    character = access.character_for(request.user, pk, write=True)
    if character.system != lucky13.KEY or not offered(character.campaign.settings):
        raise Http404("No such action in this campaign")
    return character


def _refused(request: HttpRequest, character: Character, message: str) -> HttpResponse:
    return render(request, "characters/edit_refused.html", {"character": character, "message": message}, status=403)


def _page(
    request: HttpRequest,
    character: Character,
    action: str,
    *,
    form: RestForm | None = None,
    version: int | None = None,
    status: int = 200,
    conflict: str = "",
    problem: str = "",
) -> HttpResponse:
    """The action's form (with htmx, the region that takes the hit points' place)."""
    sheet_url = f"{reverse('characters:sheet', args=[character.pk])}#hit-points"
    context = {
        "character": character,
        "action": action,
        "title": "Rest" if action == "rest" else "Recovered",
        "form": form,
        "hit_points": hit_points_view(character.document, character.campaign.settings["hit_points_per_step"]),
        "document": character.document,
        "max_rest": MAX_REST_HEALING,
        "version": section_version(character, HIT_POINTS_SECTION) if version is None else version,
        "action_url": reverse(f"lucky13:{action}", args=[character.pk]),
        "cancel_url": reverse("characters:sheet-section", args=[character.pk, HIT_POINTS_SECTION]),
        "sheet_url": sheet_url,
        "conflict": conflict,
        "problem": problem,
        "in_place": bool(request.htmx),
    }
    template = "systems/lucky13/hit_point_action.html" + ("#action-form" if request.htmx else "")
    return render(request, template, context, status=status)


def _fresh(character: Character) -> Character:
    fresh = Character.objects.select_related("campaign", "owner").get(pk=character.pk)
    fresh.can_edit, fresh.viewer_is_gm = character.can_edit, character.viewer_is_gm
    return fresh


def _allowed(character: Character, action: EditSection, user: Any) -> str | None:
    return refusal(character, action, is_owner=character.owner_id == user.pk, is_gm=character.viewer_is_gm)


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def rest(request: HttpRequest, pk: int) -> HttpResponse:
    """Rest: the form (GET), and the rest it asks for (POST), made from the version of the hit points."""
    character = _lucky13(request, pk, resting_allowed)
    reason = _allowed(character, hit_points.REST, request.user)
    if reason:
        return _refused(request, character, reason)
    if request.method != "POST":
        return _page(request, character, "rest", form=RestForm())
    form = RestForm(request.POST)
    version = version_number(request.POST.get("version", ""))
    if version is None:
        return _page(request, _fresh(character), "rest", form=form, status=400, conflict=NO_VERSION)
    if not form.is_valid():
        return _page(request, character, "rest", form=form, version=version, status=400)
    minutes = form.cleaned_data["minutes"]
    try:
        _, rested = hit_points.rest(character_id=character.pk, version=version, minutes=minutes, by=request.user)
    except StaleSection:
        return _page(request, _fresh(character), "rest", form=form, status=409, conflict=CONFLICT)
    except NotAllowed as refused:
        return _refused(request, character, str(refused))
    except SpecError as refused:
        if refused.field == "minutes":
            form.add_error("minutes", sentence(refused.message))
            problem = ""
        else:
            problem = sentence(refused.message)
        return _page(request, character, "rest", form=form, version=version, status=400, problem=problem)
    points = f"{rested.healed} hit point{'' if rested.healed == 1 else 's'}"
    notice = f"{character.name} rested {minutes} minutes: {points} healed, {rested.after} now."
    if not request.htmx:
        messages.success(request, notice)
    return saved_region(request, character, HIT_POINTS_SECTION, notice=notice)


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def recovered(request: HttpRequest, pk: int) -> HttpResponse:
    """Recovered (the GM): the confirmation (GET), and the mark taken off (POST), made from the version of
    the hit points."""
    character = _lucky13(request, pk, gritty)
    reason = _allowed(character, hit_points.MARK_RECOVERED, request.user)
    if reason:
        return _refused(request, character, reason)
    if request.method != "POST":
        return _page(request, character, "recovered")
    version = version_number(request.POST.get("version", ""))
    if version is None:
        return _page(request, _fresh(character), "recovered", status=400, conflict=NO_VERSION)
    try:
        hit_points.mark_recovered(character_id=character.pk, version=version, by=request.user)
    except StaleSection:
        return _page(request, _fresh(character), "recovered", status=409, conflict=CONFLICT)
    except NotAllowed as refused:
        return _refused(request, character, str(refused))
    except SpecError as refused:
        return _page(request, character, "recovered", version=version, status=400, problem=sentence(refused.message))
    notice = f"{character.name} has recovered: back at full strength."
    if not request.htmx:
        messages.success(request, notice)
    return saved_region(request, character, HIT_POINTS_SECTION, notice=notice)
