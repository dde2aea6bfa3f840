"""Pages that answer a :class:`web.heavy.Busy` say so: a 503 with ``Retry-After``, never a 500; and the
Content-Security-Policy header, the same for every response, built once."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from csp.constants import HEADER, HEADER_REPORT_ONLY
from csp.middleware import CheckableLazyObject, CSPMiddleware
from csp.utils import build_policy
from django.conf import settings
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render

from web.heavy import Busy

#: What a view or a template can give one response of its own policy (django-csp's decorators, a nonce).
OWN_POLICY: Final = (
    *("_csp_config", "_csp_update", "_csp_replace"),
    *("_csp_config_ro", "_csp_update_ro", "_csp_replace_ro"),
)
#: Each header, the setting it is built from, and what exempts a response from it.
HEADERS: Final = (
    (HEADER, "CONTENT_SECURITY_POLICY", "_csp_exempt", False),
    (HEADER_REPORT_ONLY, "CONTENT_SECURITY_POLICY_REPORT_ONLY", "_csp_exempt_ro", True),
)


class BusyMiddleware:
    """Every page that works out an exact chance of what a user sent (the calculator, the free dice
    box, a contest) may find the server busy with others' (:mod:`web.heavy`): the page says to try
    again shortly, as the refusal page every view uses, with the status and the wait a client reads."""

    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        return self.get_response(request)

    def process_exception(self, request: HttpRequest, exception: Exception) -> HttpResponse | None:
        if not isinstance(exception, Busy):
            return None
        htmx = getattr(request, "htmx", False)
        template = "campaigns/refused.html#refusal" if htmx else "campaigns/refused.html"
        response = render(request, template, {"message": exception.message}, status=503)
        response["Retry-After"] = str(exception.retry_after)
        return response


class ContentSecurityPolicyMiddleware(CSPMiddleware):
    """django-csp's middleware, whose header is built once for the settings: its own builds it anew for
    every response (a hundred and thirty Python calls to copy its parts into a dict, two hundred more to
    write the same text), a fifth of what the lightest page costs. A response with a policy of its own (a
    decorator's, a nonce a template asked for) is django-csp's to build, as before."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        #: The header built, by the setting's name: the setting's value it was built from, and the text.
        self.built: dict[str, tuple[Any, str]] = {}

    def process_response(self, request: HttpRequest, response: HttpResponseBase) -> HttpResponseBase:
        if getattr(request, "_csp_nonce", None) is not None or any(
            getattr(response, name, None) is not None for name in OWN_POLICY
        ):
            return super().process_response(request, response)
        if response.status_code in (500, 404) and settings.DEBUG:
            return response  # Django's debug pages, as django-csp leaves them
        for header, name, exempt, report_only in HEADERS:
            policy = getattr(settings, name, None)
            built = self.built.get(name)
            if built is None or built[0] is not policy:  # settings changed (a test's): built again for them
                built = self.built[name] = (policy, build_policy(report_only=report_only))
            excluded = tuple((policy or {}).get("EXCLUDE_URL_PREFIXES") or ())
            exempted = getattr(response, exempt, False) or request.path_info.startswith(excluded)
            if built[1] and header not in response and not exempted:
                response[header] = built[1]
        # As django-csp does: past the header, a nonce asked for could no longer be sent.
        request.csp_nonce = CheckableLazyObject(self._csp_nonce_post_response)  # type: ignore[attr-defined]
        return response
