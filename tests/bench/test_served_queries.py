"""The served bench (``bench.served``) counts each page's queries on a first view on both installations:
what the process kept of a page it drew for one installation (a sheet's region, kept by its content) is not
shown again for the other, so the same page with the same data counts the same queries on both."""

from __future__ import annotations

import contextlib

import pytest
from django.test import Client
from django.urls import reverse

from bench import big, served
from characters import sheets
from tests.characters.conftest import make_character
from tests.characters.test_sheet_queries import SHEET_QUERIES

pytestmark = pytest.mark.django_db


def session_of(user) -> str:
    client = Client()
    client.force_login(user)
    return client.cookies["sessionid"].value


def test_a_page_drawn_for_one_installation_is_counted_afresh_on_the_other(campaign, gm, player, monkeypatch):
    # The test's database stands in for both installations: the same sheet, balances and viewer on each,
    # as the empty installation's measured party stands again in the large one.
    monkeypatch.setattr(big, "connected", lambda name: contextlib.nullcontext())
    brunella = make_character(campaign, player)
    site = served.Site("installation", "", {gm.username: session_of(gm), player.username: session_of(player)}, "")
    sheet = served.Page("sheet", "sheet", "Lucky 13", "GET", reverse("characters:sheet", args=[brunella.pk]),
                        player.username)  # fmt: skip
    dashboard = served.Page("dashboard", "dashboard", "Lucky 13", "GET",
                            reverse("play:dashboard", args=[campaign.pk]), gm.username)  # fmt: skip

    empty = served.count_queries("empty", site, [dashboard, sheet])
    assert len(sheets.regions) == 1  # the sheet's region, kept: a second view would not draw it
    large = served.count_queries("large", site, [dashboard, sheet])

    assert empty == large
    assert empty[sheet.name] == SHEET_QUERIES  # the first view's: the region drawn, its ledger entries read
