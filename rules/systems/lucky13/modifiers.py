"""Checks built from a sheet: specializations, assets, assists, GM steps and reputation step the
dice ("Modifiers", "Specializations", "Characters assisting characters", "Reputation")."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Final

from rules.dice import BASE_SIZES, DiceError, StepDie
from rules.systems.lucky13.checks import MAX_STEPS, AbilityRoll, Check, Explosion
from rules.systems.lucky13.vocabulary import SheetError, check_level, check_reputation


def effective_skill_die(skill: StepDie, level: int) -> StepDie:
    """ "Specializations": each level steps the skill die up once (Spellcasting d8, Teleport 2 → d12)."""
    return skill.step(level)


def reaction_charm(charm: StepDie, reputation: int) -> StepDie:
    """ "Reputation": in reaction checks the Charm die steps by the reputation."""
    return charm.step(check_reputation(reputation))


def assist_steps(helper: StepDie) -> int:
    """ "Characters assisting characters": the helper's die gives the steps, d4 1 … d12 5.

    A helper's stepped die (d12+d4 and up) still gives 5: the table stops at d12.
    """
    if helper.rung < 1:
        raise SheetError("assist", "a helper needs a die (d4 … d12) in what they help with")
    return min(helper.rung, len(BASE_SIZES))


@dataclass(frozen=True, slots=True)
class Modifiers:
    """Everything that steps the dice of a check from a sheet, before it is rolled.

    The steps from every source are added first, then each die is stepped once by the
    net amount (rules README, "The ladder"): a specialization's level and an asset's
    level step the skill die; a helper steps the die of what they help with (ability or
    skill); the GM may add steps either way; reputation steps Charm in reaction checks.
    """

    specialization_level: int = 0
    asset_level: int = 0
    assist: StepDie | None = None
    assist_target: str = "skill"
    ability_steps: int = 0
    skill_steps: int = 0
    reputation: int | None = None

    def ability_total(self) -> int:
        steps = self.ability_steps + (self.reputation or 0)
        if self.assist is not None and self.assist_target == "ability":
            steps += assist_steps(self.assist)
        return steps

    def skill_total(self) -> int:
        steps = self.skill_steps + self.specialization_level + self.asset_level
        if self.assist is not None and self.assist_target == "skill":
            steps += assist_steps(self.assist)
        return steps


#: A check with nothing stepping its dice (frozen, so it is shared safely as a default).
NO_MODIFIERS: Final = Modifiers()


def check_modifiers(modifiers: Modifiers) -> None:
    if modifiers.assist_target not in ("ability", "skill"):
        raise SheetError("assist_target", "a helper helps with the ability or with the skill")
    if modifiers.specialization_level:
        check_level(modifiers.specialization_level, "specialization level")
    if modifiers.asset_level:
        check_level(modifiers.asset_level, "asset level")
    if modifiers.reputation is not None:
        check_reputation(modifiers.reputation)
    for steps, what in ((modifiers.ability_steps, "ability_steps"), (modifiers.skill_steps, "skill_steps")):
        if isinstance(steps, bool) or not isinstance(steps, int) or not -MAX_STEPS <= steps <= MAX_STEPS:
            raise SheetError(what, f"extra steps are a whole number from -{MAX_STEPS} to {MAX_STEPS}")


def sheet_check(
    ability: StepDie,
    skill: StepDie,
    difficulty: StepDie,
    modifiers: Modifiers = NO_MODIFIERS,
    *,
    ability_roll: AbilityRoll = AbilityRoll.NORMAL,
    explosion: Explosion = Explosion.CINEMATIC,
) -> Check:
    """The check a sheet's roll control builds: its dice stepped by every modifier at once."""
    check_modifiers(modifiers)
    try:
        return Check(
            ability=ability.step(modifiers.ability_total()),
            skill=skill.step(modifiers.skill_total()),
            difficulty=difficulty,
            ability_roll=ability_roll,
            explosion=explosion,
        )
    except DiceError as error:
        raise SheetError("steps", str(error)) from None
