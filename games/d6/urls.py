from django.urls import path

from games.d6 import round_views

app_name = "d6"

urlpatterns = [
    path("characters/<int:pk>/round/", round_views.plan_round, name="round"),
]
