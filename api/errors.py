"""Every error the API returns is JSON: a machine-readable ``code`` and a ``message`` for people,
with ``errors`` (by field) where a request had several problems. Nothing is changed by a
request that gets one."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from django.core.exceptions import PermissionDenied, RequestDataTooBig
from django.http import Http404, HttpRequest, HttpResponse
from ninja import NinjaAPI, Schema
from ninja.errors import AuthenticationError, HttpError, ValidationError

from campaigns.operations import Conflict, Gone, NotAllowed, NotFound, Refused
from web import heavy, outage
from web.bounded_json import TooDeep
from web.limits import RateLimited


class Error(Schema):
    code: str
    message: str
    errors: dict[str, str] | None = None


class InvalidDocument(Refused):
    code = "invalid_document"


class InvalidChange(Refused):
    code = "invalid"


def refused_by_field(kind: type[Refused], errors: dict[str, list[str]]) -> Refused:
    """Every problem by its field of the document; nothing was saved."""
    joined = {field: " ".join(messages) for field, messages in errors.items()}
    (field, first), more = next(iter(joined.items())), len(joined) - 1
    also = f" (and {more} more problem{'s' if more > 1 else ''}, listed in errors)" if more else ""
    return kind(f"Nothing was saved: {field}: {first}{also}", errors=joined)


#: For a refusal that a version was stale, what is current (the body's ``now``), by the refusal's class: every
#: 409 ``stale_version`` of the API says the same three things, ``code``, ``message`` and ``now``.
NOW: Final[dict[type[Refused], Callable[[Any], Any]]] = {}


def explain_now(kind: type[Refused], render: Callable[[Any], Any]) -> None:
    """Give every ``kind`` refusal the API answers the state it is stale against, as ``now``."""
    NOW[kind] = render


#: Statuses any authenticated endpoint may answer with, besides its own.
COMMON: Final = (401, 422, 429)


def responses(ok: dict[int, Any], *statuses: int) -> dict[int, Any]:
    """An endpoint's documented responses: its successes, the errors it can give, and the common ones."""
    return {**ok, **dict.fromkeys(sorted({*statuses, *COMMON}), Error)}


def _field_path(loc: tuple[Any, ...]) -> tuple[Any, ...]:
    """Where a problem is, as the client wrote it: ``("body", "changes", "notes")`` is ``notes``
    (the body's parameter name is ours, not the client's); a query parameter is its name."""
    if loc[:1] == ("body",):
        return loc[2:] or ("body",)
    if loc[:1] in (("query",), ("path",)):
        return loc[1:] or loc
    return loc


def _code(refused: Refused) -> str:
    explicit = getattr(refused, "code", None)
    if explicit:
        return explicit
    for kind, code in ((NotAllowed, "forbidden"), (NotFound, "not_found"), (Conflict, "conflict"), (Gone, "gone")):
        if isinstance(refused, kind):
            return code
    return "invalid"


def _error(api: NinjaAPI, request: HttpRequest, status: int, code: str, message: str, **extra: Any) -> HttpResponse:
    body = {"code": code, "message": message, **{k: v for k, v in extra.items() if v}}
    return api.create_response(request, body, status=status)


def install(api: NinjaAPI) -> None:
    @api.exception_handler(Refused)
    def refused(request: HttpRequest, exc: Refused) -> HttpResponse:
        now = next((render(exc) for kind, render in NOW.items() if isinstance(exc, kind)), None)
        return _error(api, request, exc.status, _code(exc), exc.message, errors=exc.errors or None, now=now)

    @api.exception_handler(Http404)
    def not_found(request: HttpRequest, exc: Http404) -> HttpResponse:
        return _error(api, request, 404, "not_found", str(exc) or "Not found.")

    @api.exception_handler(PermissionDenied)
    def forbidden(request: HttpRequest, exc: PermissionDenied) -> HttpResponse:
        return _error(api, request, 403, "forbidden", str(exc) or "You may not do that.")

    @api.exception_handler(AuthenticationError)
    def unauthorized(request: HttpRequest, exc: AuthenticationError) -> HttpResponse:
        response = _error(
            api, request, 401, "unauthorized", "Send a live personal API token: Authorization: Bearer <token>."
        )
        response["WWW-Authenticate"] = "Bearer"
        return response

    @api.exception_handler(RateLimited)
    def rate_limited(request: HttpRequest, exc: RateLimited) -> HttpResponse:
        response = _error(api, request, 429, "rate_limited", exc.message)
        response["Retry-After"] = str(exc.retry_after)
        return response

    @api.exception_handler(heavy.Busy)
    def busy(request: HttpRequest, exc: heavy.Busy) -> HttpResponse:
        response = _error(api, request, 503, "busy", exc.message)
        response["Retry-After"] = str(exc.retry_after)
        return response

    @api.exception_handler(ValidationError)
    def invalid(request: HttpRequest, exc: ValidationError) -> HttpResponse:
        errors = {}
        for error in exc.errors:
            where = ".".join(str(part) for part in _field_path(tuple(error.get("loc", ()))))
            errors.setdefault(where or "request", error.get("msg", "invalid"))
        first = next(iter(errors.items()), ("request", "invalid"))
        return _error(api, request, 422, "invalid_request", f"{first[0]}: {first[1]}", errors=errors)

    @api.exception_handler(RequestDataTooBig)
    def too_big(request: HttpRequest, exc: RequestDataTooBig) -> HttpResponse:
        return _error(api, request, 413, "too_large", "The request body is too large.")

    # django-ninja answers any other error itself (a plain-text traceback under DEBUG): the database
    # out of reach is the same 503 as everywhere.
    for kind in outage.OUTAGE:
        api.add_exception_handler(kind, lambda request, exc: outage.DatabaseOutageMiddleware.outage(request, exc))

    @api.exception_handler(TooDeep)
    def too_deep(request: HttpRequest, exc: TooDeep) -> HttpResponse:
        return _error(api, request, 400, "too_deep", str(exc))

    @api.exception_handler(HttpError)
    def http_error(request: HttpRequest, exc: HttpError) -> HttpResponse:
        # A schema's body that could not be read: django-ninja says only that, so say why when it is known.
        if isinstance(exc.__cause__, TooDeep):
            return too_deep(request, exc.__cause__)
        return _error(api, request, exc.status_code, "bad_request", str(exc))
