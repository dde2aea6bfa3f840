"""The pages of each system's own (``games/<key>/urls.py``, in the namespace of its key): Lucky 13's
public dice calculator, say. Every other page of the product is generic."""

from django.urls import include, path

import games
from rules import systems

urlpatterns = [path("", include(f"games.{key}.urls")) for key in systems.KEYS if games.has(key, "urls")]
