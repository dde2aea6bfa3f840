"""Changing a password, and resetting a forgotten one by email from start to finish."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client, override_settings
from django.urls import reverse
from pytest_django.asserts import assertContains

from tests.accounts.helpers import signed_in

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a fresh and longer passphrase"


def change(client: Client, old: str, new1: str = NEW_PASSWORD, new2: str = NEW_PASSWORD):
    data = {"old_password": old, "new_password1": new1, "new_password2": new2}
    return client.post(reverse("password_change"), data)


def test_changing_my_password_keeps_me_logged_in(client: Client, player: User, password: str) -> None:
    client.force_login(player)

    response = change(client, password)

    assert response.status_code == 302
    assert response.url == reverse("password_change_done")
    assertContains(client.get(response.url), "Your new password is set.")
    assert signed_in(client)
    player.refresh_from_db()
    assert player.check_password(NEW_PASSWORD)


def test_the_old_password_must_be_right(client: Client, player: User, password: str) -> None:
    client.force_login(player)

    response = change(client, "not my password")

    assertContains(response, "Your old password was entered incorrectly.")
    player.refresh_from_db()
    assert player.check_password(password)


def test_the_new_password_must_pass_the_validators(client: Client, player: User, password: str) -> None:
    client.force_login(player)

    response = change(client, password, "12345678", "12345678")

    assertContains(response, "This password is too common.")
    player.refresh_from_db()
    assert player.check_password(password)


def test_changing_a_password_needs_a_login(client: Client) -> None:
    response = client.get(reverse("password_change"))

    assert response.url == f"{reverse('login')}?next={reverse('password_change')}"


def reset_link(message: mail.EmailMessage) -> str:
    match = re.search(re.escape(settings.SITE_URL) + r"(/accounts/reset/[^/\s]+/[^/\s]+/)", message.body)
    assert match, message.body
    return match.group(1)


def test_a_forgotten_password_is_reset_through_the_emailed_link(client: Client, player: User) -> None:
    player.email = "player@example.com"
    player.save()

    page = client.get(reverse("password_reset"))
    assertContains(page, '<label for="id_email">Email</label>')
    response = client.post(reverse("password_reset"), {"email": "Player@Example.com"})

    assert response.url == reverse("password_reset_done")
    assert len(mail.outbox) == 1
    message = mail.outbox[0]
    assert message.to == ["player@example.com"]
    assert message.subject == "Reset your Dicehall password"
    assert "Hello player," in message.body

    # The emailed link swaps the token into the session and redirects to the form.
    link = client.get(reset_link(message))
    assert link.status_code == 302
    form_url = link.url
    assertContains(client.get(form_url), "<h1>Choose a new password</h1>")

    done = client.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert done.url == reverse("password_reset_complete")
    assertContains(client.get(done.url), "Your new password is set.")
    login = client.post(reverse("login"), {"username": "player", "password": NEW_PASSWORD})
    assert login.status_code == 302
    assert signed_in(client)


def test_a_reset_link_works_only_once(client: Client, player: User) -> None:
    player.email = "player@example.com"
    player.save()
    client.post(reverse("password_reset"), {"email": "player@example.com"})
    url = reset_link(mail.outbox[0])
    form_url = client.get(url).url
    client.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    again = client.get(url, follow=True)

    assertContains(again, "<h1>This link does not work</h1>")
    assertContains(again, f'href="{reverse("password_reset")}"')


def test_an_unknown_address_gets_the_same_answer_and_no_mail(client: Client, player: User) -> None:
    response = client.post(reverse("password_reset"), {"email": "nobody@example.com"})

    assert response.url == reverse("password_reset_done")
    assert mail.outbox == []
    assertContains(client.get(response.url), "If an account has that email address")


def test_the_reset_pages_are_public(client: Client) -> None:
    for name in ("password_reset", "password_reset_done", "password_reset_complete"):
        assert client.get(reverse(name)).status_code == 200, name
    bad = client.get(reverse("password_reset_confirm", kwargs={"uidb64": "MQ", "token": "bad-token"}))
    assertContains(bad, "<h1>This link does not work</h1>")


@override_settings(ALLOWED_HOSTS=["testserver", "evil.example"], SITE_URL="https://dicehall.example.com")
def test_a_reset_link_is_on_the_site_s_own_address_whatever_host_the_request_named(
    client: Client, player: User
) -> None:
    player.email = "player@example.com"
    player.save()

    client.post(reverse("password_reset"), {"email": "player@example.com"}, HTTP_HOST="evil.example")

    body = mail.outbox[0].body
    assert "https://dicehall.example.com/accounts/reset/" in body
    assert "evil.example" not in body
