"""The campaign pages in a real browser (Playwright, the system Chromium): the generated options form's lists
of rows (a preset, more rows, a row's own rows) swapped in place by htmx and the same form without JavaScript,
the Enter key, the invitation list, and a phone-width screen. Every test also fails on a console
error or a Content Security Policy violation (the fixtures of ``tests.browser``,
shared through ``tests/conftest.py``)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone
from playwright.sync_api import BrowserContext, Page, expect

from campaigns.models import Campaign, Invitation, Membership
from rules.systems import d6, lucky13
from rules.systems.d6 import options as d6_options
from tests.campaigns.helpers import make_character
from tests.characters.test_edit_browser import unexpected

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def sign_in(context: BrowserContext, user, live_server) -> None:
    """The browser carries the session of ``user``, as if they had logged in."""
    client = Client()
    client.force_login(user)
    cookie = client.cookies["sessionid"]
    context.add_cookies([{"name": "sessionid", "value": cookie.value, "url": live_server.url}])


def test_with_htmx_a_preset_swaps_the_skill_list_and_enter_saves(live_server, page: Page, problems, gm) -> None:
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/new/")
    page.evaluate("window.sameDocument = true")
    page.get_by_label("Name", exact=True).fill("Starfall")

    page.get_by_label("Skill list").select_option("sci_fi")
    page.get_by_role("button", name="Use this list").click()

    expect(page.get_by_label("Skill (skill 1)", exact=True)).to_have_value("Technology")
    assert page.evaluate("window.sameDocument") is True  # swapped in place, not a new page
    expect(page.get_by_label("Name", exact=True)).to_have_value("Starfall")  # the rest of the page stays
    page.get_by_label("Skill (skill 6)", exact=True).fill("Piloting")  # Combat renamed
    page.get_by_role("button", name="More skill rows").click()  # with htmx: rows added in place
    expect(page.get_by_label("Skill (skill 11)", exact=True)).to_have_value("")
    expect(page.get_by_label("Skill (skill 6)", exact=True)).to_have_value("Piloting")  # what was typed stays
    page.get_by_label("Skill (skill 7)", exact=True).fill("Hacking")
    page.get_by_label("Name", exact=True).press("Enter")  # Enter saves; it never presses a redraw button

    expect(page.get_by_role("heading", level=1)).to_have_text("Starfall")
    campaign = Campaign.objects.get()
    assert [s["name"] for s in campaign.options["skills"]][-2:] == ["Piloting", "Hacking"]
    assert Membership.objects.get(campaign=campaign).user == gm
    assert problems == []


def test_without_javascript_the_same_form_works(live_server, nojs_page: Page, problems, gm) -> None:
    page = nojs_page
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/new/")
    page.get_by_label("Name", exact=True).fill("Ashlands")

    page.get_by_label("Skill list").select_option("post_apocalyptic")
    page.get_by_role("button", name="Use this list").click()
    expect(page.get_by_label("Skill (skill 1)", exact=True)).to_have_value("History")
    page.get_by_role("button", name="More skill rows").click()
    page.get_by_label("Skill (skill 8)", exact=True).fill("Scavenging")
    page.get_by_label("Remove skill 2").check()
    page.get_by_role("button", name="Create the campaign").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Ashlands")
    skills = [s["name"] for s in Campaign.objects.get().options["skills"]]
    assert skills == ["History", "Technology", "Weaponry", "Scavenging"]
    assert problems == []


def test_with_htmx_choosing_d6_swaps_in_its_options_and_creates_a_d6_campaign(
    live_server, page: Page, problems, gm
) -> None:
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/new/")
    page.evaluate("window.sameDocument = true")
    page.get_by_label("Name", exact=True).fill("Night Run")

    page.get_by_label("Rules system").select_option("d6")

    expect(page.get_by_label("Stat dice at creation")).to_have_value("18")
    assert page.evaluate("window.sameDocument") is True  # the options swapped in place
    expect(page.get_by_label("Play style")).to_have_count(0)  # nothing of Lucky 13 is left
    expect(page.get_by_label("Stat (stat 1)", exact=True)).to_have_value("Dexterity")
    page.get_by_label("Skill (skill 3 of stat 4)", exact=True).fill("Spot Hidden")
    page.get_by_role("button", name="Use this list").click()  # the preset comes back whole
    expect(page.get_by_label("Skill (skill 3 of stat 4)", exact=True)).to_have_value("Investigation")
    page.get_by_role("button", name="More skill rows of stat 4").click()  # a row's own list grows in place
    expect(page.get_by_label("Skill (skill 10 of stat 4)", exact=True)).to_have_value("")
    page.get_by_label("Skill (skill 7 of stat 4)", exact=True).fill("Spot Hidden")
    page.get_by_label("Reaction (skill 7 of stat 4)", exact=True).check()
    for n in (3, 4, 5, 6):
        page.get_by_label(f"Remove skill {n} of stat 4", exact=True).check()
    expect(page.get_by_label("Stat dice at creation")).to_have_value("18")
    expect(page.get_by_label("Name", exact=True)).to_have_value("Night Run")
    page.get_by_role("button", name="Create the campaign").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Night Run")
    campaign = Campaign.objects.get()
    assert campaign.system == "d6"
    perception = {**PERCEPTION, "skills": [*PERCEPTION["skills"][:2], {**PERCEPTION["skills"][2], "reaction": True}]}
    assert campaign.options == d6.SYSTEM.validate_options(
        {"stat_preset": "custom",
         "stats": [*d6_options.preset_stats("six")[:3], perception, *d6_options.preset_stats("six")[4:]]}
    )  # fmt: skip
    assert problems == []


def test_with_htmx_another_system_takes_the_last_ones_errors_away(live_server, page: Page, problems, gm) -> None:
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/new/")
    page.get_by_label("Hit points per Pulse step").fill("0")
    page.get_by_role("button", name="Create the campaign").click()  # no name, too few hit points
    summary = page.get_by_role("alert").filter(has_text="Please check the campaign")
    expect(summary).to_contain_text("Hit points per Pulse step")
    expect(summary).to_contain_text("Name")

    page.get_by_label("Rules system").select_option("d6")

    expect(page.get_by_label("Stat dice at creation")).to_have_value("18")
    expect(summary).to_have_count(0)
    page.get_by_label("Name", exact=True).fill("Night Run")
    page.get_by_role("button", name="Create the campaign").click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Night Run")
    assert Campaign.objects.get().options == d6.SYSTEM.default_options()
    assert unexpected(problems, "400") == []


def test_without_javascript_a_d6_campaign_is_made_from_the_page(live_server, nojs_page: Page, problems, gm) -> None:
    page = nojs_page
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/new/")
    page.get_by_label("Name", exact=True).fill("Night Run")

    page.get_by_label("Rules system").select_option("d6")
    page.get_by_role("button", name="Show its options").click()

    expect(page.get_by_label("Stat dice at creation")).to_have_value("18")
    expect(page.get_by_label("Name", exact=True)).to_have_value("Night Run")
    page.get_by_label("Skill (skill 3 of stat 4)", exact=True).fill("Spot Hidden")
    for n in (4, 5, 6):
        page.get_by_label(f"Remove skill {n} of stat 4", exact=True).check()
    page.get_by_role("button", name="More skill rows of stat 2").click()  # without JavaScript: the page redrawn
    expect(page.get_by_label("Name", exact=True)).to_have_value("Night Run")
    expect(page.get_by_label("Skill (skill 3 of stat 4)", exact=True)).to_have_value("Spot Hidden")
    page.get_by_label("Skill (skill 6 of stat 2)", exact=True).fill("Riddles")
    page.get_by_role("button", name="Create the campaign").click()

    expect(page.get_by_role("heading", level=1)).to_have_text("Night Run")
    campaign = Campaign.objects.get()
    assert campaign.system == "d6"
    assert campaign.options["stats"][3] == PERCEPTION
    assert campaign.options["stats"][1]["skills"][-1] == {"name": "Riddles", "reaction": False, "combat": ""}
    assert campaign.options["stat_dice"] == 18
    assert problems == []


#: Perception with a skill whose name has a space in it, as the tests above type it.
PERCEPTION = {
    "name": "Perception",
    "skills": [{"name": name, "reaction": False, "combat": ""} for name in ("Con", "Hide", "Spot Hidden")],
}


def test_with_htmx_a_new_invitation_appears_in_the_list(live_server, page: Page, problems, gm, campaign) -> None:
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/invitations/")
    page.evaluate("window.sameDocument = true")

    page.get_by_label("30 days").check()
    page.get_by_role("button", name="Create an invitation link").click()

    link = page.get_by_label("Link to share (select it and copy)")
    expect(link).to_be_visible()
    assert link.input_value() == f"{live_server.url}/invite/{Invitation.objects.get().token}/"
    assert page.evaluate("window.sameDocument") is True
    assert problems == []


@pytest.fixture
def busy_campaign(campaign, gm, player, other_player) -> Campaign:
    """A campaign with long names, a party, drafts, archived characters and invitations."""
    campaign.name = "The Sunken Crown of the Drowned Kings Beneath the Glass Sea"
    campaign.description = "A drowned city. " * 20
    campaign.options = lucky13.validate_options({"skill_preset": "sci_fi"})
    campaign.save()
    for i, owner in enumerate([player, other_player, player]):
        make_character(campaign, owner, f"Brunella Longname-Ironhand the {i}th", hit_points=-2 if i else 25)
    make_character(campaign, gm, "Draft", status="draft")
    make_character(campaign, player, "Retired", status="archived")
    for uses in (None, 1):
        Invitation.objects.create(campaign=campaign, created_by=gm, max_uses=uses,
                                  expires_at=timezone.now() + timedelta(days=7))  # fmt: skip
    return campaign


@pytest.mark.parametrize(
    "path",
    ["/campaigns/", "/campaigns/new/", "/campaigns/{pk}/", "/campaigns/{pk}/settings/", "/campaigns/{pk}/invitations/",
     "/campaigns/{pk}/archive/confirm/", "/invite/{token}/"],
)  # fmt: skip
def test_no_horizontal_scrolling_at_360_pixels(live_server, page: Page, problems, gm, busy_campaign, path) -> None:
    sign_in(page.context, gm, live_server)
    page.set_viewport_size({"width": 360, "height": 740})
    token = busy_campaign.invitations.first().token
    if path.startswith("/invite/"):
        page.context.clear_cookies()  # a visitor, asked to log in

    page.goto(live_server.url + path.format(pk=busy_campaign.pk, token=token))

    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []
