"""NPCs for the encounter tests: Lucky 13 quick stat blocks as the GM's form sends them."""

from __future__ import annotations

from typing import Any

#: The step ladder as the tests write it: a rung (1 d4 … 5 d12), 0 for no die.
LABELS = ("", "d4", "d6", "d8", "d10", "d12")


def npc(
    name: str,
    reflex: int,
    combat: int,
    accuracy: int,
    damage: int,
    armor: int,
    pulse: int,
    hit_points: int | None = None,
) -> dict[str, Any]:
    """The keyword arguments of ``encounters.add_npcs`` for one stat block, dice given as rungs."""
    stats = {
        "reflex": LABELS[reflex] if 0 <= reflex < len(LABELS) else str(reflex),
        "combat": LABELS[combat] if 0 <= combat < len(LABELS) else str(combat),
        "accuracy": LABELS[accuracy] if 0 <= accuracy < len(LABELS) else str(accuracy),
        "damage": LABELS[damage] if 0 <= damage < len(LABELS) else str(damage),
        "armor": LABELS[armor] if 0 <= armor < len(LABELS) else str(armor),
        "pulse": LABELS[pulse] if 0 <= pulse < len(LABELS) else str(pulse),
        "hit_points": "" if hit_points is None else str(hit_points),
    }
    return {"name": name, "stats": stats}


GOBLIN = npc("Goblin", 2, 1, 1, 1, 0, 1)
