"""A refused form in a real browser, with DEBUG on as ``make run`` has it: htmx puts the form's
400 partial in place, each message by its field and everything typed kept, and the rest of the
page (its header, its stylesheet) stays. Under DEBUG, django-htmx's debug script used to put any
400 response in place of the whole page, which left a bare form on a blank page.

Chromium logs every 4xx response as "Failed to load resource" in the console: that line, for the
status the test expects, is the only console error allowed (``unexpected``)."""

from __future__ import annotations

import pytest
from django.urls import reverse
from playwright.sync_api import Page, expect

from campaigns.models import Campaign, Membership
from characters.models import Character, LedgerEntry
from rules.dice import StepDie
from tests.characters.conftest import make_character
from tests.characters.test_edit_browser import sign_in, unexpected
from tests.systems.lucky13 import drafts as creation

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture(params=[True, False], ids=["debug", "production"])
def debug(request, settings) -> bool:
    settings.DEBUG = request.param
    return request.param


def still_the_whole_page(page: Page) -> None:
    """The page around the swapped form is still there: the header, the footer and the stylesheets (the
    one every page loads, once, beside the page's own)."""
    expect(page.get_by_role("navigation", name="Main")).to_be_visible()
    expect(page.locator("footer.site-footer")).to_be_visible()
    expect(page.locator('link[rel="stylesheet"][href*="/css/base"]')).to_have_count(1)
    assert page.evaluate("document.styleSheets.length") >= 1


def test_debug_pages_load_htmx_without_the_debug_script_that_blanks_the_page(client, settings, player) -> None:
    settings.DEBUG = True
    client.force_login(player)

    page = client.get(reverse("pages:about")).content.decode()

    assert "django_htmx/htmx-2.min.js" in page
    assert "django-htmx.js" not in page


def test_a_refused_section_edit_shows_in_place(live_server, page: Page, problems, debug, campaign, gm, player) -> None:
    brunella = make_character(campaign, player)
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/characters/{brunella.pk}/")
    page.evaluate("window.sameDocument = true")
    page.locator("#edit-reputation").click()
    page.get_by_role("spinbutton", name="Reputation").fill("9")
    page.get_by_role("button", name="Save").click()

    field = page.get_by_role("spinbutton", name="Reputation")
    expect(page.locator("#standing .field-error")).to_have_text("Reputation runs from -5 to +5.")
    expect(field).to_have_value("9")  # as typed
    expect(field).to_have_attribute("aria-describedby", "id_reputation_error")
    expect(page.get_by_role("alert")).to_contain_text("Nothing was saved.")
    still_the_whole_page(page)
    expect(page.locator("#notes")).to_contain_text("Owes the ferryman two silver.")  # the rest of the sheet
    assert page.evaluate("window.sameDocument") is True
    assert Character.objects.get(pk=brunella.pk).document.reputation == 1
    assert unexpected(problems, "400") == []


def test_a_refused_award_shows_by_its_field_with_everything_typed(live_server, page: Page, problems, debug, campaign,
                                                                   gm, player) -> None:  # fmt: skip
    make_character(campaign, player)
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/award/")
    page.get_by_label("Adventure", exact=True).fill("The Drowned Bell")
    page.get_by_label("Adventure Points for each").fill("5000")
    page.get_by_label("Reason", exact=True).fill("Completing the mission")
    page.get_by_role("button", name="Award").click()

    amount = page.get_by_label("Adventure Points for each")
    expect(amount.locator("xpath=following-sibling::p[@class='field-error']")).to_contain_text("1000")
    expect(amount).to_have_value("5000")
    expect(page.get_by_label("Adventure", exact=True)).to_have_value("The Drowned Bell")
    expect(page.get_by_label("Reason", exact=True)).to_have_value("Completing the mission")
    still_the_whole_page(page)
    assert page.evaluate("window.htmxDone") >= 1  # it went through htmx
    assert not LedgerEntry.objects.exists()
    assert unexpected(problems, "400") == []

    amount.fill("12")
    page.get_by_role("button", name="Award").click()
    expect(page.get_by_role("status")).to_contain_text("Awarded: Brunella 12 AP.")
    expect(page).to_have_url(f"{live_server.url}/campaigns/{campaign.pk}/")
    assert unexpected(problems, "400") == []


def test_a_refused_creation_step_keeps_every_pick(live_server, page: Page, problems, debug, campaign, player) -> None:
    draft = creation.start_character(campaign=campaign, owner=player, name="Brunella")
    sign_in(page.context, player, live_server)
    page.goto(f"{live_server.url}/characters/{draft.pk}/create/abilities/")
    picks = {"Will": "d12", "Charm": "d12", "Pulse": "d10", "Intellect": "d6", "Reflex": "d8"}
    for ability, die in picks.items():
        page.get_by_label(ability, exact=True).select_option(die)
    page.get_by_role("button", name="Save and continue").click()

    expect(page.get_by_role("alert")).to_contain_text("The balanced array is d4 d6 d6 d8 d10: too many d12.")
    for ability, die in picks.items():
        expect(page.get_by_label(ability, exact=True)).to_have_value(die)
    still_the_whole_page(page)
    expect(page.get_by_role("navigation", name="Creation steps")).to_be_visible()
    assert page.evaluate("window.htmxDone") >= 1
    assert Character.objects.get(pk=draft.pk).document.abilities.will is None
    assert unexpected(problems, "400") == []


def test_a_failure_htmx_does_not_swap_is_said_by_the_form(live_server, page: Page, problems, debug, campaign, gm,
                                                          player) -> None:  # fmt: skip
    brunella = make_character(campaign, player)
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/characters/{brunella.pk}/")
    page.locator("#edit-notes").click()
    notes = page.get_by_role("textbox", name="Notes")
    expect(notes).to_be_focused()
    notes.fill("Paid the ferryman.")
    brunella.delete()  # meanwhile the character is gone: the save is a 404, which is not swapped in
    page.get_by_role("button", name="Save").click()

    expect(page.locator("#notes .request-problem")).to_have_text(
        "That did not work (the server answered 404 Not Found). Try again, or reload the page."
    )
    expect(notes).to_have_value("Paid the ferryman.")  # nothing typed is lost
    still_the_whole_page(page)
    assert unexpected(problems, "404", "Response Status Error Code 404") == []


def test_point_bought_skill_dice_are_counted_as_they_are_chosen(live_server, page: Page, problems, gm,
                                                                 player) -> None:  # fmt: skip
    campaign = Campaign.objects.create(name="Points", system="lucky13", options={"skill_method": "point_buy"})
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    draft = creation.start_character(campaign=campaign, owner=player, name="Brunella")
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    creation.assign_abilities(
        character_id=draft.pk, array="balanced", dice={k: StepDie.parse(v) for k, v in dice.items()}
    )
    sign_in(page.context, player, live_server)
    page.goto(f"{live_server.url}/characters/{draft.pk}/create/abilities/")
    page.get_by_role("link", name="2. Skills").click()  # a boosted page: the counting still works

    total = page.locator("#skill-points")
    expect(total).to_have_text("Points spent: 0 of 15; 15 left.")
    requests = page.evaluate("window.htmxRequests")
    page.get_by_label("Spellcasting").select_option("d12")
    expect(total).to_have_text("Points spent: 5 of 15; 10 left.")
    page.get_by_label("Scholarship").select_option("d12")
    page.get_by_label("Healing").select_option("d10")
    expect(total).to_have_text("Points spent: 14 of 15; 1 left.")
    page.get_by_label("Sneaking").select_option("d6")
    expect(total).to_have_text("Points spent: 16 of 15; 1 over the budget.")
    assert page.evaluate("window.htmxRequests") == requests  # counted in the page, with no request

    page.get_by_label("Fighting").select_option("d4")
    page.get_by_role("button", name="Save and continue").click()
    expect(page.locator("#skills-error")).to_have_text("Those dice cost 17 points; the budget is 15.")
    expect(total).to_have_text("Points spent: 17 of 15; 2 over the budget.")  # the server counts the same
    expect(page.get_by_label("Sneaking")).to_have_value("d6")
    page.get_by_label("Sneaking").select_option("d4")
    page.get_by_label("Healing").select_option("d8")
    expect(total).to_have_text("Points spent: 15 of 15; 0 left.")
    page.get_by_role("button", name="Save and continue").click()
    expect(page.get_by_role("heading", name="Specializations")).to_be_visible()
    assert unexpected(problems, "400") == []


def test_an_impairment_without_a_name_is_refused_in_place(live_server, page: Page, problems, debug, campaign,
                                                          player) -> None:  # fmt: skip
    draft = creation.start_character(campaign=campaign, owner=player, name="Brunella")
    dice = {"will": "d6", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d8"}
    creation.assign_abilities(
        character_id=draft.pk, array="balanced", dice={k: StepDie.parse(v) for k, v in dice.items()}
    )
    creation.set_skills(character_id=draft.pk)
    creation.set_specializations(character_id=draft.pk, choices=[], took_impairment=False)
    sign_in(page.context, player, live_server)
    page.goto(f"{live_server.url}/characters/{draft.pk}/create/traits/")
    entry = page.get_by_role("group", name="Entry 1")
    entry.get_by_label("Kind").select_option("impairment")
    entry.get_by_label("Description").fill("Limps since the siege")
    page.get_by_role("button", name="Save and continue").click()

    entry = page.get_by_role("group", name="Entry 1")
    expect(entry.locator(".field-error")).to_have_text("Give this impairment a name.")
    expect(entry.get_by_label("Name")).to_have_attribute("aria-invalid", "true")
    expect(entry.get_by_label("Kind")).to_have_value("impairment")
    expect(entry.get_by_label("Description")).to_have_value("Limps since the siege")
    still_the_whole_page(page)
    assert Character.objects.get(pk=draft.pk).document.traits == ()
    assert unexpected(problems, "400") == []
