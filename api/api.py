"""The JSON API, version 1, under ``/api/v1/``: django-ninja, with the OpenAPI schema generated
from the code at ``/api/v1/openapi.json``.

It adds no game or permission logic of its own: each endpoint parses its body with a schema,
loads objects through the apps' ``access`` modules and changes them through their operations,
exactly as the pages do. Authentication is a personal token (``Authorization: Bearer …``),
rate-limited per person (all their tokens together) and per address (:mod:`web.limits`).
"""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import NinjaAPI
from ninja.security import HttpBearer

from api import errors, tokens
from api.parsing import BoundedWholeNumbersParser
from web import limits


class TokenAuth(HttpBearer):
    """A live personal token; the request then acts as its user, as a page would for a logged-in user."""

    openapi_scheme = "bearer"

    def authenticate(self, request: HttpRequest, token: str) -> Any:
        found = tokens.authenticate(token)
        if found is None:  # guesses at tokens count against their address
            limits.check(request, limits.API)
            return None
        request.user = found.user
        # Per person (whichever of their tokens) and per address; RateLimited is answered as a 429.
        limits.check(request, limits.API)
        return found


api = NinjaAPI(
    title="Dicehall API",
    version="1",
    description="Campaigns, characters, rolls, Adventure Points and encounters of Dicehall. "
    "Authenticate with a personal token from your account page: `Authorization: Bearer <token>`.",
    urls_namespace="api-v1",
    auth=TokenAuth(),
    docs_url=None,  # the docs page is ours (api.views.docs): no scripts from elsewhere
    openapi_url="/openapi.json",
    parser=BoundedWholeNumbersParser(),
)
errors.install(api)

# Each resource's endpoints live in a module of api.routers.
from api.routers import campaigns, chance, characters, encounters, ledger, moves, rolls, systems  # noqa: E402

for module in (campaigns, characters, moves, rolls, ledger, encounters, chance, systems):
    api.add_router("/", module.router)
# A system's own endpoints (``/characters/{id}/<key>/…``), registered by its Django package.
from api import extensions  # noqa: E402

for extension in extensions.registered():
    if extension.router is not None:
        api.add_router("/", extension.router)
