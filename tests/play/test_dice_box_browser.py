"""The free dice box on the campaign page in a real browser: expressions typed and rolled with
the keyboard, each die and the total shown in the live region, bad expressions refused in
place with nothing logged, the same box without JavaScript, and a phone-width screen.

The live server runs in this process, so the tests seed the server's dice and roll the same
expression with the same seed themselves to know exactly what the page must show."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Locator, Page, expect

from campaigns.models import Campaign
from play.models import Roll
from rules import expressions
from tests.browser import without_expected
from tests.campaigns.test_browser import sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = 5


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every free roll the server makes draws from ``random.Random(SEED)``."""
    monkeypatch.setattr("play.roll_views.secrets.SystemRandom", lambda: random.Random(SEED))


def expected(text: str, *, explode: bool = False) -> expressions.ExpressionRoll:
    return expressions.roll(expressions.parse(text, explode=explode), random.Random(SEED))


def expected_dice(rolled: expressions.ExpressionRoll) -> list[list]:
    """Each die as the page lists it, [faces, kept]: term by term, the kept dice, then the dropped."""
    dice = []
    for term in rolled.terms:
        pairs = list(zip(term.dice, term.kept, strict=True))
        dice += [[list(d.faces), True] for d, k in pairs if k] + [[list(d.faces), False] for d, k in pairs if not k]
    return dice


def shown_dice(result: Locator) -> list[list]:
    return result.evaluate(
        """region => Array.from(region.querySelectorAll('.die')).map(die => [
             Array.from(die.querySelectorAll('.face')).map(face => Number(face.textContent)),
             !die.closest('.dropped'),
           ])"""
    )


def unexpected(seen: list[str]) -> list[str]:
    """The problems seen, less Chromium's console note about the 400 a bad expression is answered with,
    which is taken off ``seen``: anything left there fails the test at its end (tests/conftest.py)."""
    return without_expected(seen, "the server responded with a status of 400")


def open_box(page: Page, live_server, campaign: Campaign) -> Locator:
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    page.evaluate("window.sameDocument = true")
    return page.get_by_label("Dice", exact=True)


def test_expressions_typed_and_rolled_by_keyboard_show_every_die_and_the_total(
    live_server, page: Page, problems, seeded, player, campaign
) -> None:
    sign_in(page.context, player, live_server)
    field = open_box(page, live_server, campaign)
    result = page.locator("#free-roll-result")
    expect(result).to_have_attribute("aria-live", "polite")  # what lands here is announced

    for typed in ("2d6+1", "4d6kh3", "d12+d4-1"):
        field.fill("")
        field.focus()
        page.keyboard.type(typed)
        page.keyboard.press("Enter")

        rolled = expected(typed)
        expect(result.locator("code")).to_have_text(typed)
        expect(result.locator(".roll-result")).to_contain_text(f"Total {rolled.total}")
        assert shown_dice(result) == expected_dice(rolled)
        expect(field).to_be_focused()  # ready for the next roll
    expect(result.locator(".dropped .die")).to_have_count(0)  # the last roll kept every die

    assert [(r.spec["expression"], r.total) for r in Roll.objects.order_by("seq")] == [
        ("2d6+1", expected("2d6+1").total),
        ("4d6kh3", expected("4d6kh3").total),
        ("d12+d4-1", expected("d12+d4-1").total),
    ]
    assert page.evaluate("window.sameDocument") is True
    assert problems == []


def test_keep_highest_shows_the_dropped_die_apart(live_server, page: Page, problems, seeded, player, campaign) -> None:
    sign_in(page.context, player, live_server)
    field = open_box(page, live_server, campaign)
    field.fill("4d6kh3")
    field.press("Enter")

    rolled = expected("4d6kh3")
    result = page.locator("#free-roll-result")
    term = rolled.terms[0]
    dropped = [d for d, k in zip(term.dice, term.kept, strict=True) if not k]
    expect(result.locator(".dropped .die")).to_have_count(1)
    expect(result.locator(".dropped .face")).to_have_text([str(f) for f in dropped[0].faces])
    expect(result.locator(".dice-row .subtotal")).to_have_text(f"= {term.value}")
    assert problems == []


def test_every_die_explodes_when_asked_with_the_space_bar(live_server, page: Page, problems, seeded, player,
                                                         campaign) -> None:  # fmt: skip
    rolled = expected("6d6", explode=True)
    assert any(len(die.faces) > 1 for die in rolled.terms[0].dice), "the seed must make a die explode"
    sign_in(page.context, player, live_server)
    field = open_box(page, live_server, campaign)
    field.fill("6d6")
    page.keyboard.press("Tab")
    explode = page.get_by_label("Every die explodes")
    expect(explode).to_be_focused()
    page.keyboard.press("Space")
    expect(explode).to_be_checked()
    page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")

    result = page.locator("#free-roll-result")
    expect(result.locator("code")).to_have_text("6d6!")
    expect(result.locator(".roll-result")).to_contain_text(f"Total {rolled.total}")
    assert shown_dice(result) == expected_dice(rolled)
    exploded = [die for die in rolled.terms[0].dice if len(die.faces) > 1]
    expect(result.locator(".die.exploded")).to_have_count(len(exploded))
    expect(result.locator(".die.exploded").first).to_contain_text(f"exploded: {exploded[0].value}")
    expect(result.locator(".roll-chance")).to_have_text("No exact chance: unbounded")
    assert Roll.objects.get().spec == {"expression": "6d6!", "typed": "6d6", "explode": True}
    assert problems == []


def test_a_bad_expression_is_refused_in_place_and_nothing_is_logged(live_server, page: Page, problems, seeded,
                                                                   player, campaign) -> None:  # fmt: skip
    sign_in(page.context, player, live_server)
    field = open_box(page, live_server, campaign)
    alert = page.locator("#dice-box").get_by_role("alert")

    for typed, why in (("2d6+x", "at position 5"), ("51d6", "at most 50 dice"), ("d1", "from 2 to 1000")):
        field.fill(typed)
        field.press("Enter")
        expect(alert).to_contain_text(f"Cannot roll '{typed}'")
        expect(alert).to_contain_text(why)
        expect(alert).to_contain_text("Nothing was rolled.")
        expect(field).to_have_value(typed)  # kept, to be corrected
        expect(field).to_be_focused()
    assert Roll.objects.count() == 0

    field.fill("2d6+1")
    field.press("Enter")
    expect(page.locator("#free-roll-result .roll-result")).to_contain_text(f"Total {expected('2d6+1').total}")
    expect(alert).to_have_count(0)
    assert Roll.objects.count() == 1
    assert page.evaluate("window.sameDocument") is True
    assert unexpected(problems) == []


def test_without_javascript_the_box_rolls_and_refuses_with_a_plain_form(live_server, nojs_page: Page, problems,
                                                                       seeded, player, campaign) -> None:  # fmt: skip
    page = nojs_page
    sign_in(page.context, player, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    field = page.get_by_label("Dice", exact=True)
    field.fill("4d6kh3+1")
    field.press("Enter")

    rolled = expected("4d6kh3+1")
    term = rolled.terms[0]
    dice = ", ".join(f"{d.faces[0]}{'' if k else ' dropped'}" for d, k in zip(term.dice, term.kept, strict=True))
    expect(page).to_have_url(f"{live_server.url}/campaigns/{campaign.pk}/#dice-box")
    expect(page.get_by_role("status")).to_have_text(f"You rolled 4d6kh3+1: {rolled.total} (4d6kh3: {dice}).")

    field = page.get_by_label("Dice", exact=True)
    field.fill("3d6+x")
    field.press("Enter")
    expect(page).to_have_url(f"{live_server.url}/campaigns/{campaign.pk}/rolls/free/")
    expect(page.get_by_role("alert")).to_contain_text("Cannot roll '3d6+x'")
    expect(page.get_by_role("alert")).to_contain_text("Nothing was rolled.")
    expect(page.get_by_label("Dice", exact=True)).to_have_value("3d6+x")
    assert Roll.objects.count() == 1

    page.get_by_label("Dice", exact=True).fill("d20")
    page.get_by_role("button", name="Roll", exact=True).click()
    expect(page.get_by_role("status")).to_have_text(re.compile(r"^You rolled d20: \d+ \(d20: \d+\)\.$"))
    assert Roll.objects.count() == 2
    assert unexpected(problems) == []


def test_no_horizontal_scrolling_at_360_pixels(live_server, page: Page, problems, seeded, gm, campaign) -> None:
    """Many exploding dice, a long expression and a long mistyped one (its refusal quotes it)."""
    sign_in(page.context, gm, live_server)
    page.set_viewport_size({"width": 360, "height": 740})
    field = open_box(page, live_server, campaign)
    result = page.locator("#free-roll-result")
    roll = page.locator("#dice-box").get_by_role("button", name="Roll")
    assert roll.bounding_box()["height"] >= 44  # a thumb's target, as every button of the site

    field.fill("40d12+10d6kh3-2")
    page.get_by_label("Every die explodes").check()
    page.get_by_label("Secret (only you see it until you reveal it)").check()
    field.press("Enter")
    expect(result.locator(".die")).to_have_count(50)
    expect(result.locator(".die.exploded").first).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    page.get_by_label("Every die explodes").uncheck()
    for typed in ("+".join(["d10"] * 20), "d6+d6+d6+d6+d6+d6+d6+d6+d6+d6+d6+d6+d6+d6x"):
        field.fill(typed)
        field.press("Enter")
        expect(result).to_contain_text(typed[:40])
        assert page.evaluate("document.documentElement.scrollWidth") <= 360
    expect(result.get_by_role("alert")).to_be_visible()
    assert unexpected(problems) == []
