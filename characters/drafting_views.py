"""The guided creation pages, for every system: a name (and what else the system asks first), then
one page per creation step.

A step the server rolls at has a Roll button (once rolled, what was rolled is shown and kept), and
a step may offer other rolls (each its own button, saving what was typed with it); a step with fields
has a form: the system's own of the step (``drafting.register``, with its own page) or one made from
the sheet model (:mod:`characters.generated`). Either keeps everything typed after an error, with
each message by its field; the last step finishes the character. Plain forms throughout: the flow
works without JavaScript; with htmx, a named roll swaps the part of the page the system's form names.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
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
    fields = campaign.rules.start_fields
    values = {"name": request.POST.get("name", ""), **{f.key: request.POST.get(f.key, "") for f in fields}}
    error, status, field_errors = None, 200, {}
    if request.method == "POST":
        try:
            character = drafting.start(campaign=campaign, owner=request.user, name=values["name"], given=values)
        except Refused as refused:
            error, status = refused.message, refused.status
            field_errors = {key: message for key, message in refused.errors.items() if key in values}
        else:
            first = character.rules.creation_steps[0].key
            return redirect("characters:create-step", pk=character.pk, step=first)
    steps = [step.label for step in campaign.rules.creation_steps]
    asked = [
        {"key": f.key, "label": f.label, "hint": f.hint, "max_length": f.max_length, "value": values[f.key],
         "error": field_errors.get(f.key, "")}
        for f in fields
    ]  # fmt: skip
    context = {"campaign": campaign, "values": values, "error": error, "field_errors": field_errors, "steps": steps,
               "asked": asked, "said": [f.said for f in fields if f.said]}  # fmt: skip
    return render(request, "characters/create/start.html", context, status=status)


def _form(character: Character, step: CreationStep, data: Any = None) -> Any:
    """The step's form: the system's own (``drafting.register``), else one made from the sheet model;
    None for a step with nothing to fill in."""
    own = drafting.step_form(character.system, step.key)
    if own is not None:
        return own(character, step, data)
    if not step.fields:
        return None
    section = EditSection(step.key, step.label.lower(), fields=step.fields)
    return editing.edit_for(character, step.key)(character, data, gm=character.viewer_is_gm, section=section)


def _own(form: Any) -> bool:
    return form is not None and not isinstance(form, editing.SectionEdit)


def _page(
    request: HttpRequest, character: Character, step: CreationStep, *, form: Any = None, error: str = "",
    errors: Mapping[str, str] | None = None, status: int = 200, partial: str = "",
) -> HttpResponse:  # fmt: skip
    keys = [s.key for s in drafting.steps(character)]
    progress = keys.index(drafting.progress(character))
    form = form if form is not None else _form(character, step)
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
        "form": form,
        "problems": drafting.problems_at(character, step) if step.server_rolls else {},
        "rolls": character.rules.summary(character.document).rolls,
        "error": error,
    }
    template = "characters/create/step.html"
    if _own(form):
        context.update(form.context(error, errors or {}))
        template = form.template
    return render(request, f"{template}#{partial}" if partial else template, context, status=status)


def _asked_roll(request: HttpRequest, step: CreationStep) -> str | None:
    """The roll a button asks for: "" for the step's own dice, a key of the step's other rolls, or None."""
    action = request.POST.get("action", "")
    if action == "roll":
        return ""
    key = action.removeprefix("roll-")
    return key if action.startswith("roll-") and key in dict(step.rolls) else None


@require_http_methods(["GET", "HEAD", "POST"])
def step(request: HttpRequest, pk: int, step: str) -> HttpResponse:
    character = access.character_for(request.user, pk, write=True)
    if character.status != Character.Status.DRAFT:
        return redirect("characters:sheet", pk=character.pk)
    found = drafting.step_of(character, step)
    if found is None or not drafting.reached(character, step):
        if found is not None:
            messages.info(request, "One step at a time: this is where your character is.")
        return redirect("characters:create-step", pk=character.pk, step=drafting.progress(character))
    if request.method != "POST":
        return _page(request, character, found)

    action = request.POST.get("action", "next")
    roll = _asked_roll(request, found)
    version = version_number(request.POST.get("version", ""))
    form = _form(character, found, request.POST)
    # With htmx, another roll of a step swaps the part of the page the system's form names.
    swap = bool(roll) and _own(form) and request.htmx and not request.htmx.history_restore_request
    partial = form.partial if swap else ""
    if version is None:
        return _page(request, character, found, form=form, status=400, error=NO_VERSION, partial=partial)
    try:
        if roll is not None:
            value = _value(form) if roll else {}
            if value is None:
                return _page(request, character, found, form=form, status=400, error=CHECK_BELOW, partial=partial)
            character = drafting.roll(character_id=character.pk, version=version, step=found.key, by=request.user,
                                      rng=secrets.SystemRandom(), roll=roll, value=value)  # fmt: skip
            if partial:
                return _page(request, character, found, partial=partial)
            return redirect("characters:create-step", pk=character.pk, step=found.key)
        if form is not None and found.fields:
            value = _value(form)
            if value is None:
                return _page(request, character, found, form=form, status=400, error=CHECK_BELOW)
            character = drafting.fill(character_id=character.pk, version=version, step=found.key, value=value,
                                      by=request.user)  # fmt: skip
            version = character.version
        elif drafting.problems_at(character, found):
            first = next(iter(drafting.problems_at(character, found).values()))
            return _page(request, character, found, form=form, status=400, error=first)
        if action == "later":
            messages.success(request, f"{character.name} is saved as a draft: finish it any time.")
            return redirect(reverse("campaigns:detail", args=[character.campaign_id]))
        keys = [s.key for s in drafting.steps(character)]
        if found.key != keys[-1]:
            return redirect("characters:create-step", pk=character.pk, step=keys[keys.index(found.key) + 1])
        drafting.finish(character_id=character.pk, version=version, by=request.user)
    except drafting.StaleDraft as stale:
        fresh = access.character_for(request.user, pk, write=True)
        if _own(form):
            form = _form(fresh, found, request.POST)
        return _page(request, fresh, found, form=form, error=stale.message, status=409, partial=partial)
    except Refused as refused:
        error = refused.message
        if not _own(form) and form is not None and form.data is not None and refused.errors:
            form.add_errors({where: [message] for where, message in refused.errors.items()})
            error = CHECK_BELOW  # each message is by its field, and in the summary above the form
        return _page(request, character, found, form=form, error=error, errors=refused.errors, status=refused.status,
                     partial=partial)  # fmt: skip
    messages.success(request, f"{character.name} is ready to play.")
    return redirect("characters:sheet", pk=character.pk)


def _value(form: Any) -> Mapping[str, Any] | None:
    """What the step's form was given, as the step's value; None when the generated form refuses it (its
    messages are by its fields). A system's own form refuses with :class:`Refused`."""
    if form is None:
        return {}
    if _own(form):
        return form.value()
    return form.values() if form.is_valid() else None


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
