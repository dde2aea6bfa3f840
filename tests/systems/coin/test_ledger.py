"""The ledger with a system that is not Lucky 13: the tests' Coin game (``tests.systems.coin.system``)
sells a new trick and one more coin of Nerve for Tokens. "What should I buy?", buying, the
ledger's words and records, and corrections all go through the system's protocol, so the same
pages and operations serve it unchanged."""

from __future__ import annotations

import pytest
from django.urls import reverse

from campaigns.errors import Conflict, Refused
from characters import ledger, write
from characters.ledger import Award, Order
from characters.models import Character, LedgerEntry, SheetChange
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db


@pytest.fixture
def flipper(coin_campaign, gm, player) -> Character:
    sheet = coin.Sheet(nerve=2, step="").model_dump(mode="json")
    character = Character.objects.create(
        campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet
    )
    ledger.award(campaign_id=coin_campaign.pk, awards=[Award(character.pk, 10)], reason="Luck", by=gm)
    character.refresh_from_db()
    return character


def sheet_of(character: Character) -> coin.Sheet:
    character.refresh_from_db()
    return character.document


def test_what_should_i_buy_shows_the_coin_offers_at_the_chosen_need(client, player, flipper) -> None:
    client.force_login(player)
    url = reverse("characters:advance", args=[flipper.pk])
    text = client.get(url, {"need": "2"}).text
    assert '<select name="need"' in text  # the system's situation, not a difficulty
    assert '<option value="2" selected>2 heads</option>' in text
    assert "Nerve 2 → 3 <span" in text
    assert "A flip needing 2 heads: 25.0% → <strong>50.0%</strong>" in text  # 1/4 → 4/8
    assert '<input type="hidden" name="offer" value="nerve"><input type="hidden" name="before" value="2">' in text
    assert "A trick is for the story: it changes no flip." in text
    assert '<label>Name <input name="name" required maxlength="60"' in text  # a trick asks for its name
    assert "Tokens history" in text
    htmx = client.get(url, {"need": "1"}, headers={"HX-Request": "true"}).text
    assert htmx.lstrip().startswith('<div id="offers"')
    assert "A flip needing 1 head: 75.0% → <strong>87.5%</strong>" in htmx  # 3/4 → 7/8


def test_a_bad_need_falls_back_to_the_default(client, player, flipper) -> None:
    client.force_login(player)
    response = client.get(reverse("characters:advance", args=[flipper.pk]), {"need": "9"})
    assert response.status_code == 200
    assert "A flip needing 1 head:" in response.text


def test_buying_nerve_writes_the_systems_words_and_record(flipper, player) -> None:
    entry = ledger.buy(character_id=flipper.pk, order=Order("nerve", before=2), by=player)
    assert (entry.currency, entry.amount, entry.balance, entry.reason) == ("tokens", -4, 6, "Nerve 2 → 3")
    assert entry.purchase == {"offer": "nerve", "cost": 4, "before": 2, "after": 3}
    assert sheet_of(flipper).nerve == 3
    change = SheetChange.objects.get(character=flipper)
    assert (change.what, change.sections) == ("Nerve 2 → 3", [])
    with pytest.raises(write.StaleSheet, match="Nerve is 3 now: the sheet changed since you looked"):
        ledger.buy(character_id=flipper.pk, order=Order("nerve", before=2), by=player)
    assert ledger.balance(flipper) == 6


def test_buying_a_trick_takes_its_name_and_is_reversed(flipper, gm, player) -> None:
    entry = ledger.buy(character_id=flipper.pk, order=Order("trick", name=" Vanish ", before=0), by=player)
    assert (entry.amount, entry.reason) == (-1, "A new trick: Vanish")
    assert entry.purchase == {"offer": "trick", "cost": 1, "trick_id": 1, "name": "Vanish"}
    flipper.refresh_from_db()
    assert [t.name for t in flipper.document.tricks] == ["Vanish"]
    assert flipper.section_versions["tricks"] == flipper.version
    ledger.correct(character_id=flipper.pk, entry_id=entry.pk, reason="Misclick", by=gm)
    assert sheet_of(flipper).tricks == ()
    assert ledger.balance(flipper) == 10
    assert SheetChange.objects.filter(character=flipper).first().what == "Reversed: A new trick: Vanish"


@pytest.mark.parametrize(
    ("order", "error", "message", "field"),
    [
        (Order("trick"), Refused, "A new trick needs a name.", "name"),
        (Order("nerve", name="Brave"), Refused, "This purchase takes no name.", "name"),
        (Order("ability:will"), Refused, "There is no purchase 'ability:will' on this sheet.", "offer"),
    ],
)
def test_a_coin_purchase_that_cannot_be_made_changes_nothing(flipper, player, order, error, message, field) -> None:
    before = (flipper.version, flipper.sheet)
    with pytest.raises(error) as refused:
        ledger.buy(character_id=flipper.pk, order=order, by=player)
    assert (refused.value.status, refused.value.message, refused.value.errors) == (400, message, {field: message})
    flipper.refresh_from_db()
    assert (flipper.version, flipper.sheet) == before
    assert LedgerEntry.objects.count() == 1


def test_nerve_at_the_top_is_a_409(flipper, player) -> None:
    Character.objects.filter(pk=flipper.pk).update(sheet={**flipper.sheet, "nerve": coin.MAX_NERVE})
    with pytest.raises(Conflict, match=r"Nerve stops at 6\.$") as refused:
        ledger.buy(character_id=flipper.pk, order=Order("nerve"), by=player)
    assert refused.value.status == 409
    assert LedgerEntry.objects.count() == 1


def test_a_nerve_purchase_whose_nerve_moved_on_cannot_be_reversed(flipper, gm, player) -> None:
    entry = ledger.buy(character_id=flipper.pk, order=Order("nerve"), by=player)
    Character.objects.filter(pk=flipper.pk).update(sheet={**flipper.sheet, "nerve": 5})
    with pytest.raises(Conflict, match=r"Nerve is no longer what this purchase bought: correct the sheet first\.$"):
        ledger.correct(character_id=flipper.pk, entry_id=entry.pk, reason="Oops", by=gm)
    assert LedgerEntry.objects.filter(kind="correction").count() == 0


def test_the_buy_page_buys_a_trick(client, player, flipper) -> None:
    client.force_login(player)
    data = {"offer": "trick", "name": "Vanish", "before": "0"}
    response = client.post(reverse("characters:buy", args=[flipper.pk]), data, follow=True)
    assert "Bought: A new trick: Vanish for 1 T. 9 T left." in response.text
    refused = client.post(reverse("characters:buy", args=[flipper.pk]), {"offer": "nerve", "before": "1"})
    assert refused.status_code == 409
    assert "Nerve is 2 now: the sheet changed since you looked, so nothing was bought." in refused.text
    assert sheet_of(flipper).nerve == 2
