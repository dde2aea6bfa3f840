"""The roll log's character filter in a real browser, with a party larger than it offers at once:
the start of a name narrows the choice (a page load, with or without JavaScript), choosing swaps
the list in place with htmx and leaves the <select> and its focus alone, and a phone-width screen."""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Locator, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from play.roll_views import CHARACTER_CHOICES
from tests.campaigns.test_browser import sign_in
from tests.play.test_roll_filter import heroes
from tests.play.test_rolls import record

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

#: More than the filter offers at once, so that the name box is there.
PARTY = CHARACTER_CHOICES + 20


@pytest.fixture
def party(campaign, other_player) -> list[Character]:
    return heroes(campaign, other_player, PARTY)


@pytest.fixture
def log(campaign, player, party) -> Campaign:
    """A roll for each of Hero 030 … Hero 049, the newest the last one's."""
    for hero in party[30:]:
        record(campaign, player, character_id=hero.pk, total=int(hero.name[-2:]))
    return campaign


def log_url(live_server, campaign: Campaign) -> str:
    return f"{live_server.url}/campaigns/{campaign.pk}/rolls/"


def entries(page: Page) -> Locator:
    return page.locator("#roll-list li.roll-entry")


def offered(page: Page) -> list[str]:
    return page.locator("#filter-character option").all_inner_texts()


def test_with_htmx_a_name_narrows_the_choice_and_choosing_swaps_the_list(live_server, page: Page, problems,
                                                                          player, log, party) -> None:  # fmt: skip
    sign_in(page.context, player, live_server)
    page.goto(log_url(live_server, log))
    assert offered(page) == ["Everyone", *(f"Hero {i:03d}" for i in range(CHARACTER_CHOICES))]
    expect(page.locator("#character-choice-note")).to_have_text(
        f"The first {CHARACTER_CHOICES} characters by name: for another, type the start of their name and Show."
    )

    page.get_by_label("Name starts with").fill("hero 04")
    page.get_by_label("Name starts with").blur()
    assert page.evaluate("window.htmxRequests") == 0  # leaving the box asks nothing: the choice is the page's
    page.get_by_label("Name starts with").press("Enter")

    expect(page).to_have_url(re.compile(r"\?character=&character_name=hero\+04&kind=$"))
    expect(page.locator("#filter-character option")).to_have_count(11)
    assert offered(page) == ["Everyone", *(f"Hero {i:03d}" for i in range(40, 50))]
    expect(page.locator("#character-choice-note")).to_have_count(0)
    expect(entries(page)).to_have_count(20)  # a name typed narrows the choice, not the log
    page.evaluate("window.sameDocument = true")

    page.get_by_label("Character").select_option(label="Hero 045")
    expect(entries(page)).to_have_count(1)
    expect(entries(page)).to_contain_text("for Hero 045")
    expect(page).to_have_url(re.compile(rf"\?character={party[45].pk}&character_name=hero(\+|%20)04&kind=$"))

    # The keyboard's way through the choice: each arrow is a change that swaps the list, and the
    # <select> (with its focus and its narrowed options) stays.
    page.get_by_label("Character").focus()
    for _ in range(2):
        page.keyboard.press("ArrowDown")
    expect(entries(page)).to_contain_text("for Hero 047")
    expect(page.get_by_label("Character")).to_be_focused()
    expect(page.get_by_label("Character")).to_have_value(str(party[47].pk))
    assert offered(page) == ["Everyone", *(f"Hero {i:03d}" for i in range(40, 50))]

    page.get_by_label("Kind").select_option(label="Free roll")
    expect(page).to_have_url(re.compile(rf"\?character={party[47].pk}&character_name=hero(\+|%20)04&kind=free$"))
    expect(entries(page)).to_contain_text("for Hero 047")
    assert page.evaluate("window.sameDocument") is True

    page.get_by_label("Name starts with").fill("zed")
    page.get_by_role("button", name="Show").click()
    expect(page.locator("#character-choice-note")).to_have_text("No character’s name starts with “zed”.")
    assert offered(page) == ["Everyone", "Hero 047"]  # the filtered one stays
    expect(page.get_by_label("Character")).to_have_value(str(party[47].pk))
    expect(entries(page)).to_contain_text("for Hero 047")

    page.go_back()
    expect(page.get_by_label("Name starts with")).to_have_value("hero 04")
    expect(page.locator("#filter-character option")).to_have_count(11)
    assert problems == []


def test_without_javascript_the_name_box_and_the_choice_are_one_plain_form(
    live_server, nojs_page: Page, problems, player, log, party
) -> None:
    page = nojs_page
    sign_in(page.context, player, live_server)
    page.goto(log_url(live_server, log))

    page.get_by_label("Name starts with").fill("Hero 04")
    page.get_by_role("button", name="Show").click()

    expect(page).to_have_url(re.compile(r"character_name=Hero\+04"))
    assert offered(page) == ["Everyone", *(f"Hero {i:03d}" for i in range(40, 50))]
    page.get_by_label("Character").select_option(label="Hero 041")
    page.get_by_role("button", name="Show").click()
    expect(entries(page)).to_have_count(1)
    expect(entries(page)).to_contain_text("for Hero 041")
    expect(page.get_by_label("Character")).to_have_value(str(party[41].pk))

    # A link to a character beyond the first ones (say, from their sheet) shows them chosen.
    page.goto(f"{log_url(live_server, log)}?character={party[48].pk}")
    expect(page.get_by_label("Character")).to_have_value(str(party[48].pk))
    assert offered(page)[-1] == "Hero 048"
    expect(entries(page)).to_contain_text("for Hero 048")
    assert problems == []


def test_no_horizontal_scrolling_at_360_pixels(live_server, page: Page, problems, gm, log) -> None:
    sign_in(page.context, gm, live_server)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(log_url(live_server, log))
    expect(page.get_by_label("Name starts with")).to_be_visible()
    expect(page.locator("#character-choice-note")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []
