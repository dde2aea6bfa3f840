"""The GM's calls in a real browser: the GM calls for a roll on the dashboard, the player's dashboard
shows it live with its exact chance, the player rolls it there, and both dashboards show the roll
(called by the GM) and the request answered, without a reload and without a console error."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from playwright.sync_api import expect

from play.models import Roll
from tests.characters.conftest import make_character
from tests.play.test_live_browser import asgi_server, open_dashboard  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_gm_calls_and_the_player_rolls_from_the_dashboard(
    asgi_server,  # noqa: F811
    browser,
    problems,
    campaign,
    gm,
    player,
) -> None:
    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    make_character(campaign, player, name="Brunella")
    table = open_dashboard(browser, player, asgi_server, campaign, problems)
    expect(table.get_by_text("The GM has asked nothing of your characters.")).to_be_visible()
    dashboard = open_dashboard(browser, gm, asgi_server, campaign, problems)

    call = dashboard.locator("#dashboard-call")
    call.get_by_label("Skill", exact=True).select_option("Sneaking")
    call.get_by_label("Difficulty", exact=True).select_option("difficult")
    call.get_by_label("Brunella").check()
    call.get_by_role("button", name="Call for the roll").click()
    expect(call.get_by_role("status")).to_contain_text("Sneaking check, Difficult (d8)")
    expect(dashboard.locator("#dashboard-requests")).to_contain_text("Brunella: waiting")

    asked = table.locator("#dashboard-requests .request")
    expect(asked).to_contain_text("calls for Sneaking check, Difficult (d8) from Brunella", timeout=5000)
    expect(asked).to_contain_text("chance of success")
    asked.get_by_role("button", name="Roll for Brunella").click()
    expect(table.get_by_text("The GM has asked nothing of your characters.")).to_be_visible()
    expect(table.locator("#roll-feed #roll-1")).to_contain_text("called by gm", timeout=5000)
    expect(dashboard.locator("#roll-feed #roll-1")).to_contain_text("Sneaking", timeout=5000)
    expect(dashboard.get_by_text("No open requests.")).to_be_visible()
    assert Roll.objects.get().spec["call"]["by"] == "gm"
    assert table.evaluate("window.sameDocument") is True
    assert dashboard.evaluate("window.sameDocument") is True
    table.context.close()
    dashboard.context.close()
    assert problems == []


def test_the_player_answers_a_call_from_the_sheet_with_a_specialization(
    asgi_server,  # noqa: F811
    browser,
    problems,
    campaign,
    gm,
    player,
) -> None:
    """Issue 23: the GM calls Pulse + Fighting; the player answers from the sheet, adds the Longsword
    specialization (the chance moves as chosen, the called parts stay fixed) and rolls that very roll."""
    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    brunella = make_character(campaign, player, name="Brunella")
    dashboard = open_dashboard(browser, gm, asgi_server, campaign, problems)
    call = dashboard.locator("#dashboard-call")
    call.get_by_label("Skill", exact=True).select_option("Fighting")
    call.get_by_label("Ability", exact=True).select_option("pulse")
    call.get_by_label("Difficulty", exact=True).select_option("challenging")
    call.get_by_label("Brunella").check()
    call.get_by_role("button", name="Call for the roll").click()
    expect(call.get_by_role("status")).to_contain_text("Pulse + Fighting check, Challenging (d6)")

    table = open_dashboard(browser, player, asgi_server, campaign, problems)
    table.get_by_role("link", name="Roll it from the sheet, with what the sheet adds").click()
    expect(table.get_by_role("note")).to_contain_text("Answering gm’s call: Pulse + Fighting check")
    expect(table.get_by_label("Ability", exact=True)).to_be_disabled()
    chance = table.locator("#roll-chance .big-chance")
    bare = chance.inner_text()
    table.get_by_label("Specialization", exact=True).select_option(label="Longsword (1)")
    expect(table.locator("#roll-chance .roll-steps")).to_contain_text("Longsword 1: Skill +1")
    expect(chance).not_to_have_text(bare)
    with_specialization = Fraction(chance.locator("summary").get_attribute("title").removeprefix("exactly "))
    table.get_by_role("button", name=re.compile("^Roll ")).click()
    expect(table.locator("#roll-result")).to_contain_text("total")

    expect(dashboard.locator("#roll-feed #roll-1")).to_contain_text("Longsword", timeout=5000)
    expect(dashboard.get_by_text("No open requests.")).to_be_visible()
    roll = Roll.objects.get()
    assert roll.character_id == brunella.pk
    assert roll.spec["sheet"]["ability"] == "pulse"
    assert Fraction(roll.chance) == with_specialization
    table.context.close()
    dashboard.context.close()
    assert problems == []
