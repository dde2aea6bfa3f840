"""Each process keeps the sheets it read (document, options and what the system derives), by their
content: a kept sheet is drawn byte for byte as a fresh one, a changed sheet shows at once, and the
number kept stays bounded."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from characters import sheets
from characters.models import Character

pytestmark = pytest.mark.django_db

#: The masked CSRF token differs on every response, whatever the sheet.
TOKEN = re.compile(r'name="csrfmiddlewaretoken" value="[^"]+"|"X-CSRFToken": "[^"]+"')


def _page(client, character) -> str:
    response = client.get(reverse("characters:sheet", args=[character.pk]))
    assert response.status_code == 200
    return TOKEN.sub("TOKEN", response.text)


@pytest.mark.parametrize("viewer", ["gm", "player"])
def test_a_kept_sheet_is_drawn_as_a_fresh_one(client, brunella, grow, viewer, request):
    grow(brunella, 3)
    client.force_login(request.getfixturevalue(viewer))
    sheets.forget_kept_sheets()
    fresh = _page(client, brunella)
    assert sheets.kept_sheets() == 1
    kept = _page(client, brunella)
    assert sheets.kept_sheets() == 1
    assert kept == fresh
    assert "Trick 2" in fresh


def test_a_changed_sheet_shows_at_once(client, brunella, gm):
    client.force_login(gm)
    assert "Written in a hurry" not in _page(client, brunella)
    # Even a change that leaves the version as it was (outside the one write path) shows.
    changed = {**brunella.sheet, "notes": "Written in a hurry."}
    Character.objects.filter(pk=brunella.pk).update(sheet=changed)
    assert "Written in a hurry." in _page(client, brunella)
    # And so does a change of the campaign's options, which the derived values read.
    brunella.campaign.options = {**brunella.campaign.options, "resting": "quarter_hours"}
    brunella.campaign.save()
    assert "Resting heals 1 hit point per 15 minutes" in _page(client, brunella)


def test_the_kept_sheets_stay_bounded(client, brunella, gm, monkeypatch):
    monkeypatch.setattr(sheets, "KEPT_SHEETS", 2)
    client.force_login(gm)
    for n in range(5):
        Character.objects.filter(pk=brunella.pk).update(sheet={**brunella.sheet, "notes": f"Version {n}."})
        assert f"Version {n}." in _page(client, brunella)
        assert sheets.kept_sheets() <= 2
    assert sheets.kept_sheets() == 2
