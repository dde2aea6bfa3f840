"""Links that leave the site — in a mail, an invitation to copy — built on the configured ``SITE_URL``.

Never on the request's Host header: a request naming another host (through a proxy that passes it,
or an allowed host that is not the canonical one) would otherwise send a password-reset link, and
its token, to whoever answers at that host.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from django.conf import settings


def absolute_url(path: str) -> str:
    """The full address of one of our paths (``/invite/…/``), on ``SITE_URL``."""
    return settings.SITE_URL + path


def site_domain() -> str:
    """``SITE_URL``'s host and port, as Django's password-reset mail names its domain."""
    return urlsplit(settings.SITE_URL).netloc


def site_is_https() -> bool:
    return urlsplit(settings.SITE_URL).scheme == "https"
