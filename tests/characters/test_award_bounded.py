"""The GM's award form lists a bounded page of the party (the first by name, or a name search) and
gives the party's award to everyone else in play with one box: its cost does not grow with the party."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.ledger_views import AWARD_ROWS
from characters.models import Character, LedgerEntry
from tests.characters.conftest import make_character

pytestmark = pytest.mark.django_db


def heroes(campaign, player, count: int) -> list[Character]:
    return [make_character(campaign, player, name=f"Hero {i:03}") for i in range(count)]


def url(campaign) -> str:
    return reverse("characters:award", args=[campaign.pk])


def rows(characters, **override) -> dict[str, str]:
    """What the page posts for its rows: each row's fields, ticked, with no override unless given."""
    data = {}
    for c in characters:
        data.update({f"include-{c.pk}": "on", f"amount-{c.pk}": "", f"reason-{c.pk}": "", f"reputation-{c.pk}": "0"})
    data.update(override)
    return data


def test_the_page_lists_the_first_by_name_and_counts_the_others(client, gm, player, campaign) -> None:
    party = heroes(campaign, player, AWARD_ROWS + 10)
    client.force_login(gm)
    page = client.get(url(campaign)).text
    assert f'name="amount-{party[AWARD_ROWS - 1].pk}"' in page
    assert f'name="amount-{party[AWARD_ROWS].pk}"' not in page
    assert "to the 10 other characters in play too" in page
    assert 'name="rest" id="id_rest" checked' in page


def test_the_page_costs_the_same_for_any_party(client, gm, player, campaign, django_assert_num_queries) -> None:
    heroes(campaign, player, AWARD_ROWS + 5)
    client.force_login(gm)
    client.get(url(campaign))
    # The session with its user, the campaign, its members (the GM's role), the page of characters with
    # their owners and balances, the adventures already named, the others counted.
    with django_assert_num_queries(6):
        small = client.get(url(campaign))
    heroes_more = [make_character(campaign, player, name=f"Later {i:03}") for i in range(200)]
    assert heroes_more
    with django_assert_num_queries(6):
        large = client.get(url(campaign))
    assert large.text.count('name="include-') == small.text.count('name="include-') == AWARD_ROWS


def test_everyone_else_takes_the_partys_award(client, gm, player, campaign) -> None:
    party = heroes(campaign, player, AWARD_ROWS + 4)
    shown, rest = party[:AWARD_ROWS], party[AWARD_ROWS:]
    client.force_login(gm)
    data = {"amount": "12", "reason": "Mission", "rest": "on", **rows(shown, **{f"amount-{shown[0].pk}": "20"})}
    response = client.post(url(campaign), data, follow=True)
    assert response.redirect_chain[-1][0] == reverse("campaigns:detail", args=[campaign.pk])
    awarded = dict(LedgerEntry.objects.values_list("character_id", "amount"))
    assert awarded == {shown[0].pk: 20, **{c.pk: 12 for c in shown[1:]}, **{c.pk: 12 for c in rest}}
    assert "and 23 more" in response.text  # the message names a few and counts the rest


def test_without_the_box_only_the_listed_are_awarded(client, gm, player, campaign) -> None:
    party = heroes(campaign, player, AWARD_ROWS + 4)
    client.force_login(gm)
    assert (
        client.post(url(campaign), {"amount": "12", "reason": "Mission", **rows(party[:AWARD_ROWS])}).status_code == 302
    )
    assert LedgerEntry.objects.count() == AWARD_ROWS


def test_a_name_search_lists_others_to_give_something_else(client, gm, player, campaign) -> None:
    party = heroes(campaign, player, AWARD_ROWS + 4)
    zed = make_character(campaign, player, name="Zed")
    client.force_login(gm)
    page = client.get(url(campaign), {"name": " ze "}).text
    assert page.count('name="include-') == 1
    assert f'name="amount-{zed.pk}"' in page
    assert f"to the {len(party)} other characters in play too" in page
    data = {"amount": "10", "reason": "Mission", "rest": "on", **rows([zed], **{f"amount-{zed.pk}": "30"})}
    assert client.post(url(campaign), data).status_code == 302
    awarded = dict(LedgerEntry.objects.values_list("character_id", "amount"))
    assert awarded == {zed.pk: 30, **{c.pk: 10 for c in party}}
    assert "No character in play has a name that starts with" in client.get(url(campaign), {"name": "Q"}).text


@pytest.mark.parametrize("name", ["a\x00b", "x" * 61, "a\x07b"])
def test_a_search_that_is_not_a_name_is_a_400_with_the_form(client, gm, player, campaign, name) -> None:
    heroes(campaign, player, 2)
    client.force_login(gm)
    response = client.get(url(campaign), {"name": name})
    assert response.status_code == 400
    assert "Find a character by the start of their name" in response.text
    assert response.text.count('name="include-') == 2


def test_too_many_rows_or_one_no_longer_in_play_awards_nothing(client, gm, player, campaign) -> None:
    party = heroes(campaign, player, AWARD_ROWS + 1)
    client.force_login(gm)
    too_many = client.post(url(campaign), {"amount": "5", "reason": "Mission", **rows(party)})
    assert too_many.status_code == 400
    assert f"at most {AWARD_ROWS} characters" in too_many.text
    Character.objects.filter(pk=party[0].pk).update(status="archived")
    gone = client.post(url(campaign), {"amount": "5", "reason": "Mission", **rows(party[:3])})
    assert gone.status_code == 400
    assert "no longer in play" in gone.text
    assert not LedgerEntry.objects.exists()


@pytest.mark.parametrize("typed", ["٣", "²", "1e3"])
def test_an_amount_not_in_ascii_digits_is_refused_by_its_field(client, gm, player, campaign, typed) -> None:
    party = heroes(campaign, player, 2)
    client.force_login(gm)
    response = client.post(url(campaign), {"amount": typed, "reason": "Mission", **rows(party)})
    assert response.status_code == 400
    assert "Enter a whole number." in response.text
    assert not LedgerEntry.objects.exists()
