"""Campaign options as the campaign page shows them (labels, not keys), and how long ago something was."""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from django.utils import timezone
from django.utils.timesince import timesince

from rules import systems


def options_summary(system: str, options: dict[str, Any]) -> list[dict[str, Any]]:
    """Each option of the campaign's rules system as ``{"label", "value"}`` (a list value, such as
    the skills, comes as ``list``), as the system says them."""
    return systems.get(system).options_summary(options)


def ago(moment: datetime, now: datetime | None = None) -> str:
    """ "just now", or "3 hours ago": how long since ``moment``, as the campaign list says it."""
    now = now or timezone.now()
    if now - moment < timedelta(minutes=1):
        return "just now"
    return f"{timesince(moment, now)} ago"
