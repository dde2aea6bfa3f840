"""The live sheet in a real browser, served as production serves it (uvicorn, the ASGI
application, the in-memory channel layer; see ``tests.play.test_live_browser``): the GM saves
Brunella's sheet from their own page and the player's open sheet shows the new values without
a reload; a region the player is editing keeps its form and what was typed, and says that the
sheet changed; a page that was offline catches up on reconnecting. Every test also fails on a
console error or a Content Security Policy violation."""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from django.test import Client
from playwright.sync_api import Browser, Page, expect

from characters import write
from characters.models import Character
from rules.systems.base import Role
from tests.browser import open_page, without_expected
from tests.play.test_live_browser import AsgiServer, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server(async_unsafe_allowed: None) -> Iterator[AsgiServer]:
    server = AsgiServer()
    server.start()
    yield server
    if server.thread.is_alive():
        server.stop()


def open_sheet(browser: Browser, user, server: AsgiServer, character: Character, problems: list[str]) -> Page:
    page = open_page(signed_in(browser, user, server), problems)
    page.goto(f"{server.url}/characters/{character.pk}/")
    page.evaluate("window.sameDocument = true")
    expect(page.locator("article.sheet")).to_have_attribute("data-live", "up")  # the socket is open
    return page


def gm_saves(page: Page, section: str, label: str, value: str) -> None:
    """The GM edits one section of the sheet on their own page, in place."""
    page.locator(f"#edit-{section}").click()
    page.locator("form.section-form").get_by_label(label, exact=True).fill(value)
    page.get_by_role("button", name="Save").click()
    expect(page.locator("form.section-form")).to_have_count(0)


def test_the_gms_edit_shows_on_the_players_open_sheet_without_a_reload(
    server, browser, problems, brunella, gm, player
) -> None:
    sheet = open_sheet(browser, player, server, brunella, problems)
    expect(sheet.locator("#notes")).to_contain_text("Owes the ferryman two silver.")
    expect(sheet.locator("#hit-points .hp-summary")).to_contain_text("30 of 30 hit points")

    gm_page = open_sheet(browser, gm, server, brunella, problems)
    gm_saves(gm_page, "notes", "Notes", "Paid the ferryman; owes the innkeeper.")
    expect(sheet.locator("#notes")).to_contain_text("Paid the ferryman; owes the innkeeper.", timeout=5000)
    gm_saves(gm_page, "hit-points", "Current hit points", "12")
    expect(sheet.locator("#hit-points .hp-summary")).to_contain_text("12 of 30 hit points", timeout=5000)

    # Swapped in place: the same document, and the player's Edit buttons still work in it.
    assert sheet.evaluate("window.sameDocument") is True
    expect(sheet.locator("article.sheet")).to_have_attribute("data-version", str(brunella.version + 2))
    sheet.locator("#edit-notes").click()
    notes = sheet.locator("#notes form").get_by_label("Notes", exact=True)
    expect(notes).to_have_value("Paid the ferryman; owes the innkeeper.")
    for page in (sheet, gm_page):
        page.context.close()
    assert problems == []


def test_a_region_being_edited_keeps_what_was_typed_and_says_the_sheet_changed(
    server, browser, problems, brunella, gm, player
) -> None:
    sheet = open_sheet(browser, player, server, brunella, problems)
    sheet.locator("#edit-notes").click()
    notes = sheet.locator("#notes form").get_by_label("Notes", exact=True)
    expect(notes).to_be_focused()
    notes.fill("Half a thought about the ferry")

    gm_page = open_sheet(browser, gm, server, brunella, problems)
    gm_saves(gm_page, "hit-points", "Current hit points", "7")

    expect(sheet.locator("#hit-points .hp-summary")).to_contain_text("7 of 30 hit points", timeout=5000)
    notice = sheet.locator("#notes .sheet-changed")
    expect(notice).to_have_text(
        "This sheet changed while you were editing. If this section changed too, "
        "saving will not overwrite it: you will see what it says now, next to what you typed."
    )
    expect(notice).to_have_attribute("role", "status")
    expect(notes).to_have_value("Half a thought about the ferry")
    expect(notes).to_be_focused()  # the swaps elsewhere leave the keyboard where it was
    assert sheet.evaluate("window.sameDocument") is True

    # The notes did not change meanwhile, so the save goes through and the region is read-only again.
    sheet.get_by_role("button", name="Save").click()
    expect(sheet.locator("#notes")).to_contain_text("Half a thought about the ferry")
    expect(sheet.locator("#notes form")).to_have_count(0)
    expect(sheet.locator(".sheet-changed")).to_have_count(0)
    assert Character.objects.get(pk=brunella.pk).document.notes == "Half a thought about the ferry"
    for page in (sheet, gm_page):
        page.context.close()
    assert problems == []


def test_a_page_that_was_offline_fetches_the_sheet_again_on_reconnecting(
    server, browser, problems, brunella, gm, player
) -> None:
    sheet = open_sheet(browser, player, server, brunella, problems)
    server.stop()
    expect(sheet.locator("article.sheet")).to_have_attribute("data-live", "down")

    # Saved while the page could not hear it (the announcement reaches no socket).
    write.change(
        brunella.pk,
        version=None,
        by=gm,
        what="A fall",
        sections=["hit-points"],
        edit=lambda c: c.rules.edit(
            c.document, "hit-points", {"hit_points": 3}, role=Role.GM, options=c.campaign.settings
        ),
    )
    server.start()
    expect(sheet.locator("#hit-points .hp-summary")).to_contain_text("3 of 30 hit points", timeout=15000)
    expect(sheet.locator("article.sheet")).to_have_attribute("data-live", "up")
    assert sheet.evaluate("window.sameDocument") is True
    sheet.context.close()
    # The browser reports the refused connections while the server was down; nothing else.
    assert without_expected(problems, "WebSocket connection") == []


def test_served_over_wsgi_the_sheet_does_not_try_a_socket(live_server, page: Page, problems, brunella, player) -> None:
    # pytest-django's live server speaks WSGI, which has no WebSockets (as would a WSGI deployment):
    # the sheet is not offered live there, instead of failing to connect again and again.
    client = Client()
    client.force_login(player)
    cookie = {"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}
    page.context.add_cookies([cookie])
    page.goto(f"{live_server.url}/characters/{brunella.pk}/")
    expect(page.locator("#notes")).to_contain_text("Owes the ferryman two silver.")
    page.locator("#edit-notes").click()  # the sheet works as before
    expect(page.locator("#notes form")).to_have_count(1)
    assert page.locator("article.sheet").get_attribute("data-live") is None
    assert problems == []
