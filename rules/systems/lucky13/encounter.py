"""Lucky 13 in an encounter ("Initiative", "Combat", "Modifiers", "Characters assisting characters",
"Hit points", "Death & dying"): the stat block a combatant fights with, initiative (and the place of
a combatant who joins a fight under way), attacks with their exact chance (specializations,
backgrounds, an assisting combatant and the GM's situational steps stepping the dice), damage, dying
and stabilizing.

The generic encounter (order, turns, rounds, the log) asks this module through the combat protocol
(``rules.systems.base.Combat``); it never looks inside a stat block.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from random import Random
from typing import Annotated, Any, ClassVar, Final, Literal, TypeAlias

from pydantic import Field, ValidationError

from rules.dice import StepDie
from rules.document import MAX_NAME, Document, Problem, ShortText, problems_of
from rules.reading import clean_name
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
from rules.systems.lucky13.combat import InitiativeEntry, RollOff, combat_pool, initiative_order, join_order
from rules.systems.lucky13.health import (
    Condition,
    HitPointChange,
    change_hit_points,
    condition,
    current_pulse,
    death_threshold,
    max_hit_points,
)
from rules.systems.lucky13.modifiers import Modifiers, assist_steps
from rules.systems.lucky13.options import combat_skill_name
from rules.systems.lucky13.record import opposed_roll_view, pool_view
from rules.systems.lucky13.recovery import RECOVERING_STEPS, recovering, settle
from rules.systems.lucky13.recovery import ability_steps as recovery_steps
from rules.systems.lucky13.sheet import Die, Sheet, Skill
from rules.systems.lucky13.vocabulary import SheetError

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

#: "Modifiers": the GM's situational steps on an attack (cover, range, surprise…; rules README, "The
#: GM's calls"): at most this many, each with a name of at most :data:`MAX_STEP_NAME` characters,
#: moving one die of one side up or down by 1 to :data:`MAX_SITUATIONAL_STEPS` steps.
MAX_SITUATIONAL: Final = 4
MAX_SITUATIONAL_STEPS: Final = 5
MAX_STEP_NAME: Final = 40
#: The sides of an attack a situational step or a helper is on, as the attack form names them.
SIDES: Final = (("attacker", "The attacker"), ("defender", "The target"))
#: The dice of a side a situational step moves: the Combat (skill) die or the Reflex (ability) die,
#: as the GM's extra steps of a check move the Skill or the Ability die.
STEPPED_DICE: Final = (("combat", "Combat (the skill die)"), ("reflex", "Reflex (the ability die)"))
#: What an assisting combatant helps with ("Characters assisting characters": "For ability tasks …
#: the ability die would step up. For skill tasks … the skill die would step up").
HELP_WITH: Final = (
    ("skill", "Combat: their Combat die steps the Combat die"),
    ("ability", "Reflex: their Reflex die steps the Reflex die"),
)
#: The fields of one situational step on the attack form (``step_<n>_<part>``, n from 1).
STEP_PARTS: Final = ("name", "side", "die", "steps")


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


#: A combatant of a Lucky 13 fight: its stat block and, for a character, its sheet.
Combatant: TypeAlias = Fighter[StatBlock, Sheet]


#: The dice an NPC's quick stat block can oppose a contest with ("Contests": "Ability + Skill vs
#: Ability + Skill"): its two abilities, Reflex and its current Pulse, each alone or with its Combat die.
CONTEST_POOLS: Final = (
    ("reflex_combat", "Reflex + Combat"),
    ("reflex", "Reflex"),
    ("pulse_combat", "Pulse + Combat"),
    ("pulse", "Pulse"),
)


def contest_pools(block: StatBlock, options: Mapping[str, Any]) -> tuple[tuple[str, str, tuple[StepDie, ...]], ...]:
    """The pools an NPC's stat block opposes a contest with (:data:`CONTEST_POOLS`): each as its key,
    its words and its dice, the Ability die first. Pulse is the current one, the step the NPC's hit
    points reach (rules README, "A contest's opponent": "their current Pulse while wounded"); a pool
    with a Combat die is offered only to an NPC that has one. A dying or dead NPC does not act, so
    opposes nothing (rules README, "a dying or dead character does not act")."""
    hit_points = block.hit_points
    pulse = _die(block.pulse) if hit_points is None else current_pulse(hit_points, _per_step(options))
    if not pulse.sides:
        return ()
    abilities = {"reflex": _die(block.reflex), "pulse": pulse}
    combat = _die(block.combat)
    pools: list[tuple[str, str, tuple[StepDie, ...]]] = []
    for key, words in CONTEST_POOLS:
        ability = abilities[key.split("_")[0]]
        if key.endswith("_combat"):
            if not combat.sides:
                continue
            pools.append((key, words, (ability, combat)))
        else:
            pools.append((key, words, (ability,)))
    return tuple(pools)


def _die(label: str | None) -> StepDie:
    return StepDie.parse(label) if label else StepDie.none()


def _per_step(options: Mapping[str, Any]) -> int:
    return int(options["hit_points_per_step"])


def _explosion(options: Mapping[str, Any]) -> Explosion:
    return Explosion(options["explosion"])


def combat_skill(sheet: Sheet, options: Mapping[str, Any]) -> Skill | None:
    """The character's Combat skill: their skill that is the one the campaign's skill list marks as
    fighting, whatever its name ("Combat": "whatever you name that skill"; rules README, "The Combat
    skill is a role"). A sheet holds the campaign's skills under the list's names, and a rename of the
    list renames the sheets' skills with it (:func:`rules.systems.lucky13.campaign.change_options`),
    so the mark stays on the same skill of every sheet through a rename. None when the list marks no
    skill or the sheet lacks it."""
    name = combat_skill_name(options)
    if name is None:
        return None
    return next((s for s in sheet.skills if s.name.casefold() == name.casefold()), None)


def combat_specializations(sheet: Sheet, options: Mapping[str, Any]) -> list[Any]:
    """The specializations under the character's Combat skill, by name."""
    skill = combat_skill(sheet, options)
    return sorted(skill.specializations, key=lambda s: (s.name, s.id)) if skill else []


# --- Vitals --------------------------------------------------------------------------------------------


def base_pulse(fighter: Combatant) -> StepDie:
    """The Pulse die the fighter's hit points are counted against: a character's sheet's, an NPC's block's."""
    sheet = fighter.sheet
    if isinstance(sheet, Sheet) and sheet.abilities.pulse:
        return StepDie.parse(sheet.abilities.pulse)
    return StepDie.parse(fighter.block.pulse)


def hit_points(fighter: Combatant) -> int:
    if fighter.sheet is not None:
        return fighter.sheet.hit_points or 0
    return fighter.block.hit_points or 0


def condition_of(fighter: Combatant) -> Condition:
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


def _weapon(attacker: Combatant, choices: Mapping[str, str]) -> Any:
    """One of a character attacker's weapons (None: the dice the combatant joined with)."""
    value = _choice(choices, "weapon")
    if not value:
        return None
    sheet_key, item_id = _item(value, "weapon", "weapon")
    weapon = None
    if attacker.sheet is not None and sheet_key == attacker.sheet_key:
        weapon = next((w for w in attacker.sheet.weapons if w.id == item_id), None)
    if weapon is None:
        raise SpecError("weapon", f"That weapon is not one of {attacker.name}'s.")
    if not weapon.approved:
        raise SpecError("weapon", f"{weapon.name} awaits the GM's approval.")
    return weapon


def _same_name(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def _specialization(
    fighter: Combatant, choices: Mapping[str, str], side: str, options: Mapping[str, Any], weapon: Any = None
) -> Any:
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
        name = weapon.name if weapon else fighter.block.weapon
        theirs = combat_specializations(fighter.sheet, options)
        return next((s for s in theirs if name and _same_name(s.name, name)), None)
    sheet_key, item_id = _item(value, field, "specialization")
    if fighter.sheet is None:
        raise SpecError(field, f"{fighter.name} has no specializations: only characters do.")
    chosen = None
    if sheet_key == fighter.sheet_key:
        theirs = combat_specializations(fighter.sheet, options)
        chosen = next((s for s in theirs if s.id == item_id), None)
    if chosen is None:
        raise SpecError(field, f"That specialization is not one of {fighter.name}'s Combat specializations.")
    return chosen


def _ability_roll(choices: Mapping[str, str], field: str) -> AbilityRoll:
    value = _choice(choices, field) or AbilityRoll.NORMAL.value
    if value not in AbilityRoll.__members__.values():
        raise SpecError(field, f"The {field.replace('_', ' ')} is normal, background or impairment.")
    return AbilityRoll(value)


def _item_choice(fighter: Combatant, item: Any) -> str:
    return "none" if item is None else f"{fighter.sheet_key}:{item.id}"


def specialization_view(specialization: Any) -> dict[str, Any] | None:
    """A specialization as an attack's spec records it (its id is the item's on its owner's sheet)."""
    if specialization is None:
        return None
    return {"id": specialization.id, "name": specialization.name, "level": specialization.level}


def _traits(fighter: Combatant) -> dict[str, list[str]]:
    """The backgrounds and impairments on a character's sheet (none for an NPC): the GM judges which
    apply to the attack."""
    found: dict[str, list[str]] = {}
    for trait in fighter.sheet.traits if fighter.sheet is not None else ():
        found.setdefault(trait.kind, []).append(trait.name)
    return found


@dataclass(frozen=True, slots=True)
class SituationalStep:
    """One of the GM's situational steps on an attack ("Modifiers": "stepping up one of their dice"):
    its name as the GM gave it, the side and the die it moves, and by how many steps (+ up, − down)."""

    name: str
    side: str
    die: str
    steps: int

    def view(self) -> dict[str, Any]:
        return {"name": self.name, "side": self.side, "die": self.die, "steps": self.steps}


def _signed(steps: int) -> str:
    return f"+{steps}" if steps > 0 else f"−{-steps}"


def _steps_number(value: str) -> int | None:
    """A number of steps as a form sends it: ASCII digits with an optional minus, within the bounds."""
    digits = value.removeprefix("-")
    if not (digits.isascii() and digits.isdigit() and len(digits) <= 2):
        return None
    steps = int(value)
    return steps if steps and abs(steps) <= MAX_SITUATIONAL_STEPS else None


def situational_steps(choices: Mapping[str, str]) -> tuple[SituationalStep, ...]:
    """The GM's situational steps of an attack form (``step_<n>_name``, ``_side``, ``_die``,
    ``_steps`` for n from 1 to :data:`MAX_SITUATIONAL`; a row without a name or steps is unused).
    Rules README, "The GM's calls": the GM "names situational steps"; "The ladder": they add up with
    the other steps of the die. :class:`SpecError` names the first bad field."""
    found = []
    sides, dice = dict(SIDES), dict(STEPPED_DICE)
    for n in range(1, MAX_SITUATIONAL + 1):
        name, steps = _choice(choices, f"step_{n}_name"), _choice(choices, f"step_{n}_steps")
        if not name and not steps:
            continue
        if not name:
            raise SpecError(f"step_{n}_name", f"Name situational step {n} (cover, range, surprise…).")
        try:
            name = clean_name(name, f"Situational step {n}")
        except ValueError as error:
            raise SpecError(f"step_{n}_name", f"{error}.") from None
        if len(name) > MAX_STEP_NAME:
            raise SpecError(f"step_{n}_name", f"Name situational step {n} in at most {MAX_STEP_NAME} characters.")
        number = _steps_number(steps)
        if number is None:
            raise SpecError(
                f"step_{n}_steps",
                f"{name} moves the die from −{MAX_SITUATIONAL_STEPS} to +{MAX_SITUATIONAL_STEPS} steps, not 0.",
            )
        side, die = _choice(choices, f"step_{n}_side") or "attacker", _choice(choices, f"step_{n}_die") or "combat"
        if side not in sides:
            raise SpecError(f"step_{n}_side", f"{name} is on the attacker's dice or on the target's.")
        if die not in dice:
            raise SpecError(f"step_{n}_die", f"{name} moves the Combat die or the Reflex die.")
        found.append(SituationalStep(name, side, die, number))
    return tuple(found)


@dataclass(frozen=True, slots=True)
class Assist:
    """A combatant who assists one side ("Characters assisting characters": "When a PC or NPC assists
    … they can provide a step or more"): the helper, their die in what they help with, and what that is
    (``skill``: the Combat die; ``ability``: Reflex)."""

    helper: Combatant
    die: StepDie
    with_: str

    @property
    def steps(self) -> int:
        return assist_steps(self.die)

    def view(self) -> dict[str, Any]:
        return {"combatant": self.helper.name, "die": self.die.label, "with": self.with_, "steps": self.steps}


def _assist(
    choices: Mapping[str, str], side: str, attacker: Combatant, target: Combatant, others: Sequence[Combatant]
) -> Assist | None:
    """The combatant the GM names to help ``side`` (``<side>_helper``: their key in the encounter;
    empty or ``none`` for nobody) and what they help with (``<side>_help_with``). A character or an
    NPC alike helps with the dice they fight with: their Combat die, or their Reflex die. Someone who
    cannot act (dying, dead) cannot help."""
    field = f"{side}_helper"
    value = _choice(choices, field)
    if value in ("", "none"):
        return None
    key = int(value) if value.isascii() and value.isdigit() and len(value) <= 12 else None
    helper = next((f for f in others if f.key == key), None)
    if helper is None or helper.key in (attacker.key, target.key):
        raise SpecError(field, "Choose someone else in this fight to help, or nobody.")
    with_ = _choice(choices, f"{side}_help_with") or "skill"
    if with_ not in dict(HELP_WITH):
        raise SpecError(f"{side}_help_with", "A helper helps with the Combat die or with the Reflex die.")
    if condition_of(helper) is not Condition.UP:
        raise SpecError(field, f"{helper.name} is in no state to help.")
    die = _die(helper.block.combat if with_ == "skill" else helper.block.reflex)
    if not die.rung:
        raise SpecError(f"{side}_help_with", f"{helper.name} has no Combat die to help with.")
    return Assist(helper, die, with_)


def side_modifiers(
    side: str,
    specialization: Any = None,
    assist: Assist | None = None,
    steps: Sequence[SituationalStep] = (),
    recovering_steps: int = 0,
) -> Modifiers:
    """Every step on one side's dice, added up before the dice are stepped once (rules README, "The
    ladder"): a Combat specialization's level and the situational steps on the Combat die, the
    situational steps on Reflex, a helper's steps on what they help with, and gritty recovery's step
    on the Reflex of a fighter healed from dying (:func:`~rules.systems.lucky13.recovery.ability_steps`)."""
    mine = [step for step in steps if step.side == side]
    return Modifiers(
        specialization_level=specialization.level if specialization else 0,
        assist=assist.die if assist else None,
        assist_target=assist.with_ if assist else "skill",
        ability_steps=sum(step.steps for step in mine if step.die == "reflex") + recovering_steps,
        skill_steps=sum(step.steps for step in mine if step.die == "combat"),
    )


def opposed_for(
    attacker: Combatant,
    target: Combatant,
    options: Mapping[str, Any],
    weapon: Any = None,
    *,
    attacker_specialization: Any = None,
    defender_specialization: Any = None,
    attacker_roll: AbilityRoll = AbilityRoll.NORMAL,
    defender_roll: AbilityRoll = AbilityRoll.NORMAL,
    attacker_assist: Assist | None = None,
    defender_assist: Assist | None = None,
    situational: Sequence[SituationalStep] = (),
) -> Opposed:
    """ "Combat": Reflex + Combat + weapon Accuracy against Reflex + Combat + the Defensive die, each
    side's Reflex and Combat dice stepped once by the net of their steps (:func:`side_modifiers`; a
    character recovering from dying under gritty recovery has Reflex one step down), and
    a background or an impairment rolling its side's Reflex twice, the higher or the lower kept
    (:func:`combat_pool`)."""
    a, d = attacker.block, target.block
    accuracy = StepDie.parse(weapon.accuracy) if weapon else _die(a.accuracy)
    try:
        return Opposed(
            attacker=combat_pool(
                _die(a.reflex),
                _die(a.combat),
                accuracy,
                side_modifiers(
                    "attacker",
                    attacker_specialization,
                    attacker_assist,
                    situational,
                    recovery_steps(attacker.sheet, options),
                ),
                ability_roll=attacker_roll,
            ),
            defender=combat_pool(
                _die(d.reflex),
                _die(d.combat),
                _die(d.armor),
                side_modifiers(
                    "defender",
                    defender_specialization,
                    defender_assist,
                    situational,
                    recovery_steps(target.sheet, options),
                ),
                ability_roll=defender_roll,
            ),
            weapon=StepDie.parse(weapon.damage) if weapon else _die(a.damage),
            explosion=_explosion(options),
        )
    except SheetError as error:
        raise CombatRefused(f"This attack can't be rolled: {error.message}.") from None


def _dice_of(pool: Pool) -> dict[str, str]:
    return {"reflex": pool.ability.label, "combat": pool.others[0].label, "third": pool.others[1].label}


def _side_dice(
    fighter: Combatant,
    pool: Pool,
    third: tuple[str, str, str],
    side: str,
    specialization: Any,
    assist: Assist | None,
    steps: Sequence[SituationalStep],
    skill_name: str | None = None,
    recovering_steps: int = 0,
) -> list[dict[str, Any]]:
    """One side's three dice as the page labels them: which die it is (Reflex, the ability; Combat, the
    skill, by the name the campaign gives the skill that fights; the weapon's Accuracy or the Defensive
    die), the die on the sheet or the stat block, the die rolled, and each step that moved it, by name."""
    block = fighter.block
    combat_words = [f"{specialization.name} {specialization.level}: +{specialization.level}"] if specialization else []
    reflex_words: list[str] = []
    if assist is not None:
        (combat_words if assist.with_ == "skill" else reflex_words).append(
            f"{assist.helper.name} helps ({assist.die.label}): +{assist.steps}"
        )
    for step in steps:
        if step.side == side:
            (combat_words if step.die == "combat" else reflex_words).append(f"{step.name}: {_signed(step.steps)}")
    if recovering_steps:
        reflex_words.append(f"Recovering from dying: {_signed(recovering_steps)}")
    role, kind, base = third
    reflex, combat = _die(block.reflex).label, _die(block.combat).label
    skill = f"skill: {skill_name}" if skill_name else "skill"
    return [
        {"role": "Reflex", "kind": "ability", "base": reflex, "die": pool.ability.label, "steps": reflex_words},
        {"role": "Combat", "kind": skill, "base": combat, "die": pool.others[0].label, "steps": combat_words},
        {"role": role, "kind": kind, "base": base, "die": pool.others[1].label, "steps": []},
    ]


def _words(
    attacker: Combatant,
    target: Combatant,
    assists: Mapping[str, Assist | None],
    steps: Sequence[SituationalStep],
) -> list[str]:
    """The helpers and the situational steps of an attack, by name, as its label says them."""
    names = {"attacker": attacker.name, "defender": target.name}
    words = [f"{a.helper.name} helps {names[side]}" for side, a in assists.items() if a is not None]
    words += [f"{s.name}: {names[s.side]}'s {s.die.capitalize()} {_signed(s.steps)}" for s in steps]
    return words


def _roll_off_logs(
    order: Sequence[InitiativeEntry], names: Mapping[int, str], places: Mapping[int, int], explosion: Explosion
) -> list[Logged]:
    """A log entry for each combatant whose tie was settled by a roll-off, with its place in the order."""
    return [
        Logged(
            kind="initiative",
            label=f"Initiative roll-off for {names[entry.key]}",
            spec={
                "reflex": entry.reflex.label,
                "explosion": explosion.value,
                "roll_off": True,
                "for": [names[entry.key]],
            },
            fighter=entry.key,
            total=entry.rolloffs[-1],
            outcome={"roll_offs": list(entry.rolloffs), "place": places[entry.key] + 1},
            chance_of="a roll-off settles a tie",
        )
        for entry in order
        if entry.rolloffs
    ]


def _pair_roll_off_log(
    rolloff: RollOff,
    names: Mapping[int, str],
    places: Mapping[int, int],
    standing: Sequence[InitiativeEntry],
    explosion: Explosion,
) -> Logged:
    """The log entry of a newcomer's roll-off against a combatant already in the order."""
    other = next(e for e in standing if e.key == rolloff.standing)
    return Logged(
        kind="initiative",
        label=f"Initiative roll-off for {names[rolloff.newcomer]} against {names[other.key]}",
        spec={"reflex": other.reflex.label, "explosion": explosion.value, "roll_off": True,
              "for": [names[rolloff.newcomer]], "against": names[other.key]},
        fighter=rolloff.newcomer,
        total=rolloff.newcomer_totals[-1],
        outcome={"roll_offs": list(rolloff.newcomer_totals), "against_roll_offs": list(rolloff.standing_totals),
                 "ahead": rolloff.newcomer_first, "place": places[rolloff.newcomer] + 1},
        chance_of="a roll-off settles a tie",
    )  # fmt: skip


# --- The protocol object ---------------------------------------------------------------------------------


def _is_dying(fighter: Combatant) -> bool:
    return condition_of(fighter) is Condition.DYING


class Lucky13Combat:
    """Lucky 13's side of an encounter (``rules.systems.base.Combat``)."""

    stat_block_model: ClassVar = StatBlock
    attack_fields: Final = frozenset(
        {"weapon", "attacker_specialization", "defender_specialization", "attacker_roll", "defender_roll",
         "attacker_helper", "attacker_help_with", "defender_helper", "defender_help_with",
         *(f"step_{n}_{part}" for n in range(1, MAX_SITUATIONAL + 1) for part in STEP_PARTS)}
    )  # fmt: skip
    #: A player attacking on their turn picks the weapon and their own specialization; whether a
    #: background or an impairment applies, who helps, the target's specialization and the situation
    #: are the GM's calls.
    gm_attack_fields: Final = attack_fields - {"weapon", "attacker_specialization"}
    actions: Final = (
        CombatAction(
            "minute",
            "A minute passes",
            "Each dying combatant who is not stabilized loses 1 hit point.",
            per_fighter=False,
        ),
        CombatAction("stabilize", "Stabilize", "A dying combatant stops losing hit points by the minute."),
    )
    track_label: Final = "Hit points"

    def amount_words(self, amount: int) -> str:
        return f"{amount} hit point{'' if abs(amount) == 1 else 's'}"

    def left_words(self, outcome: Mapping[str, Any]) -> str:
        return f"at {self.amount_words(outcome['hit_points'])}"

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

    def joins(self, sheet: Sheet, options: Mapping[str, Any]) -> StatBlock:
        """A character joins with their Reflex, Combat skill (the skill the campaign marks as fighting,
        :func:`combat_skill`), best weapon (by its dice; of equal ones, the
        first on the sheet), best armor and Pulse."""
        weapons = [w for w in sheet.weapons if w.approved]  # a proposal waiting for the GM is not fought with
        weapon = max(weapons, key=lambda w: (_die(w.accuracy).rung, _die(w.damage).rung), default=None)
        skill = combat_skill(sheet, options)
        armor = max((a for a in sheet.armor if a.approved), key=lambda a: _die(a.defense).rung, default=None)
        return StatBlock(
            reflex=sheet.abilities.reflex or "d4",
            combat=skill.die if skill else None,
            accuracy=weapon.accuracy if weapon else None,
            damage=weapon.damage if weapon else None,
            weapon=weapon.name if weapon else "",
            armor=armor.defense if armor else None,
            pulse=sheet.abilities.pulse or "d4",
        )

    def vitals(self, fighter: Combatant, options: Mapping[str, Any]) -> Vitals:
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
        notes: tuple[tuple[str, str], ...] = (("Pulse", pulse.label if pulse.rung else "no die"),)
        if recovering(fighter.sheet, options):
            notes += (("Recovering", f"Reflex {_signed(RECOVERING_STEPS)}"),)
        return Vitals(
            tracks=(track,),
            state=state.value,
            can_act=state is Condition.UP,
            why_not=why_not,
            conditions=("stabilized",) if stabilized else ("recovering",) if recovering(fighter.sheet, options) else (),
            notes=notes,
        )

    def _rolls(
        self, groups: Sequence[Sequence[Combatant]], options: Mapping[str, Any], rng: Random
    ) -> tuple[list[InitiativeEntry], list[Logged]]:
        """Each group's Reflex roll ("Initiative"), one for the group, logged; an entry per fighter. A
        character recovering from dying (gritty recovery) rolls Reflex one step down."""
        explosion = _explosion(options)
        entries: list[InitiativeEntry] = []
        logged: list[Logged] = []
        for group in groups:
            first = group[0]
            pool = Pool(_die(first.block.reflex).step(recovery_steps(first.sheet, options)))
            rolled = roll_pool(pool, explosion, rng)
            names = [f.name for f in group]
            entries += [InitiativeEntry(f.key, rolled.total, _die(f.block.reflex)) for f in group]
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
        return entries, logged

    def initiative(self, groups: Sequence[Sequence[Combatant]], options: Mapping[str, Any], rng: Random) -> Initiative:
        """ "Initiative": everyone rolls Reflex once for the encounter (a group of identical NPCs once for
        all of them); highest first, ties by the higher Reflex, then a roll-off. Each roll, and each
        roll-off, is logged."""
        explosion = _explosion(options)
        entries, logged = self._rolls(groups, options, rng)
        order = initiative_order([(e.key, e.total, e.reflex) for e in entries], explosion, rng)
        names = {f.key: f.name for group in groups for f in group}
        places = {entry.key: place for place, entry in enumerate(order)}
        logged += _roll_off_logs(order, names, places, explosion)
        return Initiative(
            values={e.key: e.total for e in entries}, order=tuple(e.key for e in order), logged=tuple(logged)
        )

    def join(
        self,
        groups: Sequence[Sequence[Combatant]],
        standing: Sequence[tuple[Combatant, int]],
        options: Mapping[str, Any],
        rng: Random,
    ) -> Initiative:
        """ "Initiative" for newcomers to a fight under way: they roll Reflex as everyone did (a group of
        identical NPCs once), settle ties among themselves as :meth:`initiative` does, and each takes
        the place its roll earns in the order as it stands (:func:`join_order`: ties with those already
        in it by the higher Reflex, then a roll-off). Every roll and roll-off is logged."""
        explosion = _explosion(options)
        entries, logged = self._rolls(groups, options, rng)
        among = initiative_order([(e.key, e.total, e.reflex) for e in entries], explosion, rng)
        present = [InitiativeEntry(f.key, value, _die(f.block.reflex)) for f, value in standing]
        order, rolloffs = join_order(present, among, explosion, rng)
        names = {f.key: f.name for group in groups for f in group} | {f.key: f.name for f, _ in standing}
        places = {entry.key: place for place, entry in enumerate(order)}
        logged += _roll_off_logs(among, names, places, explosion)
        logged += [_pair_roll_off_log(r, names, places, present, explosion) for r in rolloffs]
        return Initiative(
            values={e.key: e.total for e in entries}, order=tuple(e.key for e in order), logged=tuple(logged)
        )

    def attack_choices(self, fighters: Sequence[Combatant], options: Mapping[str, Any]) -> Mapping[str, Any]:
        """The characters' weapons and Combat specializations, from their sheets (no NPC has any), the
        background-or-impairment choice of each side, who may assist a side (anyone in the fight) and
        with what, and the parts of the GM's situational steps."""
        characters = sorted((f for f in fighters if f.sheet is not None), key=lambda f: (f.name, f.sheet_key or 0))
        return {
            "weapons": [
                {"name": f.name, "weapon": w, "choice": f"{f.sheet_key}:{w.id}"}
                for f in characters
                for w in sorted(f.sheet.weapons, key=lambda w: (w.name, w.id))  # type: ignore[union-attr]
                if w.approved
            ],
            "specializations": [
                {"name": f.name, "specialization": s, "choice": f"{f.sheet_key}:{s.id}"}
                for f in characters
                for s in combat_specializations(f.sheet, options)  # type: ignore[arg-type]
            ],
            "ability_rolls": ABILITY_ROLL_CHOICES,
            "helpers": [
                {"key": f.key, "name": f.name, "combat": _die(f.block.combat).label,
                 "reflex": _die(f.block.reflex).label}
                for f in sorted(fighters, key=lambda f: (f.name, f.key))
            ],
            "help_with": HELP_WITH,
            "sides": SIDES,
            "stepped_dice": STEPPED_DICE,
            "max_situational": MAX_SITUATIONAL,
            "max_steps": MAX_SITUATIONAL_STEPS,
            "max_step_name": MAX_STEP_NAME,
        }  # fmt: skip

    def plan_attack(
        self,
        attacker: Combatant,
        target: Combatant,
        choices: Mapping[str, str],
        options: Mapping[str, Any],
        others: Sequence[Combatant] = (),
    ) -> AttackPlan:
        """ "Combat": the attack of ``attacker`` on ``target``, with the weapon, the Combat specializations,
        the backgrounds or impairments the GM judged to apply ("Backgrounds": "creative adjudication
        on the GM's part"), a combatant assisting either side (a character or an NPC: "When a PC or NPC
        assists"), and the GM's situational steps (rules README, "The GM's calls"); every step of a die
        is added up and the die stepped once ("The ladder"). The exact chance to hit (a draw fails)
        includes them all."""
        if attacker.key == target.key:
            raise SpecError("target", "A combatant cannot attack itself.")
        weapon = _weapon(attacker, choices)
        attacking = _specialization(attacker, choices, "attacker", options, weapon)
        defending = _specialization(target, choices, "defender", options)
        rolls = {field: _ability_roll(choices, field) for field in ("attacker_roll", "defender_roll")}
        assists = {side: _assist(choices, side, attacker, target, others) for side in ("attacker", "defender")}
        helping, defending_helper = assists["attacker"], assists["defender"]
        if helping and defending_helper and helping.helper.key == defending_helper.helper.key:
            raise SpecError("defender_helper", f"{defending_helper.helper.name} can't help both sides.")
        steps = situational_steps(choices)
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
            attacker_assist=assists["attacker"],
            defender_assist=assists["defender"],
            situational=steps,
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
            "attacker_assist": assists["attacker"].view() if assists["attacker"] else None,
            "defender_assist": assists["defender"].view() if assists["defender"] else None,
            "situational": [step.view() for step in steps],
        }
        words = _words(attacker, target, assists, steps)
        weapon_name = weapon.name if weapon else attacker.block.weapon
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
                **{
                    key: value
                    for side, assist in assists.items()
                    for key, value in (
                        (f"{side}_helper", str(assist.helper.key) if assist else ""),
                        (f"{side}_help_with", assist.with_ if assist else "skill"),
                    )
                },
                **{
                    f"step_{n}_{part}": str(getattr(step, part))
                    for n, step in enumerate(steps, 1)
                    for part in STEP_PARTS
                },
            },
            label=f"{attacker.name} attacks {target.name}"
            + (f" with {weapon.name}" if weapon else "")
            + (f" ({'; '.join(words)})" if words else ""),
            details={
                "weapon": weapon,
                "weapon_name": weapon_name,
                "p_draw": chance.p_draw,
                "p_attacker_dilemma": chance.p_attacker_dilemma,
                "p_defender_dilemma": chance.p_defender_dilemma,
                "exact": chance.exact,
                "percent": float(chance.p_attacker_wins) * 100,
                "attacker_dice": _dice_of(opposed.attacker),
                "defender_dice": _dice_of(opposed.defender),
                "situational": steps,
                "sides": [
                    {
                        "name": fighter.name,
                        "specialization": specialization,
                        "roll": roll.value,
                        "traits": _traits(fighter),
                        "assist": assist,
                        "dice": _side_dice(
                            fighter,
                            pool,
                            third,
                            side,
                            specialization,
                            assist,
                            steps,
                            combat_skill_name(options),
                            recovery_steps(fighter.sheet, options),
                        ),
                    }
                    for fighter, side, specialization, roll, assist, pool, third in (
                        (
                            attacker,
                            "attacker",
                            attacking,
                            rolls["attacker_roll"],
                            assists["attacker"],
                            opposed.attacker,
                            ("Accuracy", "weapon", opposed.attacker.others[1].label),
                        ),
                        (
                            target,
                            "defender",
                            defending,
                            rolls["defender_roll"],
                            assists["defender"],
                            opposed.defender,
                            ("Armor", "defensive die", opposed.defender.others[1].label),
                        ),
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
            outcome={
                "hit": rolled.hit,
                "margin": rolled.margin,
                "defender_total": rolled.defender.total,
                "dilemma": rolled.attacker.dilemma or rolled.defender.dilemma,
                "attacker_dilemma": rolled.attacker.dilemma,
                "defender_dilemma": rolled.defender.dilemma,
            },
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

    def _harmed(
        self,
        fighter: Combatant,
        change: HitPointChange,
        state: Mapping[str, Any],
        words: str,
        options: Mapping[str, Any],
    ) -> Harm:
        """The change on the sheet (a character: :func:`~rules.systems.lucky13.recovery.settle` marks one
        healed from dying as recovering, under gritty recovery) or on the stat block (an NPC)."""
        if fighter.sheet is not None:
            sheet = settle(fighter.sheet, fighter.sheet.model_copy(update={"hit_points": change.after}), options)
            block = fighter.block
        else:
            sheet, block = None, fighter.block.model_copy(update={"hit_points": change.after})
        return Harm(fighter.key, block, sheet, state, change_view(change), words, sections=(HIT_POINTS_SECTION,))

    def harm(self, fighter: Combatant, amount: int, options: Mapping[str, Any]) -> Harm:
        """ "Hit points": damage empties slots and the current Pulse steps down, healing fills them; a new
        wound reopens a stabilized combatant's bleeding, and the healed need no care."""
        change = change_hit_points(hit_points(fighter), amount, base_pulse(fighter), _per_step(options))
        state = dict(fighter.state)
        if amount < 0 or change.condition is not Condition.DYING:
            state.pop("stabilized", None)
        words = f"{abs(amount)} {'healing' if amount > 0 else 'damage'}"
        return self._harmed(fighter, change, state, words, options)

    def why_not(self, action: str, fighter: Combatant, options: Mapping[str, Any]) -> str:
        if action not in ("minute", "stabilize"):
            return f"There is no action {action!r}."
        if not _is_dying(fighter):
            return f"{fighter.name} is not dying."
        if fighter.state.get("stabilized"):
            return f"{fighter.name} is already stabilized."
        return ""

    def act(self, action: str, fighter: Combatant, options: Mapping[str, Any]) -> Harm | None:
        """ "Death & dying": a minute passing costs a dying combatant who is not stabilized 1 hit point;
        stabilizing stops that until they are wounded again."""
        if self.why_not(action, fighter, options):
            return None
        if action == "minute":
            harmed = self.harm(fighter, -1, options)
            return replace(harmed, words="a minute passes while dying")
        hp, base = hit_points(fighter), base_pulse(fighter)
        still = HitPointChange(hp, hp, StepDie.none(), StepDie.none(), condition(hp, base))
        return self._harmed(fighter, still, {**fighter.state, "stabilized": True}, "stabilized", options)


COMBAT: Final = Lucky13Combat()

__all__ = [
    "ABILITY_ROLL_CHOICES",
    "COMBAT",
    "HELP_WITH",
    "LIKE_THE_WEAPON",
    "MAX_SITUATIONAL",
    "MAX_SITUATIONAL_STEPS",
    "MAX_STEP_NAME",
    "SIDES",
    "STEPPED_DICE",
    "STEP_PARTS",
    "Assist",
    "Lucky13Combat",
    "SituationalStep",
    "StatBlock",
    "combat_skill",
    "combat_specializations",
    "side_modifiers",
    "situational_steps",
]
