"""A CSRF token is drawn (a random mask from the system's generator, and a cookie set) only where a page
can post: every signed-in page (its log-out form, and htmx's header beside it) and each form of an
anonymous page, never an anonymous page without a form (templates/base.html). Once the request holds its
secret, the token is masked by web.csrf, once a response, and Django's middleware takes it."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.middleware import csrf
from django.test import Client
from django.urls import reverse

from web import csrf as web_csrf


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many tokens each request drew."""
    drawn: list[int] = []
    real = csrf.get_token

    def counted(request):
        drawn.append(1)
        return real(request)

    real_mask = web_csrf.mask

    def counted_mask(secret: str) -> str:
        drawn.append(1)
        return real_mask(secret)

    monkeypatch.setattr(csrf, "get_token", counted)
    monkeypatch.setattr("django.template.context_processors.get_token", counted)
    monkeypatch.setattr(web_csrf, "get_token", counted)
    monkeypatch.setattr(web_csrf, "mask", counted_mask)
    return drawn


@pytest.mark.parametrize("name", ["pages:home", "pages:about"])
def test_an_anonymous_page_without_a_form_draws_no_token(name: str, draws: list[int]) -> None:
    response = Client().get(reverse(name))
    assert response.status_code == 200
    assert draws == []
    assert "csrftoken" not in response.cookies
    assert b"X-CSRFToken" not in response.content


def test_an_anonymous_form_carries_its_token(draws: list[int]) -> None:
    response = Client().get(reverse("lucky13:calculator"))
    assert draws
    assert b'name="csrfmiddlewaretoken"' in response.content
    assert "csrftoken" in response.cookies


@pytest.mark.django_db
def test_a_signed_in_page_gives_htmx_its_token(player: User, draws: list[int]) -> None:
    client = Client()
    client.force_login(player)
    response = client.get(reverse("pages:about"))
    assert b'hx-headers=\'{"X-CSRFToken": "' in response.content
    assert b'name="csrfmiddlewaretoken"' in response.content  # the log-out form
    assert len(draws) == 1  # one token for both: the context's token is drawn once a page


@pytest.mark.django_db
def test_a_page_with_the_secret_masks_it_once_and_the_masked_token_is_taken(player: User, draws: list[int]) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(player)
    client.get(reverse("pages:about"))  # the first page sets the cookie with the secret
    secret = client.cookies["csrftoken"].value
    draws.clear()
    pages = [client.get(reverse("pages:about")) for _ in range(2)]
    tokens = [page.content.split(b'name="csrfmiddlewaretoken" value="')[1].split(b'"')[0].decode() for page in pages]
    assert draws == [1, 1]  # one mask a response, for the header and the form alike
    assert all(f'"X-CSRFToken": "{token}"'.encode() in page.content for token, page in zip(tokens, pages, strict=True))
    assert tokens[0] != tokens[1]  # a mask of its own for each response
    assert all(len(token) == 2 * csrf.CSRF_SECRET_LENGTH for token in tokens)
    assert pages[1].cookies["csrftoken"].value == secret  # sent again (its expiry renewed), the same secret
    for token in tokens:  # Django's middleware takes each: the log-out form posts with it
        assert client.post(reverse("logout"), {"csrfmiddlewaretoken": token}).status_code == 302
        client.force_login(player)
    assert client.post(reverse("logout"), {"csrfmiddlewaretoken": "x" * 64}).status_code == 403


def test_a_mask_unmasks_to_its_secret() -> None:
    secret = web_csrf.random_characters(csrf.CSRF_SECRET_LENGTH)
    token = web_csrf.mask(secret)
    size = len(csrf.CSRF_ALLOWED_CHARS)
    shift, cipher = token[: csrf.CSRF_SECRET_LENGTH], token[csrf.CSRF_SECRET_LENGTH :]
    places = web_csrf.PLACES
    assert (
        "".join(csrf.CSRF_ALLOWED_CHARS[(places[c] - places[m]) % size] for c, m in zip(cipher, shift, strict=True))
        == secret
    )


def test_mask_characters_take_only_bytes_below_the_alphabets_last_whole_multiple(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    size = len(csrf.CSRF_ALLOWED_CHARS)
    assert web_csrf.BELOW == 248
    assert web_csrf.BELOW % size == 0
    draws = iter([bytes([255, 248, 0, 61, 62, 247]), bytes([1, 2, 3, 4, 5, 6])])
    monkeypatch.setattr(web_csrf.secrets, "token_bytes", lambda count: next(draws))
    chars = csrf.CSRF_ALLOWED_CHARS
    assert web_csrf.random_characters(6) == chars[0] + chars[61] + chars[0] + chars[247 % size] + chars[1] + chars[2]
