"""The campaign page: every member sees the campaign and the party at a glance."""

from __future__ import annotations

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign
from rules.systems import lucky13
from tests.campaigns.helpers import assert_login_redirect, html, make_character, text

pytestmark = pytest.mark.django_db


def url(campaign: Campaign) -> str:
    return reverse("campaigns:detail", args=[campaign.pk])


def test_outsiders_get_a_404_and_visitors_a_login(client, outsider, campaign) -> None:
    assert_login_redirect(client.get(url(campaign)))
    client.force_login(outsider)
    assert client.get(url(campaign)).status_code == 404
    assert client.get(reverse("campaigns:detail", args=[campaign.pk + 100])).status_code == 404


@pytest.mark.parametrize("who", ["gm", "player", "other_player"])
def test_every_member_sees_the_campaign_the_members_and_the_options(client, request, campaign, who) -> None:
    campaign.description = "A drowned city.\n\nA lost crown."
    campaign.options = lucky13.validate_options({"explosion": "gritty", "skill_preset": "sci_fi"})
    campaign.save()
    client.force_login(request.getfixturevalue(who))

    response = client.get(url(campaign))

    page, words = html(response), text(response)
    assert response.status_code == 200
    assert "<h1>The Sunken Crown</h1>" in page
    assert "<p>A drowned city.</p>" in page
    assert "Lucky 13 · you are the GM" in words if who == "gm" else "Lucky 13 · you play here" in words
    you = {who: " (you)"}
    for member, role in (("gm", "Game master"), ("other_player", "Player"), ("player", "Player")):
        assert f"{member}{you.get(member, '')} {role}" in words
    assert "Play style Gritty: only Ability dice explode, once" in words
    assert "Skills Sci-fi Technology (Intellect) Astrogation (Intellect) Mysticism (Will)" in words
    assert "Hit points per Pulse step 10" in words


def test_the_party_at_a_glance(client, player, other_player, campaign) -> None:
    campaign.options = lucky13.validate_options({"hit_points_per_step": 5})
    campaign.save()
    # d8 Pulse at 5 a step: 15 hit points at most; 7 left is the d6 row; death at -8. A d4 Pulse dies at -4.
    brunella = make_character(campaign, player, "Brunella", pulse=3, hit_points=7, ap_balance=4, reputation=2)
    make_character(campaign, other_player, "Casimir", pulse=3, hit_points=-3, reputation=-1)
    make_character(campaign, other_player, "Dagny", pulse=1, hit_points=-4)
    client.force_login(player)

    response = client.get(url(campaign))

    page, words = html(response), text(response)
    assert f'<a href="{reverse("characters:sheet", args=[brunella.pk])}">Brunella</a>' in page
    assert "Brunella played by player Pulse now d6 Hit points 7 of 15 Adventure Points 4 Reputation +2" in words
    assert "Casimir played by other_player Pulse now no die Hit points -3 of 15 Dying" in words
    assert "Reputation -1" in words
    assert "Dagny played by other_player Pulse now no die Hit points -4 of 5 Dead" in words


def test_drafts_show_to_their_owner_and_the_gm_and_archived_characters_only_to_the_gm(
    client, gm, player, other_player, campaign
) -> None:
    rolled = {"step": "skills", "ability_method": "random", "ability_rolls": [12, 55, 78, 3, 99]}
    draft = make_character(campaign, player, "Half-made Hilde", status="draft", creation=rolled)
    make_character(campaign, other_player, "Retired Rolf", status="archived")

    client.force_login(player)
    mine = html(client.get(url(campaign)))
    client.force_login(other_player)
    theirs = html(client.get(url(campaign)))
    client.force_login(gm)
    gms = html(client.get(url(campaign)))

    finish = reverse("characters:create-step", args=[draft.pk, "skills"])
    assert f'<a href="{finish}">Finish creating<span class="visually-hidden"> Half-made Hilde</span></a>' in mine
    assert "Half-made Hilde" not in theirs
    # The GM sees every draft, so that abandoned drafts and their rolls are in view.
    assert "Players&#x27; drafts" in gms or "Players' drafts" in gms
    assert "Half-made Hilde" in gms
    # From the draft's document: the step it was left at, and the server's rolls.
    assert f'<a href="{finish}">Half-made Hilde</a>' in gms
    assert "by player; server rolls 12, 55, 78, 3, 99" in gms
    assert "Retired Rolf" in gms
    assert "Retired Rolf" not in mine
    assert "Retired Rolf" not in theirs
    assert "No characters in play yet." in mine


def test_members_may_create_a_character_unless_the_campaign_is_archived(client, player, campaign) -> None:
    client.force_login(player)
    create = f'<a class="button" href="{reverse("characters:create", args=[campaign.pk])}">Create a character</a>'

    assert create in html(client.get(url(campaign)))
    campaign.archived_at = timezone.now()
    campaign.save()
    page = html(client.get(url(campaign)))
    assert create not in page
    assert "this campaign is read-only" in page


def test_only_the_gm_sees_the_gm_tools(client, gm, player, campaign) -> None:
    client.force_login(gm)
    gms = html(client.get(url(campaign)))
    client.force_login(player)
    players = html(client.get(url(campaign)))

    for name in ("settings", "invitations", "confirm-archive"):
        link = reverse(f"campaigns:{name}", args=[campaign.pk])
        assert f'href="{link}"' in gms
        assert f'href="{link}"' not in players
    assert "Make GM" in gms
    assert "Remove<span" in gms
    assert "Make GM" not in players
    assert "Remove<span" not in players
    assert f'href="{reverse("campaigns:confirm-leave", args=[campaign.pk])}"' in players


@pytest.mark.parametrize("party_size", [1, 5])
def test_the_page_takes_the_same_queries_however_large_the_party(
    client, django_assert_num_queries, django_user_model, gm, campaign, party_size
) -> None:
    for i in range(party_size):
        owner = django_user_model.objects.create(username=f"p{i}")
        campaign.memberships.create(user=owner, role="player")
        make_character(campaign, owner, f"Hero {i}", hit_points=20 - i)
        make_character(campaign, owner, f"Old hero {i}", status="archived")
    make_character(campaign, gm, "The GM's draft", status="draft")
    client.force_login(gm)

    # 1 the session, 2 the user, 3 the campaign, 4 its members with their users, each list a page
    # of it with the players: 5 the party's first characters, 6 the GM's drafts, 7 the players'
    # drafts, 8 the archived characters (a large party: tests/play/test_party_pages.py), 9 the characters
    # with something waiting for the GM's approval.
    with django_assert_num_queries(8):
        response = client.get(url(campaign))

    assert response.status_code == 200
    assert html(response).count('<li class="party-member">') == party_size
