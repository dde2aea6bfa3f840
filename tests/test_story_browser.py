"""The whole story in two browsers: a GM creates a campaign and an invitation; a new
player signs up through the link, joins, creates a character with the array method and
renames a specialization in place; the GM sees the character on the campaign page.

Everything goes through the real pages (Playwright, the system Chromium), log-ins included.
"""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from playwright.sync_api import Browser, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from tests.browser import open_page

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

PASSWORD = "correct horse battery staple"


def log_in(page: Page, base: str, username: str) -> None:
    page.goto(f"{base}/accounts/login/")
    page.get_by_label("Username").fill(username)
    page.get_by_label("Password").fill(PASSWORD)
    page.get_by_role("button", name="Log in").click()
    expect(page.get_by_role("button", name="Log out")).to_be_visible()


def test_a_gm_invites_a_new_player_who_builds_a_character_and_edits_it_in_place(
    live_server, browser: Browser, problems: list[str]
) -> None:
    get_user_model().objects.create_user("gm", password=PASSWORD)
    base = live_server.url
    gm_page = open_page(browser.new_context(), problems)
    player_page = open_page(browser.new_context(), problems)

    # The GM creates a campaign (the default options: Fantasy skills, balanced or random abilities).
    log_in(gm_page, base, "gm")
    gm_page.goto(f"{base}/campaigns/new/")
    gm_page.get_by_label("Name", exact=True).fill("The Sunken Crown")
    gm_page.get_by_role("button", name="Create the campaign").click()
    expect(gm_page.get_by_role("heading", level=1)).to_have_text("The Sunken Crown")
    campaign = Campaign.objects.get()

    # ... and an invitation link.
    gm_page.get_by_role("link", name="Invite players").click()
    gm_page.get_by_role("button", name="Create an invitation link").click()
    link = gm_page.get_by_label("Link to share (select it and copy)").first.input_value()
    assert "/invite/" in link

    # A newcomer opens the link, signs up, and comes back to join.
    player_page.goto(link)
    player_page.locator("main").get_by_role("link", name="Sign up").click()
    player_page.get_by_label("Username").fill("vex")
    player_page.get_by_label("Password", exact=True).fill(PASSWORD)
    player_page.get_by_label("Password confirmation").fill(PASSWORD)
    player_page.get_by_role("button", name="Sign up").click()
    player_page.get_by_role("button", name="Join as vex").click()
    expect(player_page.get_by_role("heading", level=1)).to_have_text("The Sunken Crown")

    # A character by the array method, step by step.
    player_page.get_by_role("link", name="Create a character").click()
    player_page.get_by_label("Name").fill("Vex")
    player_page.get_by_label("Concept").fill("Knife for hire")
    player_page.get_by_role("button", name="Start").click()
    player_page.get_by_label("Balanced").check()
    for ability, die in (("Will", "d6"), ("Charm", "d4"), ("Pulse", "d8"), ("Intellect", "d6"), ("Reflex", "d10")):
        player_page.get_by_label(ability, exact=True).select_option(die)
    player_page.get_by_role("button", name="Save and continue").click()
    expect(player_page.get_by_role("heading", name="Skills")).to_be_visible()
    player_page.get_by_role("button", name="Save and continue").click()
    player_page.get_by_label("Skill 1", exact=True).select_option("Fighting")
    player_page.get_by_label("Specialization 1", exact=True).fill("Knife fighting")
    player_page.get_by_role("button", name="Save and continue").click()
    player_page.get_by_label("Name").first.fill("Street urchin")
    player_page.get_by_role("button", name="Save and continue").click()
    player_page.get_by_label("Weapon 1").fill("Knife")
    player_page.get_by_role("button", name="Save and continue").click()
    expect(player_page.get_by_role("heading", name="Review")).to_be_visible()
    player_page.get_by_role("button", name="Finish the character").click()
    expect(player_page.get_by_role("heading", level=1)).to_have_text("Vex")
    expect(player_page.locator("#hit-points")).to_contain_text("30 of 30")

    # The player renames the specialization in place: no page load. The page has finished loading first
    # (its deferred htmx set up): a click before that follows the link as a page without script would.
    player_page.wait_for_function("() => document.readyState === 'complete' && window.htmx !== undefined")
    player_page.evaluate("window.sameDocument = true")
    player_page.get_by_role("link", name="Edit specializations").click()
    player_page.get_by_role("group", name="Knife fighting").get_by_label("Name").fill("Knife work")
    player_page.get_by_role("button", name="Save").click()
    expect(player_page.locator("#skills")).to_contain_text("Knife work 1 → d12")
    assert player_page.evaluate("window.sameDocument") is True

    # The GM sees the new character in the party.
    gm_page.goto(f"{base}/campaigns/{campaign.pk}/")
    expect(gm_page.locator("#party").get_by_role("link", name="Vex", exact=True)).to_be_visible()
    expect(gm_page.locator("main")).to_contain_text("vex")
    # Her gear waits for the GM, who sees it on the same page.
    expect(gm_page.locator("#awaiting-gm").get_by_role("link", name="Vex", exact=True)).to_be_visible()

    vex = Character.objects.get(name="Vex")
    assert vex.status == "active"
    assert vex.owner.username == "vex"
    assert [p.name for s in vex.document.skills for p in s.specializations] == ["Knife work"]
    assert vex.document.hit_points == 30
    assert problems == []
    gm_page.context.close()
    player_page.context.close()
