"""ASGI entry point: ``uvicorn config.asgi:application``.

HTTP goes to Django; WebSockets (the live dashboard) to Channels, which checks that the
Origin is the socket's own, whole (``web.origins``), and loads the user from the session cookie.
"""

import os

from django.core.asgi import get_asgi_application

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Django is set up before anything imports models (the routing and its consumers do).
django_application = get_asgi_application()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402

from play.routing import websocket_urlpatterns  # noqa: E402
from play.socket_outage import PausedWhenUnreachable  # noqa: E402
from web import heavy  # noqa: E402
from web.origins import SameOriginValidator  # noqa: E402

# The worker processes for exact chances start with the server, not on its first request (web/heavy.py).
heavy.warm_up()

application = ProtocolTypeRouter(
    {
        "http": django_application,
        # Redis or the database out of reach, even while the session is read: closed with 1013, never an error.
        "websocket": PausedWhenUnreachable(AuthMiddlewareStack(SameOriginValidator(URLRouter(websocket_urlpatterns)))),
    }
)
