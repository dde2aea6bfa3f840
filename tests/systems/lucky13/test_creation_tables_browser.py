"""Rolling on the campaign's tables at creation, in a real browser: the roll swaps the step's form in
place with the drawn background added and the roll said; an entry chosen by its name brings its
description; the step then saves as before. The live server runs in this process, so the test seeds
the view's rng and knows what it draws."""

from __future__ import annotations

import random

import pytest
from playwright.sync_api import Page, expect

from characters.models import Character
from tests.campaigns.test_browser import sign_in
from tests.systems.lucky13.test_creation_tables import BACKGROUNDS, IMPAIRMENTS, at_traits

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

SEED = 3


@pytest.fixture
def seeded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("characters.drafting_views.secrets.SystemRandom", lambda: random.Random(SEED))


@pytest.fixture
def tabled_campaign(gm, player, other_player):
    from campaigns.models import Campaign, Membership
    from rules.systems import lucky13

    campaign = Campaign.objects.create(
        name="Tables", system="lucky13",
        options=lucky13.validate_options({"background_table": BACKGROUNDS, "impairment_table": IMPAIRMENTS}),
    )  # fmt: skip
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    return campaign


def test_a_player_rolls_a_background_on_the_table_and_sees_it(
    live_server, page: Page, problems, player, tabled_campaign, seeded
) -> None:
    character = at_traits(tabled_campaign, player)
    drawn = BACKGROUNDS[random.Random(SEED).randrange(len(BACKGROUNDS))]
    sign_in(page.context, player, live_server)
    page.goto(f"{live_server.url}/characters/{character.pk}/create/traits/")
    page.evaluate("window.sameDocument = true")
    page.get_by_label("Name").first.fill("Lighthouse keeper")  # typed before the roll: kept

    page.get_by_role("button", name="Roll a background on the table").click()

    number = BACKGROUNDS.index(drawn) + 1
    expect(page.locator("#table-roll-list")).to_have_text(f"Background: Rolled {number} of 3: {drawn['name']}")
    expect(page.locator("#id_trait-0-name")).to_have_value("Lighthouse keeper")
    expect(page.locator("#id_trait-1-name")).to_have_value(drawn["name"])
    expect(page.locator("#id_trait-1-description")).to_have_value(drawn["description"])
    assert page.evaluate("window.sameDocument") is True  # swapped in place, not a new page

    # Choosing an impairment from the table by its name brings its description.
    page.locator("#id_trait-2-kind").select_option("impairment")
    expect(page.locator("#id_trait-2-name")).to_have_attribute("list", "impairment-table-entries")
    page.locator("#id_trait-2-name").fill("Bad knee")
    expect(page.locator("#id_trait-2-description")).to_have_value("Stairs are a battle.")

    page.get_by_role("button", name="Save and continue").click()
    expect(page.get_by_role("heading", level=2)).to_have_text("Equipment")
    sheet = Character.objects.get(pk=character.pk).document
    assert [(t.kind, t.name) for t in sheet.traits] == [
        ("background", "Lighthouse keeper"),
        ("background", drawn["name"]),
        ("impairment", "Bad knee"),
    ]
    assert sheet.creation.table_rolls[0].name == drawn["name"]
    assert problems == []
