"""The CSRF token a page carries (``{{ csrf_token }}``, ``{% csrf_token %}``): masked once for the response,
with one draw of random bytes.

Django's own context processor, which every ``RequestContext`` runs, masks the secret anew each time a
context of the request asks for it (a page of included fragments asks several times), drawing each of
the mask's 32 characters from ``secrets`` on its own: 32 reads of the system's random source, some 200
Python calls, on every page with a form. :func:`csrf` is listed after it and gives the same token made
cheaper: Django's mask of the same secret, as ``django.middleware.csrf.get_token`` makes it (the secret's
characters shifted by a mask of as many random characters of ``CSRF_ALLOWED_CHARS``), its characters
drawn from one read of random bytes, each byte taken only below the largest multiple of the alphabet's
size (so every character is as likely as in Django's), and kept for the rest of the response. Each
response still carries a mask of its own (the BREACH note in :mod:`web.compression`). Where the request
has no secret yet, or has it by another route, Django's ``get_token`` makes the token, as it always has.
"""

from __future__ import annotations

import secrets
from typing import Final

from django.http import HttpRequest
from django.middleware.csrf import CSRF_ALLOWED_CHARS, CSRF_SECRET_LENGTH, get_token
from django.utils.functional import SimpleLazyObject

#: Each character's place in the alphabet.
PLACES: Final = {character: place for place, character in enumerate(CSRF_ALLOWED_CHARS)}
#: Random bytes below this are taken (``byte % len(CSRF_ALLOWED_CHARS)``), the rest drawn again.
BELOW: Final = 256 - 256 % len(CSRF_ALLOWED_CHARS)


def random_characters(count: int) -> str:
    """``count`` characters of ``CSRF_ALLOWED_CHARS``, each as likely as the others, from ``secrets``."""
    size = len(CSRF_ALLOWED_CHARS)
    drawn: list[str] = []
    while len(drawn) < count:
        drawn += [CSRF_ALLOWED_CHARS[byte % size] for byte in secrets.token_bytes(count + 8) if byte < BELOW]
    return "".join(drawn[:count])


def mask(secret: str) -> str:
    """The token of ``secret`` under a new mask: the mask, then each of the secret's characters shifted by
    the mask's character in its place (Django's ``_mask_cipher_secret``, which ``_unmask_cipher_token``
    undoes)."""
    size = len(CSRF_ALLOWED_CHARS)
    shift = random_characters(CSRF_SECRET_LENGTH)
    cipher = "".join(CSRF_ALLOWED_CHARS[(PLACES[s] + PLACES[m]) % size] for s, m in zip(secret, shift, strict=True))
    return shift + cipher


def well_formed(secret: str) -> bool:
    """Whether ``secret`` is a CSRF secret as Django makes them: so many characters of its alphabet."""
    return len(secret) == CSRF_SECRET_LENGTH and not secret.strip(CSRF_ALLOWED_CHARS)


def token(request: HttpRequest) -> str:
    """The request's token, masked once for its response: as ``get_token``, which marks the cookie to be
    sent again (renewing its expiry), from the secret the request holds now."""
    secret = request.META.get("CSRF_COOKIE")
    if not isinstance(secret, str) or not well_formed(secret):
        return get_token(request)
    kept = getattr(request, "csrf_token_masked", None)
    if kept is not None and kept[0] == secret:
        return str(kept[1])
    request.META["CSRF_COOKIE_NEEDS_UPDATE"] = True
    masked = mask(secret)
    request.csrf_token_masked = (secret, masked)  # type: ignore[attr-defined]
    return masked


def csrf(request: HttpRequest) -> dict[str, SimpleLazyObject]:
    """The context processor: ``csrf_token``, made when a template first shows it."""
    return {"csrf_token": SimpleLazyObject(lambda: token(request))}
