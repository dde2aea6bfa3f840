from django.urls import path

from games.lucky13 import calculator, contest_views

app_name = "lucky13"

urlpatterns = [
    path("calculator/", calculator.calculator, name="calculator"),
    path("calculator/roll/", calculator.roll_check, name="roll-check"),
    path("calculator/npc-roll/", calculator.roll_for_npc, name="npc-roll"),
    path("calculator/opposed/", calculator.opposed, name="opposed"),
    path("calculator/opposed/roll/", calculator.roll_opposed, name="roll-opposed"),
    path("characters/<int:pk>/contest/", contest_views.contest, name="contest"),
]
