"""Lucky 13 in an encounter ("Initiative", "Combat", "Hit points", "Death & dying"): the stat block a
combatant fights with, initiative, attacks with their exact chance, damage, dying and stabilizing.

The generic encounter (order, turns, rounds, the log) asks this module through the combat protocol
(``rules.systems.base.Combat``); it never looks inside a stat block.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from random import Random
from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import Field, ValidationError

from rules.dice import StepDie
from rules.document import MAX_NAME, Document, Problem, ShortText, problems_of
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
from rules.systems.lucky13.checks import AbilityRoll, Explosion, Opposed, Pool, opposed_chance, roll_opposed, roll_pool
from rules.systems.lucky13.combat import combat_pool, initiative_order
from rules.systems.lucky13.health import (
    Condition,
    HitPointChange,
    change_hit_points,
    condition,
    current_pulse,
    death_threshold,
    max_hit_points,
)
from rules.systems.lucky13.modifiers import Modifiers
from rules.systems.lucky13.record import opposed_roll_view, pool_view
from rules.systems.lucky13.sheet import Die, Sheet
from rules.systems.lucky13.vocabulary import SheetError

#: Skills that count as the Combat skill ("Combat": "you will need a skill that can be used whenever
#: combat occurs"), by the names the skill presets give it.
COMBAT_SKILLS: Final = ("combat", "fighting", "weaponry")

#: The attacker's specialization choice that means "their Combat specialization named like the
#: weapon they attack with, if they have one" (the default on the attack form).
LIKE_THE_WEAPON: Final = "like-the-weapon"

#: "Backgrounds", "Impairments": in a fight the Ability die is Reflex.
ABILITY_ROLL_CHOICES: Final = (
    (AbilityRoll.NORMAL.value, "Neither"),
    (AbilityRoll.BACKGROUND.value, "A background: Reflex twice, keep the higher"),
    (AbilityRoll.IMPAIRMENT.value, "An impairment: Reflex twice, keep the lower"),
)

#: The sheet's section a change of a character's hit points is (an open hit point form goes stale).
HIT_POINTS_SECTION: Final = "hit-points"

#: The most hit points a stat block may give an NPC (far above any Pulse's maximum).
MAX_HIT_POINTS: Final = 10_000


class StatBlock(Document):
    """What a combatant fights with: an NPC's whole quick stat block, or the dice a character
    brought from its sheet when it joined (its hit points stay on its sheet)."""

    schema_version: Literal[1] = 1
    reflex: Die
    combat: Die | None = None
    accuracy: Die | None = None
    damage: Die | None = None
    #: The name of the weapon whose dice these are (a character's best, as it joined).
    weapon: Annotated[ShortText, Field(max_length=MAX_NAME)] = ""
    armor: Die | None = None
    pulse: Die
    #: An NPC's hit points; None for a character, whose sheet holds them.
    hit_points: Annotated[int, Field(ge=-12, le=MAX_HIT_POINTS, strict=True)] | None = None


def _die(label: str | None) -> StepDie:
    return StepDie.parse(label) if label else StepDie.none()


def _per_step(options: Mapping[str, Any]) -> int:
    return int(options["hit_points_per_step"])


def _explosion(options: Mapping[str, Any]) -> Explosion:
    return Explosion(options["explosion"])


def combat_skill(sheet: Sheet) -> Any:
    """The character's Combat skill: the first of their skills (in sheet order) named as one."""
    return next((s for s in sheet.skills if s.name.strip().lower() in COMBAT_SKILLS), None)


def combat_specializations(sheet: Sheet) -> list[Any]:
    """The specializations under the character's Combat skill, by name."""
    skill = combat_skill(sheet)
    return sorted(skill.specializations, key=lambda s: (s.name, s.id)) if skill else []


# --- Vitals --------------------------------------------------------------------------------------------


def base_pulse(fighter: Fighter) -> StepDie:
    """The Pulse die the fighter's hit points are counted against: a character's sheet's, an NPC's block's."""
    sheet = fighter.sheet
    if isinstance(sheet, Sheet) and sheet.abilities.pulse:
        return StepDie.parse(sheet.abilities.pulse)
    return StepDie.parse(fighter.block.pulse)  # type: ignore[attr-defined]


def hit_points(fighter: Fighter) -> int:
    if fighter.sheet is not None:
        return fighter.sheet.hit_points or 0  # type: ignore[attr-defined]
    return fighter.block.hit_points or 0  # type: ignore[attr-defined]


def condition_of(fighter: Fighter) -> Condition:
    return condition(hit_points(fighter), base_pulse(fighter))


def change_view(change: HitPointChange) -> dict[str, Any]:
    return {
        "before": change.before,
        "after": change.after,
        "pulse_before": change.pulse_before.label,
        "pulse_after": change.pulse_after.label,
        "condition": change.condition.value,
    }


# --- Attacks -------------------------------------------------------------------------------------------


def _item(value: str, field: str, label: str) -> tuple[int, int]:
    """An item of a sheet as a form names it: ``<sheet key>:<item id>``."""
    sheet, _, item = value.partition(":")
    if not (sheet.isascii() and sheet.isdigit() and item.isascii() and item.isdigit()) or len(value) > 25:
        raise SpecError(field, f"Choose a {label} from the list.")
    if not (1 <= int(sheet) <= 10**12 and 1 <= int(item) <= 10**12):
        raise SpecError(field, f"Choose a {label} from the list.")
    return int(sheet), int(item)


def _choice(choices: Mapping[str, str], field: str) -> str:
    return str(choices.get(field, "") or "").strip()


def _weapon(attacker: Fighter, choices: Mapping[str, str]) -> Any:
    """One of a character attacker's weapons (None: the dice the combatant joined with)."""
    value = _choice(choices, "weapon")
    if not value:
        return None
    sheet_key, item_id = _item(value, "weapon", "weapon")
    weapon = None
    if attacker.sheet is not None and sheet_key == attacker.sheet_key:
        weapon = next((w for w in attacker.sheet.weapons if w.id == item_id), None)  # type: ignore[attr-defined]
    if weapon is None:
        raise SpecError("weapon", f"That weapon is not one of {attacker.name}'s.")
    return weapon


def _same_name(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def _specialization(fighter: Fighter, choices: Mapping[str, str], side: str, weapon: Any = None) -> Any:
    """The Combat specialization that applies to one side ("Specializations", "Modifiers"): none, the one
    chosen (an item of the fighter's own sheet), or, with :data:`LIKE_THE_WEAPON` (the attacker's
    default), the one named like the weapon if there is one."""
    field = f"{side}_specialization"
    default = LIKE_THE_WEAPON if side == "attacker" else "none"
    value = _choice(choices, field) or default
    if value == "none":
        return None
    if value == LIKE_THE_WEAPON:
        if side != "attacker":
            raise SpecError(field, "Choose a specialization from the list.")
        if fighter.sheet is None:
            return None
        name = weapon.name if weapon else fighter.block.weapon  # type: ignore[attr-defined]
        theirs = combat_specializations(fighter.sheet)  # type: ignore[arg-type]
        return next((s for s in theirs if name and _same_name(s.name, name)), None)
    sheet_key, item_id = _item(value, field, "specialization")
    if fighter.sheet is None:
        raise SpecError(field, f"{fighter.name} has no specializations: only characters do.")
    chosen = None
    if sheet_key == fighter.sheet_key:
        theirs = combat_specializations(fighter.sheet)  # type: ignore[arg-type]
        chosen = next((s for s in theirs if s.id == item_id), None)
    if chosen is None:
        raise SpecError(field, f"That specialization is not one of {fighter.name}'s Combat specializations.")
    return chosen


def _ability_roll(choices: Mapping[str, str], field: str) -> AbilityRoll:
    value = _choice(choices, field) or AbilityRoll.NORMAL.value
    if value not in AbilityRoll.__members__.values():
        raise SpecError(field, f"The {field.replace('_', ' ')} is normal, background or impairment.")
    return AbilityRoll(value)


def _item_choice(fighter: Fighter, item: Any) -> str:
    return "none" if item is None else f"{fighter.sheet_key}:{item.id}"


def specialization_view(specialization: Any) -> dict[str, Any] | None:
    """A specialization as an attack's spec records it (its id is the item's on its owner's sheet)."""
    if specialization is None:
        return None
    return {"id": specialization.id, "name": specialization.name, "level": specialization.level}


def _traits(fighter: Fighter) -> dict[str, list[str]]:
    """The backgrounds and impairments on a character's sheet (none for an NPC): the GM judges which
    apply to the attack."""
    found: dict[str, list[str]] = {}
    for trait in fighter.sheet.traits if fighter.sheet is not None else ():  # type: ignore[attr-defined]
        found.setdefault(trait.kind, []).append(trait.name)
    return found


def opposed_for(
    attacker: Fighter,
    target: Fighter,
    options: Mapping[str, Any],
    weapon: Any = None,
    *,
    attacker_specialization: Any = None,
    defender_specialization: Any = None,
    attacker_roll: AbilityRoll = AbilityRoll.NORMAL,
    defender_roll: AbilityRoll = AbilityRoll.NORMAL,
) -> Opposed:
    """ "Combat": Reflex + Combat + weapon Accuracy against Reflex + Combat + the Defensive die, a Combat
    specialization stepping its side's Combat die up by its level, and a background or an impairment
    rolling its side's Reflex twice, the higher or the lower kept (:func:`combat_pool`)."""
    a, d = attacker.block, target.block
    accuracy = StepDie.parse(weapon.accuracy) if weapon else _die(a.accuracy)  # type: ignore[attr-defined]

    def level(specialization: Any) -> Modifiers:
        return Modifiers(specialization_level=specialization.level if specialization else 0)

    try:
        return Opposed(
            attacker=combat_pool(
                _die(a.reflex),  # type: ignore[attr-defined]
                _die(a.combat),  # type: ignore[attr-defined]
                accuracy,
                level(attacker_specialization),
                ability_roll=attacker_roll,
            ),
            defender=combat_pool(
                _die(d.reflex),  # type: ignore[attr-defined]
                _die(d.combat),  # type: ignore[attr-defined]
                _die(d.armor),  # type: ignore[attr-defined]
                level(defender_specialization),
                ability_roll=defender_roll,
            ),
            weapon=StepDie.parse(weapon.damage) if weapon else _die(a.damage),  # type: ignore[attr-defined]
            explosion=_explosion(options),
        )
    except SheetError as error:
        raise CombatRefused(f"This attack can't be rolled: {error.message}.") from None


def _dice_of(pool: Pool) -> dict[str, str]:
    return {"reflex": pool.ability.label, "combat": pool.others[0].label, "third": pool.others[1].label}


# --- The protocol object ---------------------------------------------------------------------------------


def _is_dying(fighter: Fighter) -> bool:
    return condition_of(fighter) is Condition.DYING


class Lucky13Combat:
    """Lucky 13's side of an encounter (``rules.systems.base.Combat``)."""

    stat_block_model: ClassVar = StatBlock
    attack_fields: Final = frozenset(
        {"weapon", "attacker_specialization", "defender_specialization", "attacker_roll", "defender_roll"}
    )
    actions: Final = (
        CombatAction(
            "minute",
            "A minute passes",
            "Each dying combatant who is not stabilized loses 1 hit point.",
            per_fighter=False,
        ),
        CombatAction("stabilize", "Stabilize", "A dying combatant stops losing hit points by the minute."),
    )

    def read_block(self, document: Mapping[str, Any]) -> StatBlock:
        try:
            return StatBlock.model_validate(document)
        except ValidationError as error:
            raise SheetInvalid(problems_of(error)) from None

    def npc(self, values: Mapping[str, str], options: Mapping[str, Any]) -> StatBlock:
        """The GM's quick stat block: dice as labels (``d4`` … ``d12``; empty for none where a die may be
        missing), hit points empty for full (the Pulse die's maximum)."""
        problems: list[Problem] = []
        document: dict[str, Any] = {}
        for key, label, required in (
            ("reflex", "Reflex", True),
            ("combat", "Combat", False),
            ("accuracy", "weapon accuracy", False),
            ("damage", "weapon damage", False),
            ("armor", "armor", False),
            ("pulse", "Pulse", True),
        ):
            value = str(values.get(key, "") or "").strip()
            if value in ("d4", "d6", "d8", "d10", "d12"):
                document[key] = value
            elif value in ("", "none") and not required:
                document[key] = None
            else:
                choose = "a die from d4 to d12" if required else "no die or a die from d4 to d12"
                problems.append(Problem(field=key, message=f"Choose {choose} for the {label}."))
        if problems:
            raise SheetInvalid(problems)
        full = max_hit_points(StepDie.parse(document["pulse"]), _per_step(options))
        typed = str(values.get("hit_points", "") or "").strip()
        if not typed:
            document["hit_points"] = full
        elif typed.isascii() and typed.isdigit() and len(typed) <= 6 and 1 <= int(typed) <= full:
            document["hit_points"] = int(typed)
        else:
            raise SheetInvalid([Problem(field="hit_points", message=f"From 1 to {full} with that Pulse.")])
        return self.read_block(document)

    def joins(self, sheet: Sheet, options: Mapping[str, Any]) -> StatBlock:  # type: ignore[override]
        """A character joins with their Reflex, Combat skill, best weapon (by its dice; of equal ones, the
        first on the sheet), best armor and Pulse."""
        weapon = max(sheet.weapons, key=lambda w: (_die(w.accuracy).rung, _die(w.damage).rung), default=None)
        skill = combat_skill(sheet)
        armor = max(sheet.armor, key=lambda a: _die(a.defense).rung, default=None)
        return StatBlock(
            reflex=sheet.abilities.reflex or "d4",
            combat=skill.die if skill else None,
            accuracy=weapon.accuracy if weapon else None,
            damage=weapon.damage if weapon else None,
            weapon=weapon.name if weapon else "",
            armor=armor.defense if armor else None,
            pulse=sheet.abilities.pulse or "d4",
        )

    def vitals(self, fighter: Fighter, options: Mapping[str, Any]) -> Vitals:
        hp, base = hit_points(fighter), base_pulse(fighter)
        state = condition(hp, base)
        pulse = current_pulse(hp, _per_step(options))
        track = Track(
            "hit_points",
            "Hit points",
            hp,
            maximum=max_hit_points(base, _per_step(options)),
            minimum=death_threshold(base),
            unit="hp",
        )
        stabilized = bool(fighter.state.get("stabilized")) and state is Condition.DYING
        why_not = {
            Condition.DYING: "dying: at 0 hit points or fewer the character does not act",
            Condition.DEAD: "dead",
        }.get(state, "")
        return Vitals(
            tracks=(track,),
            state=state.value,
            can_act=state is Condition.UP,
            why_not=why_not,
            conditions=("stabilized",) if stabilized else (),
            notes=(("Pulse", pulse.label if pulse.rung else "no die"),),
        )

    def initiative(self, groups: Sequence[Sequence[Fighter]], options: Mapping[str, Any], rng: Random) -> Initiative:
        """ "Initiative": everyone rolls Reflex once for the encounter (a group of identical NPCs once for
        all of them); highest first, ties by the higher Reflex, then a roll-off. Each roll, and each
        roll-off, is logged."""
        explosion = _explosion(options)
        values: dict[int, int] = {}
        logged: list[Logged] = []
        reflexes: dict[int, StepDie] = {}
        for group in groups:
            first = group[0]
            pool = Pool(_die(first.block.reflex))  # type: ignore[attr-defined]
            rolled = roll_pool(pool, explosion, rng)
            names = [f.name for f in group]
            for fighter in group:
                values[fighter.key] = rolled.total
                reflexes[fighter.key] = _die(fighter.block.reflex)  # type: ignore[attr-defined]
            logged.append(
                Logged(
                    kind="initiative",
                    label=f"Initiative for {', '.join(names)}",
                    spec={"reflex": pool.ability.label, "explosion": explosion.value, "for": names},
                    fighter=first.key,
                    dice=pool_view(pool, rolled, ("Reflex",)),
                    total=rolled.total,
                    outcome={"combatants": names},
                    chance_of="initiative is an order, not a success",
                )
            )
        order = initiative_order([(key, values[key], reflexes[key]) for key in values], explosion, rng)
        names = {f.key: f.name for group in groups for f in group}
        for place, entry in enumerate(order):
            if entry.rolloffs:
                logged.append(
                    Logged(
                        kind="initiative",
                        label=f"Initiative roll-off for {names[entry.key]}",
                        spec={"reflex": entry.reflex.label, "explosion": explosion.value, "roll_off": True,
                              "for": [names[entry.key]]},
                        fighter=entry.key,
                        total=entry.rolloffs[-1],
                        outcome={"roll_offs": list(entry.rolloffs), "place": place + 1},
                        chance_of="a roll-off settles a tie",
                    )
                )  # fmt: skip
        return Initiative(values=values, order=tuple(e.key for e in order), logged=tuple(logged))

    def attack_choices(self, fighters: Sequence[Fighter], options: Mapping[str, Any]) -> Mapping[str, Any]:
        """The characters' weapons and Combat specializations, from their sheets (no NPC has any), and
        the background-or-impairment choice of each side."""
        characters = sorted((f for f in fighters if f.sheet is not None), key=lambda f: (f.name, f.sheet_key or 0))
        return {
            "weapons": [
                {"name": f.name, "weapon": w, "choice": f"{f.sheet_key}:{w.id}"}
                for f in characters
                for w in sorted(f.sheet.weapons, key=lambda w: (w.name, w.id))  # type: ignore[union-attr]
            ],
            "specializations": [
                {"name": f.name, "specialization": s, "choice": f"{f.sheet_key}:{s.id}"}
                for f in characters
                for s in combat_specializations(f.sheet)  # type: ignore[arg-type]
            ],
            "ability_rolls": ABILITY_ROLL_CHOICES,
        }

    def plan_attack(
        self, attacker: Fighter, target: Fighter, choices: Mapping[str, str], options: Mapping[str, Any]
    ) -> AttackPlan:
        """ "Combat": the attack of ``attacker`` on ``target``, with the weapon, the Combat specializations
        and the backgrounds or impairments the GM judged to apply ("Backgrounds": "creative adjudication
        on the GM's part"), and the exact chance to hit (a draw fails)."""
        if attacker.key == target.key:
            raise SpecError("target", "A combatant cannot attack itself.")
        weapon = _weapon(attacker, choices)
        attacking = _specialization(attacker, choices, "attacker", weapon)
        defending = _specialization(target, choices, "defender")
        rolls = {field: _ability_roll(choices, field) for field in ("attacker_roll", "defender_roll")}
        if condition_of(attacker) is not Condition.UP:
            raise CombatRefused(f"{attacker.name} is in no state to attack.")
        if condition_of(target) is Condition.DEAD:
            raise CombatRefused(f"{target.name} is already dead.")
        opposed = opposed_for(
            attacker,
            target,
            options,
            weapon,
            attacker_specialization=attacking,
            defender_specialization=defending,
            **rolls,
        )
        chance = opposed_chance(opposed)
        spec = {
            "attacker": attacker.name,
            "target": target.name,
            "attacker_dice": [d.label for d in opposed.attacker.dice],
            "defender_dice": [d.label for d in opposed.defender.dice],
            "weapon": weapon.name if weapon else None,
            "weapon_die": opposed.weapon.label,
            "explosion": opposed.explosion.value,
            "attacker_specialization": specialization_view(attacking),
            "defender_specialization": specialization_view(defending),
            "attacker_roll": opposed.attacker.ability_roll.value,
            "defender_roll": opposed.defender.ability_roll.value,
        }
        return AttackPlan(
            attacker=attacker.key,
            target=target.key,
            chance=chance.p_attacker_wins,
            chance_of="hit",
            # What the Roll form sends: exactly the choices the chance was computed with.
            choices={
                "weapon": f"{attacker.sheet_key}:{weapon.id}" if weapon else "",
                "attacker_specialization": _item_choice(attacker, attacking),
                "defender_specialization": _item_choice(target, defending),
                **{field: roll.value for field, roll in rolls.items()},
            },
            label=f"{attacker.name} attacks {target.name}" + (f" with {weapon.name}" if weapon else ""),
            details={
                "weapon": weapon,
                "p_draw": chance.p_draw,
                "percent": float(chance.p_attacker_wins) * 100,
                "attacker_dice": _dice_of(opposed.attacker),
                "defender_dice": _dice_of(opposed.defender),
                "sides": [
                    {
                        "name": fighter.name,
                        "specialization": specialization,
                        "roll": roll.value,
                        "traits": _traits(fighter),
                    }
                    for fighter, specialization, roll in (
                        (attacker, attacking, rolls["attacker_roll"]),
                        (target, defending, rolls["defender_roll"]),
                    )
                ],
            },
            dice=(opposed, spec),
        )

    def roll_attack(self, plan: AttackPlan, options: Mapping[str, Any], rng: Random) -> AttackRoll:
        """Both sides roll; a hit deals the damage die + the margin ("Combat")."""
        opposed, spec = plan.dice
        rolled = roll_opposed(opposed, rng)
        view = opposed_roll_view(rolled)
        logged = Logged(
            kind="attack",
            label=plan.label,
            spec=spec,
            fighter=plan.attacker,
            dice=view,
            total=rolled.attacker.total,
            outcome={"hit": rolled.hit, "margin": rolled.margin, "defender_total": rolled.defender.total},
            chance=plan.chance,
            chance_of=plan.chance_of,
        )
        if not rolled.hit:
            return AttackRoll(logged)
        damage = Logged(
            kind="damage",
            label=f"Damage to {spec['target']}",
            spec={"attacker": spec["attacker"], "target": spec["target"], "weapon_die": spec["weapon_die"],
                  "margin": rolled.margin},
            fighter=plan.target,
            dice=view["damage_dice"],
            total=rolled.damage,
            chance_of="damage is applied, not tested",
        )  # fmt: skip
        return AttackRoll(logged, rolled.damage, damage)

    def _harmed(self, fighter: Fighter, change: HitPointChange, state: Mapping[str, Any], words: str) -> Harm:
        if fighter.sheet is not None:
            sheet = fighter.sheet.model_copy(update={"hit_points": change.after})
            block = fighter.block
        else:
            sheet, block = None, fighter.block.model_copy(update={"hit_points": change.after})
        return Harm(fighter.key, block, sheet, state, change_view(change), words, sections=(HIT_POINTS_SECTION,))

    def harm(self, fighter: Fighter, amount: int, options: Mapping[str, Any]) -> Harm:
        """ "Hit points": damage empties slots and the current Pulse steps down, healing fills them; a new
        wound reopens a stabilized combatant's bleeding, and the healed need no care."""
        change = change_hit_points(hit_points(fighter), amount, base_pulse(fighter), _per_step(options))
        state = dict(fighter.state)
        if amount < 0 or change.condition is not Condition.DYING:
            state.pop("stabilized", None)
        words = f"{abs(amount)} {'healing' if amount > 0 else 'damage'}"
        return self._harmed(fighter, change, state, words)

    def why_not(self, action: str, fighter: Fighter, options: Mapping[str, Any]) -> str:
        if action not in ("minute", "stabilize"):
            return f"There is no action {action!r}."
        if not _is_dying(fighter):
            return f"{fighter.name} is not dying."
        if fighter.state.get("stabilized"):
            return f"{fighter.name} is already stabilized."
        return ""

    def act(self, action: str, fighter: Fighter, options: Mapping[str, Any]) -> Harm | None:
        """ "Death & dying": a minute passing costs a dying combatant who is not stabilized 1 hit point;
        stabilizing stops that until they are wounded again."""
        if self.why_not(action, fighter, options):
            return None
        if action == "minute":
            harmed = self.harm(fighter, -1, options)
            return replace(harmed, words="a minute passes while dying")
        hp, base = hit_points(fighter), base_pulse(fighter)
        still = HitPointChange(hp, hp, StepDie.none(), StepDie.none(), condition(hp, base))
        return self._harmed(fighter, still, {**fighter.state, "stabilized": True}, "stabilized")


COMBAT: Final = Lucky13Combat()

__all__ = [
    "ABILITY_ROLL_CHOICES",
    "COMBAT",
    "COMBAT_SKILLS",
    "LIKE_THE_WEAPON",
    "Lucky13Combat",
    "StatBlock",
    "combat_skill",
    "combat_specializations",
]
