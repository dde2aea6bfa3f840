"""A character's sheet as the pages show it: the document, the campaign's options, and what its
system derives from them for its templates (``sheet_view``), computed once per request with no
query beyond the character and its campaign."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Mapping
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.db.models import QuerySet, TextField, Value
from django.db.models.functions import SHA256, Cast, Concat

from characters.models import Character
from web.kept import Kept

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


#: What the apps above this one read with a character for its sheet page (the table app: whether a
#: decision waits, what its table view is made of), each ``(queryset, viewer's id) -> queryset`` adding
#: annotations; registered once those apps are ready.
_READ: list[Callable[[QuerySet[Character], int], QuerySet[Character]]] = []


def also_read(annotate: Callable[[QuerySet[Character], int], QuerySet[Character]]) -> None:
    """Read what ``annotate`` adds in the sheet page's query of its character (once, however often registered)."""
    if annotate not in _READ:
        _READ.append(annotate)


def read_with(characters: QuerySet[Character], viewer: int) -> QuerySet[Character]:
    """``characters`` with what the registered apps read with a sheet's character for the user ``viewer``
    (:func:`also_read`)."""
    for annotate in _READ:
        characters = annotate(characters, viewer)
    return characters


def with_sheet(characters: QuerySet[Character]) -> QuerySet[Character]:
    """Everything a sheet shows: the document is on the row, and the balances are read with it,
    so one query whatever its size."""
    return characters.select_related("campaign", "owner").with_balances()


#: How many sheets one process keeps read (their document and what their system derives from it), the
#: least recently shown dropped first: a sheet page is read far more often than its sheet changes.
KEPT_SHEETS: Final = 256

#: The sheets read, by their content (:func:`_read`): options, document, ``sheet_view``, digest.
reads: Kept[tuple[dict[str, Any], Any, dict[str, Any], bytes]] = Kept(KEPT_SHEETS)


class ContentDigest(SHA256):
    """The SHA-256 of a text in hex: Django's, but on PostgreSQL its own ``sha256`` (11 and later), not
    pgcrypto's ``DIGEST``, an extension this site does not install."""

    def as_postgresql(self, compiler: Any, connection: Any, **extra_context: Any) -> Any:
        template = "ENCODE(SHA256(CONVERT_TO(%(expressions)s, 'UTF8')), 'hex')"
        return self.as_sql(compiler, connection, template=template, **extra_context)


#: The annotation :func:`with_content_key` reads: the digest of the character's stored sheet and its campaign's
#: stored options, as the database holds them (a separator no JSON text holds between the two).
CONTENT_KEY: Final = "sheet_content_key"


def with_content_key(characters: QuerySet[Character]) -> QuerySet[Character]:
    """``characters`` (with their campaign) with the digest of their stored sheet and their campaign's stored
    options worked out by the database as it reads them (:data:`CONTENT_KEY`): the sheet a page keeps is then
    found by it, without the page writing the sheet out again to name it (:func:`_read`). For a page that only
    reads the character (the sheet page): one whose sheet or campaign's options were changed in memory after the
    read would still be found by the digest of what was read."""
    texts = Concat(
        Cast("sheet", TextField()), Value("\x1e"), Cast("campaign__options", TextField()), output_field=TextField()
    )
    return characters.annotate(**{CONTENT_KEY: ContentDigest(texts)})


def _read(character: Character) -> tuple[dict[str, Any], Any, dict[str, Any], bytes]:
    """The campaign's options (defaults filled in), the character's document and its system's
    ``sheet_view`` of them, validated and derived once per
    content: kept by the stored sheet and the campaign's stored options themselves (not by id and
    version, which a write outside the one write path would leave unchanged), so a changed sheet or
    option is a new entry and shows at once. A character read :func:`with_content_key` is found by the
    digest the database worked out of that content as it read it; any other by the content written out
    here (some 0.1 ms a request for a sheet of a few kilobytes). Documents are frozen; the views are only
    read. The last value is a short digest of that content, for a region drawn from it to be kept by."""
    campaign = character.campaign
    digested = character.__dict__.get(CONTENT_KEY)
    if digested is not None:
        key = f"{character.system}:{campaign.system}:{digested}"
    else:
        key = json.dumps([character.system, campaign.system, character.sheet, campaign.options], separators=(",", ":"))

    def read() -> tuple[dict[str, Any], Any, dict[str, Any], bytes]:
        options, document = campaign.settings, character.document
        digest = hashlib.blake2b(key.encode(), digest_size=16).digest()
        return options, document, character.rules.sheet_view(document, options), digest

    return reads.get(key, read)


def sheet(character: Character) -> dict[str, Any]:
    """The whole sheet for the system's templates; the character must come from :func:`with_sheet`.
    The nested values are shared with every page that shows the same sheet: treat them as read-only."""
    options, document, view, _ = _read(character)
    return {"character": character, "document": document, "options": options, **view}


def content_digest(character: Character) -> bytes:
    """A short digest of what :func:`sheet` gives of ``character`` beyond the row's other fields: its
    system, its sheet and its campaign's system and options (read and kept with them)."""
    return _read(character)[3]


#: How many drawn regions of sheet pages one process keeps (some 10 KB each), the least recently
#: shown dropped first: a region for each way each sheet is shown.
KEPT_REGIONS: Final = 512

#: The drawn regions of sheet pages (``{% kept_region %}``), each by a key that names everything the
#: region shows (:func:`characters.views.region_key`): a region is never drawn again for its key.
regions: Kept[str] = Kept(KEPT_REGIONS)


def template(character: Character, name: str) -> str:
    """One of the system's templates of a sheet (``templates/systems/<key>/<name>.html``)."""
    return f"systems/{character.system}/{name}.html"
