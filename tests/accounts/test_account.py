"""The account page: who I am, my email address, the way to a new password."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains

pytestmark = pytest.mark.django_db


def test_the_account_page_shows_my_username_and_links_to_a_new_password(client: Client, player: User) -> None:
    client.force_login(player)

    response = client.get(reverse("account"))

    assertContains(response, "<dt>Username</dt><dd>player</dd>", html=False)
    assertContains(response, f'<a href="{reverse("password_change")}">Change your password</a>')
    assertContains(response, '<label for="id_email">Email address <span class="optional">(optional)</span></label>')


def test_a_bad_email_address_is_refused_and_the_old_one_kept(client: Client, player: User, password: str) -> None:
    player.email = "player@example.com"
    player.save()
    client.force_login(player)

    response = client.post(reverse("account"), {"email": "not an address", "current_password": password})

    assertContains(response, "Enter a valid email address.", status_code=400)
    assertContains(response, 'aria-describedby="id_email_helptext id_email_error"', status_code=400)
    player.refresh_from_db()
    assert player.email == "player@example.com"


def test_the_username_cannot_be_changed_here(client: Client, player: User, password: str) -> None:
    client.force_login(player)

    client.post(reverse("account"), {"email": "", "username": "someone_else", "current_password": password})

    player.refresh_from_db()
    assert player.username == "player"


def test_each_player_sees_only_their_own_account(client: Client, player: User, outsider: User) -> None:
    outsider.email = "outsider@example.com"
    outsider.save()
    client.force_login(player)

    response = client.get(reverse("account"))

    assert "outsider" not in response.content.decode()
