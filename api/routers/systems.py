"""``GET /api/v1/systems``: the rules systems this server plays, each with its roll kinds,
currencies, and the JSON Schemas of its sheet document and campaign options."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest
from ninja import Router, Schema

from api.errors import responses
from rules import systems

router = Router(tags=["Systems"])


class RollKindOut(Schema):
    key: str
    label: str


class CurrencyOut(Schema):
    key: str
    name: str
    abbreviation: str


class SystemOut(Schema):
    key: str
    name: str
    roll_kinds: list[RollKindOut]
    currencies: list[CurrencyOut]
    sheet_version: int
    sheet_schema: dict[str, Any]
    options_schema: dict[str, Any]


@router.get(
    "/systems",
    response=responses({200: list[SystemOut]}),
    summary="The rules systems",
    description="Every rules system a campaign can play: its key (a campaign's `system`), name, roll kinds, "
    "currencies, and the JSON Schemas of a character's `sheet` and of a campaign's `options`.",
)
def system_list(request: HttpRequest) -> list[dict[str, Any]]:
    return systems.describe_all()
