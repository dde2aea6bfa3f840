"""The GM's "Add characters" list is bounded: the first 30 active characters by name not yet in the
fight, and a search by the start of a name for the others; its cost does not grow with the party."""

from __future__ import annotations

import pytest
from django.urls import reverse

from characters.models import Character
from play import encounters
from play.encounter_views import ADDABLE
from tests.characters.conftest import make_character

pytestmark = pytest.mark.django_db


@pytest.fixture
def big_party(campaign, player) -> list[Character]:
    """300 active characters, their sheets all the same as one made the usual way."""
    model = make_character(campaign, player, name="Aaron")
    heroes = Character.objects.bulk_create(
        Character(campaign=campaign, owner=player, name=f"Hero {i:03}", status="active", sheet=model.sheet,
                  system=campaign.system)
        for i in range(299)
    )  # fmt: skip
    return [model, *heroes]


def page(client, campaign, **query):
    return client.get(reverse("play:encounter", args=[campaign.pk]), query)


def test_the_list_is_bounded_and_a_search_finds_the_rest(client, gm, campaign, big_party) -> None:
    encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Siege")
    client.force_login(gm)
    body = page(client, campaign).content.decode()
    assert body.count('name="characters"') == ADDABLE
    assert "Aaron" in body
    assert "Hero 298" not in body
    assert 'name="add_name"' in body
    found = page(client, campaign, add_name="hero 29").content.decode()
    assert found.count('name="characters"') == 9  # Hero 290 … Hero 298
    assert "Hero 298" in found
    assert "No character in play" in page(client, campaign, add_name="Zed").content.decode()


def test_the_page_costs_the_same_with_a_party_of_300(
    client, gm, campaign, big_party, django_assert_num_queries
) -> None:
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Siege")
    encounters.add_characters(
        campaign_id=campaign.pk, encounter_id=encounter.pk, by=gm, character_ids=[big_party[0].pk]
    )
    client.force_login(gm)
    with django_assert_num_queries(8):
        body = page(client, campaign).content.decode()
    assert body.count('name="characters"') == ADDABLE
    assert f'name="characters" value="{big_party[0].pk}"' not in body  # already in the fight


@pytest.mark.parametrize("bad", ["x" * 121, "a\u0000b"])
def test_a_bad_search_is_a_400(client, gm, campaign, big_party, bad) -> None:
    encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Siege")
    client.force_login(gm)
    assert page(client, campaign, add_name=bad).status_code == 400
