"""The Content-Security-Policy header, built once for the settings (web.middleware.ContentSecurityPolicyMiddleware),
is the one django-csp builds for every response, and django-csp still builds a response's own."""

from __future__ import annotations

import pytest
from csp.constants import HEADER, HEADER_REPORT_ONLY, NONCE, NONE, SELF
from csp.middleware import CSPMiddleware
from csp.utils import build_policy
from django.http import HttpResponse
from django.test import Client, RequestFactory, override_settings

from web.middleware import ContentSecurityPolicyMiddleware


def _served(middleware: CSPMiddleware, response: HttpResponse, *, nonce: bool = False) -> HttpResponse:
    request = RequestFactory().get("/somewhere/")
    middleware.process_request(request)
    if nonce:
        str(request.csp_nonce)  # a template that asked for one
    return middleware.process_response(request, response)  # type: ignore[return-value]


@pytest.mark.django_db
def test_a_page_has_the_header_django_csp_builds_and_no_report_only_one() -> None:
    response = Client().get("/healthz")

    assert response[HEADER] == build_policy()
    assert "default-src 'self'" in response[HEADER]
    assert HEADER_REPORT_ONLY not in response


def test_the_header_is_built_again_when_the_settings_change() -> None:
    middleware = ContentSecurityPolicyMiddleware(lambda request: HttpResponse())
    before = _served(middleware, HttpResponse())[HEADER]
    policy = {"DIRECTIVES": {"default-src": [NONE]}, "EXCLUDE_URL_PREFIXES": ["/elsewhere/"]}
    report = {"DIRECTIVES": {"img-src": [SELF]}}

    with override_settings(CONTENT_SECURITY_POLICY=policy, CONTENT_SECURITY_POLICY_REPORT_ONLY=report):
        changed = _served(middleware, HttpResponse())
        report_only = build_policy(report_only=True)
        excluded_request = RequestFactory().get("/elsewhere/page")
        excluded = middleware.process_response(excluded_request, HttpResponse())

    assert changed[HEADER] == "default-src 'none'" != before
    assert changed[HEADER_REPORT_ONLY] == report_only
    assert "img-src 'self'" in report_only
    assert HEADER not in excluded
    assert _served(middleware, HttpResponse())[HEADER] == before


def test_a_response_with_a_policy_of_its_own_is_built_by_django_csp() -> None:
    ours = ContentSecurityPolicyMiddleware(lambda request: HttpResponse())
    theirs = CSPMiddleware(lambda request: HttpResponse())
    for middleware in (ours, theirs):
        updated = HttpResponse()
        updated._csp_update = {"img-src": ["https://example.org"]}  # type: ignore[attr-defined]
        exempt = HttpResponse()
        exempt._csp_exempt = True  # type: ignore[attr-defined]
        set_already = HttpResponse()
        set_already[HEADER] = "default-src 'none'"
        served = (_served(middleware, updated), _served(middleware, exempt), _served(middleware, set_already))
        if middleware is ours:
            mine = served
    assert [r.get(HEADER) for r in mine] == [r.get(HEADER) for r in served]
    assert "https://example.org" in mine[0][HEADER]
    assert HEADER not in mine[1]
    assert mine[2][HEADER] == "default-src 'none'"


def test_a_nonce_asked_for_goes_into_the_header_where_the_policy_names_it() -> None:
    middleware = ContentSecurityPolicyMiddleware(lambda request: HttpResponse())
    policy = {"DIRECTIVES": {"default-src": [SELF], "script-src": [SELF, NONCE]}}
    with override_settings(CONTENT_SECURITY_POLICY=policy):
        request = RequestFactory().get("/")
        middleware.process_request(request)
        nonce = str(request.csp_nonce)
        response = middleware.process_response(request, HttpResponse())
        plain = _served(middleware, HttpResponse())

    assert f"'nonce-{nonce}'" in response[HEADER]
    assert "nonce" not in plain[HEADER]  # a response whose page asked for none names none
