from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("", include("pages.urls")),
    path("", include("characters.urls")),
    path("", include("play.campaign_urls")),
    path("", include("play.urls")),
    path("", include("games.urls")),
    path("accounts/", include("accounts.urls")),
    path("", include("api.urls")),
    path("admin/", admin.site.urls),
]
