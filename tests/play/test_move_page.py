"""The one page of every sheet move (play/move_views.py): after a move it goes back to the page it was opened
from only when that is a page of this site; the form it carries says so."""

from __future__ import annotations

from typing import Any

import pytest
from django.urls import reverse

from campaigns.errors import Refused
from characters import write
from characters.models import Character, SheetChange
from tests.systems.d6.helpers import made

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


def test_a_move_no_generic_form_can_show_is_made_from_its_own_page(client, d6_campaign, player) -> None:
    """A round's declaration (a list of actions) is made from the round's planner: its generic address is a 404,
    never a 500, and nothing is written."""
    talia = made(client, d6_campaign, player)
    url = reverse("play:move", args=[talia.pk, "declare-round"])
    assert client.get(url).status_code == 404
    assert client.post(url, {"version": "0"}).status_code == 404
    talia.refresh_from_db()
    assert talia.document.round is None


def test_the_gm_grants_one_more_luck_point_and_takes_it_back_from_the_sheet(client, d6_campaign, gm, player) -> None:
    talia = made(client, d6_campaign, player)
    client.post(reverse("play:move", args=[talia.pk, "spend-luck"]), {"version": "0", "kind": "double"})
    client.force_login(gm)
    talia.refresh_from_db()
    judge = reverse("play:move", args=[talia.pk, "judge-luck"])
    assert client.post(judge, {"version": str(talia.version), "spend": "1", "heroism": "dramatic"}).status_code == 302
    for extra in (True, False):  # the sheet's own button, each way
        sheet = client.get(reverse("characters:sheet", args=[talia.pk])).text
        sent = "true" if extra else "false"
        assert f'name="granted" value="{sent}"' in sheet
        talia.refresh_from_db()
        grant = reverse("play:move", args=[talia.pk, "grant-luck"])
        assert client.post(grant, {"version": str(talia.version), "spend": "1", "granted": sent}).status_code == 302
        talia.refresh_from_db()
        assert talia.document.luck_spends[0].extra is extra


def test_a_move_refused_after_it_wrote_keeps_nothing_of_it(client, d6_campaign, player, monkeypatch) -> None:
    """The page makes the move in its own transaction (the character locked and checked once): a move refused
    once it had written its sheet and its history (a rule that holds only after it, say) leaves both as they
    were, and the form says why, from the sheet as it is."""
    talia = made(client, d6_campaign, player)
    before = Character.objects.get(pk=talia.pk)
    history = SheetChange.objects.filter(character=talia).count()
    written = write.write

    def refused_after(*args: Any, **kwargs: Any) -> Character:
        written(*args, **kwargs)
        raise Refused("Refused once written.", errors={"kind": "Refused once written."})

    monkeypatch.setattr(write, "write", refused_after)
    url = reverse("play:move", args=[talia.pk, "spend-luck"])
    response = client.post(url, {"version": str(before.version), "kind": "double"})
    assert response.status_code == 400
    assert "Refused once written." in response.text
    points = before.document.luck_points
    assert f"has <strong>{points}</strong> luck point" in response.text  # the sheet as it is, not as refused
    after = Character.objects.get(pk=talia.pk)
    assert (after.version, after.sheet) == (before.version, before.sheet)
    assert SheetChange.objects.filter(character=talia).count() == history
