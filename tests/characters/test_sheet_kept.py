"""Each process keeps the sheets it read (document, options and what the system derives), by their
content: a kept sheet is drawn byte for byte as a fresh one, a changed sheet shows at once, and the
number kept stays bounded."""

from __future__ import annotations

import hashlib

import pytest
from django.db.models import TextField
from django.db.models.functions import Cast

from characters import sheets
from characters.models import Character

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("viewer", ["gm", "player"])
def test_a_kept_sheet_is_drawn_as_a_fresh_one(sheet_page, client, brunella, grow, viewer, request):
    grow(brunella, 3)
    client.force_login(request.getfixturevalue(viewer))
    sheets.reads.clear()
    fresh = sheet_page(brunella)
    assert len(sheets.reads) == 1
    kept = sheet_page(brunella)
    assert len(sheets.reads) == 1
    assert kept == fresh
    assert "Trick 2" in fresh


def test_a_changed_sheet_shows_at_once(sheet_page, client, brunella, gm):
    client.force_login(gm)
    assert "Written in a hurry" not in sheet_page(brunella)
    # Even a change that leaves the version as it was (outside the one write path) shows.
    changed = {**brunella.sheet, "notes": "Written in a hurry."}
    Character.objects.filter(pk=brunella.pk).update(sheet=changed)
    assert "Written in a hurry." in sheet_page(brunella)
    # And so does a change of the campaign's options, which the derived values read.
    brunella.campaign.options = {**brunella.campaign.options, "resting": "quarter_hours"}
    brunella.campaign.save()
    assert "Resting heals 1 hit point per 15 minutes" in sheet_page(brunella)


def test_the_kept_sheets_stay_bounded(sheet_page, client, brunella, gm, monkeypatch):
    monkeypatch.setattr(sheets.reads, "limit", 2)
    client.force_login(gm)
    for n in range(5):
        Character.objects.filter(pk=brunella.pk).update(sheet={**brunella.sheet, "notes": f"Version {n}."})
        assert f"Version {n}." in sheet_page(brunella)
        assert len(sheets.reads) <= 2
    assert len(sheets.reads) == 2


def test_the_sheet_page_finds_a_kept_sheet_by_the_digest_of_its_stored_content(sheet_page, client, brunella, gm):
    """The page's one query reads the SHA-256 of the sheet and the campaign's options as the database stores them
    (``sheets.with_content_key``): the kept sheet is found by it, not by the sheet written out again."""
    client.force_login(gm)
    sheets.reads.clear()
    sheet_page(brunella)
    texts = Character.objects.filter(pk=brunella.pk).values_list(
        Cast("sheet", TextField()), Cast("campaign__options", TextField())
    )
    ((sheet, options),) = texts
    digest = hashlib.sha256(f"{sheet}\x1e{options}".encode()).hexdigest()
    assert list(sheets.reads._values) == [f"{brunella.system}:{brunella.campaign.system}:{digest}"]
