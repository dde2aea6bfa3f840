from django.urls import path

from characters import views

app_name = "characters"

urlpatterns = [
    path("characters/<int:pk>/", views.sheet, name="sheet"),
]
