from django.apps import AppConfig


class CharactersConfig(AppConfig):
    name = "characters"

    def ready(self) -> None:
        # The section forms and creation pages of their own that systems register
        # (characters.editing.register, characters.drafting.register).
        from characters import creation_views, forms  # noqa: F401
