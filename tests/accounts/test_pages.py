"""What every accounts page shares: the site's layout, the strict CSP with nothing inline, a label for every input."""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
from django.contrib.auth.models import User
from django.http import HttpResponse
from django.test import Client
from django.urls import reverse

pytestmark = pytest.mark.django_db


def locked_out(client: Client) -> HttpResponse:
    response = None
    for _ in range(5):
        response = client.post(reverse("login"), {"username": "player", "password": "a wrong guess"})
    return response


#: (name, signed in?, how to get the page, expected status)
PAGES: list[tuple[str, bool, Callable[[Client], HttpResponse], int]] = [
    ("login", False, lambda c: c.get(reverse("login")), 200),
    ("login-error", False, lambda c: c.post(reverse("login"), {"username": "x", "password": "y"}), 200),
    ("signup", False, lambda c: c.get(reverse("signup")), 200),
    ("signup-error", False, lambda c: c.post(reverse("signup"), {"username": "x", "password1": "y"}), 400),
    ("password-reset", False, lambda c: c.get(reverse("password_reset")), 200),
    ("password-reset-done", False, lambda c: c.get(reverse("password_reset_done")), 200),
    ("password-reset-complete", False, lambda c: c.get(reverse("password_reset_complete")), 200),
    (
        "password-reset-bad-link",
        False,
        lambda c: c.get(reverse("password_reset_confirm", kwargs={"uidb64": "MQ", "token": "x"})),
        200,
    ),
    ("locked-out", False, locked_out, 429),
    ("account", True, lambda c: c.get(reverse("account")), 200),
    ("account-error", True, lambda c: c.post(reverse("account"), {"email": "nope"}), 400),
    ("password-change", True, lambda c: c.get(reverse("password_change")), 200),
    ("password-change-error", True, lambda c: c.post(reverse("password_change"), {"old_password": "x"}), 200),
    ("password-change-done", True, lambda c: c.get(reverse("password_change_done")), 200),
]


@pytest.fixture(params=PAGES, ids=[page[0] for page in PAGES])
def page(request: pytest.FixtureRequest, client: Client, player: User) -> tuple[HttpResponse, str]:
    _name, signed_in, get, status = request.param
    if signed_in:
        client.force_login(player)
    response = get(client)
    assert response.status_code == status
    return response, response.content.decode()


def test_every_page_is_in_the_site_layout(page: tuple[HttpResponse, str]) -> None:
    _response, html = page

    assert re.search(r"<h1>[^<]+</h1>", html)
    assert '<footer class="site-footer">' in html
    assert '<div class="auth">' in html


def test_every_page_sends_the_policy_and_has_nothing_inline(page: tuple[HttpResponse, str]) -> None:
    response, html = page

    assert "'unsafe-inline'" not in response["Content-Security-Policy"]
    for attributes, body in re.findall(r"<script\b([^>]*)>(.*?)</script>", html, re.S):
        assert 'src="/static/' in attributes
        assert body.strip() == ""
    assert "<style" not in html
    assert not re.search(r"\sstyle=", html)
    assert not re.search(r"\son[a-z]+=", html)


def test_every_input_has_a_label_and_errors_are_tied_to_it(page: tuple[HttpResponse, str]) -> None:
    _response, html = page

    for tag in re.findall(r"<input\b[^>]*>", html):
        if 'type="hidden"' in tag or " hidden" in tag:
            continue
        input_id = re.search(r'\sid="([^"]+)"', tag).group(1)
        assert f'<label for="{input_id}">' in html, tag
        if 'aria-invalid="true"' in tag:
            assert f'id="{input_id}_error"' in html
            assert f"{input_id}_error" in re.search(r'aria-describedby="([^"]+)"', tag).group(1)
    for form in re.findall(r"<form\b[^>]*>.*?</form>", html, re.S):
        if 'method="post"' in form:
            assert 'name="csrfmiddlewaretoken"' in form
