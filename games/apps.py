from importlib import import_module

from django.apps import AppConfig

import games
from rules import systems


class GamesConfig(AppConfig):
    name = "games"

    def ready(self) -> None:
        # Each engine system with a package of its own here registers its forms and pages (its
        # ``__init__`` does); a system with none is played through the generated forms.
        for key in systems.KEYS:
            if games.has(key):
                import_module(f"games.{key}")
