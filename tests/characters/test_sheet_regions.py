"""The sheet page's region is drawn once for each way it is shown and kept (``characters.sheets.regions``):
a kept region is byte for byte a fresh one, whatever it shows changes at once, each viewer sees their own,
and the number kept stays bounded. (A form in a kept region: tests/systems/d6/test_sheet_region.py.)"""

from __future__ import annotations

import pytest

from campaigns.models import Campaign
from characters import ledger, sheets
from characters.models import Character

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("viewer", ["gm", "player", "other_player"])
def test_a_kept_region_is_drawn_as_a_fresh_one(sheet_page, client, brunella, grow, viewer, request):
    grow(brunella, 2)
    client.force_login(request.getfixturevalue(viewer))
    fresh = sheet_page(brunella)
    assert len(sheets.regions) == 1
    assert sheet_page(brunella) == fresh
    sheets.regions.clear()
    assert sheet_page(brunella) == fresh
    assert "Trick 1" in fresh


def test_each_viewer_sees_their_own_region(sheet_page, client, brunella, gm, player, other_player):
    shown = {}
    for who in (gm, player, other_player):
        client.force_login(who)
        shown[who.username] = sheet_page(brunella)
    assert len(sheets.regions) == 3
    assert len(set(shown.values())) == 3
    assert 'class="edit-link"' not in shown[other_player.username]
    assert "Archive" in shown[player.username]


def test_whatever_the_region_shows_changes_at_once(sheet_page, client, brunella, gm, player):
    client.force_login(player)
    before = sheet_page(brunella)
    assert "Earned in the crypt" not in before
    # A ledger entry: the balance and the latest entries.
    ledger.award(campaign_id=brunella.campaign_id, awards=[ledger.Award(brunella.pk, 7)], reason="Earned in the crypt",
                 by=gm)  # fmt: skip
    page = sheet_page(brunella)
    assert "Earned in the crypt" in page
    assert '<span id="sheet-ap">7</span>' in page
    # A sheet changed outside the one write path, its version the same.
    Character.objects.filter(pk=brunella.pk).update(sheet={**brunella.sheet, "notes": "Written in a hurry."})
    assert "Written in a hurry." in sheet_page(brunella)
    # The character's name, its campaign's name and its player's name.
    Character.objects.filter(pk=brunella.pk).update(name="Brunella the Bold")
    Campaign.objects.filter(pk=brunella.campaign_id).update(name="The Drowned Crown")
    player.username = "brunella-player"
    player.save()
    page = sheet_page(brunella)
    assert "Brunella the Bold" in page
    assert "The Drowned Crown" in page
    assert "played by brunella-player" in page
    # An archived campaign: read-only, the Edit buttons gone.
    assert 'class="edit-link"' in page
    Campaign.objects.filter(pk=brunella.campaign_id).update(archived_at="2026-01-01T00:00:00Z")
    assert 'class="edit-link"' not in sheet_page(brunella)


def test_the_kept_regions_stay_bounded(sheet_page, client, brunella, gm, monkeypatch):
    monkeypatch.setattr(sheets.regions, "limit", 2)
    client.force_login(gm)
    for n in range(5):
        Character.objects.filter(pk=brunella.pk).update(sheet={**brunella.sheet, "notes": f"Version {n}."})
        assert f"Version {n}." in sheet_page(brunella)
        assert len(sheets.regions) <= 2
    assert len(sheets.regions) == 2
