"""``python -m bench.advance``: "What should I buy?" for a large sheet, the engine alone.

Twenty skills with five specializations each (levels 1 … 5), every ability d4 … d10 so that
each can still be raised, Cinematic explosions: every purchase with the exact chance of each
check it touches, before and after, at each of the six difficulties. Timed cold (the engine's
caches cleared before each run) and warm (as a second page view finds them), medians of 7.
"""

from __future__ import annotations

import statistics
import time

from bench.__main__ import clear_engine_caches
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import Difficulty, Explosion, SheetSkill

RUNS = 7


def sheet() -> tuple[dict[str, StepDie], list[SheetSkill]]:
    abilities = {key: StepDie(1 + i % 4) for i, key in enumerate(lucky13.ABILITY_KEYS)}
    skills = [
        SheetSkill(
            f"Skill {i}",
            lucky13.ABILITY_KEYS[i % 5],
            StepDie(1 + i % 5),
            tuple((f"Trick {j}", 1 + (i + j) % 5) for j in range(5)),
        )
        for i in range(20)
    ]
    return abilities, skills


def one_run(abilities: dict[str, StepDie], skills: list[SheetSkill]) -> int:
    effects = 0
    for difficulty in Difficulty:
        for option in lucky13.suggestions(abilities, skills, difficulty=difficulty.die, explosion=Explosion.CINEMATIC):
            effects += len(option.effects)
    return effects


def main() -> None:
    abilities, skills = sheet()
    cold, warm = [], []
    for _ in range(RUNS):
        clear_engine_caches()
        start = time.perf_counter()
        effects = one_run(abilities, skills)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        one_run(abilities, skills)
        warm.append(time.perf_counter() - start)
    per_page = effects // len(Difficulty)
    print(f"What should I buy?: 20 skills × 5 specializations, {per_page} chances before/after per difficulty")
    print(f"  all six difficulties, cold caches: median {statistics.median(cold) * 1000:.1f} ms")
    print(f"  all six difficulties, warm caches: median {statistics.median(warm) * 1000:.1f} ms")
    print(f"  one page (one difficulty), cold: about {statistics.median(cold) * 1000 / len(Difficulty):.1f} ms")


if __name__ == "__main__":
    main()
