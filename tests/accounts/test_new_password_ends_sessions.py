"""A new password, changed or reset by mail, ends every other session (with its open sockets) and the
account's API tokens, and says so on the page and by mail (accounts.operations.password_changed)."""

from __future__ import annotations

import re

import pytest
from channels.db import database_sync_to_async
from django.conf import settings
from django.contrib.auth.models import User
from django.contrib.sessions.models import Session
from django.core import mail
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains

from accounts.models import UserSession
from api import tokens
from campaigns.models import Campaign, Membership
from config.asgi import application
from play.consumers import LOGGED_OUT
from tests.accounts.helpers import signed_in
from tests.campaigns.helpers import make_character
from tests.play.test_live import WebsocketCommunicator, free_roll, run

NEW_PASSWORD = "a fresh and longer passphrase"
CHANCE = {"ability": "d8", "skill": "d6", "difficulty": "moderate"}


def logged_in(user: User, password: str) -> Client:
    """A browser of its own that logged in through the page, as a person does."""
    client = Client()
    assert client.post(reverse("login"), {"username": user.username, "password": password}).status_code == 302
    return client


def change(client: Client, old: str) -> object:
    data = {"old_password": old, "new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}
    return client.post(reverse("password_change"), data)


def api_status(raw: str) -> int:
    response = Client().post(
        "/api/v1/chance", CHANCE, content_type="application/json", HTTP_AUTHORIZATION=f"Bearer {raw}"
    )
    return response.status_code


@pytest.mark.django_db
def test_a_changed_password_ends_my_other_sessions_and_keeps_this_one(player: User, password: str) -> None:
    here, laptop, phone = logged_in(player, password), logged_in(player, password), logged_in(player, password)
    others = [laptop.session.session_key, phone.session.session_key]

    response = change(here, password)

    assert response.status_code == 302
    assert not Session.objects.filter(session_key__in=others).exists()
    assert not UserSession.objects.filter(session_key__in=others).exists()
    assert signed_in(here)
    assert not signed_in(laptop)
    assert not signed_in(phone)
    assert here.get(reverse("account")).status_code == 200


@pytest.mark.django_db
def test_the_browser_that_changed_it_is_ended_by_the_next_change_elsewhere(player: User, password: str) -> None:
    here = logged_in(player, password)
    change(here, password)  # this browser's session now has a new key
    laptop = logged_in(player, NEW_PASSWORD)

    data = {"old_password": NEW_PASSWORD, "new_password1": "yet another long passphrase"}
    laptop.post(reverse("password_change"), {**data, "new_password2": data["new_password1"]})

    assert signed_in(laptop)
    assert not Session.objects.filter(session_key=here.session.session_key).exists()


@pytest.mark.django_db
def test_without_an_email_address_the_page_promises_no_mail(player: User, password: str) -> None:
    here = logged_in(player, password)

    done = here.get(change(here, password).url)

    assertContains(done, "Your password is changed: 0 other sessions of yours logged out, 0 API tokens revoked.")
    assert mail.outbox == []


@pytest.mark.django_db
def test_a_changed_password_revokes_my_api_tokens(player: User, password: str) -> None:
    here = logged_in(player, password)
    _, raw = tokens.create_token(user=player, name="dice bot")
    assert api_status(raw) == 200

    change(here, password)

    assert api_status(raw) == 401


@pytest.mark.django_db
def test_i_am_told_on_the_page_and_by_mail(player: User, password: str) -> None:
    player.email = "player@example.com"
    player.save()
    here = logged_in(player, password)
    logged_in(player, password)
    tokens.create_token(user=player, name="dice bot")

    done = here.get(change(here, password).url)

    assertContains(done, "Your password is changed: 1 other session of yours logged out, 1 API token revoked")
    assert [m.subject for m in mail.outbox] == ["Your Dicehall password was changed"]
    assert mail.outbox[0].to == ["player@example.com"]
    assert "Every other session of yours is logged out (1)" in mail.outbox[0].body


@pytest.mark.django_db
def test_a_wrong_old_password_ends_nothing(player: User, password: str) -> None:
    here, laptop = logged_in(player, password), logged_in(player, password)
    _, raw = tokens.create_token(user=player, name="dice bot")

    assert change(here, "not my password").status_code == 200

    assert signed_in(laptop)
    assert api_status(raw) == 200
    assert mail.outbox == []


@pytest.mark.django_db
def test_a_password_reset_by_mail_ends_every_session_and_token(player: User, password: str) -> None:
    player.email = "player@example.com"
    player.save()
    laptop = logged_in(player, password)
    _, raw = tokens.create_token(user=player, name="dice bot")
    stranger = Client()
    stranger.post(reverse("password_reset"), {"email": "player@example.com"})
    url = re.search(re.escape(settings.SITE_URL) + r"(/accounts/reset/\S+/)", mail.outbox[0].body).group(1)
    form_url = stranger.get(url).url

    done = stranger.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD}, follow=True)

    assertContains(done, "Your password is set: 1 session of yours logged out, 1 API token revoked")
    assert not signed_in(laptop)
    assert not Session.objects.filter(session_key=laptop.session.session_key).exists()
    assert api_status(raw) == 401
    assert mail.outbox[-1].subject == "Your Dicehall password was changed"


@pytest.mark.django_db(transaction=True)
def test_a_changed_password_closes_the_other_sessions_open_dashboards(
    campaign: Campaign, gm: User, password: str
) -> None:
    """The GM changes their password: the dashboard left open in another browser stops receiving rolls
    at once; the dashboard of the browser they changed it in goes on."""
    here, elsewhere = logged_in(gm, password), logged_in(gm, password)

    def socket(client: Client) -> WebsocketCommunicator:
        cookie = f"sessionid={client.cookies['sessionid'].value}".encode()
        headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie)]
        return WebsocketCommunicator(application, f"/ws/campaigns/{campaign.pk}/", headers=headers)

    async def scenario() -> None:
        mine, left_open = socket(here), socket(elsewhere)
        for page in (mine, left_open):
            connected, _ = await page.connect()
            assert connected
            assert await page.receive_nothing(timeout=0.1)

        await database_sync_to_async(change)(here, password)

        assert await left_open.receive_output(timeout=2) == {"type": "websocket.close", "code": LOGGED_OUT}
        assert await mine.receive_nothing(timeout=0.2)
        await database_sync_to_async(free_roll)(campaign, gm, "d20", secret=True)
        assert await left_open.receive_nothing(timeout=0.3)
        assert (await mine.receive_json_from(timeout=2))["seq"] == 1
        await mine.disconnect()

    run(scenario)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("left", [False, True], ids=["member", "owner-who-left"])
def test_a_changed_password_closes_the_other_sessions_open_sheets(
    campaign: Campaign, player: User, password: str, left: bool
) -> None:
    """Whether they still play in the campaign or left it (an owner still follows their own sheet)."""
    brunella = make_character(campaign, player, "Brunella")
    here, elsewhere = logged_in(player, password), logged_in(player, password)
    if left:
        Membership.objects.filter(user=player).delete()

    async def scenario() -> None:
        cookie = f"sessionid={elsewhere.cookies['sessionid'].value}".encode()
        headers = [(b"origin", b"http://testserver"), (b"host", b"testserver"), (b"cookie", cookie)]
        left_open = WebsocketCommunicator(application, f"/ws/characters/{brunella.pk}/", headers=headers)
        connected, _ = await left_open.connect()
        assert connected
        assert (await left_open.receive_json_from())["type"] == "sheet"

        await database_sync_to_async(change)(here, password)

        assert await left_open.receive_output(timeout=2) == {"type": "websocket.close", "code": LOGGED_OUT}

    run(scenario)


@pytest.mark.django_db
def test_a_password_the_admin_sets_ends_the_account_s_sessions_and_tokens(player: User, password: str) -> None:
    laptop = logged_in(player, password)
    _, raw = tokens.create_token(user=player, name="dice bot")
    admin = Client()
    admin.force_login(User.objects.create_superuser("boss", "boss@example.com", "a long admin passphrase"))

    response = admin.post(
        reverse("admin:auth_user_password_change", args=[player.pk]),
        {"password1": NEW_PASSWORD, "password2": NEW_PASSWORD, "usable_password": "true"},
    )

    assert response.status_code == 302
    assert not signed_in(laptop)
    assert api_status(raw) == 401
    assert signed_in(admin)  # the admin's own session is not the account's
