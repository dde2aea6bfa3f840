"""A decision after a sheet's dice in a real browser (uvicorn, the ASGI application, the in-memory
channel layer, as ``tests.characters.test_sheet_live_browser``): the player dares with Coin's Flip from
the sheet, in place; their decision shows beside the sheet with each choice's chance, and the other
player's open sheet says whom it waits for without a reload; once kept, both pages show none. Fails on
a console error or a Content Security Policy violation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from playwright.sync_api import expect

from characters.models import Character
from play import moves
from tests.characters.test_sheet_live_browser import open_sheet
from tests.play.test_live_browser import AsgiServer
from tests.systems.coin import system as coin

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


class Dice:
    """Heads, then tails: a dare the player may mend by flipping the second coin again."""

    faces = ["heads", "tails"]

    def __init__(self, *args: object) -> None:
        self.faces = list(Dice.faces)

    def choice(self, options: object) -> str:
        return self.faces.pop(0)


@pytest.fixture
def server(async_unsafe_allowed: None) -> Iterator[AsgiServer]:
    server = AsgiServer()
    server.start()
    yield server
    if server.thread.is_alive():
        server.stop()


def test_the_decision_shows_to_its_maker_and_live_to_the_others(
    server, browser, problems, coin_campaign, player, other_player, monkeypatch
) -> None:
    monkeypatch.setattr(moves.secrets, "SystemRandom", Dice)
    sheet = coin.Sheet(step="", nerve=3, luck=5).model_dump(mode="json")
    flip = Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)
    watching = open_sheet(browser, other_player, server, flip, problems)
    mine = open_sheet(browser, player, server, flip, problems)

    mine.get_by_role("link", name="Dare fate").click()
    mine.locator("#coins").get_by_role("button", name="Flip two coins").click()
    decision = mine.locator("#decision")
    expect(decision).to_contain_text("Heads and tails: keep them, or flip one again?")
    expect(decision.get_by_role("listitem").nth(2)).to_contain_text("50.0%")
    expect(watching.locator("#decision")).to_contain_text("Waiting for player to decide.", timeout=5000)
    assert "keep them, or flip" not in watching.content()

    decision.get_by_role("button", name="Keep them").click()
    expect(mine.locator("#coins dd").nth(1)).to_have_text("4")  # a Luck point lost
    expect(mine.locator("#decision")).to_be_empty()
    expect(watching.locator("#decision")).to_be_empty(timeout=5000)
    for page in (mine, watching):
        page.context.close()
    assert problems == []
