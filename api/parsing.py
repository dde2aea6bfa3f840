"""How the API reads a JSON body.

JSON has one kind of number: ``3``, ``3.0`` and ``3e0`` are the same integer to JSON Schema, so the
schema's ``"type": "integer"`` allows each of them. The API's integer fields are strict (a string or a
boolean is not a number), so a whole number written with a fraction or an exponent is read as the
integer it is, here, before any field sees it; any other fraction stays a float and is refused where an
integer is wanted. And its nesting is bounded (:mod:`web.bounded_json`): too deep is a 400 ``too_deep``
before the parser recurses, never a ``RecursionError``."""

from __future__ import annotations

import math
from typing import Any

from django.http import HttpRequest
from ninja.parser import Parser

from web import bounded_json


def _number(text: str) -> int | float:
    value = float(text)
    return int(value) if math.isfinite(value) and value.is_integer() else value


def loads(body: bytes | str) -> Any:
    """``body`` as JSON nested at most :data:`~web.bounded_json.MAX_DEPTH` deep (deeper is
    :class:`~web.bounded_json.TooDeep`), each whole number an ``int`` however it was written."""
    return bounded_json.loads(body, parse_float=_number)


class BoundedWholeNumbersParser(Parser):
    """Ninja's parser with :func:`loads` for JSON bodies."""

    def parse_body(self, request: HttpRequest) -> Any:
        return loads(request.body)
