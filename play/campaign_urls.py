"""Every campaign page's URL, in the ``campaigns`` namespace: those of :mod:`campaigns.views` and, for
the pages that show or change the campaign's characters too, of :mod:`play.campaign_views` (here,
above both apps)."""

from django.urls import path

from campaigns import views
from play import campaign_views

app_name = "campaigns"

urlpatterns = [
    path("campaigns/", views.campaign_list, name="list"),
    path("campaigns/new/", views.create_campaign, name="create"),
    path("campaigns/<int:pk>/", campaign_views.campaign_detail, name="detail"),
    path("campaigns/<int:pk>/settings/", campaign_views.campaign_settings, name="settings"),
    path("campaigns/<int:pk>/archive/", views.archive, name="archive"),
    path("campaigns/<int:pk>/archive/confirm/", views.confirm_archive, name="confirm-archive"),
    path("campaigns/<int:pk>/unarchive/", views.unarchive, name="unarchive"),
    path("campaigns/<int:pk>/unarchive/confirm/", views.confirm_unarchive, name="confirm-unarchive"),
    path("campaigns/<int:pk>/leave/", campaign_views.leave, name="leave"),
    path("campaigns/<int:pk>/leave/confirm/", views.confirm_leave, name="confirm-leave"),
    path("campaigns/<int:pk>/members/<int:member_pk>/remove/", campaign_views.remove_member, name="remove-member"),
    path(
        "campaigns/<int:pk>/members/<int:member_pk>/remove/confirm/",
        views.confirm_remove_member,
        name="confirm-remove-member",
    ),
    path("campaigns/<int:pk>/members/<int:member_pk>/make-gm/", views.make_gm, name="make-gm"),
    path("campaigns/<int:pk>/members/<int:member_pk>/make-gm/confirm/", views.confirm_make_gm, name="confirm-make-gm"),
    path("campaigns/<int:pk>/invitations/", views.invitations, name="invitations"),
    path("campaigns/<int:pk>/invitations/new/", views.create_invitation, name="create-invitation"),
    path(
        "campaigns/<int:pk>/invitations/<int:invitation_pk>/revoke/",
        views.revoke_invitation,
        name="revoke-invitation",
    ),
    path(
        "campaigns/<int:pk>/invitations/<int:invitation_pk>/revoke/confirm/",
        views.confirm_revoke_invitation,
        name="confirm-revoke-invitation",
    ),
    path("invite/<slug:token>/", views.join, name="join"),
    path("invite/<slug:token>/accept/", views.accept_invitation, name="accept-invitation"),
]
