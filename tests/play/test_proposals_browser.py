"""A proposed roll in a real browser: the player proposes from the sheet's roll page (htmx, in place),
the GM's dashboard shows the proposal live with its exact chance, the GM calls it in one click, and
the player's dashboard shows the request to roll, without a reload and without a console error."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from play.models import RollProposal, RollRequest
from tests.browser import open_page
from tests.characters.conftest import SNEAKING, make_character
from tests.play.test_live_browser import asgi_server, open_dashboard, signed_in  # noqa: F401 (a fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_player_proposes_and_the_gm_calls_it_live(
    asgi_server,  # noqa: F811
    browser,
    problems,
    campaign,
    gm,
    player,
) -> None:
    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    brunella = make_character(campaign, player, name="Brunella")
    dashboard = open_dashboard(browser, gm, asgi_server, campaign, problems)
    table = open_dashboard(browser, player, asgi_server, campaign, problems)
    expect(table.get_by_text("The GM has asked nothing of your characters.")).to_be_visible()

    sheet = open_page(signed_in(browser, player, asgi_server), problems)
    sheet.goto(f"{asgi_server.url}/characters/{brunella.pk}/roll/?skill={SNEAKING}")
    sheet.evaluate("window.sameDocument = true")
    sheet.get_by_label("Difficulty", exact=True).select_option("difficult")
    proposal = sheet.locator("#roll-proposal")
    # The chance (and the proposal with it) is swapped for the choice before the note is typed.
    expect(sheet.locator("#roll-chance .roll-label")).to_contain_text("vs Difficult")
    proposal.get_by_label("Why (optional)").fill("The guards are asleep")
    proposal.get_by_role("button", name="Propose this roll to the GM").click()
    expect(sheet.get_by_role("status").filter(has_text="Proposed to the GM")).to_contain_text(
        "Sneaking check, Difficult (d8)"
    )
    assert sheet.evaluate("window.sameDocument") is True

    proposed = dashboard.locator("#dashboard-requests .proposal")
    expect(proposed).to_contain_text("player proposes Sneaking check, Difficult (d8) for Brunella", timeout=5000)
    expect(proposed).to_contain_text("Why: The guards are asleep")
    expect(proposed).to_contain_text("chance of success")
    expect(table.locator("#dashboard-requests .proposal")).to_contain_text("Waiting for the GM", timeout=5000)

    proposed.get_by_role("button", name="Call it").click()
    expect(dashboard.locator("#dashboard-requests")).to_contain_text("Brunella: waiting")
    expect(dashboard.locator("#dashboard-requests .proposal")).to_have_count(0)

    asked = table.locator("#dashboard-requests .request").first
    expect(asked).to_contain_text("calls for Sneaking check, Difficult (d8) from Brunella", timeout=5000)
    expect(asked.get_by_role("button", name="Roll for Brunella")).to_be_visible()
    expect(table.locator("#dashboard-requests .proposal")).to_contain_text("Called by the GM")
    request = RollRequest.objects.get()
    assert RollProposal.objects.get().request == request
    for page in (dashboard, table):
        assert page.evaluate("window.sameDocument") is True
    for page in (sheet, table, dashboard):
        page.context.close()
    assert problems == []


def test_the_gm_changes_a_proposal_before_calling_it(
    asgi_server,  # noqa: F811
    browser,
    problems,
    campaign,
    gm,
    player,
) -> None:
    from play import proposals

    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    brunella = make_character(campaign, player, name="Brunella")
    proposals.propose(character_id=brunella.pk, by=player, situation={"skill": SNEAKING}, note="Past the guards")
    dashboard = open_dashboard(browser, gm, asgi_server, campaign, problems)
    dashboard.get_by_role("link", name="Change it, then call it").click()
    expect(dashboard.get_by_role("heading", level=1)).to_have_text("Call a proposed roll")
    expect(dashboard.get_by_text("Why: Past the guards")).to_be_visible()
    form = dashboard.locator("#proposal-call")
    expect(form.get_by_label("Brunella")).to_be_checked()
    form.get_by_label("Difficulty", exact=True).select_option("challenging")
    form.get_by_role("button", name="Call for the roll").click()
    expect(dashboard.locator("#dashboard-requests")).to_contain_text("Sneaking check, Challenging (d6)")
    expect(dashboard.locator("#dashboard-requests .proposal")).to_have_count(0)
    assert RollRequest.objects.get().call["difficulty"] == "challenging"
    dashboard.context.close()
    assert problems == []
