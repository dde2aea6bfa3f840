"""The API's docs page in a real browser (Playwright, the system Chromium): on a phone-width
screen the long paths, the parameter tables and the schemas wrap inside the screen, so nothing
needs sideways scrolling, the page's or a box's. Fails on a console error or a CSP violation."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from tests.campaigns.test_browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_at_360_pixels_the_api_docs_fit_the_screen(live_server, page: Page, problems, player) -> None:
    sign_in(page.context, player, live_server)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(live_server.url + reverse("api-docs"))
    expect(page.get_by_role("heading", level=1)).to_contain_text("version")

    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    boxes = page.locator(".api-docs pre, .api-docs .table-scroll, .api-docs table")
    assert boxes.count() > 10  # schemas and parameter tables
    wider = boxes.evaluate_all("""boxes => boxes
      .filter(box => box.scrollWidth > box.clientWidth || box.getBoundingClientRect().right > window.innerWidth)
      .map(box => box.outerHTML.slice(0, 80))""")
    assert wider == []
    assert problems == []
