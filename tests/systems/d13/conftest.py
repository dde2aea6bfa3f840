"""What D13's tests share: the server's dice, scripted."""

from __future__ import annotations

import random

import pytest


class Dice(random.Random):
    """The server's dice, scripted: ``randint`` gives the faces listed, in order (a shuffle keeps its seed)."""

    def __init__(self, *faces: int) -> None:
        super().__init__(13)
        self.faces = list(faces)

    def randint(self, a: int, b: int) -> int:
        face = self.faces.pop(0)
        assert a <= face <= b
        return face


@pytest.fixture
def dice(monkeypatch):
    """Script the next faces the server rolls: ``dice(2, 2)`` is a d4 of 2 and a d9 of 2."""

    def script(*faces: int) -> Dice:
        scripted = Dice(*faces)
        monkeypatch.setattr("play.moves.secrets.SystemRandom", lambda: scripted)
        return scripted

    return script
