"""Failed log-ins lock one account from one address, and slow, never lock, everything wider
(accounts.lockout; django-axes with the AXES_* settings).

axes keeps its counts in the database, so each test starts from none: pytest-django rolls
the database back after every test. Failures made long ago are written straight into axes' table.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.core import mail
from django.test import Client, RequestFactory
from django.urls import reverse
from django.utils import timezone
from pytest_django.asserts import assertContains, assertTemplateUsed
from pytest_django.fixtures import Settings

from accounts import lockout
from tests.accounts.helpers import signed_in

pytestmark = pytest.mark.django_db

LOGIN = "/accounts/login/"
HOME = "10.0.0.1"
ELSEWHERE = "198.51.100.7"
LIMIT = 5
NEW_PASSWORD = "a new and rather long passphrase"


def log_in(client: Client, username: str, password: str, ip: str = HOME, **extra: str):
    return client.post(LOGIN, {"username": username, "password": password}, REMOTE_ADDR=ip, **extra)


def fail(client: Client, username: str, times: int, ip: str = HOME):
    """``times`` failures that each get the form back, not yet a 429; the last response."""
    for _ in range(times):
        response = log_in(client, username, "a wrong guess", ip)
        assert response.status_code == 200, "refused too early"
    return response


def failed_before(username: str, ip: str, failures: int, ago: timedelta = timedelta(0)) -> None:
    """``failures`` failures at ``username`` from ``ip``, the last of them ``ago``."""
    attempt = AccessAttempt.objects.create(
        username=username, ip_address=ip, user_agent="", http_accept="", path_info=LOGIN,
        get_data="", post_data="", failures_since_start=failures,
    )  # fmt: skip
    # attempt_time is set on creation, whatever is given.
    AccessAttempt.objects.filter(pk=attempt.pk).update(attempt_time=timezone.now() - ago)


def known_at_home(client: Client, username: str, password: str) -> None:
    """The owner logs in once from HOME (so HOME is known for them), and out again."""
    assert log_in(client, username, password).status_code == 302
    client.post(reverse("logout"))


def test_the_rules_in_settings(settings: Settings) -> None:
    assert settings.AXES_FAILURE_LIMIT == lockout.FAILURE_LIMIT == LIMIT
    assert settings.AXES_COOLOFF_TIME == 0.25  # hours
    assert settings.AXES_LOCKOUT_PARAMETERS == [["username", "ip_address"]]
    assert settings.AXES_RESET_COOL_OFF_ON_FAILURE_DURING_LOCKOUT is False


def test_four_failures_still_get_the_form_back(client: Client, player: User) -> None:
    response = fail(client, "player", LIMIT - 1)

    assertContains(response, "Please enter a correct username and password.")
    assertTemplateUsed(response, "registration/login.html")


def test_the_fifth_failure_locks_the_account_from_that_address_with_a_clear_page(client: Client, player: User) -> None:
    fail(client, "player", LIMIT - 1)

    response = log_in(client, "player", "a wrong guess")

    assert response.status_code == 429
    assert response["Retry-After"] == "900"
    assertTemplateUsed(response, "accounts/locked_out.html")
    assertContains(response, "<h1>Too many failed log-ins</h1>", status_code=429)
    assertContains(response, "Please wait 15 minutes, then try again.", status_code=429)
    assertContains(response, f'href="{reverse("password_reset")}"', status_code=429)


def test_a_locked_pair_refuses_even_the_right_password(client: Client, player: User, password: str) -> None:
    known_at_home(client, "player", password)
    fail(client, "player", LIMIT - 1)
    log_in(client, "player", "a wrong guess")

    response = log_in(client, "player", password)

    assert response.status_code == 429
    assert not signed_in(client)


def test_a_try_while_locked_does_not_start_the_wait_over(client: Client, player: User, password: str) -> None:
    known_at_home(client, "player", password)
    failed_before("player", HOME, LIMIT, ago=timedelta(minutes=10))

    response = log_in(client, "player", "another wrong guess")

    assert response.status_code == 429
    assertContains(response, "Please wait 5 minutes", status_code=429)
    assert 240 < int(response["Retry-After"]) <= 300
    attempt = AccessAttempt.objects.get(username="player", ip_address=HOME)
    assert attempt.failures_since_start == LIMIT  # not counted...
    assert timezone.now() - attempt.attempt_time > timedelta(minutes=9)  # ...and the wait runs on


def test_the_lock_ends_fifteen_minutes_after_the_last_counted_failure(
    client: Client, player: User, password: str
) -> None:
    known_at_home(client, "player", password)
    failed_before("player", HOME, LIMIT, ago=timedelta(minutes=15, seconds=1))

    assert log_in(client, "player", password).status_code == 302


def test_failures_from_elsewhere_never_lock_the_owner_out_at_home(client: Client, player: User, password: str) -> None:
    known_at_home(client, "player", password)
    for n in range(40):
        failed_before("player", f"192.0.2.{n + 1}", LIMIT)

    response = log_in(client, "player", password)

    assert response.status_code == 302
    assert signed_in(client)


def test_failures_from_elsewhere_only_slow_tries_from_an_unknown_address(
    client: Client, player: User, password: str
) -> None:
    for n in range(LIMIT):
        log_in(client, "player", "a wrong guess", ip=f"192.0.2.{n + 1}")

    response = log_in(client, "player", password, ip=ELSEWHERE)

    assert response.status_code == 429
    assert 1 <= int(response["Retry-After"]) <= lockout.FIRST_DELAY.total_seconds()
    assertTemplateUsed(response, "accounts/slowed.html")
    assertContains(response, "This account has had many failed log-ins lately", status_code=429)
    assert not signed_in(client)
    # Slowed, not locked: once the wait is over the right password works from there too.
    AccessAttempt.objects.update(attempt_time=timezone.now() - lockout.FIRST_DELAY)
    assert log_in(client, "player", password, ip=ELSEWHERE).status_code == 302


def test_each_failure_from_elsewhere_doubles_the_wait_up_to_the_longest(client: Client, player: User) -> None:
    failed_before("player", "192.0.2.1", lockout.ACCOUNT_FREE_FAILURES + 3)

    response = log_in(client, "player", "a guess", ip=ELSEWHERE)

    assert response.status_code == 429
    assert int(response["Retry-After"]) == lockout.FIRST_DELAY.total_seconds() * 2**3
    failed_before("player", "192.0.2.2", 100)
    assert int(log_in(client, "player", "a guess", ip=ELSEWHERE)["Retry-After"]) == 900


def test_a_slowed_try_is_not_counted(client: Client, player: User) -> None:
    failed_before("player", "192.0.2.1", lockout.ACCOUNT_FREE_FAILURES)

    log_in(client, "player", "a guess", ip=ELSEWHERE)

    assert not AccessAttempt.objects.filter(ip_address=ELSEWHERE).exists()


def test_an_address_is_slowed_for_accounts_unknown_there_without_locking_them(
    client: Client, player: User, outsider: User, password: str
) -> None:
    """A shared network: someone there guesses at many accounts; the people who log in from there still can."""
    known_at_home(client, "player", password)
    for n in range(lockout.ADDRESS_FREE_FAILURES):
        failed_before(f"someone{n}", HOME, 1)

    stranger = log_in(client, "outsider", password)
    regular = log_in(client, "player", password)

    assert stranger.status_code == 429
    assertContains(stranger, "many failed log-ins from your network", status_code=429)
    assert int(stranger["Retry-After"]) >= 1
    assert regular.status_code == 302


def test_fewer_failures_from_an_address_slow_nobody(
    client: Client, player: User, outsider: User, password: str
) -> None:
    for name in ("gm", "player", "other_player", "someone", "anyone"):
        log_in(client, name, "a wrong guess")

    response = log_in(client, "outsider", password)

    assert response.status_code == 302


def test_other_accounts_at_other_addresses_are_not_affected(
    client: Client, player: User, outsider: User, password: str
) -> None:
    fail(client, "player", LIMIT - 1)
    log_in(client, "player", "a wrong guess")

    response = log_in(client, "outsider", password, ip=ELSEWHERE)

    assert response.status_code == 302
    assert signed_in(client)


def test_a_successful_login_forgets_my_failures_from_here(client: Client, player: User, password: str) -> None:
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

    assert log_in(client, "player", "a wrong guess").status_code == 429


def test_the_forms_of_one_name_count_as_one_account(client: Client, player: User) -> None:
    for name in ("player", "PLAYER", "Player", "plаyer"):  # the last with a Cyrillic а
        log_in(client, name, "a wrong guess")

    response = log_in(client, "ＰＬＡＹＥＲ", "a wrong guess")  # full-width

    assert response.status_code == 429
    assert AccessAttempt.objects.get().username == "player"


def test_a_locked_out_owner_resets_the_password_by_mail_and_logs_in_at_once(
    client: Client, player: User, password: str
) -> None:
    player.email = "player@example.com"
    player.save()
    fail(client, "player", LIMIT - 1)
    log_in(client, "player", "a wrong guess")
    assert log_in(client, "player", password).status_code == 429

    client.post(reverse("password_reset"), {"email": "player@example.com"}, REMOTE_ADDR=HOME)
    link = next(line for line in mail.outbox[0].body.splitlines() if "/reset/" in line).strip()
    form_url = client.get(link).url
    client.post(form_url, {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD})

    assert log_in(client, "player", NEW_PASSWORD).status_code == 302


# --- The client's address ----------------------------------------------------------------------


def address(remote: str, forwarded: str | None = None) -> str | None:
    extra = {"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {}
    return lockout.client_address(RequestFactory().get("/", REMOTE_ADDR=remote, **extra))


def test_without_trusted_proxies_the_address_is_remote_addr(settings: Settings) -> None:
    assert settings.TRUSTED_PROXIES == []
    assert address("203.0.113.9", "192.0.2.1") == "203.0.113.9"


def test_a_forged_header_buys_no_fresh_count(client: Client, player: User) -> None:
    for n in range(LIMIT - 1):
        log_in(client, "player", "a wrong guess", HTTP_X_FORWARDED_FOR=f"192.0.2.{n + 1}")

    response = log_in(client, "player", "a wrong guess", HTTP_X_FORWARDED_FOR="192.0.2.99")

    assert response.status_code == 429


def test_behind_trusted_proxies_the_right_most_untrusted_hop_is_the_client(settings: Settings) -> None:
    settings.TRUSTED_PROXIES = ["10.9.0.0/16", "2001:db8::1"]

    assert address("10.9.0.1", "203.0.113.5") == "203.0.113.5"
    # Whatever the client wrote itself is further left, and is not read.
    assert address("10.9.0.1", "6.6.6.6, 203.0.113.5") == "203.0.113.5"
    assert address("10.9.0.1", "6.6.6.6, 203.0.113.5, 10.9.4.4") == "203.0.113.5"
    assert address("2001:db8::1", "203.0.113.5") == "203.0.113.5"
    # From an address that is no trusted proxy, the header is the client's own say.
    assert address("203.0.113.9", "6.6.6.6") == "203.0.113.9"
    # No header, a header of proxies only, or one a proxy could not have written.
    assert address("10.9.0.1") == "10.9.0.1"
    assert address("10.9.0.1", "10.9.0.7, 10.9.0.8") == "10.9.0.7"
    assert address("10.9.0.1", "6.6.6.6, not-an-address") == "10.9.0.1"


def test_behind_a_trusted_proxy_each_client_is_counted_apart(
    client: Client, settings: Settings, outsider: User, password: str
) -> None:
    """Everyone arrives from the proxy's address: one client's guesses must not slow the others."""
    settings.TRUSTED_PROXIES = ["10.9.0.1"]
    for n in range(lockout.ADDRESS_FREE_FAILURES):
        log_in(client, f"someone{n}", "a wrong guess", ip="10.9.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5")

    guesser = log_in(client, "outsider", password, ip="10.9.0.1", HTTP_X_FORWARDED_FOR="203.0.113.5")
    other = log_in(client, "outsider", password, ip="10.9.0.1", HTTP_X_FORWARDED_FOR="203.0.113.6")

    assert guesser.status_code == 429
    assert other.status_code == 302
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"203.0.113.5"}


def test_a_name_longer_than_any_is_the_forms_error_not_a_crash(client: Client) -> None:
    response = log_in(client, "x" * 10_000, "a guess")

    assertContains(response, "Ensure this value has at most 150 characters")
    assert not AccessAttempt.objects.exists()


def test_the_counts_start_from_none() -> None:
    assert not AccessAttempt.objects.exists()


def test_the_admin_has_no_log_in_of_its_own_to_guess_past_the_limits(client: Client, player: User) -> None:
    shown = client.get("/admin/login/?next=/admin/")
    assert (shown.status_code, shown["Location"]) == (302, "/accounts/login/?next=/admin/")
    guessed = client.post("/admin/login/", {"username": "player", "password": "a wrong guess"}, REMOTE_ADDR=HOME)
    assert guessed.status_code == 302  # sent to the one log-in page: no password was tried
    assert not AccessAttempt.objects.exists()
    assert not signed_in(client)


def test_an_ipv6_client_is_one_address_across_its_network(client: Client, player: User) -> None:
    for host in range(1, LIMIT + 1):  # a new address of one /64 for each guess
        response = log_in(client, "player", "a wrong guess", f"2001:db8:1:2::{host:x}")
    assert response.status_code == 429  # the fifth failure locks the pair, as from one address
    assert set(AccessAttempt.objects.values_list("ip_address", flat=True)) == {"2001:db8:1:2::"}
