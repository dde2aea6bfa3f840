"""Editing the sheet in a real browser (Playwright, the system Chromium): htmx swaps a
section for its form and back, the keyboard follows, a conflict shows in place, a
phone-width screen, and the same edits without JavaScript. Every test also fails on
a console error or a Content Security Policy violation (the fixtures of ``tests.browser``,
shared through ``tests/conftest.py``)."""

from __future__ import annotations

import pytest
from django.test import Client
from playwright.sync_api import BrowserContext, Page, expect

from characters.models import Character
from rules.systems import lucky13
from tests.browser import without_expected
from tests.characters.conftest import brunella_sheet, make_character

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def unexpected(seen: list[str], status: str, *also: str) -> list[str]:
    """The problems seen, less Chromium's console note about the refusal the test expects (a 400 or a 409)
    and any other problem it expects (one containing a phrase of ``also``). What is expected is taken off
    ``seen``, the test's ``problems``: anything left there fails the test at its end (tests/conftest.py)."""
    return without_expected(seen, f"the server responded with a status of {status}", *also)


def sign_in(context: BrowserContext, user, live_server) -> None:
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])


def test_with_the_keyboard_a_section_opens_saves_and_returns_in_place(live_server, page: Page, problems, brunella,
                                                                     player) -> None:  # fmt: skip
    sign_in(page.context, player, live_server)
    page.goto(f"{live_server.url}/characters/{brunella.pk}/")
    page.evaluate("window.sameDocument = true")

    page.locator("#edit-notes").focus()
    page.keyboard.press("Enter")
    notes = page.get_by_label("Notes", exact=True)
    expect(notes).to_be_focused()  # the keyboard moves into the form
    notes.fill("Paid the ferryman.")
    page.keyboard.press("Tab")  # to Save
    expect(page.get_by_role("button", name="Save")).to_be_focused()
    page.keyboard.press("Enter")

    expect(page.locator("#notes")).to_contain_text("Paid the ferryman.")
    expect(page.locator("#edit-notes")).to_be_focused()  # and back to the section's Edit button
    assert page.evaluate("window.sameDocument") is True
    assert Character.objects.get(pk=brunella.pk).document.notes == "Paid the ferryman."
    assert problems == []


def test_the_player_renames_a_specialization_and_cancel_puts_the_section_back(live_server, page: Page, problems,
                                                                             brunella, player) -> None:  # fmt: skip
    sign_in(page.context, player, live_server)
    page.goto(f"{live_server.url}/characters/{brunella.pk}/")
    expect(page.locator("#edit-skills")).to_have_count(0)  # the skill dice are the GM's

    page.get_by_role("link", name="Edit specializations").click()
    expect(page.get_by_role("group", name="Teleport").get_by_label("Name")).to_be_focused()  # the first field
    page.get_by_role("group", name="Teleport").get_by_label("Name").fill("Blink")
    page.get_by_role("button", name="Save").click()
    expect(page.locator("#skills")).to_contain_text("Blink 2 → d12")

    page.get_by_role("link", name="Edit specializations").click()
    page.get_by_role("link", name="Cancel").click()
    expect(page.locator("#skills form")).to_have_count(0)
    expect(page.locator("#edit-specializations")).to_be_focused()
    specializations = Character.objects.get(pk=brunella.pk).document.skills[0].specializations
    assert [(s.name, s.level) for s in specializations] == [("Blink", 2), ("Fireball", 1)]
    assert problems == []


def test_a_conflict_shows_in_place_with_the_current_values(live_server, page: Page, problems, brunella, gm) -> None:
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/characters/{brunella.pk}/")
    page.locator("#edit-reputation").click()
    expect(page.get_by_role("spinbutton", name="Reputation")).to_be_focused()
    page.get_by_role("spinbutton", name="Reputation").fill("-3")
    # Meanwhile, in another tab, the reputation changes.
    Character.objects.filter(pk=brunella.pk).update(
        sheet=brunella_sheet(reputation=4), version=2, section_versions={"reputation": 2}
    )
    page.get_by_role("button", name="Save").click()

    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Someone else changed this section since you opened it.")
    expect(alert).to_contain_text("Reputation: -3")
    expect(alert).to_be_focused()
    expect(page.get_by_role("spinbutton", name="Reputation")).to_have_value("4")
    assert Character.objects.get(pk=brunella.pk).document.reputation == 4
    assert unexpected(problems, "409") == []


def test_a_phone_width_screen_needs_no_sideways_scrolling(live_server, page: Page, problems, brunella, gm) -> None:
    sign_in(page.context, gm, live_server)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/characters/{brunella.pk}/")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.locator("#edit-equipment").click()
    expect(page.get_by_role("group", name="Old map").get_by_label("Name")).to_be_focused()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []


def test_without_javascript_edit_is_a_page_and_save_goes_back_to_the_sheet(live_server, nojs_page: Page, problems,
                                                                          brunella, gm) -> None:  # fmt: skip
    page = nojs_page
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/characters/{brunella.pk}/")
    page.get_by_role("link", name="Edit hit points").click()
    expect(page).to_have_url(f"{live_server.url}/characters/{brunella.pk}/edit/hit-points/")
    page.get_by_label("Current hit points").fill("99")
    page.get_by_role("button", name="Save").click()
    expect(page.get_by_role("alert")).to_contain_text("Hit points run from -8 (dead) to 30 (full).")

    page.get_by_label("Current hit points").fill("12")
    page.get_by_role("button", name="Save").click()
    expect(page).to_have_url(f"{live_server.url}/characters/{brunella.pk}/#hit-points")
    expect(page.locator("#hit-points .hp-summary")).to_contain_text("12 of 30")
    assert unexpected(problems, "400") == []


#: Every section of the Lucky 13 sheet, by the id of its Edit button (the GM may edit them all).
SECTIONS = ["details", "abilities", "skills", "specializations", "traits", "equipment", "hit-points", "reputation",
            "notes"]  # fmt: skip


def test_the_sheet_keeps_its_heading_while_a_section_is_edited_in_place(live_server, page: Page, problems,
                                                                       brunella, gm) -> None:  # fmt: skip
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/characters/{brunella.pk}/")
    page.evaluate("window.sameDocument = true")
    heading = page.get_by_role("heading", level=1)

    for section in SECTIONS:
        page.locator(f"#edit-{section}").click()
        expect(page.locator("form.section-form")).to_be_visible()  # swapped into its form
        expect(heading).to_have_text("Brunella")  # the page's one h1, outside the region
        expect(page.get_by_role("article", name="Brunella")).to_be_visible()  # the sheet still named by it
        page.get_by_role("link", name="Cancel").click()
        expect(page.locator("form.section-form")).to_have_count(0)

    assert page.evaluate("window.sameDocument") is True
    assert problems == []


@pytest.mark.parametrize(("per_step", "lines"), [(10, 1), (20, 2)])
def test_at_360_pixels_the_hit_point_chart_keeps_its_rows(live_server, page: Page, problems, campaign, gm, player,
                                                         per_step, lines) -> None:  # fmt: skip
    campaign.options = lucky13.validate_options({"hit_points_per_step": per_step})
    campaign.save()
    abilities = {"will": "d6", "charm": "d4", "pulse": "d12", "intellect": "d6", "reflex": "d10"}
    character = make_character(campaign, player, abilities=abilities, hit_points=per_step * 3 + 7)
    sign_in(page.context, gm, live_server)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/characters/{character.pk}/")

    rows = page.locator("#hit-points .hp-chart tbody tr")
    expect(rows).to_have_count(5)  # a row per Pulse step, d4 to d12
    expect(rows.locator("th")).to_have_text(["d4", "d6", "d8", "d10", "d12"])
    shapes = rows.evaluate_all("""rows => rows.map(row => ({
      cells: [...row.cells].map(cell => cell.getBoundingClientRect()).map(r => [r.left, r.right, Math.round(r.top)]),
      slots: [...row.querySelectorAll(".slot")].map(slot => slot.getBoundingClientRect()),
    })).map(row => ({
      cells: row.cells,
      slots: row.slots.length,
      lines: new Set(row.slots.map(r => Math.round(r.top))).size,
      inside: row.slots.every(r => r.left >= 0 && r.right <= window.innerWidth),
    }))""")
    for shape in shapes:
        assert len(shape["cells"]) == 3  # Pulse, its slots, the total: side by side, one row
        assert len({top for _left, _right, top in shape["cells"]}) == 1
        assert all(left >= 0 and right <= 360 for left, right, _top in shape["cells"])
        assert (shape["slots"], shape["lines"], shape["inside"]) == (per_step, lines, True)
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert problems == []
