"""The sheet page kept whole (``characters.views.sheet``, ``web.whole_pages``): drawn once for what it shows (its
region's key) and the viewer (who is signed in, the browser's CSRF secret), and shown again, with a CSRF token of
its own, while none of it changes; drawn again the moment any of it does. (What the region's key names, and that
each change shows at once: tests/characters/test_sheet_regions.py, which runs on kept pages too.)"""

from __future__ import annotations

from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.contrib.messages import INFO
from django.contrib.messages.storage.cookie import CookieStorage
from django.http import HttpResponse
from django.test import Client, RequestFactory
from django.urls import reverse

from campaigns.models import Campaign
from characters import views
from characters.models import Character
from tests.csrf_tokens import tokens, unmasked, without_tokens
from web.kept import forget_all
from web.whole_pages import StalePage

pytestmark = pytest.mark.django_db


def url(character: Character) -> str:
    return reverse("characters:sheet", args=[character.pk])


def page(client: Client, character: Character) -> str:
    response = client.get(url(character))
    assert response.status_code == 200
    return response.content.decode()


@pytest.fixture
def draws(monkeypatch) -> list[str]:
    """The templates the sheet view draws, one entry each time it draws its page."""
    drawn: list[str] = []
    render = views.render

    def counted(request: Any, template: str, *args: Any, **kwargs: Any) -> HttpResponse:
        drawn.append(template)
        return render(request, template, *args, **kwargs)

    monkeypatch.setattr(views, "render", counted)
    return drawn


@pytest.fixture
def as_served(settings) -> None:
    """Pages shown again as a server shows them, without the suite's check drawing each again."""
    settings.KEPT_CHECKED = False


def signed_in(user: Any, **options: Any) -> Client:
    client = Client(**options)
    client.force_login(user)
    forget_all()
    return client


@pytest.mark.usefixtures("as_served")
def test_the_page_is_shown_again_with_a_token_of_its_own(brunella, player, draws) -> None:
    client = signed_in(player)
    first = page(client, brunella)  # no CSRF secret yet: drawn, with a new one set, and not kept
    assert len(views.pages) == 0
    drawn = page(client, brunella)
    assert len(views.pages) == 1
    again = page(client, brunella)
    assert len(draws) == 2  # the first two drawn, the third shown again
    assert without_tokens(again) == without_tokens(drawn) == without_tokens(first)
    forget_all()
    assert without_tokens(page(client, brunella)) == without_tokens(again)  # as a process that kept nothing
    secret = client.cookies["csrftoken"].value
    # The same headers as a page drawn: its type, what it varies with, the cookie renewed.
    drawn_response, kept_response = client.get(url(brunella)), client.get(url(brunella))
    assert len(draws) == 3
    for header in ("Content-Type", "Vary", "Content-Security-Policy", "X-Frame-Options"):
        assert kept_response[header] == drawn_response[header]
    assert kept_response.cookies["csrftoken"].value == drawn_response.cookies["csrftoken"].value == secret
    # Each response masks the browser's secret anew (BREACH), and each mask is a valid token of it.
    assert len(tokens(drawn)) == len(tokens(again)) == 1  # the header's, for htmx: the player's sheet has no form
    assert tokens(drawn).isdisjoint(tokens(again))
    assert {unmasked(token) for token in tokens(drawn) | tokens(again)} == {secret}


@pytest.mark.usefixtures("as_served")
def test_a_kept_page_takes_a_post_with_its_token(brunella, player, draws) -> None:
    client = signed_in(player, enforce_csrf_checks=True)
    page(client, brunella)
    page(client, brunella)
    kept = page(client, brunella)
    assert len(draws) == 2
    (token,) = tokens(kept)
    assert client.post(reverse("logout"), HTTP_X_CSRFTOKEN="x" * len(token)).status_code == 403
    assert client.post(reverse("logout"), HTTP_X_CSRFTOKEN=token).status_code == 302
    assert client.get(url(brunella)).status_code == 302  # logged out: on to the log-in page


@pytest.mark.usefixtures("as_served")
def test_each_viewer_has_a_page_of_their_own(brunella, gm, player, other_player) -> None:
    forget_all()
    shown = {}
    for who in (gm, player, other_player):
        client = Client()
        client.force_login(who)
        page(client, brunella)
        shown[who.username] = without_tokens(page(client, brunella))
        assert without_tokens(page(client, brunella)) == shown[who.username]
    assert len(views.pages) == 3
    assert len(set(shown.values())) == 3
    assert all(f">{name}<" in text for name, text in shown.items())  # the header names who is signed in


@pytest.mark.usefixtures("as_served")
def test_the_header_names_who_is_signed_in_now(brunella, gm) -> None:
    client = signed_in(gm)
    page(client, brunella)
    assert ">gm<" in page(client, brunella)
    get_user_model().objects.filter(pk=gm.pk).update(username="the-gm")  # the sheet shows the GM nowhere else
    renamed = page(client, brunella)
    assert ">the-gm<" in renamed
    assert ">gm<" not in renamed


@pytest.mark.usefixtures("as_served")
def test_a_browser_with_a_malformed_secret_is_not_kept_a_page(brunella, player, draws) -> None:
    client = signed_in(player)
    for _ in range(3):
        client.cookies["csrftoken"] = "not-a-secret"
        assert "Brunella" in page(client, brunella)  # a new secret made, with its cookie sent
    assert len(draws) == 3
    assert len(views.pages) == 0


@pytest.mark.usefixtures("as_served")
def test_a_message_waiting_is_shown_once_and_never_kept(brunella, player, draws) -> None:
    client = signed_in(player)
    page(client, brunella)
    kept = page(client, brunella)
    request = RequestFactory().get("/")
    storage, response = CookieStorage(request), HttpResponse()
    storage.add(INFO, "Welcome back to the crypt.")
    storage.update(response)
    client.cookies["messages"] = response.cookies["messages"].value
    with_message = page(client, brunella)
    assert "Welcome back to the crypt." in with_message
    assert len(draws) == 3
    after = page(client, brunella)
    assert "Welcome back to the crypt." not in after
    assert without_tokens(after) == without_tokens(kept)
    assert len(draws) == 3  # the kept page again: the one with the message was not kept


def test_the_suites_check_catches_a_key_that_forgets_what_the_page_shows(brunella, player, monkeypatch) -> None:
    region_key = views.region_key

    def forgetful(*args: Any) -> tuple[Any, ...]:
        key = region_key(*args)
        assert key[8] == Campaign.objects.get(pk=brunella.campaign_id).name
        return key[:8] + key[9:]  # the campaign's name forgotten (the region shows it, and the region only)

    monkeypatch.setattr(views, "region_key", forgetful)
    client = signed_in(player)
    page(client, brunella)
    page(client, brunella)
    Campaign.objects.filter(pk=brunella.campaign_id).update(name="The Drowned Crown")
    with pytest.raises(StalePage, match=f"The sheet page of character {brunella.pk}"):
        client.get(url(brunella))


@pytest.mark.usefixtures("as_served")
def test_the_kept_pages_stay_bounded(brunella, gm, player, other_player, monkeypatch) -> None:
    monkeypatch.setattr(views.pages, "limit", 2)
    forget_all()
    for who in (gm, player, other_player):
        client = Client()
        client.force_login(who)
        page(client, brunella)
        page(client, brunella)
        assert len(views.pages) <= 2
    assert len(views.pages) == 2


@pytest.mark.usefixtures("as_served")
def test_a_page_shown_again_decodes_no_sheet(brunella, player, draws, monkeypatch) -> None:
    """The sheet is read as text and decoded only when the page is drawn (``Character.refresh_from_db``)."""
    client = signed_in(player)
    page(client, brunella)
    page(client, brunella)
    decoded: list[Any] = []
    decode = Character.refresh_from_db

    def counted(character: Character, *args: Any, **kwargs: Any) -> None:
        decoded.append(kwargs.get("fields"))
        decode(character, *args, **kwargs)

    monkeypatch.setattr(Character, "refresh_from_db", counted)
    page(client, brunella)
    assert len(draws) == 2
    assert decoded == []
    forget_all()  # a process that kept nothing draws it, and decodes the sheet then
    page(client, brunella)
    assert decoded == [["sheet"]]


def test_a_sheet_read_as_text_is_decoded_when_asked_for_with_no_query(brunella, django_assert_num_queries) -> None:
    from django.db.models import TextField
    from django.db.models.functions import Cast

    from characters.models import SHEET_TEXT

    read = Character.objects.defer("sheet").annotate(**{SHEET_TEXT: Cast("sheet", TextField())}).get(pk=brunella.pk)
    assert "sheet" not in read.__dict__
    with django_assert_num_queries(0):
        sheet = read.sheet
    assert sheet == Character.objects.get(pk=brunella.pk).sheet
    plain = Character.objects.defer("sheet").get(pk=brunella.pk)  # not read as text: Django's own, a query
    with django_assert_num_queries(1):
        assert plain.sheet == read.sheet
