"""Our own pages first, so that /accounts/login/ and the password pages are ours; Django's auth views for the rest."""

from django.contrib.auth.views import PasswordResetView
from django.urls import include, path

from accounts import views
from accounts.forms import SiteLinkPasswordResetForm

urlpatterns = [
    path("", views.account, name="account"),
    path("signup/", views.signup, name="signup"),
    path("login/", views.login, name="login"),
    path("password_reset/", PasswordResetView.as_view(form_class=SiteLinkPasswordResetForm), name="password_reset"),
    path("email/<str:token>/", views.confirm_email, name="email-confirm"),
    path("tokens/new/", views.create_token, name="api-token-create"),
    path("password_change/", views.password_change, name="password_change"),
    path("reset/<uidb64>/<token>/", views.password_reset_confirm, name="password_reset_confirm"),
    path("", include("django.contrib.auth.urls")),
]
