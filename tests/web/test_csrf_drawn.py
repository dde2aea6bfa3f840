"""A CSRF token is drawn (a random mask from the system's generator, and a cookie set) only where a page
can post: every signed-in page (its log-out form, and htmx's header beside it) and each form of an
anonymous page, never an anonymous page without a form (templates/base.html)."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.middleware import csrf
from django.test import Client
from django.urls import reverse


@pytest.fixture
def draws(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many tokens each request drew."""
    drawn: list[int] = []
    real = csrf.get_token

    def counted(request):
        drawn.append(1)
        return real(request)

    monkeypatch.setattr(csrf, "get_token", counted)
    monkeypatch.setattr("django.template.context_processors.get_token", counted)
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
