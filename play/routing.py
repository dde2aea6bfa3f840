"""WebSocket routes: the live campaign dashboard."""

from django.urls import path

from play import consumers

websocket_urlpatterns = [
    path("ws/campaigns/<int:pk>/", consumers.CampaignConsumer.as_asgi()),
]
