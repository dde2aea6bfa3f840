"""A whole Lucky 13 session in three browsers, through the real pages only: the GM and the players
of Brunella and Otto, each on a phone-width screen (360 px), served as production serves it (uvicorn,
the ASGI application, the live dashboard's WebSocket).

The GM calls the rolls (``players_call_rolls`` off). The GM calls a Sneaking check for both
characters and each player rolls it from the live dashboard; then a Pulse + Fighting check for
Brunella, which her player answers from the sheet with her Longsword specialization; Brunella's player
looks at a contest against Otto and the GM rolls it; the GM runs a fight (Brunella and a goblin, then
Otto and a wolf join it under way, and an attack), which Brunella's player follows live on the encounter
page and where she attacks on her turn; a wound lowers Brunella's Pulse die on her roll page; more
damage leaves her dying and unable to roll, until the GM heals her; the GM awards Adventure Points and
the player spends some, which the ledger shows; the player adds a d12 greatsword, which waits until the
GM approves it from the campaign page; at last the GM makes two new Lucky 13 campaigns from the page,
with JavaScript and without.

Every page the walk visits passes :func:`check_page`: no console error, no response of 500 or more,
no horizontal scrolling.
"""

from __future__ import annotations

import re

import pytest
from playwright.sync_api import Page, expect

from campaigns.models import Campaign
from characters.models import LedgerEntry
from play.models import Roll
from play.rolls import contest_words
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import AbilityRoll, Check, Explosion
from tests.characters.conftest import TELEPORT, make_character
from tests.play.test_live_browser import asgi_server  # noqa: F401 (a fixture)
from tests.walk import Walk, check_page, open_dashboard, open_sheet, patient_expect, settled  # noqa: F401 (a fixture)
from web.templatetags.dice import percent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def pulse_check(page: Page, problems: list[str]) -> None:
    """From the sheet, the roll page of Fighting, turned into a Pulse check."""
    page.get_by_role("link", name="Roll Fighting", exact=True).click()
    expect(page.get_by_role("heading", level=1)).to_have_text("Roll Fighting")
    check_page(page, problems)
    page.get_by_label("Ability", exact=True).select_option("pulse")
    expect(page.locator("#roll-chance .roll-dice")).to_contain_text("Ability: Pulse")
    settled(page)
    check_page(page, problems)


def test_a_gm_and_two_players_play_a_whole_session(
    asgi_server,  # noqa: F811
    browser,
    problems,
    patient_expect,  # noqa: F811
    campaign,
    gm,
    player,
    other_player,
) -> None:
    campaign.players_call_rolls = False
    campaign.save(update_fields=["players_call_rolls"])
    brunella = make_character(campaign, player)  # Reflex d10, Pulse d8: 30 hit points, 10 a step
    otto = make_character(campaign, other_player, name="Otto")
    walk = Walk(browser, asgi_server, problems)
    desk, table, other = walk.sign_in(gm), walk.sign_in(player), walk.sign_in(other_player)

    # 1. The GM calls a Sneaking check of both characters; each player sees it live, with its exact
    # chance, and rolls it from the dashboard; the GM's feed shows both rolls, called by the GM.
    for page in (table, other, desk):
        page.goto(walk.url(f"/campaigns/{campaign.pk}/"))
        check_page(page, problems)
        open_dashboard(page, problems)
    expect(table.get_by_text("The GM has asked nothing of your characters.")).to_be_visible()

    call = desk.locator("#dashboard-call")
    call.get_by_label("Skill", exact=True).select_option("Sneaking")
    call.get_by_label("Difficulty", exact=True).select_option("difficult")
    call.get_by_label("Brunella", exact=True).check()
    call.get_by_label("Otto", exact=True).check()
    call.get_by_role("button", name="Call for the roll").click()
    expect(call.get_by_role("status")).to_contain_text("Sneaking check, Difficult (d8)")
    expect(desk.locator("#dashboard-requests")).to_contain_text("Brunella: waiting")
    expect(desk.locator("#dashboard-requests")).to_contain_text("Otto: waiting")
    check_page(desk, problems)

    # Reflex d10 + Sneaking d8 + Difficult d8, exploding (the campaign's cinematic default).
    sneaking = Check(StepDie.parse("d10"), StepDie.parse("d8"), StepDie.parse("d8"), AbilityRoll.NORMAL,
                     Explosion.CINEMATIC)  # fmt: skip
    chance = percent(lucky13.check_chance(sneaking).p_success)
    for page, name in ((table, "Brunella"), (other, "Otto")):
        asked = page.locator("#dashboard-requests .request")
        expect(asked).to_contain_text(f"gm calls for Sneaking check, Difficult (d8) from {name}")
        expect(asked.locator(".note strong")).to_have_text(chance)
        check_page(page, problems)
        asked.get_by_role("button", name=f"Roll for {name}").click()
        expect(page.get_by_text("The GM has asked nothing of your characters.")).to_be_visible()
        expect(page.locator("#roll-feed > li").filter(has_text=f"for {name}")).to_contain_text("called by gm")
        check_page(page, problems)

    feed = desk.locator("#roll-feed > li")
    expect(feed).to_have_count(2)
    for name in ("Brunella", "Otto"):
        roll = feed.filter(has_text=f"for {name}")
        expect(roll).to_contain_text("Sneaking")
        expect(roll).to_contain_text("called by gm")
    expect(desk.get_by_text("No open requests.")).to_be_visible()
    check_page(desk, problems)
    for page in (desk, table, other):
        assert page.evaluate("window.sameDocument") is True

    # The GM calls Pulse + Fighting for Brunella; her player answers from the sheet and adds her
    # Longsword specialization, which the call leaves to the sheet: the roll the GM sees carries it.
    call.get_by_label("Skill", exact=True).select_option("Fighting")
    call.get_by_label("Ability", exact=True).select_option("pulse")
    call.get_by_label("Difficulty", exact=True).select_option("challenging")
    call.get_by_label("Brunella", exact=True).check()
    call.get_by_label("Otto", exact=True).uncheck()
    call.get_by_role("button", name="Call for the roll").click()
    expect(call.get_by_role("status")).to_contain_text("Pulse + Fighting check, Challenging (d6)")
    table.get_by_role("link", name="Roll it from the sheet, with what the sheet adds").click()
    expect(table.get_by_role("note")).to_contain_text("Answering gm’s call: Pulse + Fighting check")
    check_page(table, problems)
    table.get_by_label("Specialization", exact=True).select_option(label="Longsword (1)")
    expect(table.locator("#roll-chance .roll-steps")).to_contain_text("Longsword 1: Skill +1")
    settled(table)
    check_page(table, problems)
    table.get_by_role("button", name=re.compile("^Roll ")).click()
    expect(table.locator("#roll-result")).to_contain_text("total")
    check_page(table, problems)
    expect(feed).to_have_count(3)
    expect(feed.first).to_contain_text("Longsword")
    expect(feed.first).to_contain_text("called by gm")
    expect(desk.get_by_text("No open requests.")).to_be_visible()
    check_page(desk, problems)
    called = Roll.objects.filter(character=brunella, kind="check").latest("seq")
    assert called.spec["sheet"]["ability"] == "pulse"
    assert "Longsword" in str(called.spec["sheet"])

    # 2. A contest: Brunella's player opens it from her sheet and sees the odds against Otto; the GM,
    # who calls the rolls here, rolls it from the same page.
    open_sheet(table, walk, campaign, brunella)
    table.get_by_role("link", name="Contest with Fighting").click()
    expect(table.get_by_role("heading", level=1)).to_have_text("A contest for Brunella")
    check_page(table, problems)
    table.get_by_label("Against a character").select_option(label="Otto")
    table.get_by_role("button", name="Show the chances").click()
    expect(table.locator("#contest-chance")).to_contain_text("Otto wins")
    expect(table.locator("#contest-chance")).to_contain_text("the GM rolls the contest")
    expect(table.get_by_role("button", name="Roll the contest")).to_have_count(0)
    check_page(table, problems)

    open_sheet(desk, walk, campaign, brunella)
    desk.get_by_role("link", name="Contest with Fighting").click()
    expect(desk.get_by_role("heading", level=1)).to_have_text("A contest for Brunella")
    check_page(desk, problems)
    desk.get_by_label("Against a character").select_option(label="Otto")
    desk.get_by_role("button", name="Show the chances").click()
    expect(desk.locator("#contest-chance")).to_contain_text("Brunella wins")
    check_page(desk, problems)
    desk.get_by_role("button", name="Roll the contest").click()
    outcome = desk.locator("#contest-result .outcome")
    expect(outcome).to_have_text(re.compile(r"^(Wins|Loses|A draw.*)$"))
    check_page(desk, problems)
    contest = Roll.objects.get(kind="opposed", character=brunella)
    assert (contest.by, contest.spec["sheet"]["opponent"]["name"]) == (gm, "Otto")
    expect(outcome).to_have_text(contest_words(contest.outcome))

    # 3. A fight: Brunella and a goblin roll initiative; Otto joins it under way; Brunella attacks.
    desk.goto(walk.url(f"/campaigns/{campaign.pk}/"))
    check_page(desk, problems)
    desk.get_by_role("link", name="Encounter", exact=True).click()
    expect(desk.get_by_text("No encounter is running.")).to_be_visible()
    check_page(desk, problems)
    desk.get_by_label("Name", exact=True).fill("Ambush at the ford")
    desk.get_by_role("button", name="Start an encounter").click()
    expect(desk.locator(".encounter-status")).to_have_text("Initiative not rolled yet")
    expect(desk.get_by_text("Nobody has joined yet.")).to_be_visible()
    settled(desk)
    check_page(desk, problems)
    desk.get_by_role("group", name="Add characters").get_by_label("Brunella").check()
    desk.get_by_role("button", name="Add", exact=True).click()
    order = desk.locator("ol.initiative")
    expect(order).to_contain_text("Brunella")
    settled(desk)
    npcs = desk.get_by_role("group", name="Add NPCs")
    npcs.get_by_label("Name", exact=True).fill("Goblin")
    npcs.get_by_label("Combat").select_option("d6")
    npcs.get_by_label("Weapon damage").select_option("d6")
    desk.get_by_role("button", name="Add NPCs").click()
    expect(order).to_contain_text("Goblin")
    settled(desk)
    check_page(desk, problems)
    desk.get_by_role("button", name="Roll initiative").click()
    expect(desk.get_by_role("heading", name="Initiative order")).to_be_visible()
    settled(desk)
    check_page(desk, problems)

    # Brunella's player follows the fight on the encounter page, live.
    table.goto(walk.url(f"/campaigns/{campaign.pk}/encounter/"))
    expect(table.locator("[data-encounter-live]")).to_have_attribute("data-live", "up")
    expect(table.get_by_role("heading", name="Initiative order")).to_be_visible()
    table.evaluate("window.sameDocument = true")
    check_page(table, problems)

    desk.get_by_role("link", name="Someone joins the fight…").click()
    expect(desk.get_by_role("heading", name="Someone joins the fight")).to_be_visible()
    settled(desk)
    check_page(desk, problems)
    desk.get_by_role("group", name="Add characters").get_by_label("Otto").check()
    desk.get_by_role("button", name="Add", exact=True).click()
    expect(desk.get_by_role("heading", name="Initiative order")).to_be_visible()
    expect(order.locator(".combatant-name")).to_have_count(3)
    expect(order).to_contain_text("Otto")
    expect(desk.locator("[aria-current=true]")).to_have_count(1)
    settled(desk)
    check_page(desk, problems)
    # Otto's player, still on the dashboard, sees the fight he has joined.
    expect(other.locator("#initiative ol.initiative .combatant-name")).to_have_count(3)
    expect(other.locator("#initiative")).to_contain_text("Otto")
    check_page(other, problems)

    desk.get_by_label("Attacker", exact=True).select_option(label="Brunella")
    desk.get_by_label("Target", exact=True).select_option(label="Goblin")
    desk.get_by_role("button", name="Show the chance to hit").click()
    expect(desk.get_by_text("hits Goblin with a chance of")).to_be_visible()
    settled(desk)
    check_page(desk, problems)
    desk.get_by_role("button", name="Roll the attack").click()
    expect(desk.get_by_role("heading", name="Last attack")).to_be_visible()
    settled(desk)
    check_page(desk, problems)
    assert Roll.objects.filter(kind="attack", character=brunella).count() == 1

    # A wolf joins the fight; on Brunella's turn her player attacks it from the encounter page, and the
    # GM's page shows it live.
    desk.get_by_role("link", name="Someone joins the fight…").click()
    expect(desk.get_by_role("heading", name="Someone joins the fight")).to_be_visible()
    settled(desk)
    npcs.get_by_label("Name", exact=True).fill("Wolf")
    npcs.get_by_label("Combat").select_option("d6")
    npcs.get_by_label("Weapon damage").select_option("d6")
    desk.get_by_role("button", name="Add NPCs").click()
    expect(order.locator(".combatant-name")).to_have_count(4)
    expect(table.locator("ol.initiative .combatant-name")).to_have_count(4)  # live on the player's page
    settled(desk)
    check_page(desk, problems)
    current = order.locator("[aria-current=true] .combatant-name")
    for _ in range(4):
        if "Brunella" in current.inner_text():
            break
        before = current.inner_text()
        desk.get_by_role("button", name="Next turn").click()
        expect(current).not_to_have_text(before)
        settled(desk)
    expect(table.get_by_role("heading", name="Your turn: Brunella")).to_be_visible()
    check_page(table, problems)
    table.get_by_label("Target", exact=True).select_option(label="Wolf")
    table.get_by_role("button", name="Show the chance to hit").click()
    expect(table.get_by_text("hits Wolf with a chance of")).to_be_visible()
    settled(table)
    check_page(table, problems)
    table.get_by_role("button", name="Roll the attack").click()
    expect(table.locator(".last-attack")).to_contain_text("Brunella attacked Wolf")
    check_page(table, problems)
    assert table.evaluate("window.sameDocument") is True
    attacks = Roll.objects.filter(kind="attack", character=brunella).order_by("seq")
    assert [a.by for a in attacks] == [gm, player]
    own = attacks.last()
    seen = f"Brunella attacked Wolf: {own.total} against {own.outcome['defender_total']}"
    expect(desk.locator(".last-attack")).to_contain_text(seen)

    # 4. A wound: 12 damage leaves Brunella 18 of 30 hit points, below the d8 step (21-30): her Pulse
    # checks roll a d6 (11-20).
    def adjust(direction: str, amount: int, reason: str, now: str) -> None:
        form = desk.get_by_role("group", name="Heal or damage")
        form.get_by_label("Who", exact=True).select_option(label="Brunella")
        form.get_by_label(direction, exact=True).check()
        form.get_by_label("Hit points", exact=True).fill(str(amount))
        form.get_by_label("Reason").fill(reason)
        desk.get_by_role("button", name="Apply").click()
        expect(order.locator("li").filter(has_text="Brunella")).to_contain_text(now)
        settled(desk)
        check_page(desk, problems)

    adjust("Damage", 12, "a goblin's spear", "18 of 30 hp")
    open_sheet(table, walk, campaign, brunella)
    expect(table.locator("#hit-points")).to_contain_text("18 of 30 hit points")
    pulse_check(table, problems)
    expect(table.locator("#roll-chance .roll-steps")).to_contain_text("Wounded: Pulse d8 → d6")
    expect(table.locator("#roll-chance .roll-dice div").filter(has_text="Ability: Pulse").locator("dd")).to_have_text(
        "d6"
    )

    # 5. Dying: 18 more leave her at 0, and her roll page says she cannot act; healed, she rolls again.
    adjust("Damage", 18, "the goblin again", "0 of 30 hp")
    expect(order.locator("li").filter(has_text="Brunella")).to_contain_text("Dying")
    expect(other.locator(f"#party-{brunella.pk}")).to_contain_text("Dying")
    check_page(other, problems)
    table.reload()
    expect(table.locator("#roll-chance")).to_contain_text(
        "the character is dying: at 0 hit points or fewer a character does not act"
    )
    expect(table.locator("#roll-chance .big-chance")).to_have_count(0)
    check_page(table, problems)  # a state of the character, not a bad request: no 400

    adjust("Heal", 20, "a healing draught", "20 of 30 hp")
    table.reload()
    expect(table.locator("#roll-chance .big-chance")).to_be_visible()
    expect(table.locator("#roll-chance .roll-steps")).to_contain_text("Wounded: Pulse d8 → d6")
    check_page(table, problems)

    open_sheet(desk, walk, campaign, brunella)
    pulse_check(desk, problems)
    desk.locator("#roll-button").click()
    result = desk.locator("#roll-result .outcome")
    expect(result).to_have_text(re.compile(r"^(Success|Failure)$"))
    check_page(desk, problems)
    pulse_roll = Roll.objects.filter(character=brunella, kind="check").latest("seq")
    assert (pulse_roll.by, pulse_roll.spec["ability"]) == (gm, "d6")
    expect(result).to_have_text("Success" if pulse_roll.outcome["success"] else "Failure")

    # 6. The GM awards Adventure Points; Brunella's player spends 4 of them, and her ledger shows both.
    desk.goto(walk.url(f"/campaigns/{campaign.pk}/"))
    check_page(desk, problems)
    desk.get_by_role("link", name="Award points").click()
    expect(desk.get_by_role("heading", level=1)).to_have_text("End of the adventure: award points")
    check_page(desk, problems)
    desk.get_by_label("Adventure", exact=True).fill("The Drowned Bell")
    desk.get_by_label("Adventure Points for each").fill("12")
    desk.get_by_label("Reason", exact=True).fill("Completing the mission")
    desk.get_by_role("button", name="Award").click()
    expect(desk.get_by_role("status")).to_contain_text("Awarded: Brunella 12 AP, Otto 12 AP.")
    check_page(desk, problems)
    otto_points = other.locator(f"#party-{otto.pk} dt", has_text="Adventure Points").locator(
        "xpath=following-sibling::dd"
    )
    expect(otto_points).to_have_text("12")
    assert other.evaluate("window.sameDocument") is True
    check_page(other, problems)

    open_sheet(table, walk, campaign, brunella)
    expect(table.locator("#sheet-ap")).to_have_text("12")
    table.get_by_role("link", name="What should I buy?").click()
    expect(table.get_by_role("heading", level=1)).to_have_text("What should I buy?")
    check_page(table, problems)
    offer = table.locator(".offer").filter(has_text="Teleport (Spellcasting) 2 → 3")
    offer.get_by_role("button", name="Buy for 4 AP").click()
    expect(table.get_by_role("status")).to_contain_text("Bought: Teleport (Spellcasting) 2 → 3 for 4 AP. 8 AP left.")
    check_page(table, problems)
    table.get_by_role("link", name="Adventure Points history").click()
    rows = table.locator("table.ledger tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("Teleport (Spellcasting) 2 → 3")
    expect(rows.first.locator("td.num").last).to_have_text("8")
    expect(rows.last).to_contain_text("The Drowned Bell")
    check_page(table, problems)

    # 7. Brunella's player adds a d12 greatsword in play: it waits for the GM, who approves it from the
    # campaign page in one click; the sheet no longer says it waits.
    table.goto(walk.url(f"/characters/{brunella.pk}/edit/equipment/"))
    check_page(table, problems)
    new_weapon = table.get_by_role("group", name="New weapon")
    new_weapon.get_by_label("Name", exact=True).fill("Greatsword")
    new_weapon.get_by_label("Accuracy die").select_option("d12")
    new_weapon.get_by_label("Damage die").select_option("d12")
    table.get_by_role("button", name="Save").click()
    greatsword = table.locator("ul.weapons li").filter(has_text="Greatsword")
    expect(greatsword).to_contain_text("awaits the GM’s approval")
    check_page(table, problems)
    desk.goto(walk.url(f"/campaigns/{campaign.pk}/"))
    waiting = desk.locator("#awaiting-gm")
    expect(waiting).to_contain_text("Weapon: Greatsword, accuracy d12, damage d12")
    check_page(desk, problems)
    waiting.get_by_role("button", name="Approve Weapon: Greatsword, accuracy d12, damage d12 for Brunella").click()
    expect(desk.locator(".messages")).to_contain_text("Brunella: approved.")
    expect(desk.locator("#awaiting-gm")).to_have_count(0)
    check_page(desk, problems)
    table.reload()
    expect(greatsword).to_be_visible()
    expect(greatsword).not_to_contain_text("awaits")
    check_page(table, problems)

    # 8. The GM makes two more campaigns of this system from the new-campaign page: one with
    # JavaScript, one without.
    bare = walk.sign_in(gm, javascript=False)
    for page, name in ((desk, "The Second Crown"), (bare, "The Third Crown")):
        page.goto(walk.url("/campaigns/new/"))
        expect(page.get_by_label("Hit points per Pulse step")).to_have_value("10")
        page.get_by_label("Name", exact=True).fill(name)
        page.get_by_role("button", name="Create the campaign").click()
        expect(page.get_by_role("heading", level=1)).to_have_text(name)
        assert problems == [], page.url
    made = Campaign.objects.filter(name__in=["The Second Crown", "The Third Crown"])
    assert sorted(made.values_list("system", flat=True)) == ["lucky13", "lucky13"]
    bare.context.close()

    brunella.refresh_from_db()
    assert brunella.document.hit_points == 20
    assert [(w.name, w.approved) for w in brunella.document.weapons if w.name == "Greatsword"] == [("Greatsword", True)]
    assert brunella.document.specialization(TELEPORT)[1].level == 3
    assert list(LedgerEntry.objects.filter(character=brunella).values_list("amount", flat=True)) == [-4, 12]
    assert list(LedgerEntry.objects.filter(character=otto).values_list("amount", flat=True)) == [12]
    assert walk.refused == []  # nothing the walk did was a bad request
    for page in (desk, table, other):
        page.context.close()
    assert problems == []
