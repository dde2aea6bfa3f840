"""The API's rolls endpoints."""

from __future__ import annotations

from ninja import Router

router = Router(tags=["Rolls"])
