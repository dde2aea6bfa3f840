"""ASGI entry point: ``uvicorn config.asgi:application``.

HTTP goes to Django; WebSockets (the live dashboard) to Channels, which checks that the
Origin is the socket's own, whole (``web.origins``), and loads the user from the session cookie.
"""

import gc
import os

import django

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

# Django is set up before anything imports models (the routing and its consumers do), as
# get_asgi_application does; each request's thread is kept for later ones (web/asgi.py).
django.setup(set_prefix=False)

from web.asgi import Handler  # noqa: E402

django_application = Handler()

from channels.auth import AuthMiddlewareStack  # noqa: E402
from channels.routing import ProtocolTypeRouter, URLRouter  # noqa: E402
from django.urls import get_resolver  # noqa: E402

from play.routing import websocket_urlpatterns  # noqa: E402
from play.socket_outage import PausedWhenUnreachable  # noqa: E402
from web import heavy  # noqa: E402
from web.origins import SameOriginValidator  # noqa: E402

# The worker processes for exact chances start with the server, not on its first request (web/heavy.py).
heavy.warm_up()

# Every view module imported now, as the first request would, and everything made so far (modules, the URL
# patterns, the systems' models) set aside from the collector for good: it would otherwise walk those
# objects again on each of its full passes, some 75 ms every few hundred requests, for nothing to free.
get_resolver().url_patterns  # noqa: B018
gc.collect()
gc.freeze()

application = ProtocolTypeRouter(
    {
        "http": django_application,
        # Redis or the database out of reach, even while the session is read: closed with 1013, never an error.
        "websocket": PausedWhenUnreachable(AuthMiddlewareStack(SameOriginValidator(URLRouter(websocket_urlpatterns)))),
    }
)
