"""The GM's calls in a real browser: the GM calls for a roll on the dashboard, the player's dashboard
shows it live with its exact chance, the player rolls it there, and both dashboards show the roll
(called by the GM) and the request answered, without a reload and without a console error."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from playwright.sync_api import expect

from play.models import Roll
from tests.browser import open_page
from tests.characters.conftest import make_character
from tests.play.test_live_browser import asgi_server, open_dashboard, signed_in  # noqa: F401 (a fixture)

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


#: Counts the requests fragments a page's socket hears (what another member's change sends every socket).
COUNT_REQUESTS_FRAGMENTS = """
window.requestsHeard = 0;
const PageSocket = window.WebSocket;
window.WebSocket = class extends PageSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (event) => {
      if (String(event.data).includes('"id": "dashboard-requests"')) window.requestsHeard += 1;
    });
  }
};
"""


def test_another_players_roll_leaves_the_request_a_player_is_about_to_answer_in_place(
    asgi_server,  # noqa: F811
    browser,
    problems,
    campaign,
    gm,
    player,
    other_player,
) -> None:
    """The GM calls for a roll from two players' characters; one player has tabbed to the button of theirs
    when the other rolls. Every socket hears that the requests changed, and this player's are the same as
    before: the page keeps them as they are, with the focus on the button, and Enter rolls."""
    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    make_character(campaign, player, name="Brunella")
    make_character(campaign, other_player, name="Otto")
    dashboard = open_dashboard(browser, gm, asgi_server, campaign, problems)
    table = open_dashboard(browser, player, asgi_server, campaign, problems)
    other = open_page(signed_in(browser, other_player, asgi_server), problems)
    other.add_init_script(COUNT_REQUESTS_FRAGMENTS)
    other.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/dashboard/")
    expect(other.locator("#live")).to_have_attribute("data-live", "up")

    call = dashboard.locator("#dashboard-call")
    call.get_by_label("Skill", exact=True).select_option("Sneaking")
    call.get_by_label("Brunella").check()
    call.get_by_label("Otto").check()
    call.get_by_role("button", name="Call for the roll").click()
    expect(call.get_by_role("status")).to_contain_text("Sneaking check")
    button = other.get_by_role("button", name="Roll for Otto")
    button.focus()
    expect(button).to_be_focused()
    heard = other.evaluate("window.requestsHeard")

    table.get_by_role("button", name="Roll for Brunella").click()
    expect(other.locator("#roll-feed #roll-1")).to_contain_text("for Brunella")
    other.wait_for_function("heard => window.requestsHeard > heard", arg=heard)  # this page's requests, again
    expect(button).to_be_focused()
    other.keyboard.press("Enter")
    expect(other.locator("#roll-feed #roll-2")).to_contain_text("for Otto")
    assert Roll.objects.count() == 2
    for page in (dashboard, table, other):
        page.context.close()
    assert problems == []
