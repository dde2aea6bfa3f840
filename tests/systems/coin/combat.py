"""Coin's fights, for the test-only Coin system (``tests.systems.coin.system``): a combatant flips its Nerve
in coins; initiative is the heads, an attack hits with at least as many heads as the GM asks, and
a hit costs the target one Luck. Nothing here is borrowed from Lucky 13."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from fractions import Fraction
from math import comb
from random import Random
from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import Field, ValidationError

from rules.document import Document, Problem, problems_of
from rules.systems.base import (
    AttackPlan,
    AttackRoll,
    CombatAction,
    CombatRefused,
    Fighter,
    Harm,
    Initiative,
    Logged,
    SheetInvalid,
    SpecError,
    Track,
    Vitals,
)

MAX_NERVE: Final = 6
MAX_LUCK: Final = 20


class StatBlock(Document):
    schema_version: Literal[1] = 1
    nerve: Annotated[int, Field(ge=1, le=MAX_NERVE, strict=True)]
    #: An NPC's Luck; None for a character, whose sheet holds it.
    luck: Annotated[int, Field(ge=0, le=MAX_LUCK, strict=True)] | None = None


def heads_chance(coins: int, need: int) -> Fraction:
    """P(at least ``need`` heads of ``coins`` fair coins), by counting."""
    return Fraction(sum(comb(coins, k) for k in range(need, coins + 1)), 2**coins)


def _flip(coins: int, rng: Random) -> list[str]:
    return [rng.choice(("heads", "tails")) for _ in range(coins)]


def _luck(fighter: Fighter) -> int:
    return fighter.sheet.luck if fighter.sheet is not None else fighter.block.luck  # type: ignore[attr-defined]


def _number(values: Mapping[str, str], key: str, low: int, high: int, what: str) -> int:
    value = str(values.get(key, "") or "").strip()
    if not (value.isascii() and value.isdigit() and len(value) <= 3 and low <= int(value) <= high):
        raise SheetInvalid([Problem(field=key, message=f"{what} is a whole number from {low} to {high}.")])
    return int(value)


class CoinCombat:
    stat_block_model: ClassVar = StatBlock
    attack_fields: Final = frozenset({"need"})
    gm_attack_fields: Final = frozenset({"need"})
    actions: Final[tuple[CombatAction, ...]] = ()
    track_label: Final = "Luck"

    def amount_words(self, amount: int) -> str:
        return f"{amount} Luck"

    def left_words(self, outcome: Mapping[str, Any]) -> str:
        return f"at {self.amount_words(outcome['luck'])}"

    def read_block(self, document: Mapping[str, Any]) -> StatBlock:
        try:
            return StatBlock.model_validate(document)
        except ValidationError as error:
            raise SheetInvalid(problems_of(error)) from None

    def npc(self, values: Mapping[str, str], options: Mapping[str, Any]) -> StatBlock:
        nerve = _number(values, "nerve", 1, MAX_NERVE, "Nerve")
        return StatBlock(nerve=nerve, luck=_number(values, "luck", 1, MAX_LUCK, "Luck"))

    def joins(self, sheet: Any, options: Mapping[str, Any]) -> StatBlock:
        return StatBlock(nerve=sheet.nerve or 1)

    def vitals(self, fighter: Fighter, options: Mapping[str, Any]) -> Vitals:
        luck = _luck(fighter)
        track = Track("luck", "Luck", luck, maximum=MAX_LUCK, minimum=0)
        if luck == 0:
            return Vitals((track,), "out", can_act=False, why_not="out of Luck")
        return Vitals((track,), "up")

    def initiative(self, groups: Sequence[Sequence[Fighter]], options: Mapping[str, Any], rng: Random) -> Initiative:
        values: dict[int, int] = {}
        logged = []
        for group in groups:
            faces = _flip(group[0].block.nerve, rng)  # type: ignore[attr-defined]
            names = [f.name for f in group]
            for fighter in group:
                values[fighter.key] = faces.count("heads")
            logged.append(
                Logged("initiative", f"Initiative for {', '.join(names)}", {"for": names}, group[0].key,
                       faces, faces.count("heads"), {"combatants": names}, None, "an order")
            )  # fmt: skip
        order = tuple(sorted(values, key=lambda key: (-values[key], key)))
        return Initiative(values, order, tuple(logged))

    def join(
        self,
        groups: Sequence[Sequence[Fighter]],
        standing: Sequence[tuple[Fighter, int]],
        options: Mapping[str, Any],
        rng: Random,
    ) -> Initiative:
        """Newcomers flip as everyone did and go after everyone with as many heads or more."""
        rolled = self.initiative(groups, options, rng)
        values = {fighter.key: value for fighter, value in standing} | dict(rolled.values)
        order = [fighter.key for fighter, _ in standing]
        start = 0
        for key in rolled.order:
            later = [i for i in range(start, len(order)) if values[key] > values[order[i]]]
            place = later[0] if later else len(order)
            order.insert(place, key)
            start = place + 1
        return Initiative(rolled.values, tuple(order), rolled.logged)

    def attack_choices(self, fighters: Sequence[Fighter], options: Mapping[str, Any]) -> Mapping[str, Any]:
        return {"needs": list(range(1, MAX_NERVE + 1))}

    def plan_attack(
        self,
        attacker: Fighter,
        target: Fighter,
        choices: Mapping[str, str],
        options: Mapping[str, Any],
        others: Sequence[Fighter] = (),
    ) -> AttackPlan:
        if attacker.key == target.key:
            raise SpecError("target", "A combatant cannot attack itself.")
        coins = attacker.block.nerve  # type: ignore[attr-defined]
        need = str(choices.get("need", "") or "1")
        if not (need.isascii() and need.isdigit() and len(need) <= 2 and 1 <= int(need) <= coins):
            raise SpecError("need", f"Need 1 to {coins} heads.")
        if _luck(attacker) == 0:
            raise CombatRefused(f"{attacker.name} is out of Luck.")
        chance = heads_chance(coins, int(need))
        return AttackPlan(
            attacker=attacker.key,
            target=target.key,
            chance=chance,
            chance_of="hit",
            choices={"need": need},
            label=f"{attacker.name} flips {coins} coins at {target.name}, needing {need} heads",
            details={"coins": coins, "need": int(need)},
            dice=(coins, int(need), attacker.name, target.name),
        )

    def roll_attack(self, plan: AttackPlan, options: Mapping[str, Any], rng: Random) -> AttackRoll:
        coins, need, attacker, target = plan.dice
        faces = _flip(coins, rng)
        hit = faces.count("heads") >= need
        logged = Logged(
            "attack", plan.label, {"attacker": attacker, "target": target, "coins": coins, "need": need},
            plan.attacker, faces, faces.count("heads"), {"hit": hit}, plan.chance, plan.chance_of,
        )  # fmt: skip
        if not hit:
            return AttackRoll(logged)
        damage = Logged("damage", f"{target} loses 1 Luck", {"target": target}, plan.target, (), 1)
        return AttackRoll(logged, 1, damage)

    def harm(self, fighter: Fighter, amount: int, options: Mapping[str, Any]) -> Harm:
        before = _luck(fighter)
        after = max(0, min(MAX_LUCK, before + amount))
        outcome = {"before": before, "after": after, "condition": "out" if after == 0 else "up"}
        words = f"{abs(after - before)} Luck {'gained' if after > before else 'lost'}"
        if fighter.sheet is not None:
            sheet = fighter.sheet.model_copy(update={"luck": after})
            return Harm(fighter.key, fighter.block, sheet, fighter.state, outcome, words, ("luck",))
        block = fighter.block.model_copy(update={"luck": after})
        return Harm(fighter.key, block, None, fighter.state, outcome, words)

    def why_not(self, action: str, fighter: Fighter, options: Mapping[str, Any]) -> str:
        return f"Coin has no move {action!r}."

    def act(self, action: str, fighter: Fighter, options: Mapping[str, Any]) -> Harm | None:
        return None


COMBAT: Final = CoinCombat()
