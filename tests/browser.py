"""Browser fixtures for every test that drives the real pages: Playwright for Python with
the system Chromium at /usr/bin/chromium (never a downloaded browser).

Every page a test opens collects console errors, uncaught exceptions and Content
Security Policy violations into ``problems``, which the tests assert empty.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from playwright.sync_api import Browser, BrowserContext, ConsoleMessage, Page, sync_playwright

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
#: Runs in every page before its own scripts: reports CSP violations to the console
#: (where the tests collect them) and counts htmx requests and swaps.
WATCH_SCRIPT = """
document.addEventListener("securitypolicyviolation", (event) => {
  console.error(`CSP violation: ${event.violatedDirective} blocked ${event.blockedURI || "inline code"}`);
});
window.htmxRequests = 0;
window.htmxDone = 0;
document.addEventListener("htmx:beforeRequest", () => { window.htmxRequests += 1; });
document.addEventListener("htmx:afterRequest", () => { window.htmxDone += 1; });
"""


@pytest.fixture(scope="module")
def async_unsafe_allowed() -> Iterator[None]:
    # Playwright's sync API keeps an event loop running in this thread, and Django
    # refuses database access (the test database's setup and flush) from such a thread.
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
        yield


@pytest.fixture(scope="module")
def browser(async_unsafe_allowed: None) -> Iterator[Browser]:
    if not CHROMIUM.exists():
        pytest.skip(f"{CHROMIUM} is missing; install the system Chromium (apt-get install chromium)")
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield browser
        browser.close()


@pytest.fixture
def problems() -> list[str]:
    """Console errors, uncaught exceptions and CSP violations seen by the test's pages."""
    return []


def open_page(context: BrowserContext, problems: list[str]) -> Page:
    def on_console(message: ConsoleMessage) -> None:
        where = message.location.get("url", "") if message.location else ""
        if message.type == "error" and "favicon" not in f"{message.text} {where}":
            problems.append(message.text)

    page = context.new_page()
    page.on("console", on_console)
    page.on("pageerror", lambda error: problems.append(f"uncaught: {error}"))
    return page


@pytest.fixture
def page(browser: Browser, problems: list[str]) -> Iterator[Page]:
    context = browser.new_context()
    context.add_init_script(WATCH_SCRIPT)
    yield open_page(context, problems)
    context.close()


@pytest.fixture
def nojs_page(browser: Browser, problems: list[str]) -> Iterator[Page]:
    context = browser.new_context(java_script_enabled=False)
    yield open_page(context, problems)
    context.close()
