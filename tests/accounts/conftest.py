from __future__ import annotations

import pytest
from pytest_django.fixtures import Settings


@pytest.fixture(autouse=True)
def fast_password_hashing(settings: Settings) -> None:
    """Every log-in here hashes a password; the real hasher (PBKDF2) is slow on purpose and not under test."""
    settings.PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]
