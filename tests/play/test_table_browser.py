"""The table page in three browsers (Playwright, the system Chromium), served as production serves it:
the GM fills the bag; a player draws from it and the other players' open pages follow without a
reload, never showing the token drawn; the player flips two coins and decides, by keyboard, with the
exact chance of each choice shown first."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from play import table
from play.models import Table
from tests.browser import open_page
from tests.play.test_live_browser import AsgiServer, signed_in
from tests.play.test_table import Seeded
from tests.systems.coin.table import TOKENS

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server(async_unsafe_allowed: None) -> Iterator[AsgiServer]:
    server = AsgiServer()
    server.start()
    yield server
    if server.thread.is_alive():
        server.stop()


def open_table(browser, user, server, campaign, problems: list[str]) -> Page:
    page = open_page(signed_in(browser, user, server), problems)
    page.goto(f"{server.url}/campaigns/{campaign.pk}/table/")
    page.evaluate("window.sameDocument = true")
    expect(page.locator("[data-table-live]")).to_have_attribute("data-live", "up")  # the socket is open
    return page


def test_a_draw_reaches_every_open_table_and_the_flipper_decides(
    server, browser, problems, coin_campaign, gm, player, other_player, monkeypatch
) -> None:
    monkeypatch.setattr(table.secrets, "SystemRandom", Seeded)
    desk = open_table(browser, gm, server, coin_campaign, problems)
    hand = open_table(browser, player, server, coin_campaign, problems)
    other = open_table(browser, other_player, server, coin_campaign, problems)

    desk.get_by_role("button", name="Shuffle them in").click()
    for page in (desk, hand, other):
        expect(page.locator("#table-bag")).to_contain_text(f"{len(TOKENS)} tokens")
    hand.get_by_role("button", name="Draw").click()
    expect(hand.locator("#table-bag")).to_contain_text(f"{len(TOKENS) - 1} tokens")
    drawn = Table.objects.get(campaign=coin_campaign).document["hands"][0]["tokens"][0]
    expect(hand.locator("#table-hands")).to_contain_text(drawn)
    expect(desk.locator("#table-hands")).to_contain_text(drawn)  # the GM sees every hand
    expect(other.locator("#table-bag")).to_contain_text(f"{len(TOKENS) - 1} tokens")
    expect(other.locator("#table-hands")).to_contain_text("1 token")
    for token in TOKENS:
        assert token not in other.content()

    hand.get_by_role("button", name="Flip", exact=True).click()
    decision = hand.get_by_role("region", name="Your decision")
    expect(decision).to_be_visible()
    expect(decision.locator(".prompt-choices li")).to_have_count(3)
    expect(decision).to_contain_text("chance of success then")
    expect(other.locator("#table-flip")).to_contain_text("waiting for its flipper")
    expect(other.get_by_role("region", name="Your decision")).to_have_count(0)
    again = decision.get_by_role("button", name="Flip the first again")
    again.focus()
    hand.keyboard.press("Enter")
    expect(hand.get_by_role("region", name="Your decision")).to_have_count(0)
    expect(other.locator("#table-flip")).not_to_contain_text("waiting")
    for page in (desk, hand, other):
        assert page.evaluate("window.sameDocument") is True
        page.context.close()
    assert problems == []
