from django.apps import AppConfig


class RulesConfig(AppConfig):
    """Registers ``rules`` for its templates; the engine modules never import Django."""

    name = "rules"
    verbose_name = "Rules engine"
