"""The one page of every sheet move (play/move_views.py): after a move it goes back to the page it was opened
from only when that is a page of this site; the form it carries says so."""

from __future__ import annotations

import pytest
from django.urls import reverse

from tests.characters.test_d6_pages import made

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("back", "to"),
    [
        ("/characters/{pk}/round/", "/characters/{pk}/round/"),
        ("https://evil.example/", "/characters/{pk}/#vitals"),
        ("//evil.example/round/", "/characters/{pk}/#vitals"),
        ("javascript:alert(1)", "/characters/{pk}/#vitals"),
    ],
    ids=["this-site", "elsewhere", "scheme-relative", "script"],
)
def test_a_move_goes_back_only_to_a_page_of_this_site(client, d6_campaign, player, back, to) -> None:
    talia = made(client, d6_campaign, player)
    url = reverse("play:move", args=[talia.pk, "spend-luck"])
    page = client.get(url, {"next": back.format(pk=talia.pk)}).text
    kept = 'name="next"' in page
    assert kept == back.startswith("/characters/")  # only a page of this site is carried on
    response = client.post(url, {"version": "0", "kind": "double", "next": back.format(pk=talia.pk)})
    assert response.status_code == 302
    assert response["Location"] == to.format(pk=talia.pk)
