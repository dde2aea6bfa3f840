"""PostgreSQL as Django's backend has it, with a pool that gets over a restart of the server at once
(:mod:`web.postgresql.base`): ``ENGINE = "web.postgresql"`` (config/settings.py)."""
