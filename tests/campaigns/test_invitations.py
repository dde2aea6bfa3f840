"""Invitation links: the GM creates, lists and revokes them; a signed-in person who
opens one joins as a player, once per use the link allows."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.conf import settings
from django.urls import NoReverseMatch, reverse
from django.utils import timezone

from campaigns.models import Campaign, Invitation, Membership
from tests.campaigns.helpers import assert_login_redirect, html, login_url, text

pytestmark = pytest.mark.django_db


def invite(campaign: Campaign, gm, **fields) -> Invitation:
    fields.setdefault("expires_at", timezone.now() + timedelta(days=7))
    return Invitation.objects.create(campaign=campaign, created_by=gm, **fields)


def page_url(campaign: Campaign) -> str:
    return reverse("campaigns:invitations", args=[campaign.pk])


def create_url(campaign: Campaign) -> str:
    return reverse("campaigns:create-invitation", args=[campaign.pk])


def join_url(invitation: Invitation) -> str:
    return reverse("campaigns:join", args=[invitation.token])


def accept_url(invitation: Invitation) -> str:
    return reverse("campaigns:accept-invitation", args=[invitation.token])


# --- The GM's invitations page -------------------------------------------------------------------


def test_only_the_gm_manages_invitations(client, player, outsider, campaign) -> None:
    data = {"days": 7, "uses": "single"}
    assert_login_redirect(client.get(page_url(campaign)))
    assert_login_redirect(client.post(create_url(campaign), data))
    client.force_login(outsider)
    assert client.get(page_url(campaign)).status_code == 404
    assert client.post(create_url(campaign), data).status_code == 404
    client.force_login(player)
    assert client.get(page_url(campaign)).status_code == 403
    refused = client.post(create_url(campaign), data)
    assert refused.status_code == 403
    assert "Only the campaign&#x27;s GM can do that." in html(refused)
    assert not Invitation.objects.exists()


def test_the_gm_creates_a_single_use_link(client, gm, campaign) -> None:
    client.force_login(gm)
    before = campaign.last_activity_at

    response = client.post(create_url(campaign), {"days": 7, "uses": "single"}, follow=True)

    invitation = Invitation.objects.get()
    assert response.redirect_chain == [(page_url(campaign), 302)]
    assert (invitation.max_uses, invitation.uses, invitation.created_by) == (1, 0, gm)
    assert timedelta(days=7) - timedelta(minutes=1) < invitation.expires_at - timezone.now() <= timedelta(days=7)
    page = html(response)
    assert "A new invitation link is ready" in page
    assert f'readonly value="{settings.SITE_URL}/invite/{invitation.token}/"' in page
    campaign.refresh_from_db()
    assert campaign.last_activity_at > before


def test_a_multi_use_link_for_a_month(client, gm, campaign) -> None:
    client.force_login(gm)

    assert client.post(create_url(campaign), {"days": 30, "uses": "multi"}).status_code == 302

    invitation = Invitation.objects.get()
    assert invitation.max_uses is None
    assert invitation.expires_at - timezone.now() > timedelta(days=29)


def test_with_htmx_creating_a_link_swaps_the_invitations_region(client, gm, campaign) -> None:
    client.force_login(gm)

    response = client.post(create_url(campaign), {"days": 1, "uses": "single"}, headers={"HX-Request": "true"})

    page = html(response)
    assert response.status_code == 200
    assert page.lstrip().startswith('<div id="invitations"')
    assert "<html" not in page
    assert f"/invite/{Invitation.objects.get().token}/" in page


@pytest.mark.parametrize(
    "data", [{"days": 5, "uses": "single"}, {"days": 7, "uses": "twice"}, {}], ids=["days", "uses", "empty"]
)
def test_bad_input_creates_no_link(client, gm, campaign, data) -> None:
    client.force_login(gm)

    response = client.post(create_url(campaign), data)
    fragment = client.post(create_url(campaign), data, headers={"HX-Request": "true"})

    assert response.status_code == fragment.status_code == 400
    assert "Please check the invitation" in html(response)
    assert html(fragment).lstrip().startswith('<div id="invitations"')
    assert not Invitation.objects.exists()


def test_the_list_shows_each_links_state_and_only_active_links(client, gm, campaign) -> None:
    now = timezone.now()
    active = invite(campaign, gm, max_uses=None, uses=3)
    expired = invite(campaign, gm, expires_at=now - timedelta(minutes=1))
    used_up = invite(campaign, gm, max_uses=1, uses=1)
    revoked = invite(campaign, gm, revoked_at=now)
    client.force_login(gm)

    response = client.get(page_url(campaign))

    page = html(response)
    assert response.status_code == 200
    assert page.count('<li class="invitation state-active">') == 1
    assert page.count('<li class="invitation state-expired">') == 1
    assert page.count('<li class="invitation state-used-up">') == 1
    assert page.count('<li class="invitation state-revoked">') == 1
    assert active.token in page
    for hidden in (expired, used_up, revoked):
        assert hidden.token not in page
    assert "any number of uses, used 3 times" in text(response)


def test_another_campaigns_links_are_never_shown(client, gm, campaign, django_user_model) -> None:
    other_gm = django_user_model.objects.create(username="other_gm")
    other = Campaign.objects.create(name="Elsewhere")
    Membership.objects.create(campaign=other, user=other_gm, role="gm")
    theirs = invite(other, other_gm)
    client.force_login(gm)

    assert theirs.token not in html(client.get(page_url(campaign)))
    confirm = reverse("campaigns:confirm-revoke-invitation", args=[campaign.pk, theirs.pk])
    revoke = reverse("campaigns:revoke-invitation", args=[campaign.pk, theirs.pk])
    assert client.get(confirm).status_code == 404
    assert client.post(revoke).status_code == 404
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


def test_revoking_asks_first_then_the_link_stops_working(client, gm, outsider, campaign) -> None:
    invitation = invite(campaign, gm)
    confirm = reverse("campaigns:confirm-revoke-invitation", args=[campaign.pk, invitation.pk])
    revoke = reverse("campaigns:revoke-invitation", args=[campaign.pk, invitation.pk])
    client.force_login(gm)

    page = client.get(confirm)
    assert page.status_code == 200
    assert f'<form method="post" action="{revoke}"' in html(page)
    assert client.get(revoke).status_code == 405  # only a POST revokes
    response = client.post(revoke, follow=True)

    invitation.refresh_from_db()
    assert invitation.revoked_at is not None
    assert "The invitation is revoked" in html(response)
    again = client.post(revoke)
    assert again.status_code == 409
    assert "This invitation was revoked already." in html(again)
    client.force_login(outsider)
    gone = client.get(join_url(invitation))
    assert gone.status_code == 410
    assert "This invitation was revoked by the GM." in html(gone)


def test_only_the_gm_may_revoke(client, gm, player, outsider, campaign) -> None:
    invitation = invite(campaign, gm)
    confirm = reverse("campaigns:confirm-revoke-invitation", args=[campaign.pk, invitation.pk])
    revoke = reverse("campaigns:revoke-invitation", args=[campaign.pk, invitation.pk])

    assert_login_redirect(client.get(confirm))
    assert_login_redirect(client.post(revoke))
    client.force_login(outsider)
    assert client.get(confirm).status_code == 404
    assert client.post(revoke).status_code == 404
    client.force_login(player)
    assert client.get(confirm).status_code == 403
    assert client.post(revoke).status_code == 403
    invitation.refresh_from_db()
    assert invitation.revoked_at is None


@pytest.mark.parametrize("party_size", [1, 5])
def test_the_invitations_page_takes_the_same_queries_however_many_links(
    client, django_assert_num_queries, gm, campaign, party_size
) -> None:
    for _ in range(party_size):
        invite(campaign, gm)
    client.force_login(gm)

    # 1 the session, 2 the user, 3 the campaign, 4 its members with their users, 5 the invitations.
    with django_assert_num_queries(4):
        assert client.get(page_url(campaign)).status_code == 200


# --- Joining -------------------------------------------------------------------------------------


def test_a_visitor_is_asked_to_log_in_or_sign_up_and_come_back(client, gm, campaign) -> None:
    invitation = invite(campaign, gm)

    response = client.get(join_url(invitation))

    page = html(response)
    assert response.status_code == 200
    assert "<h1>Join The Sunken Crown</h1>" in page
    back = f"?next=%2Finvite%2F{invitation.token}%2F"
    assert f'<a class="button" href="{login_url()}{back}">Log in</a>' in page
    try:
        signup = reverse("signup")
    except NoReverseMatch:  # sign-up not built yet: the page offers only the log-in
        assert "Sign up</a>" not in page.split('<main id="main"')[1]
    else:
        assert f'<a class="button secondary" href="{signup}{back}">Sign up</a>' in page
    assert 'name="csrfmiddlewaretoken"' not in page.split('<main id="main"')[1]  # no Join button yet
    assert_login_redirect(client.post(accept_url(invitation)))
    assert not Membership.objects.filter(role="player", user__username="").exists()
    invitation.refresh_from_db()
    assert invitation.uses == 0


def test_a_signed_in_person_sees_the_campaign_and_a_join_button(client, gm, outsider, campaign) -> None:
    invitation = invite(campaign, gm)
    client.force_login(outsider)

    response = client.get(join_url(invitation))

    page = html(response)
    assert response.status_code == 200
    assert "gm invites you to play in The Sunken Crown" in text(response)
    assert f'<form method="post" action="{accept_url(invitation)}"' in page
    assert "Join as outsider" in page
    assert not Membership.objects.filter(user=outsider).exists()  # opening the link joins nobody


def test_joining_makes_a_player_and_counts_a_use(client, gm, outsider, campaign) -> None:
    invitation = invite(campaign, gm, max_uses=3)
    before = campaign.last_activity_at
    client.force_login(outsider)

    response = client.post(accept_url(invitation), follow=True)

    assert response.redirect_chain == [(reverse("campaigns:detail", args=[campaign.pk]), 302)]
    assert "Welcome to The Sunken Crown! You joined as a player." in html(response)
    assert Membership.objects.get(campaign=campaign, user=outsider).role == Membership.Role.PLAYER
    invitation.refresh_from_db()
    assert invitation.uses == 1
    campaign.refresh_from_db()
    assert campaign.last_activity_at > before


def test_a_member_opening_a_link_is_sent_to_the_campaign_without_using_it(client, gm, player, campaign) -> None:
    invitation = invite(campaign, gm, max_uses=1)
    client.force_login(player)

    opened = client.get(join_url(invitation), follow=True)
    accepted = client.post(accept_url(invitation), follow=True)

    for response in (opened, accepted):
        assert response.redirect_chain == [(reverse("campaigns:detail", args=[campaign.pk]), 302)]
        assert "You&#x27;re already a member of The Sunken Crown." in html(response)
    invitation.refresh_from_db()
    assert invitation.uses == 0
    assert Membership.objects.get(campaign=campaign, user=player).role == Membership.Role.PLAYER


def test_a_single_use_link_lets_one_person_in(client, gm, outsider, django_user_model, campaign) -> None:
    invitation = invite(campaign, gm, max_uses=1)
    latecomer = django_user_model.objects.create(username="latecomer")
    client.force_login(outsider)
    assert client.post(accept_url(invitation)).status_code == 302
    client.force_login(latecomer)

    page = client.get(join_url(invitation))
    response = client.post(accept_url(invitation))

    for refused in (page, response):
        assert refused.status_code == 410
        assert "This invitation has been used as many times as it allows." in html(refused)
    assert not Membership.objects.filter(user=latecomer).exists()
    invitation.refresh_from_db()
    assert invitation.uses == 1


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"expires_at": timezone.now() - timedelta(seconds=1)}, "This invitation has expired."),
        ({"revoked_at": timezone.now()}, "This invitation was revoked by the GM."),
        ({"max_uses": 2, "uses": 2}, "This invitation has been used as many times as it allows."),
    ],
    ids=["expired", "revoked", "used-up"],
)
def test_an_unusable_link_is_410_gone_and_says_why(client, gm, outsider, campaign, fields, message) -> None:
    invitation = invite(campaign, gm, **fields)
    client.force_login(outsider)

    for response in (client.get(join_url(invitation)), client.post(accept_url(invitation))):
        assert response.status_code == 410
        assert message in html(response)
        assert "The Sunken Crown" not in html(response)
    assert not Membership.objects.filter(user=outsider).exists()


def test_an_unknown_token_is_a_404_that_says_so(client, outsider) -> None:
    for response in (client.get("/invite/not-a-real-token/"), client.post("/invite/not-a-real-token/accept/")):
        assert response.status_code in (404, 302)
    client.force_login(outsider)
    for response in (client.get("/invite/not-a-real-token/"), client.post("/invite/not-a-real-token/accept/")):
        assert response.status_code == 404
        assert "This invitation link is not valid." in html(response)


def test_an_archived_campaign_takes_no_new_players(client, gm, outsider, campaign) -> None:
    invitation = invite(campaign, gm)
    campaign.archived_at = timezone.now()
    campaign.save()
    client.force_login(outsider)

    for response in (client.get(join_url(invitation)), client.post(accept_url(invitation))):
        assert response.status_code == 410
        assert "This campaign is archived and isn&#x27;t taking new players." in html(response)
    assert not Membership.objects.filter(user=outsider).exists()
