"""The whole Lucky 13 table, as chance specs: every Ability × Skill × Difficulty
(Heroic included) × normal/background/impairment × none/cinematic/gritty, with
Ability and Skill dice over the ladder from d4 up to d12+d12+d4."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from rules.dice import StepDie
from rules.systems.lucky13 import AbilityRoll, Difficulty, Explosion

#: d4 … d12, d12+d4 … d12+d12, d12+d12+d4.
LADDER = tuple(StepDie(rung).label for rung in range(1, 12))


def specs() -> Iterator[dict[str, Any]]:
    for explosion in Explosion:
        for ability_roll in AbilityRoll:
            for difficulty in Difficulty:
                for ability in LADDER:
                    for skill in LADDER:
                        yield {
                            "system": "lucky13",
                            "roll": "check",
                            "ability": ability,
                            "skill": skill,
                            "difficulty": difficulty.value,
                            "ability_roll": ability_roll.value,
                            "explosion": explosion.value,
                        }
