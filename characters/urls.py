from django.urls import path

from characters import creation_views, views

app_name = "characters"

urlpatterns = [
    path("characters/<int:pk>/", views.sheet, name="sheet"),
    path("campaigns/<int:campaign_pk>/characters/new/", creation_views.start, name="create"),
    path("characters/<int:pk>/create/<slug:step>/", creation_views.step, name="create-step"),
]
