"""The frame every page shares (templates/base.html) is drawn once for each key and kept
(web/templatetags/kept_blocks.py): the same bytes a fresh render makes, for whoever is signed in and
whatever page it is, each response with a CSRF token of its own; a key that misses what its part shows
is caught by the check the tests run under (``KEPT_CHECKED``)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User
from django.middleware import csrf
from django.template import Context, Engine, Template, TemplateSyntaxError
from django.test import Client, RequestFactory
from django.urls import reverse

from web import kept
from web.templatetags import kept_blocks

TOKEN = re.compile(rb"[A-Za-z0-9]{64}")


def signed_in(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def frame(content: bytes) -> bytes:
    """The page without its main content: what the kept parts draw, the token taken out."""
    head, rest = content.split(b'<main id="main"', 1)
    footer = rest.split(b"</main>", 1)[1]
    return TOKEN.sub(b"<token>", head + footer)


@pytest.mark.django_db
@pytest.mark.parametrize("name", ["pages:about", "campaigns:list", "lucky13:calculator", "account"])
def test_a_kept_frame_is_what_a_fresh_one_draws(player: User, name: str, settings) -> None:
    settings.KEPT_CHECKED = False  # the kept frame alone, as a server shows it
    client = signed_in(player)
    kept.forget_all()
    fresh = client.get(reverse(name))
    assert len(kept_blocks.blocks) >= 3  # the head's two parts, the header (and the footer)
    again = client.get(reverse(name))
    assert fresh.status_code == again.status_code == 200
    assert frame(again.content) == frame(fresh.content)
    assert kept_blocks.CSRF_PLACE.encode() not in again.content
    assert f">{player.username}<".encode() in again.content


@pytest.mark.django_db
def test_each_user_and_page_has_its_own_header(player: User, other_player: User) -> None:
    pages = {(user.username, name): signed_in(user).get(reverse(name)).content
             for user in (player, other_player) for name in ("pages:about", "campaigns:list")}  # fmt: skip
    for (username, name), content in pages.items():
        header = content.split(b"</header>")[0].decode()
        assert f">{username}<" in header
        current = re.findall(r'<a href="([^"]+)" aria-current="page"', header)
        assert current == [reverse(name)]


def test_a_visitor_comes_back_to_the_page_they_left() -> None:
    client = Client()
    for query in ("", "?a=1", "?a=2"):
        content = client.get(reverse("pages:about") + query).content.decode()
        assert f'?next={reverse("pages:about")}{query.replace("?", "%3F").replace("=", "%3D")}"' in content


@pytest.mark.django_db
def test_each_response_carries_a_token_of_its_own_that_the_middleware_takes(player: User) -> None:
    client = Client(enforce_csrf_checks=True)
    client.force_login(player)
    client.get(reverse("pages:about"))
    secret = client.cookies["csrftoken"].value
    tokens = []
    for _ in range(3):
        content = client.get(reverse("pages:about")).content.decode()
        header = re.search(r'"X-CSRFToken": "([A-Za-z0-9]+)"', content)
        form = re.search(r'name="csrfmiddlewaretoken" value="([A-Za-z0-9]+)"', content)
        assert header
        assert form
        assert header[1] == form[1]
        assert kept_blocks.CSRF_PLACE not in content
        tokens.append(header[1])
        assert csrf._unmask_cipher_token(header[1]) == secret
    assert len(set(tokens)) == 3
    logged_out = client.post(reverse("logout"), {"csrfmiddlewaretoken": tokens[-1]})
    assert logged_out.status_code == 302


def test_a_visitors_page_without_a_form_still_draws_no_token() -> None:
    for _ in range(2):  # drawn, then kept
        response = Client().get(reverse("pages:about"))
        assert "csrftoken" not in response.cookies
        assert b"X-CSRFToken" not in response.content


@pytest.mark.django_db
def test_the_footer_credits_the_pages_own_system(campaign, d6_campaign, gm: User) -> None:
    client = signed_in(gm)
    from rules import systems

    for shown in (campaign, d6_campaign, campaign):
        footer = client.get(reverse("campaigns:detail", args=[shown.pk])).content.split(b"<footer")[1].decode()
        assert f"Rules: {systems.get(shown.system).name}." in footer
    assert "Rules:" not in client.get(reverse("campaigns:list")).content.split(b"<footer")[1].decode()


@pytest.fixture
def forgetful_key():
    """A key that names nothing: its part shows ``name`` all the same."""
    kept_blocks.KEYS["forgetful"] = lambda context: ()
    yield
    del kept_blocks.KEYS["forgetful"]


def test_a_key_that_misses_what_its_part_shows_is_caught(forgetful_key, settings) -> None:
    settings.KEPT_CHECKED = True
    template = Engine.get_default().from_string('{% kept "forgetful" %}Hello {{ name }}{% endkept %}')
    assert template.render(Context({"name": "Ada"})) == "Hello Ada"
    with pytest.raises(kept_blocks.StaleKept, match="forgetful"):
        template.render(Context({"name": "Bob"}))


def test_unchecked_a_kept_part_is_shown_as_it_was_kept(forgetful_key, settings) -> None:
    settings.KEPT_CHECKED = False
    template = Engine.get_default().from_string('{% kept "forgetful" %}Hello {{ name }}{% endkept %}')
    assert template.render(Context({"name": "Ada"})) == "Hello Ada"
    assert template.render(Context({"name": "Bob"})) == "Hello Ada"  # what the check exists to catch


def test_a_part_without_a_request_is_drawn_every_time() -> None:
    request = RequestFactory().get("/")
    assert kept_blocks.header_key(Context({"user": None, "request": request})) is None
    assert kept_blocks.header_key(Context({})) is None


@pytest.mark.parametrize(
    "source",
    ['{% kept %}x{% endkept %}', "{% kept header %}x{% endkept %}", '{% kept "nobody" %}x{% endkept %}',
     '{% kept "header" "more" %}x{% endkept %}'],
)  # fmt: skip
def test_a_kept_part_must_name_a_known_key(source: str) -> None:
    with pytest.raises(TemplateSyntaxError, match="kept"):
        Template(source, engine=Engine.get_default())
