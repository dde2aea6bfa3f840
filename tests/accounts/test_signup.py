"""Sign-up: a new account logs straight in; bad input re-renders the form with a 400 and creates nothing."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains

from tests.accounts.helpers import landing

SIGNUP = "/accounts/signup/"


def signup_data(**overrides: str) -> dict[str, str]:
    data = {
        "username": "newcomer",
        "email": "",
        "password1": "a long and unguessable phrase",
        "password2": "a long and unguessable phrase",
    }
    data.update(overrides)
    return data


def signed_in_as(client: Client) -> str | None:
    response = client.get(reverse("account"))
    return response.context["user"].get_username() if response.status_code == 200 else None


def test_the_signup_url_is_public_and_named(client: Client) -> None:
    assert reverse("signup") == SIGNUP

    response = client.get(SIGNUP)

    assertContains(response, "<h1>Sign up</h1>")
    assertContains(response, '<label for="id_email">Email address <span class="optional">(optional)</span></label>')
    assertContains(response, 'autocomplete="new-password"')


@pytest.mark.django_db
def test_signing_up_logs_the_new_player_in(client: Client) -> None:
    response = client.post(SIGNUP, signup_data())

    assert response.status_code == 302
    user = User.objects.get(username="newcomer")
    assert user.email == ""
    assert user.check_password("a long and unguessable phrase")
    assert signed_in_as(client) == "newcomer"


@pytest.mark.django_db
def test_without_next_the_new_player_lands_on_their_campaigns(client: Client) -> None:
    response = client.post(SIGNUP, signup_data())

    assert response.url == landing()


@pytest.mark.django_db
def test_the_email_address_is_kept(client: Client) -> None:
    client.post(SIGNUP, signup_data(email="newcomer@example.com"))

    assert User.objects.get(username="newcomer").email == "newcomer@example.com"


@pytest.mark.django_db
def test_a_safe_next_is_followed(client: Client) -> None:
    response = client.post(SIGNUP, signup_data(next="/calculator/?ability=d8"))

    assert response.status_code == 302
    assert response.url == "/calculator/?ability=d8"


@pytest.mark.django_db
def test_next_is_carried_through_the_form(client: Client) -> None:
    response = client.get(SIGNUP, {"next": "/calculator/"})

    assertContains(response, '<input type="hidden" name="next" value="/calculator/">')


@pytest.mark.django_db
@pytest.mark.parametrize("next_url", ["https://evil.example/", "//evil.example/", "javascript:alert(1)"])
def test_an_unsafe_next_is_ignored(client: Client, next_url: str) -> None:
    response = client.post(SIGNUP, signup_data(next=next_url))

    assert response.status_code == 302
    assert response.url == landing()
    assert User.objects.filter(username="newcomer").exists()


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("overrides", "field", "message"),
    [
        ({"password2": "a different phrase entirely"}, "password2", "The two password fields didn’t match."),
        ({"password1": "password", "password2": "password"}, "password2", "This password is too common."),
        ({"password1": "83920571", "password2": "83920571"}, "password2", "This password is entirely numeric."),
        ({"password1": "d8x!", "password2": "d8x!"}, "password2", "This password is too short."),
        (
            {"username": "brunella", "password1": "brunella1", "password2": "brunella1"},
            "password2",
            "The password is too similar to the username.",
        ),
        ({"email": "not an address"}, "email", "Enter a valid email address."),
        ({"username": "no spaces allowed"}, "username", "Enter a valid username."),
    ],
    ids=["mismatch", "common", "numeric", "short", "like-username", "bad-email", "bad-username"],
)
def test_bad_input_is_refused_and_creates_nothing(
    client: Client, overrides: dict[str, str], field: str, message: str
) -> None:
    response = client.post(SIGNUP, signup_data(**overrides))

    assert response.status_code == 400
    assert any(message in error for error in response.context["form"].errors[field])
    assertContains(response, f'<div class="field-error" id="id_{field}_error">', status_code=400)
    assertContains(response, 'aria-invalid="true"', status_code=400)
    assert not User.objects.exists()
    assert signed_in_as(client) is None


@pytest.mark.django_db
@pytest.mark.parametrize("taken", ["player", "PLAYER"])
def test_a_taken_username_is_refused_whatever_its_case(client: Client, player: User, taken: str) -> None:
    response = client.post(SIGNUP, signup_data(username=taken))

    assertContains(response, "A user with that username already exists.", status_code=400)
    assert list(User.objects.values_list("username", flat=True)) == ["player"]


@pytest.mark.django_db
def test_the_error_summary_links_each_error_to_its_input(client: Client) -> None:
    response = client.post(SIGNUP, signup_data(password2="a different phrase entirely"))

    assertContains(response, '<div class="errors" role="alert">', status_code=400)
    assertContains(response, '<a href="#id_password2">Password confirmation:', status_code=400)


@pytest.mark.django_db
def test_a_signed_in_player_is_sent_on(client: Client, player: User) -> None:
    client.force_login(player)

    assert client.get(SIGNUP, {"next": "/calculator/"}).url == "/calculator/"
    assert client.post(SIGNUP, signup_data()).status_code == 302
    assert not User.objects.filter(username="newcomer").exists()
