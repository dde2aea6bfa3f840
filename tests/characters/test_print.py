"""The printable sheet: everything on the sheet, every hit point slot drawn, and the print rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Browser

from campaigns.models import Campaign, Membership
from characters.models import Balance, Character
from rules.systems.lucky13.sheet import Sheet
from tests.browser import open_page

pytestmark = pytest.mark.django_db

SLOT = re.compile(r'<span class="hp-slot( full)?"></span>')


def print_url(character: Character) -> str:
    return reverse("characters:print", args=[character.pk])


def slots(page: str) -> tuple[int, int]:
    """(slots drawn, slots full) on the page."""
    found = SLOT.findall(page)
    return len(found), sum(1 for full in found if full)


def make_campaign(gm, *members, name: str = "The Sunken Crown", **options) -> Campaign:
    campaign = Campaign.objects.create(name=name, system="lucky13", options=options)
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    for member in members:
        Membership.objects.create(campaign=campaign, user=member, role=Membership.Role.PLAYER)
    return campaign


def sellsword_sheet(**changes) -> dict:
    """A starting sellsword with Pulse d10 (40 hit points at 10 per step); ``changes`` replace fields."""
    skills = [("Spellcasting", "intellect", "d6", [(6, "Teleport")]), ("Scholarship", "intellect", "d6", []),
              ("Healing", "will", "d8", [(7, "Herbs")]), ("Sneaking", "reflex", "d6", [(8, "Pick locks")]),
              ("Fighting", "reflex", "d6", [(9, "Broadsword")])]  # fmt: skip
    document = {
        "concept": "Sellsword",
        "abilities": {"will": "d8", "charm": "d4", "pulse": "d10", "intellect": "d6", "reflex": "d6"},
        "skills": [
            {
                "id": i,
                "name": name,
                "ability": ability,
                "die": die,
                "specializations": [{"id": sid, "name": sname, "level": 1} for sid, sname in specs],
            }
            for i, (name, ability, die, specs) in enumerate(skills, 1)
        ],
        "traits": [
            {"id": 10, "kind": "background", "name": "Mercenary", "description": "Free companies"},
            {"id": 11, "kind": "impairment", "name": "Bad knee"},
        ],
        "assets": [
            {"id": 12, "name": "Old map", "level": 2, "skills": [2, 4], "description": "Faded ink"},
            {"id": 13, "name": "Town guide", "kind": "person", "level": 3},
        ],
        "weapons": [{"id": 14, "name": "Broadsword", "accuracy": "d8", "damage": "d10"}],
        "armor": [{"id": 15, "name": "Chainmail", "defense": "d6"}],
        "hit_points": 40,
        "creation": {"step": "", "ability_method": "balanced", "took_impairment": True},
        "next_id": 16,
        **changes,
    }
    return Sheet.model_validate(document).model_dump(mode="json")


def build(campaign, owner, *, name: str = "Brunella", ap_balance: int = 0, **changes) -> Character:
    character = Character.objects.create(
        campaign=campaign, owner=owner, name=name, status="active", sheet=sellsword_sheet(**changes)
    )
    if ap_balance:
        Balance.objects.create(character=character, currency="ap", amount=ap_balance)
    return character


@pytest.fixture
def sellsword(campaign, player) -> Character:
    return build(campaign, player)


def test_the_printable_sheet_shows_everything_on_the_sheet(client, campaign, player) -> None:
    sheet = sellsword_sheet()
    sheet["skills"][0]["specializations"][0]["level"] = 2
    character = build(campaign, player, ap_balance=7, reputation=-1, notes="Owes Tam 3 gp.",
                      skills=sheet["skills"])  # fmt: skip
    client.force_login(player)

    response = client.get(print_url(character))

    assert response.status_code == 200
    page = response.content.decode()
    for text in (
        "Brunella", "Sellsword", "played by player", campaign.name,
        "<dt>Pulse</dt><dd>d10</dd>", "<dt>Charm</dt><dd>d4</dd>",
        "Spellcasting", "Teleport", "2 → d10",  # Spellcasting d6 stepped up twice
        "Mercenary", "Free companies", "Bad knee",
        "Old map", "(thing asset, Adequate 2)", "helps Scholarship, Sneaking", "Faded ink",
        "Town guide", "(person asset, Standard 3)", "Broadsword", "accuracy d8, damage d10",
        "Chainmail", "defensive die d6",
        "Reputation <strong>-1</strong>", "Adventure Points <strong>7</strong>", "Owes Tam 3 gp.",
        "The Lucky 13 Game Engine was originally created by Solarian Games.",
    ):  # fmt: skip
        assert text in page, text


@pytest.mark.parametrize(("hit_points", "full"), [(40, 40), (23, 23), (5, 5), (0, 0), (-4, 0)])
def test_every_hit_point_slot_is_drawn_and_the_ones_left_are_filled(client, campaign, player, hit_points, full):
    character = build(campaign, player, hit_points=hit_points)
    client.force_login(player)

    page = client.get(print_url(character)).content.decode()

    assert slots(page) == (40, full)
    assert page.count('<tr><th scope="row">d') == 4  # a row per Pulse step: d4, d6, d8, d10
    assert f"<strong>{hit_points}</strong> of 40" in page


def test_a_dying_character_says_so_on_paper(client, campaign, player) -> None:
    character = build(campaign, player, hit_points=-3)
    client.force_login(player)
    page = client.get(print_url(character)).content.decode()
    assert "<strong>Dying</strong>" in page
    assert "dead at -10" in page


def test_the_hit_point_chart_follows_the_campaign_options(client, gm, player) -> None:
    campaign = make_campaign(gm, player, hit_points_per_step=5)
    character = build(campaign, player, hit_points=12)
    client.force_login(player)
    assert slots(client.get(print_url(character)).content.decode()) == (20, 12)


def test_the_page_links_to_the_sheet_and_the_export(client, sellsword, player) -> None:
    client.force_login(player)
    page = client.get(print_url(sellsword)).content.decode()
    assert f'href="{reverse("characters:sheet", args=[sellsword.pk])}"' in page
    assert f'href="{reverse("characters:export", args=[sellsword.pk])}"' in page
    assert 'class="print-toolbar"' in page


@pytest.mark.parametrize(("who", "status"), [("player", 200), ("gm", 200), ("other_player", 200), ("outsider", 404)])
def test_members_who_see_the_sheet_may_print_it(client, request, sellsword, outsider, who, status) -> None:
    client.force_login(request.getfixturevalue(who))
    assert client.get(print_url(sellsword)).status_code == status


def test_anonymous_visitors_are_sent_to_log_in(client, sellsword) -> None:
    response = client.get(print_url(sellsword))
    assert response.status_code == 302
    assert "login" in response["Location"]


def test_a_draft_prints_for_its_player_without_a_chart(client, campaign, player, other_player) -> None:
    sheet = campaign.rules.new_draft(campaign.settings).model_dump(mode="json")
    draft = Character.objects.create(campaign=campaign, owner=player, name="Half done", status="draft", sheet=sheet)
    client.force_login(player)
    page = client.get(print_url(draft)).content.decode()
    assert slots(page) == (0, 0)
    assert "Hit points come from the Pulse die" in page
    client.force_login(other_player)
    assert client.get(print_url(draft)).status_code == 404


def test_the_page_takes_a_fixed_number_of_queries_however_big_the_sheet(
    client, sellsword, player, grow, django_assert_num_queries
) -> None:
    client.force_login(player)
    url = print_url(sellsword)
    # the session with its user, the character as the player may see it, the character with its campaign and owner
    # (its whole sheet is the document on the row)
    with django_assert_num_queries(3):
        client.get(url)
    grow(sellsword, 5)  # as play adds to a sheet
    with django_assert_num_queries(3):
        page = client.get(url).content.decode()
    assert "Trick 4" in page
    assert "Knife 4" in page


# --- The print stylesheet ----------------------------------------------------------------------


def stylesheet() -> str:
    """The rules a printable sheet loads: every page's, then its own."""
    folder = Path(settings.BASE_DIR) / "static" / "css"
    return (folder / "base.css").read_text() + (folder / "print.css").read_text()


def test_the_page_uses_the_stylesheet_with_the_print_rules(client, sellsword, player) -> None:
    client.force_login(player)
    page = client.get(print_url(sellsword)).content.decode()
    assert "css/base" in page
    assert "css/print" in page
    assert 'style="' not in page  # the CSP forbids inline styles


def test_the_print_rules_set_the_page_and_hide_the_screen_furniture() -> None:
    css = stylesheet()
    assert "/* Export and print */" in css
    page = re.search(r"@page \{([^}]*)\}", css)
    assert page is not None
    assert "size: portrait" in page.group(1)  # the printer's own paper, A4 or Letter
    assert "margin: 12mm" in page.group(1)
    hidden = re.search(r"\n  ([^{}\n]*\.print-toolbar[^{}\n]*)\{ display: none !important; \}", css)
    assert hidden is not None
    for selector in (".site-header", ".site-footer", ".skip-link", ".print-toolbar"):
        assert selector in hidden.group(1)
    assert "\n  .print-block { break-inside: avoid; page-break-inside: avoid; }" in css
    assert "color: #000 !important" in css  # black on white
    assert "\n  .hp-slot.full { border-width: 4.5pt; }" in css  # a full slot prints even without backgrounds


# --- On paper ----------------------------------------------------------------------------------


def full_sheet(gm, player) -> Character:
    """A sheet as large as a starting character gets: a dozen skills, specializations, long
    descriptions, a row of every kind of gear, a d12 Pulse (five rows of slots) and long notes."""
    names = ["Technology", "Astrogation", "Mysticism", "Mechanics", "Diplomacy", "Combat", "Piloting", "Medicine",
             "Stealth", "Athletics", "Perception", "Streetwise"]  # fmt: skip
    campaign = make_campaign(
        gm, player, skill_preset="custom", skills=[{"name": n, "ability": "intellect"} for n in names]
    )
    description = "A description long enough to take two lines of the printed sheet, as players like to write them."
    skills = [
        {"id": i, "name": n, "ability": "intellect", "die": "d6",
         "specializations": [{"id": 100 + i, "name": f"{n} trick", "level": 1}] if i <= 4 else []}
        for i, n in enumerate(names, 1)
    ]  # fmt: skip
    traits = [{"id": 20 + i, "kind": "background", "name": f"Background {i}", "description": description}
              for i in range(4)]  # fmt: skip
    traits.append({"id": 24, "kind": "impairment", "name": "Wanted", "description": description})
    assets = [{"id": 30 + i, "name": f"Asset {i}", "level": 3, "skills": [1, 2, 3], "description": description}
              for i in range(6)]  # fmt: skip
    weapons = [{"id": 40 + i, "name": f"Blaster {i}", "accuracy": "d8", "damage": "d10"} for i in range(4)]
    armor = [{"id": 50, "name": "Vest", "defense": "d6"}, {"id": 51, "name": "Helmet", "defense": "d4"}]
    notes = "\n\n".join(["Contacts, debts and plans, as a campaign piles them up over a few sessions. " * 3] * 6)
    sheet = sellsword_sheet(
        concept="Smuggler with a debt to the syndicate",
        abilities={"will": "d10", "charm": "d6", "pulse": "d12", "intellect": "d6", "reflex": "d6"},
        skills=skills, traits=traits, assets=assets, weapons=weapons, armor=armor, hit_points=33, notes=notes,
        next_id=200,
    )  # fmt: skip
    return Character.objects.create(campaign=campaign, owner=player, name="Captain Ada Quint", status="active",
                                    sheet=sheet)  # fmt: skip


def printed_pages(browser: Browser, live_server, user, character: Character, problems: list[str]) -> dict[str, int]:
    """The number of pages Chromium prints the sheet on, for A4 and for Letter paper."""
    client = Client()
    client.force_login(user)
    pages = {}
    context = browser.new_context()
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page = open_page(context, problems)
    page.goto(f"{live_server.url}{print_url(character)}")
    for paper in ("A4", "Letter"):
        pdf = page.pdf(format=paper, prefer_css_page_size=True)
        pages[paper] = len(re.findall(rb"/Type\s*/Page\b", pdf))
    context.close()
    return pages


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_sheet_prints_on_one_or_two_pages_of_a4_or_letter(
    browser: Browser, live_server, problems: list[str], gm, player
) -> None:
    everyday = build(make_campaign(gm, player, name="Everyday"), player)
    assert printed_pages(browser, live_server, player, everyday, problems) == {"A4": 1, "Letter": 1}
    assert printed_pages(browser, live_server, player, full_sheet(gm, player), problems) == {"A4": 2, "Letter": 2}
    assert problems == []
