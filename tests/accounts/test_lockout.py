"""Failed log-ins are limited per account and per address (django-axes, AXES_* settings).

axes keeps its counts in the database, so each test starts from none: pytest-django rolls
the database back after every test.
"""

from __future__ import annotations

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains, assertTemplateUsed
from pytest_django.fixtures import Settings

from tests.accounts.helpers import signed_in

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
HOME = "10.0.0.1"
LIMIT = 5


def log_in(client: Client, username: str, password: str, ip: str = HOME):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip)


def fail(client: Client, username: str, times: int, ip: str = HOME):
    """``times`` failures that each get the form back, not yet the lockout page; the last response."""
    for _ in range(times):
        response = log_in(client, username, "a wrong guess", ip)
        assert response.status_code == 200, "locked out too early"
    return response


def test_the_limit_is_five_failures_in_fifteen_minutes(settings: Settings) -> None:
    assert settings.AXES_FAILURE_LIMIT == LIMIT
    assert settings.AXES_COOLOFF_TIME == 0.25  # hours
    assert settings.AXES_LOCKOUT_PARAMETERS == ["username", "ip_address"]


def test_four_failures_still_get_the_form_back(client: Client, player: User) -> None:
    response = fail(client, "player", LIMIT - 1)

    assertContains(response, "Please enter a correct username and password.")
    assertTemplateUsed(response, "registration/login.html")


def test_the_fifth_failure_locks_the_account_with_a_clear_page(client: Client, player: User) -> None:
    fail(client, "player", LIMIT - 1)

    response = log_in(client, "player", "a wrong guess")

    assert response.status_code == 429
    assertTemplateUsed(response, "accounts/locked_out.html")
    assertContains(response, "<h1>Too many failed log-ins</h1>", status_code=429)
    assertContains(response, "Please wait 15 minutes, then try again.", status_code=429)
    assertContains(response, f'href="{reverse("password_reset")}"', status_code=429)


def test_a_locked_account_refuses_even_the_right_password(client: Client, player: User, password: str) -> None:
    fail(client, "player", LIMIT - 1)
    log_in(client, "player", "a wrong guess")

    response = log_in(client, "player", password)

    assert response.status_code == 429
    assert not signed_in(client)


def test_an_account_is_locked_whichever_addresses_the_guesses_came_from(
    client: Client, player: User, password: str
) -> None:
    for n in range(LIMIT):
        log_in(client, "player", "a wrong guess", ip=f"192.0.2.{n + 1}")

    response = log_in(client, "player", password, ip="198.51.100.7")

    assert response.status_code == 429
    assert not signed_in(client)


def test_other_accounts_at_other_addresses_are_not_affected(
    client: Client, player: User, outsider: User, password: str
) -> None:
    fail(client, "player", LIMIT - 1)
    log_in(client, "player", "a wrong guess")

    response = log_in(client, "outsider", password, ip="198.51.100.7")

    assert response.status_code == 302
    assert signed_in(client)


def test_an_address_is_locked_whichever_accounts_it_guessed_at(
    client: Client, player: User, outsider: User, password: str
) -> None:
    for name in ("gm", "player", "other_player", "someone", "anyone"):
        log_in(client, name, "a wrong guess")

    response = log_in(client, "outsider", password)

    assert response.status_code == 429
    assertContains(response, "Please wait 15 minutes", status_code=429)
    assert not signed_in(client)


def test_a_successful_login_forgets_my_failures(client: Client, player: User, password: str) -> None:
    fail(client, "player", LIMIT - 1)
    assert log_in(client, "player", password).status_code == 302
    client.post(reverse("logout"))

    fail(client, "player", LIMIT - 1)
    response = log_in(client, "player", password)

    assert response.status_code == 302
    assert signed_in(client)


def test_a_success_at_one_account_does_not_forget_guesses_at_another(
    client: Client, player: User, outsider: User, password: str
) -> None:
    """Sign-up is open, so an attacker has an account of their own to log in to between guesses."""
    fail(client, "player", LIMIT - 1)
    assert log_in(client, "outsider", password).status_code == 302
    client.post(reverse("logout"))

    # The account's count survives (seen from a fresh address)...
    response = log_in(client, "player", "a wrong guess", ip="198.51.100.7")
    assert response.status_code == 429
    # ...and so does the address's count (seen with a fresh username).
    assert log_in(client, "someone", "a wrong guess").status_code == 429


def test_the_counts_start_from_none() -> None:
    assert not AccessAttempt.objects.exists()
