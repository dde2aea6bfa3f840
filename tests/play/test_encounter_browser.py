"""The encounter page in a real browser: the chance to hit and the attack swapped in place by
htmx, the keyboard, the same forms without JavaScript, and a phone-width screen."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Page, expect

from play import encounters
from play.models import Encounter, Roll
from tests.browser import without_expected
from tests.campaigns.test_browser import sign_in
from tests.characters.conftest import make_character
from tests.play.npcs import npc

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def fight(campaign, gm, player) -> Encounter:
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    brunella = make_character(campaign, player)
    encounters.add_characters(**ids, by=gm, character_ids=[brunella.pk])
    stats = npc("Goblin Skulk-Underbridge", 2, 1, 1, 1, 0, 1)
    encounters.add_npcs(**ids, by=gm, **stats, count=3)
    encounters.roll_initiative(**ids, by=gm, rng=random.Random(5))
    return encounter


def settled(page: Page) -> None:
    """Wait until htmx has finished swapping and settling the encounter's new content."""
    page.wait_for_function(
        "() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling, .htmx-added')"
    )


def test_with_htmx_the_chance_then_the_attack_swap_in_place(live_server, page: Page, problems, gm, campaign, fight):
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/encounter/")
    page.evaluate("window.sameDocument = true")

    page.get_by_label("Attacker", exact=True).select_option(label="Brunella")
    page.get_by_label("Target", exact=True).select_option(label="Goblin Skulk-Underbridge 1")
    page.get_by_role("button", name="Show the chance to hit").click()
    expect(page.get_by_text("hits Goblin Skulk-Underbridge 1 with a chance of")).to_be_visible()
    settled(page)  # htmx wires up the swapped-in forms as it settles; a key press before that submits plainly

    page.get_by_role("button", name="Roll the attack").focus()
    page.keyboard.press("Enter")
    expect(page.get_by_role("heading", name="Last attack")).to_be_visible()
    assert page.evaluate("window.sameDocument") is True
    assert Roll.objects.filter(kind="attack").count() == 1
    settled(page)

    turn = Encounter.objects.get().turn
    page.get_by_role("button", name="Next turn").focus()
    with page.expect_response(lambda response: "/encounter/next-turn/" in response.url):
        page.keyboard.press("Enter")
    assert Encounter.objects.get().turn != turn
    expect(page.locator("[aria-current=true]")).to_have_count(1)
    assert page.evaluate("window.sameDocument") is True
    assert problems == []


def test_without_javascript_the_forms_still_work(live_server, nojs_page: Page, problems, gm, campaign, fight):
    page = nojs_page
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/encounter/")
    page.get_by_label("Who", exact=True).select_option(label="Brunella")
    page.get_by_label("Damage", exact=True).check()
    page.get_by_label("Hit points", exact=True).fill("5")
    page.get_by_label("Reason").fill("a fall")
    page.get_by_role("button", name="Apply").click()
    expect(page.get_by_text("25 of 30 hp")).to_be_visible()
    assert problems == []


@pytest.mark.parametrize("who", ["gm", "player"])
def test_no_horizontal_scrolling_at_360_pixels(live_server, page: Page, problems, request, campaign, fight, who):
    sign_in(page.context, request.getfixturevalue(who), live_server)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/encounter/")
    expect(page.get_by_role("heading", name="Initiative order")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []


def test_ticking_a_background_changes_the_chance_before_the_attack(
    live_server, page: Page, problems, gm, campaign, fight
):
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/encounter/")
    page.evaluate("window.sameDocument = true")
    page.get_by_label("Attacker", exact=True).select_option(label="Brunella")
    page.get_by_label("Target", exact=True).select_option(label="Goblin Skulk-Underbridge 1")
    page.get_by_role("button", name="Show the chance to hit").click()
    chance = page.locator(".chance strong summary")
    expect(chance).to_be_visible()
    settled(page)
    plain = chance.inner_text()
    expect(page.locator(".attack-dice").first).to_contain_text("Longsword 1: +1")

    page.get_by_role("group", name="The attacker: a background or an impairment that applies").get_by_label(
        "A background: Reflex twice, keep the higher"
    ).check()
    page.get_by_role("button", name="Show the chance to hit").click()
    expect(page.get_by_text("Brunella rolls Reflex twice and keeps the higher (a background).")).to_be_visible()
    settled(page)
    assert float(chance.inner_text().rstrip("%")) > float(plain.rstrip("%"))

    page.get_by_role("button", name="Roll the attack").click()
    expect(page.get_by_text("Brunella rolled Reflex twice, keeping the higher.")).to_be_visible()
    assert Roll.objects.get(kind="attack").spec["attacker_roll"] == "background"
    assert page.evaluate("window.sameDocument") is True
    assert problems == []


def test_the_gm_moves_a_combatant_down_the_order_by_keyboard(live_server, page: Page, problems, gm, campaign, fight):
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/encounter/")
    page.evaluate("window.sameDocument = true")
    names = page.locator("ol.initiative .combatant-name")
    first, second = names.nth(0).inner_text(), names.nth(1).inner_text()
    first = first.replace("Acting", "").strip()
    page.get_by_role("button", name=f"Move {first} down").focus()
    with page.expect_response(lambda response: "/encounter/move/" in response.url):
        page.keyboard.press("Enter")
    expect(names.nth(1)).to_have_text(first)
    expect(names.nth(0)).to_contain_text(second.replace("Acting", "").strip())
    expect(page.locator("[aria-current=true]")).to_have_count(1)
    assert page.evaluate("window.sameDocument") is True
    assert problems == []


def test_removing_asks_first_then_logs_in_place(live_server, page: Page, problems, gm, campaign, fight):
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/encounter/")
    page.evaluate("window.sameDocument = true")
    page.get_by_label("Leaves the fight").select_option(label="Goblin Skulk-Underbridge 2")
    page.get_by_role("button", name="Remove…").click()
    expect(page.get_by_role("heading", name="Take Goblin Skulk-Underbridge 2 out of the fight?")).to_be_visible()
    settled(page)
    page.get_by_role("link", name="Cancel").click()  # changed their mind: the encounter is back
    expect(page.get_by_role("heading", name="Initiative order")).to_be_visible()
    settled(page)
    assert not Roll.objects.filter(kind="removal").exists()

    page.get_by_label("Leaves the fight").select_option(label="Goblin Skulk-Underbridge 2")
    page.get_by_role("button", name="Remove…").click()
    page.get_by_label("Why, for the log (optional)").fill("fled")
    settled(page)
    page.get_by_role("button", name="Take Goblin Skulk-Underbridge 2 out").click()
    expect(page.get_by_role("heading", name="Initiative order")).to_be_visible()
    expect(page.locator("ol.initiative")).not_to_contain_text("Goblin Skulk-Underbridge 2")
    assert Roll.objects.get(kind="removal").spec["reason"] == "fled"
    assert page.evaluate("window.sameDocument") is True
    assert problems == []


def test_removing_without_javascript_goes_through_the_confirmation_page(
    live_server, nojs_page: Page, problems, gm, campaign, fight
):
    page = nojs_page
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/encounter/")
    page.get_by_label("Leaves the fight").select_option(label="Brunella")
    page.get_by_role("button", name="Remove…").click()
    expect(page).to_have_url(re.compile(r"/encounter/remove/confirm/\?combatant=\d+$"))
    page.get_by_role("button", name="Take Brunella out").click()
    expect(page).to_have_url(f"{live_server.url}/campaigns/{campaign.pk}/encounter/")
    expect(page.locator("ol.initiative")).not_to_contain_text("Brunella")
    assert Roll.objects.get(kind="removal").spec["combatant"] == "Brunella"
    assert problems == []


def test_an_ended_encounter_is_listed_and_reads_on_a_phone(
    live_server, page: Page, problems, gm, player, campaign, fight
):
    encounters.end_encounter(campaign_id=campaign.pk, encounter_id=fight.pk, by=gm)
    sign_in(page.context, player, live_server)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/")
    page.get_by_role("link", name="Ended encounters").click()
    expect(page.get_by_role("heading", name="Ended encounters", level=1)).to_be_visible()  # the list has loaded
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    page.get_by_role("link", name="Ambush at the ford").click()
    expect(page.get_by_role("heading", name="Ambush at the ford")).to_be_visible()
    expect(page.get_by_role("heading", name="How it went")).to_be_visible()
    expect(page.locator(".roll-log > li")).to_have_count(Roll.objects.filter(spec__encounter=fight.pk).count())
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []


def test_the_gm_calls_situational_steps_and_a_helper_and_a_refusal_stays_beside_the_form(
    live_server, page: Page, problems, gm, campaign, fight
):
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/encounter/")
    page.evaluate("window.sameDocument = true")
    # The form starts with whoever acts, against someone else.
    acting = Encounter.objects.get().combatants.get(order=0).name
    expect(page.get_by_label("Attacker", exact=True).locator("option:checked")).to_have_text(acting)
    expect(page.get_by_label("Target", exact=True).locator("option:checked")).not_to_have_text(acting)

    page.get_by_label("Attacker", exact=True).select_option(label="Brunella")
    page.get_by_label("Target", exact=True).select_option(label="Goblin Skulk-Underbridge 1")
    page.get_by_text("Situational steps (cover, range, surprise…)").click()
    page.get_by_label("Name of step 1").fill("Cover")
    page.get_by_role("button", name="Show the chance to hit").click()
    # Named but no steps given: refused beside the form, and the rest of the panel is still there.
    refusal = page.locator("#refusal-attack")
    expect(refusal).to_contain_text("Give the steps")
    expect(page.get_by_role("heading", name="Initiative order")).to_be_visible()
    expect(page.get_by_label("Name of step 1")).to_have_value("Cover")  # kept as typed
    settled(page)

    page.get_by_label("On the dice of (step 1)").select_option(label="The target")
    page.get_by_label("Steps, + up or − down (step 1)").fill("2")
    page.get_by_label("Who helps the attacker").select_option(label="Goblin Skulk-Underbridge 2 (Combat d4, Reflex d6)")
    page.get_by_role("button", name="Show the chance to hit").click()
    expect(refusal).to_have_count(0)
    expect(page.locator(".attack-dice").nth(1)).to_contain_text("Cover: +2")
    expect(page.locator(".attack-dice").first).to_contain_text("Goblin Skulk-Underbridge 2 helps (d4): +1")
    settled(page)
    # The percentage, and the exact fraction on demand.
    fraction = page.locator(".chance strong .fraction")
    expect(fraction).to_be_hidden()
    page.locator(".chance strong summary").click()
    expect(fraction).to_be_visible()
    expect(fraction).to_contain_text("/")

    page.get_by_role("button", name="Roll the attack").click()
    expect(page.get_by_role("heading", name="Last attack")).to_be_visible()
    expect(page.locator(".last-attack")).to_contain_text("Cover: Goblin Skulk-Underbridge 1's Combat up 2.")
    expect(page.locator(".last-attack")).to_contain_text(
        "Goblin Skulk-Underbridge 2 helped Brunella (d4): Combat up 1."
    )
    roll = Roll.objects.get(kind="attack")
    assert roll.spec["situational"][0]["name"] == "Cover"
    assert page.evaluate("window.sameDocument") is True
    # The refusal's own 400 is the only one: the browser logs every 4xx response.
    assert len(problems) == 1
    assert without_expected(problems, "400 (Bad Request)") == []


def test_an_npc_joins_the_fight_under_way(live_server, page: Page, problems, gm, campaign, fight):
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}/campaigns/{campaign.pk}/encounter/")
    page.evaluate("window.sameDocument = true")
    page.get_by_role("link", name="Someone joins the fight…").click()
    expect(page.get_by_role("heading", name="Someone joins the fight")).to_be_visible()
    settled(page)
    page.get_by_label("Name", exact=True).fill("Troll")
    page.get_by_label("Reflex").select_option("d8")
    page.get_by_label("Pulse").select_option("d12")
    page.get_by_role("button", name="Add NPCs").click()
    expect(page.get_by_role("heading", name="Initiative order")).to_be_visible()
    expect(page.locator("ol.initiative")).to_contain_text("Troll")
    expect(page.locator("[aria-current=true]")).to_have_count(1)
    troll = Encounter.objects.get().combatants.get(name="Troll")
    assert troll.initiative is not None
    assert troll.order is not None
    assert page.evaluate("window.sameDocument") is True
    assert problems == []
