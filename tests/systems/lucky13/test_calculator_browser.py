"""The calculator in a real browser (Playwright, the system Chromium): htmx swaps
in place, keyboard use, a phone-width screen, and the pages without JavaScript.

Every test also fails on a console error, an uncaught exception or a Content
Security Policy violation. Waits are Playwright's auto-waiting ``expect``; where
htmx delays a request, the page's clock is driven by hand instead of waited on.
"""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Locator, Page, Route, expect

from rules.dice import StepDie
from rules.systems.lucky13 import Check, check_chance
from tests.browser import without_expected
from web.templatetags.dice import percent

pytestmark = pytest.mark.browser


def shown(ability: str, skill: str = "d6", difficulty: str = "d10") -> str:
    """The headline chance the page should show for a Cinematic check, as the engine computes it."""
    check = Check(StepDie.parse(ability), StepDie.parse(skill), StepDie.parse(difficulty))
    return percent(check_chance(check).p_success)


def chance(page: Page) -> Locator:
    return page.locator("#calculation .big-chance summary")


def roll_outcome(page: Page) -> Locator:
    return page.locator("#roll-result .outcome")


def pause_clock(page: Page) -> None:
    """Stop the page's timers (after it has loaded); ``settle`` then moves them on by hand."""
    page.clock.pause_at(page.evaluate("Date.now()") + 1000)


def settle(page: Page) -> None:
    """Fire whatever htmx has scheduled (``delay:300ms``, the settle step), and wait for
    every request it started to finish; needs the clock installed before the page loaded."""
    page.clock.run_for(2000)
    page.wait_for_function("() => window.htmxDone === window.htmxRequests")
    page.clock.run_for(2000)


# --- htmx -----------------------------------------------------------------------------------


def test_past_the_rate_limit_the_form_says_how_long_to_wait(
    live_server, page: Page, problems: list[str], settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("web.limits.wall_clock", lambda: 1_800_000_030.0)  # one window, 30 s from its end
    settings.RATE_LIMITS = {"calculator-anonymous": (0, 1)}
    page.goto(f"{live_server.url}/calculator/")
    expect(chance(page)).to_have_text(shown("d8"))

    page.get_by_label("Ability", exact=True).select_option("d12")

    expect(page.locator("form .request-problem")).to_have_text(
        "Too many calculations from your network address just now: please wait 30 seconds and try again."
    )
    expect(chance(page)).to_have_text(shown("d8"))  # nothing swapped in
    # Chromium's and htmx's console notes of the 429 itself, and nothing else:
    assert without_expected(problems, "a status of 429", "Response Status Error Code 429") == []


def test_changing_a_die_swaps_the_chance_in_place_and_roll_shows_the_dice(
    live_server, page: Page, problems: list[str]
) -> None:
    page.goto(f"{live_server.url}/calculator/")
    expect(chance(page)).to_have_text(shown("d8"))
    page.evaluate("window.sameDocument = true")

    page.get_by_label("Ability", exact=True).select_option("d12")

    expect(chance(page)).to_have_text(shown("d12"))
    expect(page.locator("#calculation button.roll")).to_have_text("Roll d12 + d6 + d10")
    expect(page).to_have_url(re.compile(r"/calculator/\?.*ability=d12"))  # hx-push-url
    assert page.evaluate("window.sameDocument") is True  # no page load: the marker survived

    page.locator("#calculation button.roll").click()

    expect(page.locator("#roll-result")).to_have_attribute("aria-live", "polite")
    expect(roll_outcome(page)).to_have_text(re.compile(r"^(Success|Failure)$"))
    expect(page.locator("#roll-result")).to_contain_text("Rolled d12 + d6 + d10")
    assert page.locator("#roll-result .die .face").count() >= 3
    assert page.evaluate("window.sameDocument") is True
    assert problems == []


def test_opposed_roll_swaps_in_place(live_server, page: Page, problems: list[str]) -> None:
    page.goto(f"{live_server.url}/calculator/opposed/")
    before = chance(page).inner_text()
    page.evaluate("window.sameDocument = true")

    page.locator("#id_attacker_ability").select_option("d12+d12+d4")

    expect(chance(page)).not_to_have_text(before)
    page.get_by_role("button", name="Roll the attack").click()
    expect(roll_outcome(page)).to_have_text(re.compile(r"^(Hit|Miss|Draw: the attack fails)$"))
    expect(page.locator("#roll-result")).to_contain_text("Attacker:")
    assert page.evaluate("window.sameDocument") is True
    assert problems == []


def test_a_bad_number_shows_the_problem_in_place_and_a_good_one_clears_it(
    live_server, page: Page, problems: list[str]
) -> None:
    page.goto(f"{live_server.url}/calculator/")
    steps = page.get_by_label("Ability steps")

    steps.fill("11")

    expect(page.locator("#calculation [role=alert]")).to_contain_text("Ability steps")
    expect(page.locator("#calculation [role=alert]")).to_contain_text("less than or equal to 10")
    expect(page.locator("#calculation button.roll")).to_have_count(0)

    steps.fill("1")

    expect(chance(page)).to_have_text(shown("d10"))  # d8 one step up
    # The browser reports the 400 response itself; nothing else may go wrong.
    assert without_expected(problems, "400 (Bad Request)") == []


def test_one_change_of_a_die_makes_one_request(live_server, page: Page, problems: list[str]) -> None:
    page.clock.install()
    page.goto(f"{live_server.url}/calculator/")
    pause_clock(page)

    page.get_by_label("Ability", exact=True).select_option("d12")
    expect(chance(page)).to_have_text(shown("d12"))
    settle(page)

    assert page.evaluate("window.htmxRequests") == 1
    assert problems == []


# --- Keyboard -------------------------------------------------------------------------------


def tab_to(page: Page, selector: str, *, limit: int = 40) -> None:
    """Press Tab until the element matching ``selector`` has the focus."""
    for _ in range(limit):
        page.keyboard.press("Tab")
        if page.evaluate("(selector) => document.activeElement.matches(selector)", selector):
            return
    pytest.fail(f"{selector} never took the focus after {limit} presses of Tab")


def test_keyboard_only_change_a_die_and_roll(live_server, page: Page, problems: list[str]) -> None:
    page.clock.install()
    page.goto(f"{live_server.url}/calculator/")
    pause_clock(page)

    tab_to(page, "#id_ability")
    page.keyboard.press("ArrowDown")  # d8 → d10

    expect(page.locator("#id_ability")).to_have_value("d10")
    expect(chance(page)).to_have_text(shown("d10"))
    settle(page)

    tab_to(page, "#calculation button.roll")
    page.keyboard.press("Enter")

    expect(roll_outcome(page)).to_have_text(re.compile(r"^(Success|Failure)$"))
    expect(page.locator("#roll-result")).to_contain_text("Rolled d10 + d6 + d10")
    assert problems == []


def test_focus_on_roll_survives_the_chance_arriving_after_the_user_tabbed_to_it(
    live_server, page: Page, problems: list[str]
) -> None:
    """A keyboard user who reaches Roll before the new chance arrives (a slow network, or a
    big opposed roll that takes the server a second) must keep the focus on Roll."""
    page.goto(f"{live_server.url}/calculator/")
    held: list[Route] = []
    # Hold the chance request on its way to the server until the test lets it go.
    asked = re.compile(r"/calculator/\?")
    page.route(asked, lambda route: held.append(route))

    tab_to(page, "#id_ability")
    with page.expect_request(asked):  # the request leaves after the key is pressed: wait for it
        page.keyboard.press("ArrowDown")
    expect(page.locator("#calculation")).to_have_attribute("aria-busy", "true")
    tab_to(page, "#calculation button.roll")
    assert len(held) == 1
    held[0].continue_()

    expect(chance(page)).to_have_text(shown("d10"))
    expect(page.locator("#calculation")).to_have_attribute("aria-busy", "false")
    expect(page.locator("#calculation button.roll")).to_be_focused()
    assert problems == []


# --- A phone-width screen -------------------------------------------------------------------


@pytest.mark.parametrize("path", ["/", "/about/", "/calculator/", "/calculator/opposed/"])
def test_no_horizontal_scrolling_at_360_pixels(live_server, page: Page, problems: list[str], path: str) -> None:
    page.set_viewport_size({"width": 360, "height": 740})

    page.goto(f"{live_server.url}{path}")

    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []


def test_a_big_roll_with_long_explosions_fits_360_pixels(
    live_server, page: Page, problems: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # The live server runs in this process: seed 442 rolls one die that explodes five times.
    monkeypatch.setattr("games.lucky13.calculator.secrets.SystemRandom", lambda: random.Random(442))
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(
        f"{live_server.url}/calculator/?ability=d12%2Bd12%2Bd4&skill=d12%2Bd12%2Bd4&difficulty=d12%2Bd12%2Bd4"
        "&ability_roll=background"
    )

    page.locator("#calculation button.roll").click()

    expect(roll_outcome(page)).to_have_text("Success")
    expect(page.locator("#roll-result .die.exploded").first).to_be_visible()
    assert (
        max(page.locator("#roll-result .die").evaluate_all("dice => dice.map(d => d.querySelectorAll('.face').length)"))
        == 6
    )
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []


def test_at_360_pixels_the_roll_result_shows_without_scrolling_past_the_form(live_server, page: Page, problems) -> None:
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/calculator/")
    form_bottom = page.locator("#calculator-form").evaluate("form => form.getBoundingClientRect().bottom")
    assert form_bottom > 740  # the form alone is taller than the screen

    page.locator("#calculation button.roll").click()

    expect(roll_outcome(page)).to_have_text(re.compile(r"^(Success|Failure)$"))
    expect(page.locator("#roll-result")).to_be_in_viewport(ratio=1)  # the whole result, brought into view
    assert problems == []


# --- Without JavaScript ---------------------------------------------------------------------


def test_without_javascript_the_forms_still_show_the_chance_and_roll(
    live_server, nojs_page: Page, problems: list[str]
) -> None:
    page = nojs_page
    page.goto(f"{live_server.url}/calculator/")
    expect(chance(page)).to_have_text(shown("d8"))

    page.get_by_label("Ability", exact=True).select_option("d12")
    page.get_by_role("button", name="Show the chance").click()

    expect(page).to_have_url(re.compile(r"/calculator/\?.*ability=d12"))
    expect(chance(page)).to_have_text(shown("d12"))

    page.get_by_role("button", name="Roll d12 + d6 + d10").click()

    expect(page).to_have_url(re.compile(r"/calculator/\?.*ability=d12"))
    expect(roll_outcome(page)).to_have_text(re.compile(r"^(Success|Failure)$"))
    expect(page.locator("#roll-result")).to_contain_text("Rolled d12 + d6 + d10")

    page.reload()

    expect(chance(page)).to_have_text(shown("d12"))
    expect(roll_outcome(page)).to_have_count(0)  # shown once
    assert problems == []


def test_without_javascript_at_360_pixels_the_page_opens_at_the_roll_result(
    live_server, nojs_page: Page, problems: list[str]
) -> None:
    page = nojs_page
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/calculator/")

    page.get_by_role("button", name="Roll d8 + d6 + d10").click()

    expect(roll_outcome(page)).to_have_text(re.compile(r"^(Success|Failure)$"))
    expect(page.locator("#roll-result")).to_be_in_viewport(ratio=1)  # not the form, at the top of the page
    assert page.evaluate("window.scrollY") > 0
    assert problems == []


def test_without_javascript_the_opposed_roll_works(live_server, nojs_page: Page, problems: list[str]) -> None:
    page = nojs_page
    page.goto(f"{live_server.url}/calculator/opposed/")

    page.locator("#id_weapon_damage").select_option("d12")
    page.get_by_role("button", name="Show the chances").click()
    expect(page).to_have_url(re.compile(r"weapon_damage=d12"))
    page.get_by_role("button", name="Roll the attack").click()

    expect(roll_outcome(page)).to_have_text(re.compile(r"^(Hit|Miss|Draw: the attack fails)$"))
    expect(page.locator("#roll-result")).to_contain_text("Defender:")
    assert problems == []
