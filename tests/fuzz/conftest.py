"""Coin, played for a test that fuzzes it (``tests.fuzz.tables``)."""

from tests.fuzz.tables import coin_registered  # noqa: F401 (a fixture)
