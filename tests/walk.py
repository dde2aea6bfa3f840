"""A session walked through the real pages in several phone-width browsers, served as production serves it
(``tests.play.test_live_browser.AsgiServer``): what each system's session in the browser shares."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import Client
from playwright.sync_api import Browser, Page, Response, expect

from characters.models import Character
from tests.browser import open_page
from tests.play.test_live_browser import AsgiServer

PHONE = {"width": 360, "height": 800}


@pytest.fixture
def patient_expect() -> Iterator[None]:
    """Three browsers, a server and its sockets share a busy machine: give every expectation 15 s
    (the default is 5 s), then put the default back for the tests that follow."""
    expect.set_options(timeout=15_000)
    yield
    expect.set_options(timeout=None)


class Walk:
    """What the pages of the walk report: console errors, uncaught exceptions and CSP violations
    (``tests.browser.open_page``), every response of 500 or more, and the 400s that answer a refusal."""

    def __init__(self, browser: Browser, server: AsgiServer, problems: list[str]) -> None:
        self.browser, self.server, self.problems = browser, server, problems
        self.refused: list[str] = []

    def sign_in(self, user, *, javascript: bool = True) -> Page:
        """A phone-width browser carrying ``user``'s session, as if they had logged in (with JavaScript
        off when ``javascript`` is false)."""
        client = Client()
        client.force_login(user)
        context = self.browser.new_context(viewport=PHONE, java_script_enabled=javascript)
        context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": self.server.url}])
        context.on("response", self.on_response)
        return open_page(context, self.problems, javascript=javascript)

    def on_response(self, response: Response) -> None:
        if response.status >= 500:
            self.problems.append(f"{response.status} from {response.request.method} {response.url}")
        elif response.status == 400:
            self.refused.append(response.url)

    def url(self, path: str) -> str:
        return self.server.url + path


def check_page(page: Page, problems: list[str], *, refused: bool = False) -> None:
    """The checks every page of the walk passes once the test has seen it loaded: htmx has set the page
    up, nothing has gone wrong in any of the browsers so far, and the page fits the 360 px screen
    without scrolling sideways. A page that answers a refused roll (``refused``) has a 400 status, which
    Chromium reports in the console: that report, and only it, is expected here and taken off the list."""
    expect(page.locator("html")).to_have_attribute("data-htmx-ready", "true")
    if refused:
        answered = [p for p in problems if "the server responded with a status of 400" in p]
        assert answered, f"{page.url} was not refused"
        problems[:] = [p for p in problems if p not in answered]
    assert problems == [], page.url
    scroll_width, width = page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert scroll_width <= width, f"{page.url} scrolls sideways: {scroll_width} px wide on a {width} px screen"


def settled(page: Page) -> None:
    """htmx has swapped and settled the new content (and so wired up its forms) before the next click."""
    expect(page.locator(".htmx-request, .htmx-swapping, .htmx-settling, .htmx-added")).to_have_count(0)


def open_dashboard(page: Page, problems: list[str]) -> None:
    page.get_by_role("link", name="Live dashboard").click()
    expect(page.locator("#live")).to_have_attribute("data-live", "up")  # the socket is open
    page.evaluate("window.sameDocument = true")  # what comes later comes over the socket, not by a reload
    check_page(page, problems)


def open_sheet(page: Page, walk: Walk, campaign, character: Character) -> None:
    page.goto(walk.url(f"/campaigns/{campaign.pk}/"))
    check_page(page, walk.problems)
    page.locator("#party").get_by_role("link", name=character.name, exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text(character.name)
    check_page(page, walk.problems)
