"""The API's browsable docs: the OpenAPI schema as a plain page, drawn on the server (no
scripts from elsewhere, as the site's Content Security Policy requires)."""

from __future__ import annotations

import json
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_not_required
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods, require_safe

from api import tokens
from api.api import api
from api.models import ApiToken

METHODS = ("get", "post", "put", "patch", "delete")


def _ref_name(schema: dict[str, Any]) -> str:
    ref = schema.get("$ref", "")
    return ref.rsplit("/", 1)[-1] if ref else ""


def _schema_text(schema: dict[str, Any] | None) -> str:
    if not schema:
        return ""
    return _ref_name(schema) or json.dumps(schema, indent=2)


@login_not_required
@require_safe
def docs(request: HttpRequest) -> HttpResponse:
    schema = api.get_openapi_schema(path_prefix="/api/v1")
    operations = []
    for path, item in schema.get("paths", {}).items():
        for method in METHODS:
            operation = item.get(method)
            if operation is None:
                continue
            body = operation.get("requestBody", {}).get("content", {}).get("application/json", {}).get("schema")
            operations.append(
                {
                    "id": operation.get("operationId", f"{method}-{path}"),
                    "method": method.upper(),
                    "path": path,
                    "summary": operation.get("summary", ""),
                    "description": operation.get("description", ""),
                    "tags": operation.get("tags", []),
                    "parameters": [
                        {
                            "name": p["name"],
                            "in": p["in"],
                            "required": p.get("required", False),
                            "type": _schema_text(p.get("schema")).replace("\n", " "),
                        }
                        for p in operation.get("parameters", [])
                    ],
                    "body": _schema_text(body),
                    "responses": [
                        {
                            "status": status,
                            "schema": _schema_text(
                                response.get("content", {}).get("application/json", {}).get("schema")
                            ),
                        }
                        for status, response in operation.get("responses", {}).items()
                    ],
                }
            )
    components = {
        name: json.dumps(component, indent=2)
        for name, component in schema.get("components", {}).get("schemas", {}).items()
    }
    context = {"info": schema["info"], "operations": operations, "components": components}
    return render(request, "api/docs.html", context)


# --- Personal tokens on the account page ----------------------------------------------------------


@require_http_methods(["GET", "HEAD", "POST"])
def revoke_token(request: HttpRequest, pk: int) -> HttpResponse:
    token = ApiToken.objects.live().filter(user=request.user, pk=pk).first()
    if token is None:
        raise Http404("No such token")
    if request.method == "POST":
        tokens.revoke_token(user=request.user, token_id=token.pk)
        messages.success(request, f"The token “{token.name}” is revoked: it no longer works.")
        return redirect(f"{reverse('account')}#api-tokens")
    return render(request, "api/token_revoke.html", {"token": token})
