"""The encounter page and the GM's actions in a fight.

Thin views: load through :mod:`campaigns.access` (a non-member gets a 404, a player
asking for a GM action a 403), parse the form, call :mod:`play.encounters`,
then redirect to the page (or, with htmx, render its ``encounter-body`` partial).
Every member reads the page; only the GM sees and may use the controls.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Mapping
from typing import Any, Final, cast

from django.db.models import Count
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from campaigns import access
from campaigns.models import Campaign, Membership
from campaigns.operations import NotFound, Refused
from campaigns.views import refusals
from characters.models import Character
from play import encounters
from play.encounters import SheetItem, StatBlock
from play.models import Combatant, Encounter, Roll, RollKind
from play.roll_views import roll_entry
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import AbilityRoll
from web.fields import whole_key

#: "Backgrounds", "Impairments": in a fight the Ability die is Reflex.
ABILITY_ROLL_CHOICES = [
    (AbilityRoll.NORMAL.value, "Neither"),
    (AbilityRoll.BACKGROUND.value, "A background: Reflex twice, keep the higher"),
    (AbilityRoll.IMPAIRMENT.value, "An impairment: Reflex twice, keep the lower"),
]


class BadInput(Refused):
    status = 400


def _whole(data: Mapping[str, Any], name: str, low: int, high: int, label: str | None = None) -> int:
    value = str(data.get(name, "")).strip()
    try:
        number = int(value)
    except ValueError:
        number = None
    if number is None or not low <= number <= high or len(value) > 12:
        raise BadInput(f"The {label or name} must be a whole number from {low} to {high}.")
    return number


def _is_gm(campaign: Campaign) -> bool:
    return campaign.viewer.role == Membership.Role.GM  # type: ignore[attr-defined]


def combatant_row(campaign: Campaign, combatant: Combatant, turn: bool) -> dict[str, Any]:
    """One row of the initiative order, as the encounter page and the live dashboard show it."""
    hp = combatant.current_hit_points
    base = combatant.die("pulse")
    return {
        "combatant": combatant,
        "hit_points": hp,
        "maximum": lucky13.max_hit_points(base, encounters.per_step(campaign)),
        "pulse": lucky13.current_pulse(hp, encounters.per_step(campaign)),
        "base_pulse": base,
        "condition": encounters.condition_of(combatant).value,
        "turn": turn,
        "dice": {k: StepDie(getattr(combatant, k)) for k in ("reflex", "combat", "accuracy", "damage", "armor")},
    }


def _preview(campaign: Campaign, rows: list[dict[str, Any]], query: Mapping[str, Any]) -> dict[str, Any] | None:
    """The exact chance to hit for ``?attacker=&target=``, computed before anyone rolls, with the
    specializations that apply resolved, so that the Roll form sends exactly what was shown."""
    if not query.get("attacker") or not query.get("target"):
        return None
    by_pk = {row["combatant"].pk: row["combatant"] for row in rows}
    attacker = by_pk.get(_whole(query, "attacker", 1, 10**12))
    target = by_pk.get(_whole(query, "target", 1, 10**12))
    if attacker is None or target is None:
        raise BadInput("Choose an attacker and a target from this encounter.")
    if attacker.pk == target.pk:
        raise BadInput("A combatant cannot attack itself.")
    weapon = encounters.weapon_for(attacker, _weapon(query))
    choices = _specialization_choices(query)
    rolls = _ability_rolls(query)
    attacking = encounters.specialization_for(attacker, choices["attacker_specialization"], weapon)
    defending = encounters.specialization_for(target, choices["defender_specialization"], side="defender")
    opposed = encounters.opposed_for(
        campaign,
        attacker,
        target,
        weapon,
        attacker_specialization=attacking,
        defender_specialization=defending,
        **rolls,
    )
    chance = lucky13.opposed_chance(opposed)
    traits = _traits([attacker, target])
    return {
        "attacker": attacker,
        "target": target,
        "weapon": weapon,
        "weapon_choice": str(SheetItem(attacker.character_id, weapon.id)) if weapon else "",
        # What the Roll form sends: exactly the specializations the chance was computed with.
        "attacker_specialization": _choice_of(attacker, attacking),
        "defender_specialization": _choice_of(target, defending),
        "sides": [
            {"name": combatant.name, "specialization": specialization, "roll": roll, "traits": traits[combatant.pk]}
            for combatant, specialization, roll in (
                (attacker, attacking, rolls["attacker_roll"]),
                (target, defending, rolls["defender_roll"]),
            )
        ],
        # As the GM left the form, to draw it again that way.
        "choices": {
            **{key: "none" if value is None else str(value) for key, value in choices.items()},
            **{key: roll.value for key, roll in rolls.items()},
        },
        "opposed": opposed,
        "chance": chance,
        "percent": float(chance.p_attacker_wins) * 100,
    }


def _choice_of(combatant: Combatant, specialization: Any) -> str:
    """A resolved specialization as the form sends it back: ``character:id``, or ``none``."""
    return "none" if specialization is None else str(SheetItem(combatant.character_id, specialization.id))


def _sheet_item(data: Mapping[str, Any], field: str, label: str) -> SheetItem:
    """An item of a character's sheet as a form names it: ``<character id>:<item id>``."""
    value = str(data.get(field, "")).strip()
    character, _, item = value.partition(":")
    if not (character.isascii() and character.isdigit() and item.isascii() and item.isdigit()) or len(value) > 25:
        raise BadInput(f"Choose a {label} from the list.")
    if not (1 <= int(character) <= 10**12 and 1 <= int(item) <= 10**12):
        raise BadInput(f"Choose a {label} from the list.")
    return SheetItem(int(character), int(item))


def _weapon(data: Mapping[str, Any]) -> SheetItem | None:
    """``weapon``: empty for the attacker's usual dice, or one of a character's weapons."""
    return _sheet_item(data, "weapon", "weapon") if str(data.get("weapon", "")).strip() else None


def _ability_rolls(data: Mapping[str, Any]) -> dict[str, AbilityRoll]:
    """``attacker_roll``, ``defender_roll``: ``background`` or ``impairment`` when one applies to that
    side (Reflex rolled twice, the higher or the lower kept); empty or ``normal`` when neither does."""
    rolls = {}
    for field in ("attacker_roll", "defender_roll"):
        value = str(data.get(field, "")).strip() or AbilityRoll.NORMAL.value
        if value not in AbilityRoll.__members__.values():
            raise BadInput(f"The {field.replace('_', ' ')} is normal, background or impairment.")
        rolls[field] = AbilityRoll(value)
    return rolls


def _traits(combatants: list[Combatant]) -> dict[int, dict[str, list[str]]]:
    """The backgrounds and impairments on the sheets of these combatants, by combatant, as their
    sheets list them (none for an NPC): the GM judges which apply to the attack."""
    found: dict[int, dict[str, list[str]]] = {}
    for combatant in combatants:
        found[combatant.pk] = {}
        if combatant.character_id is not None:
            for trait in combatant.character.document.traits:
                found[combatant.pk].setdefault(trait.kind, []).append(trait.name)
    return found


def _specialization_choices(data: Mapping[str, Any]) -> dict[str, SheetItem | str | None]:
    """``attacker_specialization``: empty or ``like-the-weapon`` for the attacker's Combat specialization
    named like the weapon, ``none``, or one (``<character id>:<id>``); ``defender_specialization``:
    empty or ``none``, or one."""
    choices: dict[str, SheetItem | str | None] = {}
    for field, default in (
        ("attacker_specialization", encounters.LIKE_THE_WEAPON),
        ("defender_specialization", None),
    ):
        value = str(data.get(field, "")).strip()
        if value in ("", default):
            choices[field] = default
        elif value == "none":
            choices[field] = None
        else:
            choices[field] = _sheet_item(data, field, "specialization")
    return choices


#: Ended encounters listed on the encounter page; the rest are on the list of ended encounters.
RECENT_ENDED: Final = 5


def _context(request: HttpRequest, campaign: Campaign, query: Mapping[str, Any] | None = None) -> dict[str, Any]:
    gm = _is_gm(campaign)
    encounter = Encounter.objects.filter(campaign=campaign).running().first()
    context: dict[str, Any] = {"campaign": campaign, "is_gm": gm, "encounter": encounter, "rows": []}
    ended = list(Encounter.objects.filter(campaign=campaign).ended()[: RECENT_ENDED + 1])
    context["ended"], context["more_ended"] = ended[:RECENT_ENDED], len(ended) > RECENT_ENDED
    if encounter is None:
        return context
    combatants = list(
        Combatant.objects.filter(encounter=encounter, removed=False).select_related("character").order_by("order", "pk")
    )
    rows = [combatant_row(campaign, c, encounter.initiative_rolled and c.order == encounter.turn) for c in combatants]
    # Equal initiative rolls: the ties the GM may settle by moving a combatant up or down.
    rolled = Counter(c.initiative for c in combatants if c.initiative is not None)
    for i, row in enumerate(rows):
        row["tied"] = rolled[row["combatant"].initiative] > 1
        row["moves"] = [("up", "↑", i == 0), ("down", "↓", i == len(rows) - 1)]
    context["rows"] = rows
    context["acting"] = next((r["combatant"] for r in rows if r["turn"]), None)
    context["last_attack"] = Roll.objects.of_encounter(encounter).filter(kind=RollKind.ATTACK).order_by("-seq").first()
    if gm:
        in_fight = {c.character_id for c in combatants if c.character_id}
        context["addable"] = [
            c for c in Character.objects.active().filter(campaign=campaign).order_by("name") if c.pk not in in_fight
        ]
        context["dice"] = [(rung, StepDie(rung).label) for rung in range(1, 6)]
        fighting = sorted((c.character for c in combatants if c.character_id), key=lambda c: (c.name, c.pk))
        # From the sheets of those in the fight: no query.
        context["weapons"] = [
            {"name": character.name, "weapon": weapon, "choice": str(SheetItem(character.pk, weapon.id))}
            for character in fighting
            for weapon in sorted(character.document.weapons, key=lambda w: (w.name, w.id))
        ]
        theirs = encounters.combat_specializations(fighting)
        context["specializations"] = [
            {"name": character.name, "specialization": spec, "choice": str(SheetItem(character.pk, spec.id))}
            for character in fighting
            for spec in theirs.get(character.pk, [])
        ]
        context["preview"] = preview = _preview(campaign, rows, query or {})
        chosen = preview["choices"] if preview else {}
        context["ability_roll_sides"] = [
            {
                "field": field,
                "who": who,
                "choices": [
                    (value, label, value == chosen.get(field, AbilityRoll.NORMAL.value))
                    for value, label in ABILITY_ROLL_CHOICES
                ],
            }
            for field, who in (("attacker_roll", "The attacker"), ("defender_roll", "The target"))
        ]
    return context


def _page(request: HttpRequest, campaign: Campaign, query: Mapping[str, Any] | None = None) -> HttpResponse:
    template = "play/encounter.html#encounter-body" if request.htmx else "play/encounter.html"
    return render(request, template, _context(request, campaign, query))


@require_safe
@vary_on_headers("HX-Request")
@refusals
def encounter(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's running encounter: the initiative order, whose turn it is, everyone's hit points;
    for the GM, the controls and (with ``?attacker=&target=``) the chance to hit before rolling."""
    campaign = access.campaign_for(request.user, pk)
    return _page(request, campaign, request.GET)


def _done(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    if request.htmx:
        return _page(request, campaign)
    return redirect(reverse("play:encounter", args=[campaign.pk]))


def _running(campaign: Campaign) -> Encounter:
    encounter = Encounter.objects.filter(campaign=campaign).running().first()
    if encounter is None:
        raise BadInput("No encounter is running.")
    return encounter


def _ids(campaign: Campaign) -> dict[str, int]:
    return {"campaign_id": campaign.pk, "encounter_id": _running(campaign).pk}


@require_POST
@refusals
def start_encounter(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    encounters.start_encounter(campaign_id=campaign.pk, by=request.user, name=request.POST.get("name", ""))
    return _done(request, campaign)


@require_POST
@refusals
def add_characters(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    values = request.POST.getlist("characters")
    ids = [whole_key(v) for v in values]
    if not ids or None in ids:
        raise BadInput("Choose at least one character.")
    encounters.add_characters(**_ids(campaign), by=request.user, character_ids=cast(list[int], ids))
    return _done(request, campaign)


@require_POST
@refusals
def add_npcs(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    data = request.POST
    hit_points = data.get("hit_points", "").strip()
    stats = StatBlock(
        name=data.get("name", ""),
        reflex=_whole(data, "reflex", 1, 5, "Reflex die"),
        combat=_whole(data, "combat", 0, 5, "Combat die"),
        accuracy=_whole(data, "accuracy", 0, 5, "accuracy die"),
        damage=_whole(data, "damage", 0, 5, "damage die"),
        armor=_whole(data, "armor", 0, 5, "armor die"),
        pulse=_whole(data, "pulse", 1, 5, "Pulse die"),
        hit_points=_whole(data, "hit_points", 1, 10_000, "hit points") if hit_points else None,
    )
    count = _whole(data, "count", 1, encounters.MAX_GROUP, "number of NPCs")
    encounters.add_npcs(**_ids(campaign), by=request.user, stats=stats, count=count)
    return _done(request, campaign)


@require_POST
@refusals
def roll_initiative(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    group_rolls = request.POST.get("group_rolls", "") == "1"
    encounters.roll_initiative(**_ids(campaign), by=request.user, rng=secrets.SystemRandom(), group_rolls=group_rolls)
    return _done(request, campaign)


@require_POST
@refusals
def next_turn(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    encounters.next_turn(**_ids(campaign), by=request.user)
    return _done(request, campaign)


@require_POST
@refusals
def attack(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    encounters.attack(
        **_ids(campaign),
        by=request.user,
        attacker_id=_whole(request.POST, "attacker", 1, 10**12),
        target_id=_whole(request.POST, "target", 1, 10**12),
        weapon=_weapon(request.POST),
        **_specialization_choices(request.POST),
        **_ability_rolls(request.POST),
        rng=secrets.SystemRandom(),
    )
    return _done(request, campaign)


@require_POST
@refusals
def adjust_hit_points(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    amount = _whole(request.POST, "amount", 1, 1000, "amount")
    if request.POST.get("direction") == "damage":
        amount = -amount
    elif request.POST.get("direction") != "heal":
        raise BadInput("Choose heal or damage.")
    encounters.adjust_hit_points(
        **_ids(campaign),
        by=request.user,
        combatant_id=_whole(request.POST, "combatant", 1, 10**12),
        amount=amount,
        reason=request.POST.get("reason", ""),
    )
    return _done(request, campaign)


@require_POST
@refusals
def minute_passes(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    encounters.minute_passes(**_ids(campaign), by=request.user)
    return _done(request, campaign)


@require_POST
@refusals
def stabilize(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    encounters.stabilize(**_ids(campaign), by=request.user, combatant_id=_whole(request.POST, "combatant", 1, 10**12))
    return _done(request, campaign)


@require_POST
@refusals
def move_in_order(request: HttpRequest, pk: int) -> HttpResponse:
    """The GM moves a combatant one place up or down the initiative order (``direction``)."""
    campaign = access.campaign_for(request.user, pk, gm=True)
    direction = request.POST.get("direction", "")
    if direction not in encounters.DIRECTIONS:
        raise BadInput("Move a combatant up or down.")
    encounters.move_in_order(
        **_ids(campaign),
        by=request.user,
        combatant_id=_whole(request.POST, "combatant", 1, 10**12),
        direction=direction,
    )
    return _done(request, campaign)


@require_safe
@vary_on_headers("HX-Request")
@refusals
def confirm_remove_combatant(request: HttpRequest, pk: int) -> HttpResponse:
    """The step before a combatant leaves the fight (``?combatant=``): who, what it means, and a reason
    for the log. With htmx it takes the place of the encounter's body; Cancel brings that back."""
    campaign = access.campaign_for(request.user, pk, gm=True)
    encounter = _running(campaign)
    combatant_id = _whole(request.GET, "combatant", 1, 10**12)
    try:
        combatant = encounters.combatant_in(encounter, combatant_id)
    except NotFound:
        raise BadInput("Choose a combatant who is in this encounter.") from None
    context = {"campaign": campaign, "encounter": encounter, "combatant": combatant}
    template = "play/encounter_remove.html" + ("#encounter-body" if request.htmx else "")
    return render(request, template, context)


@require_POST
@refusals
def remove_combatant(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    encounters.remove_combatant(
        **_ids(campaign),
        by=request.user,
        combatant_id=_whole(request.POST, "combatant", 1, 10**12),
        reason=request.POST.get("reason", ""),
    )
    return _done(request, campaign)


@require_POST
@refusals
def end_encounter(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    encounters.end_encounter(**_ids(campaign), by=request.user)
    return _done(request, campaign)


# --- Ended encounters: the list, and how each went ----------------------------------------------------

#: Ended encounters on a page of the list.
PAGE_SIZE: Final = 25


@require_safe
@vary_on_headers("HX-Request")
@refusals
def encounter_list(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's ended encounters, newest first, a page at a time by keyset (``?before=<id>``).
    Five queries: the session, the user, the campaign and its members, and the page of encounters
    with how many took part."""
    campaign = access.campaign_for(request.user, pk)
    rows = Encounter.objects.filter(campaign=campaign).ended()
    before = request.GET.get("before", "")
    if before:
        rows = rows.filter(pk__lt=_whole(request.GET, "before", 1, 10**12, "encounter to list from"))
    page = list(rows.annotate(taking_part=Count("combatants"))[: PAGE_SIZE + 1])
    context = {
        "campaign": campaign,
        "encounters": page[:PAGE_SIZE],
        "older_url": f"?{urlencode({'before': page[PAGE_SIZE - 1].pk})}" if len(page) > PAGE_SIZE else None,
        "newest_url": "?" if before else None,
    }
    partial = request.htmx and not request.htmx.history_restore_request
    return render(request, "play/encounters.html" + ("#encounter-list" if partial else ""), context)


def _roster(campaign: Campaign, combatants: list[Combatant], log: list[Roll]) -> list[dict[str, Any]]:
    """Everyone who took part, in the initiative order (those who never got a place last), and how
    they ended: an NPC's hit points are its own; a character's, the last change the log records in
    this encounter (their sheet has moved on since), or none if the fight did not touch them."""
    after: dict[int, dict[str, Any]] = {}
    for roll in log:
        if roll.kind in (RollKind.DAMAGE, RollKind.ADJUSTMENT) and roll.character_id:
            after[roll.character_id] = roll.outcome
    rows = []
    for combatant in sorted(combatants, key=lambda c: (c.order is None, c.order or 0, c.pk)):
        if combatant.character_id is None:
            hit_points: int | None = combatant.hit_points
            condition = encounters.condition_of(combatant).value
        else:
            outcome = after.get(combatant.character_id)
            hit_points = outcome["after"] if outcome else None
            condition = outcome["condition"] if outcome else None
        rows.append(
            {
                "combatant": combatant,
                "hit_points": hit_points,
                "maximum": lucky13.max_hit_points(combatant.die("pulse"), encounters.per_step(campaign)),
                "condition": condition,
            }
        )
    return rows


@require_safe
@refusals
def encounter_history(request: HttpRequest, pk: int, encounter_pk: int) -> HttpResponse:
    """An ended encounter, read-only: who took part and how they ended, and every step of it from the
    roll log, oldest first. The running encounter has its own page. Seven queries: the session, the
    user, the campaign and its members, the encounter, its combatants with their characters, and
    its log with who rolled, their character and any reveal."""
    campaign = access.campaign_for(request.user, pk)
    encounter = Encounter.objects.filter(campaign=campaign, pk=encounter_pk).select_related("created_by").first()
    if encounter is None:
        raise Http404("No such encounter")
    if encounter.running:
        return redirect(reverse("play:encounter", args=[campaign.pk]))
    gm = _is_gm(campaign)
    combatants = list(Combatant.objects.filter(encounter=encounter).select_related("character"))
    log = list(
        Roll.objects.of_encounter(encounter)
        .for_viewer(gm=gm, filtered=True)
        .select_related("by", "character", "reveal")
        .order_by("seq")
    )
    context = {
        "campaign": campaign,
        "encounter": encounter,
        "roster": _roster(campaign, combatants, log),
        # Read-only: even a secret roll is revealed from the roll log, not here.
        "entries": [{**roll_entry(roll, gm=gm), "can_reveal": False} for roll in log],
    }
    return render(request, "play/encounter_history.html", context)
