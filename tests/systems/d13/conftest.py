"""What D13's tests share: the server's dice, scripted."""

from __future__ import annotations

import pytest

from tests.systems.d13.engine import Dice


@pytest.fixture
def dice(monkeypatch):
    """Script the next faces the server rolls: ``dice(2, 2)`` is a d4 of 2 and a d9 of 2."""

    def script(*faces: int) -> Dice:
        scripted = Dice(*faces)
        monkeypatch.setattr("play.moves.secrets.SystemRandom", lambda: scripted)
        return scripted

    return script
