"""The CSRF tokens a page carries (the header's ``X-CSRFToken`` for htmx, each form's hidden field): found, taken
out for pages to be compared, and unmasked to the browser's secret, for the tests of pages kept whole
(``web.whole_pages``)."""

from __future__ import annotations

import re

from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH

TOKEN = re.compile(r'("X-CSRFToken": "|name="csrfmiddlewaretoken" value=")([^"]+)"')


def tokens(page: str) -> set[str]:
    return {match[1] for match in TOKEN.findall(page)}


def unmasked(token: str) -> str:
    """The secret a token masks (its mask, then each of the secret's characters shifted by the mask's)."""
    mask, cipher = token[:CSRF_SECRET_LENGTH], token[CSRF_SECRET_LENGTH:]
    chars = CSRF_ALLOWED_CHARS
    places = [(chars.index(c) - chars.index(m)) % len(chars) for c, m in zip(cipher, mask, strict=True)]
    return "".join(chars[place] for place in places)


def without_tokens(page: str) -> str:
    return TOKEN.sub(r'\1"', page)
