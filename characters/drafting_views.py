"""The guided creation pages, for every system: a name, then one page per creation step.

A step the server rolls at has a Roll button (once rolled, what was rolled is shown and kept);
a step with fields has a form, the system's own of the step's key (``editing.register``) or one
made from the sheet model (:mod:`characters.generated`), which keeps everything typed after an
error, with each message by its field; the last step finishes the character. A system with
creation pages of its own (``drafting.register``) gets them instead.
Plain forms throughout: the flow works without JavaScript.
"""

from __future__ import annotations

import secrets
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from campaigns.access import campaign_for
from campaigns.errors import Refused
from characters import access, drafting, editing
from characters.models import Character
from rules.systems.base import CreationStep, EditSection
from web.fields import version_number

CHECK_BELOW = "Nothing was saved: please check what is marked below."
NO_VERSION = "This form did not say which version of the draft it was made from, so nothing was saved."


@require_http_methods(["GET", "HEAD", "POST"])
def start(request: HttpRequest, campaign_pk: int) -> HttpResponse:
    campaign = campaign_for(request.user, campaign_pk)
    own = drafting.own_pages(campaign.system)
    if own is not None:
        return own.start(request, campaign)
    values = {"name": request.POST.get("name", "")}
    error, status, field_errors = None, 200, {}
    if request.method == "POST":
        try:
            character = drafting.start(campaign=campaign, owner=request.user, name=values["name"])
        except Refused as refused:
            error, status = refused.message, refused.status
            field_errors = {key: message for key, message in refused.errors.items() if key in values}
        else:
            first = character.rules.creation_steps[0].key
            return redirect("characters:create-step", pk=character.pk, step=first)
    steps = [step.label for step in campaign.rules.creation_steps]
    context = {"campaign": campaign, "values": values, "error": error, "field_errors": field_errors, "steps": steps,
               "ask_concept": False}  # fmt: skip
    return render(request, "characters/create/start.html", context, status=status)


def _form(character: Character, step: CreationStep, data: Any = None) -> Any:
    """The step's form: the system's own form of that key (``editing.register``), else one made from
    the sheet model; None for a step with nothing to fill in."""
    if not step.fields:
        return None
    section = EditSection(step.key, step.label.lower(), fields=step.fields)
    return editing.edit_for(character, step.key)(character, data, gm=character.viewer_is_gm, section=section)


def _page(
    request: HttpRequest, character: Character, step: CreationStep, *, form: Any = None, error: str = "",
    status: int = 200,
) -> HttpResponse:  # fmt: skip
    keys = [s.key for s in drafting.steps(character)]
    progress = keys.index(drafting.progress(character))
    context = {
        "character": character,
        "campaign": character.campaign,
        "doc": character.document,
        "step": step,
        "steps": [
            {"key": s.key, "label": s.label, "current": s.key == step.key, "reachable": i <= progress}
            for i, s in enumerate(drafting.steps(character))
        ],
        "last": step.key == keys[-1],
        "form": form if form is not None else _form(character, step),
        "problems": drafting.problems_at(character, step) if step.server_rolls else {},
        "rolls": character.rules.summary(character.document).rolls,
        "error": error,
    }
    return render(request, "characters/create/step.html", context, status=status)


@require_http_methods(["GET", "HEAD", "POST"])
def step(request: HttpRequest, pk: int, step: str) -> HttpResponse:
    character = access.character_for(request.user, pk, write=True)
    if character.status != Character.Status.DRAFT:
        return redirect("characters:sheet", pk=character.pk)
    own = drafting.own_pages(character.system)
    if own is not None:
        return own.step(request, character, step)
    found = drafting.step_of(character, step)
    if found is None or not drafting.reached(character, step):
        if found is not None:
            messages.info(request, "One step at a time: this is where your character is.")
        return redirect("characters:create-step", pk=character.pk, step=drafting.progress(character))
    if request.method != "POST":
        return _page(request, character, found)

    action = request.POST.get("action", "next")
    version = version_number(request.POST.get("version", ""))
    form = _form(character, found, request.POST)
    if version is None:
        return _page(request, character, found, form=form, status=400, error=NO_VERSION)
    try:
        if action == "roll":
            drafting.roll(character_id=character.pk, version=version, step=found.key, by=request.user,
                          rng=secrets.SystemRandom())  # fmt: skip
            return redirect("characters:create-step", pk=character.pk, step=found.key)
        if form is not None:
            if not form.is_valid():
                return _page(request, character, found, form=form, status=400, error=CHECK_BELOW)
            character = drafting.fill(character_id=character.pk, version=version, step=found.key,
                                      value=form.values(), by=request.user)  # fmt: skip
            version = character.version
        elif drafting.problems_at(character, found):
            first = next(iter(drafting.problems_at(character, found).values()))
            return _page(request, character, found, status=400, error=first)
        if action == "later":
            messages.success(request, f"{character.name} is saved as a draft: finish it any time.")
            return redirect(reverse("campaigns:detail", args=[character.campaign_id]))
        keys = [s.key for s in drafting.steps(character)]
        if found.key != keys[-1]:
            return redirect("characters:create-step", pk=character.pk, step=keys[keys.index(found.key) + 1])
        drafting.finish(character_id=character.pk, version=version, by=request.user)
    except drafting.StaleDraft as stale:
        fresh = access.character_for(request.user, pk, write=True)
        return _page(request, fresh, found, form=form, error=stale.message, status=409)
    except Refused as refused:
        error = refused.message
        if form is not None and form.data is not None and refused.errors:
            form.add_errors({where: [message] for where, message in refused.errors.items()})
            error = CHECK_BELOW  # each message is by its field, and in the summary above the form
        return _page(request, character, found, form=form, error=error, status=refused.status)
    messages.success(request, f"{character.name} is ready to play.")
    return redirect("characters:sheet", pk=character.pk)


@require_http_methods(["GET", "HEAD", "POST"])
def delete_draft(request: HttpRequest, pk: int) -> HttpResponse:
    """The owner deletes a draft, after confirming: a finished character is archived, never deleted.
    A player who left or was removed may still delete their own drafts (archived when they went)."""
    character = access.character_for(request.user, pk)
    if not drafting.unfinished(character):
        return redirect("characters:sheet", pk=character.pk)
    if character.owner_id != request.user.pk:
        context = {"character": character, "message": "Only the player who started a draft can delete it."}
        return render(request, "characters/edit_refused.html", context, status=403)
    if request.method == "POST":
        try:
            name = drafting.delete_draft(character_id=character.pk, by=request.user)
        except Refused as refused:
            context = {"character": character, "message": refused.message}
            return render(request, "characters/edit_refused.html", context, status=refused.status)
        messages.success(request, f"The draft {name} is deleted.")
        if character.viewer_role is None:  # no longer a member: the campaign page is not theirs to see
            return redirect("campaigns:list")
        return redirect("campaigns:detail", pk=character.campaign_id)
    progress = drafting.progress(character) if character.status == Character.Status.DRAFT else ""
    return render(request, "characters/delete_draft.html", {"character": character, "progress": progress})
