"""Log-in, log-out, the ``next`` they honour, and the login-required redirect."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains, assertNotContains

from tests.accounts.helpers import landing, signed_in

LOGIN = "/accounts/login/"

pytestmark = pytest.mark.django_db


def test_the_auth_urls_live_under_accounts() -> None:
    assert reverse("login") == LOGIN
    assert reverse("logout") == "/accounts/logout/"
    assert reverse("account") == "/accounts/"
    assert reverse("password_change") == "/accounts/password_change/"
    assert reverse("password_reset") == "/accounts/password_reset/"
    assert settings.LOGIN_URL == "login"


def test_the_login_page_is_public(client: Client) -> None:
    response = client.get(LOGIN)

    assertContains(response, "<h1>Log in</h1>")
    assertContains(response, '<label for="id_username">Username</label>')
    assertContains(response, '<label for="id_password">Password</label>')
    assertContains(response, f'href="{reverse("password_reset")}"')


def test_logging_in_goes_to_my_campaigns(client: Client, player: User, password: str) -> None:
    response = client.post(LOGIN, {"username": "player", "password": password})

    assert response.status_code == 302
    assert response.url == settings.LOGIN_REDIRECT_URL == "/campaigns/"
    assert signed_in(client)


def test_a_wrong_password_re_renders_the_form_with_a_message(client: Client, player: User) -> None:
    response = client.post(LOGIN, {"username": "player", "password": "not it"})

    assertContains(response, '<div class="errors" role="alert">')
    assertContains(response, "Please enter a correct username and password.")
    assert not signed_in(client)


def test_a_safe_next_is_followed(client: Client, player: User, password: str) -> None:
    response = client.post(LOGIN, {"username": "player", "password": password, "next": "/calculator/?ability=d8"})

    assert response.url == "/calculator/?ability=d8"


def test_next_from_the_query_is_carried_through_the_form(client: Client) -> None:
    response = client.get(LOGIN, {"next": "/calculator/"})

    assertContains(response, '<input type="hidden" name="next" value="/calculator/">')
    assertContains(response, f'href="{reverse("signup")}?next=/calculator/"')


@pytest.mark.parametrize(
    "next_url", ["https://evil.example/", "//evil.example/", "http://testserver.evil.example/", "javascript:alert(1)"]
)
def test_an_unsafe_next_is_ignored(client: Client, player: User, password: str, next_url: str) -> None:
    response = client.post(LOGIN, {"username": "player", "password": password, "next": next_url})

    assert response.status_code == 302
    assert response.url == settings.LOGIN_REDIRECT_URL
    assert signed_in(client)


def test_a_signed_in_player_is_sent_on(client: Client, player: User) -> None:
    client.force_login(player)

    assert client.get(LOGIN, {"next": "/calculator/"}).url == "/calculator/"
    assert client.get(LOGIN, {"next": "https://evil.example/"}).url == landing()
    # Django's own redirect_authenticated_user would raise here; ours just goes on, to my campaigns.
    assert client.get(LOGIN, {"next": LOGIN}).url == landing()
    assert client.get(LOGIN).status_code == 302


@pytest.mark.parametrize("next_url", ["/", "/?from=nav", LOGIN, "/accounts/signup/", "/accounts/logout/"])
def test_a_next_that_goes_nowhere_onward_lands_on_my_campaigns(client: Client, player: User, password: str,
                                                              next_url: str) -> None:  # fmt: skip
    page = client.get(LOGIN, {"next": next_url})
    assertNotContains(page, 'name="next"')  # the form does not carry it on

    response = client.post(LOGIN, {"username": "player", "password": password, "next": next_url})

    assert response.status_code == 302
    assert response.url == landing() == "/campaigns/"
    assert signed_in(client)


def test_log_in_from_the_front_page_lands_on_my_campaigns(client: Client, player: User, password: str) -> None:
    [link] = re.findall(r'<a href="([^"]+)">Log in</a>', client.get("/").content.decode())
    page = client.get(link).content.decode()
    carried = dict(re.findall(r'<input type="hidden" name="(next)" value="([^"]*)">', page))

    response = client.post(LOGIN, {"username": "player", "password": password, **carried})

    assert response.url == "/campaigns/"


def test_log_in_on_the_way_to_a_campaign_lands_on_it(client: Client, player: User, password: str) -> None:
    from campaigns.models import Campaign, Membership

    campaign = Campaign.objects.create(name="The Sunken Crown", system="lucky13")
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    wanted = reverse("campaigns:detail", args=[campaign.pk])
    sent = client.get(wanted)
    assert sent.url == f"{LOGIN}?next={wanted}"

    response = client.post(sent.url, {"username": "player", "password": password, "next": wanted})

    assert response.url == wanted
    assert client.get(response.url).status_code == 200


def test_logging_out_is_a_post(client: Client, player: User) -> None:
    client.force_login(player)

    assert client.get(reverse("logout")).status_code == 405
    assert signed_in(client)

    response = client.post(reverse("logout"))

    assert response.status_code == 302
    assert response.url == settings.LOGOUT_REDIRECT_URL == "/"
    assert not signed_in(client)


def test_an_anonymous_visitor_is_sent_to_log_in_and_back(client: Client) -> None:
    response = client.get("/accounts/")

    assert response.status_code == 302
    assert response.url == "/accounts/login/?next=/accounts/"


def test_the_nav_offers_log_in_and_sign_up_to_visitors(client: Client) -> None:
    page = client.get(reverse("pages:about"))

    assertContains(page, f'<a href="{LOGIN}?next=/about/">Log in</a>')
    assertContains(page, f'<a href="{reverse("signup")}">Sign up</a>')
    assertNotContains(page, "Log out")


def test_the_nav_offers_log_out_to_players(client: Client, player: User) -> None:
    client.force_login(player)

    page = client.get(reverse("pages:about"))

    assertContains(page, f'<form class="nav-form" method="post" action="{reverse("logout")}">')
    hidden = '<span class="visually-hidden">: your account</span>'
    account = f'<a class="who" href="{reverse("account")}">player{hidden}</a>'
    assertContains(page, account, html=True)
    assertNotContains(page, ">Sign up</a>")
