"""A system with no pages of its own, in a real browser: the test-only Coin is created through the
guided steps its protocol gives (the server's flip, then a form made from its sheet model), its
sheet edited in place with htmx, and flipped for on the roll page made from its situation model,
with the exact chance before the roll. Fails on any console error or CSP violation."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Page, expect

from characters.models import Character
from play.models import Roll
from tests.characters.test_edit_browser import sign_in, unexpected

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_coin_character_is_made_edited_and_flips_for_it(
    live_server, page: Page, problems, coin_campaign, player, monkeypatch
) -> None:
    monkeypatch.setattr("play.sheet_roll_views.secrets.SystemRandom", lambda: random.Random(3))
    monkeypatch.setattr("characters.drafting_views.secrets.SystemRandom", lambda: random.Random(3))
    sign_in(page.context, player, live_server)
    page.goto(f"{live_server.url}/campaigns/{coin_campaign.pk}/")
    page.get_by_role("link", name="Create a character").click()
    page.get_by_label("Name").fill("Flip")
    page.get_by_role("button", name="Start").click()

    expect(page.get_by_role("heading", name="Nerve", level=2)).to_be_visible()  # the server's step
    page.get_by_role("button", name="Roll").click()
    expect(page.locator(".rolled")).to_contain_text("Rolled on the server")
    page.get_by_role("button", name="Save and continue").click()

    expect(page.get_by_role("heading", name="Tricks")).to_have_count(1)  # a form made from the sheet model
    rows = page.locator("fieldset.row-fieldset")
    rows.nth(0).get_by_label("Name").fill("Palm")
    rows.nth(1).get_by_label("Name").fill("palm")
    page.get_by_label("Notes").fill("Quick hands")
    page.get_by_role("button", name="Finish the character").click()
    expect(page.get_by_role("alert")).to_contain_text("Nothing was saved")  # refused, kept as typed
    expect(page.locator("ul.errors")).to_contain_text("Two tricks are called palm.")
    expect(page.locator("fieldset.row-fieldset").nth(1).get_by_label("Name")).to_have_value("palm")
    expect(page.get_by_label("Notes")).to_have_value("Quick hands")
    page.locator("fieldset.row-fieldset").nth(1).get_by_label("Name").fill("Flick")
    page.get_by_role("button", name="Finish the character").click()

    expect(page).to_have_url(re.compile(r"/characters/[0-9]+/$"))  # the sheet
    expect(page.locator("article.sheet")).to_be_visible()
    flip = Character.objects.get(name="Flip")
    assert (flip.status, [t.name for t in flip.document.tricks]) == ("active", ["Palm", "Flick"])

    page.evaluate("window.sameDocument = true")
    page.locator("#edit-tricks").click()  # in place, with htmx
    page.locator("#tricks fieldset.row-fieldset").nth(2).get_by_label("Name").fill("Spin")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#tricks")).to_contain_text("Spin")
    assert page.evaluate("window.sameDocument") is True

    page.get_by_role("link", name="Flip for it").click()
    expect(page.locator(".roll-label")).to_contain_text(f"Nerve ({flip.document.nerve} coin")
    expect(page.locator(".big-chance")).to_contain_text("%")
    page.get_by_role("button", name="Roll").click()
    roll = Roll.objects.get()
    expect(page.locator(f"#roll-{roll.seq}")).to_contain_text("Rolled")
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/characters/{flip.pk}/")
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert unexpected(problems, "400") == []
