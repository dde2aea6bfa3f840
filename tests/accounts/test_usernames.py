"""Usernames are one name when a reader cannot tell them apart (accounts.names): sign-up refuses a
look-alike, the database refuses it too, and any form of a name logs in to its one account."""

from __future__ import annotations

import logging

import pytest
from axes.models import AccessAttempt
from django.contrib.auth.models import User
from django.db import IntegrityError, transaction
from django.test import Client
from django.urls import reverse
from pytest_django.asserts import assertContains

from accounts.models import CanonicalName
from accounts.names import LOOKALIKES, skeleton
from tests.accounts.helpers import signed_in
from tests.migrations import latest, migrate

SIGNUP = "/accounts/signup/"
PASSWORD = "a long and unguessable phrase"


@pytest.mark.parametrize(
    ("name", "same_as"),
    [
        ("аlice", "alice"),  # Cyrillic а
        ("bоb", "bob"),  # Cyrillic о
        ("ɡm", "gm"),  # IPA script g
        ("ALICE", "alice"),
        ("Ｇｍ", "gm"),  # full-width
        ("ρlayer", "player"),  # Greek rho
        ("straße", "strasse"),  # case folding
    ],
)
def test_look_alike_names_have_one_skeleton(name: str, same_as: str) -> None:
    assert skeleton(name) == skeleton(same_as)


def test_different_names_stay_different() -> None:
    assert skeleton("alice") != skeleton("alicе1")
    assert skeleton("player1") != skeleton("playerl")  # digits are not mapped


def test_every_lookalike_maps_a_lower_case_letter_to_a_latin_one() -> None:
    for source, target in LOOKALIKES.items():
        assert source == source.casefold(), source
        assert target in "abcdefghijklmnopqrstuvwxyz", source


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "message"),
    [
        ("аlice", "That name is taken, or looks just like one that is: choose another."),
        # Django's own form already refuses these two (it normalises the name and compares it without case).
        ("Alice", "A user with that username already exists."),
        ("ａｌｉｃｅ", "A user with that username already exists."),
    ],
)
def test_sign_up_refuses_a_name_that_looks_like_a_taken_one(client: Client, name: str, message: str) -> None:
    User.objects.create_user("alice", password=PASSWORD)
    data = {"username": name, "email": "", "password1": PASSWORD, "password2": PASSWORD}

    response = client.post(SIGNUP, data)

    assertContains(response, message, status_code=400)
    assert User.objects.count() == 1


@pytest.mark.django_db
@pytest.mark.parametrize(("taken", "name"), [("bob", "bоb"), ("gm", "ɡm")])
def test_the_reported_look_alikes_are_refused(client: Client, taken: str, name: str) -> None:
    User.objects.create_user(taken, password=PASSWORD)

    response = client.post(SIGNUP, {"username": name, "email": "", "password1": PASSWORD, "password2": PASSWORD})

    assert response.status_code == 400
    assert not User.objects.filter(username=name).exists()


@pytest.mark.django_db
def test_the_database_refuses_a_look_alike_from_anywhere() -> None:
    User.objects.create_user("alice")

    with pytest.raises(IntegrityError), transaction.atomic():
        User.objects.create_user("аlice")


@pytest.mark.django_db
def test_a_renamed_user_gets_the_new_names_skeleton(player: User) -> None:
    player.username = "Renamed"
    player.save()

    assert CanonicalName.objects.get(user=player).skeleton == "renamed"
    User.objects.create_user("player")  # the old name is free again


@pytest.mark.django_db
@pytest.mark.parametrize("typed", ["PLAYER", "Player", "plаyer", "ｐｌａｙｅｒ"])
def test_any_form_of_my_name_logs_me_in(client: Client, player: User, password: str, typed: str) -> None:
    response = client.post(reverse("login"), {"username": typed, "password": password})

    assert response.status_code == 302
    assert signed_in(client)
    assert client.session["_auth_user_id"] == str(player.pk)


@pytest.mark.django_db
def test_a_wrong_password_under_another_form_is_a_failure_of_the_one_account(
    client: Client, player: User, password: str
) -> None:
    response = client.post(reverse("login"), {"username": "PLAYER", "password": "wrong"})

    assertContains(response, "Please enter a correct username and password.")
    assert not signed_in(client)
    assert AccessAttempt.objects.get().username == "player"


# --- The migration that gives existing users their skeletons ---------------------------------------


@pytest.mark.django_db(transaction=True)
def test_existing_users_get_their_skeletons_and_look_alikes_keep_their_names(caplog) -> None:
    try:
        old_apps = migrate([("accounts", "0001_sessions_names_addresses")])
        old_user = old_apps.get_model("auth", "User")  # a historical model: no signal writes a skeleton
        ids = {name: old_user.objects.create(username=name).pk for name in ("alice", "Bob", "аlice", "carol")}
        assert not CanonicalName.objects.exists()

        with caplog.at_level(logging.WARNING, logger="accounts.migrations"):
            migrate([("accounts", "0002_canonical_names_of_existing_users")])

        rows = dict(CanonicalName.objects.values_list("user_id", "skeleton"))
        assert rows == {ids["alice"]: "alice", ids["Bob"]: "bob", ids["carol"]: "carol"}
        assert f"User {ids['аlice']} ('аlice') looks like user {ids['alice']}" in caplog.text
        assert User.objects.filter(username="аlice").exists()  # both kept

        migrate([("accounts", "0001_sessions_names_addresses")])
        assert not CanonicalName.objects.exists()
    finally:
        migrate(latest())


def test_the_admin_refuses_a_look_alike_name_next_to_the_field(client: Client, player: User) -> None:
    admin = User.objects.create_superuser("boss", "boss@example.com", "a long admin passphrase")
    client.force_login(admin)
    other = User.objects.create_user("otto", password="another long passphrase")
    url = reverse("admin:auth_user_change", args=[other.pk])
    page = client.get(url)
    assert page.status_code == 200
    form = page.context["adminform"].form
    data = {name: value for name, value in form.initial.items() if value is not None and name != "password"}
    data.update(username="рlayer", date_joined_0="2026-11-29", date_joined_1="12:00:00")  # Cyrillic р
    data.pop("groups", None)
    data.pop("user_permissions", None)
    data.pop("last_login", None)
    response = client.post(url, data)
    assert response.status_code == 200
    assert "looks just like one that is" in response.content.decode()
    assert User.objects.get(pk=other.pk).username == "otto"
    added = client.post(
        reverse("admin:auth_user_add"),
        {"username": "PLAYER", "password1": "a long new passphrase", "password2": "a long new passphrase",
         "usable_password": "true"},
    )  # fmt: skip
    assert added.status_code == 200
    assert not User.objects.filter(username="PLAYER").exists()
