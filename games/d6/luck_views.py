"""The sheet's luck point actions: Spend a luck point (the player and the GM), on a page of its own
that says what each use does; the GM's call on how heroic each spend was, and the GM's extra point for a
dramatic spend (a form and a button by each spend on the sheet). Each carries the version of the luck
points it was made from: an older one is refused (409) with the points as they are now; a bad choice comes
back by its field (400), everything typed kept; a user who may not is told why (403)."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_POST

from characters import access
from characters.models import Character
from characters.operations import NotAllowed, StaleSection, refusal, section_version, sentence
from games.d6 import luck
from rules.systems import d6
from rules.systems.base import SpecError
from rules.systems.d6.luck import MAX_EXPLANATION
from rules.systems.d6.system import LUCK_HEROISM
from web.fields import ChoiceField, TextField, version_number

CONFLICT = "The luck points changed since you opened this page, so nothing was spent. Here they are as they are now."
JUDGED_CONFLICT = "The luck points changed since you opened this page, so nothing was changed. Look again."
NO_VERSION = "This form did not say which version of the sheet it was made from, so nothing was spent."

KINDS = (
    ("double", "Double every stat and skill for this round (penalties apply after; stun is ignored)"),
    ("escape", "Escape certain death, after a failed roll (explain how)"),
)
#: The GM's call on a spend, as the sheet offers it.
HEROISM = LUCK_HEROISM


class SpendForm(forms.Form):
    kind = ChoiceField(label="What it does", choices=KINDS, widget=forms.RadioSelect)
    explanation = TextField(label="How the character got away (for an escape)", required=False,
                            max_length=MAX_EXPLANATION, lines=True,
                            widget=forms.Textarea(attrs={"rows": 3, "maxlength": MAX_EXPLANATION}))  # fmt: skip

    def __init__(self, *args: Any, character: Character, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.character = character

    def clean(self) -> dict[str, Any]:
        """Every message at once: the fields', and the engine's on the sheet as it is for every value the
        fields could read (a value a field refused keeps the checks that read it quiet)."""
        cleaned = super().clean() or {}
        refused = set(self.errors)
        problems = self.character.rules.luck_spend_problems(
            self.character.document,
            None if "kind" in refused else cleaned.get("kind"),
            None if "explanation" in refused else cleaned.get("explanation", ""),
        )
        for problem in problems:
            if problem.field not in refused:
                self.add_error(problem.field if problem.field in self.fields else None, sentence(problem.message))
        return cleaned


def _d6(request: HttpRequest, pk: int) -> Character:
    character = access.character_for(request.user, pk, write=True)
    if character.system != d6.KEY or character.status != Character.Status.ACTIVE:
        raise Http404("No luck points here")
    return character


def _refused(request: HttpRequest, character: Character, message: str) -> HttpResponse:
    return render(request, "characters/edit_refused.html", {"character": character, "message": message}, status=403)


def _page(request: HttpRequest, character: Character, form: SpendForm, *, version: int | None = None,
          status: int = 200, problem: str = "") -> HttpResponse:  # fmt: skip
    context: dict[str, Any] = {
        "character": character,
        "document": character.document,
        "form": form,
        "version": section_version(character, luck.LUCK) if version is None else version,
        "sheet_url": f"{reverse('characters:sheet', args=[character.pk])}#vitals",
        "problem": problem,
    }
    return render(request, "systems/d6/luck_spend.html", context, status=status)


def _fresh(character: Character) -> Character:
    fresh = Character.objects.select_related("campaign", "owner").get(pk=character.pk)
    fresh.can_edit, fresh.viewer_is_gm = character.can_edit, character.viewer_is_gm
    return fresh


@require_http_methods(["GET", "HEAD", "POST"])
def spend(request: HttpRequest, pk: int) -> HttpResponse:
    """Spend a luck point: the form (GET), the spend (POST), made from the version of the luck points."""
    character = _d6(request, pk)
    reason = refusal(character, luck.SPEND, is_owner=character.owner_id == request.user.pk,
                     is_gm=character.viewer_is_gm)  # fmt: skip
    if reason:
        return _refused(request, character, reason)
    if request.method != "POST":
        return _page(request, character, SpendForm(initial={"kind": "double"}, character=character))
    form = SpendForm(request.POST, character=character)
    version = version_number(request.POST.get("version", ""))
    if version is None:
        return _page(request, _fresh(character), form, status=400, problem=NO_VERSION)
    # The form checks the sheet as it is now: one changed since the page was opened is a conflict first.
    if version > character.version or section_version(character, luck.LUCK) > version:
        return _page(request, _fresh(character), form, status=409, problem=CONFLICT)
    if not form.is_valid():
        return _page(request, character, form, version=version, status=400, problem=" ".join(form.non_field_errors()))
    data = form.cleaned_data
    try:
        _, words = luck.spend(character_id=character.pk, version=version, kind=data["kind"],
                              explanation=data["explanation"], by=request.user)  # fmt: skip
    except StaleSection:
        return _page(request, _fresh(character), form, status=409, problem=CONFLICT)
    except NotAllowed as refused:
        return _refused(request, character, str(refused))
    except SpecError as refused:
        if refused.field in form.fields:
            form.add_error(refused.field, sentence(refused.message))
            return _page(request, character, form, version=version, status=400)
        return _page(request, character, form, version=version, status=400, problem=sentence(refused.message))
    messages.success(request, f"{character.name}: {words}.")
    if data["kind"] == "double":  # the round it doubles, on its planner
        return redirect(reverse("d6:round", args=[character.pk]))
    return redirect(f"{reverse('characters:sheet', args=[character.pk])}#vitals")


class JudgeForm(forms.Form):
    heroism = ChoiceField(label="How heroic", choices=HEROISM)


@require_POST
def judge(request: HttpRequest, pk: int, spend_id: int) -> HttpResponse:
    """The GM marks a luck point spent this adventure unheroic, heroic or dramatic (and may change it until the
    adventure ends), which decides what comes back."""
    character = _d6(request, pk)
    version = version_number(request.POST.get("version", ""))
    form = JudgeForm(request.POST)
    if version is None:
        return render(request, "characters/edit_refused.html", {"character": character, "message": NO_VERSION},
                      status=400)  # fmt: skip
    if not form.is_valid():
        message = "Choose unheroic, heroic or heroic at a dramatic moment: nothing was changed."
        return render(request, "characters/edit_refused.html", {"character": character, "message": message},
                      status=400)  # fmt: skip
    try:
        luck.judge(character_id=character.pk, version=version, spend_id=spend_id,
                   heroism=form.cleaned_data["heroism"], by=request.user)  # fmt: skip
    except NotAllowed as refused:
        return _refused(request, character, str(refused))
    except StaleSection:
        return render(request, "characters/edit_refused.html", {"character": character, "message": JUDGED_CONFLICT},
                      status=409)  # fmt: skip
    except SpecError as refused:
        return render(request, "characters/edit_refused.html",
                      {"character": character, "message": sentence(refused.message)}, status=400)  # fmt: skip
    named = dict(HEROISM)[form.cleaned_data["heroism"]]
    messages.success(request, f"Luck point {spend_id}: {named[:1].lower()}{named[1:]}.")
    return redirect(f"{reverse('characters:sheet', args=[character.pk])}#vitals")


@require_POST
def grant(request: HttpRequest, pk: int, spend_id: int) -> HttpResponse:
    """The GM grants (``granted=1``) or takes back one more point for a dramatic spend owed back."""
    character = _d6(request, pk)
    version = version_number(request.POST.get("version", ""))
    granted = request.POST.get("granted") == "1"
    if version is None:
        return render(request, "characters/edit_refused.html", {"character": character, "message": NO_VERSION},
                      status=400)  # fmt: skip
    try:
        luck.grant(character_id=character.pk, version=version, spend_id=spend_id, granted=granted, by=request.user)
    except NotAllowed as refused:
        return _refused(request, character, str(refused))
    except StaleSection:
        return render(request, "characters/edit_refused.html", {"character": character, "message": CONFLICT},
                      status=409)  # fmt: skip
    except SpecError as refused:
        return render(request, "characters/edit_refused.html",
                      {"character": character, "message": sentence(refused.message)}, status=400)  # fmt: skip
    messages.success(
        request, "One more luck point at the adventure's end." if granted else "The extra point is taken back."
    )
    return redirect(f"{reverse('characters:sheet', args=[character.pk])}#vitals")
