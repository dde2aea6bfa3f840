"""Encounters and combat by the Lucky 13 rules ("Initiative", "Combat", "Hit points", "Death & dying").

Every function here is a keyword-only, atomic operation for the campaign's GM: lock the
campaign, then the encounter, check under the lock, write, and record every roll and every
change of hit points in the campaign's roll log (:func:`play.rolls.record_roll`).
Dice are rolled on the server with the ``rng`` the caller passes (views pass
``secrets.SystemRandom()``, tests a seeded ``random.Random``), in the campaign's explosion mode.
A character joins with the dice of its sheet document; a change of its hit points is a change
of its sheet, made through the one write path (:mod:`characters.write`).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Max
from django.dispatch import Signal
from django.utils import timezone

from campaigns.models import Campaign
from campaigns.operations import Conflict, NotFound, Refused, gm_of
from characters import write
from characters.models import Character
from play.models import Combatant, Encounter, Roll, RollKind
from play.rolls import record_roll
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.base import Role, SheetInvalid
from rules.systems.lucky13 import AbilityRoll, Explosion, Modifiers, Opposed, OpposedChance, Pool, SheetError
from web.presenters import opposed_roll_view, pool_view

#: Skills that count as the Combat skill ("Combat": "you will need a skill that can be used whenever
#: combat occurs"), by the names the skill presets give it.
COMBAT_SKILLS = ("combat", "fighting", "weaponry")

#: The most identical NPCs added at once, and in one encounter.
MAX_GROUP = 20
MAX_COMBATANTS = 60

#: The section of the sheet a change of hit points is an edit of (the system's ``edit_sections``).
HIT_POINTS_SECTION = "hit-points"


@dataclass(frozen=True, slots=True)
class SheetItem:
    """An item of a character's sheet (a weapon, a specialization) as the attack form names it: the
    character and the item's id. Ids are unique within a sheet, not across sheets, so an id alone
    could name another character's item."""

    character_id: int
    item_id: int

    def __str__(self) -> str:
        return f"{self.character_id}:{self.item_id}"


def rung(label: str | None) -> int:
    """A die label of a sheet as its rung (1 d4 … 5 d12); 0 for no die."""
    return StepDie.parse(label).rung if label else 0


#: Sent with ``campaign_id`` after an operation that changed an encounter has committed; the live
#: dashboard (:mod:`play.live`) listens and pushes the new initiative order to its sockets.
encounter_changed = Signal()


def _announce(campaign_id: int) -> None:
    """Announce the change once the transaction commits: a rolled-back write announces nothing."""
    transaction.on_commit(lambda: encounter_changed.send(sender=Encounter, campaign_id=campaign_id))


def explosion_of(campaign: Campaign) -> Explosion:
    return Explosion(campaign.settings["explosion"])


def per_step(campaign: Campaign) -> int:
    return int(campaign.settings["hit_points_per_step"])


def _encounter(campaign: Campaign, encounter_id: int, *, running: bool = True) -> Encounter:
    encounter = Encounter.objects.select_for_update().filter(pk=encounter_id, campaign=campaign).first()
    if encounter is None:
        raise NotFound("There is no such encounter.")
    if running and not encounter.running:
        raise Conflict("This encounter has ended.")
    return encounter


def _gm_encounter(campaign_id: int, encounter_id: int, by: AbstractBaseUser) -> tuple[Campaign, Encounter]:
    campaign = gm_of(campaign_id, by)
    return campaign, _encounter(campaign, encounter_id)


def combatant_in(encounter: Encounter, combatant_id: int) -> Combatant:
    """A combatant still in the fight, with its character; NotFound otherwise."""
    combatant = (
        Combatant.objects.select_related("character")
        .filter(pk=combatant_id, encounter=encounter, removed=False)
        .first()
    )
    if combatant is None:
        raise NotFound("That combatant is not in this encounter.")
    return combatant


# --- Setting up ------------------------------------------------------------------------------------


def _last_seq(campaign: Campaign) -> int:
    """The campaign's last roll number (0 before the first); the campaign is locked, so it holds."""
    return Roll.objects.filter(campaign=campaign).order_by("-seq").values_list("seq", flat=True).first() or 0


@transaction.atomic
def start_encounter(*, campaign_id: int, by: AbstractBaseUser, name: str) -> Encounter:
    """The GM starts an encounter; a campaign runs one at a time."""
    campaign = gm_of(campaign_id, by)
    name = " ".join(name.split())[:120]
    if not name:
        raise Refused("An encounter needs a name.", errors={"name": "An encounter needs a name."})
    if Encounter.objects.filter(campaign=campaign).running().exists():
        raise Conflict("An encounter is already running: end it before starting another.")
    encounter = Encounter.objects.create(campaign=campaign, name=name, created_by=by, log_after=_last_seq(campaign))
    _announce(campaign.pk)
    return encounter


# The items of a sheet (skills, specializations, weapons) are the system's document models; the
# apps do not name a system's classes, so they are typed ``Any`` here.


def combat_skill(sheet: lucky13.Sheet) -> Any:
    """The character's Combat skill: the first of their skills (in sheet order) named as one."""
    return next((s for s in sheet.skills if s.name.strip().lower() in COMBAT_SKILLS), None)


def combat_specializations(characters: Iterable[Character]) -> dict[int, list[Any]]:
    """Each character's specializations under their Combat skill, by name, from their sheets (no
    query); a character without any is left out."""
    found = {}
    for character in characters:
        skill = combat_skill(character.document)
        if skill is not None and skill.specializations:
            found[character.pk] = sorted(skill.specializations, key=lambda s: (s.name, s.id))
    return found


def _check_room(encounter: Encounter, adding: int) -> None:
    if encounter.initiative_rolled:
        raise Conflict("Initiative is rolled once per encounter: add everyone before rolling it.")
    if Combatant.objects.filter(encounter=encounter, removed=False).count() + adding > MAX_COMBATANTS:
        raise Refused(f"An encounter holds at most {MAX_COMBATANTS} combatants.")


@transaction.atomic
def add_characters(
    *, campaign_id: int, encounter_id: int, by: AbstractBaseUser, character_ids: Sequence[int]
) -> list[Combatant]:
    """Add the campaign's active characters, with their Reflex, Combat skill, best weapon and armor."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    wanted = set(character_ids)
    if not wanted:
        raise Refused("Choose at least one character.", errors={"characters": "Choose at least one character."})
    characters = list(Character.objects.active().filter(campaign=campaign, pk__in=wanted).order_by("name", "pk"))
    if len(characters) != len(wanted):
        raise NotFound("One of those characters is not an active character of this campaign.")
    already = set(
        Combatant.objects.filter(encounter=encounter, character__in=characters).values_list("character_id", flat=True)
    )
    if already:
        raise Conflict("A character can join an encounter only once.")
    _check_room(encounter, len(characters))
    added = []
    for character in characters:
        sheet = character.document
        # The best weapon by its dice; of equal ones, the first on the sheet.
        weapon = max(sheet.weapons, key=lambda w: (rung(w.accuracy), rung(w.damage)), default=None)
        skill = combat_skill(sheet)
        added.append(
            Combatant.objects.create(
                encounter=encounter,
                character=character,
                name=character.name,
                reflex=rung(sheet.abilities.reflex),
                combat=rung(skill.die) if skill else 0,
                accuracy=rung(weapon.accuracy) if weapon else 0,
                damage=rung(weapon.damage) if weapon else 0,
                weapon=weapon.name if weapon else "",
                armor=max((rung(a.defense) for a in sheet.armor), default=0),
                pulse=rung(sheet.abilities.pulse),
            )
        )
    _announce(campaign.pk)
    return added


@dataclass(frozen=True, slots=True)
class StatBlock:
    """An NPC's quick stat block: dice as rungs (1 d4 … 5 d12; 0 no die where allowed)."""

    name: str
    reflex: int
    combat: int
    accuracy: int
    damage: int
    armor: int
    pulse: int
    #: Empty for full hit points (the Pulse die's maximum).
    hit_points: int | None = None


@transaction.atomic
def add_npcs(
    *, campaign_id: int, encounter_id: int, by: AbstractBaseUser, stats: StatBlock, count: int = 1
) -> list[Combatant]:
    """Add ``count`` identical NPCs ("Goblin 1", "Goblin 2", …), one group for a shared initiative roll."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    name = " ".join(stats.name.split())[:100]
    errors = {}
    if not name:
        errors["name"] = "An NPC needs a name."
    if not 1 <= count <= MAX_GROUP:
        errors["count"] = f"Add 1 to {MAX_GROUP} at once."
    for key in ("reflex", "pulse"):
        if not 1 <= getattr(stats, key) <= 5:
            errors[key] = "Choose a die from d4 to d12."
    for key in ("combat", "accuracy", "damage", "armor"):
        if not 0 <= getattr(stats, key) <= 5:
            errors[key] = "Choose no die or a die from d4 to d12."
    full = lucky13.max_hit_points(StepDie(stats.pulse), per_step(campaign)) if "pulse" not in errors else 0
    hit_points = full if stats.hit_points is None else stats.hit_points
    if "pulse" not in errors and not 1 <= hit_points <= full:
        errors["hit_points"] = f"From 1 to {full} with that Pulse."
    if errors:
        raise Refused("Check the stat block.", errors=errors)
    _check_room(encounter, count)
    _announce(campaign.pk)
    group = (Combatant.objects.filter(encounter=encounter).aggregate(last=Max("group"))["last"] or 0) + 1
    return [
        Combatant.objects.create(
            encounter=encounter,
            name=name if count == 1 else f"{name} {i}",
            reflex=stats.reflex,
            combat=stats.combat,
            accuracy=stats.accuracy,
            damage=stats.damage,
            armor=stats.armor,
            pulse=stats.pulse,
            hit_points=hit_points,
            group=group,
        )
        for i in range(1, count + 1)
    ]


# --- Initiative and turns --------------------------------------------------------------------------


@transaction.atomic
def roll_initiative(
    *, campaign_id: int, encounter_id: int, by: AbstractBaseUser, rng: Random, group_rolls: bool = True
) -> list[Combatant]:
    """ "Initiative": everyone rolls Reflex once for the encounter (with ``group_rolls``, one roll
    for each group of identical NPCs); highest first, ties by the higher Reflex, then a roll-off.
    Each roll, and each roll-off, is recorded."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    if encounter.initiative_rolled:
        raise Conflict("Initiative is rolled once per encounter.")
    combatants = list(Combatant.objects.filter(encounter=encounter, removed=False).order_by("pk"))
    if not combatants:
        raise Conflict("Add combatants before rolling initiative.")
    explosion = explosion_of(campaign)
    shared: dict[int, int] = {}
    for combatant in combatants:
        if group_rolls and combatant.group is not None and combatant.group in shared:
            combatant.initiative = shared[combatant.group]
            continue
        pool = Pool(combatant.die("reflex"))
        rolled = lucky13.roll_pool(pool, explosion, rng)
        combatant.initiative = rolled.total
        members = [c.name for c in combatants if group_rolls and c.group is not None and c.group == combatant.group]
        if combatant.group is not None and group_rolls:
            shared[combatant.group] = rolled.total
        record_roll(
            campaign_id=campaign.pk,
            by=by,
            character_id=combatant.character_id,
            kind=RollKind.INITIATIVE,
            spec={"encounter": encounter.pk, "reflex": pool.ability.label, "explosion": explosion.value,
                  "for": members or [combatant.name]},
            dice=pool_view(pool, rolled, ("Reflex",)),
            total=rolled.total,
            outcome={"combatants": members or [combatant.name]},
            chance=None,
            chance_of="initiative is an order, not a success",
            label=f"Initiative for {', '.join(members or [combatant.name])}",
        )  # fmt: skip
    order = lucky13.initiative_order([(c.pk, c.initiative, c.die("reflex")) for c in combatants], explosion, rng)
    by_pk = {c.pk: c for c in combatants}
    for place, entry in enumerate(order):
        combatant = by_pk[entry.key]
        combatant.order = place
        combatant.save(update_fields=["initiative", "order"])
        if entry.rolloffs:
            record_roll(
                campaign_id=campaign.pk,
                by=by,
                character_id=combatant.character_id,
                kind=RollKind.INITIATIVE,
                spec={"encounter": encounter.pk, "reflex": entry.reflex.label, "explosion": explosion.value,
                      "roll_off": True, "for": [combatant.name]},
                dice=[],
                total=entry.rolloffs[-1],
                outcome={"roll_offs": list(entry.rolloffs), "place": place + 1},
                chance=None,
                chance_of="a roll-off settles a tie",
                label=f"Initiative roll-off for {combatant.name}",
            )  # fmt: skip
    encounter.round, encounter.turn = 1, 0
    encounter.save(update_fields=["round", "turn"])
    _announce(campaign.pk)
    return [by_pk[e.key] for e in order]


def _in_order(encounter: Encounter) -> list[Combatant]:
    return list(
        Combatant.objects.filter(encounter=encounter, removed=False, order__isnull=False)
        .select_related("character")
        .order_by("order")
    )


@transaction.atomic
def next_turn(*, campaign_id: int, encounter_id: int, by: AbstractBaseUser) -> Encounter:
    """The next combatant in the initiative order acts, skipping the dying and the dead; after the
    last, a new round begins with the first."""
    _, encounter = _gm_encounter(campaign_id, encounter_id, by)
    if not encounter.initiative_rolled:
        raise Conflict("Roll initiative first.")
    # Places in the order, not list positions: a removed combatant keeps its place, unused.
    able = [c.order for c in _in_order(encounter) if condition_of(c) is lucky13.Condition.UP]
    if not able:
        raise Conflict("Nobody in the encounter can act.")
    later = [place for place in able if place > encounter.turn]
    if later:
        encounter.turn = later[0]
    else:
        encounter.turn, encounter.round = able[0], encounter.round + 1
    encounter.save(update_fields=["round", "turn"])
    _announce(encounter.campaign_id)
    return encounter


#: Which way the GM moves a combatant in the initiative order: up is earlier.
DIRECTIONS: Final = ("up", "down")


@transaction.atomic
def move_in_order(
    *, campaign_id: int, encounter_id: int, by: AbstractBaseUser, combatant_id: int, direction: str
) -> list[Combatant]:
    """The GM moves a combatant one place up or down the initiative order, past the next combatant still
    in the fight ("Initiative": "In the case of a tie, the GM may decide who is higher in the initiative
    order … The GM also has the discretion to make a ruling based on other factors"). The two swap
    places; the turn stays with the place, so whoever holds the acting place after the move acts now
    (breaking a tie for the first place before anyone acts makes the new first act). Recorded in the
    roll log as an initiative entry. Returns the order as it now stands."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    if direction not in DIRECTIONS:
        raise Refused("Move a combatant up or down.", errors={"direction": "Choose up or down."})
    if not encounter.initiative_rolled:
        raise Conflict("Roll initiative first: the order comes from it.")
    combatant = combatant_in(encounter, combatant_id)
    order = _in_order(encounter)
    index = next(i for i, c in enumerate(order) if c.pk == combatant.pk)
    other_index = index - 1 if direction == "up" else index + 1
    if not 0 <= other_index < len(order):
        raise Conflict(f"{combatant.name} is already {'first' if direction == 'up' else 'last'} in the order.")
    other = order[other_index]
    mine, theirs = combatant.order, other.order
    # One at a time through an empty place: the order is unique within the encounter at every statement.
    Combatant.objects.filter(pk=combatant.pk).update(order=None)
    Combatant.objects.filter(pk=other.pk).update(order=mine)
    Combatant.objects.filter(pk=combatant.pk).update(order=theirs)
    combatant.order, other.order = theirs, mine
    order[index], order[other_index] = other, combatant
    record_roll(
        campaign_id=campaign.pk,
        by=by,
        character_id=combatant.character_id,
        kind=RollKind.INITIATIVE,
        spec={"encounter": encounter.pk, "reorder": True, "combatant": combatant.name, "direction": direction,
              "for": [combatant.name]},
        dice=[],
        total=None,
        outcome={"passed": other.name, "tie": combatant.initiative == other.initiative,
                 "initiative": combatant.initiative, "passed_initiative": other.initiative,
                 "place": other_index + 1, "order": [c.name for c in order]},
        chance=None,
        chance_of="the GM's ruling on the order, not a roll",
        label=f"{combatant.name} moves {direction} the initiative order",
    )  # fmt: skip
    _announce(campaign.pk)
    return order


@transaction.atomic
def remove_combatant(
    *, campaign_id: int, encounter_id: int, by: AbstractBaseUser, combatant_id: int, reason: str = ""
) -> Combatant:
    """A combatant leaves the fight (fled, captured, no longer in play): off the order and out of
    reach of attacks; the row stays, so the roll log's references still read. Recorded in the roll
    log, with the GM's reason if they gave one, and the hit points the combatant left with."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    combatant = combatant_in(encounter, combatant_id)
    combatant.removed = True
    combatant.save(update_fields=["removed"])
    record_roll(
        campaign_id=campaign.pk,
        by=by,
        character_id=combatant.character_id,
        kind=RollKind.REMOVAL,
        spec={"encounter": encounter.pk, "combatant": combatant.name, "reason": " ".join(reason.split())[:200]},
        dice=[],
        total=None,
        outcome={"hit_points": combatant.current_hit_points, "condition": condition_of(combatant).value},
        chance=None,
        chance_of="the GM's ruling, not a roll",
        label=f"{combatant.name} leaves the fight",
    )  # fmt: skip
    _announce(encounter.campaign_id)
    return combatant


@transaction.atomic
def end_encounter(*, campaign_id: int, encounter_id: int, by: AbstractBaseUser) -> Encounter:
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    encounter.ended_at = timezone.now()
    encounter.log_until = _last_seq(campaign)
    encounter.save(update_fields=["ended_at", "log_until"])
    _announce(encounter.campaign_id)
    return encounter


# --- Hit points ------------------------------------------------------------------------------------


def condition_of(combatant: Combatant) -> lucky13.Condition:
    return lucky13.condition(combatant.current_hit_points, combatant.die("pulse"))


def _change(
    campaign: Campaign, encounter: Encounter, combatant: Combatant, amount: int, *, by: AbstractBaseUser, why: str = ""
) -> lucky13.HitPointChange:  # the caller records the change in the roll log
    """Change a combatant's hit points where they live: an NPC's on its row; a character's on its
    sheet, through the one write path (locked, read under the lock, validated, recorded in the
    sheet's history and announced; an open hit point form goes stale). ``why`` goes in the history."""
    per = per_step(campaign)
    if combatant.character_id is None:
        change = lucky13.change_hit_points(combatant.current_hit_points, amount, combatant.die("pulse"), per)
        combatant.hit_points = change.after
    else:
        changes: list[lucky13.HitPointChange] = []

        def edit(character: Character) -> Any:
            sheet = character.document
            changes.append(lucky13.change_hit_points(sheet.hit_points or 0, amount, combatant.die("pulse"), per))
            value = {"hit_points": changes[-1].after}
            return character.rules.edit(sheet, HIT_POINTS_SECTION, value, role=Role.GM, options=campaign.settings)

        what = f"{abs(amount)} {'healing' if amount > 0 else 'damage'} in {encounter.name}"
        try:
            combatant.character = write.change(
                combatant.character_id, version=None, by=by, what=f"{what}: {why}" if why else what,
                section=HIT_POINTS_SECTION, edit=edit,
            )  # fmt: skip
        except SheetInvalid as error:
            raise write.refusal(error) from None
        change = changes[-1]
    if amount < 0 or change.condition is not lucky13.Condition.DYING:
        combatant.stabilized = False  # a new wound reopens the bleeding; the healed need no care
    combatant.save(update_fields=["stabilized"] if combatant.character_id else ["hit_points", "stabilized"])
    return change


def change_view(change: lucky13.HitPointChange) -> dict[str, Any]:
    return {
        "before": change.before,
        "after": change.after,
        "pulse_before": change.pulse_before.label,
        "pulse_after": change.pulse_after.label,
        "condition": change.condition.value,
    }


@dataclass(frozen=True, slots=True)
class AttackResult:
    roll: lucky13.OpposedRoll
    chance: OpposedChance
    change: lucky13.HitPointChange | None


def weapon_for(attacker: Combatant, choice: SheetItem | None) -> Any:
    """One of a character attacker's weapons, from their sheet (None: the dice the combatant joined with)."""
    if choice is None:
        return None
    weapon = None
    if attacker.character_id is not None and choice.character_id == attacker.character_id:
        weapon = next((w for w in attacker.character.document.weapons if w.id == choice.item_id), None)
    if weapon is None:
        raise Refused(f"That weapon is not one of {attacker.name}'s.", errors={"weapon": "Choose their own weapon."})
    return weapon


#: The attacker's specialization choice that means "their Combat specialization named like the
#: weapon they attack with, if they have one" (the default on the attack form).
LIKE_THE_WEAPON: Final = "like-the-weapon"


def _same_name(a: str, b: str) -> bool:
    return " ".join(a.split()).casefold() == " ".join(b.split()).casefold()


def specialization_for(
    combatant: Combatant, choice: SheetItem | str | None, weapon: Any = None, *, side: str = "attacker"
) -> Any:
    """The Combat specialization that applies to ``combatant``'s side of an attack ("Specializations",
    "Modifiers"): none, the one chosen (an item of their own sheet), or with :data:`LIKE_THE_WEAPON` the
    one named like the weapon (the chosen one, or the one the combatant joined with), if any."""
    if choice is None:
        return None
    if combatant.character_id is None:
        if choice == LIKE_THE_WEAPON:
            return None
        raise Refused(
            f"{combatant.name} has no specializations: only characters do.",
            errors={f"{side}_specialization": "Choose none."},
        )
    theirs = combat_specializations([combatant.character]).get(combatant.character_id, [])
    if choice == LIKE_THE_WEAPON:
        name = weapon.name if weapon else combatant.weapon
        return next((s for s in theirs if name and _same_name(s.name, name)), None)
    chosen = None
    if isinstance(choice, SheetItem) and choice.character_id == combatant.character_id:
        chosen = next((s for s in theirs if s.id == choice.item_id), None)
    if chosen is None:
        raise Refused(
            f"That specialization is not one of {combatant.name}'s Combat specializations.",
            errors={f"{side}_specialization": "Choose one of their own, or none."},
        )
    return chosen


def opposed_for(
    campaign: Campaign,
    attacker: Combatant,
    target: Combatant,
    weapon: Any = None,
    *,
    attacker_specialization: Any = None,
    defender_specialization: Any = None,
    attacker_roll: AbilityRoll = AbilityRoll.NORMAL,
    defender_roll: AbilityRoll = AbilityRoll.NORMAL,
) -> Opposed:
    """ "Combat": Reflex + Combat + weapon Accuracy against Reflex + Combat + the Defensive die, a Combat
    specialization stepping its side's Combat die up by its level, and a background or an impairment
    rolling its side's Reflex twice, the higher or the lower kept (``lucky13.combat_pool``)."""
    accuracy = StepDie.parse(weapon.accuracy) if weapon else attacker.die("accuracy")

    def level(specialization: Any) -> Modifiers:
        return Modifiers(specialization_level=specialization.level if specialization else 0)

    try:
        return Opposed(
            attacker=lucky13.combat_pool(
                attacker.die("reflex"),
                attacker.die("combat"),
                accuracy,
                level(attacker_specialization),
                ability_roll=attacker_roll,
            ),
            defender=lucky13.combat_pool(
                target.die("reflex"),
                target.die("combat"),
                target.die("armor"),
                level(defender_specialization),
                ability_roll=defender_roll,
            ),
            weapon=StepDie.parse(weapon.damage) if weapon else attacker.die("damage"),
            explosion=explosion_of(campaign),
        )
    except SheetError as error:
        raise Refused(f"This attack can't be rolled: {error.message}.") from None


def attack_chance(
    campaign: Campaign,
    attacker: Combatant,
    target: Combatant,
    weapon: Any = None,
    **modifiers: Any,
) -> OpposedChance:
    """The exact chance of :func:`opposed_for`, with the same modifiers."""
    return lucky13.opposed_chance(opposed_for(campaign, attacker, target, weapon, **modifiers))


def specialization_view(specialization: Any) -> dict[str, Any] | None:
    """A specialization as an attack's spec records it (its id is the item's on its owner's sheet)."""
    if specialization is None:
        return None
    return {"id": specialization.id, "name": specialization.name, "level": specialization.level}


@transaction.atomic
def attack(
    *,
    campaign_id: int,
    encounter_id: int,
    by: AbstractBaseUser,
    attacker_id: int,
    target_id: int,
    rng: Random,
    weapon: SheetItem | None = None,
    attacker_specialization: SheetItem | str | None = LIKE_THE_WEAPON,
    defender_specialization: SheetItem | None = None,
    attacker_roll: AbilityRoll = AbilityRoll.NORMAL,
    defender_roll: AbilityRoll = AbilityRoll.NORMAL,
) -> AttackResult:
    """Roll an attack on the server: the exact chance first, then both sides; a draw fails; a hit deals
    the damage die + the margin to the target. The attack and the damage are both recorded. A character
    may use any of their weapons (``weapon``, an item of their sheet); otherwise the dice the combatant
    joined with. Each side may have one of its Combat specializations apply (an item of its sheet; None
    for none); the attacker's defaults to
    the one named like the weapon (:func:`specialization_for`). Each side may have a background apply, or
    an impairment (``attacker_roll``, ``defender_roll``): the GM judges which apply, as the rule text has
    it ("Backgrounds": "creative adjudication on the GM's part")."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    if not encounter.initiative_rolled:
        raise Conflict("Roll initiative first.")
    attacker = combatant_in(encounter, attacker_id)
    target = combatant_in(encounter, target_id)
    if attacker.pk == target.pk:
        raise Refused("A combatant cannot attack itself.", errors={"target": "Choose someone else."})
    weapon = weapon_for(attacker, weapon)
    if condition_of(attacker) is not lucky13.Condition.UP:
        raise Conflict(f"{attacker.name} is in no state to attack.")
    if condition_of(target) is lucky13.Condition.DEAD:
        raise Conflict(f"{target.name} is already dead.")
    attacking = specialization_for(attacker, attacker_specialization, weapon)
    defending = specialization_for(target, defender_specialization, side="defender")
    opposed = opposed_for(
        campaign,
        attacker,
        target,
        weapon,
        attacker_specialization=attacking,
        defender_specialization=defending,
        attacker_roll=attacker_roll,
        defender_roll=defender_roll,
    )
    chance = lucky13.opposed_chance(opposed)
    rolled = lucky13.roll_opposed(opposed, rng)
    record_roll(
        campaign_id=campaign.pk,
        by=by,
        character_id=attacker.character_id,
        kind=RollKind.ATTACK,
        spec={"encounter": encounter.pk, "attacker": attacker.name, "target": target.name,
              "attacker_dice": [d.label for d in opposed.attacker.dice],
              "defender_dice": [d.label for d in opposed.defender.dice],
              "weapon": weapon.name if weapon else None,
              "weapon_die": opposed.weapon.label, "explosion": opposed.explosion.value,
              "attacker_specialization": specialization_view(attacking),
              "defender_specialization": specialization_view(defending),
              "attacker_roll": opposed.attacker.ability_roll.value,
              "defender_roll": opposed.defender.ability_roll.value},
        dice=opposed_roll_view(rolled),
        total=rolled.attacker.total,
        outcome={"hit": rolled.hit, "margin": rolled.margin, "defender_total": rolled.defender.total},
        chance=chance.p_attacker_wins,
        chance_of="hit",
        label=f"{attacker.name} attacks {target.name}" + (f" with {weapon.name}" if weapon else ""),
    )  # fmt: skip
    change = None
    if rolled.hit:
        change = _change(campaign, encounter, target, -rolled.damage, by=by, why=f"hit by {attacker.name}")
        record_roll(
            campaign_id=campaign.pk,
            by=by,
            character_id=target.character_id,
            kind=RollKind.DAMAGE,
            spec={"encounter": encounter.pk, "attacker": attacker.name, "target": target.name,
                  "weapon_die": opposed.weapon.label, "margin": rolled.margin},
            dice=opposed_roll_view(rolled)["damage_dice"],
            total=rolled.damage,
            outcome=change_view(change),
            chance=None,
            chance_of="damage is applied, not tested",
            label=f"Damage to {target.name}",
        )  # fmt: skip
    _announce(campaign.pk)
    return AttackResult(rolled, chance, change)


@transaction.atomic
def adjust_hit_points(
    *, campaign_id: int, encounter_id: int, by: AbstractBaseUser, combatant_id: int, amount: int, reason: str
) -> lucky13.HitPointChange:
    """The GM heals (positive ``amount``) or harms (negative) a combatant, with a reason, logged."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    reason = " ".join(reason.split())[:200]
    errors = {}
    if not reason:
        errors["reason"] = "Say why, for the log."
    if amount == 0 or abs(amount) > 1000:
        errors["amount"] = "A change from −1000 to 1000, not 0."
    if errors:
        raise Refused("Check the change.", errors=errors)
    combatant = combatant_in(encounter, combatant_id)
    change = _change(campaign, encounter, combatant, amount, by=by, why=reason)
    _record_change(campaign, encounter, combatant, by, change, amount=amount, reason=reason)
    _announce(campaign.pk)
    return change


def _record_change(
    campaign: Campaign,
    encounter: Encounter,
    combatant: Combatant,
    by: AbstractBaseUser,
    change: lucky13.HitPointChange,
    **spec: Any,
) -> None:
    name, reason = combatant.name, spec["reason"]
    words = f"{name} is {reason}" if spec["amount"] == 0 else f"Hit points of {name}: {reason}"
    record_roll(
        campaign_id=campaign.pk,
        by=by,
        character_id=combatant.character_id,
        kind=RollKind.ADJUSTMENT,
        spec={"encounter": encounter.pk, "combatant": combatant.name, **spec},
        dice=[],
        total=change.after - change.before,
        outcome=change_view(change),
        chance=None,
        chance_of="a change made by the GM",
        label=words,
    )


@transaction.atomic
def minute_passes(*, campaign_id: int, encounter_id: int, by: AbstractBaseUser) -> list[Combatant]:
    """ "Death & dying": every dying combatant who is not stabilized loses 1 hit point. Returns them."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    bleeding = []
    for combatant in Combatant.objects.filter(encounter=encounter, removed=False).select_related("character"):
        if combatant.stabilized or condition_of(combatant) is not lucky13.Condition.DYING:
            continue
        change = _change(campaign, encounter, combatant, -1, by=by, why="a minute passes while dying")
        _record_change(campaign, encounter, combatant, by, change, amount=-1, reason="a minute passes while dying")
        bleeding.append(combatant)
    _announce(campaign.pk)
    return bleeding


@transaction.atomic
def stabilize(*, campaign_id: int, encounter_id: int, by: AbstractBaseUser, combatant_id: int) -> Combatant:
    """A dying combatant is stabilized: no more hit points lost by the minute until wounded again."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    combatant = combatant_in(encounter, combatant_id)
    if condition_of(combatant) is not lucky13.Condition.DYING:
        raise Conflict(f"{combatant.name} is not dying.")
    if combatant.stabilized:
        raise Conflict(f"{combatant.name} is already stabilized.")
    combatant.stabilized = True
    combatant.save(update_fields=["stabilized"])
    hp = combatant.current_hit_points
    change = lucky13.HitPointChange(hp, hp, StepDie.none(), StepDie.none(), lucky13.Condition.DYING)
    _record_change(campaign, encounter, combatant, by, change, amount=0, reason="stabilized")
    _announce(campaign.pk)
    return combatant
