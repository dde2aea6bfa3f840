"""A new email address needs the current password and a link mailed to it; the old address is told."""

from __future__ import annotations

import re
import time

import pytest
from django.conf import settings
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains

from accounts import operations

pytestmark = pytest.mark.django_db

OLD = "player@example.com"
NEW = "player@new.example"


@pytest.fixture
def me(client: Client, player: User) -> User:
    player.email = OLD
    player.save()
    client.force_login(player)
    return player


def ask(client: Client, email: str, password: str):
    return client.post(reverse("account"), {"email": email, "current_password": password})


def link_in(message: mail.EmailMessage) -> str:
    match = re.search(re.escape(settings.SITE_URL) + r"(/accounts/email/\S+/)", message.body)
    assert match, message.body
    return match.group(1)


def test_a_new_address_needs_my_current_password(client: Client, me: User) -> None:
    response = ask(client, NEW, "not my password")

    assertContains(response, "That is not your current password.", status_code=400)
    me.refresh_from_db()
    assert me.email == OLD
    assert mail.outbox == []


def test_the_address_changes_only_when_the_mailed_link_is_followed(client: Client, me: User, password: str) -> None:
    response = ask(client, NEW, password)

    assert response.status_code == 302
    assertContains(client.get(response.url), f"We sent a link to {NEW}: your address changes when you follow it.")
    me.refresh_from_db()
    assert me.email == OLD  # not yet
    [message] = mail.outbox
    assert message.to == [NEW]
    assert message.subject == "Confirm your new Dicehall email address"

    page = client.get(link_in(message))  # mail scanners follow links: a GET changes nothing
    assertContains(page, f"Use <strong>{NEW}</strong> as your email address from now on?")
    me.refresh_from_db()
    assert me.email == OLD

    done = client.post(link_in(message))

    assert done.url == reverse("account")
    me.refresh_from_db()
    assert me.email == NEW
    assert mail.outbox[-1].to == [OLD]
    assert mail.outbox[-1].subject == "Your Dicehall email address was changed"
    assert f"now {NEW}" in mail.outbox[-1].body


def test_a_link_works_once(client: Client, me: User, password: str) -> None:
    ask(client, NEW, password)
    link = link_in(mail.outbox[0])
    client.post(link)

    again = client.post(link)

    assertContains(again, "Your email address has changed since this link was sent", status_code=400)


def test_an_expired_link_changes_nothing(client: Client, me: User, password: str, monkeypatch) -> None:
    ask(client, NEW, password)
    later = time.time() + operations.EMAIL_LINK_LIFETIME.total_seconds() + 1
    monkeypatch.setattr("django.core.signing.time.time", lambda: later)

    response = client.post(link_in(mail.outbox[0]))

    assertContains(response, "This link has expired", status_code=400)
    me.refresh_from_db()
    assert me.email == OLD


def test_a_tampered_link_changes_nothing(client: Client, me: User) -> None:
    token = operations.email_change_token(user=me, new_email=NEW)

    response = client.post(reverse("email-confirm", args=[token.replace(NEW.split("@")[0][:2], "xx", 1) + "x"]))

    assertContains(response, "This link is not valid", status_code=400)
    me.refresh_from_db()
    assert me.email == OLD


def test_another_accounts_link_changes_nothing(client: Client, me: User, outsider: User) -> None:
    token = operations.email_change_token(user=outsider, new_email=NEW)

    response = client.post(reverse("email-confirm", args=[token]))

    assertContains(response, "This link is for another account", status_code=400)
    outsider.refresh_from_db()
    assert outsider.email == ""


def test_removing_the_address_needs_the_password_and_tells_the_old_one(client: Client, me: User, password: str) -> None:
    assert ask(client, "", "wrong").status_code == 400

    assert ask(client, "", password).status_code == 302

    me.refresh_from_db()
    assert me.email == ""
    [message] = mail.outbox
    assert message.to == [OLD]
    assert "is removed" in message.body


def test_the_same_address_again_changes_and_mails_nothing(client: Client, me: User, password: str) -> None:
    response = ask(client, OLD, password)

    assertContains(client.get(response.url), "Your email address is as it was.")
    assert mail.outbox == []
