from django.urls import path

from campaigns import dashboard_views, encounter_views, roll_views, views

app_name = "campaigns"

urlpatterns = [
    path("campaigns/", views.campaign_list, name="list"),
    path("campaigns/new/", views.create_campaign, name="create"),
    path("campaigns/<int:pk>/", views.campaign_detail, name="detail"),
    path("campaigns/<int:pk>/settings/", views.campaign_settings, name="settings"),
    path("campaigns/<int:pk>/archive/", views.archive, name="archive"),
    path("campaigns/<int:pk>/archive/confirm/", views.confirm_archive, name="confirm-archive"),
    path("campaigns/<int:pk>/unarchive/", views.unarchive, name="unarchive"),
    path("campaigns/<int:pk>/unarchive/confirm/", views.confirm_unarchive, name="confirm-unarchive"),
    path("campaigns/<int:pk>/leave/", views.leave, name="leave"),
    path("campaigns/<int:pk>/leave/confirm/", views.confirm_leave, name="confirm-leave"),
    path("campaigns/<int:pk>/members/<int:member_pk>/remove/", views.remove_member, name="remove-member"),
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
    path("campaigns/<int:pk>/dashboard/", dashboard_views.dashboard, name="dashboard"),
    path("campaigns/<int:pk>/rolls/", roll_views.roll_log, name="rolls"),
    path("campaigns/<int:pk>/rolls/verify/", roll_views.verify_log, name="verify-rolls"),
    path("campaigns/<int:pk>/rolls/free/", roll_views.free_roll, name="free-roll"),
    path("campaigns/<int:pk>/rolls/<int:seq>/reveal/", roll_views.reveal_roll, name="reveal-roll"),
    path("campaigns/<int:pk>/encounter/", encounter_views.encounter, name="encounter"),
    path("campaigns/<int:pk>/encounter/start/", encounter_views.start_encounter, name="encounter-start"),
    path("campaigns/<int:pk>/encounter/characters/", encounter_views.add_characters, name="encounter-add-characters"),
    path("campaigns/<int:pk>/encounter/npcs/", encounter_views.add_npcs, name="encounter-add-npcs"),
    path("campaigns/<int:pk>/encounter/initiative/", encounter_views.roll_initiative, name="encounter-initiative"),
    path("campaigns/<int:pk>/encounter/next-turn/", encounter_views.next_turn, name="encounter-next-turn"),
    path("campaigns/<int:pk>/encounter/attack/", encounter_views.attack, name="encounter-attack"),
    path("campaigns/<int:pk>/encounter/adjust/", encounter_views.adjust_hit_points, name="encounter-adjust"),
    path("campaigns/<int:pk>/encounter/minute/", encounter_views.minute_passes, name="encounter-minute"),
    path("campaigns/<int:pk>/encounter/stabilize/", encounter_views.stabilize, name="encounter-stabilize"),
    path("campaigns/<int:pk>/encounter/move/", encounter_views.move_in_order, name="encounter-move"),
    path("campaigns/<int:pk>/encounter/remove/", encounter_views.remove_combatant, name="encounter-remove"),
    path(
        "campaigns/<int:pk>/encounter/remove/confirm/",
        encounter_views.confirm_remove_combatant,
        name="encounter-confirm-remove",
    ),
    path("campaigns/<int:pk>/encounter/end/", encounter_views.end_encounter, name="encounter-end"),
    path("campaigns/<int:pk>/encounters/", encounter_views.encounter_list, name="encounters"),
    path(
        "campaigns/<int:pk>/encounters/<int:encounter_pk>/",
        encounter_views.encounter_history,
        name="encounter-history",
    ),
    path("invite/<slug:token>/", views.join, name="join"),
    path("invite/<slug:token>/accept/", views.accept_invitation, name="accept-invitation"),
]
