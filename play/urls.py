"""The table's pages, under the campaign's URLs: the roll log and the dice box, the live dashboard,
and encounters. The dashboard's WebSocket route is in :mod:`play.routing`."""

from django.urls import path

from play import (
    dashboard_views,
    encounter_views,
    move_views,
    proposal_views,
    request_views,
    roll_views,
    sheet_roll_views,
    table_views,
)

app_name = "play"

urlpatterns = [
    path("characters/<int:pk>/roll/", sheet_roll_views.roll, name="sheet-roll"),
    path("characters/<int:pk>/moves/<slug:key>/", move_views.move, name="move"),
    path("campaigns/<int:pk>/dashboard/", dashboard_views.dashboard, name="dashboard"),
    path("campaigns/<int:pk>/table/", table_views.table_page, name="table"),
    path("campaigns/<int:pk>/table/history/", table_views.table_history, name="table-history"),
    path("campaigns/<int:pk>/moves/<slug:key>/", table_views.table_move, name="table-move"),
    path("campaigns/<int:pk>/requests/", request_views.call, name="request-call"),
    path("campaigns/<int:pk>/requests/<int:request_pk>/close/", request_views.cancel, name="request-cancel"),
    path("characters/<int:pk>/requests/<int:asked_pk>/roll/", request_views.answer, name="request-answer"),
    path("campaigns/<int:pk>/proposals/<int:proposal_pk>/call/", proposal_views.call, name="proposal-call"),
    path("campaigns/<int:pk>/proposals/<int:proposal_pk>/decline/", proposal_views.decline, name="proposal-decline"),
    path("campaigns/<int:pk>/proposals/<int:proposal_pk>/withdraw/", proposal_views.withdraw, name="proposal-withdraw"),
    path("campaigns/<int:pk>/rolls/", roll_views.roll_log, name="rolls"),
    path("campaigns/<int:pk>/rolls/verify/", roll_views.verify_log, name="verify-rolls"),
    path("campaigns/<int:pk>/rolls/free/", roll_views.free_roll, name="free-roll"),
    path("campaigns/<int:pk>/rolls/<int:seq>/reveal/", roll_views.reveal_roll, name="reveal-roll"),
    path("campaigns/<int:pk>/encounter/", encounter_views.encounter, name="encounter"),
    path("campaigns/<int:pk>/encounter/start/", encounter_views.start_encounter, name="encounter-start"),
    path("campaigns/<int:pk>/encounter/characters/", encounter_views.add_characters, name="encounter-add-characters"),
    path("campaigns/<int:pk>/encounter/npcs/", encounter_views.add_npcs, name="encounter-add-npcs"),
    path("campaigns/<int:pk>/encounter/join/", encounter_views.join_encounter, name="encounter-join"),
    path("campaigns/<int:pk>/encounter/initiative/", encounter_views.roll_initiative, name="encounter-initiative"),
    path("campaigns/<int:pk>/encounter/next-turn/", encounter_views.next_turn, name="encounter-next-turn"),
    path("campaigns/<int:pk>/encounter/attack/", encounter_views.attack, name="encounter-attack"),
    path("campaigns/<int:pk>/encounter/defend/", encounter_views.defend, name="encounter-defend"),
    path("campaigns/<int:pk>/encounter/withdraw/", encounter_views.withdraw, name="encounter-withdraw"),
    path("campaigns/<int:pk>/encounter/adjust/", encounter_views.adjust, name="encounter-adjust"),
    path("campaigns/<int:pk>/encounter/act/", encounter_views.act, name="encounter-act"),
    path("campaigns/<int:pk>/encounter/move/", encounter_views.move_in_order, name="encounter-move"),
    path("campaigns/<int:pk>/encounter/remove/", encounter_views.remove_combatant, name="encounter-remove"),
    path(
        "campaigns/<int:pk>/encounter/remove/confirm/",
        encounter_views.confirm_remove_combatant,
        name="encounter-confirm-remove",
    ),
    path("campaigns/<int:pk>/encounter/end/", encounter_views.end_encounter, name="encounter-end"),
    path(
        "campaigns/<int:pk>/encounter/end/confirm/", encounter_views.confirm_end_encounter, name="encounter-confirm-end"
    ),
    path("campaigns/<int:pk>/encounters/", encounter_views.encounter_list, name="encounters"),
    path(
        "campaigns/<int:pk>/encounters/<int:encounter_pk>/",
        encounter_views.encounter_history,
        name="encounter-history",
    ),
]
