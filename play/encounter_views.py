"""The encounter page and the GM's actions in a fight.

Thin views: load through :mod:`campaigns.access` (a non-member gets a 404, a player
asking for a GM action a 403), parse the form, call :mod:`play.encounters`,
then redirect to the page (or, with htmx, render its ``encounter-body`` partial).
Every member reads the page; only the GM sees and may use the controls, but for the attack, which a
player also makes, with their own character when it is its turn.

A refused action (bad input, or a move the fight does not allow now) comes back as the page again, at
the refusal's status, with the refusal beside the form that asked for it and what was typed kept: with
htmx the encounter's body is swapped as usual, so the rest of the panel stays. A system may read its
attack form with a Django form of its own (:func:`register_attack_form`), so that its choices are
parsed with the shared field types before the engine checks them against the fight.

The JSON API does what the page does with the same pieces: it reads an NPC's stat block, an attack's
choices and its preview with :func:`npc_stats`, :func:`attack_choices` and :func:`preview_attack`, and
presents the running encounter and the ended ones with :func:`running_view` and :func:`ended_page`.
"""

from __future__ import annotations

import secrets
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Final, Protocol, cast

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
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
from rules.systems.base import AttackPlan
from web import limits
from web.fields import name_start, whole_key


class BadInput(Refused):
    status = 400


class AttackForm(Protocol):
    """A system's own attack form (:func:`register_attack_form`): a Django form over the attack's fields
    that says its first problem in words (``problem``: the field and the message) and gives the choices
    as its engine reads them (``choices``: text by field)."""

    def is_valid(self) -> bool: ...

    def problem(self) -> tuple[str, str]: ...

    def choices(self) -> dict[str, str]: ...


_ATTACK_FORMS: dict[str, Callable[[Mapping[str, Any]], AttackForm]] = {}


def register_attack_form(system: str, form: Callable[[Mapping[str, Any]], AttackForm]) -> None:
    """Read the attack choices of ``system``'s encounters with ``form`` (made with the request's data)."""
    _ATTACK_FORMS[system] = form


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


#: The most characters a text choice of an attack form may hold, for a system without a form of its own.
MAX_CHOICE: Final = 100


def attack_choices(campaign: Campaign, data: Mapping[str, Any], *, choices_only: bool = False) -> dict[str, str]:
    """The system's attack choices in a form, a query or the API's ``choices`` object (its
    ``attack_fields``), as text: read by the system's own form where it has one, else each as one short
    printable line. With ``choices_only`` the data holds nothing but choices (the API's object), so a
    key that is not a choice of an attack is refused, naming it, rather than passed over as a form's
    other fields are."""
    fields = encounters.combat_of(campaign).attack_fields
    if choices_only:
        unknown = sorted(set(data) - fields)
        if unknown:
            raise BadInput(
                f"{unknown[0]} is not a choice of an attack.", errors={unknown[0]: "Not a choice of an attack."}
            )
    form = _ATTACK_FORMS.get(campaign.system)
    if form is not None:
        bound = form(data)
        if not bound.is_valid():
            where, message = bound.problem()
            raise BadInput(message, errors={where: message})
        return bound.choices()
    choices = {}
    for key in sorted(fields):
        if key in data:
            value = str(data.get(key, ""))
            if len(value) > MAX_CHOICE or not value.isprintable():
                message = f"Choose the {key.replace('_', ' ')} from the list."
                raise BadInput(message, errors={key: message})
            choices[key] = value
    return choices


@dataclass(frozen=True, slots=True)
class Preview:
    """An attack the viewer may make now, planned before anyone rolls: who attacks whom, and the plan
    (the exact chance, and the choices as they apply)."""

    attacker: Combatant
    target: Combatant
    plan: AttackPlan


def preview_attack(
    user: AbstractBaseUser | AnonymousUser,
    campaign: Campaign,
    encounter: Encounter,
    combatants: Sequence[Combatant],
    attacker_id: int,
    target_id: int,
    data: Mapping[str, Any],
    *,
    choices_only: bool = False,
) -> Preview:
    """The exact chance of an attack of ``attacker_id`` on ``target_id`` (of ``combatants``, those in the
    fight) with the choices in ``data`` (:func:`attack_choices`), before anyone rolls: for the encounter
    page's preview and the API's alike. Only an attack ``user`` may make now
    (:func:`play.encounters.may_attack`: a 403 or a 409); a choice the fight refuses is a 400."""
    if not encounter.initiative_rolled:
        raise Conflict("Roll initiative first.")
    by_pk = {combatant.pk: combatant for combatant in combatants}
    attacker, target = by_pk.get(attacker_id), by_pk.get(target_id)
    if attacker is None or target is None:
        raise BadInput("Choose an attacker and a target from this encounter.")
    gm = _is_gm(campaign)
    encounters.may_attack(encounter, attacker, user, gm=gm, secret=False)
    choices = attack_choices(campaign, data, choices_only=choices_only)
    try:
        plan = encounters.plan_for(campaign, encounter, attacker, target, choices, list(by_pk.values()), by=user, gm=gm)
    except NotFound:
        raise
    except Refused as error:
        if error.status in (403, 409):
            raise
        raise BadInput(error.message, errors=error.errors) from None
    return Preview(attacker, target, plan)


def _preview(
    request: HttpRequest, campaign: Campaign, encounter: Encounter, rows: list[dict[str, Any]], query: Mapping[str, Any]
) -> dict[str, Any] | None:
    """The exact chance for ``?attacker=&target=`` and the system's choices, computed before anyone
    rolls, with the choices as they apply, so that the Roll form sends exactly what was shown
    (:func:`preview_attack`)."""
    if not query.get("attacker") or not query.get("target"):
        return None
    preview = preview_attack(
        request.user,
        campaign,
        encounter,
        [row["combatant"] for row in rows],
        _whole(query, "attacker", 1, 10**12),
        _whole(query, "target", 1, 10**12),
        query,
    )
    return {
        "attacker": preview.attacker,
        "target": preview.target,
        "plan": preview.plan,
        "choices": preview.plan.choices,
        "percent": float(preview.plan.chance) * 100,
    }


def _attack_values(
    attackers: list[dict[str, Any]],
    rows: list[dict[str, Any]],
    preview: dict[str, Any] | None,
    typed: Mapping[str, Any],
) -> dict[str, Any]:
    """What the attack form shows selected: the choices the chance was computed with; else what was typed
    (a refused preview or roll); else the acting combatant (of those the viewer attacks with) against
    the first other one still standing in the order (a combatant never attacks itself)."""
    if preview is not None:
        return {"attacker": str(preview["attacker"].pk), "target": str(preview["target"].pk), **preview["choices"]}
    if typed:
        return {str(key): str(typed.get(key, "")) for key in typed}
    first = attackers[0]["combatant"] if attackers else None
    attacker = next((row["combatant"] for row in attackers if row["turn"]), first)
    others = [row for row in rows if attacker is None or row["combatant"].pk != attacker.pk]
    target = next((row["combatant"] for row in others if row["condition"] != "dead"), None)
    if target is None and others:
        target = others[0]["combatant"]
    return {"attacker": str(attacker.pk) if attacker else "", "target": str(target.pk) if target else ""}


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


@dataclass(frozen=True, slots=True)
class Refusal:
    """A refused action, for the page: the form it came from (its slot on the page shows it there),
    the message, the status, and what was typed (shown again in that form)."""

    form: str
    message: str
    status: int
    typed: Mapping[str, Any] = field(default_factory=dict)


def _shown(context: Mapping[str, Any]) -> set[str]:
    """The forms the encounter's body shows now, for the GM: a refusal goes beside its form if it is
    among them, else at the top of the body (the fight moved on: someone rolled initiative, say)."""
    encounter = context["encounter"]
    if not context["is_gm"]:
        return {"attack"} if context.get("can_attack") else set()
    if encounter is None:
        return {"start"}
    shown = {"end"}
    if not encounter.initiative_rolled:
        shown |= {"find", "add-characters", "add-npcs", "initiative"}
    else:
        shown |= {"next-turn", "attack", "move", "join"}
    if context.get("waiting"):
        shown.add("defend")
    if context["rows"]:
        shown |= {"adjust", "act", "remove"}
    return shown


def waiting_view(
    campaign: Campaign,
    encounter: Encounter,
    combatants: list[Combatant],
    user: AbstractBaseUser | AnonymousUser,
    *,
    gm: bool,
) -> dict[str, Any] | None:
    """The attack that waits for its target's answer, as ``user`` sees it (a secret one, the GM alone): who
    attacks whom with what, each answer with the attack's exact chance to hit if chosen (as the sheets stand
    now), whether ``user`` chooses (the target's player, the GM) and may withdraw it (the GM, its maker); None
    when no attack waits."""
    pending = encounter.pending
    if not pending or (pending.get("secret") and not gm):
        return None
    by_pk = {c.pk: c for c in combatants}
    attacker, target = by_pk.get(pending["attacker"]), by_pk.get(pending["target"])
    if attacker is None or target is None:
        return None
    try:
        plan = encounters.plan_attack(campaign, attacker, target, pending["choices"], combatants)
    except Refused as refused:
        plan, problem = None, refused.message
    else:
        problem = ""
    return {
        "attacker": attacker,
        "target": target,
        "label": plan.label if plan is not None else f"{attacker.name} attacks {target.name}",
        "chance_of": plan.chance_of if plan is not None else "hit",
        "answers": list(plan.defences) if plan is not None else [],
        "problem": problem,
        "decides": user.is_authenticated and encounters.decides(target, user, gm=gm),  # type: ignore[arg-type]
        "withdraws": gm or pending["by"] == user.pk,
        "secret": bool(pending.get("secret")),
    }


def running_view(campaign: Campaign, encounter: Encounter, user: AbstractBaseUser | AnonymousUser) -> dict[str, Any]:
    """The running encounter as a member (``user``; the campaign loaded for them by
    :func:`campaigns.access.campaign_for`) sees it, on the page and through the API alike, in two
    queries: the initiative order (``rows``, :func:`combatant_row` each, with whether its initiative is
    tied and which way the GM may move it), who acts (``acting``), the last attack of the log the member
    may see (``last_attack``: a GM's secret attack reaches players once revealed), those the member
    attacks with now (``attackers``, ``can_attack``: the GM with anyone, a player with their own
    character on its turn), and for the GM the system's moves with whom each applies to now
    (``everyone_actions``, ``fighter_actions``)."""
    gm = _is_gm(campaign)
    combatants = list(
        Combatant.objects.filter(encounter=encounter, removed=False).select_related("character").order_by("order", "pk")
    )
    rows = [combatant_row(campaign, c, encounter.initiative_rolled and c.order == encounter.turn) for c in combatants]
    # Equal initiative rolls: the ties the GM may settle by moving a combatant up or down.
    rolled = Counter(c.initiative for c in combatants if c.initiative is not None)
    for i, row in enumerate(rows):
        row["tied"] = rolled[row["combatant"].initiative] > 1
        row["moves"] = [("up", "↑", i == 0), ("down", "↓", i == len(rows) - 1)]
    acting = next((r["combatant"] for r in rows if r["turn"]), None)
    last_attack = (
        Roll.objects.of_encounter(encounter)
        .for_viewer(gm=gm, filtered=True)
        .filter(kind=RollKind.ATTACK)
        .order_by("-seq")
        .first()
    )
    # Who attacks: the GM with anyone; a player with their own character on its turn.
    if gm:
        attackers = rows
    elif acting is not None and acting.character is not None and acting.character.owner_id == user.pk:
        attackers = [row for row in rows if row["turn"]]
    else:
        attackers = []
    view: dict[str, Any] = {
        "rows": rows,
        "acting": acting,
        "waiting": waiting_view(campaign, encounter, combatants, user, gm=gm),
        "last_attack": last_attack,
        "attackers": attackers,
        "can_attack": encounter.initiative_rolled and bool(attackers),
        "everyone_actions": [],
        "fighter_actions": [],
    }
    if gm:
        combat = encounters.combat_of(campaign)
        view["everyone_actions"] = [a for a in combat.actions if not a.per_fighter]
        view["fighter_actions"] = [
            {"action": action, "row": row}
            for action in combat.actions
            if action.per_fighter
            for row in rows
            if not combat.why_not(action.key, row["fighter"], campaign.settings)
        ]
    return view


def _context(
    request: HttpRequest,
    campaign: Campaign,
    query: Mapping[str, Any] | None = None,
    refusal: Refusal | None = None,
) -> dict[str, Any]:
    gm = _is_gm(campaign)
    query = query or {}
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
        return _placed(context, refusal)
    context.update(running_view(campaign, encounter, request.user))
    rows, attackers = context["rows"], context["attackers"]
    combatants = [row["combatant"] for row in rows]
    if gm and not encounter.initiative_rolled:
        try:
            context.update(_addable(campaign, combatants, query))
        except Refused as refused:
            refusal = refusal or Refusal("find", refused.message, refused.status, query)
            context.update(_addable(campaign, combatants, {}))
    combat = encounters.combat_of(campaign)
    preview = None
    if refusal is None and encounter.initiative_rolled and (context["can_attack"] or query.get("attacker")):
        try:
            preview = _preview(request, campaign, encounter, rows, query)
        except Refused as refused:
            refusal = Refusal("attack", refused.message, refused.status, query)
    context["preview"] = preview
    if context["can_attack"]:
        # From the sheets of those in the fight (a player's: their own character's only): no query.
        fighters = [row["fighter"] for row in (rows if gm else attackers)]
        context["choices"] = combat.attack_choices(fighters, campaign.settings)
        typed = refusal.typed if refusal is not None and refusal.form == "attack" else {}
        context["attack"] = _attack_values(attackers, rows, preview, typed)
    return _placed(context, refusal)


def _placed(context: dict[str, Any], refusal: Refusal | None) -> dict[str, Any]:
    """The refusal, if any, with where it goes: beside its form, or at the top if that form is not shown;
    and what was typed in that form (``typed.<form>``, the form's name with underscores)."""
    context["refusal"] = refusal
    context["typed"] = {refusal.form.replace("-", "_"): refusal.typed} if refusal else {}
    context["refusal_at"] = (refusal.form if refusal.form in _shown(context) else "top") if refusal else ""
    return context


def _page(
    request: HttpRequest, campaign: Campaign, query: Mapping[str, Any] | None = None, refusal: Refusal | None = None
) -> HttpResponse:
    template = "play/encounter.html#encounter-body" if request.htmx else "play/encounter.html"
    context = _context(request, campaign, query, refusal)
    # The campaign's socket, where the server speaks ASGI (play.consumers): the page follows the encounter.
    context["live_url"] = f"/ws/campaigns/{campaign.pk}/" if hasattr(request, "scope") else ""
    status = context["refusal"].status if context["refusal"] else 200
    return render(request, template, context, status=status)


@require_safe
@vary_on_headers("HX-Request")
@refusals
def encounter(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's running encounter: the initiative order, whose turn it is, everyone's vitals;
    for the GM, the controls and (with ``?attacker=&target=``) the chance to hit before rolling. A
    refused preview is the page at the refusal's status, the refusal beside the attack form. A system without
    fights (its fights are played at its table) has no encounter page."""
    campaign = access.campaign_for(request.user, pk)
    if campaign.rules.combat is None:
        raise Http404(f"{campaign.rules.name} has no encounters: its fights are played at the table.")
    return _page(request, campaign, request.GET)


def _done(request: HttpRequest, campaign: Campaign) -> HttpResponse:
    if request.htmx:
        return _page(request, campaign)
    return redirect(reverse("play:encounter", args=[campaign.pk]))


#: The forms of the join step (:func:`join_encounter`): a refusal of one of them, once initiative is
#: rolled, comes back in that step, beside the form.
JOIN_FORMS: Final = frozenset({"find", "add-characters", "add-npcs"})


def _act(request: HttpRequest, campaign: Campaign, form: str, action: Callable[[], object]) -> HttpResponse:
    """Run the GM's ``action`` (parsing included); on a refusal, the page again at its status with the
    refusal beside ``form`` and what was typed kept; else done (:func:`_done`)."""
    try:
        action()
    except Refused as refused:
        typed = {key: value for key, value in request.POST.items() if key != "csrfmiddlewaretoken"}
        refusal = Refusal(form, refused.message, refused.status, typed)
        running = Encounter.objects.filter(campaign=campaign).running().first()
        if form in JOIN_FORMS and running is not None and running.initiative_rolled:
            return _join_page(request, campaign, running, {}, refusal)
        return _page(request, campaign, refusal=refusal)
    return _done(request, campaign)


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

    def start() -> None:
        encounters.start_encounter(campaign_id=campaign.pk, by=request.user, name=request.POST.get("name", ""))

    return _act(request, campaign, "start", start)


@require_POST
@refusals
def add_characters(request: HttpRequest, pk: int) -> HttpResponse:
    """Characters join the fight: before initiative, to roll it with everyone; after, each rolls its own
    and takes its place in the order (:func:`play.encounters.add_characters`)."""
    campaign = access.campaign_for(request.user, pk, gm=True)

    def add() -> None:
        values = request.POST.getlist("characters")
        ids = [whole_key(v) for v in values]
        if not ids or None in ids:
            raise BadInput("Choose at least one character.")
        encounters.add_characters(
            **_ids(campaign), by=request.user, character_ids=cast(list[int], ids), rng=secrets.SystemRandom()
        )

    return _act(request, campaign, "add-characters", add)


#: The fields of the NPC form that are the encounter's, not the stat block's.
NPC_FIELDS: Final = frozenset({"name", "count", "csrfmiddlewaretoken"})

#: The longest name and value of a field of a system's NPC form.
MAX_STAT_KEY: Final = 40
MAX_STAT_VALUE: Final = 200


def npc_stats(values: Mapping[str, Any]) -> dict[str, str]:
    """The fields of the system's NPC form (the page's form, or the API's ``stats`` object) as the
    system reads them, text each (a number as its digits, nothing as empty): each name and value short
    and printable, or a 400 naming the field. The system's ``Combat.npc`` says what they mean."""
    stats = {}
    for key, value in values.items():
        text = "" if value is None else str(value)
        if len(key) > MAX_STAT_KEY or len(text) > MAX_STAT_VALUE or not key.isprintable() or not text.isprintable():
            message = f"The {key.replace('_', ' ')[:MAX_STAT_KEY]} is not a value of a stat block."
            raise BadInput(message, errors={key[:MAX_STAT_KEY]: message})
        stats[key] = text
    return stats


@require_POST
@refusals
def add_npcs(request: HttpRequest, pk: int) -> HttpResponse:
    """NPCs with the stat block of the campaign's system, from its form (its own fields); once
    initiative is rolled, the group rolls one initiative and joins the order."""
    campaign = access.campaign_for(request.user, pk, gm=True)

    def add() -> None:
        data = request.POST
        stats = npc_stats({key: value for key, value in data.items() if key not in NPC_FIELDS})
        count = _whole(data, "count", 1, encounters.MAX_GROUP, "number of NPCs")
        encounters.add_npcs(
            **_ids(campaign),
            by=request.user,
            name=data.get("name", ""),
            stats=stats,
            count=count,
            rng=secrets.SystemRandom(),
        )

    return _act(request, campaign, "add-npcs", add)


def _join_page(
    request: HttpRequest,
    campaign: Campaign,
    encounter: Encounter,
    query: Mapping[str, Any],
    refusal: Refusal | None = None,
) -> HttpResponse:
    """The join step: the characters not yet in the fight (bounded, with a search) and the NPC form."""
    combatants = list(Combatant.objects.filter(encounter=encounter).only("pk", "character_id"))
    context: dict[str, Any] = {
        "campaign": campaign,
        "encounter": encounter,
        "templates": {"npc_form": system_template(campaign, "encounter_npc_form")},
    }
    try:
        context.update(_addable(campaign, combatants, query))
    except Refused as refused:
        refusal = Refusal("find", refused.message, refused.status, query)
        context.update(_addable(campaign, combatants, {}))
    shown = {"add-npcs", "find"} | ({"add-characters"} if context["addable"] else set())
    context["refusal"] = refusal
    context["refusal_at"] = (refusal.form if refusal.form in shown else "top") if refusal else ""
    context["typed"] = {refusal.form.replace("-", "_"): refusal.typed} if refusal else {}
    template = "play/encounter_join.html" + ("#encounter-body" if request.htmx else "")
    return render(request, template, context, status=refusal.status if refusal else 200)


@require_safe
@vary_on_headers("HX-Request")
@refusals
def join_encounter(request: HttpRequest, pk: int) -> HttpResponse:
    """The step where someone joins a fight under way: a character of the party not yet in it, or NPCs.
    Each newcomer rolls its initiative as it joins and takes its place in the order. With htmx it takes
    the place of the encounter's body; Cancel brings that back. Before initiative the page's own forms
    add combatants, so this step sends the GM back there."""
    campaign = access.campaign_for(request.user, pk, gm=True)
    encounter = _running(campaign)
    if not encounter.initiative_rolled:
        return redirect(reverse("play:encounter", args=[campaign.pk]))
    return _join_page(request, campaign, encounter, request.GET)


@require_POST
@limits.limited(limits.ROLLS)
@refusals
def roll_initiative(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    group_rolls = request.POST.get("group_rolls", "") == "1"

    def roll() -> None:
        encounters.roll_initiative(
            **_ids(campaign), by=request.user, rng=secrets.SystemRandom(), group_rolls=group_rolls
        )

    return _act(request, campaign, "initiative", roll)


@require_POST
@refusals
def next_turn(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)
    return _act(request, campaign, "next-turn", lambda: encounters.next_turn(**_ids(campaign), by=request.user))


@require_POST
@limits.limited(limits.ROLLS)
@refusals
def attack(request: HttpRequest, pk: int) -> HttpResponse:
    """An attack, rolled on the server: by the GM with anyone, by a player with their own character on
    its turn (the operation checks which, under the lock: 403 or 409, and nothing changes)."""
    campaign = access.campaign_for(request.user, pk)

    def roll() -> None:
        encounters.attack(
            **_ids(campaign),
            by=request.user,
            attacker_id=_whole(request.POST, "attacker", 1, 10**12),
            target_id=_whole(request.POST, "target", 1, 10**12),
            choices=attack_choices(campaign, request.POST),
            rng=secrets.SystemRandom(),
            secret=request.POST.get("secret") == "1",
        )

    return _act(request, campaign, "attack", roll)


@require_POST
@limits.limited(limits.ROLLS)
@refusals
def defend(request: HttpRequest, pk: int) -> HttpResponse:
    """The target's answer to the attack that waits for it (``answer``, one of the plan's defences), by its
    player or the GM; then the attack is rolled on the server."""
    campaign = access.campaign_for(request.user, pk)

    def answer() -> None:
        encounters.defend(**_ids(campaign), by=request.user, answer=request.POST.get("answer", "")[:64],
                          rng=secrets.SystemRandom())  # fmt: skip

    return _act(request, campaign, "defend", answer)


@require_POST
@refusals
def withdraw(request: HttpRequest, pk: int) -> HttpResponse:
    """The attack that waits for its target's answer is withdrawn (the GM, or the one who made it)."""
    campaign = access.campaign_for(request.user, pk)
    return _act(request, campaign, "defend", lambda: encounters.withdraw(**_ids(campaign), by=request.user))


@require_POST
@refusals
def adjust(request: HttpRequest, pk: int) -> HttpResponse:
    campaign = access.campaign_for(request.user, pk, gm=True)

    def change() -> None:
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

    return _act(request, campaign, "adjust", change)


@require_POST
@limits.limited(limits.ROLLS)
@refusals
def act(request: HttpRequest, pk: int) -> HttpResponse:
    """One of the system's own moves (``action``), on one combatant (``combatant``) or on everyone."""
    campaign = access.campaign_for(request.user, pk, gm=True)

    def move() -> None:
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

    return _act(request, campaign, "act", move)


@require_POST
@refusals
def move_in_order(request: HttpRequest, pk: int) -> HttpResponse:
    """The GM moves a combatant one place up or down the initiative order (``direction``)."""
    campaign = access.campaign_for(request.user, pk, gm=True)

    def move() -> None:
        direction = request.POST.get("direction", "")
        if direction not in encounters.DIRECTIONS:
            raise BadInput("Move a combatant up or down.")
        encounters.move_in_order(
            **_ids(campaign),
            by=request.user,
            combatant_id=_whole(request.POST, "combatant", 1, 10**12),
            direction=direction,
        )

    return _act(request, campaign, "move", move)


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

    def remove() -> None:
        encounters.remove_combatant(
            **_ids(campaign),
            by=request.user,
            combatant_id=_whole(request.POST, "combatant", 1, 10**12),
            reason=request.POST.get("reason", ""),
        )

    return _act(request, campaign, "remove", remove)


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
    return _act(request, campaign, "end", lambda: encounters.end_encounter(**_ids(campaign), by=request.user))


# --- Ended encounters: the list, and how each went ----------------------------------------------------

#: Ended encounters on a page of the list.
PAGE_SIZE: Final = 25


def ended_page(campaign: Campaign, before: int | None = None) -> tuple[list[Encounter], int | None]:
    """A page of the campaign's ended encounters, newest first, each with how many took part
    (``taking_part``), from just before the encounter ``before`` (from the newest without it), in one
    query by key; and the ``before`` of the next page, None on the last."""
    rows = Encounter.objects.filter(campaign=campaign).ended()
    if before is not None:
        rows = rows.filter(pk__lt=before)
    page = list(rows.annotate(taking_part=Count("combatants"))[: PAGE_SIZE + 1])
    return page[:PAGE_SIZE], page[PAGE_SIZE - 1].pk if len(page) > PAGE_SIZE else None


@require_safe
@vary_on_headers("HX-Request")
@refusals
def encounter_list(request: HttpRequest, pk: int) -> HttpResponse:
    """The campaign's ended encounters, newest first, a page at a time by keyset (``?before=<id>``).
    Four queries: the session with its user, the campaign and its members, and the page of encounters
    with how many took part."""
    campaign = access.campaign_for(request.user, pk)
    if campaign.rules.combat is None:
        raise Http404(f"{campaign.rules.name} has no encounters: its fights are played at the table.")
    before = request.GET.get("before", "")
    start = _whole(request.GET, "before", 1, 10**12, "encounter to list from") if before else None
    page, older = ended_page(campaign, start)
    context = {
        "campaign": campaign,
        "encounters": page,
        "older_url": f"?{urlencode({'before': older})}" if older is not None else None,
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
