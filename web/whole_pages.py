"""Pages kept whole: a page drawn once for a key that names everything it shows, and shown again from its
bytes while the key stays the same, each time with a CSRF token masked anew.

A page read far more often than what it shows changes (a GM's dashboard while nothing is under way, a
character's sheet between two changes) costs, drawn, more than its queries: its template, the context made for
it, its kept parts joined. What differs between two responses of the same page to the same browser is only the
token its forms carry, one mask of the browser's secret for each response (the BREACH note in
:mod:`web.compression`). So the page is kept as the bytes around its token, split where the token it was drawn
with stands, and joined again with the token of the response that shows it.

The key is the view's: it names everything the page shows (the rows it is drawn from, or a digest of them, and
how it is shown), and :func:`shown` adds the viewer's part (:func:`_viewer_key`): who is signed in (the header
names them) and the browser's secret (the page's forms carry a token of it), with the prefix and the URLs the
site is served under (the page's links). A page shows a message waiting for the viewer once, and is never kept
then; nor is a page for a request that brought no secret, or one the browser is to be sent with this response
(its cookie was missing or malformed: a browser sending a malformed one again and again would fill the store
with pages nobody asks for again).

With ``settings.KEPT_CHECKED`` (on in the tests), every page shown again from what was kept is drawn again and must
be the same bytes: a key that forgets something the page shows fails the test that shows it.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.urls import get_script_prefix, get_urlconf

from web import csrf
from web.kept import Kept

__all__ = ["StalePage", "shown"]


class StalePage(AssertionError):
    """A page shown again from what was kept is not what a fresh render makes: its key misses something."""


def _viewer_key(request: HttpRequest) -> tuple[Any, ...] | None:
    """The viewer's part of a kept page's key: the user (their id and the name the header shows) and the
    browser's CSRF secret. None when the page must be drawn: no well-formed secret the browser sent, or a
    message waiting. Asked before the page's token is drawn (which marks the cookie to be sent again)."""
    secret = request.META.get("CSRF_COOKIE")
    if not isinstance(secret, str) or not csrf.well_formed(secret) or request.META.get("CSRF_COOKIE_NEEDS_UPDATE"):
        return None
    if len(messages.get_messages(request)):
        return None
    return request.user.pk, request.user.get_username(), secret


def shown(
    request: HttpRequest,
    store: Kept[tuple[bytes, ...]],
    key: Hashable | None,
    draw: Callable[[], HttpResponse],
    where: str,
    *,
    fresh: Callable[[], HttpResponse] | None = None,
) -> HttpResponse:
    """The page ``draw()`` makes, kept in ``store`` by ``key`` and the viewer's part (:func:`_viewer_key`) with its
    token masked anew for this response (see the module); drawn every time for a ``key`` of None, or when the
    viewer's part is None. ``where``: the page, named in a stale key's error (with the page's key, not the
    viewer's part: their secret is no message's business); ``fresh``: the page drawn with nothing kept, for the
    tests' check (``draw`` itself by default), where ``draw`` takes parts of the page kept by the same key."""
    viewer = None if key is None else _viewer_key(request)
    if key is None or viewer is None:
        return draw()
    drawn_now: list[bytes] = []

    def split() -> tuple[bytes, ...]:
        drawn = draw().content
        drawn_now.append(drawn)
        return tuple(drawn.split(csrf.token(request).encode()))

    page = csrf.token(request).encode().join(store.get((key, viewer, get_script_prefix(), get_urlconf()), split))
    if settings.KEPT_CHECKED and not drawn_now and page != (fresh or draw)().content:
        raise StalePage(f"{where} was kept at {key!r} but a fresh render differs.")
    return HttpResponse(page)
