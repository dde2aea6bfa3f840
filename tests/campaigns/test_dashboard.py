"""The live dashboard page for the whole cast: the party, the initiative's empty state, the feed."""

from __future__ import annotations

import random

import pytest
from django.urls import reverse

from campaigns import rolls
from campaigns.models import Campaign
from tests.campaigns.helpers import assert_login_redirect, html, make_character, text

pytestmark = pytest.mark.django_db


def dashboard_url(campaign: Campaign) -> str:
    return reverse("campaigns:dashboard", args=[campaign.pk])


def free_roll(campaign: Campaign, by, text: str = "d6", *, secret: bool = False) -> int:
    roll = rolls.roll_free(
        campaign_id=campaign.pk, by=by, text=text, explode=False, secret=secret, rng=random.Random(1)
    )
    return roll.seq


def test_visitors_log_in_and_outsiders_get_a_404(client, campaign, outsider) -> None:
    assert_login_redirect(client.get(dashboard_url(campaign)))
    client.force_login(outsider)
    assert client.get(dashboard_url(campaign)).status_code == 404
    assert client.get(reverse("campaigns:dashboard", args=[campaign.pk + 1000])).status_code == 404


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
    assert '<a href="' + reverse("campaigns:rolls", args=[campaign.pk]) + '">The whole roll log</a>' in page


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


def test_the_dashboard_takes_six_queries_however_large(
    client, campaign, gm, player, other_player, django_assert_num_queries
) -> None:
    for i in range(6):
        make_character(campaign, player if i % 2 else other_player, f"Hero {i}")
    for i in range(30):
        free_roll(campaign, gm if i % 3 else player, secret=i % 3 == 1)
    client.force_login(gm)
    # The session, the user, the campaign, its members, the active characters with their owners,
    # the feed's rolls with who rolled, their character and any reveal.
    with django_assert_num_queries(6):
        response = client.get(dashboard_url(campaign))
    assert response.status_code == 200


def test_the_campaign_page_links_to_the_dashboard(client, campaign, player) -> None:
    client.force_login(player)
    page = html(client.get(reverse("campaigns:detail", args=[campaign.pk])))
    assert f'<a href="{dashboard_url(campaign)}">Live dashboard</a>' in page
