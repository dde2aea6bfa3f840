from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The public pages: home, about, and the dice calculator."""

    name = "pages"
