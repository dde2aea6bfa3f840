"""Our own pages first, so that /accounts/login/ is ours; Django's auth views for the rest."""

from django.contrib.auth.views import PasswordResetView
from django.urls import include, path

from accounts import views
from accounts.forms import SiteLinkPasswordResetForm

urlpatterns = [
    path("", views.account, name="account"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.login, name="login"),
    path("password_reset/", PasswordResetView.as_view(form_class=SiteLinkPasswordResetForm), name="password_reset"),
    path("", include("django.contrib.auth.urls")),
]
