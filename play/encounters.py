"""Encounters, for every system: the order, turns, rounds and the log; the system's combat
(``rules.systems.base.Combat``) supplies the stat blocks, initiative, attacks, damage and its own
moves (Lucky 13: stabilizing, a minute passing while dying).

Every function here is a keyword-only, atomic operation for the campaign's GM (and one, the attack,
for a player too, with their own character on its turn: :func:`may_attack`): lock the
campaign, then the encounter, check under the lock, write, and record every roll and every
change of vitals in the campaign's roll log (:func:`play.rolls.record_roll`).
Dice are rolled on the server with the ``rng`` the caller passes (views pass
``secrets.SystemRandom()``, tests a seeded ``random.Random``).
A character joins with the stat block its system makes from its sheet; a change of its vitals is a
change of its sheet, made through the one write path (:mod:`characters.write`).

A combatant may join a fight whose initiative is rolled (:func:`add_characters`, :func:`add_npcs`): it
rolls its initiative then, as the system rolls it, and takes the place that roll earns in the order as
it stands (the system's ``Combat.join``). The turn stays with whoever is acting: a newcomer placed
after them acts later in this round, one placed before them acts from the next round on.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from random import Random
from typing import Any, Final

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Max
from django.dispatch import Signal
from django.utils import timezone

from campaigns.models import Campaign, Membership
from campaigns.operations import ARCHIVED, Conflict, NotAllowed, NotFound, Refused, gm_of, locked
from characters import write
from characters.models import Character
from play.models import Combatant, Encounter, Roll, RollKind
from play.rolls import record_roll
from rules.systems.base import (
    AttackPlan,
    AttackRoll,
    Combat,
    CombatRefused,
    Fighter,
    Harm,
    Logged,
    SheetInvalid,
    SpecError,
    Vitals,
)

#: The most identical NPCs added at once, and in one encounter.
MAX_GROUP = 20
MAX_COMBATANTS = 60

#: The longest name of an NPC (a number is added to each of a group: "Goblin 12").
MAX_NPC_NAME: Final = 100

#: Sent with ``campaign_id`` after an operation that changed an encounter has committed; the live
#: dashboard (:mod:`play.live`) listens and pushes the new initiative order to its sockets.
encounter_changed = Signal()


def _announce(campaign_id: int) -> None:
    """Announce the change once the transaction commits: a rolled-back write announces nothing."""
    transaction.on_commit(lambda: encounter_changed.send(sender=Encounter, campaign_id=campaign_id))


def combat_of(campaign: Campaign) -> Combat:
    """The campaign's system's combat; a system without fights has no encounters."""
    combat = campaign.rules.combat
    if combat is None:
        raise Conflict(f"{campaign.rules.name} has no encounters.")
    return combat


def fighter(campaign: Campaign, combatant: Combatant) -> Fighter:
    """A combatant as its system sees it: its stat block, its character's sheet (read from the
    character loaded with it), its state in this fight."""
    character = combatant.character if combatant.character_id is not None else None
    return Fighter(
        key=combatant.pk,
        name=combatant.name,
        block=combat_of(campaign).read_block(combatant.block),
        sheet=character.document if character is not None else None,
        state=combatant.state or {},
        sheet_key=combatant.character_id,
    )


def vitals_of(campaign: Campaign, combatant: Combatant) -> Vitals:
    return combat_of(campaign).vitals(fighter(campaign, combatant), campaign.settings)


def encounter_in(campaign: Campaign, encounter_id: int, *, running: bool = True, lock: bool = True) -> Encounter:
    """The campaign's encounter ``encounter_id`` (locked, unless only read), still running unless
    ``running`` is false: NotFound for another's or none, Conflict once it has ended."""
    rows = Encounter.objects.select_for_update() if lock else Encounter.objects.all()
    encounter = rows.filter(pk=encounter_id, campaign=campaign).first()
    if encounter is None:
        raise NotFound("There is no such encounter.")
    if running and not encounter.running:
        raise Conflict("This encounter has ended.")
    return encounter


def _gm_encounter(campaign_id: int, encounter_id: int, by: AbstractBaseUser) -> tuple[Campaign, Encounter]:
    campaign = gm_of(campaign_id, by)
    return campaign, encounter_in(campaign, encounter_id)


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


def _log(
    campaign: Campaign,
    encounter: Encounter,
    by: AbstractBaseUser,
    logged: Logged,
    characters: Mapping[int, int | None],
    secret: bool = False,
    **outcome: Any,
) -> Roll:
    """Record a roll or a ruling of the system's combat in the roll log, in this encounter (``secret``:
    the GM's secret roll, shown to the players when revealed)."""
    return record_roll(
        campaign_id=campaign.pk,
        by=by,
        character_id=characters.get(logged.fighter) if logged.fighter is not None else None,
        kind=logged.kind,
        spec={"encounter": encounter.pk, **logged.spec},
        dice=list(logged.dice) if isinstance(logged.dice, tuple) else logged.dice,
        total=logged.total,
        outcome={**logged.outcome, **outcome},
        chance=logged.chance,
        chance_of=logged.chance_of,
        secret=secret,
        label=logged.label,
    )


# --- Setting up ------------------------------------------------------------------------------------


def _last_seq(campaign: Campaign) -> int:
    """The campaign's last roll number (0 before the first); the campaign is locked, so it holds."""
    return Roll.objects.filter(campaign=campaign).order_by("-seq").values_list("seq", flat=True).first() or 0


@transaction.atomic
def start_encounter(*, campaign_id: int, by: AbstractBaseUser, name: str) -> Encounter:
    """The GM starts an encounter; a campaign runs one at a time."""
    campaign = gm_of(campaign_id, by)
    combat_of(campaign)
    name = " ".join(name.split())[:120]
    if not name:
        raise Refused("An encounter needs a name.", errors={"name": "An encounter needs a name."})
    if Encounter.objects.filter(campaign=campaign).running().exists():
        raise Conflict("An encounter is already running: end it before starting another.")
    encounter = Encounter.objects.create(campaign=campaign, name=name, created_by=by, log_after=_last_seq(campaign))
    _announce(campaign.pk)
    return encounter


def _check_room(encounter: Encounter, adding: int) -> None:
    if Combatant.objects.filter(encounter=encounter, removed=False).count() + adding > MAX_COMBATANTS:
        raise Refused(f"An encounter holds at most {MAX_COMBATANTS} combatants.")


#: Places are moved out of the way through this offset, above any place an encounter reaches, so that
#: no two combatants share a place at any statement (the order is unique within the encounter).
_PLACE_OFFSET: Final = 1_000_000


def _join(
    campaign: Campaign,
    encounter: Encounter,
    by: AbstractBaseUser,
    groups: Sequence[Sequence[Combatant]],
    rng: Random,
) -> None:
    """Newcomers to a fight whose initiative is rolled: each group (one character, or NPCs added
    together) rolls its initiative as the system rolls it, and each newcomer takes the place the system
    gives it in the order as it stands, which keeps its own order. Every roll is logged. Every place
    from the first newcomer's on moves down; the turn moves with the combatant who holds it."""
    combat = combat_of(campaign)
    standing = _in_order(encounter)
    joining = [c for group in groups for c in group]
    rolled = combat.join(
        [[fighter(campaign, c) for c in group] for group in groups],
        [(fighter(campaign, c), c.initiative or 0) for c in standing],
        campaign.settings,
        rng,
    )
    characters = {c.pk: c.character_id for c in (*standing, *joining)}
    for logged in rolled.logged:
        _log(campaign, encounter, by, logged, characters)
    # Every place, those who left the fight included: a newcomer goes just before the combatant still in
    # the fight that the system placed it before (last if none), and nobody else moves past anyone.
    everyone = list(
        Combatant.objects.filter(encounter=encounter, order__isnull=False).order_by("order").only("pk", "order")
    )
    new_keys = {c.pk for c in joining}
    places = [c.pk for c in everyone]
    for index, key in enumerate(rolled.order):
        if key not in new_keys:
            continue
        after = next((k for k in rolled.order[index + 1 :] if k not in new_keys), None)
        places.insert(places.index(after) if after is not None else len(places), key)
    old = {c.pk: c.order for c in everyone}
    acting = next((pk for pk, place in old.items() if place == encounter.turn), None)
    Combatant.objects.filter(encounter=encounter, order__isnull=False).update(order=F("order") + _PLACE_OFFSET)
    for place, key in enumerate(places):
        Combatant.objects.filter(pk=key).update(order=place)
    for combatant in joining:
        combatant.initiative, combatant.order = rolled.values[combatant.pk], places.index(combatant.pk)
        combatant.save(update_fields=["initiative"])
    if acting is not None:
        encounter.turn = places.index(acting)
        encounter.save(update_fields=["turn"])


@transaction.atomic
def add_characters(
    *,
    campaign_id: int,
    encounter_id: int,
    by: AbstractBaseUser,
    character_ids: Sequence[int],
    rng: Random | None = None,
) -> list[Combatant]:
    """Add the campaign's active characters, each with the stat block its system makes from its sheet.
    Once initiative is rolled, each rolls its own and joins the order (:func:`_join`; dice from ``rng``,
    the server's own by default)."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    combat = combat_of(campaign)
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
    added = [
        Combatant.objects.create(
            encounter=encounter,
            character=character,
            name=character.name,
            block=combat.joins(character.document, campaign.settings).model_dump(mode="json"),
        )
        for character in characters
    ]
    if encounter.initiative_rolled:
        _join(campaign, encounter, by, [[combatant] for combatant in added], rng or secrets.SystemRandom())
    _announce(campaign.pk)
    return added


@transaction.atomic
def add_npcs(
    *,
    campaign_id: int,
    encounter_id: int,
    by: AbstractBaseUser,
    name: str,
    stats: Mapping[str, str],
    count: int = 1,
    rng: Random | None = None,
) -> list[Combatant]:
    """Add ``count`` identical NPCs ("Goblin 1", "Goblin 2", …), one group for a shared initiative roll,
    with the stat block the system makes from the GM's form (``stats``, text values). Once initiative
    is rolled, the group rolls its one roll and joins the order (:func:`_join`)."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    combat = combat_of(campaign)
    name = " ".join(name.split())[:MAX_NPC_NAME]
    errors = {}
    if not name:
        errors["name"] = "An NPC needs a name."
    if not 1 <= count <= MAX_GROUP:
        errors["count"] = f"Add 1 to {MAX_GROUP} at once."
    block = None
    try:
        block = combat.npc(stats, campaign.settings).model_dump(mode="json")
    except SheetInvalid as error:
        errors.update((p.field.split(".")[0] or "stats", p.message) for p in error.problems)
    if errors or block is None:
        said = " ".join(message if message.endswith(".") else f"{message}." for message in errors.values())
        raise Refused(f"Check the stat block. {said}".strip(), errors=errors)
    _check_room(encounter, count)
    group = (Combatant.objects.filter(encounter=encounter).aggregate(last=Max("group"))["last"] or 0) + 1
    added = [
        Combatant.objects.create(
            encounter=encounter, name=name if count == 1 else f"{name} {i}", block=block, group=group
        )
        for i in range(1, count + 1)
    ]
    if encounter.initiative_rolled:
        _join(campaign, encounter, by, [added], rng or secrets.SystemRandom())
    _announce(campaign.pk)
    return added


# --- Initiative and turns --------------------------------------------------------------------------


@transaction.atomic
def roll_initiative(
    *, campaign_id: int, encounter_id: int, by: AbstractBaseUser, rng: Random, group_rolls: bool = True
) -> list[Combatant]:
    """Initiative, as the system rolls it, once per encounter (with ``group_rolls``, one roll for each
    group of identical NPCs). Each roll the system makes is recorded."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    if encounter.initiative_rolled:
        raise Conflict("Initiative is rolled once per encounter.")
    combatants = list(Combatant.objects.filter(encounter=encounter, removed=False).select_related("character"))
    combatants.sort(key=lambda c: c.pk)
    if not combatants:
        raise Conflict("Add combatants before rolling initiative.")
    groups: dict[Any, list[Fighter]] = {}
    for combatant in combatants:
        key = ("group", combatant.group) if group_rolls and combatant.group is not None else ("one", combatant.pk)
        groups.setdefault(key, []).append(fighter(campaign, combatant))
    rolled = combat_of(campaign).initiative(list(groups.values()), campaign.settings, rng)
    characters = {c.pk: c.character_id for c in combatants}
    for logged in rolled.logged:
        _log(campaign, encounter, by, logged, characters)
    by_pk = {c.pk: c for c in combatants}
    for place, key in enumerate(rolled.order):
        combatant = by_pk[key]
        combatant.initiative, combatant.order = rolled.values[key], place
        combatant.save(update_fields=["initiative", "order"])
    encounter.round, encounter.turn = 1, 0
    encounter.save(update_fields=["round", "turn"])
    _announce(campaign.pk)
    return [by_pk[key] for key in rolled.order]


def _in_order(encounter: Encounter) -> list[Combatant]:
    return list(
        Combatant.objects.filter(encounter=encounter, removed=False, order__isnull=False)
        .select_related("character")
        .order_by("order")
    )


@transaction.atomic
def next_turn(*, campaign_id: int, encounter_id: int, by: AbstractBaseUser) -> Encounter:
    """The next combatant in the initiative order acts, skipping those who cannot act (Lucky 13: the
    dying and the dead); after the last, a new round begins with the first."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    if not encounter.initiative_rolled:
        raise Conflict("Roll initiative first.")
    _not_waiting(encounter, gm=True)
    # Places in the order, not list positions: a removed combatant keeps its place, unused.
    able = [c.order for c in _in_order(encounter) if vitals_of(campaign, c).can_act]
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


def _vitals_outcome(vitals: Vitals) -> dict[str, Any]:
    """What the log keeps of a combatant's vitals: each track's value, and the condition."""
    return {**{track.key: track.value for track in vitals.tracks}, "condition": vitals.state}


@transaction.atomic
def remove_combatant(
    *, campaign_id: int, encounter_id: int, by: AbstractBaseUser, combatant_id: int, reason: str = ""
) -> Combatant:
    """A combatant leaves the fight (fled, captured, no longer in play): off the order and out of
    reach of attacks; the row stays, so the roll log's references still read. Recorded in the roll
    log, with the GM's reason if they gave one, and the vitals the combatant left with."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    combatant = combatant_in(encounter, combatant_id)
    combatant.removed = True
    combatant.save(update_fields=["removed"])
    if encounter.pending and combatant.pk in (encounter.pending["attacker"], encounter.pending["target"]):
        encounter.pending = None  # an attack by or on one who left waits for no one
        encounter.save(update_fields=["pending"])
    record_roll(
        campaign_id=campaign.pk,
        by=by,
        character_id=combatant.character_id,
        kind=RollKind.REMOVAL,
        spec={"encounter": encounter.pk, "combatant": combatant.name, "reason": " ".join(reason.split())[:200]},
        dice=[],
        total=None,
        outcome=_vitals_outcome(vitals_of(campaign, combatant)),
        chance=None,
        chance_of="the GM's ruling, not a roll",
        label=f"{combatant.name} leaves the fight",
    )
    _announce(encounter.campaign_id)
    return combatant


@transaction.atomic
def end_encounter(*, campaign_id: int, encounter_id: int, by: AbstractBaseUser) -> Encounter:
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    encounter.ended_at = timezone.now()
    encounter.log_until = _last_seq(campaign)
    encounter.pending = None
    encounter.save(update_fields=["ended_at", "log_until", "pending"])
    _announce(encounter.campaign_id)
    return encounter


# --- Vitals ----------------------------------------------------------------------------------------


def _apply(
    campaign: Campaign,
    encounter: Encounter,
    combatant: Combatant,
    change: Any,
    *,
    by: AbstractBaseUser,
    why: str | None,
) -> Harm:
    """Change a combatant's vitals where they live, with ``change(fighter) -> Harm`` (the system's):
    an NPC's on its stat block; a character's on its sheet, through the one write path (locked, read
    under the lock, validated, recorded in the sheet's history and announced; an open form of the
    sections it touches goes stale). ``why`` goes in the history (None: the system's own words for the
    change). The caller logs the change."""
    if combatant.character_id is None:
        harm: Harm = change(fighter(campaign, combatant))
        combatant.block = harm.block.model_dump(mode="json")
        combatant.state = dict(harm.state)
        combatant.save(update_fields=["block", "state"])
        return harm
    probe = change(fighter(campaign, combatant))
    if probe.sheet == combatant.character.document:
        # A change of the fight only (Lucky 13: stabilized), not of the sheet.
        combatant.state = dict(probe.state)
        combatant.save(update_fields=["state"])
        return probe
    harms: list[Harm] = []

    def edit(character: Character) -> Any:
        combatant.character = character
        harms.append(change(fighter(campaign, combatant)))
        return harms[-1].sheet

    what = _words(probe, probe.words if why is None else why, encounter)
    try:
        combatant.character = write.change(
            combatant.character_id, version=None, by=by, what=what, sections=probe.sections, edit=edit
        )
    except SheetInvalid as error:
        raise write.refusal(error) from None
    harm = harms[-1]
    combatant.state = dict(harm.state)
    combatant.save(update_fields=["state"])
    return harm


def _words(harm: Harm, why: str, encounter: Encounter) -> str:
    """What the sheet's history says of a change in a fight: "7 damage in Ambush: hit by Goblin"."""
    change = harm.change
    lead = f"{abs(change)} {'healing' if change > 0 else 'damage'}" if change else harm.words
    return f"{lead} in {encounter.name}" + (f": {why}" if why else "")


@dataclass(frozen=True, slots=True)
class AttackResult:
    """A rolled attack: its plan, the dice, the harm a hit did, and the rolls of the log it wrote (the
    attack, then the damage of a hit). ``roll`` is None for an attack that waits for its target's answer
    (:attr:`Encounter.pending`)."""

    plan: AttackPlan
    roll: AttackRoll | None
    harm: Harm | None
    rolls: tuple[Roll, ...] = ()

    @property
    def waiting(self) -> bool:
        return self.roll is None


def _choices(combat: Combat, choices: Mapping[str, str]) -> dict[str, str]:
    unknown = sorted(set(choices) - combat.attack_fields)
    if unknown:
        raise Refused(f"{unknown[0]} is not a choice of an attack.", errors={unknown[0]: "Not a choice of an attack."})
    return {key: str(value) for key, value in choices.items()}


def plan_attack(
    campaign: Campaign,
    attacker: Combatant,
    target: Combatant,
    choices: Mapping[str, str],
    others: Sequence[Combatant] = (),
) -> AttackPlan:
    """The attack and its exact chance, before anyone rolls (the page's preview and the roll alike);
    ``others`` are everyone in the fight, whom a choice may name (a combatant assisting a side)."""
    combat = combat_of(campaign)
    try:
        return combat.plan_attack(
            fighter(campaign, attacker),
            fighter(campaign, target),
            _choices(combat, choices),
            campaign.settings,
            [fighter(campaign, c) for c in others],
        )
    except SpecError as error:
        raise Refused(error.message, errors={error.field: error.message}) from None
    except CombatRefused as error:
        raise Conflict(error.message) from None


def may_attack(encounter: Encounter, attacker: Combatant, by: AbstractBaseUser, *, gm: bool, secret: bool) -> None:
    """Whether ``by`` may attack with ``attacker`` now: the GM with anyone at any time, in secret if they
    wish; a player only with their own character, in the open, when it is that character's turn in the
    initiative order (403 for another's combatant or a secret attack, 409 out of turn)."""
    if gm:
        return
    if secret:
        raise NotAllowed("Only the GM attacks in secret.")
    if attacker.character is None or attacker.character.owner_id != by.pk:
        raise NotAllowed(f"You attack with your own character only, not with {attacker.name}.")
    if not encounter.initiative_rolled or attacker.order != encounter.turn:
        raise Conflict(f"It is not {attacker.name}'s turn: wait until {attacker.name} acts.")


def plan_for(
    campaign: Campaign,
    encounter: Encounter,
    attacker: Combatant,
    target: Combatant,
    choices: Mapping[str, str],
    others: Sequence[Combatant],
    *,
    by: AbstractBaseUser,
    gm: bool,
    secret: bool = False,
) -> AttackPlan:
    """The attack ``by`` may make now, planned (:func:`may_attack`, :func:`plan_attack`): a player's may
    not call what is the GM's to call (the system's ``gm_attack_fields``), unless it is just what the
    attack takes without it (a form sends back the choices its chance was computed with)."""
    may_attack(encounter, attacker, by, gm=gm, secret=secret)
    plan = plan_attack(campaign, attacker, target, choices, others)
    calls = combat_of(campaign).gm_attack_fields
    if not gm and calls & set(choices):
        own = {key: value for key, value in choices.items() if key not in calls}
        if plan_attack(campaign, attacker, target, own, others).choices != plan.choices:
            raise NotAllowed("The situation, helpers and the target's side of an attack are the GM's to call.")
    return plan


def _member_encounter(campaign_id: int, encounter_id: int, by: AbstractBaseUser) -> tuple[Campaign, Encounter, bool]:
    """The campaign and its running encounter, locked, for one of its members (a 404 for anyone else),
    and whether they are its GM, checked under the lock."""
    campaign = locked(campaign_id)
    role = Membership.objects.filter(campaign=campaign, user_id=by.pk).values_list("role", flat=True).first()
    if role is None:
        raise NotFound("There is no such campaign.")
    if campaign.archived_at:
        raise Conflict(ARCHIVED)
    return campaign, encounter_in(campaign, encounter_id), role == Membership.Role.GM


@transaction.atomic
def attack(
    *,
    campaign_id: int,
    encounter_id: int,
    by: AbstractBaseUser,
    attacker_id: int,
    target_id: int,
    rng: Random,
    choices: Mapping[str, str] | None = None,
    secret: bool = False,
) -> AttackResult:
    """Roll an attack on the server, as the system has it: the exact chance first, then the dice; a
    hit harms the target. The attack and the damage are both recorded. ``choices`` are the system's
    (Lucky 13: a character's weapon, the Combat specializations that apply, a background or an
    impairment on either side, a combatant assisting either side and the situational steps: the GM
    judges which apply). A ``secret`` attack's rolls (the attack and its damage) are secret rolls of the
    log until the GM reveals them; what the damage does to the target shows at once. The GM attacks
    with anyone; a player with their own character on its turn (:func:`may_attack`)."""
    campaign, encounter, gm = _member_encounter(campaign_id, encounter_id, by)
    if not encounter.initiative_rolled:
        raise Conflict("Roll initiative first.")
    _not_waiting(encounter, gm=gm)
    attacker = combatant_in(encounter, attacker_id)
    may_attack(encounter, attacker, by, gm=gm, secret=secret)
    target = combatant_in(encounter, target_id)
    _lock_sheets(attacker, target)
    others = list(Combatant.objects.filter(encounter=encounter, removed=False).select_related("character"))
    plan = plan_for(campaign, encounter, attacker, target, choices or {}, others, by=by, gm=gm, secret=secret)
    if plan.defences:  # the defender's choice comes first (a secret attack's, the GM's alone)
        encounter.pending = {"attacker": attacker.pk, "target": target.pk, "choices": dict(plan.choices),
                             "by": by.pk, "secret": secret}  # fmt: skip
        encounter.save(update_fields=["pending"])
        _announce(campaign.pk)
        return AttackResult(plan, None, None)
    return _resolve(campaign, encounter, attacker, target, plan, by=by, rng=rng, secret=secret)


def _resolve(
    campaign: Campaign,
    encounter: Encounter,
    attacker: Combatant,
    target: Combatant,
    plan: AttackPlan,
    *,
    by: AbstractBaseUser,
    rng: Random,
    secret: bool,
) -> AttackResult:
    """Roll a planned attack (its sheets locked), log it, keep what it keeps on the sheets of those who took
    part, and harm the target of a hit."""
    rolled = combat_of(campaign).roll_attack(plan, campaign.settings, rng)
    characters = {attacker.pk: attacker.character_id, target.pk: target.character_id}
    recorded = [_log(campaign, encounter, by, rolled.logged, characters, secret=secret)]
    _keep(encounter, (attacker, target), rolled, recorded[0].seq, by=by)
    harm = None
    if rolled.damage and rolled.damage_logged is not None:
        combat = combat_of(campaign)
        why = f"hit by {attacker.name}"
        harm = _apply(
            campaign, encounter, target, lambda f: combat.harm(f, -rolled.damage, campaign.settings), by=by, why=why
        )
        recorded.append(_log(campaign, encounter, by, rolled.damage_logged, characters, secret=secret, **harm.outcome))
    _announce(campaign.pk)
    return AttackResult(plan, rolled, harm, tuple(recorded))


def _not_waiting(encounter: Encounter, *, gm: bool) -> None:
    """Refused (409) while an attack waits for its target's answer: nothing else happens in the fight first."""
    pending = encounter.pending
    if not pending:
        return
    if pending.get("secret") and not gm:
        raise Conflict("The GM is settling something in the fight: wait a moment.")
    names = dict(
        Combatant.objects.filter(encounter=encounter, pk__in=[pending["attacker"], pending["target"]]).values_list(
            "pk", "name"
        )
    )
    target = names.get(pending["target"], "the target")
    raise Conflict(
        f"{names.get(pending['attacker'], 'An attacker')}'s attack waits for {target}'s answer: answer it, or withdraw "
        "it, first."
    )


def decides(target: Combatant, user: AbstractBaseUser, *, gm: bool) -> bool:
    """Whether ``user`` chooses how ``target`` answers an attack: the GM always; a character's player for it."""
    return gm or (target.character is not None and target.character.owner_id == user.pk)


@transaction.atomic
def defend(*, campaign_id: int, encounter_id: int, by: AbstractBaseUser, answer: str, rng: Random) -> AttackResult:
    """The target's answer to the attack that waits for it (:attr:`Encounter.pending`), chosen by its player or
    the GM: one of the plan's ``defences`` (D6: a dodge, a parry, or none); then the attack is rolled as its
    attacker made it, from the sheets as they are now. 409 when no attack waits, 403 for anyone else, 400 for
    an answer not offered."""
    campaign, encounter, gm = _member_encounter(campaign_id, encounter_id, by)
    pending = encounter.pending
    if not pending or (pending.get("secret") and not gm):
        raise Conflict("No attack waits for an answer now.")
    attacker, target = combatant_in(encounter, pending["attacker"]), combatant_in(encounter, pending["target"])
    if not decides(target, by, gm=gm):
        raise NotAllowed(f"{target.name}'s player or the GM chooses how {target.name} answers the attack.")
    _lock_sheets(attacker, target)
    others = list(Combatant.objects.filter(encounter=encounter, removed=False).select_related("character"))
    waiting = plan_attack(campaign, attacker, target, pending["choices"], others)
    offered = {d.value for d in waiting.defences}
    if answer not in offered:
        message = "Choose one of the answers offered: " + ", ".join(d.label for d in waiting.defences) + "."
        raise Refused(message, errors={"answer": message})
    plan = plan_attack(campaign, attacker, target, {**pending["choices"], waiting.defence_field: answer}, others)
    attacking = get_user_model()._default_manager.get(pk=pending["by"])
    encounter.pending = None
    encounter.save(update_fields=["pending"])
    return _resolve(campaign, encounter, attacker, target, plan, by=attacking, rng=rng, secret=pending["secret"])


@transaction.atomic
def withdraw(*, campaign_id: int, encounter_id: int, by: AbstractBaseUser) -> None:
    """The attack that waits for its target's answer is withdrawn, by the GM or the one who made it: nothing
    was rolled."""
    campaign, encounter, gm = _member_encounter(campaign_id, encounter_id, by)
    pending = encounter.pending
    if not pending or (pending.get("secret") and not gm):
        raise Conflict("No attack waits for an answer now.")
    if not gm and pending["by"] != by.pk:
        raise NotAllowed("Only the GM or the one who made the attack withdraws it.")
    encounter.pending = None
    encounter.save(update_fields=["pending"])
    _announce(campaign.pk)


def _lock_sheets(*combatants: Combatant) -> None:
    """The characters of ``combatants`` locked for a write, in the order of their ids (the campaign is locked
    first), so that what an attack keeps on their sheets is made from the sheets as they are."""
    for character_id in sorted({c.character_id for c in combatants if c.character_id is not None}):
        character = write.lock(character_id)
        for combatant in combatants:
            if combatant.character_id == character_id:
                combatant.character = character


def _keep(
    encounter: Encounter, combatants: Sequence[Combatant], rolled: AttackRoll, seq: int, *, by: AbstractBaseUser
) -> None:
    """What the attack keeps on the sheets of those who took part (D6: the attack recorded in the attacker's
    round, a dodge in the target's), each through the write path with the attack's number in the log."""
    by_key = {c.pk: c for c in combatants}
    for key, kept in rolled.kept.items():
        combatant = by_key[key]
        if combatant.character is None:
            continue
        try:
            combatant.character = write.write(combatant.character, kept.sheet(seq), by=by, sections=kept.sections,
                                              what=f"{kept.words} in {encounter.name} (roll #{seq})")  # fmt: skip
        except SheetInvalid as error:
            raise write.refusal(error) from None


def _record_change(
    campaign: Campaign, encounter: Encounter, combatant: Combatant, by: AbstractBaseUser, harm: Harm, **spec: Any
) -> None:
    name, reason = combatant.name, spec["reason"]
    words = f"{name} is {reason}" if spec["amount"] == 0 else f"{combat_of(campaign).track_label} of {name}: {reason}"
    record_roll(
        campaign_id=campaign.pk,
        by=by,
        character_id=combatant.character_id,
        kind=RollKind.ADJUSTMENT,
        spec={"encounter": encounter.pk, "combatant": combatant.name, **spec},
        dice=[],
        total=harm.change,
        outcome=dict(harm.outcome),
        chance=None,
        chance_of="a change made by the GM",
        label=words,
    )


#: The largest change of vitals the GM makes at once.
MAX_ADJUSTMENT: Final = 1000


@transaction.atomic
def adjust(
    *, campaign_id: int, encounter_id: int, by: AbstractBaseUser, combatant_id: int, amount: int, reason: str
) -> Harm:
    """The GM heals (positive ``amount``) or harms (negative) a combatant, with a reason, logged."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    reason = " ".join(reason.split())[:200]
    errors = {}
    if not reason:
        errors["reason"] = "Say why, for the log."
    if amount == 0 or abs(amount) > MAX_ADJUSTMENT:
        errors["amount"] = f"A change from −{MAX_ADJUSTMENT} to {MAX_ADJUSTMENT}, not 0."
    if errors:
        raise Refused("Check the change.", errors=errors)
    combatant = combatant_in(encounter, combatant_id)
    combat = combat_of(campaign)
    harm = _apply(
        campaign, encounter, combatant, lambda f: combat.harm(f, amount, campaign.settings), by=by, why=reason
    )
    _record_change(campaign, encounter, combatant, by, harm, amount=amount, reason=reason)
    _announce(campaign.pk)
    return harm


@transaction.atomic
def act(
    *, campaign_id: int, encounter_id: int, by: AbstractBaseUser, action: str, combatant_id: int | None = None
) -> list[Combatant]:
    """One of the system's own moves (``Combat.actions``): on one combatant, or on everyone it applies
    to (Lucky 13: "A minute passes" bleeds every dying combatant who is not stabilized). Each change is
    logged. Returns the combatants it changed."""
    campaign, encounter = _gm_encounter(campaign_id, encounter_id, by)
    combat = combat_of(campaign)
    move = next((a for a in combat.actions if a.key == action), None)
    if move is None:
        raise Refused("There is no such move.", errors={"action": "Choose one of the moves on the page."})
    if move.per_fighter:
        if combatant_id is None:
            raise Refused("Choose who.", errors={"combatant": "Choose who."})
        targets = [combatant_in(encounter, combatant_id)]
        why_not = combat.why_not(action, fighter(campaign, targets[0]), campaign.settings)
        if why_not:
            raise Conflict(why_not)
    else:
        targets = list(
            Combatant.objects.filter(encounter=encounter, removed=False).select_related("character").order_by("pk")
        )
    changed = []
    for combatant in targets:
        if combat.why_not(action, fighter(campaign, combatant), campaign.settings):
            continue

        def change(f: Fighter) -> Harm:
            harm = combat.act(action, f, campaign.settings)
            if harm is None:
                raise Conflict(combat.why_not(action, f, campaign.settings))
            return harm

        harm = _apply(campaign, encounter, combatant, change, by=by, why=None)
        _record_change(campaign, encounter, combatant, by, harm, amount=harm.change, reason=harm.words)
        changed.append(combatant)
    _announce(campaign.pk)
    return changed
