from django.apps import AppConfig


class AccountsConfig(AppConfig):
    """Sign-up, log-in and password pages, the account page, and the log-in rate limit."""

    name = "accounts"

    def ready(self) -> None:
        from accounts import lockout  # noqa: F401  (connects the reset-on-success receiver)
