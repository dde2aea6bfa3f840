"""Pages that answer a :class:`web.heavy.Busy` say so: a 503 with ``Retry-After``, never a 500."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from web.heavy import Busy


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
