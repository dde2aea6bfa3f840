"""The character sheet pages."""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from characters import access, sheets


@require_safe
def sheet(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.character_for(request.user, pk)
    full = sheets.with_sheet(type(character).objects.filter(pk=character.pk)).get()
    full.can_edit, full.viewer_is_gm = character.can_edit, character.viewer_is_gm
    return render(request, "characters/sheet.html", sheets.sheet(full))
