"""``python -m bench.lucky13.advance``: "What should I buy?" for a large sheet, the engine alone.

A sheet document of twenty skills with five specializations each (levels 1 … 5), every ability
d4 … d10 so that each can still be raised, Cinematic explosions: every offer the system makes
(``offers``, as the page asks for them), with the exact chance of each check it touches, before
and after, at each of the six difficulties. Timed cold (the engine's caches cleared before each
run) and warm (as a second page view finds them), medians of 7.
"""

from __future__ import annotations

import statistics
import time
from typing import Any

from bench.lucky13.engine import clear_engine_caches
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import Difficulty, Explosion

RUNS = 7
SKILLS = 20
SPECIALIZATIONS = 5


def sheet() -> lucky13.Sheet:
    """The large sheet, as a document the system reads (every item with its id)."""
    skills = []
    next_id = 1
    for i in range(SKILLS):
        specializations = [
            {"id": next_id + 1 + j, "name": f"Trick {j}", "level": 1 + (i + j) % 5} for j in range(SPECIALIZATIONS)
        ]
        skills.append({
            "id": next_id, "name": f"Skill {i}", "ability": lucky13.ABILITY_KEYS[i % 5],
            "die": StepDie(1 + i % 5).label, "specializations": specializations,
        })  # fmt: skip
        next_id += SPECIALIZATIONS + 1
    document = {
        "abilities": {key: StepDie(1 + i % 4).label for i, key in enumerate(lucky13.ABILITY_KEYS)},
        "skills": skills,
        "hit_points": 10,
        "creation": {"step": ""},
        "next_id": next_id,
    }
    return lucky13.SYSTEM.read_sheet(document)


def options() -> dict[str, Any]:
    return lucky13.validate_options({"explosion": Explosion.CINEMATIC.value})


def one_run(document: lucky13.Sheet, settings: dict[str, Any]) -> int:
    effects = 0
    for difficulty in Difficulty:
        for offer in lucky13.SYSTEM.offers(document, settings, {"difficulty": difficulty.value}):
            effects += len(offer.effects)
    return effects


def main() -> None:
    document, settings = sheet(), options()
    cold, warm = [], []
    for _ in range(RUNS):
        clear_engine_caches()
        start = time.perf_counter()
        effects = one_run(document, settings)
        cold.append(time.perf_counter() - start)
        start = time.perf_counter()
        one_run(document, settings)
        warm.append(time.perf_counter() - start)
    per_page = effects // len(Difficulty)
    print(
        f"What should I buy?: {SKILLS} skills × {SPECIALIZATIONS} specializations, "
        f"{per_page} chances before/after per difficulty"
    )
    print(f"  all six difficulties, cold caches: median {statistics.median(cold) * 1000:.1f} ms")
    print(f"  all six difficulties, warm caches: median {statistics.median(warm) * 1000:.1f} ms")
    print(f"  one page (one difficulty), cold: about {statistics.median(cold) * 1000 / len(Difficulty):.1f} ms")


if __name__ == "__main__":
    main()
