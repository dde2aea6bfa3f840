from django.apps import AppConfig


class PagesConfig(AppConfig):
    """The public pages: home, about, and the dice calculator."""

    name = "pages"

    def ready(self) -> None:
        from web.fields import plain_choice_messages

        plain_choice_messages()
