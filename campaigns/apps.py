from django.apps import AppConfig


class CampaignsConfig(AppConfig):
    name = "campaigns"

    def ready(self) -> None:
        # Connect the live-update listeners in every process (web servers, workers and
        # management commands alike), so that every recorded roll is announced.
        from campaigns import live  # noqa: F401
