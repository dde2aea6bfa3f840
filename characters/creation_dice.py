"""Creation rolls stick: the server's dice of a creation step stay with the player and the campaign.

A step the server rolls (Lucky 13's random abilities and skills, any system's ``roll_step``) draws
from a random source that records every draw (:class:`KeptDice`). The draws are kept with the
draft (:class:`~characters.models.CreationDice`); when the player deletes the draft they stay, and
the player's next draft in the campaign rolls that step from them again, draw for draw, before any
new draw. Deleting a draft and starting over therefore never rolls the abilities again.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from typing import Any, TypeVar

from characters.models import Character, CreationDice

T = TypeVar("T")


class KeptDice(random.Random):
    """A random source that replays ``kept`` draws first, then draws from ``source``, recording
    every draw it gives in ``draws``. Every method of :class:`random.Random` (``randint``,
    ``choice``, ``shuffle``…) is built on ``random()`` and ``getrandbits()``, so these two are all
    it records, as :class:`random.SystemRandom` overrides them and nothing else."""

    def __init__(self, source: random.Random, kept: list[list[Any]]) -> None:
        self.source = source
        self.kept = list(kept)
        self.draws: list[list[Any]] = []
        super().__init__()

    def seed(self, *args: Any, **kwargs: Any) -> None:  # the source is seeded (or not) on its own
        return None

    def _next(self, kind: str, *shape: int) -> Any | None:
        if self.kept and self.kept[0][:-1] == [kind, *shape]:
            return self.kept.pop(0)[-1]
        self.kept = []  # a draw of another shape: the step asks something new, so new dice from here
        return None

    def random(self) -> float:
        value = self._next("f")
        if value is None:
            value = self.source.random()
        self.draws.append(["f", value])
        return value

    def getrandbits(self, k: int) -> int:
        value = self._next("b", k)
        if value is None:
            value = self.source.getrandbits(k)
        self.draws.append(["b", k, value])
        return value


def roll_kept(character: Character, step: str, rng: random.Random, roll: Callable[[random.Random], T]) -> T:
    """``roll(dice)`` for ``character``'s creation ``step``, with the step's dice kept: drawn first
    from a deleted draft's dice of the same step (the player's, in this campaign), and recorded with
    this draft. The caller holds the character's row lock (and so its campaign's)."""
    own = CreationDice.objects.filter(character=character, step=step).first()
    left = None
    if own is None:
        left = (
            CreationDice.objects.select_for_update()
            .filter(campaign_id=character.campaign_id, owner_id=character.owner_id, step=step, character=None)
            .order_by("pk")
            .first()
        )
    dice = KeptDice(rng, left.draws if left is not None else [])
    result = roll(dice)
    if not dice.draws:
        return result
    if own is not None:
        own.draws = [*own.draws, *dice.draws]
        own.save(update_fields=["draws"])
    elif left is not None:
        left.character, left.draws = character, dice.draws
        left.save(update_fields=["character", "draws"])
    else:
        CreationDice.objects.create(
            campaign_id=character.campaign_id, owner_id=character.owner_id, step=step, character=character,
            draws=dice.draws,
        )  # fmt: skip
    return result
