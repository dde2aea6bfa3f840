from django.urls import path

from games.d6 import luck_views, round_views

app_name = "d6"

urlpatterns = [
    path("characters/<int:pk>/luck/spend/", luck_views.spend, name="spend-luck"),
    path("characters/<int:pk>/luck/<int:spend_id>/extra/", luck_views.grant, name="grant-luck"),
    path("characters/<int:pk>/luck/<int:spend_id>/heroism/", luck_views.judge, name="judge-luck"),
    path("characters/<int:pk>/round/", round_views.plan_round, name="round"),
]
