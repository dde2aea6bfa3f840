"""The GM's award page on a phone (360 px, a real browser): each character is a card whose boxes are all
in sight, none of them off the right edge of the screen, each named on the page."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from tests.campaigns.test_browser import sign_in
from tests.characters.conftest import make_character

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OUT_OF_SIGHT = """() => [...document.querySelectorAll("main .award-table input")]
  .filter(i => { const box = i.getBoundingClientRect(); return box.right > window.innerWidth || box.left < 0; })
  .map(i => i.name)"""


def test_every_box_of_each_character_is_in_sight_at_360_pixels(live_server, page: Page, problems, campaign, gm,
                                                                player) -> None:  # fmt: skip
    brunella = make_character(campaign, player)
    page.set_viewport_size({"width": 360, "height": 800})
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}{reverse('characters:award', args=[campaign.pk])}")
    change = page.get_by_label("Reputation change for Brunella")
    expect(change).to_be_visible()
    assert page.evaluate(OUT_OF_SIGHT) == []
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    expect(page.locator(f'td[data-label="Reputation change"] input[name="reputation-{brunella.pk}"]')).to_have_count(1)
    assert problems == []
