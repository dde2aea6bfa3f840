"""A short D13 session in three browsers, through the real pages only: the host (the GM) and the players of
Maud and Elias, each on a phone-width screen (360 px), served as production serves it (uvicorn, the ASGI
application, the live sockets). The server's dice are scripted, so that each of the text's turns comes up.

Maud's player makes her through the creation pages, an over-budget ability refused beside its box. The host
calls an Average Wits + Occult task for Maud from the live dashboard; her player rolls it there, and the
sheet offers the reroll with the exact chance of each die; she rerolls the d9, and the other player, who
follows Maud's sheet, sees the decision wait and then the roll settle without a reload. The host rolls a
Difficult task for Elias from his sheet: doubles, so a card goes to his hand, which his player and the host see
on the sheet and nobody else
does. He plays it (as his turn number, a number card); the host runs the fight from the table — someone the
host plays joins the turn order, the turn passes, a mark on their track — and ends the scene.

Every page the walk visits passes :func:`check_page`: no console error, no response of 500 or more, no
horizontal scrolling; and every page state the axe-core check of the browser fixtures sees.
"""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from campaigns.models import Membership
from characters.models import Character
from play.models import Table
from rules.systems.d13 import cards, chance
from rules.systems.d13.chance import Level, Roll
from tests.play.test_live_browser import asgi_server  # noqa: F401 (a fixture)
from tests.systems.d13.engine import Dice
from tests.systems.d13.helpers import campaign_of, made
from tests.walk import Walk, check_page, open_dashboard, open_sheet, patient_expect, settled  # noqa: F401
from web.templatetags.dice import percent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_a_host_and_two_players_play_a_short_d13_session(
    asgi_server,  # noqa: F811
    browser,
    problems,
    patient_expect,  # noqa: F811
    monkeypatch,
    gm,
    player,
    other_player,
) -> None:
    scripted = Dice()
    faces = scripted.faces
    monkeypatch.setattr("play.moves.secrets.SystemRandom", lambda: scripted)
    parish = campaign_of(gm, other_player)
    Membership.objects.create(campaign=parish, user=player, role=Membership.Role.PLAYER)
    elias = made(parish, other_player, name="Elias", skills={"Athletics": 3, "Brawling": 3})
    walk = Walk(browser, asgi_server, problems)
    desk, table, other = walk.sign_in(gm), walk.sign_in(player), walk.sign_in(other_player)

    # 1. Maud's player makes her: an ability over the limit refused beside its box, then the skills.
    table.goto(walk.url(f"/campaigns/{parish.pk}/"))
    check_page(table, problems)
    table.get_by_role("link", name="Create a character").click()
    table.get_by_label("Name").fill("Maud")
    table.get_by_role("button", name="Start").click()
    expect(table.get_by_role("heading", name="Abilities", exact=True)).to_be_visible()
    check_page(table, problems)
    for name, value in (("Brawn", "2"), ("Grace", "3"), ("Wits", "6"), ("Will", "1")):
        table.get_by_label(name, exact=True).fill(value)
    table.get_by_role("button", name="Save and continue").click()
    expect(table.locator(".field-error").filter(has_text="1 to 5 at creation")).to_be_visible()
    expect(table.get_by_label("Wits", exact=True)).to_have_value("6")  # kept as typed
    check_page(table, problems, refused=True)
    table.get_by_label("Wits", exact=True).fill("4")
    table.get_by_label("Will", exact=True).fill("3")
    table.get_by_role("button", name="Save and continue").click()
    expect(table.get_by_role("heading", name="Skills", exact=True)).to_be_visible()
    check_page(table, problems)
    table.locator("fieldset", has_text="Occult").get_by_label("Rating").fill("4")
    table.locator("fieldset", has_text="Investigation").get_by_label("Rating").fill("3")
    table.get_by_role("button", name="Finish the character").click()
    expect(table.get_by_role("heading", name="Abilities and skills", exact=True)).to_be_visible()  # the sheet
    check_page(table, problems)
    maud = Character.objects.get(campaign=parish, name="Maud")
    assert maud.status == "active"

    # 2. The host calls an Average Wits + Occult task for Maud; her player rolls it from the dashboard.
    for page in (table, desk):
        page.goto(walk.url(f"/campaigns/{parish.pk}/"))
        check_page(page, problems)
        open_dashboard(page, problems)
    call = desk.locator("#dashboard-call")
    call.get_by_label("Difficulty", exact=True).select_option("average")
    call.get_by_label("Ability", exact=True).select_option("wits")
    call.get_by_label("Skill", exact=True).select_option("Occult")
    call.get_by_label("Maud", exact=True).check()
    call.get_by_role("button", name="Call for the roll").click()
    expect(call.get_by_role("status")).to_contain_text("Average Wits + Occult")
    check_page(desk, problems)
    asked = table.locator("#dashboard-requests .request")
    expect(asked).to_contain_text("Average Wits + Occult")
    expect(asked.locator(".note strong")).to_have_text(percent(chance.check(8, Level.AVERAGE).success))
    check_page(table, problems)
    faces[:] = [3, 7]  # 10 over 8: a failure the player may reroll
    asked.get_by_role("button", name="Roll for Maud").click()
    expect(table.locator("#roll-feed > li").filter(has_text="Maud")).to_contain_text("called by")
    check_page(table, problems)

    # 3. On her sheet the decision waits, each die with its chance; the other player follows the sheet.
    open_sheet(other, walk, parish, maud)
    expect(other.locator("#decision")).to_contain_text("Waiting for")
    open_sheet(table, walk, parish, maud)
    decision = table.locator("#decision")
    expect(decision).to_contain_text("Your decision")
    d9 = next(o for o in chance.player_choices(Roll(3, 7), 8) if o.key == "d9")
    expect(decision.get_by_role("button", name="Reroll the d9", exact=False)).to_be_visible()
    expect(decision).to_contain_text(percent(d9.success))
    check_page(table, problems)
    faces[:] = [2]  # the d9 again: 3 + 2 = 5, a success
    decision.get_by_role("button", name="Reroll the d9", exact=False).click()
    expect(table.locator("#roll")).to_contain_text("a success")
    check_page(table, problems)
    expect(other.locator("#roll")).to_contain_text("a success")  # live, without a reload
    expect(other.locator("#decision")).not_to_contain_text("Waiting for")
    check_page(other, problems)

    # 4. The host rolls a Difficult task for Elias: doubles, so a card to his hand, seen by him and the host only.
    faces[:] = [2, 2]
    open_sheet(desk, walk, parish, elias)
    desk.get_by_role("link", name="Roll Athletics", exact=True).click()
    expect(desk.get_by_role("heading", level=1)).to_have_text("Roll for Elias")
    check_page(desk, problems)
    desk.get_by_label("Difficulty", exact=True).select_option("difficult")
    desk.get_by_role("button", name="Show the chance").click()
    expect(desk.locator("#roll-chance")).to_contain_text(percent(chance.check(5, Level.DIFFICULT).success))
    settled(desk)
    check_page(desk, problems)
    desk.get_by_role("button", name="Roll", exact=True).click()
    expect(desk.locator("#roll-result")).to_be_visible()
    check_page(desk, problems)
    [hand] = Table.objects.get(campaign=parish).document["hands"]
    drawn = cards.card(hand["cards"][0])
    open_sheet(other, walk, parish, elias)
    expect(other.locator("#hand")).to_contain_text(drawn.name)
    open_sheet(desk, walk, parish, elias)
    expect(desk.locator("#hand")).to_contain_text(drawn.name)
    open_sheet(table, walk, parish, elias)
    expect(table.locator("#hand")).to_contain_text("1 card in the hand")
    expect(table.locator("#hand")).not_to_contain_text(drawn.name)
    check_page(table, problems)

    # 5. He plays it as his turn number (a joker as a 9, a face card as a boost); the host ends the scene.
    other.locator("#hand").get_by_role("link", name=f"Play the {drawn.name}").click()
    check_page(other, problems)
    if drawn.kind == "face":
        other.get_by_label("A skill: a boost until the scene ends").check()
    else:
        other.get_by_label("The turn number").check()
        if drawn.kind == "joker":
            other.get_by_label("A joker's value").fill("9")
    if drawn.suit not in (None, "clubs"):
        other.get_by_label("Rationale").fill("He knows these streets")
    other.get_by_role("button", name="Play it").click()
    expect(other.get_by_role("heading", level=1)).to_have_text("Elias")
    check_page(other, problems)
    desk.goto(walk.url(f"/campaigns/{parish.pk}/table/"))
    check_page(desk, problems)
    if drawn.kind == "face":
        expect(desk.locator("#table-boosts")).to_contain_text(drawn.name)
    else:
        expect(desk.locator("#table-turns")).to_contain_text("Elias")
    # The host runs the fight from the table: a ghoul joins the order at 3, the turn passes, the ghoul is marked.
    add = desk.locator("form", has_text="Add to the turn order")
    add.get_by_label("Who", exact=True).fill("The ghoul")
    add.get_by_label("Turn number", exact=True).fill("3")
    add.get_by_role("button", name="Add").click()
    expect(desk.locator("#table-turns")).to_contain_text("The ghoul: 3")
    settled(desk)
    desk.get_by_role("button", name="Next turn").click()
    expect(desk.locator("#table-turns [aria-current=step]")).to_contain_text("The ghoul")
    check_page(desk, problems)
    settled(desk)
    mark = desk.locator("form", has_text="Mark someone you play")
    mark.get_by_label("Who", exact=True).fill("The ghoul")
    mark.get_by_label("Marks", exact=True).fill("2")
    mark.get_by_role("button", name="Mark it").click()
    expect(desk.locator("#table-turns")).to_contain_text("Wounds 2 of 6")
    check_page(desk, problems)
    settled(desk)
    desk.locator("form", has_text="End the scene").get_by_role("button", name="End the scene").click()
    expect(desk.locator("#table-turns")).to_contain_text("Nobody has a turn number this scene")
    check_page(desk, problems)
