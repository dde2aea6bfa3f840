"""A short D6 session in three browsers, through the real pages only: the GM and the players of Talia
and Jericho, each on a phone-width screen (360 px), served as production serves it (uvicorn, the ASGI
application, the live dashboard's WebSocket).

Talia's player makes her through the creation pages, spending the stat dice with the running total
keeping count as she types, a bad code refused beside its box, and raising two skills. The GM calls a
Dodge roll at a band's number for both characters and each player rolls it from the live dashboard;
Talia's player opens a skill's roll page from the sheet (a band alone: the chance at both ends), names
the number and rolls, with the wild die in the log; the GM runs a short fight (Talia and a mutant of
codes, initiative, a shot the mutant dodges), and Talia's player, following it live on the encounter
page, shoots on her turn; the GM awards character points and Talia's player buys a pip of Firearms,
which the ledger shows; at last the GM makes two new D6 campaigns from the page, with JavaScript and
without. (D6 has no specializations and no gear that waits for the GM: the Lucky 13 walk covers those.)

Every page the walk visits passes :func:`check_page`: no console error, no response of 500 or more, no
horizontal scrolling; and every page state the axe-core check of the browser fixtures sees.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import expect

from campaigns.models import Campaign, Membership
from characters.models import Character, LedgerEntry
from play.models import Roll
from rules.systems import d6
from rules.systems.d6.chance import p_at_least
from rules.systems.d6.codes import DieCode
from tests.play.test_live_browser import asgi_server  # noqa: F401 (a fixture)
from tests.systems.d6.helpers import jericho_of
from tests.walk import Walk, check_page, open_dashboard, open_sheet, patient_expect, settled  # noqa: F401
from web.templatetags.dice import percent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_gm_and_two_players_play_a_short_d6_session(
    asgi_server,  # noqa: F811
    browser,
    problems,
    patient_expect,  # noqa: F811
    gm,
    player,
    other_player,
) -> None:
    campaign = Campaign.objects.create(name="Ruins of the Ancients", system="d6", players_call_rolls=True)
    for user, role in ((gm, Membership.Role.GM), (player, Membership.Role.PLAYER),
                       (other_player, Membership.Role.PLAYER)):  # fmt: skip
        Membership.objects.create(campaign=campaign, user=user, role=role)
    jericho = jericho_of(campaign, other_player)
    walk = Walk(browser, asgi_server, problems)
    desk, table, other = walk.sign_in(gm), walk.sign_in(player), walk.sign_in(other_player)

    # 1. Talia's player makes her: the stat dice spent with the running total, a bad code refused.
    table.goto(walk.url(f"/campaigns/{campaign.pk}/"))
    check_page(table, problems)
    table.get_by_role("link", name="Create a character").click()
    table.get_by_label("Name").fill("Talia")
    table.get_by_role("button", name="Start").click()
    expect(table.get_by_role("heading", name="Stats", exact=True)).to_be_visible()
    check_page(table, problems)
    total = table.locator('[data-running-total="stats"] output')
    expect(total).to_have_text("18d left")
    codes = ["3d+1", "3d+1", "3d+1", "2d+1", "3d", "3d+3"]  # the last one is not a code: 3 pips make a die
    for name, code in zip(("Dexterity", "Knowledge", "Mechanical", "Perception", "Strength", "Technical"), codes,
                          strict=True):  # fmt: skip
        table.get_by_label(name, exact=True).fill(code)
    expect(total).to_have_text("2d+2 left")  # the last box does not count until it is a code
    table.get_by_role("button", name="Save and continue").click()
    expect(table.locator(".field-error").filter(has_text="three pips make a die, so write 4d")).to_be_visible()
    expect(table.get_by_label("Technical", exact=True)).to_have_value("3d+3")  # kept as typed
    check_page(table, problems, refused=True)
    table.get_by_label("Technical", exact=True).fill("2d+2")
    expect(total).to_have_text("0d left")
    table.get_by_role("button", name="Save and continue").click()
    expect(table.get_by_role("heading", name="Skills", exact=True)).to_be_visible()
    check_page(table, problems)
    skill_total = table.locator('[data-running-total="skills"] output')
    expect(skill_total).to_have_text("7d left")
    table.get_by_label("Firearms", exact=True).fill("5d+1")
    table.get_by_label("Dodge (reaction)", exact=True).fill("4d")
    expect(skill_total).to_have_text("4d+1 left")
    table.get_by_role("button", name="Save and continue").click()
    expect(table.get_by_role("heading", name="Concept and gear", exact=True)).to_be_visible()
    check_page(table, problems)
    table.get_by_role("button", name="Finish the character").click()
    expect(table.get_by_role("heading", name="Stats and skills", exact=True)).to_be_visible()  # the sheet
    check_page(table, problems)
    talia = Character.objects.get(campaign=campaign, name="Talia")
    assert talia.status == "active"
    assert talia.document.luck_points == 1

    # 2. The GM calls a Dodge roll at Medium range's 12 for both; each player rolls it from the dashboard.
    for page in (table, other, desk):
        page.goto(walk.url(f"/campaigns/{campaign.pk}/"))
        check_page(page, problems)
        open_dashboard(page, problems)
    call = desk.locator("#dashboard-call")
    call.get_by_label("Stat or skill", exact=True).select_option("Dodge")
    call.get_by_label("Band", exact=True).select_option("medium")
    call.get_by_label("Difficulty number", exact=True).fill("12")
    call.get_by_label("Talia", exact=True).check()
    call.get_by_label("Jericho", exact=True).check()
    call.get_by_role("button", name="Call for the roll").click()
    expect(call.get_by_role("status")).to_contain_text("Dodge against Medium (12)")
    check_page(desk, problems)
    chance = percent(p_at_least(DieCode.parse("4d"), 12))
    for page, name in ((table, "Talia"), (other, "Jericho")):
        asked = page.locator("#dashboard-requests .request")
        expect(asked).to_contain_text(f"Dodge against Medium (12) from {name}")
        expect(asked.locator(".note strong")).to_have_text(chance)
        check_page(page, problems)
        asked.get_by_role("button", name=f"Roll for {name}").click()
        expect(page.locator("#roll-feed > li").filter(has_text=f"for {name}")).to_contain_text("called by gm")
        check_page(page, problems)
    expect(desk.locator("#roll-feed > li")).to_have_count(2)

    # 3. From the sheet: Firearms against Moderate, the chance at both ends; then at 13, rolled.
    open_sheet(table, walk, campaign, talia)
    table.get_by_role("link", name="Roll Firearms", exact=True).click()
    expect(table.get_by_role("heading", level=1)).to_have_text("Roll for Talia")
    expect(table.locator("#roll-chance")).to_contain_text("At 11, the low end of Moderate")
    expect(table.locator("#roll-chance")).to_contain_text(percent(p_at_least(DieCode.parse("5d+1"), 15)))
    check_page(table, problems)
    table.locator("#roll-options").get_by_label("Difficulty", exact=True).fill("13")
    table.get_by_role("button", name="Show the chance").click()
    expect(table.locator("#roll-chance")).to_contain_text(percent(p_at_least(DieCode.parse("5d+1"), 13)))
    settled(table)
    check_page(table, problems)
    table.get_by_role("button", name="Roll", exact=True).click()
    result = table.locator("#roll-result")
    expect(result).to_contain_text("Wild die")
    check_page(table, problems)
    rolled = Roll.objects.filter(character=talia).latest("seq")
    assert (rolled.spec["code"], rolled.spec["difficulty"]) == ("5d+1", 13)
    expect(result).to_contain_text(f"Total {rolled.total}")

    # A round planned from the sheet: two shots, each at −1d, shown, declared (kept on the sheet), the first rolled.
    open_sheet(table, walk, campaign, talia)
    table.get_by_role("link", name="Plan a round").click()
    expect(table.get_by_role("heading", level=1)).to_have_text("A round for Talia")
    check_page(table, problems)
    for i in (1, 2):
        table.get_by_label(f"Action {i}", exact=True).select_option(label="Firearms 5d+1")
        table.get_by_label(f"Difficulty of action {i}", exact=True).fill("10")
    table.get_by_role("button", name="Show the chances").click()
    preview = table.locator("ul.round-uses.preview > li")
    expect(preview).to_have_count(2)
    expect(preview.first).to_contain_text("4d+1")
    expect(preview.first).to_contain_text("2 actions: −1d")
    check_page(table, problems)
    # The GM watches Talia's round: it appears there, live, as she declares it.
    desk.goto(walk.url(f"/characters/{talia.pk}/round/"))
    expect(desk.locator("#round-live")).to_have_attribute("data-live", "up")
    desk.evaluate("window.sameDocument = true")
    table.get_by_role("button", name="Declare the round").click()
    expect(desk.locator("#round-uses ul.round-uses > li")).to_have_count(2)
    assert desk.evaluate("window.sameDocument") is True  # swapped in over the socket, not reloaded
    check_page(desk, problems)
    uses = table.locator("#round-uses ul.round-uses > li")
    expect(uses).to_have_count(2)
    expect(uses.first).to_contain_text("4d+1")
    check_page(table, problems)
    # The GM has started typing on the round when Talia rolls: what was typed stays, and the page says so.
    desk.get_by_label("Against", exact=True).fill("7")
    uses.first.get_by_role("button").click()
    expect(table.locator("#roll-result")).to_contain_text("Wild die")
    expect(uses.first).to_contain_text("rolled")
    check_page(table, problems)
    expect(desk.locator(".round-changed")).to_contain_text("The round changed since this page was shown.")
    expect(desk.get_by_label("Against", exact=True)).to_have_value("7")
    desk.get_by_role("link", name="Show it as it is now").click()
    expect(desk.locator("#round-uses li.round-use.done")).to_have_count(1)
    check_page(desk, problems)

    # 4. A fight: Talia and a mutant (an NPC of codes); initiative; Talia shoots, the mutant dodges.
    desk.goto(walk.url(f"/campaigns/{campaign.pk}/"))
    desk.get_by_role("link", name="Encounter", exact=True).click()
    check_page(desk, problems)
    desk.get_by_label("Name", exact=True).fill("Mutant Alley")
    desk.get_by_role("button", name="Start an encounter").click()
    expect(desk.get_by_text("Nobody has joined yet.")).to_be_visible()
    settled(desk)
    check_page(desk, problems)
    desk.get_by_role("group", name="Add characters").get_by_label("Talia").check()
    desk.get_by_role("button", name="Add", exact=True).click()
    order = desk.locator("ol.initiative")
    expect(order).to_contain_text("Talia")
    settled(desk)
    npcs = desk.get_by_role("group", name="Add NPCs")
    npcs.get_by_label("Name", exact=True).fill("Mutant")
    npcs.get_by_label("Attack code").fill("3d+1")
    npcs.get_by_label("Dodge or parry code").fill("2d+2")
    desk.get_by_role("button", name="Add NPCs").click()
    expect(order).to_contain_text("Mutant")
    settled(desk)
    check_page(desk, problems)
    desk.get_by_role("button", name="Roll initiative").click()
    expect(desk.get_by_role("heading", name="Initiative order")).to_be_visible()
    settled(desk)
    check_page(desk, problems)
    desk.get_by_label("Attacker", exact=True).select_option(label="Talia")
    desk.get_by_label("Target", exact=True).select_option(label="Mutant")
    desk.get_by_role("radio", name=re.compile("The target’s dodge or parry")).check()  # the GM answers for the NPC
    desk.get_by_role("button", name="Show the chance to hit").click()
    expect(desk.get_by_text("against a dodge or parry of")).to_be_visible()
    settled(desk)
    check_page(desk, problems)
    desk.get_by_role("button", name="Roll the attack").click()
    expect(desk.get_by_role("heading", name="Last attack")).to_be_visible()
    settled(desk)
    check_page(desk, problems)
    first = Roll.objects.get(kind="attack", character=talia)

    # On Talia's turn her player attacks from the encounter page, open live; the GM's page shows it.
    table.goto(walk.url(f"/campaigns/{campaign.pk}/encounter/"))
    expect(table.locator("[data-encounter-live]")).to_have_attribute("data-live", "up")
    table.evaluate("window.sameDocument = true")
    check_page(table, problems)
    current = order.locator("[aria-current=true] .combatant-name")
    for _ in range(2):
        if "Talia" in current.inner_text():
            break
        before = current.inner_text()
        desk.get_by_role("button", name="Next turn").click()
        expect(current).not_to_have_text(before)
        settled(desk)
    expect(table.get_by_role("heading", name="Your turn: Talia")).to_be_visible()
    check_page(table, problems)
    table.get_by_label("Target", exact=True).select_option(label="Mutant")
    table.get_by_role("button", name="Show the chance to hit").click()
    expect(table.get_by_text("No dodge or parry: the difficulty 10 stands")).to_be_visible()  # the mutant's choice
    settled(table)
    check_page(table, problems)
    table.get_by_role("button", name="Roll the attack").click()
    # The attack waits for the mutant's answer, the GM's: both pages show it live, the GM with each chance.
    expect(table.get_by_role("heading", name="Waiting for Mutant’s answer")).to_be_visible()
    check_page(table, problems)
    expect(desk.get_by_role("heading", name="Mutant is attacked: choose how to answer")).to_be_visible()
    settled(desk)
    check_page(desk, problems)
    desk.get_by_role("button", name=re.compile("^Dodge or parry 2d\\+2")).click()
    expect(table.locator(".last-attack")).not_to_contain_text(f"Roll #{first.seq}")
    expect(table.get_by_role("heading", name="Waiting for Mutant’s answer")).to_have_count(0)
    check_page(table, problems)
    assert table.evaluate("window.sameDocument") is True
    own = Roll.objects.filter(kind="attack", character=talia).latest("seq")
    assert (own.by, first.by) == (player, gm)
    expect(desk.locator(".last-attack")).to_contain_text(f"Roll #{own.seq}")  # live on the GM's page
    check_page(desk, problems)

    # 5. The GM awards character points; Talia's player buys a pip of Firearms, which the ledger shows.
    desk.goto(walk.url(f"/campaigns/{campaign.pk}/"))
    check_page(desk, problems)
    desk.get_by_role("link", name="Award points").click()
    check_page(desk, problems)
    desk.get_by_label("Adventure", exact=True).fill("The Mutant Alley")
    desk.get_by_label("Character points for each").fill("6")
    desk.get_by_label("Reason", exact=True).fill("Finished the adventure")
    desk.get_by_role("button", name="Award").click()
    expect(desk.get_by_role("status")).to_contain_text("Talia 6 CP")
    check_page(desk, problems)
    open_sheet(table, walk, campaign, talia)
    table.get_by_role("link", name="What should I buy?").click()
    expect(table.get_by_role("heading", level=1)).to_have_text("What should I buy?")
    check_page(table, problems)
    offer = table.locator(".offer").filter(has_text="Firearms 5d+1 → 5d+2")
    offer.get_by_role("button", name="Buy for 5 CP").click()
    expect(table.get_by_role("status")).to_contain_text("Bought: Firearms 5d+1 → 5d+2 for 5 CP. 1 CP left.")
    check_page(table, problems)

    # 6. The GM makes two more D6 campaigns from the new-campaign page: with JavaScript the options
    # swap in place; without it, "Show its options" brings them.
    desk.goto(walk.url("/campaigns/new/"))
    desk.get_by_label("Name", exact=True).fill("Night Run")
    desk.get_by_label("Rules system").select_option("d6")
    expect(desk.get_by_label("Stat dice at creation")).to_have_value("18")
    check_page(desk, problems)
    desk.get_by_role("button", name="Create the campaign").click()
    expect(desk.get_by_role("heading", level=1)).to_have_text("Night Run")
    check_page(desk, problems)
    bare = walk.sign_in(gm, javascript=False)
    bare.goto(walk.url("/campaigns/new/"))
    bare.get_by_label("Name", exact=True).fill("Dust Road")
    bare.get_by_label("Rules system").select_option("d6")
    bare.get_by_role("button", name="Show its options").click()
    expect(bare.get_by_label("Stat dice at creation")).to_have_value("18")
    expect(bare.get_by_label("Name", exact=True)).to_have_value("Dust Road")
    bare.get_by_role("button", name="Create the campaign").click()
    expect(bare.get_by_role("heading", level=1)).to_have_text("Dust Road")
    assert problems == []
    bare.context.close()
    made = Campaign.objects.filter(name__in=["Night Run", "Dust Road"])
    assert sorted(made.values_list("system", flat=True)) == ["d6", "d6"]
    assert all(c.options == d6.SYSTEM.default_options() for c in made)

    talia.refresh_from_db()
    firearms = next(s for s in talia.document.skills if s.name == "Firearms")
    assert firearms.code == "5d+2"
    assert list(LedgerEntry.objects.filter(character=talia).values_list("amount", flat=True)) == [-5, 6]
    assert Roll.objects.filter(campaign=campaign, kind__in=("check", "opposed")).count() == 4
    assert Roll.objects.filter(campaign=campaign, kind="attack").count() == 2
    assert jericho.pk in {r.character_id for r in Roll.objects.filter(campaign=campaign)}
    for page in (desk, table, other):
        page.context.close()
    assert problems == []
