from django.apps import AppConfig


class PlayConfig(AppConfig):
    name = "play"

    def ready(self) -> None:
        # Connect the live-update listeners in every process (web servers, workers and
        # management commands alike), so that every recorded roll is announced.
        from play import live  # noqa: F401
