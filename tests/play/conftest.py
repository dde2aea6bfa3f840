"""What the tests of play share: the API client for the cast (tests/api/conftest.py), and Flip, the Coin character
the tests of sheet moves play."""

from __future__ import annotations

import pytest

from characters.models import Character
from tests.api.conftest import api  # noqa: F401 (a fixture)
from tests.systems.coin import system as coin


@pytest.fixture
def flip(coin_campaign, player) -> Character:
    """An active Coin character of ``player``: Nerve 3, Luck 5."""
    sheet = coin.Sheet(step="", nerve=3, luck=5).model_dump(mode="json")
    return Character.objects.create(campaign=coin_campaign, owner=player, name="Flip", status="active", sheet=sheet)
