"""``POST /api/v1/chance``: the exact chance of a roll spec, the same specs and results as
``python -m rules chance`` (rules README, "The chance interface")."""

from __future__ import annotations

import json
from typing import Any

from django.http import HttpRequest
from ninja import Body, Router

from api.errors import responses
from campaigns.operations import Refused
from rules.__main__ import chance as chance_of
from rules.systems import SpecError
from web import heavy, limits

router = Router(tags=["Chance"])

EXAMPLE = {"system": "lucky13", "roll": "check", "ability": "d8", "skill": "d6", "difficulty": "moderate"}
SPEC = Body(..., examples=[EXAMPLE])


class InvalidSpec(Refused):
    code = "invalid_spec"


@router.post(
    "/chance",
    response=responses({200: dict[str, Any]}, 400, 413, 503),
    summary="Exact chance of a roll",
    description="The body is one spec of the chance interface, e.g. "
    '`{"system": "lucky13", "roll": "check", "ability": "d8", "skill": "d6", "difficulty": "moderate"}`; '
    'probabilities come back as exact fractions, `"p/q"`. A bad spec is a 400 naming the field. The work is '
    "bounded (every spec's dice and sizes have limits) and done beside the server; when too many chances are "
    "being worked out at once the answer is a 503 `busy` with `Retry-After`.",
)
def chance(request: HttpRequest, spec: dict[str, Any] = SPEC) -> dict[str, Any]:
    limits.check(request, limits.CHANCE)
    # Off the server's own process, and from the cache for a spec asked before: the same spec is
    # the same JSON once its keys are sorted (web/heavy.py).
    canonical = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    try:
        return heavy.compute(chance_of, spec, key=canonical)
    except SpecError as error:
        raise InvalidSpec(f"{error.field}: {error.message}", errors={error.field: error.message}) from None
