"""My campaigns: each campaign I belong to, my role, its system, party size and last activity."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign, Membership
from tests.campaigns.helpers import assert_login_redirect, html, make_character, text

pytestmark = pytest.mark.django_db

URL = reverse("campaigns:list")


def test_visitors_are_sent_to_log_in(client) -> None:
    assert_login_redirect(client.get(URL))


def test_someone_with_no_campaign_is_invited_to_create_one(client, outsider, campaign) -> None:
    client.force_login(outsider)

    response = client.get(URL)

    page = html(response)
    assert response.status_code == 200
    assert "You are not in any campaign yet." in page
    assert f'<a class="button" href="{reverse("campaigns:create")}">Create a campaign</a>' in page
    assert "The Sunken Crown" not in page


def test_each_campaign_with_my_role_system_party_and_last_activity(client, gm, player, other_player, campaign) -> None:
    make_character(campaign, player, "Brunella")
    make_character(campaign, other_player, "Casimir")
    make_character(campaign, other_player, "Draft Dora", status="draft")
    make_character(campaign, other_player, "Old Olaf", status="archived")
    Campaign.objects.filter(pk=campaign.pk).update(last_activity_at=timezone.now() - timedelta(hours=3))
    mine = Campaign.objects.create(name="Player's Own")
    Membership.objects.create(campaign=mine, user=player, role="gm")
    client.force_login(player)

    response = client.get(URL)

    words = text(response)
    assert response.status_code == 200
    assert "The Sunken Crown Your role Player System Lucky 13 Party 2 characters Last activity 3 hours ago" in words
    assert "Player&#x27;s Own Your role Game master System Lucky 13 Party 0 characters Last activity just now" in words
    # The most recently active campaign comes first.
    assert words.index("Player&#x27;s Own") < words.index("The Sunken Crown Your role")


def test_archived_campaigns_have_their_own_section(client, gm, campaign) -> None:
    live = Campaign.objects.create(name="Still Running")
    Membership.objects.create(campaign=live, user=gm, role="gm")
    campaign.archived_at = timezone.now()
    campaign.save()
    client.force_login(gm)

    page = html(client.get(URL))

    archived_at = page.index('<h2 id="archived-heading">Archived</h2>')
    assert page.index(">Still Running</a>") < archived_at < page.index(">The Sunken Crown</a>")


@pytest.mark.parametrize("count", [1, 5])
def test_one_query_for_the_list_however_many_campaigns(client, django_assert_num_queries, gm, player, count) -> None:
    for i in range(count):
        campaign = Campaign.objects.create(name=f"Campaign {i}", archived_at=timezone.now() if i % 2 else None)
        Membership.objects.create(campaign=campaign, user=gm, role="gm")
        Membership.objects.create(campaign=campaign, user=player, role="player")
        make_character(campaign, player, f"Hero {i}")
    client.force_login(gm)

    # 1 the session, 2 the user, 3 the campaigns with my role and party size (subqueries).
    with django_assert_num_queries(2):
        response = client.get(URL)

    assert html(response).count('<li class="campaign-item">') == count
