"""Small helpers shared by the accounts tests."""

from __future__ import annotations

from django.test import Client
from django.urls import NoReverseMatch, reverse


def landing() -> str:
    """Where a player goes after signing in without a ``next``: my campaigns, or home until that page exists."""
    try:
        return reverse("campaigns:list")
    except NoReverseMatch:
        return "/"


def signed_in(client: Client) -> bool:
    return "_auth_user_id" in client.session
