"""The ledger in the currencies a system declares: each currency keeps its own balance, a purchase
spends its offer's currency, a currency the system does not declare is a 400 that names it, and
the pages and the API name each balance by its currency. Lucky 13 declares one (Adventure Points);
here it is given a second, Gold, and the tests' own Coin system keeps Tokens."""

from __future__ import annotations

import re

import pytest
from django.contrib.messages import get_messages
from django.urls import reverse

from campaigns.errors import Conflict, Refused
from characters import ledger
from characters.ledger import Award, Order
from characters.models import Balance, Character, LedgerEntry
from rules.systems import lucky13
from rules.systems.base import Currency
from tests.characters.conftest import TELEPORT, make_character
from tests.systems.coin import system as coin

pytestmark = pytest.mark.django_db

GOLD = Currency("gold", "Gold", "gp")


@pytest.fixture
def gold(monkeypatch) -> Currency:
    """Lucky 13 with a second currency after Adventure Points."""
    monkeypatch.setattr(lucky13.SYSTEM, "currencies", (*lucky13.SYSTEM.currencies, GOLD))
    return GOLD


@pytest.fixture
def brunella(campaign, player) -> Character:
    return make_character(campaign, player)


def pay(character: Character, gm, amount: int, currency: str | None = None, reason: str = "Treasure") -> LedgerEntry:
    (entry,) = ledger.award(
        campaign_id=character.campaign_id, awards=[Award(character.pk, amount)], reason=reason, currency=currency,
        by=gm,
    ).entries  # fmt: skip
    return entry


def test_each_currency_keeps_its_own_balance(gold, brunella, gm, player) -> None:
    points = pay(brunella, gm, 12)
    coins = pay(brunella, gm, 30, "gold")
    assert (points.currency, points.balance, coins.currency, coins.balance) == ("ap", 12, "gold", 30)
    assert ledger.balances(brunella) == {"ap": 12, "gold": 30}
    assert (ledger.balance(brunella), ledger.balance(brunella, "ap"), ledger.balance(brunella, "gold")) == (12, 12, 30)

    spent = ledger.buy(character_id=brunella.pk, order=Order(f"level:{TELEPORT}"), by=player)  # an offer in AP
    assert (spent.currency, spent.amount, spent.balance) == ("ap", -4, 8)
    assert ledger.balances(brunella) == {"ap": 8, "gold": 30}

    undone = ledger.correct(character_id=brunella.pk, entry_id=coins.pk, reason="Fool's gold", by=gm)
    assert (undone.currency, undone.amount, undone.balance) == ("gold", -30, 0)
    assert ledger.balances(brunella) == {"ap": 8, "gold": 0}
    assert sorted(Balance.objects.values_list("currency", "amount")) == [("ap", 8), ("gold", 0)]


def test_gold_does_not_pay_for_adventure_points(gold, brunella, gm, player) -> None:
    pay(brunella, gm, 3)
    pay(brunella, gm, 500, "gold")
    with pytest.raises(ledger.NotEnoughPoints, match="has 3 Adventure Points; this needs 4") as refused:
        ledger.buy(character_id=brunella.pk, order=Order(f"level:{TELEPORT}"), by=player)
    assert (refused.value.currency, refused.value.have, refused.value.needed) == ("ap", 3, 4)
    assert ledger.balances(brunella) == {"ap": 3, "gold": 500}


def test_reversing_an_award_checks_the_balance_of_its_own_currency(gold, brunella, gm, player) -> None:
    award = pay(brunella, gm, 4)
    pay(brunella, gm, 100, "gold")
    ledger.buy(character_id=brunella.pk, order=Order(f"level:{TELEPORT}"), by=player)
    with pytest.raises(Conflict, match="from 0 AP below zero"):
        ledger.correct(character_id=brunella.pk, entry_id=award.pk, reason="Oops", by=gm)


@pytest.mark.parametrize("currency", ["silver", "AP", "gold", " ap"])
def test_a_currency_the_system_does_not_declare_is_a_400_that_names_it(brunella, gm, currency) -> None:
    with pytest.raises(Refused) as refused:
        pay(brunella, gm, 5, currency)
    assert refused.value.status == 400
    assert f"no currency {currency!r}" in refused.value.message
    assert "ap (Adventure Points)" in refused.value.message
    assert refused.value.errors["currency"] == refused.value.message
    with pytest.raises(Refused, match=re.escape(f"no currency {currency!r}")):
        ledger.balance(brunella, currency)
    assert not LedgerEntry.objects.exists()
    assert not Balance.objects.exists()


def test_a_character_with_nothing_earned_has_no_balance_row_and_reads_zero(gold, brunella) -> None:
    assert ledger.balances(brunella) == {"ap": 0, "gold": 0}
    assert [(h.currency.name, h.amount) for h in brunella.holdings] == [("Adventure Points", 0), ("Gold", 0)]
    assert not Balance.objects.exists()


def test_loaded_with_balances_costs_no_query(gold, brunella, gm, django_assert_num_queries) -> None:
    pay(brunella, gm, 7, "gold")
    with django_assert_num_queries(1):
        loaded = Character.objects.with_balances().get(pk=brunella.pk)
        assert ledger.balances(loaded) == {"ap": 0, "gold": 7}


# --- The pages (the API: tests/api/test_ledger.py) ----------------------------------------------


def test_the_pages_name_each_balance_by_its_currency(client, gold, campaign, brunella, gm, player) -> None:
    pay(brunella, gm, 12)
    pay(brunella, gm, 30, "gold")
    client.force_login(player)
    sheet = client.get(reverse("characters:sheet", args=[brunella.pk])).text
    assert '<dt>Adventure Points</dt><dd><span id="sheet-ap">12</span>' in sheet
    assert '<dt>Gold</dt><dd><span id="sheet-gold">30</span>' in sheet
    page = client.get(reverse("characters:ledger", args=[brunella.pk])).text
    assert 'id="ap-balance">12</strong> <abbr title="Adventure Points">AP</abbr>' in page
    assert 'id="gold-balance">30</strong> <abbr title="Gold">gp</abbr>' in page
    assert '<td data-label="Currency">gp</td>' in page  # a column says each entry's currency when there are two
    printed = client.get(reverse("characters:print", args=[brunella.pk])).text
    assert "Adventure Points <strong>12</strong>" in printed
    assert "Gold <strong>30</strong>" in printed
    client.force_login(gm)
    for url in (reverse("play:dashboard", args=[campaign.pk]), reverse("campaigns:detail", args=[campaign.pk])):
        text = client.get(url).text
        assert "<dt>Adventure Points</dt><dd>12</dd>" in text
        assert "<dt>Gold</dt><dd>30</dd>" in text
    award = client.get(reverse("characters:award", args=[campaign.pk])).text
    assert "12 AP, 30 gp, reputation" in award


# --- Another system's currency --------------------------------------------------------------------


def test_a_coin_character_earns_tokens(coin_campaign, gm, player) -> None:
    sheet = coin.Sheet(nerve=2, step="").model_dump(mode="json")
    flipper = Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)
    entry = pay(flipper, gm, 3)  # the system's first currency
    assert (entry.currency, entry.balance) == ("tokens", 3)
    assert ledger.balances(flipper) == {"tokens": 3}
    assert [(h.currency.name, h.amount) for h in flipper.holdings] == [("Tokens", 3)]
    with pytest.raises(Refused, match="Coin has no currency 'ap'; its currencies are tokens"):
        pay(flipper, gm, 3, "ap")
    ledger.correct(character_id=flipper.pk, entry_id=entry.pk, reason="Counterfeit", by=gm)
    assert ledger.balances(flipper) == {"tokens": 0}


# --- The GM's award page picks the currency -------------------------------------------------------


def award_form(brunella: Character, **changes: str) -> dict[str, str]:
    return {"adventure": "The Drowned Bell", "amount": "30", "reason": "Treasure", f"include-{brunella.pk}": "on",
            **changes}  # fmt: skip


def test_the_award_page_offers_each_currency_the_first_chosen(client, gold, campaign, brunella, gm) -> None:
    client.force_login(gm)
    page = client.get(reverse("characters:award", args=[campaign.pk])).text
    assert '<select name="currency" id="id_currency"' in page
    assert '<option value="ap" selected>Adventure Points</option>' in page
    assert '<option value="gold">Gold</option>' in page
    assert '<label id="amount-label" for="id_amount">Adventure Points for each</label>' in page


def test_the_amount_label_follows_the_chosen_currency(client, gold, campaign, brunella, gm) -> None:
    client.force_login(gm)
    url = reverse("characters:award", args=[campaign.pk])
    page = client.get(url, {"currency": "gold"}).text
    assert '<option value="gold" selected>Gold</option>' in page
    assert '<label id="amount-label" for="id_amount">Gold for each</label>' in page
    # With htmx, choosing a currency swaps in the label alone (the typed values stay where they are).
    swapped = client.get(url, {"currency": "gold"}, headers={"HX-Request": "true"})
    assert (swapped.status_code, swapped.text.strip()) == (
        200, '<label id="amount-label" for="id_amount">Gold for each</label>')  # fmt: skip
    assert "HX-Request" in swapped["Vary"]


def test_the_gm_awards_the_chosen_currency(client, gold, campaign, brunella, gm) -> None:
    client.force_login(gm)
    response = client.post(reverse("characters:award", args=[campaign.pk]), award_form(brunella, currency="gold"),
                           follow=True)  # fmt: skip
    assert "Awarded: Brunella 30 gp." in response.text
    entry = LedgerEntry.objects.get()
    assert (entry.currency, entry.amount, entry.reason, entry.adventure) == ("gold", 30, "Treasure", "The Drowned Bell")
    assert ledger.balances(brunella) == {"ap": 0, "gold": 30}


def test_no_currency_sent_is_the_first(client, gold, campaign, brunella, gm) -> None:
    client.force_login(gm)
    assert client.post(reverse("characters:award", args=[campaign.pk]), award_form(brunella)).status_code == 302
    assert ledger.balances(brunella) == {"ap": 30, "gold": 0}


@pytest.mark.parametrize(
    ("currency", "message"),
    [
        (
            "silver",
            "Lucky 13 has no currency &#x27;silver&#x27;; its currencies are ap (Adventure Points), gold (Gold).",
        ),
        ("AP", "Lucky 13 has no currency &#x27;AP&#x27;"),
        (" gold", "Lucky 13 has no currency &#x27; gold&#x27;"),
        ("g" * 21, "Ensure this value has at most 20 characters"),
        ("go\x00ld", "Keep it on one line, without control characters."),
    ],
)
def test_an_unknown_currency_is_a_400_that_names_the_field_and_keeps_the_typed_values(
    client, gold, campaign, brunella, gm, currency, message
) -> None:
    client.force_login(gm)
    response = client.post(reverse("characters:award", args=[campaign.pk]), award_form(brunella, currency=currency))
    assert response.status_code == 400
    text = response.text
    assert f"<strong>Nothing was awarded.</strong> Currency: {message}" in text
    assert f'<p class="field-error">{message}' in text
    # What was typed is still there, and the label is the first currency's again.
    assert 'name="adventure" id="id_adventure" value="The Drowned Bell"' in text
    assert 'name="amount" id="id_amount" value="30"' in text
    assert 'name="reason" id="id_reason" value="Treasure"' in text
    assert '<label id="amount-label" for="id_amount">Adventure Points for each</label>' in text
    assert not LedgerEntry.objects.exists()
    assert not Balance.objects.exists()


def test_an_unknown_currency_in_the_query_is_a_400(client, gold, campaign, brunella, gm) -> None:
    client.force_login(gm)
    url = reverse("characters:award", args=[campaign.pk])
    for headers in ({}, {"HX-Request": "true"}):
        response = client.get(url, {"currency": "silver"}, headers=headers)
        assert response.status_code == 400
        assert "Lucky 13 has no currency &#x27;silver&#x27;" in response.text
        assert '<label id="amount-label" for="id_amount">Adventure Points for each</label>' in response.text


def test_with_one_currency_there_is_nothing_to_choose(client, campaign, brunella, gm) -> None:
    client.force_login(gm)
    url = reverse("characters:award", args=[campaign.pk])
    page = client.get(url).text
    assert 'name="currency"' not in page
    assert '<label id="amount-label" for="id_amount">Adventure Points for each</label>' in page
    assert client.post(url, award_form(brunella, currency="ap")).status_code == 302
    refused = client.post(url, award_form(brunella, currency="gold"))
    assert refused.status_code == 400
    assert "Currency: Lucky 13 has no currency &#x27;gold&#x27;; its currencies are ap (Adventure Points)." in (
        refused.text
    )
    assert '<select name="currency"' in refused.text  # the field with its error, to choose again
    assert ledger.balances(brunella) == {"ap": 30}


def test_the_coin_award_page_pays_tokens_and_keeps_no_reputation(client, coin_campaign, gm, player) -> None:
    sheet = coin.Sheet(nerve=2, step="").model_dump(mode="json")
    flipper = Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)
    client.force_login(gm)
    url = reverse("characters:award", args=[coin_campaign.pk])
    page = client.get(url).text
    assert '<label id="amount-label" for="id_amount">Tokens for each</label>' in page
    assert "Reputation change" not in page
    assert "reputation" not in page[page.index("<tbody>") : page.index("</tbody>")]
    refused = client.post(url, award_form(flipper, **{f"reputation-{flipper.pk}": "2"}))
    assert refused.status_code == 400
    assert "Flip&#x27;s sheet keeps no reputation." in refused.text
    assert not LedgerEntry.objects.exists()
    response = client.post(url, award_form(flipper, currency="tokens"))
    assert response["Location"] == reverse("campaigns:detail", args=[coin_campaign.pk])
    assert [str(m) for m in get_messages(response.wsgi_request)] == ["Awarded: Flip 30 T. Everyone sees it now."]
    assert ledger.balances(flipper) == {"tokens": 30}


def test_a_malformed_reputation_change_on_a_sheet_without_reputation_shows_with_the_other_mistakes(
    client, coin_campaign, gm, player
) -> None:
    sheet = coin.Sheet(nerve=2, step="").model_dump(mode="json")
    flipper = Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)
    client.force_login(gm)
    url = reverse("characters:award", args=[coin_campaign.pk])
    refused = client.post(url, award_form(flipper, amount="ten", **{f"reputation-{flipper.pk}": "eleven"}))
    assert refused.status_code == 400
    assert "Flip&#x27;s sheet keeps no reputation." in refused.text  # its field is not on the page: said at the top
    assert "Enter a whole number." in refused.text  # the party's points, in the same response
    assert not LedgerEntry.objects.exists()
