"""Archiving a character and restoring it, each after a confirmation page: the page says what the
move does, and its form carries the character's version, so a sheet changed meanwhile is not
moved (409, nothing changed). Plain forms: the pages work without JavaScript."""

from __future__ import annotations

from collections.abc import Callable

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods

from campaigns.errors import Refused
from characters import access, lifecycle, write
from characters.models import Character
from web.fields import version_number

Move = Callable[..., Character]


def _confirm(request: HttpRequest, pk: int, *, restoring: bool) -> HttpResponse:
    character = access.character_for(request.user, pk)
    may = character.viewer_is_gm or (not restoring and character.owner_id == request.user.pk)
    if not may or character.viewer_role is None:
        who = "the campaign's GM" if restoring else "the character's player and the GM"
        context = {"character": character, "message": f"Only {who} can do that."}
        return render(request, "characters/edit_refused.html", context, status=403)
    context = {"character": character, "restoring": restoring, "finished": lifecycle.finished(character)}
    if request.method != "POST":
        return render(request, "characters/lifecycle_confirm.html", context)
    move: Move = lifecycle.restore if restoring else lifecycle.archive
    version = version_number(request.POST.get("version", ""))
    if version is None:
        context["error"] = "This form did not say which version of the sheet it was made from, so nothing changed."
        return render(request, "characters/lifecycle_confirm.html", context, status=400)
    try:
        moved = move(character_id=character.pk, version=version, by=request.user)
    except write.StaleSheet as stale:
        context.update(character=access.character_for(request.user, pk), error=stale.message)
        return render(request, "characters/lifecycle_confirm.html", context, status=409)
    except Refused as refused:
        context["error"] = refused.message
        return render(request, "characters/lifecycle_confirm.html", context, status=refused.status)
    if restoring:
        where = "back in play" if moved.status == Character.Status.ACTIVE else "a draft again"
        messages.success(request, f"{moved.name} is {where}.")
    else:
        messages.success(request, f"{moved.name} is archived: the sheet stays, read-only.")
    return redirect("characters:sheet", pk=moved.pk)


@require_http_methods(["GET", "HEAD", "POST"])
def archive(request: HttpRequest, pk: int) -> HttpResponse:
    return _confirm(request, pk, restoring=False)


@require_http_methods(["GET", "HEAD", "POST"])
def restore(request: HttpRequest, pk: int) -> HttpResponse:
    return _confirm(request, pk, restoring=True)
