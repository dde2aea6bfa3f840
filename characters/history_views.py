"""A sheet's history: every change made to it, newest first, a page at a time (by key)."""

from __future__ import annotations

from typing import Any, Final

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.views.decorators.http import require_safe

from campaigns.errors import Refused
from campaigns.presenters import refusals
from characters import access, write
from characters.models import SheetChange
from web.fields import whole_key

#: Changes shown on one page of a sheet's history.
PAGE_SIZE: Final = 25


def changed_parts(change: SheetChange) -> list[str]:
    """The top-level parts of the sheet this change touched, in words ("skills", "notes")."""
    before, after = change.before or {}, change.after or {}
    keys = [k for k in after if before.get(k) != after.get(k) and k not in ("next_id", "schema_version")]
    keys += [k for k in before if k not in after]
    return [key.replace("_", " ") for key in keys]


@require_safe
@refusals
def history(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.character_for(request.user, pk)
    before = None
    if raw := request.GET.get("before", ""):
        before = whole_key(raw)
        if before is None:
            raise Refused("The page of the history must be given by a change number (1 or more).")
    page = write.history(character, before=before, limit=PAGE_SIZE + 1)
    more = len(page) > PAGE_SIZE
    page = page[:PAGE_SIZE]
    entries: list[dict[str, Any]] = [{"change": c, "parts": changed_parts(c)} for c in page]
    return render(
        request,
        "characters/history.html",
        {
            "character": character,
            "entries": entries,
            "older_url": f"?before={page[-1].pk}" if more else None,
            "newest_url": "?" if before is not None else None,
        },
    )
