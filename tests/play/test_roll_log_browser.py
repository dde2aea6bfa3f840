"""The campaign's roll log in a real browser: the filters swap the list in place by htmx and
push the URL (and Back brings the old list back), the "Older rolls" link pages by keyset,
"Verify log" answers in place, the same page without JavaScript, and a phone-width screen."""

from __future__ import annotations

import random
import re

import pytest
from playwright.sync_api import Locator, Page, expect

from campaigns.models import Campaign
from characters.models import Character
from play import rolls
from play.models import RollKind
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13.record import check_roll_view
from tests.campaigns.helpers import make_character
from tests.campaigns.test_browser import sign_in
from tests.play.test_rolls import record

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def party(campaign, player, other_player) -> dict[str, Character]:
    return {
        "Brunella": make_character(campaign, player, "Brunella"),
        "Casimir": make_character(campaign, other_player, "Casimir"),
    }


@pytest.fixture
def log(campaign, player, other_player, party) -> Campaign:
    """Thirty rolls: the odd ones Brunella's, the even ones Casimir's; every third a check, the rest free."""
    for seq in range(1, 31):
        by, name = (player, "Brunella") if seq % 2 else (other_player, "Casimir")
        kind = RollKind.CHECK if seq % 3 == 0 else RollKind.FREE
        record(campaign, by, character_id=party[name].pk, kind=kind, total=seq)
    return campaign


def log_url(live_server, campaign: Campaign) -> str:
    return f"{live_server.url}/campaigns/{campaign.pk}/rolls/"


def entries(page: Page) -> Locator:
    return page.locator("#roll-list li.roll-entry")


def shown_seqs(page: Page) -> list[int]:
    """The numbers of the rolls the list shows, top to bottom."""
    return [int(text.removeprefix("#")) for text in entries(page).locator(".roll-seq").all_inner_texts()]


def seqs(*, character: str | None = None, kind: str | None = None) -> list[int]:
    """The rolls of the ``log`` fixture that a filter keeps, newest first."""
    keep = [s for s in range(30, 0, -1) if character is None or (character == "Brunella") == bool(s % 2)]
    return [s for s in keep if kind is None or (kind == "check") == (s % 3 == 0)]


def test_with_htmx_the_filters_swap_the_list_in_place_and_push_the_url(live_server, page: Page, problems, player,
                                                                      log, party) -> None:  # fmt: skip
    sign_in(page.context, player, live_server)
    page.goto(log_url(live_server, log))
    expect(entries(page)).to_have_count(25)
    page.evaluate("window.sameDocument = true")
    brunella = party["Brunella"].pk

    page.get_by_label("Character").select_option(label="Brunella")
    expect(page).to_have_url(re.compile(rf"/rolls/\?character={brunella}&kind=$"))
    expect(entries(page)).to_have_count(15)
    assert shown_seqs(page) == seqs(character="Brunella")
    expect(entries(page).filter(has_text="for Casimir")).to_have_count(0)

    page.get_by_label("Kind").select_option(label="Check")
    expect(page).to_have_url(re.compile(rf"/rolls/\?character={brunella}&kind=check$"))
    expect(entries(page)).to_have_count(5)
    assert shown_seqs(page) == seqs(character="Brunella", kind="check") == [27, 21, 15, 9, 3]

    page.get_by_label("Kind").select_option(label="Attack")
    expect(page.locator("#roll-list")).to_have_text("No rolls match.")
    expect(entries(page)).to_have_count(0)
    assert page.evaluate("window.sameDocument") is True  # every change swapped the list; no page load
    assert page.evaluate("window.htmxRequests") == 3

    page.go_back()  # htmx asks the server for the whole page it pushed before
    expect(page).to_have_url(re.compile(r"kind=check$"))
    expect(entries(page)).to_have_count(5)
    expect(page.get_by_label("Kind")).to_have_value("check")
    expect(page.get_by_label("Character")).to_have_value(str(brunella))
    assert problems == []


def test_older_rolls_pages_back_by_keyset_and_keeps_the_filter(live_server, page: Page, problems, player, log, party,
                                                              monkeypatch) -> None:  # fmt: skip
    monkeypatch.setattr("play.roll_views.PAGE_SIZE", 4)  # the live server runs in this process
    sign_in(page.context, player, live_server)
    page.goto(log_url(live_server, log))
    page.get_by_label("Character").select_option(label="Casimir")
    expect(page).to_have_url(re.compile(r"character="))
    expect(entries(page)).to_have_count(4)
    assert shown_seqs(page) == [30, 28, 26, 24]
    expect(page.get_by_role("link", name="Newest rolls")).to_have_count(0)

    page.get_by_role("link", name="Older rolls").click()
    expect(page).to_have_url(re.compile(rf"\?character={party['Casimir'].pk}&before=24$"))
    expect(entries(page).first).to_contain_text("#22")
    assert shown_seqs(page) == [22, 20, 18, 16]
    expect(page.get_by_label("Character")).to_have_value(str(party["Casimir"].pk))

    for _ in range(2):
        page.get_by_role("link", name="Older rolls").click()
    expect(page).to_have_url(re.compile(r"before=8$"))
    expect(entries(page).first).to_contain_text("#6")
    assert shown_seqs(page) == [6, 4, 2]  # the last page: Casimir has 15 rolls
    expect(page.get_by_role("link", name="Older rolls")).to_have_count(0)

    page.get_by_role("link", name="Newest rolls").click()
    expect(entries(page).first).to_contain_text("#30")
    expect(page).to_have_url(re.compile(rf"\?character={party['Casimir'].pk}$"))
    assert problems == []


def test_verify_log_answers_in_place(live_server, page: Page, problems, gm, log) -> None:
    sign_in(page.context, gm, live_server)
    page.goto(log_url(live_server, log))
    page.evaluate("window.sameDocument = true")
    result = page.locator("#verify-result")
    expect(result).to_have_attribute("aria-live", "polite")
    expect(result).to_be_empty()

    page.get_by_role("button", name="Verify log").click()

    expect(result).to_have_text("All 30 rolls verified.")
    expect(page).to_have_url(log_url(live_server, log))  # the verification is not a page of its own here
    expect(entries(page)).to_have_count(25)
    assert page.evaluate("window.sameDocument") is True
    assert problems == []


def test_without_javascript_the_filters_paging_and_verify_are_plain_forms_and_links(
    live_server, nojs_page: Page, problems, monkeypatch, player, log, party
) -> None:
    monkeypatch.setattr("play.roll_views.PAGE_SIZE", 4)
    page = nojs_page
    sign_in(page.context, player, live_server)
    page.goto(log_url(live_server, log))
    assert shown_seqs(page) == [30, 29, 28, 27]

    page.get_by_label("Character").select_option(label="Brunella")
    page.get_by_label("Kind").select_option(label="Check")
    expect(page).to_have_url(log_url(live_server, log))  # choosing alone does nothing without JavaScript
    page.get_by_role("button", name="Show").click()

    expect(page).to_have_url(f"{log_url(live_server, log)}?character={party['Brunella'].pk}&kind=check")
    assert shown_seqs(page) == [27, 21, 15, 9]
    expect(page.get_by_label("Kind")).to_have_value("check")

    page.get_by_role("link", name="Older rolls").click()
    expect(page).to_have_url(re.compile(r"kind=check&before=9$"))
    assert shown_seqs(page) == [3]
    page.get_by_role("link", name="Newest rolls").click()
    expect(page).to_have_url(re.compile(r"kind=check$"))
    assert shown_seqs(page) == [27, 21, 15, 9]

    page.get_by_role("button", name="Verify log").click()
    expect(page).to_have_url(re.compile(rf"/campaigns/{log.pk}/rolls/verify/\??$"))
    expect(page.get_by_role("heading", level=1)).to_have_text("Verify the roll log")
    expect(page.get_by_text("All 30 rolls verified.")).to_be_visible()
    page.get_by_role("link", name="Back to the roll log").click()
    expect(entries(page)).to_have_count(4)
    assert problems == []


def test_no_horizontal_scrolling_at_360_pixels(live_server, page: Page, problems, campaign, gm, player) -> None:
    """Long names, a check's three rows of dice, a free roll of many exploding dice and a long expression."""
    brunella = make_character(campaign, player, "Brunella Longname-Ironhand of the Drowned Kings")
    big = StepDie.parse("d12+d12+d4")
    check = lucky13.Check(big, big, big, lucky13.AbilityRoll.BACKGROUND, lucky13.Explosion.CINEMATIC)
    rolled = lucky13.roll_check(check, random.Random(442))
    rolls.record_roll(campaign_id=campaign.pk, by=player, character_id=brunella.pk, kind=RollKind.CHECK,
                      spec={"roll": "check"}, dice=check_roll_view(rolled), total=rolled.total,
                      outcome={"success": rolled.success, "margin": rolled.margin, "dilemma": rolled.dilemma},
                      chance=lucky13.check_chance(check).p_success, chance_of="success")  # fmt: skip
    rolls.roll_free(campaign_id=campaign.pk, by=gm, text="30d12+4d6kh3-2", explode=True, secret=True,
                    rng=random.Random(4))  # fmt: skip
    long = "+".join(["d10"] * 20)  # a long word in the roll's heading
    rolls.roll_free(campaign_id=campaign.pk, by=player, text=long, explode=False, secret=False, rng=random.Random(5))
    sign_in(page.context, gm, live_server)
    page.set_viewport_size({"width": 360, "height": 740})

    page.goto(log_url(live_server, campaign))

    expect(entries(page)).to_have_count(3)
    expect(page.locator("#roll-list .die.exploded").first).to_be_visible()
    expect(page.locator("#roll-3 code")).to_have_text(long)
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    for name in ("Show", "Verify log"):  # a thumb's target, as every button of the site
        assert page.get_by_role("button", name=name, exact=True).bounding_box()["height"] >= 44
    page.get_by_role("button", name="Verify log").click()
    expect(page.locator("#verify-result")).to_have_text("All 3 rolls verified.")
    assert page.evaluate("document.documentElement.scrollWidth") <= 360
    assert problems == []
