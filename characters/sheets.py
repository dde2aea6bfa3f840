"""A character's sheet as the pages show it: the document, the campaign's options, and what its
system derives from them for its templates (``sheet_view``), computed once per request with no
query beyond the character and its campaign."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet

from characters.models import Character

#: What the apps above this one show on every sheet page for its viewer (the table app: a decision that
#: waits), each ``(character, user) -> names for the templates``; registered by those apps once ready, as
#: this app imports none of them.
_ALSO: list[Callable[[Character, AbstractBaseUser], Mapping[str, Any]]] = []


def also_show(shows: Callable[[Character, AbstractBaseUser], Mapping[str, Any]]) -> None:
    """Show what ``shows`` gives on every sheet page, beside the sheet (once, however often it is registered)."""
    if shows not in _ALSO:
        _ALSO.append(shows)


def shown_beside(character: Character, user: AbstractBaseUser) -> dict[str, Any]:
    """What the registered apps show beside the sheet of ``character`` (loaded through ``access``) for ``user``."""
    return {name: value for shows in _ALSO for name, value in shows(character, user).items()}


def with_sheet(characters: QuerySet[Character]) -> QuerySet[Character]:
    """Everything a sheet shows: the document is on the row, and the balances are read with it,
    so one query whatever its size."""
    return characters.select_related("campaign", "owner").with_balances()


def sheet(character: Character) -> dict[str, Any]:
    """The whole sheet for the system's templates; the character must come from :func:`with_sheet`."""
    options = character.campaign.settings
    document = character.document
    return {
        "character": character,
        "document": document,
        "options": options,
        **character.rules.sheet_view(document, options),
    }


def template(character: Character, name: str) -> str:
    """One of the system's templates of a sheet (``templates/systems/<key>/<name>.html``)."""
    return f"systems/{character.system}/{name}.html"
