"""D13's roll kinds: the task roll made once, what the log keeps of it, and its exact chances.

Apart from the system (:mod:`rules.systems.d13.system`, which gives them as its ``roll_kinds``) because
they load no sheet model: the chance of a spec (``python -m rules chance``) loads this module and the
odds (:mod:`rules.systems.d13.chance`), not pydantic (:func:`rules.systems.roll_kinds`).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from random import Random
from typing import Any, Final

from rules.systems.d13 import chance
from rules.systems.d13.chance import LEVEL_WORDS, Roll
from rules.systems.protocol.kinds import Recorded, RollKind

__all__ = ["CHECK", "ROLL_KINDS", "Checked"]


@dataclass(frozen=True, slots=True)
class Checked:
    """A task roll made once (the table's roll of a spec, with no decision after it): the check and the dice."""

    check: chance.Check
    roll: Roll

    @property
    def success(self) -> bool:
        return chance.succeeds(self.roll, self.check.target, self.check.level)


def _roll_once(check: chance.Check, rng: Random) -> Checked:
    return Checked(check, Roll(rng.randint(1, 4), rng.randint(0, 9)))


def _record(result: Checked) -> Recorded:
    roll = result.roll
    return Recorded({"d4": roll.d4, "d9": roll.d9}, roll.total, {"success": result.success, "doubles": roll.doubles})


CHECK: Final = RollKind(
    key="check",
    label="Task roll",
    fields=frozenset(chance.CHECK_FIELDS),
    parse=chance.parse,
    roll=_roll_once,
    chance=chance.chance,
    record=_record,
    success=lambda odds: odds.success,
    chance_json=chance.chance_json,
    describe=lambda check: f"{LEVEL_WORDS[check.level]} task, d4 + d9 at or under {check.target}",
)


ROLL_KINDS: Final[Mapping[str, RollKind[Any, Any, Any]]] = {"check": CHECK}
