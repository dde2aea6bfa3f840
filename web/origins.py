"""Which pages may open a socket: the same origin as the page the socket serves, compared whole.

Channels' ``AllowedHostsOriginValidator`` compares only the Origin's host name with
``ALLOWED_HOSTS``, so ``http://dicehall.example.com:8080`` (another scheme, another port: another
site to a browser) passes for ``https://dicehall.example.com``. A socket here is accepted only when
its Origin is exactly the origin it was opened on — scheme, host and port, as Django's CSRF check
reads ``Origin`` — or one of ``CSRF_TRUSTED_ORIGINS``; and the Host it names must be allowed.
"""

from __future__ import annotations

from typing import Any

from channels.security.websocket import WebsocketDenier
from django.conf import settings
from django.http.request import split_domain_port, validate_host

#: The socket schemes that travel over TLS, as the ASGI server names them in ``scope["scheme"]``.
SECURE_SCHEMES = frozenset({"wss", "https"})


def _header(scope: dict[str, Any], name: bytes) -> str | None:
    for key, value in scope.get("headers", ()):
        if key.lower() == name:
            return value.decode("latin-1")
    return None


def socket_origin_allowed(scope: dict[str, Any]) -> bool:
    """True when the socket's Origin is its own origin (or a trusted one) and its Host is allowed."""
    origin, host = _header(scope, b"origin"), _header(scope, b"host")
    if not origin or not host:
        return False
    domain, _port = split_domain_port(host)
    if not domain or not validate_host(domain, settings.ALLOWED_HOSTS):
        return False
    scheme = "https" if _secure(scope) else "http"
    return origin == f"{scheme}://{host}" or origin in settings.CSRF_TRUSTED_ORIGINS


def _secure(scope: dict[str, Any]) -> bool:
    """Whether the socket came over TLS: as the ASGI server says, or as the TLS proxy's header says where
    ``SECURE_PROXY_SSL_HEADER`` names one (as Django reads it for a request's ``is_secure``)."""
    if scope.get("scheme") in SECURE_SCHEMES:
        return True
    proxy_header = getattr(settings, "SECURE_PROXY_SSL_HEADER", None)
    if not proxy_header:
        return False
    meta_name, secure_value = proxy_header
    header = meta_name.removeprefix("HTTP_").lower().replace("_", "-").encode()
    sent = _header(scope, header)
    return sent is not None and sent.split(",", 1)[0].strip() == secure_value


class SameOriginValidator:
    """ASGI middleware for sockets: refuses (close 403 before the handshake) a socket whose Origin
    is not exactly the origin it was opened on."""

    def __init__(self, application: Any) -> None:
        self.application = application

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> Any:
        if scope["type"] == "websocket" and not socket_origin_allowed(scope):
            denier = WebsocketDenier()
            return await denier(scope, receive, send)
        return await self.application(scope, receive, send)
