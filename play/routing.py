"""WebSocket routes: the live campaign dashboard and the live character sheet."""

from django.urls import path

from play import consumers, sheet_consumers

websocket_urlpatterns = [
    path("ws/campaigns/<int:pk>/", consumers.CampaignConsumer.as_asgi()),
    path("ws/characters/<int:pk>/", sheet_consumers.SheetConsumer.as_asgi()),
]
