from django.contrib import admin
from django.contrib.auth.decorators import login_not_required
from django.urls import include, path
from django.views.generic import RedirectView

urlpatterns = [
    path("", include("pages.urls")),
    path("", include("characters.urls")),
    path("", include("play.campaign_urls")),
    path("", include("play.urls")),
    path("", include("games.urls")),
    path("accounts/", include("accounts.urls")),
    path("", include("api.urls")),
    # One log-in page, with its limits (accounts.lockout): the admin's own would let every guess past them.
    path("admin/login/", login_not_required(RedirectView.as_view(pattern_name="login", query_string=True))),
    path("admin/", admin.site.urls),
]
