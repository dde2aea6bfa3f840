"""An encounter of the test-only Coin system, through the pages: the generic encounter (order, turns,
rounds, the log) with everything of the fight from Coin's own combat and templates, and not a line
of it from Lucky 13 (issue 13, "Proof that a system is one package")."""

from __future__ import annotations

from fractions import Fraction

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from characters.models import Character
from play.models import Combatant, Encounter, Roll
from tests.systems.coin import system as coin
from tests.systems.coin.combat import heads_chance

pytestmark = pytest.mark.django_db


def url(name: str, campaign: Campaign) -> str:
    return reverse(f"play:{name}", args=[campaign.pk])


@pytest.fixture
def flipper(coin_campaign, player) -> Character:
    sheet = coin.Sheet(nerve=3, luck=4, step="").model_dump(mode="json")
    return Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)


def test_a_coin_encounter_turn_through_the_pages(client, gm, player, coin_campaign, flipper) -> None:
    client.force_login(gm)
    assert client.post(url("encounter-start", coin_campaign), {"name": "Toss-up"}).status_code == 302
    page = client.get(url("encounter", coin_campaign)).content.decode()
    assert 'name="nerve"' in page  # Coin's own NPC form
    assert client.post(url("encounter-add-characters", coin_campaign), {"characters": flipper.pk}).status_code == 302
    added = client.post(
        url("encounter-add-npcs", coin_campaign), {"name": "Gambler", "count": 2, "nerve": 2, "luck": 3}
    )
    assert added.status_code == 302
    assert Combatant.objects.get(name="Flip").block == {"schema_version": 1, "nerve": 3, "luck": None}
    assert Combatant.objects.get(name="Gambler 1").block == {"schema_version": 1, "nerve": 2, "luck": 3}

    assert client.post(url("encounter-initiative", coin_campaign), {"group_rolls": "1"}).status_code == 302
    encounter = Encounter.objects.get()
    assert (encounter.round, encounter.turn) == (1, 0)
    assert Roll.objects.filter(kind="initiative", system="coin").count() == 2  # Flip, and the group once
    page = client.get(url("encounter", coin_campaign)).content.decode()
    assert "4 of 20 Luck" in page
    assert "Nerve 3 coins" in page

    flip, gambler = Combatant.objects.get(name="Flip"), Combatant.objects.get(name="Gambler 1")
    query = {"attacker": flip.pk, "target": gambler.pk, "need": "2"}
    preview = client.get(url("encounter", coin_campaign), query).content.decode()
    assert "needing 2 heads: a chance of <strong>50.0%</strong> (1/2)" in preview  # 4 of 8 ways
    assert 'name="need" value="2"' in preview  # the roll sends what was shown
    assert client.post(url("encounter-attack", coin_campaign), query).status_code == 302
    attack = Roll.objects.get(kind="attack")
    assert (attack.system, attack.chance, attack.chance_of) == ("coin", "1/2", "hit")
    assert attack.label == "Flip flips 3 coins at Gambler 1, needing 2 heads"
    gambler.refresh_from_db()
    hit = attack.outcome["hit"]
    assert hit == (attack.total >= 2)
    assert gambler.block["luck"] == (2 if hit else 3)
    assert Roll.objects.filter(kind="damage").count() == (1 if hit else 0)

    # The GM's adjustment is of the Luck on the character's sheet, through the one write path.
    adjusted = client.post(
        url("encounter-adjust", coin_campaign),
        {"combatant": flip.pk, "direction": "damage", "amount": 4, "reason": "bad bet"},
    )
    assert adjusted.status_code == 302
    flipper.refresh_from_db()
    assert flipper.document.luck == 0
    assert flipper.sheet_changes.first().what == "4 damage in Toss-up: bad bet"
    # Out of Luck, Flip can no longer act: the turns pass him by.
    client.post(url("encounter-next-turn", coin_campaign))
    encounter.refresh_from_db()
    acting = Combatant.objects.get(encounter=encounter, order=encounter.turn)
    assert acting.name != "Flip"
    refused = client.post(url("encounter-attack", coin_campaign), {"attacker": flip.pk, "target": gambler.pk})
    assert refused.status_code == 409
    bad = client.post(url("encounter-attack", coin_campaign), {**query, "need": "9"})
    assert bad.status_code == 400
    assert Roll.objects.filter(kind="attack").count() == 1


def test_coins_exact_chance() -> None:
    assert heads_chance(3, 2) == Fraction(1, 2)
    assert heads_chance(2, 1) == Fraction(3, 4)


def test_a_coin_party_on_the_campaign_page_and_the_dashboard(client, gm, player, coin_campaign, flipper) -> None:
    """The party's cards are the system's vitals and summary: Coin's Luck, its drafts' step and rolls."""
    draft = coin.SYSTEM.new_draft({"luck": 5}).model_copy(update={"nerve": 2, "step": "tricks"})
    Character.objects.create(campaign=coin_campaign, owner=player, name="Toss", sheet=draft.model_dump(mode="json"))
    client.force_login(player)
    page = client.get(reverse("campaigns:detail", args=[coin_campaign.pk]))
    assert page.status_code == 200
    words = " ".join(page.content.decode().split())
    assert "<dt>Luck</dt><dd>4 of 20</dd>" in words
    assert reverse("characters:create-step", args=[Character.objects.get(name="Toss").pk, "tricks"]) in words
    dashboard = client.get(reverse("play:dashboard", args=[coin_campaign.pk]))
    assert dashboard.status_code == 200
    assert "<dt>Luck</dt><dd>4 of 20</dd>" in " ".join(dashboard.content.decode().split())


def test_a_coin_sheet_reads_on_its_page_and_in_print(client, player, gm, coin_campaign, flipper) -> None:
    """Coin's own sheet templates, with Edit buttons for Coin's own sections (their forms are made from
    its sheet model); a section of another system's sheet is a 404."""
    client.force_login(player)
    page = client.get(reverse("characters:sheet", args=[flipper.pk]))
    assert page.status_code == 200
    words = " ".join(page.content.decode().split())
    assert "<dt>Nerve</dt><dd>3 coins</dd>" in words
    assert "<dt>Luck</dt><dd>4</dd>" in words
    assert f"/characters/{flipper.pk}/edit/notes/" in words
    assert "/edit/hit-points/" not in words
    assert client.get(reverse("characters:print", args=[flipper.pk])).status_code == 200
    assert client.get(reverse("characters:edit-section", args=[flipper.pk, "notes"])).status_code == 200
    assert client.get(reverse("characters:edit-section", args=[flipper.pk, "hit-points"])).status_code == 404
    assert client.get(reverse("characters:sheet-section", args=[flipper.pk, "skills"])).status_code == 404
    client.force_login(gm)
    assert client.get(reverse("characters:history", args=[flipper.pk])).status_code == 200
    assert client.get(reverse("characters:ledger", args=[flipper.pk])).status_code == 200
