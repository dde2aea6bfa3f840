"""The test-only Coin system (``system``, with its combat, dare and table, and its templates) and the
tests written for it."""
