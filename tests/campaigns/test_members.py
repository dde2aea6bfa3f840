"""The GM's membership tools: remove a player, hand over the GM role, archive and
unarchive; and a player leaving. Characters are archived, never deleted."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.urls import reverse
from django.utils import timezone

from campaigns.models import Campaign, Invitation, Membership
from characters.models import Character
from tests.campaigns.helpers import assert_login_redirect, html, make_character, options_post

pytestmark = pytest.mark.django_db


def member(campaign: Campaign, user) -> Membership:
    return Membership.objects.get(campaign=campaign, user=user)


def action_urls(campaign: Campaign, target: Membership) -> dict[str, tuple[str, str]]:
    """Each GM action: (its confirmation page, the POST that does it)."""
    args, member_args = [campaign.pk], [campaign.pk, target.pk]
    return {
        "remove": (reverse("campaigns:confirm-remove-member", args=member_args),
                   reverse("campaigns:remove-member", args=member_args)),
        "make-gm": (reverse("campaigns:confirm-make-gm", args=member_args),
                    reverse("campaigns:make-gm", args=member_args)),
        "archive": (reverse("campaigns:confirm-archive", args=args), reverse("campaigns:archive", args=args)),
        "unarchive": (reverse("campaigns:confirm-unarchive", args=args), reverse("campaigns:unarchive", args=args)),
    }  # fmt: skip


def snapshot(campaign: Campaign) -> tuple:
    campaign.refresh_from_db()
    return (
        campaign.archived_at,
        sorted(campaign.memberships.values_list("user__username", "role")),
        sorted(Character.objects.filter(campaign=campaign).values_list("name", "status")),
    )


@pytest.mark.parametrize("action", ["remove", "make-gm", "archive", "unarchive"])
def test_only_the_gm_may_act(client, player, other_player, outsider, campaign, action) -> None:
    make_character(campaign, other_player, "Casimir")
    confirm, act = action_urls(campaign, member(campaign, other_player))[action]
    before = snapshot(campaign)

    assert_login_redirect(client.get(confirm))
    assert_login_redirect(client.post(act))
    client.force_login(outsider)
    assert client.get(confirm).status_code == 404
    assert client.post(act).status_code == 404
    client.force_login(player)
    assert client.get(confirm).status_code == 403
    refused = client.post(act)
    assert refused.status_code == 403
    assert "Only the campaign&#x27;s GM can do that." in html(refused)
    assert client.get(act).status_code == 405  # only a POST acts

    assert snapshot(campaign) == before


@pytest.mark.parametrize("action", ["remove", "make-gm", "archive"])
def test_each_action_asks_first_in_a_plain_form(client, gm, player, campaign, action) -> None:
    confirm, act = action_urls(campaign, member(campaign, player))[action]
    client.force_login(gm)

    response = client.get(confirm)

    page = html(response)
    assert response.status_code == 200
    assert f'<form method="post" action="{act}" class="form-actions">' in page
    assert f'<a href="{reverse("campaigns:detail", args=[campaign.pk])}">Cancel</a>' in page


def test_removing_a_player_archives_their_characters(client, gm, player, other_player, campaign) -> None:
    brunella = make_character(campaign, player, "Brunella")
    draft = make_character(campaign, player, "Hilde", status="draft")
    casimir = make_character(campaign, other_player, "Casimir")
    before = campaign.last_activity_at
    client.force_login(gm)

    response = client.post(action_urls(campaign, member(campaign, player))["remove"][1], follow=True)

    assert response.redirect_chain == [(reverse("campaigns:detail", args=[campaign.pk]), 302)]
    assert "player has left The Sunken Crown; 2 characters archived." in html(response)
    assert not Membership.objects.filter(campaign=campaign, user=player).exists()
    for character in (brunella, draft):
        version = character.version
        character.refresh_from_db()
        assert character.status == Character.Status.ARCHIVED
        assert character.version == version + 1
    casimir.refresh_from_db()
    assert casimir.status == Character.Status.ACTIVE
    assert "Brunella" in html(response)  # the GM still finds them, archived
    campaign.refresh_from_db()
    assert campaign.last_activity_at > before
    client.force_login(player)
    assert client.get(reverse("campaigns:detail", args=[campaign.pk])).status_code == 404


def test_the_gm_cannot_be_removed(client, gm, campaign) -> None:
    confirm, act = action_urls(campaign, member(campaign, gm))["remove"]
    before = snapshot(campaign)
    client.force_login(gm)

    for response in (client.get(confirm), client.post(act)):
        assert response.status_code == 400
        assert "The GM can&#x27;t be removed. Hand the GM role to another member first." in html(response)
    assert snapshot(campaign) == before


def test_a_member_of_another_campaign_is_not_found(client, gm, campaign, django_user_model) -> None:
    stranger = django_user_model.objects.create(username="stranger")
    elsewhere = Campaign.objects.create(name="Elsewhere")
    theirs = Membership.objects.create(campaign=elsewhere, user=stranger, role="gm")
    client.force_login(gm)

    for confirm, act in [action_urls(campaign, theirs)["remove"], action_urls(campaign, theirs)["make-gm"]]:
        assert client.get(confirm).status_code == 404
        assert client.post(act).status_code == 404
    assert Membership.objects.filter(pk=theirs.pk, role="gm").exists()


def test_handing_over_keeps_exactly_one_gm(client, gm, player, campaign) -> None:
    client.force_login(gm)

    response = client.post(action_urls(campaign, member(campaign, player))["make-gm"][1], follow=True)

    assert "player is now the GM; you are a player." in html(response)
    assert member(campaign, player).role == Membership.Role.GM
    assert member(campaign, gm).role == Membership.Role.PLAYER
    assert campaign.memberships.filter(role=Membership.Role.GM).count() == 1
    # The old GM is a player now: the GM tools are closed to them.
    assert client.post(action_urls(campaign, member(campaign, gm))["make-gm"][1]).status_code == 403
    assert member(campaign, player).role == Membership.Role.GM


def test_the_gm_role_cannot_go_to_the_gm(client, gm, campaign) -> None:
    client.force_login(gm)

    response = client.post(action_urls(campaign, member(campaign, gm))["make-gm"][1])

    assert response.status_code == 400
    assert "You are the GM already." in html(response)
    assert member(campaign, gm).role == Membership.Role.GM


def test_an_archived_campaign_is_read_only(client, gm, player, other_player, campaign) -> None:
    invitation = Invitation.objects.create(
        campaign=campaign, created_by=gm, expires_at=timezone.now() + timedelta(days=1)
    )
    client.force_login(gm)
    urls = action_urls(campaign, member(campaign, player))

    archived = client.post(urls["archive"][1], follow=True)

    assert "The Sunken Crown is archived." in html(archived)
    assert "this campaign is read-only" in html(archived)
    before = snapshot(campaign)
    assert before[0] is not None
    refusals = [
        client.post(urls["remove"][1]),
        client.post(urls["make-gm"][1]),
        client.post(reverse("campaigns:create-invitation", args=[campaign.pk]), {"days": 7, "uses": "single"}),
        client.post(reverse("campaigns:settings", args=[campaign.pk]), options_post(system=None)),
        client.post(urls["archive"][1]),
    ]
    for response in refusals:
        assert response.status_code == 409
    assert "This campaign is archived, so nothing in it can change" in html(refusals[0])
    assert "This campaign is already archived." in html(refusals[-1])
    client.force_login(player)
    leaving = client.post(reverse("campaigns:leave", args=[campaign.pk]))
    assert leaving.status_code == 409
    assert snapshot(campaign) == before
    assert Invitation.objects.count() == 1
    invitation.refresh_from_db()
    assert invitation.uses == 0


def test_unarchiving_opens_the_campaign_again(client, gm, campaign) -> None:
    campaign.archived_at = timezone.now()
    campaign.save()
    client.force_login(gm)
    urls = action_urls(campaign, member(campaign, gm))

    response = client.post(urls["unarchive"][1], follow=True)

    assert "The Sunken Crown is open again." in html(response)
    campaign.refresh_from_db()
    assert campaign.archived_at is None
    assert client.post(urls["unarchive"][1]).status_code == 409


def test_my_campaigns_lists_an_archived_campaign_apart(client, gm, campaign) -> None:
    client.force_login(gm)
    client.post(action_urls(campaign, member(campaign, gm))["archive"][1])

    page = html(client.get(reverse("campaigns:list")))

    assert page.index('<h2 id="archived-heading">Archived</h2>') < page.index(">The Sunken Crown</a>")


def test_a_player_leaves_and_their_characters_are_archived(client, player, campaign) -> None:
    brunella = make_character(campaign, player, "Brunella")
    client.force_login(player)
    confirm = client.get(reverse("campaigns:confirm-leave", args=[campaign.pk]))
    assert confirm.status_code == 200
    assert f'action="{reverse("campaigns:leave", args=[campaign.pk])}"' in html(confirm)

    response = client.post(reverse("campaigns:leave", args=[campaign.pk]), follow=True)

    assert response.redirect_chain == [(reverse("campaigns:list"), 302)]
    assert "You left The Sunken Crown; 1 character of yours archived." in html(response)
    assert not Membership.objects.filter(campaign=campaign, user=player).exists()
    brunella.refresh_from_db()
    assert brunella.status == Character.Status.ARCHIVED


def test_the_gm_cannot_leave_and_outsiders_have_nothing_to_leave(client, gm, outsider, campaign) -> None:
    url = reverse("campaigns:leave", args=[campaign.pk])
    assert_login_redirect(client.post(url))
    client.force_login(gm)
    for response in (client.get(reverse("campaigns:confirm-leave", args=[campaign.pk])), client.post(url)):
        assert response.status_code == 400
        assert "Hand the GM role to another member first." in html(response)
    client.force_login(outsider)
    assert client.post(url).status_code == 404
    assert member(campaign, gm).role == Membership.Role.GM
