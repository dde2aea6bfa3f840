"""What waits for the GM: a player's gear waits at creation as it does in play, and the GM sees
every waiting item on the campaign page and the dashboard and approves or refuses each in one click,
through the one write path, in the sheet's history."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters.models import Character, SheetChange
from rules.dice import StepDie
from rules.systems import lucky13
from tests.campaigns.helpers import text
from tests.systems.lucky13 import drafts as creation
from tests.systems.lucky13.drafts import ArmorChoice, AssetChoice, WeaponChoice

pytestmark = pytest.mark.django_db

D = StepDie.parse
BALANCED = dict(zip(lucky13.ABILITY_KEYS, map(D, ["d6", "d4", "d10", "d6", "d8"]), strict=True))


@pytest.fixture
def table(gm, player) -> Campaign:
    campaign = Campaign.objects.create(name="The Sunken Crown", system="lucky13", options={})
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    return campaign


def equipped(campaign, player, *, by) -> Character:
    """A draft through its skills, then a level-4 asset, a d12 weapon and armor chosen by ``by``."""
    character = creation.start_character(campaign=campaign, owner=player, name="Brunella")
    creation.assign_abilities(character_id=character.pk, array="balanced", dice=BALANCED)
    creation.set_skills(character_id=character.pk)
    fighting = Character.objects.get(pk=character.pk).document.skills[-1].id
    creation.set_specializations(character_id=character.pk, choices=[], took_impairment=False)
    creation.set_traits(character_id=character.pk, traits=[])
    creation.set_equipment(
        character_id=character.pk, by=by,
        assets=[AssetChoice("Family sword", 4, skills=(fighting,)), AssetChoice("Lucky coin", 1, skills=(fighting,))],
        weapons=[WeaponChoice("Greatsword", D("d12"), D("d12"))], armor=[ArmorChoice("Plate", D("d10"))],
    )  # fmt: skip
    return Character.objects.get(pk=character.pk)


def test_a_players_gear_waits_at_creation_as_in_play(table, player) -> None:
    draft = equipped(table, player, by=player)
    sheet = draft.document
    assert [(a.name, a.approved) for a in sheet.assets] == [("Family sword", False), ("Lucky coin", True)]
    assert [w.approved for w in sheet.weapons] == [False]
    assert [a.approved for a in sheet.armor] == [False]
    assert draft.awaiting == 3
    finished = creation.finish(character_id=draft.pk)
    assert finished.awaiting == 3  # the character joins the party; the gear still waits
    assert not [a for a in finished.document.assets if a.name == "Family sword" and a.approved]  # steps no die yet


def test_the_gms_own_choice_at_creation_is_approved(table, gm, player) -> None:
    draft = equipped(table, player, by=gm)
    assert draft.awaiting == 0
    assert all(item.approved for item in (*draft.document.assets, *draft.document.weapons, *draft.document.armor))


def test_a_campaign_of_free_gear_lets_it_all_in(gm, player, table) -> None:
    Campaign.objects.filter(pk=table.pk).update(options={"gear": "free"})
    table.refresh_from_db()
    assert equipped(table, player, by=player).awaiting == 0


@pytest.mark.parametrize(("page", "back"), [("campaigns:detail", "campaign"), ("play:dashboard", "dashboard")])
def test_the_gm_sees_what_waits_and_decides_each_in_one_click(client, table, gm, player, page, back) -> None:
    draft = equipped(table, player, by=player)
    client.force_login(gm)
    shown = text(client.get(reverse(page, args=[table.pk])))
    assert "Waiting for your approval" in shown
    for words in ("Asset: Family sword (thing, level 4)", "Weapon: Greatsword, accuracy d12, damage d12",
                  "Armor: Plate, defense d10"):  # fmt: skip
        assert words in shown
    assert "Lucky coin" not in shown  # a level-1 asset needs no approval

    sword, greatsword = draft.document.assets[0].id, draft.document.weapons[0].id
    url = reverse("characters:decide-awaiting", args=[draft.pk])
    approved = client.post(url, {"item": sword, "decision": "approve", "back": back})
    assert approved.status_code == 302
    assert approved.url == reverse(page, args=[table.pk]) + "#awaiting-gm"
    refused = client.post(url, {"item": greatsword, "decision": "refuse", "back": back})
    assert refused.status_code == 302
    after = Character.objects.get(pk=draft.pk)
    assert [(a.name, a.approved) for a in after.document.assets] == [("Family sword", True), ("Lucky coin", True)]
    assert after.document.weapons == ()
    assert after.awaiting == 1
    assert after.version == draft.version + 2
    history = list(SheetChange.objects.filter(character=draft).order_by("-pk").values_list("what", "by")[:2])
    assert history == [("Refused by the GM: Weapon: Greatsword, accuracy d12, damage d12", gm.pk),
                       ("Approved by the GM: Asset: Family sword (thing, level 4)", gm.pk)]  # fmt: skip
    again = client.post(url, {"item": sword, "decision": "approve", "back": back})
    assert again.status_code == 409
    assert "decided already" in again.text


def test_only_the_gm_decides_and_bad_input_changes_nothing(client, table, gm, player, outsider) -> None:
    draft = equipped(table, player, by=player)
    url = reverse("characters:decide-awaiting", args=[draft.pk])
    sword = draft.document.assets[0].id
    client.force_login(player)
    assert "Waiting for your approval" not in text(client.get(reverse("campaigns:detail", args=[table.pk])))
    assert client.post(url, {"item": sword, "decision": "approve"}).status_code == 403
    client.force_login(outsider)
    assert client.post(url, {"item": sword, "decision": "approve"}).status_code == 404
    client.force_login(gm)
    assert client.get(url).status_code == 405
    for data in ({"item": sword, "decision": "maybe"}, {"item": "", "decision": "approve"},
                 {"item": "x" * 41, "decision": "approve"}, {"item": "asset-\x00", "decision": "refuse"}):  # fmt: skip
        response = client.post(url, data)
        assert response.status_code == 400
        assert "Choose Approve or Refuse" in response.text
    assert client.post(url, {"item": "asset-999", "decision": "approve"}).status_code == 409
    assert Character.objects.get(pk=draft.pk).version == draft.version


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_the_gm_approves_and_refuses_from_the_campaign_page_by_keyboard(
    live_server, page, problems, gm, player
) -> None:
    from playwright.sync_api import expect

    from tests.campaigns.test_browser import sign_in

    campaign = Campaign.objects.create(name="The Sunken Crown", system="lucky13", options={})
    Membership.objects.create(campaign=campaign, user=gm, role=Membership.Role.GM)
    Membership.objects.create(campaign=campaign, user=player, role=Membership.Role.PLAYER)
    draft = equipped(campaign, player, by=player)
    sign_in(page.context, gm, live_server)
    page.goto(f"{live_server.url}{reverse('campaigns:detail', args=[campaign.pk])}")
    waiting = page.locator("#awaiting-gm")
    expect(waiting).to_contain_text("Weapon: Greatsword, accuracy d12, damage d12")
    approve = waiting.get_by_role("button", name="Approve Asset: Family sword (thing, level 4) for Brunella")
    approve.focus()
    page.keyboard.press("Enter")
    expect(page.locator(".messages")).to_contain_text("Brunella: approved.")
    expect(waiting).not_to_contain_text("Family sword")
    waiting.get_by_role("button", name="Refuse Weapon: Greatsword, accuracy d12, damage d12 for Brunella").click()
    expect(waiting).not_to_contain_text("Greatsword")
    waiting.get_by_role("button", name="Approve Armor: Plate, defense d10 for Brunella").click()
    expect(page.locator("#awaiting-gm")).to_have_count(0)  # nothing waits: the section is gone
    after = Character.objects.get(pk=draft.pk)
    assert (after.awaiting, [w.name for w in after.document.weapons]) == (0, [])
    assert problems == []
