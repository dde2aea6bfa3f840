"""The printable sheet: everything on the sheet, every hit point slot drawn, and the print rules."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from django.urls import reverse
from playwright.sync_api import Browser

from characters import creation
from characters.creation import ArmorChoice, AssetChoice, SpecializationChoice, TraitChoice, WeaponChoice
from characters.models import Asset, Character, Specialization, Weapon
from rules.dice import StepDie
from tests.characters.test_exchange import build, make_campaign

D = StepDie.parse

pytestmark = pytest.mark.django_db

SLOT = re.compile(r'<span class="hp-slot( full)?"></span>')


def print_url(character: Character) -> str:
    return reverse("characters:print", args=[character.pk])


def slots(page: str) -> tuple[int, int]:
    """(slots drawn, slots full) on the page."""
    found = SLOT.findall(page)
    return len(found), sum(1 for full in found if full)


@pytest.fixture
def sellsword(campaign, player) -> Character:
    """A finished character with Pulse d10 (40 hit points at 10 per step), made by the creation steps."""
    return build(campaign, player)


def test_the_printable_sheet_shows_everything_on_the_sheet(client, sellsword, player) -> None:
    Specialization.objects.filter(skill__character=sellsword, name="Teleport").update(level=2)
    Character.objects.filter(pk=sellsword.pk).update(reputation=-1, ap_balance=7, notes="Owes Tam 3 gp.")
    client.force_login(player)

    response = client.get(print_url(sellsword))

    assert response.status_code == 200
    page = response.content.decode()
    for text in (
        "Brunella", "Sellsword", "played by player", "The Sunken Crown",
        "<dt>Pulse</dt><dd>d10</dd>", "<dt>Charm</dt><dd>d4</dd>",
        "Spellcasting", "Teleport", "2 → d10",  # Spellcasting d6 stepped up twice
        "Mercenary", "Free companies", "Bad knee",
        "Old map", "helps Scholarship, Sneaking", "Town guide", "Broadsword", "accuracy d8, damage d10",
        "Chainmail", "defensive die d6",
        "Reputation <strong>-1</strong>", "Adventure Points <strong>7</strong>", "Owes Tam 3 gp.",
        "The Lucky 13 Game Engine was originally created by Solarian Games.",
    ):  # fmt: skip
        assert text in page, text


@pytest.mark.parametrize(("hit_points", "full"), [(40, 40), (23, 23), (5, 5), (0, 0), (-4, 0)])
def test_every_hit_point_slot_is_drawn_and_the_ones_left_are_filled(client, sellsword, player, hit_points, full):
    Character.objects.filter(pk=sellsword.pk).update(hit_points=hit_points)
    client.force_login(player)

    page = client.get(print_url(sellsword)).content.decode()

    assert slots(page) == (40, full)
    assert page.count('<tr><th scope="row">d') == 4  # a row per Pulse step: d4, d6, d8, d10
    assert f"<strong>{hit_points}</strong> of 40" in page


def test_a_dying_character_says_so_on_paper(client, sellsword, player) -> None:
    Character.objects.filter(pk=sellsword.pk).update(hit_points=-3)
    client.force_login(player)
    page = client.get(print_url(sellsword)).content.decode()
    assert "<strong>Dying</strong>" in page
    assert "dead at -10" in page


def test_the_hit_point_chart_follows_the_campaign_options(client, gm, player) -> None:
    campaign = make_campaign(gm, player, hit_points_per_step=5)
    character = build(campaign, player)
    Character.objects.filter(pk=character.pk).update(hit_points=12)
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
    draft = creation.start_character(campaign=campaign, owner=player, name="Half done")
    client.force_login(player)
    page = client.get(print_url(draft)).content.decode()
    assert slots(page) == (0, 0)
    assert "Hit points come from the Pulse die" in page
    client.force_login(other_player)
    assert client.get(print_url(draft)).status_code == 404


def test_the_page_takes_a_fixed_number_of_queries_however_big_the_sheet(
    client, sellsword, player, django_assert_num_queries
) -> None:
    client.force_login(player)
    url = print_url(sellsword)
    # session, user, the character as the player may see it, the character with its campaign and owner,
    # skills, specializations, traits, assets, the skills each asset helps, weapons, armor
    with django_assert_num_queries(11):
        client.get(url)
    skills = list(sellsword.skills.all())
    for i in range(5):  # as play adds to a sheet
        Specialization.objects.create(skill=skills[i], name=f"Trick {i}", level=2)
        asset = Asset.objects.create(character=sellsword, name=f"Trinket {i}", level=1)
        asset.skills.set(skills)
        Weapon.objects.create(character=sellsword, name=f"Knife {i}", accuracy=1, damage=1)
    with django_assert_num_queries(11):
        client.get(url)


# --- The print stylesheet ----------------------------------------------------------------------


def stylesheet() -> str:
    return (Path(settings.BASE_DIR) / "static" / "css" / "dicehall.css").read_text()


def test_the_page_uses_the_stylesheet_with_the_print_rules(client, sellsword, player) -> None:
    client.force_login(player)
    page = client.get(print_url(sellsword)).content.decode()
    assert "css/dicehall" in page
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
    character = creation.start_character(
        campaign=campaign, owner=player, name="Captain Ada Quint", concept="Smuggler with a debt to the syndicate"
    )
    dice = {"will": D("d10"), "charm": D("d6"), "pulse": D("d12"), "intellect": D("d6"), "reflex": D("d6")}
    creation.assign_abilities(character_id=character.pk, array="specialized", dice=dice)
    creation.set_skills(character_id=character.pk)
    creation.set_specializations(
        character_id=character.pk,
        choices=[SpecializationChoice(n, f"{n} trick") for n in names[:4]],
        took_impairment=True,
    )
    description = "A description long enough to take two lines of the printed sheet, as players like to write them."
    creation.set_traits(
        character_id=character.pk,
        traits=[TraitChoice("background", f"Background {i}", description) for i in range(4)]
        + [TraitChoice("impairment", "Wanted", description)],
    )
    creation.set_equipment(
        character_id=character.pk,
        assets=[AssetChoice(f"Asset {i}", 3, "thing", tuple(names[:3]), description) for i in range(6)],
        weapons=[WeaponChoice(f"Blaster {i}", D("d8"), D("d10")) for i in range(4)],
        armor=[ArmorChoice("Vest", D("d6")), ArmorChoice("Helmet", D("d4"))],
    )
    creation.finish(character_id=character.pk)
    notes = "\n\n".join(["Contacts, debts and plans, as a campaign piles them up over a few sessions. " * 3] * 6)
    Character.objects.filter(pk=character.pk).update(hit_points=33, notes=notes)
    return character


def printed_pages(browser: Browser, live_server, user, character: Character) -> dict[str, int]:
    """The number of pages Chromium prints the sheet on, for A4 and for Letter paper."""
    client = Client()
    client.force_login(user)
    pages = {}
    context = browser.new_context()
    context.add_cookies([{"name": "sessionid", "value": client.cookies["sessionid"].value, "url": live_server.url}])
    page = context.new_page()
    page.goto(f"{live_server.url}{print_url(character)}")
    for paper in ("A4", "Letter"):
        pdf = page.pdf(format=paper, prefer_css_page_size=True)
        pages[paper] = len(re.findall(rb"/Type\s*/Page\b", pdf))
    context.close()
    return pages


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_a_sheet_prints_on_one_or_two_pages_of_a4_or_letter(browser: Browser, live_server, gm, player) -> None:
    everyday = build(make_campaign(gm, player, name="Everyday"), player)
    assert printed_pages(browser, live_server, player, everyday) == {"A4": 1, "Letter": 1}
    assert printed_pages(browser, live_server, player, full_sheet(gm, player)) == {"A4": 2, "Letter": 2}
