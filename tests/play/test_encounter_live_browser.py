"""The encounter page is live for every member, served as production serves it (uvicorn, the ASGI
application, the in-memory channel layer): the GM rolls initiative and a player's open page shows the
order without a reload; the player attacks with their own character on its turn and the GM's open page
shows it; the GM's edit of a combatant's sheet on the sheet page shows in the open encounter's row; a box
someone is typing in keeps what they typed, and the page says the encounter changed; a page whose socket
dropped shows what it missed once it reconnects."""

from __future__ import annotations

import random
from collections.abc import Iterator

import pytest
from playwright.sync_api import Page, expect

from play import encounters
from play.models import Encounter, Roll
from tests.browser import open_page, without_expected
from tests.characters.conftest import make_character
from tests.characters.test_sheet_live_browser import gm_saves
from tests.play.npcs import npc
from tests.play.test_live_browser import AsgiServer, signed_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def server(async_unsafe_allowed: None) -> Iterator[AsgiServer]:
    server = AsgiServer()
    server.start()
    yield server
    if server.thread.is_alive():
        server.stop()


@pytest.fixture
def encounter(campaign, gm, player) -> Encounter:
    """Brunella (the player's) and two goblins, initiative not rolled yet."""
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    brunella = make_character(campaign, player)
    encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk])
    encounters.add_npcs(**ids, by=gm, **npc("Goblin", 2, 1, 1, 1, 0, 1), count=2)
    return encounter


def open_encounter(browser, user, server, campaign, problems: list[str]) -> Page:
    page = open_page(signed_in(browser, user, server), problems)
    page.goto(f"{server.url}/campaigns/{campaign.pk}/encounter/")
    page.evaluate("window.sameDocument = true")
    expect(page.locator("[data-encounter-live]")).to_have_attribute("data-live", "up")  # the socket is open
    return page


def settled(page: Page) -> None:
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added')"
    )


def brunellas_turn(campaign, gm, encounter: Encounter) -> None:
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    for _ in range(3):
        encounter.refresh_from_db()
        if encounter.combatants.get(name="Brunella").order == encounter.turn:
            return
        encounters.next_turn(**ids, by=gm)
    raise AssertionError("Brunella never acts")


def test_the_gm_rolls_initiative_then_ends_and_the_players_open_page_follows(
    server, browser, problems, campaign, gm, player, encounter
):
    table = open_encounter(browser, player, server, campaign, problems)
    expect(table.get_by_text("Initiative not rolled yet")).to_be_visible()

    desk = open_encounter(browser, gm, server, campaign, problems)
    desk.get_by_role("button", name="Roll initiative").click()
    expect(desk.get_by_role("heading", name="Initiative order")).to_be_visible()

    expect(table.get_by_role("heading", name="Initiative order")).to_be_visible()
    expect(table.get_by_text("Initiative not rolled yet")).to_have_count(0)
    expect(table.locator("[aria-current=true]")).to_have_count(1)
    expect(table.get_by_text("GM controls")).to_have_count(0)
    assert table.evaluate("window.sameDocument") is True  # swapped in, not reloaded

    settled(desk)
    desk.get_by_role("button", name="End the encounter…").click()
    settled(desk)
    desk.get_by_role("button", name="End the encounter", exact=True).click()
    expect(desk.get_by_text("No encounter is running.")).to_be_visible()
    expect(table.get_by_text("No encounter is running.")).to_be_visible()  # the end, live too
    expect(table.get_by_role("link", name="Ambush at the ford")).to_be_visible()  # among the ended
    assert table.evaluate("window.sameDocument") is True
    table.context.close()
    desk.context.close()
    assert problems == []


def test_the_player_attacks_on_their_turn_and_the_gm_sees_it(
    server, browser, problems, campaign, gm, player, encounter
):
    encounters.roll_initiative(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm, rng=random.Random(5))
    brunellas_turn(campaign, gm, encounter)
    desk = open_encounter(browser, gm, server, campaign, problems)
    table = open_encounter(browser, player, server, campaign, problems)

    expect(table.get_by_role("heading", name="Your turn: Brunella")).to_be_visible()
    expect(table.get_by_label("In secret")).to_have_count(0)
    table.get_by_label("Target", exact=True).select_option(label="Goblin 1")
    table.get_by_role("button", name="Show the chance to hit").click()
    expect(table.get_by_text("hits Goblin 1 with a chance of")).to_be_visible()
    settled(table)
    table.get_by_role("button", name="Roll the attack").click()
    expect(table.get_by_role("heading", name="Last attack")).to_be_visible()
    assert Roll.objects.get(kind="attack").by == player

    expect(desk.get_by_role("heading", name="Last attack")).to_be_visible()  # live on the GM's page
    desk.get_by_role("button", name="Next turn").click()
    expect(table.get_by_role("heading", name="Your turn: Brunella")).to_have_count(0)  # live: the turn moved
    assert table.evaluate("window.sameDocument") is True
    assert desk.evaluate("window.sameDocument") is True
    table.context.close()
    desk.context.close()
    assert problems == []


def test_the_gms_edit_on_a_combatants_sheet_shows_in_the_players_open_encounter(
    server, browser, problems, campaign, gm, player, encounter
):
    table = open_encounter(browser, player, server, campaign, problems)
    hit_points = table.locator("li.combatant", has_text="Brunella").locator(".combatant-hp")
    expect(hit_points).to_contain_text("30 of 30 hp")

    # Outside the encounter's own moves: the GM's edit on Brunella's sheet page.
    brunella = encounter.combatants.get(name="Brunella").character
    desk = open_page(signed_in(browser, gm, server), problems)
    desk.goto(f"{server.url}/characters/{brunella.pk}/")
    gm_saves(desk, "hit-points", "Current hit points", "12")

    expect(hit_points).to_contain_text("12 of 30 hp", timeout=5000)
    assert table.evaluate("window.sameDocument") is True  # swapped in, not reloaded
    table.context.close()
    desk.context.close()
    assert problems == []


def test_a_box_being_typed_in_keeps_what_was_typed(server, browser, problems, campaign, gm, player, encounter):
    encounters.roll_initiative(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm, rng=random.Random(5))
    brunellas_turn(campaign, gm, encounter)
    table = open_encounter(browser, player, server, campaign, problems)
    desk = open_encounter(browser, gm, server, campaign, problems)
    table.get_by_label("Target", exact=True).select_option(label="Goblin 2")  # chosen, not sent yet

    desk.get_by_label("Who", exact=True).select_option(label="Goblin 1")
    desk.get_by_label("Damage", exact=True).check()
    desk.get_by_label("Hit points", exact=True).fill("1")
    desk.get_by_label("Reason").fill("a fall")
    desk.get_by_role("button", name="Apply").click()
    expect(desk.locator("#refusal-adjust")).to_have_count(0)
    expect(desk.get_by_label("Reason")).to_have_value("")  # the GM's own form came back fresh

    expect(table.get_by_role("status").filter(has_text="The encounter changed")).to_be_visible()
    expect(table.get_by_label("Target", exact=True)).to_have_value(str(encounter.combatants.get(name="Goblin 2").pk))
    assert table.evaluate("window.sameDocument") is True  # not swapped under the choice
    table.get_by_role("link", name="Show it as it is now").click()
    expect(table.get_by_role("heading", name="Your turn: Brunella")).to_be_visible()
    expect(table.get_by_role("status").filter(has_text="The encounter changed")).to_have_count(0)
    table.context.close()
    desk.context.close()
    assert problems == []


def test_on_reconnecting_the_page_shows_what_it_missed(server, browser, problems, campaign, gm, player, encounter):
    table = open_encounter(browser, player, server, campaign, problems)
    expect(table.get_by_text("Initiative not rolled yet")).to_be_visible()

    server.stop()
    expect(table.locator("[data-encounter-live]")).to_have_attribute("data-live", "down")
    encounters.roll_initiative(campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm, rng=random.Random(5))
    server.start()

    expect(table.get_by_role("heading", name="Initiative order")).to_be_visible(timeout=15000)
    expect(table.locator("[data-encounter-live]")).to_have_attribute("data-live", "up")
    assert table.evaluate("window.sameDocument") is True
    table.context.close()
    # The browser reports the refused connections while the server was down; nothing else.
    assert without_expected(problems, "WebSocket connection") == []  # the socket refused while the server was down


#: Counts the copies of a page its live script has read (live-pages.js fetchCopy): the swap, or the decision
#: not to swap, follows in the same turn, before the next frame.
COUNT_COPIES = """
window.copiesRead = 0;
const pageFetch = window.fetch.bind(window);
window.fetch = async (...args) => {
  const response = await pageFetch(...args);
  const read = response.text.bind(response);
  response.text = async () => {
    const text = await read();
    window.copiesRead += 1;
    return text;
  };
  return response;
};
"""


def test_the_gms_own_change_heard_again_leaves_the_encounter_in_place(
    server, browser, problems, campaign, gm, encounter
) -> None:
    """The GM adds an NPC: htmx swaps in the encounter as it is now, and the socket then says the encounter
    changed, so the page fetches a copy, which shows the same. It is left out: the button the GM has gone
    to meanwhile keeps the focus (and would keep a click on its way), and Enter rolls initiative."""
    desk = open_page(signed_in(browser, gm, server), problems)
    desk.add_init_script(COUNT_COPIES)
    url = f"{server.url}/campaigns/{campaign.pk}/encounter/"
    held = []

    def hold_copies(route) -> None:  # the copies the live script fetches; the page itself and htmx's posts go
        if route.request.method == "GET" and not route.request.is_navigation_request():
            held.append(route)
        else:
            route.continue_()

    desk.route(url, hold_copies)
    desk.goto(url)
    expect(desk.locator("[data-encounter-live]")).to_have_attribute("data-live", "up")

    npcs = desk.get_by_role("group", name="Add NPCs")
    npcs.get_by_label("Name", exact=True).fill("Wolf")
    with desk.expect_request(lambda request: request.url == url and request.resource_type == "fetch"):
        desk.get_by_role("button", name="Add NPCs").click()  # the copy the socket's news asks for, held
        expect(desk.locator("ol.initiative")).to_contain_text("Wolf")
    settled(desk)
    read = desk.evaluate("window.copiesRead")
    button = desk.get_by_role("button", name="Roll initiative")
    button.focus()
    held.pop().continue_()
    desk.wait_for_function("read => window.copiesRead > read", arg=read)
    expect(button).to_be_focused()
    desk.keyboard.press("Enter")
    expect(desk.get_by_role("heading", name="Initiative order")).to_be_visible()
    desk.context.close()
    assert problems == []
