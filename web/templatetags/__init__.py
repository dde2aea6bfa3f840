"""Template filter libraries, registered by name in ``TEMPLATES["OPTIONS"]["libraries"]``
(config/settings.py): ``web`` is not an installed app, and need not be for these."""
