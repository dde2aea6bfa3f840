"""Pages and JSON sent compressed: Brotli to a client that accepts ``br``, else gzip, else as they are.

Pages are text that compresses 3–7 times; static files are compressed once, ahead of time, by
WhiteNoise (``collectstatic`` writes a ``.br`` and a ``.gz`` beside each), and answered before this
middleware is reached. Left as they are: short responses (the framing would eat the saving), a
response that already names a ``Content-Encoding``, one that asks ``Cache-Control: no-transform``,
streaming responses (downloads and exports, sent as they are produced), and media types that are
compressed already or not text. Every response that could have been compressed says ``Vary:
Accept-Encoding``, so that no cache hands a compressed body to a client that did not ask for one.

Brotli is worked at quality :data:`BROTLI_QUALITY`: the top qualities are for files compressed once
(WhiteNoise uses 11 for static files), far too slow for a page drawn per request; 5 compresses a
page better than gzip's best, in about the time gzip takes.

BREACH (reading a secret from the length of compressed responses) needs three things at once: a
secret repeated in every response, text the attacker chooses reflected beside it, and thousands of
the victim's own signed-in requests whose sizes the attacker can watch. Here:

- The CSRF token, the one secret on every page, is masked anew for each response by Django
  (``get_token`` draws a fresh mask), so no two responses carry the same bytes for it.
- The session and CSRF cookies are ``SameSite=Lax`` (Django's default): a page elsewhere that makes
  the victim's browser fetch ours in the background (images, scripts, ``fetch``) gets the signed-out
  page, with nothing secret on it. Only top-level navigations carry the cookie, one visible page at
  a time, far from the thousands of requests the attack needs.
- gzip adds up to :data:`GZIP_RANDOM_BYTES` random bytes to each response (Django's "Heal the
  Breach" padding), so the length alone no longer tells the attacker what matched.
- The other secrets a page shows are shown to their owner alone and reflect nothing chosen by
  anyone else: a new API token once, on the answer to the POST that made it (never again); a
  campaign's invitation links, to its GM on the invitations page, whose every word is the GM's own.
  Hidden table state and secret rolls never reach a page of someone not allowed to see them at all.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Final

import brotli
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.utils.cache import patch_vary_headers
from django.utils.text import compress_string

#: Responses shorter than this are sent as they are: headers and framing would eat the saving.
MIN_LENGTH: Final = 200
#: Brotli's quality for a response drawn per request (0–11; WhiteNoise's static files use 11).
BROTLI_QUALITY: Final = 5
#: Random bytes gzip pads each response's header with, at most (Django's own "Heal the Breach" choice).
GZIP_RANDOM_BYTES: Final = 100
#: The media types worth compressing: text. Images, archives and fonts are compressed already.
COMPRESSIBLE: Final = frozenset(
    {
        "text/html",
        "text/plain",
        "text/css",
        "text/csv",
        "text/javascript",
        "application/javascript",
        "application/json",
        "application/problem+json",
        "application/schema+json",
        "image/svg+xml",
    }
)

#: One entry of Accept-Encoding: a coding and, maybe, its weight.
CODING_ENTRY: Final = re.compile(r"^\s*([A-Za-z0-9*-]+)\s*(?:;\s*q\s*=\s*([0-9.]+)\s*)?$")


def accepted_codings(header: str) -> set[str]:
    """The content codings an ``Accept-Encoding`` header accepts, lower case: those listed with a
    weight above zero (``br;q=0`` refuses Brotli). An entry that cannot be read is skipped."""
    accepted = set()
    for entry in header.split(","):
        match = CODING_ENTRY.match(entry)
        if not match:
            continue
        coding, weight = match.group(1).lower(), match.group(2)
        try:
            if weight is not None and float(weight) <= 0:
                continue
        except ValueError:
            continue
        accepted.add(coding)
    return accepted


def chosen_coding(header: str) -> str | None:
    """``"br"`` when the client accepts Brotli, else ``"gzip"`` when it accepts gzip, else None.
    Brotli first, whatever the weights say: it is smaller, and every browser that sends ``br`` reads it."""
    accepted = accepted_codings(header)
    for coding in ("br", "gzip"):
        if coding in accepted:
            return coding
    return None


def compressible(response: HttpResponseBase) -> bool:
    """Whether ``response`` is worth compressing and may be: whole, text, long enough, not already encoded."""
    if response.streaming or not isinstance(response, HttpResponse):
        return False
    if response.has_header("Content-Encoding"):
        return False
    if "no-transform" in response.get("Cache-Control", "").lower():
        return False
    media_type = response.get("Content-Type", "").split(";", 1)[0].strip().lower()
    return media_type in COMPRESSIBLE and len(response.content) >= MIN_LENGTH


def compress(content: bytes, coding: str) -> bytes:
    if coding == "br":
        return brotli.compress(content, mode=brotli.MODE_TEXT, quality=BROTLI_QUALITY)
    return compress_string(content, max_random_bytes=GZIP_RANDOM_BYTES)


class CompressionMiddleware:
    """Compresses each response that :func:`compressible` allows in the coding :func:`chosen_coding`
    picks; placed high in ``MIDDLEWARE`` (right after WhiteNoise), so it sees the finished body that
    every other middleware has written to."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponseBase]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponseBase:
        response = self.get_response(request)
        if not compressible(response):
            return response
        assert isinstance(response, HttpResponse)
        patch_vary_headers(response, ("Accept-Encoding",))
        coding = chosen_coding(request.headers.get("Accept-Encoding", ""))
        if coding is None:
            return response
        compressed = compress(response.content, coding)
        if len(compressed) >= len(response.content):
            return response
        response.content = compressed
        response.headers["Content-Length"] = str(len(compressed))
        response.headers["Content-Encoding"] = coding
        # The bytes differ from the uncompressed ones: a strong validator would claim they are the same.
        etag = response.get("ETag")
        if etag and etag.startswith('"'):
            response.headers["ETag"] = "W/" + etag
        return response
