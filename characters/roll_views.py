"""The roll page of a character's sheet: its system's own page (``register``), which builds the
roll from the sheet, shows the exact chance before the roll and records the roll in the log.

This view checks access once for every system: any member may look at the odds, the owner and the
GM roll (a POST loads the character for writing); a system with no roll page of its own is a 404.
"""

from __future__ import annotations

from collections.abc import Callable

from django.http import Http404, HttpRequest, HttpResponse
from django.views.decorators.http import require_http_methods
from django.views.decorators.vary import vary_on_headers

from characters import access
from characters.models import Character

RollPage = Callable[[HttpRequest, Character], HttpResponse]

_OWN_PAGES: dict[str, RollPage] = {}


def register(system: str, page: RollPage) -> None:
    """Use ``page`` for the roll page of ``system``'s characters."""
    _OWN_PAGES[system] = page


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def roll(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.character_for(request.user, pk, write=request.method == "POST")
    page = _OWN_PAGES.get(character.system)
    if page is None:
        raise Http404("This character's system has no roll page.")
    return page(request, character)
