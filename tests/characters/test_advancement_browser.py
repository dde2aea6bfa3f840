"""Adventure Points in a real browser: the GM awards the party 12 AP at the end of an adventure;
the player's dashboard shows the new balance without a reload; the player buys a level of
Teleport from "What should I buy?", and the sheet and the ledger show it."""

from __future__ import annotations

import pytest
from playwright.sync_api import expect

from characters.models import Character, LedgerEntry
from tests.browser import open_page
from tests.characters.conftest import FIGHTING, TELEPORT, make_character
from tests.play.test_live_browser import asgi_server, open_dashboard, signed_in  # noqa: F401  (fixture)

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_an_award_reaches_the_player_live_and_is_spent_by_the_rulebook(
    asgi_server,  # noqa: F811
    browser,
    problems,
    campaign,
    gm,
    player,
    other_player,
) -> None:
    brunella = make_character(campaign, player)
    make_character(campaign, other_player, name="Tam")
    table = open_dashboard(browser, player, asgi_server, campaign, problems)
    party_row = table.locator(f"#party-{brunella.pk}")
    balance = party_row.locator("dt", has_text="Adventure Points").locator("xpath=following-sibling::dd")
    expect(balance).to_have_text("0")

    gm_page = open_page(signed_in(browser, gm, asgi_server), problems)
    gm_page.goto(f"{asgi_server.url}/campaigns/{campaign.pk}/")
    gm_page.get_by_role("link", name="Award points").click()
    gm_page.get_by_label("Adventure", exact=True).fill("The Drowned Bell")
    gm_page.get_by_label("Adventure Points for each").fill("12")
    gm_page.get_by_label("Reason", exact=True).fill("Completing the mission")
    gm_page.get_by_role("button", name="Award").click()
    expect(gm_page.get_by_role("status")).to_contain_text("Awarded: Brunella 12 AP, Tam 12 AP.")

    expect(balance).to_have_text("12", timeout=5000)
    assert table.evaluate("window.sameDocument") is True  # swapped in, not reloaded

    sheet = open_page(table.context, problems)
    sheet.goto(f"{asgi_server.url}/characters/{brunella.pk}/")
    sheet.get_by_role("link", name="What should I buy?").click()
    sheet.get_by_label("Compare at").select_option("challenging")
    offer = sheet.locator(".offer").filter(has_text="Teleport (Spellcasting) 2 → 3")
    expect(offer).to_contain_text("Spellcasting (Teleport) at Challenging")
    offer.get_by_role("button", name="Buy for 4 AP").click()
    expect(sheet.get_by_role("status")).to_contain_text("Bought: Teleport (Spellcasting) 2 → 3 for 4 AP. 8 AP left.")

    sheet.get_by_role("link", name="Back to Brunella’s sheet").click()
    teleport = sheet.locator("#skills .specializations li").filter(has_text="Teleport")
    expect(teleport.locator(".level")).to_have_text("3")
    expect(sheet.locator("#sheet-ap")).to_have_text("8")
    expect(sheet.locator(".ledger-latest")).to_contain_text("-4 Teleport (Spellcasting) 2 → 3")

    sheet.get_by_role("link", name="History").click()
    rows = sheet.locator("table.ledger tbody tr")
    expect(rows).to_have_count(2)
    expect(rows.first).to_contain_text("Teleport (Spellcasting) 2 → 3")
    expect(rows.first.locator("td.num").last).to_have_text("8")
    expect(rows.last).to_contain_text("The Drowned Bell")
    expect(balance).to_have_text("8", timeout=5000)  # the purchase is live too

    brunella.refresh_from_db()
    assert brunella.document.specialization(TELEPORT)[1].level == 3
    assert list(LedgerEntry.objects.filter(character=brunella).values_list("amount", flat=True)) == [-4, 12]
    for page in (gm_page, table):
        page.context.close()
    assert problems == []


def test_the_adventure_point_pages_fit_a_phone_and_work_by_keyboard(live_server, page, problems, campaign, gm, player):
    from characters import ledger
    from tests.campaigns.test_browser import sign_in

    brunella = make_character(campaign, player)
    ledger.award(
        campaign_id=campaign.pk, awards=[ledger.Award(brunella.pk, 30)], reason="Discovering vital intel",
        adventure="A very long adventure name that would not fit on one line", by=gm,
    )  # fmt: skip
    page.set_viewport_size({"width": 360, "height": 740})
    sign_in(page.context, gm, live_server)
    for path in (
        f"/campaigns/{campaign.pk}/award/",
        f"/characters/{brunella.pk}/ledger/",
        f"/characters/{brunella.pk}/advance/",
    ):
        page.goto(live_server.url + path)
        assert page.evaluate("document.documentElement.scrollWidth") <= 360, path

    # By keyboard alone: name a new specialization under Fighting and buy it.
    offer = page.locator(".offer").filter(has_text="A new specialization under Fighting")
    offer.get_by_label("Name").focus()
    page.keyboard.type("Riposte")
    page.keyboard.press("Tab")
    expect(offer.get_by_role("button", name="Buy for 4 AP")).to_be_focused()
    page.keyboard.press("Enter")
    expect(page.get_by_role("status")).to_contain_text("Bought: New specialization Riposte (Fighting) for 4 AP.")
    brunella.refresh_from_db()
    assert [(p.name, p.level) for p in brunella.document.skill(FIGHTING).specializations][-1] == ("Riposte", 1)
    assert ledger.balance(Character.objects.get(pk=brunella.pk)) == 26
    assert problems == []


def test_at_360_pixels_the_ledger_stacks_its_columns_and_hides_none(live_server, page, problems, campaign, gm, player):
    from characters import ledger
    from tests.campaigns.test_browser import sign_in

    brunella = make_character(campaign, player)
    for adventure in ("The Drowned Bell", "A very long adventure name that would not fit on one line"):
        ledger.award(campaign_id=campaign.pk, awards=[ledger.Award(brunella.pk, 12)], reason="Discovering vital intel",
                     adventure=adventure, by=gm)  # fmt: skip
    sign_in(page.context, gm, live_server)  # the GM: the column of Reverse links too
    page.set_viewport_size({"width": 360, "height": 740})
    page.goto(f"{live_server.url}/characters/{brunella.pk}/ledger/")

    table = page.locator("table.ledger")
    headers = table.locator("thead th").all_text_contents()
    assert headers == ["When", "What", "Adventure", "By", "Points", "Balance", "Correct"]
    rows = table.locator("tbody tr")
    expect(rows).to_have_count(2)
    for row in rows.all():
        cells = row.locator("td").evaluate_all("""cells => cells.map(cell => {
          const box = cell.getBoundingClientRect();
          const label = getComputedStyle(cell, "::before");
          return {label: cell.dataset.label || null, shown: label.content !== "none" && label.display !== "none",
                  left: box.left, right: box.right, top: box.top, height: box.height};
        })""")
        # Every column, one under another, each named by its header (the Reverse link needs no name).
        assert [cell["label"] for cell in cells] == [*headers[:-1], None]
        assert all(cell["shown"] for cell in cells[:-1])
        assert [cell["top"] for cell in cells] == sorted(cell["top"] for cell in cells)
        assert len({cell["top"] for cell in cells}) == len(cells)
        assert all(cell["left"] >= 0 and cell["right"] <= 360 and cell["height"] > 0 for cell in cells)
    expect(rows.first.locator("td").nth(4)).to_have_text("+12")  # Points
    expect(rows.first.locator("td").nth(5)).to_have_text("24")  # Balance
    expect(rows.first.get_by_role("link", name="Reverse")).to_be_visible()
    assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
    assert page.locator(".table-scroll").evaluate("box => box.scrollWidth <= box.clientWidth")  # no hidden columns

    # Chromium still reads it as a table: its headers name each cell for a screen reader.
    tree = page.context.new_cdp_session(page).send("Accessibility.getFullAXTree")["nodes"]
    roles = [node["role"]["value"] for node in tree if not node.get("ignored")]
    assert roles.count("columnheader") == 7
    assert roles.count("row") == 3
    assert roles.count("cell") == 14
    assert problems == []
