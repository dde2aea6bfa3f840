"""Each system speaks its own words: a page of a campaign, a character or a tool of one system
credits that system alone, in the words of its own package, and a page of no system credits none."""

from __future__ import annotations

import pytest
from django.urls import reverse

from rules import systems
from tests.campaigns.helpers import make_character

pytestmark = pytest.mark.django_db

LUCKY13 = "The Lucky 13 Game Engine was originally created by Solarian Games."


def footer(response) -> str:
    return response.text.split('<footer class="site-footer">', 1)[1]


def test_a_lucky13_page_credits_lucky13(client, campaign, gm, player) -> None:
    brunella = make_character(campaign, player, "Brunella")
    client.force_login(gm)
    for address in (
        reverse("campaigns:detail", args=[campaign.pk]),
        reverse("characters:sheet", args=[brunella.pk]),
        reverse("lucky13:calculator"),
    ):
        assert LUCKY13 in footer(client.get(address))


def test_a_d6_page_credits_d6_and_never_lucky13(client, d6_campaign, gm) -> None:
    client.force_login(gm)
    words = footer(client.get(reverse("campaigns:detail", args=[d6_campaign.pk])))
    assert f"Rules: {systems.get('d6').name}. {systems.get('d6').attribution}" in words
    assert "Lucky 13" not in words


def test_a_page_of_no_system_credits_none(client, gm) -> None:
    client.force_login(gm)
    words = footer(client.get(reverse("campaigns:list")))
    assert "Rules:" not in words
    assert "Lucky 13" not in words
    assert "About Dicehall, attribution and licenses" in words
