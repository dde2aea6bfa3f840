"""Home and About, and what every page shares: the footer link, the Content
Security Policy, and scripts served only from our own static files."""

from __future__ import annotations

import re

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from django.utils.html import escape

from rules.systems.lucky13 import ATTRIBUTION, DISCLAIMER
from tests.pages.helpers import html

#: Every page of the app, good and bad, as (url name, query, expected status).
PAGES = [
    ("pages:home", {}, 200),
    ("pages:about", {}, 200),
    ("lucky13:calculator", {}, 200),
    ("lucky13:calculator", {"ability": "d7"}, 400),
    ("lucky13:opposed", {}, 200),
    ("lucky13:opposed", {"attacker_ability": "none"}, 400),
]
PAGE_IDS = ["home", "about", "calculator", "calculator-400", "opposed", "opposed-400"]


def test_home_is_public_and_links_to_the_calculator(client: Client) -> None:
    response = client.get(reverse("pages:home"))

    page = html(response)
    assert response.status_code == 200
    assert "<h1>Dicehall</h1>" in page
    assert f'<a class="button" href="{reverse("lucky13:calculator")}">Open the Lucky 13 dice calculator</a>' in page


def test_about_shows_the_attribution_and_disclaimer_verbatim(client: Client) -> None:
    response = client.get(reverse("pages:about"))

    page = html(response)
    assert response.status_code == 200
    assert f'<p class="attribution">{escape(ATTRIBUTION)}</p>' in page
    assert f'<p class="disclaimer">{escape(DISCLAIMER)}</p>' in page
    # The exact wording the ELF demands.
    assert ATTRIBUTION == "The Lucky 13 Game Engine was originally created by Solarian Games."
    assert DISCLAIMER.startswith("The Lucky 13 name and logo are the property of Solarian LLC.")


def test_about_reproduces_the_elf_license(client: Client) -> None:
    elf = (settings.BASE_DIR / "LICENSES" / "LUCKY13-ELF.md").read_text(encoding="utf-8")

    page = html(client.get(reverse("pages:about")))

    assert "<summary>The Everlasting License for Free (ELF), version 1.0</summary>" in page
    assert f'<pre class="license-text">{escape(elf)}</pre>' in page
    assert "# Everlasting License for Free (ELF)" in page


@pytest.mark.parametrize(("url", "query", "status"), PAGES, ids=PAGE_IDS)
def test_every_page_is_public_and_its_footer_links_about(
    client: Client, url: str, query: dict[str, str], status: int
) -> None:
    response = client.get(reverse(url), query)

    page = html(response)
    assert response.status_code == status
    footer = re.search(r'<footer class="site-footer">(.*?)</footer>', page, re.S)
    assert footer, "no footer"
    assert f'<a href="{reverse("pages:about")}">' in footer.group(1)


@pytest.mark.parametrize(("url", "query", "status"), PAGES, ids=PAGE_IDS)
def test_every_page_sends_a_strict_content_security_policy(
    client: Client, url: str, query: dict[str, str], status: int
) -> None:
    response = client.get(reverse(url), query)

    policy = {
        name: values
        for name, *values in (directive.split() for directive in response["Content-Security-Policy"].split(";"))
    }
    assert policy["default-src"] == ["'self'"]
    assert policy["script-src"] == ["'self'"]
    assert policy["style-src"] == ["'self'"]
    assert policy["frame-ancestors"] == ["'none'"]
    assert policy["object-src"] == ["'none'"]
    assert "'unsafe-inline'" not in response["Content-Security-Policy"]
    assert "'unsafe-eval'" not in response["Content-Security-Policy"]


@pytest.mark.parametrize(("url", "query", "status"), PAGES, ids=PAGE_IDS)
def test_every_page_has_nothing_inline_that_the_policy_would_block(
    client: Client, url: str, query: dict[str, str], status: int
) -> None:
    page = html(client.get(reverse(url), query))

    scripts = re.findall(r"<script\b([^>]*)>(.*?)</script>", page, re.S)
    assert scripts
    for attributes, body in scripts:
        assert f'src="{settings.STATIC_URL}' in attributes, attributes
        assert body.strip() == ""
    assert "<style" not in page
    assert not re.search(r"\sstyle=", page)
    assert not re.search(r"\son[a-z]+=", page)  # inline event handlers
    assert not re.search(r"\shx-on", page)  # htmx's inline handlers need eval, which is off


@pytest.mark.parametrize(("url", "query", "status"), PAGES, ids=PAGE_IDS)
def test_no_page_loads_anything_from_another_host(client: Client, url: str, query: dict[str, str], status: int) -> None:
    page = html(client.get(reverse(url), query))

    assert not re.search(r"""<script\b[^>]*\bsrc=["']?(https?:)?//""", page)
    assert not re.search(r"""<link\b[^>]*\bhref=["']?(https?:)?//""", page)
    assert not re.search(r"""<img\b[^>]*\bsrc=["']?(https?:)?//""", page)


def test_htmx_comes_from_our_static_files(client: Client) -> None:
    page = html(client.get(reverse("lucky13:calculator")))
    [htmx] = re.findall(r'<script src="([^"]*htmx[^"]*)"', page)

    response = client.get(htmx)

    assert htmx.startswith(f"{settings.STATIC_URL}django_htmx/htmx-")
    assert response.status_code == 200
    assert b"htmx" in b"".join(response.streaming_content if response.streaming else [response.content])


def test_every_script_and_stylesheet_of_the_pages_is_served(client: Client) -> None:
    page = html(client.get(reverse("lucky13:calculator")))
    assets = re.findall(r'<script src="([^"]+)"', page) + re.findall(r'<link rel="[^"]+" href="([^"]+)"', page)

    assert len(assets) >= 4  # htmx, our script, the stylesheet, the icon
    for asset in assets:
        assert client.get(asset).status_code == 200, asset
