"""``{% url %}`` in every template makes the URL Django's tag makes, once per process for each view name,
plain arguments, application and script prefix (web/templatetags/urls.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from django.template import Context, Template
from django.urls import NoReverseMatch, reverse, set_script_prefix

from web.templatetags import urls


@pytest.fixture
def reversals(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[tuple[Any, ...]]]:
    """Each reversal the tag makes (its view name and arguments), on an empty set of kept URLs."""
    made: list[tuple[Any, ...]] = []

    def counted(view_name: str, **given: Any) -> str:
        made.append((view_name, tuple(given.get("args") or ()), dict(given.get("kwargs") or {})))
        return reverse(view_name, **given)

    urls.urls.clear()
    monkeypatch.setattr(urls, "reverse", counted)
    yield made
    urls.urls.clear()
    set_script_prefix("/")


def render(text: str, **values: Any) -> str:
    return Template(text).render(Context(values))


def test_the_url_is_djangos_and_made_once(reversals) -> None:
    text = "{% url 'characters:sheet' pk %} {% url 'play:dashboard' pk=pk %} {% url 'pages:home' %}"
    expected = (
        f"{reverse('characters:sheet', args=[7])} {reverse('play:dashboard', kwargs={'pk': 7})} {reverse('pages:home')}"
    )
    assert render(text, pk=7) == expected
    assert len(reversals) == 3
    assert render(text, pk=7) == expected
    assert len(reversals) == 3  # kept
    assert render(text, pk=8) == expected.replace("7", "8")
    assert len(reversals) == 5  # other arguments, other URLs; the home page's is kept


def test_as_a_variable_and_a_name_that_does_not_reverse(reversals) -> None:
    assert (
        render("{% url 'characters:sheet' 3 as there %}<{{ there }}>") == f"<{reverse('characters:sheet', args=[3])}>"
    )
    assert render("{% url 'no-such-view' as there %}<{{ there }}>") == "<>"
    with pytest.raises(NoReverseMatch):
        render("{% url 'no-such-view' %}")
    with pytest.raises(NoReverseMatch):
        render("{% url 'no-such-view' %}")  # a failure is never kept as a URL


def test_the_script_prefix_is_part_of_the_key(reversals) -> None:
    assert render("{% url 'pages:home' %}") == "/"
    set_script_prefix("/dicehall/")
    assert render("{% url 'pages:home' %}") == "/dicehall/"
    set_script_prefix("/")
    assert render("{% url 'pages:home' %}") == "/"
    assert len(reversals) == 2


@pytest.mark.parametrize("argument", [True, 7.0, [7]])
def test_an_argument_that_is_not_plain_is_made_every_time(reversals, argument) -> None:
    text = "{% url 'characters:sheet' pk as there %}"
    for _ in range(2):
        render(text, pk=argument)  # with ``as``, a name that does not reverse is nothing
    assert len(reversals) == 2
    assert urls.url_key("characters:sheet", (argument,), {}, None) is None
    # True is not 1, though Python would hash and compare them as one.
    assert urls.url_key("characters:sheet", (1,), {}, None) is not None


def test_a_changed_setting_forgets_the_kept_urls(reversals, settings) -> None:
    render("{% url 'pages:home' %}")
    assert len(urls.urls) == 1
    settings.SITE_URL = "https://example.org"
    assert len(urls.urls) == 0
