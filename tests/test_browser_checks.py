"""The checks every browser test gets from tests/browser.py, checked themselves: the strict CSP
stays on in the test's pages and its violations still reach ``problems``; axe-core's serious
and critical findings fail with their rule, impact, elements and address, for pages with
JavaScript, pages without it and pages changed in place by htmx."""

from __future__ import annotations

import pytest
from playwright.sync_api import Page, expect

from tests.browser import Accessibility, Snapshot, without_expected

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: A page with faults axe-core calls critical: images with no text (one shown only without
#: JavaScript) and a button with no name.
FAULTY = """<!doctype html><html lang="en"><head><title>Faulty</title></head><body><main><h1>Faulty</h1>
<img src="/static/favicon.svg" id="no-alt"><button id="no-name"></button>
<noscript><img src="/static/favicon.svg" id="without-scripts"></noscript></main></body></html>"""


def test_the_pages_keep_their_policy_and_the_watcher_hears_inline_code(live_server, page: Page, problems) -> None:
    page.goto(f"{live_server.url}/about/")

    directives = page.evaluate("""() => new Promise(resolve => {
      const seen = [];
      document.addEventListener("securitypolicyviolation", event => {
        seen.push(event.violatedDirective);
        if (seen.length === 2) resolve(seen);
      });
      const script = document.createElement("script");
      script.textContent = "window.ranInline = true";
      document.body.append(script);
      document.querySelector("h1").setAttribute("style", "color: red");
    })""")

    assert sorted(directives) == ["script-src-elem", "style-src-attr"]
    assert page.evaluate("window.ranInline") is None  # refused: the policy is enforced, not bypassed
    expect(page.locator("h1")).not_to_have_css("color", "rgb(255, 0, 0)")
    assert "CSP violation: script-src-elem blocked inline" in problems
    assert "CSP violation: style-src-attr blocked inline" in problems
    # The watcher's words, and Chromium's own for the inline script it refused:
    assert without_expected(problems, "CSP violation", "violates the following Content Security Policy") == []
    page.evaluate("document.querySelector('h1').removeAttribute('style')")


def test_a_violation_is_reported_with_its_rule_impact_elements_and_address(
    live_server, page: Page, accessibility: Accessibility
) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/about/")
    page.evaluate("""() => document.querySelector("main").insertAdjacentHTML(
      "beforeend", '<img src="/static/favicon.svg" id="no-alt">')""")

    with pytest.raises(AssertionError) as failure:
        accessibility.check(page)

    message = str(failure.value)
    assert "image-alt (critical)" in message
    assert "#no-alt" in message
    assert f"on {live_server.url}/about/ at 360×740" in message
    page.evaluate("document.getElementById('no-alt').remove()")  # the page is whole again
    accessibility.check(page)


def test_every_page_loaded_and_every_htmx_swap_is_copied_for_the_check(
    live_server, page: Page, accessibility: Accessibility
) -> None:
    page.goto(f"{live_server.url}/calculator/")
    page.wait_for_function("() => window.dicehallPagesCopied === 1")
    page.get_by_label("Ability", exact=True).select_option("d12")
    expect(page.locator("#calculation button.roll")).to_have_text("Roll d12 + d6 + d10")
    page.wait_for_function("() => window.dicehallPagesCopied >= 2")  # after the swap

    copies = list(accessibility.snapshots.values())
    assert all(copy.url.startswith(f"{live_server.url}/calculator/") for copy in copies)
    assert ("Roll d8 + d6 + d10" in copies[0].html, copies[0].region) == (True, "")  # the whole page, loaded
    assert ("Roll d12 + d6 + d10" in copies[-1].html, copies[-1].region) == (True, "#calculation")  # where it swapped
    assert (copies[0].width, copies[0].height) == (1280, 720)
    assert accessibility.violations() == []
    assert accessibility.checked == {copy.key for copy in copies}


def test_a_page_without_javascript_is_checked_as_the_browser_shows_it(
    live_server, nojs_page: Page, accessibility: Accessibility
) -> None:
    faulty = f"{live_server.url}/faulty/"
    nojs_page.route(faulty, lambda route: route.fulfill(content_type="text/html", body=FAULTY))
    nojs_page.goto(faulty)

    with pytest.raises(AssertionError) as failure:
        accessibility.check(nojs_page)

    message = str(failure.value)
    assert "image-alt (critical)" in message
    assert "#without-scripts" in message  # what <noscript> holds is on the screen, so it is checked
    assert "button-name (critical)" in message
    assert f"on {faulty} at 1280×720" in message
    nojs_page.goto(f"{live_server.url}/about/")  # what is open at the end is checked again, and passes


def test_a_copy_seen_twice_is_checked_once(live_server, page: Page, accessibility: Accessibility) -> None:
    for _ in range(2):  # a fresh CSRF token each time: the same page all the same
        page.goto(f"{live_server.url}/accounts/login/")
        page.wait_for_function("() => window.dicehallPagesCopied === 1")

    assert len(accessibility.snapshots) == 1


def test_a_violation_found_once_fails_every_test_that_sees_the_same_page_again(
    live_server, chromium, inspector, accessibility: Accessibility
) -> None:
    """The findings of a page state are kept for the run: a later test that sees the same state is
    not checked by axe-core again, and fails on the same violations all the same. Here two tests in
    turn, sharing findings of their own, then this test's own check with the run's findings."""
    faulty = f"{live_server.url}/faulty/"
    findings: dict = {}
    first, second = Accessibility(inspector, findings), Accessibility(inspector, findings)
    messages = []
    for checker in (first, second, accessibility):
        context = chromium.new_context()
        checker.watch(context)
        try:
            page = context.new_page()
            page.route(faulty, lambda route: route.fulfill(content_type="text/html", body=FAULTY))
            page.goto(faulty)
            page.wait_for_function("() => window.dicehallPagesCopied === 1")
            with pytest.raises(AssertionError) as failure:
                checker.check_all()
            messages.append(str(failure.value))
        finally:
            context.close()
            checker.contexts.clear()  # closed: nothing is left open for the end of the test to check

    assert "image-alt (critical)" in messages[0]
    assert "#no-alt" in messages[0]
    assert "button-name (critical)" in messages[0]
    assert f"on {faulty} at 1280×720" in messages[0]
    assert messages[1] == messages[0]  # the same failure, from the findings kept
    assert (first.inspected, second.inspected) == (1, 0)  # axe-core ran for the first test only
    assert messages[2] == messages[0]
    assert set(findings) <= set(accessibility.findings)  # the state is in the run's findings now


def test_the_inspector_runs_none_of_the_copys_scripts(live_server, inspector) -> None:
    """A copy already holds what its scripts did: in the inspector they must not run again (here
    they would add an image with no text, a critical finding, and load htmx)."""
    html = FAULTY.replace('<img src="/static/favicon.svg" id="no-alt"><button id="no-name"></button>', "").replace(
        "</main>",
        "</main><script>document.body.insertAdjacentHTML('beforeend', '<img src=\"/static/favicon.svg\">')</script>"
        '<script src="/static/django_htmx/htmx-2.min.js"></script>',
    )
    copy = Snapshot(f"{live_server.url}/scripted/", html, 1280, 720)

    assert inspector.findings(copy) == ()
    assert inspector.page.evaluate("[typeof axe, typeof htmx, document.images.length]") == ["object", "undefined", 0]
    assert inspector.page.url == copy.url
