"""A character's sheet as the pages show it: the document, the campaign's options, and what its
system derives from them for its templates (``sheet_view``), computed once per request with no
query beyond the character and its campaign."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from characters.models import Character


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
