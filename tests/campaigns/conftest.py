"""The browser tests here share the calculator tests' browser fixtures (the system
Chromium, a page with and one without JavaScript, the log of console problems)."""

from tests.pages.test_browser import _async_unsafe_allowed, browser, nojs_page, page, problems  # noqa: F401
