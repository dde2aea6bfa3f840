"""What every system's demo campaign is made with (``games/<key>/demo.py``, run by ``manage.py demo``):
its users, with the demo password, and its campaign with the GM and the players, each made once."""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model

from campaigns.models import Campaign, Membership


def user(username: str) -> Any:
    """The demo user ``username``; one made now gets the demo password, an existing one keeps theirs."""
    found, created = get_user_model().objects.get_or_create(username=username)
    if created:
        found.set_password(settings.DEMO_PASSWORD)
        found.save()
    return found


def campaign(name: str, gm: Any, *, system: str, options: dict[str, Any], description: str) -> Campaign:
    """The demo campaign ``name`` that ``gm`` runs: the one already there, or a new one."""
    found = Campaign.objects.filter(name=name, memberships__user=gm).first()
    if found is None:
        found = Campaign.objects.create(name=name, description=description, system=system, options=options)
        Membership.objects.create(campaign=found, user=gm, role=Membership.Role.GM)
    return found


def join(campaign: Campaign, player: Any) -> None:
    """``player`` plays in ``campaign`` (once)."""
    Membership.objects.get_or_create(campaign=campaign, user=player, defaults={"role": Membership.Role.PLAYER})
