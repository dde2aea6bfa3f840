from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Sign-up, log-in and password pages, the account page, and the log-in rate limit."""

    name = "accounts"

    def ready(self) -> None:
        from accounts import lockout, signals  # noqa: F401  (connect their receivers)
