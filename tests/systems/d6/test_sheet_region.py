"""A form in a kept region of the sheet page (``characters.sheets.regions``) carries the CSRF token of
the page that shows it: the d6 sheet's GM judges each luck point spent in a form."""

from __future__ import annotations

import re

import pytest
from django.test import Client
from django.urls import reverse

from characters import sheets
from characters.templatetags.sheet_regions import CSRF_PLACE
from tests.systems.d6.helpers import judge_url, made, spend_url

pytestmark = pytest.mark.django_db


def test_a_form_in_a_kept_region_carries_the_pages_own_token(client, d6_campaign, gm, player) -> None:
    talia = made(client, d6_campaign, player)
    spent = client.post(spend_url(talia), {"version": "0", "kind": "escape", "explanation": "Off the roof."})
    assert spent.status_code == 302
    talia.refresh_from_db()
    pages = []
    for _ in range(2):  # two sessions of the GM, each with its own CSRF secret: the region drawn, then kept
        session = Client(enforce_csrf_checks=True)
        session.force_login(gm)
        page = session.get(reverse("characters:sheet", args=[talia.pk]))
        assert page.status_code == 200
        assert CSRF_PLACE not in page.text
        pages.append((session, re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', page.text)))
    assert len(sheets.regions) == 1
    session, tokens = pages[1]
    assert len(tokens) == 2  # the log-out form's and the judging form's
    judged = session.post(judge_url(talia), {"csrfmiddlewaretoken": tokens[1], "version": str(talia.version),
                                             "spend": "1", "heroism": "heroic"})  # fmt: skip
    assert judged.status_code == 302
    talia.refresh_from_db()
    assert [(s.id, s.heroism) for s in talia.document.luck_spends] == [(1, "heroic")]
