"""Adventure Points: what they buy, at what cost, and how each purchase changes the odds
("Skill advancement / Adventure Points")."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from fractions import Fraction
from typing import Any, Final, TypeGuard

from rules.dice import StepDie
from rules.systems.base import SpecError
from rules.systems.lucky13.checks import Check, Explosion, check_chance
from rules.systems.lucky13.modifiers import effective_skill_die
from rules.systems.lucky13.sheet import Sheet, Skill, Specialization
from rules.systems.lucky13.vocabulary import (
    ABILITY_KEYS,
    MAX_ABILITY,
    MAX_SPECIALIZATION_LEVEL,
    SheetError,
    check_level,
    clean_name,
)

SPECIALIZATION_COST: Final = 4


def ability_raise_cost(current: StepDie) -> int:
    """ "Skill advancement": raising an ability costs its current die size × 4; d12 is the top."""
    if not StepDie.of(4) <= current < MAX_ABILITY:
        raise ValueError(f"{current} cannot be raised (abilities run d4 … d12)")
    return current.sides[0] * 4


class PurchaseKind(StrEnum):
    """What Adventure Points buy ("Skill advancement / Adventure Points")."""

    SPECIALIZATION = "specialization"  # a new specialization under a skill, at level 1
    LEVEL = "level"  # one more level of a specialization
    ABILITY = "ability"  # the next larger ability die


@dataclass(frozen=True, slots=True)
class Purchase:
    """One thing bought with Adventure Points: what changes, from what to what, and its cost.

    ``before``/``after`` are the specialization level (0 for a new one) or the ability's rung.
    """

    kind: PurchaseKind
    cost: int
    before: int
    after: int
    skill: str = ""
    name: str = ""
    ability: str = ""


def buy_specialization(skill: str, name: Any, taken: Sequence[str]) -> Purchase:
    """ "Adding a new Specialization … costs 4 Adventure Points"; it starts at level 1.

    ``taken`` are the names the skill's specializations already have (one of a name per skill).
    """
    name = clean_name(name, "A specialization")
    if name.casefold() in {other.casefold() for other in taken}:
        raise SheetError("name", f"{skill} already has a specialization called {name}")
    return Purchase(PurchaseKind.SPECIALIZATION, SPECIALIZATION_COST, 0, 1, skill=skill, name=name)


def buy_level(skill: str, name: str, level: int) -> Purchase:
    """ "… or increasing a Specialization Level costs 4 Adventure Points"; levels run 1 … 5."""
    check_level(level, "specialization level")
    if level >= MAX_SPECIALIZATION_LEVEL:
        raise SheetError("level", f"{name} is at level {MAX_SPECIALIZATION_LEVEL}, the highest")
    return Purchase(PurchaseKind.LEVEL, SPECIALIZATION_COST, level, level + 1, skill=skill, name=name)


def buy_ability(key: str, current: StepDie) -> Purchase:
    """ "Increasing an Ability costs the current Ability Die type x4": d4→d6 16 … d10→d12 40."""
    if key not in ABILITY_KEYS:
        raise SheetError("ability", f"{key!r} is not an ability")
    if current >= MAX_ABILITY:
        raise SheetError("ability", f"abilities stop at {MAX_ABILITY}")
    try:
        cost = ability_raise_cost(current)
    except ValueError as error:
        raise SheetError("ability", str(error)) from None
    return Purchase(PurchaseKind.ABILITY, cost, current.rung, current.rung + 1, ability=key)


@dataclass(frozen=True, slots=True)
class SheetSkill:
    """A skill as advancement sees it: its die, linked ability key (or ""), and specializations by level."""

    name: str
    ability: str
    die: StepDie
    specializations: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class Effect:
    """How a purchase changes one check: its exact chance of success before and after."""

    skill: str
    specialization: str  # "" for the plain skill check
    before: Fraction
    after: Fraction

    @property
    def gain(self) -> Fraction:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Suggestion:
    """A purchase the character can make, with the checks it changes."""

    purchase: Purchase
    effects: tuple[Effect, ...]

    @property
    def best_gain(self) -> Fraction:
        return max((e.gain for e in self.effects), default=Fraction(0))


def _chance(ability: StepDie, skill: StepDie, difficulty: StepDie, explosion: Explosion) -> Fraction:
    return check_chance(Check(ability=ability, skill=skill, difficulty=difficulty, explosion=explosion)).p_success


def suggestions(
    abilities: Mapping[str, StepDie],
    skills: Sequence[SheetSkill],
    *,
    difficulty: StepDie,
    explosion: Explosion = Explosion.CINEMATIC,
) -> list[Suggestion]:
    """Every purchase the sheet allows, each with how it changes the exact chance of the checks
    it touches at ``difficulty`` (rolled with the skill's linked ability, no other modifier):

    - a new specialization under a skill: the skill's check, now with a level-1 specialization;
    - one more level of a specialization: that specialization's check;
    - a larger ability die: every check of the skills linked to it, plain and specialized.

    A skill with no linked ability has no check to compare (the ability is chosen at each roll).
    """
    options: list[Suggestion] = []
    for skill in skills:
        ability = abilities.get(skill.ability)
        for name, level in skill.specializations:
            if level >= MAX_SPECIALIZATION_LEVEL:
                continue
            effects: tuple[Effect, ...] = ()
            if ability is not None:
                effects = (
                    Effect(
                        skill.name,
                        name,
                        _chance(ability, effective_skill_die(skill.die, level), difficulty, explosion),
                        _chance(ability, effective_skill_die(skill.die, level + 1), difficulty, explosion),
                    ),
                )
            options.append(Suggestion(buy_level(skill.name, name, level), effects))
    for skill in skills:
        ability = abilities.get(skill.ability)
        effects = ()
        if ability is not None:
            effects = (
                Effect(
                    skill.name,
                    "",
                    _chance(ability, skill.die, difficulty, explosion),
                    _chance(ability, effective_skill_die(skill.die, 1), difficulty, explosion),
                ),
            )
        purchase = Purchase(PurchaseKind.SPECIALIZATION, SPECIALIZATION_COST, 0, 1, skill=skill.name)
        options.append(Suggestion(purchase, effects))
    for key in ABILITY_KEYS:
        current = abilities.get(key)
        if current is None or current >= MAX_ABILITY:
            continue
        raised = current.step(1)
        effects = tuple(
            Effect(
                skill.name,
                name,
                _chance(current, effective_skill_die(skill.die, level), difficulty, explosion),
                _chance(raised, effective_skill_die(skill.die, level), difficulty, explosion),
            )
            for skill in skills
            if skill.ability == key
            for name, level in (("", 0), *skill.specializations)
        )
        options.append(Suggestion(buy_ability(key, current), effects))
    return options


# --- Offers on a sheet: what an offer key names, what the ledger keeps, taking a purchase back ----

#: The edit section (``Lucky13.edit_sections``) each kind of purchase changes.
SECTION_OF: Final = {
    PurchaseKind.SPECIALIZATION: "specializations",
    PurchaseKind.LEVEL: "specializations",
    PurchaseKind.ABILITY: "abilities",
}
#: The longest item id an offer key may name (the id columns' range).
_MAX_ID_DIGITS: Final = 16


@dataclass(frozen=True, slots=True)
class Target:
    """What an offer key names on a sheet as it stands, with the words it has now.

    ``before`` is what a buyer sees: the ability's rung (1 d4 … 5 d12), the specialization's
    level, 0 for a new specialization.
    """

    kind: PurchaseKind
    before: int
    ability: str = ""
    skill_id: int | None = None
    skill: str = ""
    specialization_id: int | None = None
    name: str = ""

    @property
    def key(self) -> str:
        """The offer key, written the one way the system writes it."""
        ref = {
            PurchaseKind.ABILITY: self.ability,
            PurchaseKind.LEVEL: self.specialization_id,
            PurchaseKind.SPECIALIZATION: self.skill_id,
        }[self.kind]
        return f"{self.kind.value}:{ref}"


def _item_id(text: str) -> int | None:
    return int(text) if text.isascii() and text.isdigit() and len(text) <= _MAX_ID_DIGITS else None


def target(sheet: Sheet, offer: Any) -> Target:
    """What the offer key ``offer`` names on the sheet: ``ability:<ability>`` (its next die),
    ``level:<specialization id>`` (one more level), ``specialization:<skill id>`` (a new one under
    the skill), whether or not it can be bought now; :class:`SpecError` (``offer``) when it names
    nothing on the sheet."""
    kind, _, ref = str(offer).partition(":")
    if kind == PurchaseKind.ABILITY:
        die = getattr(sheet.abilities, ref, None) if ref in ABILITY_KEYS else None
        if die is None:
            raise SpecError("offer", f"{ref!r} is not an ability of the sheet")
        return Target(PurchaseKind.ABILITY, StepDie.parse(die).rung, ability=ref)
    if kind == PurchaseKind.LEVEL:
        found = sheet.specialization(number) if (number := _item_id(ref)) is not None else None
        if found is None:
            raise SpecError("offer", f"the sheet has no such specialization (no purchase {offer!r})")
        skill, spec = found
        return Target(
            PurchaseKind.LEVEL, spec.level, skill_id=skill.id, skill=skill.name, specialization_id=spec.id,
            name=spec.name,
        )  # fmt: skip
    if kind == PurchaseKind.SPECIALIZATION:
        under = sheet.skill(number) if (number := _item_id(ref)) is not None else None
        if under is None:
            raise SpecError("offer", f"the sheet has no such skill (no purchase {offer!r})")
        return Target(PurchaseKind.SPECIALIZATION, 0, skill_id=under.id, skill=under.name)
    raise SpecError("offer", f"choose what to buy: a specialization, a level, or an ability (no purchase {offer!r})")


def title(aimed: Target, names: Mapping[str, str]) -> str:
    """What an offer buys, for "What should I buy?": "Teleport (Spellcasting) 2 → 3", "Will d6 → d8"
    (``names``: the campaign's names of the abilities, by key)."""
    if aimed.kind is PurchaseKind.ABILITY:
        return f"{names[aimed.ability]} {StepDie(aimed.before)} → {StepDie(aimed.before + 1)}"
    if aimed.kind is PurchaseKind.SPECIALIZATION:
        return f"A new specialization under {aimed.skill}"
    return f"{aimed.name} ({aimed.skill}) {aimed.before} → {aimed.before + 1}"


def now(aimed: Target, names: Mapping[str, str]) -> str:
    """What the sheet shows now of what an offer changes: "Will is d6 now", "Teleport is at level 3 now"."""
    if aimed.kind is PurchaseKind.ABILITY:
        return f"{names[aimed.ability]} is {StepDie(aimed.before)} now"
    return f"{aimed.name} is at level {aimed.before} now"


def note(sheet: Sheet, aimed: Target) -> str:
    """What an offer does that the checks it is compared on do not show: a larger ability die adds
    to every roll made with it, linked skill or not; a larger Pulse brings a new row of hit points
    ("Hit points"); a skill with no linked ability has no check to compare."""
    if aimed.kind is PurchaseKind.ABILITY:
        linked = any(skill.ability == aimed.ability and skill.die for skill in sheet.skills)
        if aimed.ability != "pulse":
            return "" if linked else "No skill is linked to this ability; it still adds to every roll made with it."
        if linked:
            return "It also brings a new row of hit points."
        return (
            "No skill is linked to this ability; it still adds to every roll made with it, "
            "and brings a new row of hit points."
        )
    skill = sheet.skill(aimed.skill_id) if aimed.skill_id is not None else None
    if skill is not None and not (skill.ability and getattr(sheet.abilities, skill.ability, None)):
        return "This skill has no linked ability, so there is no check to compare."
    return ""


def record(aimed: Target, cost: int, before: Sheet, after: Sheet) -> dict[str, Any]:
    """What the ledger keeps of a purchase (JSON): the offer, the items by id with their words at
    the time, the level or rung before and after, and the cost."""
    kept: dict[str, Any] = {"offer": aimed.key, "kind": aimed.kind.value, "cost": cost, "before": aimed.before}
    if aimed.kind is PurchaseKind.ABILITY:
        rung = StepDie.parse(getattr(after.abilities, aimed.ability)).rung
        return {**kept, "ability": aimed.ability, "after": rung}
    # A level or a new specialization names its skill, which the purchase kept on the sheet.
    assert aimed.skill_id is not None
    skill, was = after.skill(aimed.skill_id), before.skill(aimed.skill_id)
    assert skill is not None
    assert was is not None
    had = {p.id for p in was.specializations}
    if aimed.kind is PurchaseKind.LEVEL:
        spec = next(p for p in skill.specializations if p.id == aimed.specialization_id)
    else:
        spec = next(p for p in skill.specializations if p.id not in had)
    return {**kept, "after": spec.level, "skill_id": skill.id, "skill": skill.name,
            "specialization_id": spec.id, "name": spec.name}  # fmt: skip


def describe(bought: Mapping[str, Any], names: Mapping[str, str]) -> str:
    """What a purchase bought, for the ledger: "Teleport (Spellcasting) 2 → 3", "Will d6 → d8",
    "New specialization Shield wall (Fighting)"."""
    if bought["kind"] == PurchaseKind.ABILITY:
        ability = names.get(bought["ability"], bought["ability"])
        return f"{ability} {StepDie(bought['before'])} → {StepDie(bought['after'])}"
    if bought["kind"] == PurchaseKind.SPECIALIZATION:
        return f"New specialization {bought['name']} ({bought['skill']})"
    return f"{bought['name']} ({bought['skill']}) {bought['before']} → {bought['after']}"


def sections(bought: Mapping[str, Any]) -> tuple[str, ...]:
    """The edit sections a purchase (as the ledger keeps it) changes."""
    kind = bought.get("kind")
    return (SECTION_OF[PurchaseKind(kind)],) if kind in SECTION_OF else ()


def refund(sheet: Sheet, bought: Mapping[str, Any], *, hit_points_per_step: int) -> Sheet:
    """The sheet with a purchase (as the ledger keeps it) taken back, if the sheet still shows it
    as bought; :class:`SpecError` (``purchase``) otherwise. A smaller Pulse takes the row of hit
    points it brought with it.

    A specialization is found by its id; purchases recorded before the sheet was one document
    name it by its skill's and its own name instead, and are found by those.
    """
    kind = bought.get("kind")
    if kind == PurchaseKind.ABILITY:
        key, before, after = bought.get("ability"), bought.get("before"), bought.get("after")
        current = getattr(sheet.abilities, key, None) if key in ABILITY_KEYS else None
        if current is None or not isinstance(key, str) or not _whole(before) or StepDie.parse(current).rung != after:
            raise SpecError(
                "purchase", "the ability is no longer the die this purchase bought: correct the sheet first"
            )
        changes: dict[str, Any] = {"abilities": sheet.abilities.model_copy(update={key: StepDie(before).label})}
        if key == "pulse" and sheet.hit_points is not None:
            changes["hit_points"] = _without_the_row(sheet.hit_points, hit_points_per_step)
        return sheet.model_copy(update=changes)
    found = _bought_specialization(sheet, bought)
    if kind not in (PurchaseKind.LEVEL, PurchaseKind.SPECIALIZATION) or found is None:
        raise SpecError("purchase", "the specialization is no longer as this purchase left it: correct the sheet first")
    skill, spec = found
    if spec.level != bought.get("after"):
        raise SpecError("purchase", "the specialization is no longer as this purchase left it: correct the sheet first")
    if kind == PurchaseKind.SPECIALIZATION:
        specializations = tuple(p for p in skill.specializations if p.id != spec.id)
    else:
        lower = spec.model_copy(update={"level": bought["before"]})
        specializations = tuple(lower if p.id == spec.id else p for p in skill.specializations)
    skill = skill.model_copy(update={"specializations": specializations})
    return sheet.model_copy(update={"skills": tuple(skill if s.id == skill.id else s for s in sheet.skills)})


def _without_the_row(hit_points: int, per_step: int) -> int:
    """The hit points once a Pulse purchase is taken back: the row it added comes off, wounds or not
    (README, "Dying and dead characters": "reversing a Pulse purchase takes back the hit points it
    added"). Our reading: a correction of points never wounds a character down to dying or dead, so
    one that would is refused (:class:`SpecError`), and the GM changes the hit points first if that is
    what happened."""
    left = hit_points - per_step
    if left <= 0:
        raise SpecError(
            "purchase",
            f"taking this Pulse back takes the {per_step} hit points it added and would leave the character at "
            f"{left} hit points: correct the hit points first",
        )
    return left


def _whole(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)


def _bought_specialization(sheet: Sheet, bought: Mapping[str, Any]) -> tuple[Skill, Specialization] | None:
    spec_id = bought.get("specialization_id")
    if _whole(spec_id):
        return sheet.specialization(spec_id)
    skill = next((s for s in sheet.skills if s.name == bought.get("skill")), None)
    spec = next((p for p in skill.specializations if p.name == bought.get("name")), None) if skill else None
    return (skill, spec) if skill is not None and spec is not None else None
