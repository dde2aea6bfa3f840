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
from campaigns.operations import Conflict, NotFound, Refused
from campaigns.presenters import refusals
from characters.models import Character
from play import encounters
from play.models import Combatant, Encounter, Roll, RollKind
from play.roll_views import roll_entry
from web.fields import name_start, whole_key


class BadInput(Refused):
    status = 400


def _whole(data: Mapping[str, Any], name: str, low: int, high: int, label: str | None = None) -> int:
    value = str(data.get(name, "")).strip()
    number = whole_key(value) if value != "0" else 0
    if number is None or not low <= number <= high:
        raise BadInput(f"The {label or name} must be a whole number from {low} to {high}.")
    return number


def _is_gm(campaign: Campaign) -> bool:
    return campaign.viewer.role == Membership.Role.GM  # type: ignore[attr-defined]


def system_template(campaign: Campaign, name: str) -> str:
    """A template of the campaign's system (``templates/systems/<key>/<name>.html``)."""
    return f"systems/{campaign.system}/{name}.html"


def combatant_row(campaign: Campaign, combatant: Combatant, turn: bool) -> dict[str, Any]:
    """One row of the initiative order, as the encounter page and the live dashboard show it: the
    combatant, its vitals and stat block as its system reads them, and whether it acts now."""
    fighter = encounters.fighter(campaign, combatant)
    vitals = encounters.combat_of(campaign).vitals(fighter, campaign.settings)
    return {
        "combatant": combatant,
        "fighter": fighter,
        "block": fighter.block,
        "vitals": vitals,
        "condition": vitals.state,
        "turn": turn,
    }


def _attack_choices(campaign: Campaign, data: Mapping[str, Any]) -> dict[str, str]:
    """The system's attack choices in a form or a query (its ``attack_fields``), as text."""
    fields = encounters.combat_of(campaign).attack_fields
    choices = {}
    for key in sorted(fields):
        if key in data:
            value = str(data.get(key, ""))
            if len(value) > 100 or not value.isprintable():
                raise BadInput(f"Choose the {key.replace('_', ' ')} from the list.")
            choices[key] = value
    return choices


def _preview(campaign: Campaign, rows: list[dict[str, Any]], query: Mapping[str, Any]) -> dict[str, Any] | None:
    """The exact chance for ``?attacker=&target=`` and the system's choices, computed before anyone
    rolls, with the choices as they apply, so that the Roll form sends exactly what was shown."""
    if not query.get("attacker") or not query.get("target"):
        return None
    by_pk = {row["combatant"].pk: row["combatant"] for row in rows}
    attacker = by_pk.get(_whole(query, "attacker", 1, 10**12))
    target = by_pk.get(_whole(query, "target", 1, 10**12))
    if attacker is None or target is None:
        raise BadInput("Choose an attacker and a target from this encounter.")
    try:
        plan = encounters.plan_attack(campaign, attacker, target, _attack_choices(campaign, query))
    except Conflict:
        raise
    except Refused as error:
        raise BadInput(error.message, errors=error.errors) from None
    return {
        "attacker": attacker,
        "target": target,
        "plan": plan,
        "choices": plan.choices,
        "percent": float(plan.chance) * 100,
    }


#: Characters the "Add characters" form offers at once, by name; a name search finds the others.
ADDABLE: Final = 30


def _addable(campaign: Campaign, combatants: list[Combatant], query: Mapping[str, Any]) -> dict[str, Any]:
    """The active characters not yet in the fight, the first :data:`ADDABLE` by (name, id), or those
    whose name starts with ``?add_name=``: one query along the (campaign, status, name, id) index,
    however large the party."""
    name = name_start(str(query.get("add_name", "")), MAX_SEARCH)
    if name is None:
        raise BadInput(f"Search for a name of at most {MAX_SEARCH} characters.")
    in_fight = [c.character_id for c in combatants if c.character_id]
    rows = Character.objects.active().filter(campaign=campaign).exclude(pk__in=in_fight).only("pk", "name")
    if name:
        rows = rows.filter(name__istartswith=name)
    found = list(rows.order_by("name", "pk")[: ADDABLE + 1])
    return {"addable": found[:ADDABLE], "more_addable": len(found) > ADDABLE, "add_name": name}


#: The longest name search: a character's name fits in its column.
MAX_SEARCH: Final = 120

#: Ended encounters listed on the encounter page; the rest are on the list of ended encounters.
RECENT_ENDED: Final = 5


def _context(request: HttpRequest, campaign: Campaign, query: Mapping[str, Any] | None = None) -> dict[str, Any]:
    gm = _is_gm(campaign)
    encounter = Encounter.objects.filter(campaign=campaign).running().first()
    context: dict[str, Any] = {
        "campaign": campaign,
        "is_gm": gm,
        "encounter": encounter,
        "rows": [],
        "templates": {
            name: system_template(campaign, f"encounter_{name}")
            for name in ("combatant", "npc_form", "attack_form", "attack_preview", "last_attack")
        },
    }
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
        if not encounter.initiative_rolled:
            context.update(_addable(campaign, combatants, query or {}))
        combat = encounters.combat_of(campaign)
        # From the sheets of those in the fight: no query.
        context["choices"] = combat.attack_choices([row["fighter"] for row in rows], campaign.settings)
        context["preview"] = _preview(campaign, rows, query or {})
        context["everyone_actions"] = [a for a in combat.actions if not a.per_fighter]
        context["fighter_actions"] = [
            {"action": action, "row": row}
            for action in combat.actions
            if action.per_fighter
            for row in rows
            if not combat.why_not(action.key, row["fighter"], campaign.settings)
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


#: The fields of the NPC form that are the encounter's, not the stat block's.
NPC_FIELDS: Final = frozenset({"name", "count", "csrfmiddlewaretoken"})


@require_POST
@refusals
def add_npcs(request: HttpRequest, pk: int) -> HttpResponse:
    """NPCs with the stat block of the campaign's system, from its form (its own fields)."""
    campaign = access.campaign_for(request.user, pk, gm=True)
    data = request.POST
    stats = {}
    for key, value in data.items():
        if key in NPC_FIELDS:
            continue
        if len(key) > 40 or len(value) > 200 or not value.isprintable():
            raise BadInput(f"The {key.replace('_', ' ')} is not a value of a stat block.")
        stats[key] = value
    count = _whole(data, "count", 1, encounters.MAX_GROUP, "number of NPCs")
    encounters.add_npcs(**_ids(campaign), by=request.user, name=data.get("name", ""), stats=stats, count=count)
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
        choices=_attack_choices(campaign, request.POST),
        rng=secrets.SystemRandom(),
    )
    return _done(request, campaign)


@require_POST
@refusals
def adjust(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    amount = _whole(request.POST, "amount", 1, encounters.MAX_ADJUSTMENT, "amount")
    if request.POST.get("direction") == "damage":
        amount = -amount
    elif request.POST.get("direction") != "heal":
        raise BadInput("Choose heal or damage.")
    encounters.adjust(
        **_ids(campaign),
        by=request.user,
        combatant_id=_whole(request.POST, "combatant", 1, 10**12),
        amount=amount,
        reason=request.POST.get("reason", ""),
    )
    return _done(request, campaign)


@require_POST
@refusals
def act(request: HttpRequest, pk: int) -> HttpResponse:
    """One of the system's own moves (``action``), on one combatant (``combatant``) or on everyone."""
    campaign = access.campaign_for(request.user, pk, gm=True)
    action = request.POST.get("action", "")
    if action not in {a.key for a in encounters.combat_of(campaign).actions}:
        raise BadInput("Choose one of the moves on the page.")
    combatant = request.POST.get("combatant", "")
    encounters.act(
        **_ids(campaign),
        by=request.user,
        action=action,
        combatant_id=_whole(request.POST, "combatant", 1, 10**12) if combatant != "" else None,
    )
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


@require_safe
@vary_on_headers("HX-Request")
@refusals
def confirm_end_encounter(request: HttpRequest, pk: int) -> HttpResponse:
    """The step before the GM ends the encounter: what ending means, then End or Cancel. With htmx it
    takes the place of the encounter's body; Cancel brings that back."""
    campaign = access.campaign_for(request.user, pk, gm=True)
    encounter = _running(campaign)
    template = "play/encounter_end.html" + ("#encounter-body" if request.htmx else "")
    return render(request, template, {"campaign": campaign, "encounter": encounter})


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
    they ended: an NPC's vitals are its stat block's; a character's, the last change the log records
    in this encounter (their sheet has moved on since), or none if the fight did not touch them."""
    after: dict[int, dict[str, Any]] = {}
    for roll in log:
        if roll.kind in (RollKind.DAMAGE, RollKind.ADJUSTMENT) and roll.character_id:
            after[roll.character_id] = roll.outcome
    rows = []
    for combatant in sorted(combatants, key=lambda c: (c.order is None, c.order or 0, c.pk)):
        vitals = encounters.vitals_of(campaign, combatant)
        track = vitals.tracks[0] if vitals.tracks else None
        value: int | None = track.value if track else None
        condition: str | None = vitals.state
        if combatant.character_id is not None:
            outcome = after.get(combatant.character_id)
            value = outcome["after"] if outcome else None
            condition = outcome["condition"] if outcome else None
        rows.append(
            {
                "combatant": combatant,
                "value": value,
                "track": track,
                "condition": condition,
                "conditions": vitals.conditions if combatant.character_id is None else (),
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
