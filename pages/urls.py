from django.urls import path

from pages import views

app_name = "pages"

urlpatterns = [
    path("", views.home, name="home"),
    path("about/", views.about, name="about"),
    path("healthz", views.healthz, name="healthz"),
    path("favicon.ico", views.favicon),
    path("calculator/", views.calculator, name="calculator"),
    path("calculator/roll/", views.roll_check, name="roll-check"),
    path("calculator/opposed/", views.opposed, name="opposed"),
    path("calculator/opposed/roll/", views.roll_opposed, name="roll-opposed"),
]
