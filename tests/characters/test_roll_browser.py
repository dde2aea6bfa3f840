"""The sheet roll page in a real browser: every option reached and changed with the keyboard
alone, the exact chance following each change, Roll pressed from the keyboard with the result
announced; the same page as a plain form without JavaScript; and a phone-width screen.

Brunella (``tests.characters.conftest``): Reflex d10, Intellect d6, Fighting d10 (Reflex),
the asset Uncle Otto (level 3, helps Fighting). Otto, who assists, has Fighting d10 and
Intellect d6. The live server runs in this process, so the tests seed its dice and roll the
same check with the same seed to know the result the page must show."""

from __future__ import annotations

import random
import re
from fractions import Fraction

import pytest
from playwright.sync_api import Page, Route, expect

from characters.models import Character
from play.models import Roll
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import AbilityRoll, Check, Explosion
from rules.systems.lucky13.record import check_roll_view
from tests.browser import AuditedBrowser, open_page, without_expected
from tests.campaigns.test_browser import sign_in
from tests.characters.conftest import FIGHTING, make_character
from web.templatetags.dice import percent, ratio

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

D = StepDie.parse
SEED = 8


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("games.lucky13.roll_views.secrets.SystemRandom", lambda: random.Random(SEED))


@pytest.fixture
def otto(campaign, other_player) -> Character:
    return make_character(campaign, other_player, name="Otto")


def roll_url(live_server, character: Character) -> str:
    return f"{live_server.url}/characters/{character.pk}/roll/?skill={FIGHTING}"


def check(ability: StepDie, skill: StepDie, difficulty: str, roll: AbilityRoll = AbilityRoll.NORMAL) -> Check:
    return Check(ability, skill, D(difficulty), roll, Explosion.CINEMATIC)


def expect_chance(page: Page, expected: Check) -> None:
    """The page shows the chance of ``expected`` and offers to roll exactly its dice."""
    chance = lucky13.check_chance(expected).p_success
    expect(page.locator("#roll-chance .big-chance summary")).to_have_text(percent(chance))
    label = f"Roll {expected.ability} + {expected.skill} + {expected.difficulty}"
    expect(page.locator("#roll-button")).to_have_text(label)


def focused(page: Page) -> str:
    return page.evaluate("document.activeElement.id || document.activeElement.tagName")


def press(page: Page, key: str, then_on: str) -> None:
    """Press ``key`` and check where the focus is after it."""
    page.keyboard.press(key)
    assert focused(page) == then_on


def faces(rolled: lucky13.CheckRoll) -> list[str]:
    """Each die's faces as the result shows them, explosions joined by "+": the Ability roll(s), then the rest."""
    pool = check_roll_view(rolled)["pool"]
    return ["+".join(map(str, die["faces"])) for group in (*pool["ability_rolls"], *pool["others"])
            for die in group["dice"]]  # fmt: skip


def settled(page: Page) -> None:
    """Wait until htmx has answered every request and settled the swapped-in content, before the
    keyboard moves into it."""
    page.wait_for_function("() => window.htmxDone === window.htmxRequests")
    page.wait_for_function("() => !document.querySelector('.htmx-request, .htmx-swapping, .htmx-settling')")


def test_keyboard_only_every_option_the_live_chance_and_the_roll(live_server, page: Page, problems, seeded, gm,
                                                                brunella, otto) -> None:  # fmt: skip
    sign_in(page.context, gm, live_server)
    page.goto(roll_url(live_server, brunella))
    page.evaluate("window.sameDocument = true")
    expect_chance(page, check(D("d10"), D("d10"), "d10"))  # Reflex (linked to Fighting), Moderate

    page.get_by_role("link", name="Back to Brunella’s sheet").focus()
    press(page, "Tab", "id_ability")
    expect(page.locator("#id_ability")).to_have_value("reflex")
    press(page, "ArrowUp", "id_ability")  # Reflex → Intellect d6
    expect_chance(page, check(D("d6"), D("d10"), "d10"))

    press(page, "Tab", "id_specialization")  # Fighting's Longsword, left out here
    expect(page.locator("#id_specialization")).to_have_value("")
    press(page, "Tab", "id_difficulty")
    press(page, "ArrowDown", "id_difficulty")  # Moderate → Difficult d8
    expect_chance(page, check(D("d6"), D("d10"), "d8"))

    press(page, "Tab", "id_asset")
    press(page, "ArrowDown", "id_asset")  # Uncle Otto, level 3: Skill +3
    expect_chance(page, check(D("d6"), D("d10").step(3), "d8"))

    press(page, "Tab", "id_ability_roll_0")  # the group's checked radio, Normal
    press(page, "ArrowDown", "id_ability_roll_1")  # a background: roll Intellect twice, keep the higher
    expect(page.get_by_label("Background (roll Ability twice, keep higher)")).to_be_checked()
    expect_chance(page, check(D("d6"), D("d10").step(3), "d8", AbilityRoll.BACKGROUND))
    press(page, "ArrowDown", "id_ability_roll_2")  # an impairment: keep the lower
    expect_chance(page, check(D("d6"), D("d10").step(3), "d8", AbilityRoll.IMPAIRMENT))
    press(page, "ArrowUp", "id_ability_roll_1")
    expect_chance(page, check(D("d6"), D("d10").step(3), "d8", AbilityRoll.BACKGROUND))

    press(page, "Tab", "id_helper")
    press(page, "ArrowDown", "id_helper")  # Otto helps with the skill: his Fighting d10 gives 4 steps
    expect_chance(page, check(D("d6"), D("d10").step(3 + 4), "d8", AbilityRoll.BACKGROUND))
    press(page, "Tab", "id_help_with_0")
    press(page, "ArrowDown", "id_help_with_1")  # ... with the ability instead: his Intellect d6 gives 2
    expect_chance(page, check(D("d6").step(2), D("d10").step(3), "d8", AbilityRoll.BACKGROUND))

    press(page, "Tab", "id_npc_helper")  # the GM may name an NPC who helps instead; left empty
    press(page, "Tab", "id_npc_helper_die")
    press(page, "Tab", "id_ability_steps")
    press(page, "ArrowUp", "id_ability_steps")  # the GM: Ability one step up
    expect(page.locator("#id_ability_steps")).to_have_value("1")
    expect_chance(page, check(D("d6").step(3), D("d10").step(3), "d8", AbilityRoll.BACKGROUND))
    press(page, "Tab", "id_skill_steps")
    press(page, "ArrowDown", "id_skill_steps")  # and Skill one step down
    press(page, "Tab", "id_secret")  # the GM may roll in secret; left unticked
    final = check(D("d6").step(3), D("d10").step(2), "d8", AbilityRoll.BACKGROUND)
    expect_chance(page, final)
    settled(page)
    assert page.evaluate("window.htmxRequests") == 10  # one request for each change (its input event's is dropped)

    # On to the chance (the form's "Show the chance" button is for pages without JavaScript) and its exact value.
    press(page, "Tab", "SUMMARY")
    expect(page.locator("#roll-chance .big-chance summary")).to_be_focused()
    page.keyboard.press("Space")
    p_success = lucky13.check_chance(final).p_success
    expect(page.locator("#roll-chance .big-chance .fraction")).to_have_text(f"exactly {ratio(p_success)}")

    for _ in range(10):
        if focused(page) == "roll-button":
            break
        page.keyboard.press("Tab")
    assert focused(page) == "roll-button"
    result = page.locator("#roll-result")
    expect(result).to_have_attribute("aria-live", "polite")
    expect(result).to_be_empty()
    page.keyboard.press("Enter")

    rolled = lucky13.roll_check(final, random.Random(SEED))
    margin = f"+{rolled.margin}" if rolled.margin > 0 else str(rolled.margin)
    outcome = "Success" if rolled.success else "Failure"
    expect(result.get_by_role("heading", level=2)).to_have_text(
        f"{outcome}: total {rolled.total} against 13, margin {margin}"
    )
    expect(result).to_contain_text(f"Rolled {final.ability} + {final.skill} + {final.difficulty}, cinematic.")
    expect(result.locator(".dilemma")).to_have_count(1 if rolled.dilemma else 0)
    assert result.locator(".die .faces").all_inner_texts() == faces(rolled)
    expect(page.locator("#roll-button")).to_be_focused()  # the focus stays on Roll, to roll again
    assert page.evaluate("window.sameDocument") is True

    roll = Roll.objects.get()
    assert (roll.by, roll.character_id, roll.kind, roll.total) == (gm, brunella.pk, "check", rolled.total)
    assert Fraction(roll.chance) == p_success
    assert roll.dice == check_roll_view(rolled)
    sheet = roll.spec["sheet"]
    assert (sheet["ability"], sheet["difficulty"], roll.spec["ability_roll"]) == (
        "intellect",
        "difficult",
        "background",
    )
    assert sheet["asset"]["name"] == "Uncle Otto"
    assert sheet["assist"] == {"character": otto.pk, "name": "Otto", "with": "ability", "die": "d6", "steps": 2}
    assert (sheet["ability_steps"], sheet["skill_steps"]) == (1, -1)
    assert problems == []


def test_without_javascript_the_options_are_a_form_and_roll_records_the_roll(
    live_server, nojs_page: Page, problems, seeded, gm, brunella, otto
) -> None:
    page = nojs_page
    sign_in(page.context, gm, live_server)
    page.goto(roll_url(live_server, brunella))
    expect_chance(page, check(D("d10"), D("d10"), "d10"))

    page.get_by_label("Difficulty").select_option("challenging")
    page.get_by_label("Asset").select_option(label="Uncle Otto (Standard 3)")
    page.get_by_label("Impairment (roll Ability twice, keep lower)").check()
    page.get_by_label("Assisted by").select_option(label="Otto")
    page.get_by_label("GM: extra Skill steps").fill("-2")
    expect_chance(page, check(D("d10"), D("d10"), "d10"))  # nothing changes until the form is sent
    page.get_by_role("button", name="Show the chance").click()

    # Fighting d10 + Uncle Otto 3 + Otto's Fighting d10 4 - 2 steps; Reflex d10 twice, keep the lower; Challenging d6.
    final = check(D("d10"), D("d10").step(3 + 4 - 2), "d6", AbilityRoll.IMPAIRMENT)
    expect(page).to_have_url(re.compile(r"/roll/\?.*difficulty=challenging.*skill_steps=-2"))
    expect_chance(page, final)
    expect(page.get_by_label("Impairment (roll Ability twice, keep lower)")).to_be_checked()

    page.get_by_label("GM: extra Ability steps").fill("11")
    page.get_by_role("button", name="Show the chance").click()
    expect(page.get_by_role("alert")).to_contain_text("GM: extra Ability steps")
    expect(page.locator("#roll-button")).to_have_count(0)
    page.get_by_label("GM: extra Ability steps").fill("0")
    page.get_by_role("button", name="Show the chance").click()
    expect_chance(page, final)
    assert Roll.objects.count() == 0

    page.locator("#roll-button").click()

    rolled = lucky13.roll_check(final, random.Random(SEED))
    expect(page).to_have_url(re.compile(r"/roll/\?.*skill_steps=-2.*#roll-result$"))
    result = page.locator("#roll-result")
    expect(result.locator(".outcome")).to_have_text("Success" if rolled.success else "Failure")
    expect(result).to_contain_text(f"total {rolled.total} against 13")
    assert result.locator(".die .faces").all_inner_texts() == faces(rolled)  # the Ability twice, every die
    expect_chance(page, final)  # the options are kept for the next roll
    roll = Roll.objects.get()
    assert (roll.by, roll.character_id, roll.total) == (gm, brunella.pk, rolled.total)
    assert roll.outcome == {"success": rolled.success, "margin": rolled.margin, "dilemma": rolled.dilemma}
    assert roll.spec["sheet"]["assist"]["steps"] == 4
    assert (roll.spec["ability_roll"], roll.spec["sheet"]["skill_steps"]) == ("impairment", -2)

    page.reload()
    expect(result.locator(".outcome")).to_have_count(0)  # the result is shown once
    assert Roll.objects.count() == 1
    # Chromium reports the 400 the refused steps were answered with; nothing else may go wrong.
    assert without_expected(problems, "status of 400") == []


def test_a_choice_made_before_the_scripts_arrive_is_what_the_page_then_shows_and_rolls(
    live_server, browser: AuditedBrowser, problems, seeded, gm, brunella
) -> None:
    """The Difficulty chosen while htmx is still on its way (held back here): once htmx sets the page up,
    the page asks for that choice's chance, and Roll records the dice the form says."""
    context = browser.new_context()
    sign_in(context, gm, live_server)
    page = open_page(context, problems, ready_first=False)
    held: list[Route] = []
    htmx = re.compile(r"/htmx-2[^/]*\.js$")
    page.route(htmx, lambda route: held.append(route))
    # The page asks for htmx while Chromium parses it, which may be after goto returns: wait for the ask.
    # Playwright hands the held route over after the request, and before the answer to any later call.
    with page.expect_request(htmx):
        page.goto(roll_url(live_server, brunella), wait_until="commit")
    page.get_by_label("Difficulty").select_option("difficult")  # Moderate d10 → Difficult d8, unheard
    expect_chance(page, check(D("d10"), D("d10"), "d10"))  # what the server drew
    assert len(held) == 1
    assert page.evaluate("window.htmxRequests") == 0
    held[0].continue_()

    expected = check(D("d10"), D("d10"), "d8")
    expect_chance(page, expected)
    expect(page.get_by_label("Difficulty")).to_have_value("difficult")
    page.locator("#roll-button").click()
    rolled = lucky13.roll_check(expected, random.Random(SEED))
    expect(page.locator("#roll-result .outcome")).to_have_text("Success" if rolled.success else "Failure")
    assert Roll.objects.get().spec["difficulty"] == "d8"
    assert page.evaluate("window.htmxRequests") == 2  # the chance once, then the roll
    assert problems == []
    context.close()


def test_no_horizontal_scrolling_at_360_pixels(live_server, page: Page, problems, gm, brunella, otto) -> None:
    """The GM's page, with the extra steps, a background's two Ability rolls and a big stepped die."""
    Character.objects.filter(pk=brunella.pk).update(name="Brunella Longname-Ironhand of the Drowned Kings")
    sign_in(page.context, gm, live_server)
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(roll_url(live_server, brunella) + f"&ability_roll=background&helper={otto.pk}&skill_steps=5")
    expect_chance(page, check(D("d10"), D("d10").step(4 + 5), "d10", AbilityRoll.BACKGROUND))
    assert page.evaluate("document.documentElement.scrollWidth") <= 360

    page.locator("#roll-button").click()
    expect(page.locator("#roll-result .outcome")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []
