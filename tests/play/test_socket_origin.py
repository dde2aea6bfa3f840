"""A socket opens only from its own origin, compared whole: scheme, host and port (web.origins)."""

from __future__ import annotations

import pytest
from django.test import override_settings

from tests.play.test_live import communicator, run
from web.origins import socket_origin_allowed


def scope(origin: str | None, host: str = "testserver", scheme: str = "ws") -> dict:
    headers = [(b"host", host.encode())]
    if origin is not None:
        headers.append((b"origin", origin.encode()))
    return {"type": "websocket", "scheme": scheme, "headers": headers}


def test_the_page_s_own_origin_opens_a_socket() -> None:
    assert socket_origin_allowed(scope("http://testserver"))
    assert socket_origin_allowed(scope("https://testserver", scheme="wss"))
    assert socket_origin_allowed(scope("http://testserver:8000", host="testserver:8000"))


@pytest.mark.parametrize(
    ("origin", "host", "scheme"),
    [
        ("http://evil.example", "testserver", "ws"),  # another host
        ("http://testserver:8080", "testserver", "ws"),  # the same host name on another port: another site
        ("https://testserver", "testserver", "ws"),  # another scheme than the socket's
        ("http://testserver", "testserver", "wss"),  # a plain-HTTP page opening a secure socket
        ("http://testserver.evil.example", "testserver", "ws"),  # a name that only starts like ours
        ("null", "testserver", "ws"),  # a sandboxed frame or a file
        (None, "testserver", "ws"),  # no Origin at all
        ("http://evil.example", "evil.example", "ws"),  # its own origin, but a host we do not serve
    ],
)
def test_any_other_origin_is_refused(origin: str | None, host: str, scheme: str) -> None:
    assert not socket_origin_allowed(scope(origin, host=host, scheme=scheme))


@override_settings(CSRF_TRUSTED_ORIGINS=["https://play.example.com"])
def test_a_trusted_origin_opens_a_socket_as_it_posts_a_form() -> None:
    assert socket_origin_allowed(scope("https://play.example.com"))
    assert not socket_origin_allowed(scope("http://play.example.com"))


@pytest.mark.django_db(transaction=True)
def test_a_socket_from_another_port_of_our_host_is_refused_by_the_server(campaign, gm) -> None:
    async def scenario() -> None:
        refused = await communicator(campaign, gm, origin=b"http://testserver:8080")
        connected, _ = await refused.connect()
        assert not connected
        accepted = await communicator(campaign, gm)
        connected, _ = await accepted.connect()
        assert connected
        await accepted.disconnect()

    run(scenario)


@override_settings(SECURE_PROXY_SSL_HEADER=("HTTP_X_FORWARDED_PROTO", "https"))
def test_behind_a_tls_proxy_the_page_s_https_origin_opens_a_socket_as_its_pages_are_secure() -> None:
    proxied = scope("https://testserver")
    proxied["headers"].append((b"x-forwarded-proto", b"https"))
    assert socket_origin_allowed(proxied)
    assert not socket_origin_allowed(scope("https://testserver"))  # no header: a plain socket
    plain = scope("http://testserver")
    plain["headers"].append((b"x-forwarded-proto", b"https"))
    assert not socket_origin_allowed(plain)  # the proxy says TLS: an http page is another origin
