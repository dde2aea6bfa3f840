"""Campaign options as the campaign page shows them (labels, not keys), how long ago something
was, lists of characters a page at a time by name (:class:`NameKey`, :func:`page_by_name`), and
refusals as pages (:func:`refusals`), for every app's views."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime, timedelta
from functools import wraps
from typing import Any, Final, TypeVar

from django.core.exceptions import PermissionDenied
from django.db.models import Model, Q, QuerySet
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils import timezone
from django.utils.timesince import timesince

from campaigns.errors import Refused
from campaigns.models import Campaign
from rules import systems
from web.fields import whole_key

M = TypeVar("M", bound=Model)

#: The longest name a page's key carries: a character's name column holds no more.
MAX_KEY_NAME: Final = 120


def options_summary(system: str, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Each option of the campaign's rules system as ``{"label", "value"}`` (a list value, such as
    the skills, comes as ``list``), as the system says them."""
    return systems.get(system).options_summary(options)


def ago(moment: datetime, now: datetime | None = None) -> str:
    """ "just now", or "3 hours ago": how long since ``moment``, as the campaign list says it."""
    now = now or timezone.now()
    if now - moment < timedelta(minutes=1):
        return "just now"
    return f"{timesince(moment, now)} ago"


class BadPageKey(Refused):
    status = 400


@dataclass(frozen=True, slots=True)
class NameKey:
    """Where a page of a list in order of name, then id, ends: its last row's name and id. The next
    page starts just after it, so a page costs the same however far into the list it is (no OFFSET),
    and a row added or removed meanwhile moves no other row to a second page.

    In a URL it is ``<id>:<name>`` (``?after=42:Hero%20007``, percent-encoded by ``urlencode``): the
    id first, so that a name with a colon in it still splits at the first one."""

    name: str
    pk: int

    @classmethod
    def of(cls, row: Any) -> NameKey:
        return cls(name=row.name, pk=row.pk)

    @classmethod
    def parse(cls, value: str, what: str) -> NameKey:
        """``value`` as a key, or :class:`BadPageKey` (400) saying what is wrong with it. The id is
        ASCII digits (:func:`web.fields.whole_key`); the name one line of at most
        :data:`MAX_KEY_NAME` characters, none of them control characters (PostgreSQL refuses a NUL)."""
        digits, colon, name = value.partition(":")
        pk = whole_key(digits)
        if not colon or pk is None:
            raise BadPageKey(
                f"The page of {what} must be given as a character's number, a colon and their name, not {value[:30]!r}."
            )
        if not name or len(name) > MAX_KEY_NAME or any(unicodedata.category(c) == "Cc" for c in name):
            raise BadPageKey(
                f"The page of {what} must end in a character's name (one line, at most {MAX_KEY_NAME} characters)."
            )
        return cls(name=name, pk=pk)

    def __str__(self) -> str:
        return f"{self.pk}:{self.name}"


def page_by_name(rows: QuerySet[M], after: NameKey | None, size: int) -> tuple[list[M], NameKey | None]:
    """Up to ``size`` of ``rows`` in order of name, then id, from just after ``after`` (from the
    first without it), in one query; and the key the next page starts after (None on the last page).
    The database compares the names as it orders them (its collation), so the pages meet exactly."""
    if after is not None:
        rows = rows.filter(Q(name__gt=after.name) | Q(name=after.name, pk__gt=after.pk))
    page = list(rows.order_by("name", "pk")[: size + 1])  # one more: is there a next page?
    return page[:size], (NameKey.of(page[size - 1]) if len(page) > size else None)


def page_key(query: Any, name: str, what: str) -> NameKey | None:
    """The query's ``name`` parameter as a key; None when absent or empty (the first page)."""
    value = query.get(name, "")
    return NameKey.parse(value, what) if value else None


View = Callable[..., HttpResponse]


def refusal(request: HttpRequest, message: str, status: int, campaign: Campaign | None = None) -> HttpResponse:
    template = "campaigns/refused.html#refusal" if request.htmx else "campaigns/refused.html"
    return render(request, template, {"message": message, "campaign": campaign}, status=status)


def refusals(view: View) -> View:
    """A 403 or a refused operation becomes a page that says why, with its status."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponse:
        try:
            return view(request, *args, **kwargs)
        except PermissionDenied as denied:
            return refusal(request, str(denied) or "You can't do that here.", 403)
        except Refused as refused:
            return refusal(request, refused.message, refused.status)

    return wrapper
