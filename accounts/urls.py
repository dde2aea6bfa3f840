"""Our own pages first, so that /accounts/login/ is ours; Django's auth views for the rest."""

from django.urls import include, path

from accounts import views

urlpatterns = [
    path("", views.account, name="account"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.login, name="login"),
    path("", include("django.contrib.auth.urls")),
]
