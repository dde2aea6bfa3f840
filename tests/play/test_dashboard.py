"""The live dashboard page for the whole cast: the party, the initiative order, the feed."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from campaigns.models import Campaign
from play import encounters, rolls
from play.models import Combatant
from tests.campaigns.helpers import assert_login_redirect, html, make_character, text
from tests.play.npcs import npc

pytestmark = pytest.mark.django_db


def dashboard_url(campaign: Campaign) -> str:
    return reverse("play:dashboard", args=[campaign.pk])


def free_roll(campaign: Campaign, by, text: str = "d6", *, secret: bool = False) -> int:
    roll = rolls.roll_free(
        campaign_id=campaign.pk, by=by, text=text, explode=False, secret=secret, rng=random.Random(1)
    )
    return roll.seq


def test_visitors_log_in_and_outsiders_get_a_404(client, campaign, outsider) -> None:
    assert_login_redirect(client.get(dashboard_url(campaign)))
    client.force_login(outsider)
    assert client.get(dashboard_url(campaign)).status_code == 404
    assert client.get(reverse("play:dashboard", args=[campaign.pk + 1000])).status_code == 404


def test_only_safe_methods(client, campaign, player) -> None:
    client.force_login(player)
    assert client.post(dashboard_url(campaign)).status_code == 405


def test_a_new_campaign_shows_its_empty_states(client, campaign, player) -> None:
    client.force_login(player)
    response = client.get(dashboard_url(campaign))
    assert response.status_code == 200
    words = text(response)
    assert "No characters in play yet." in words
    assert "No encounter running." in words
    assert "No rolls yet." in words
    page = html(response)
    assert f'data-live-url="/ws/campaigns/{campaign.pk}/"' in page
    assert 'data-last-seq="0"' in page
    assert 'id="live-status" class="live-status" role="status" hidden' in page
    assert "/static/js/live.js" in page
    assert "<script>" not in page  # no inline script: the CSP allows none


def test_the_party_shows_hit_points_pulse_points_and_reputation(client, campaign, gm, player, other_player) -> None:
    brunella = make_character(campaign, player, "Brunella", ap_balance=7, reputation=2)
    make_character(campaign, other_player, "Dying Dirk", hit_points=-2)
    make_character(campaign, other_player, "Drafty", status="draft")
    client.force_login(gm)
    response = client.get(dashboard_url(campaign))
    page = html(response)
    assert f'<li class="party-member" id="party-{brunella.pk}">' in page
    words = text(response)
    assert "Brunella played by player Pulse now d8 Hit points 30 of 30 Adventure Points 7 Reputation +2" in words
    assert "Dying Dirk" in words
    assert "-2 of 30 Dying" in words
    assert "Drafty" not in words  # drafts are not in play
    assert 'aria-label="10 of 10"' in page  # the hit point slots, a row per Pulse step


def test_the_feed_shows_the_newest_twenty_rolls_newest_first(client, campaign, player) -> None:
    for _ in range(22):
        free_roll(campaign, player)
    client.force_login(player)
    page = html(client.get(dashboard_url(campaign)))
    assert 'data-last-seq="22"' in page
    assert page.index('id="roll-22"') < page.index('id="roll-3"')
    assert 'id="roll-2"' not in page
    assert '<a href="' + reverse("play:rolls", args=[campaign.pk]) + '">The whole roll log</a>' in page


def test_a_secret_roll_is_in_the_gms_feed_only(client, campaign, gm, player) -> None:
    free_roll(campaign, player)
    free_roll(campaign, gm, "d20", secret=True)
    client.force_login(player)
    page = html(client.get(dashboard_url(campaign)))
    assert 'id="roll-1"' in page
    assert 'id="roll-2"' not in page
    assert 'data-last-seq="1"' in page
    client.force_login(gm)
    page = html(client.get(dashboard_url(campaign)))
    assert 'id="roll-2"' in page
    assert "<code>d20</code>" in page
    assert "Reveal" not in page  # revealing is done from the roll log

    rolls.reveal_roll(campaign_id=campaign.pk, seq=2, by=gm)
    client.force_login(player)
    assert "<code>d20</code>" in html(client.get(dashboard_url(campaign)))


def fight(campaign: Campaign, gm, characters, goblins: int = 2) -> int:
    encounter = encounters.start_encounter(campaign_id=campaign.pk, by=gm, name="Ambush at the ford")
    ids = {"campaign_id": campaign.pk, "encounter_id": encounter.pk}
    if characters:
        encounters.add_characters(**ids, by=gm, character_ids=[c.pk for c in characters])
    goblin = npc("Goblin", 2, 1, 1, 1, 0, 1)
    encounters.add_npcs(**ids, by=gm, **goblin, count=goblins)
    encounters.roll_initiative(**ids, by=gm, rng=random.Random(4))
    return encounter.pk


def test_the_running_encounter_shows_its_order_and_whose_turn_it_is(client, campaign, gm, player) -> None:
    brunella = make_character(campaign, player, "Brunella")
    encounter_id = fight(campaign, gm, [brunella])
    encounters.next_turn(campaign_id=campaign.pk, encounter_id=encounter_id, by=gm)
    order = list(Combatant.objects.filter(encounter_id=encounter_id).order_by("order"))
    client.force_login(player)
    response = client.get(dashboard_url(campaign))
    words = text(response)
    assert "No encounter running." not in words
    assert "Ambush at the ford" in words
    assert f"Round 1 · {order[1].name} acts" in words
    page = html(response)
    section = page[page.index('id="initiative"') : page.index('id="dashboard-rolls"')]
    places = [section.index(f'<span class="combatant-name">{c.name}') for c in order]
    assert places == sorted(places)  # in initiative order
    assert section.count('aria-current="true"') == 1
    assert (
        f'aria-current="true">\n      <span class="combatant-name">{order[1].name} <span class="badge">Acting'
        in section
    )
    assert section.count("30 of 30 hp · Pulse d8") == 1  # Brunella
    assert section.count("10 of 10 hp · Pulse d4") == 2  # the goblins
    assert "GM controls" not in page


def test_a_dying_or_dead_combatant_shows_as_on_the_encounter_page(client, campaign, gm, player) -> None:
    make_character(campaign, player, "Brunella", hit_points=-2)
    encounter_id = fight(campaign, gm, list(campaign.characters.all()), goblins=1)
    goblin = Combatant.objects.get(encounter_id=encounter_id, character=None)
    encounters.adjust(
        campaign_id=campaign.pk, encounter_id=encounter_id, by=gm, combatant_id=goblin.pk, amount=-100, reason="x"
    )
    client.force_login(player)
    section = html(client.get(dashboard_url(campaign)))
    assert '<span class="badge dying">Dying</span>' in section
    assert '<span class="badge dead">Dead</span>' in section


def test_an_ended_encounter_leaves_the_empty_state(client, campaign, gm, player) -> None:
    encounter_id = fight(campaign, gm, [])
    encounters.end_encounter(campaign_id=campaign.pk, encounter_id=encounter_id, by=gm)
    client.force_login(player)
    assert "No encounter running." in text(client.get(dashboard_url(campaign)))


@pytest.mark.parametrize("size", [1, 6])
def test_the_dashboard_costs_the_same_queries_however_large(
    client, campaign, gm, player, other_player, django_assert_num_queries, size
) -> None:
    heroes = [make_character(campaign, player if i % 2 else other_player, f"Hero {i}") for i in range(size)]
    for i in range(5 * size):
        free_roll(campaign, gm if i % 3 else player, secret=i % 3 == 1)
    fight(campaign, gm, heroes, goblins=3 * size)
    client.force_login(gm)
    # The session with its user, the GM's membership with its campaign (and whether each of the GM's lists
    # has anything to show), the active characters with their owners (the first page, and the first the
    # GM's call form offers), the running encounter, its combatants with their characters (one query
    # however many), the feed's rolls with who rolled, their character and any reveal. No roll request
    # or proposal is open and no character waits for the GM: none of those lists is read. The feed is read by
    # its rows' keys; the first time, its rows are not kept yet, and their rolls are read in one more query.
    for queries in (7, 6):
        with django_assert_num_queries(queries):
            response = client.get(dashboard_url(campaign))
        assert response.status_code == 200
        assert html(response).count('<li class="combatant') == 4 * size


def test_the_campaign_page_links_to_the_dashboard(client, campaign, player) -> None:
    client.force_login(player)
    page = html(client.get(reverse("campaigns:detail", args=[campaign.pk])))
    assert f'<a href="{dashboard_url(campaign)}">Live dashboard</a>' in page
