"""Encounters through the API: the running encounter as a member sees it, the ended ones a page at a time,
and everything the GM and the players do in a fight, for every rules system that has fights.

Each route loads the campaign through :mod:`campaigns.access` and calls the operation of
:mod:`play.encounters` the encounter page calls, reading its values with the page's own readers
(:func:`play.encounter_views.npc_stats`, :func:`~play.encounter_views.attack_choices`,
:func:`~play.encounter_views.preview_attack`), and answers with the encounter as the page presents it
(:func:`play.encounter_views.running_view`). Dice are rolled on the server with ``secrets.SystemRandom``.

The routes that change a fight name it (``/campaigns/{id}/encounters/{eid}/…``): once it has ended,
each is a 409 and changes nothing. The operations keep no version of a fight, so no route asks for one.
"""

from __future__ import annotations

import secrets
from datetime import datetime
from typing import Annotated, Any, Final, Literal

from django.http import HttpRequest
from ninja import Field, Query, Router, Schema, Status
from pydantic import ConfigDict, StrictInt, StrictStr, StringConstraints

from api.errors import responses
from api.params import MAX_ID, ONE_LINE, PathId
from api.routers.rolls import RollOut, roll_out
from campaigns import access
from campaigns.models import Campaign, Membership
from play import encounter_views, encounters
from play.models import Combatant, Encounter
from rules.systems.base import Vitals
from web import limits

router = Router(tags=["Encounters"])

#: The most fields a system's NPC form or attack form has (each system's own rules give the real limits).
MAX_FIELDS: Final = 100

#: A combatant's, a character's or an encounter's id in a body.
Key = Annotated[StrictInt, Field(ge=1, le=MAX_ID)]
#: A value of a system's form: text, or a whole number (sent as its digits).
FormValue = StrictStr | StrictInt | None


# --- What a member sees --------------------------------------------------------------------------


class TrackOut(Schema):
    key: str
    label: str = Field(description='The track in the system\'s words: "Hit points", "Wound level".')
    value: int
    maximum: int | None
    minimum: int | None
    unit: str = Field(description='A short unit written after the value ("hp"); the label when empty.')


class NoteOut(Schema):
    label: str
    value: str


class VitalsOut(Schema):
    tracks: list[TrackOut]
    condition: str = Field(description='A short word for the condition, the system\'s: "up", "dying", "dead"…')
    can_act: bool = Field(description="Whether it acts when its turn comes (the turn passes over it otherwise).")
    why_not: str = Field(description="Why it cannot act, in words; empty when it can.")
    conditions: list[str]
    notes: list[NoteOut] = Field(description='Facts shown beside the tracks: ("Pulse now", "d6").')


class CombatantOut(Schema):
    id: int
    name: str
    character: int | None = Field(description="The character's id; null for an NPC.")
    initiative: int | None = Field(description="Its initiative roll; null until rolled.")
    tied: bool = Field(description="Another combatant rolled the same initiative: the GM may move either.")
    acting: bool = Field(description="It is its turn.")
    vitals: VitalsOut
    block: dict[str, Any] = Field(description="The stat block it fights with, as its system keeps it.")


class ActionOut(Schema):
    key: str = Field(description="What `POST …/actions` names.")
    label: str
    help: str
    for_everyone: bool = Field(description="The move changes everyone it applies to at once; else one combatant.")
    combatants: list[int] = Field(description="For a move on one combatant, those it applies to now.")


class AnswerOut(Schema):
    value: str = Field(description="Send it as `answer`.")
    label: str
    chance: str = Field(description='The attack\'s exact chance to hit if this answer is chosen, "p/q".')


class WaitingOut(Schema):
    attacker: int
    target: int
    label: str
    answers: list[AnswerOut]
    decides: bool = Field(description="Whether you choose the answer: the target's player, or the GM.")
    withdraws: bool = Field(description="Whether you may withdraw the attack: the GM, or the one who made it.")


class EncounterOut(Schema):
    id: int
    name: str
    started_at: datetime
    round: int = Field(description="0 until initiative is rolled, then 1, 2, …")
    initiative_rolled: bool
    acting: int | None = Field(description="The combatant whose turn it is; null before initiative.")
    combatants: list[CombatantOut] = Field(description="In the initiative order (before it is rolled, as they joined).")
    last_attack: RollOut | None = Field(
        description="The last attack of the fight in the roll log as you may see it (a secret one of the GM's reaches "
        "players once revealed); null before any."
    )
    attackers: list[int] = Field(
        description="The combatants you may attack with now: the GM any, a player their own character on its turn."
    )
    actions: list[ActionOut] = Field(description="The GM's: the moves of the system's fights. Empty for players.")
    waiting: WaitingOut | None = Field(
        description="An attack that waits for its target's answer (the defender's choice; D6: a dodge, a parry or "
        "none), with each answer's exact chance; null when none waits. Nothing else happens in the fight until it is "
        "answered (`POST …/attacks/waiting/answer`) or withdrawn (`POST …/attacks/waiting/withdraw`)."
    )


class EncounterSummary(Schema):
    id: int
    name: str
    started_at: datetime
    ended_at: datetime | None
    taking_part: int = Field(description="How many combatants took part.")


class EncounterPage(Schema):
    encounters: list[EncounterSummary] = Field(description="Newest first, one page.")
    next: int | None = Field(
        description="Pass as `before` for the next page; null on the last. The list is read by key, so an "
        "encounter ended meanwhile moves no other one to another page."
    )


def _vitals(vitals: Vitals) -> dict[str, Any]:
    return {
        "tracks": [
            {"key": t.key, "label": t.label, "value": t.value, "maximum": t.maximum, "minimum": t.minimum,
             "unit": t.unit}
            for t in vitals.tracks
        ],
        "condition": vitals.state,
        "can_act": vitals.can_act,
        "why_not": vitals.why_not,
        "conditions": list(vitals.conditions),
        "notes": [{"label": label, "value": value} for label, value in vitals.notes],
    }  # fmt: skip


def encounter_out(request: HttpRequest, campaign: Campaign, encounter: Encounter) -> dict[str, Any]:
    """The running encounter as the caller sees it: what the encounter page shows them."""
    view = encounter_views.running_view(campaign, encounter, request.user)
    gm = campaign.viewer.role == Membership.Role.GM  # type: ignore[attr-defined]
    per_fighter: dict[str, list[int]] = {}
    for item in view["fighter_actions"]:
        per_fighter.setdefault(item["action"].key, []).append(item["row"]["combatant"].pk)
    actions = encounters.combat_of(campaign).actions if gm else ()
    return {
        "id": encounter.pk,
        "name": encounter.name,
        "started_at": encounter.started_at,
        "round": encounter.round,
        "initiative_rolled": encounter.initiative_rolled,
        "acting": view["acting"].pk if view["acting"] is not None else None,
        "combatants": [
            {
                "id": row["combatant"].pk,
                "name": row["combatant"].name,
                "character": row["combatant"].character_id,
                "initiative": row["combatant"].initiative,
                "tied": row["tied"],
                "acting": row["turn"],
                "vitals": _vitals(row["vitals"]),
                "block": row["block"].model_dump(mode="json"),
            }
            for row in view["rows"]
        ],
        "last_attack": roll_out(view["last_attack"], gm=gm) if view["last_attack"] is not None else None,
        "attackers": [row["combatant"].pk for row in view["attackers"]] if view["can_attack"] else [],
        "actions": [
            {"key": a.key, "label": a.label, "help": a.help, "for_everyone": not a.per_fighter,
             "combatants": per_fighter.get(a.key, [])}
            for a in actions
        ],
        "waiting": _waiting(view["waiting"]),
    }  # fmt: skip


def _waiting(waiting: dict[str, Any] | None) -> dict[str, Any] | None:
    if waiting is None:
        return None
    return {
        "attacker": waiting["attacker"].pk, "target": waiting["target"].pk, "label": waiting["label"],
        "answers": [{"value": a.value, "label": a.label, "chance": f"{a.chance.numerator}/{a.chance.denominator}"}
                    for a in waiting["answers"]],
        "decides": waiting["decides"], "withdraws": waiting["withdraws"],
    }  # fmt: skip


def _summary(encounter: Encounter, taking_part: int) -> dict[str, Any]:
    return {
        "id": encounter.pk,
        "name": encounter.name,
        "started_at": encounter.started_at,
        "ended_at": encounter.ended_at,
        "taking_part": taking_part,
    }


def _now(request: HttpRequest, campaign: Campaign, eid: int) -> dict[str, Any]:
    """The encounter after a change, as the caller sees it."""
    return encounter_out(request, campaign, Encounter.objects.get(pk=eid))


@router.get(
    "/campaigns/{id}/encounter",
    response=responses({200: EncounterOut | None}, 404),
    summary="The running encounter",
    description="The campaign's running encounter as the encounter page shows it to you: the initiative order with "
    "each combatant's vitals in the words of the campaign's rules system, whose turn it is, the last attack, whom "
    "you may attack with now, and for the GM the system's moves. Null when none runs. Members only (others 404).",
)
def running_encounter(request: HttpRequest, id: PathId) -> dict[str, Any] | None:
    campaign = access.campaign_for(request.user, id)
    encounter = Encounter.objects.filter(campaign=campaign).running().first()
    return encounter_out(request, campaign, encounter) if encounter is not None else None


@router.get(
    "/campaigns/{id}/encounters",
    response=responses({200: EncounterPage}, 404),
    summary="Ended encounters",
    description=f"The campaign's ended encounters, newest first, {encounter_views.PAGE_SIZE} a page, as the list of "
    "ended encounters pages them: follow `next` as `before`. Members only (others 404).",
)
def ended_encounters(
    request: HttpRequest,
    id: PathId,
    before: int | None = Query(None, ge=1, le=MAX_ID, description="The `next` of the page before."),
) -> dict[str, Any]:
    campaign = access.campaign_for(request.user, id)
    page, older = encounter_views.ended_page(campaign, before)
    return {"encounters": [_summary(e, e.taking_part) for e in page], "next": older}  # type: ignore[attr-defined]


# --- The GM sets up the fight --------------------------------------------------------------------


class StartIn(Schema):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, StringConstraints(max_length=120, pattern=ONE_LINE)] = Field(
        ..., description='The encounter\'s name: "Ambush at the ford".'
    )


@router.post(
    "/campaigns/{id}/encounters",
    response=responses({201: EncounterOut}, 400, 403, 404, 409, 413),
    summary="Start an encounter (GM)",
    description="The GM starts an encounter; a campaign runs one at a time (409 while one runs, or in a campaign "
    "whose rules have no fights). A blank name is a 400 naming `name`. Players 403, others 404.",
)
def start_encounter(request: HttpRequest, id: PathId, body: StartIn) -> Status[dict[str, Any]]:
    campaign = access.campaign_for(request.user, id, gm=True)
    started = encounters.start_encounter(campaign_id=campaign.pk, by=request.user, name=body.name)
    return Status(201, _now(request, campaign, started.pk))


class CharactersIn(Schema):
    model_config = ConfigDict(extra="forbid")
    characters: list[Key] = Field(
        ..., max_length=encounters.MAX_COMBATANTS, description="The campaign's active characters who join, by id."
    )


#: A GM's change of the fight: a body that is not JSON or a value the fight refuses (400), a player (403), an
#: outsider or something not in the fight (404), a fight that has ended or a move it does not allow now (409).
GM_RESPONSES: Final = responses({200: EncounterOut}, 400, 403, 404, 409, 413)


@router.post(
    "/campaigns/{id}/encounters/{eid}/characters",
    response=GM_RESPONSES,
    summary="Characters join the fight (GM)",
    description="Each brings the stat block its system makes from its sheet. Once initiative is rolled, each rolls "
    "its own as it joins and takes the place it earns in the order. None chosen is a 400 naming `characters`; a "
    "character who is not active in the campaign a 404; one already in the fight, or an encounter that has ended, "
    "a 409.",
)
def add_characters(request: HttpRequest, id: PathId, eid: PathId, body: CharactersIn) -> dict[str, Any]:
    campaign = access.campaign_for(request.user, id, gm=True)
    encounters.add_characters(
        campaign_id=campaign.pk,
        encounter_id=eid,
        by=request.user,
        character_ids=body.characters,
        rng=secrets.SystemRandom(),
    )
    return _now(request, campaign, eid)


class NpcsIn(Schema):
    model_config = ConfigDict(extra="forbid")
    name: Annotated[str, StringConstraints(max_length=encounters.MAX_NPC_NAME, pattern=ONE_LINE)] = Field(
        ..., description='Several get a number each: "Goblin 1", "Goblin 2"…'
    )
    count: StrictInt = Field(1, description=f"How many identical NPCs: 1 to {encounters.MAX_GROUP}.")
    stats: dict[str, FormValue] = Field(
        default_factory=dict,
        max_length=MAX_FIELDS,
        description="The stat block as the campaign's rules system takes it from the GM's NPC form on the encounter "
        "page: the same fields, by the same names, each as text (or a whole number); the system names each bad one.",
    )


@router.post(
    "/campaigns/{id}/encounters/{eid}/npcs",
    response=GM_RESPONSES,
    summary="NPCs join the fight (GM)",
    description="`count` identical NPCs with the stat block of `stats`, one group that may share an initiative roll; "
    "once initiative is rolled, the group rolls one as it joins. A blank name, a count out of range or a field "
    "the system refuses is a 400 naming each; an encounter that has ended a 409.",
)
def add_npcs(request: HttpRequest, id: PathId, eid: PathId, body: NpcsIn) -> dict[str, Any]:
    campaign = access.campaign_for(request.user, id, gm=True)
    encounters.add_npcs(
        campaign_id=campaign.pk,
        encounter_id=eid,
        by=request.user,
        name=body.name,
        stats=encounter_views.npc_stats(body.stats),
        count=body.count,
        rng=secrets.SystemRandom(),
    )
    return _now(request, campaign, eid)


class InitiativeIn(Schema):
    model_config = ConfigDict(extra="forbid")
    group_rolls: bool = Field(True, description="One roll for each group of identical NPCs added together.")


@router.post(
    "/campaigns/{id}/encounters/{eid}/initiative",
    response=GM_RESPONSES,
    summary="Roll initiative (GM)",
    description="Initiative for everyone in the fight, as the campaign's rules roll it, once per encounter; every "
    "roll goes in the roll log. A second time, or with nobody in the fight, a 409.",
)
def roll_initiative(request: HttpRequest, id: PathId, eid: PathId, body: InitiativeIn) -> dict[str, Any]:
    limits.check(request, limits.ROLLS)
    campaign = access.campaign_for(request.user, id, gm=True)
    encounters.roll_initiative(
        campaign_id=campaign.pk,
        encounter_id=eid,
        by=request.user,
        rng=secrets.SystemRandom(),
        group_rolls=body.group_rolls,
    )
    return _now(request, campaign, eid)


@router.post(
    "/campaigns/{id}/encounters/{eid}/next-turn",
    response=responses({200: EncounterOut}, 403, 404, 409),
    summary="Next turn (GM)",
    description="The next combatant in the order who can act has the turn; after the last, a new round begins. "
    "Before initiative, or when nobody can act, a 409.",
)
def next_turn(request: HttpRequest, id: PathId, eid: PathId) -> dict[str, Any]:
    campaign = access.campaign_for(request.user, id, gm=True)
    encounters.next_turn(campaign_id=campaign.pk, encounter_id=eid, by=request.user)
    return _now(request, campaign, eid)


# --- Attacks -------------------------------------------------------------------------------------


class AttackIn(Schema):
    model_config = ConfigDict(extra="forbid")
    attacker: Key = Field(..., description="The combatant who attacks.")
    target: Key = Field(..., description="The combatant attacked.")
    choices: dict[str, FormValue] = Field(
        default_factory=dict,
        max_length=MAX_FIELDS,
        description="The choices of the attack form on the encounter page, by the same names, as the campaign's rules "
        "system reads them (a weapon, a skill, a specialization, the situation…). A player chooses only their own "
        "side's; the rest is the GM's call (403).",
    )


class RollAttackIn(AttackIn):
    secret: bool = Field(False, description="GM only: the attack and its damage are secret rolls until revealed.")


class AttackChance(Schema):
    attacker: int
    target: int
    chance: str = Field(description='The exact chance before the roll, "p/q".')
    chance_of: str = Field(description="What it is the chance of.")
    label: str = Field(description="The attack in words, as the roll log will label it.")
    choices: dict[str, str] = Field(
        description="The choices as they apply: sent back as `choices`, the roll is exactly the attack shown."
    )


class Waiting(AttackChance):
    encounter: EncounterOut = Field(description="The encounter, whose `waiting` is this attack.")


class AnswerIn(Schema):
    model_config = ConfigDict(extra="forbid")
    answer: str = Field(..., max_length=64, description="One of the waiting attack's `answers`, by its `value`.")


class Attacked(AttackChance):
    damage: int = Field(description="The harm a hit did; 0 for a miss.")
    rolls: list[RollOut] = Field(description="The rolls the attack wrote to the log: the attack, then any damage.")
    encounter: EncounterOut = Field(description="The encounter after the attack.")


def _chance(plan: Any) -> dict[str, Any]:
    return {
        "attacker": plan.attacker,
        "target": plan.target,
        "chance": f"{plan.chance.numerator}/{plan.chance.denominator}",
        "chance_of": plan.chance_of,
        "label": plan.label,
        "choices": dict(plan.choices),
    }


def _texts(values: dict[str, Any]) -> dict[str, str]:
    """A form's values as the page's form sends them: text, a number as its digits, nothing as empty."""
    return {key: "" if value is None else str(value) for key, value in values.items()}


ATTACK_RESPONSES: Final = (400, 403, 404, 409, 413)


@router.post(
    "/campaigns/{id}/encounters/{eid}/attacks/chance",
    response=responses({200: AttackChance}, *ATTACK_RESPONSES),
    summary="The chance of an attack, before rolling",
    description="What the encounter page shows before the Roll button: the attack planned with `choices` and its "
    "exact chance; nothing is rolled or written. Only for an attack you may make now: the GM with anyone, a player "
    "with their own character on its turn (another's combatant or the GM's calls 403, out of turn 409). A choice "
    "the fight refuses is a 400 naming it.",
)
def attack_chance(request: HttpRequest, id: PathId, eid: PathId, body: AttackIn) -> dict[str, Any]:
    campaign = access.campaign_for(request.user, id)
    encounter = encounters.encounter_in(campaign, eid, lock=False)
    combatants = list(
        Combatant.objects.filter(encounter=encounter, removed=False).select_related("character").order_by("order", "pk")
    )
    preview = encounter_views.preview_attack(
        request.user, campaign, encounter, combatants, body.attacker, body.target, _texts(body.choices),
        choices_only=True,
    )  # fmt: skip
    return _chance(preview.plan)


@router.post(
    "/campaigns/{id}/encounters/{eid}/attacks",
    response=responses({201: Attacked, 202: Waiting}, *ATTACK_RESPONSES),
    summary="Roll an attack",
    description="The attack rolled on the server as the campaign's rules have it: the exact chance first, then the "
    "dice; a hit harms the target (a character's vitals on its sheet). Both rolls go in the roll log. The GM "
    "attacks with anyone, in `secret` if they wish; a player with their own character on its turn, in the open "
    "(another's combatant, a secret attack or the GM's calls 403; out of turn, or before initiative, 409). A choice "
    "the fight refuses is a 400 naming it. Where the target may still choose how to answer (D6: a dodge, a parry or "
    "none), nothing is rolled yet: 202, and the attack waits in the encounter's `waiting` for its answer.",
)
def attack(request: HttpRequest, id: PathId, eid: PathId, body: RollAttackIn) -> Status[dict[str, Any]]:
    limits.check(request, limits.ROLLS)
    campaign = access.campaign_for(request.user, id)
    gm = campaign.viewer.role == Membership.Role.GM  # type: ignore[attr-defined]
    result = encounters.attack(
        campaign_id=campaign.pk,
        encounter_id=eid,
        by=request.user,
        attacker_id=body.attacker,
        target_id=body.target,
        choices=encounter_views.attack_choices(campaign, _texts(body.choices), choices_only=True),
        rng=secrets.SystemRandom(),
        secret=body.secret,
    )
    return _attacked(request, campaign, eid, result, gm=gm)


def _attacked(
    request: HttpRequest, campaign: Campaign, eid: int, result: encounters.AttackResult, *, gm: bool
) -> Status[dict[str, Any]]:
    if result.roll is None:
        return Status(202, {**_chance(result.plan), "encounter": _now(request, campaign, eid)})
    return Status(
        201,
        {
            **_chance(result.plan),
            "damage": result.roll.damage,
            "rolls": [roll_out(roll, gm=gm) for roll in result.rolls],
            "encounter": _now(request, campaign, eid),
        },
    )


@router.post(
    "/campaigns/{id}/encounters/{eid}/attacks/waiting/answer",
    response=responses({201: Attacked}, *ATTACK_RESPONSES),
    summary="Answer the attack that waits for its target",
    description="The target's answer (one of `waiting.answers`; D6: a dodge, a parry, or none), chosen by its player "
    "or the GM; then the attack is rolled as its attacker made it, with the sheets as they stand now. No attack "
    "waiting 409; anyone else 403; an answer not offered 400.",
)
def answer_attack(request: HttpRequest, id: PathId, eid: PathId, body: AnswerIn) -> Status[dict[str, Any]]:
    limits.check(request, limits.ROLLS)
    campaign = access.campaign_for(request.user, id)
    gm = campaign.viewer.role == Membership.Role.GM  # type: ignore[attr-defined]
    result = encounters.defend(campaign_id=campaign.pk, encounter_id=eid, by=request.user, answer=body.answer,
                               rng=secrets.SystemRandom())  # fmt: skip
    return _attacked(request, campaign, eid, result, gm=gm)


@router.post(
    "/campaigns/{id}/encounters/{eid}/attacks/waiting/withdraw",
    response=responses({200: EncounterOut}, 403, 404, 409),
    summary="Withdraw the attack that waits for its target",
    description="By the GM or the one who made it: nothing is rolled. No attack waiting 409; anyone else 403.",
)
def withdraw_attack(request: HttpRequest, id: PathId, eid: PathId) -> dict[str, Any]:
    campaign = access.campaign_for(request.user, id)
    encounters.withdraw(campaign_id=campaign.pk, encounter_id=eid, by=request.user)
    return _now(request, campaign, eid)


# --- The GM's rulings ----------------------------------------------------------------------------


class AdjustIn(Schema):
    model_config = ConfigDict(extra="forbid")
    combatant: Key
    amount: StrictInt = Field(
        ...,
        ge=-(2**31),
        le=2**31,
        description=f"Healing (positive) or damage (negative) on the main track, up to {encounters.MAX_ADJUSTMENT} "
        "either way.",
    )
    reason: Annotated[str, StringConstraints(max_length=200, pattern=ONE_LINE)] = Field(..., description="For the log.")


@router.post(
    "/campaigns/{id}/encounters/{eid}/adjustments",
    response=GM_RESPONSES,
    summary="Heal or damage a combatant (GM)",
    description="The GM's change of a combatant's vitals, with a reason, in the roll log (a character's on its "
    "sheet, in its history). An amount of 0 or too large, or no reason, is a 400 naming each; a combatant not in "
    "the fight a 404.",
)
def adjust(request: HttpRequest, id: PathId, eid: PathId, body: AdjustIn) -> dict[str, Any]:
    campaign = access.campaign_for(request.user, id, gm=True)
    encounters.adjust(
        campaign_id=campaign.pk,
        encounter_id=eid,
        by=request.user,
        combatant_id=body.combatant,
        amount=body.amount,
        reason=body.reason,
    )
    return _now(request, campaign, eid)


class ActIn(Schema):
    model_config = ConfigDict(extra="forbid")
    action: Annotated[str, StringConstraints(max_length=40, pattern=ONE_LINE)] = Field(
        ..., description="One of the encounter's `actions`, by its key."
    )
    combatant: Key | None = Field(None, description="Whom, for a move on one combatant.")


class Acted(Schema):
    changed: list[int] = Field(description="The combatants the move changed.")
    encounter: EncounterOut


@router.post(
    "/campaigns/{id}/encounters/{eid}/actions",
    response=responses({200: Acted}, 400, 403, 404, 409, 413),
    summary="One of the system's moves in a fight (GM)",
    description="A move of the campaign's rules in a fight besides an attack (listed in the encounter's "
    "`actions`): on one combatant, or on everyone it applies to. A move the system lacks, or one combatant "
    "missing, is a 400 naming the field; a move that does not apply to that combatant now a 409.",
)
def act(request: HttpRequest, id: PathId, eid: PathId, body: ActIn) -> dict[str, Any]:
    limits.check(request, limits.ROLLS)
    campaign = access.campaign_for(request.user, id, gm=True)
    changed = encounters.act(
        campaign_id=campaign.pk, encounter_id=eid, by=request.user, action=body.action, combatant_id=body.combatant
    )
    return {"changed": [combatant.pk for combatant in changed], "encounter": _now(request, campaign, eid)}


class OrderMoveIn(Schema):
    model_config = ConfigDict(extra="forbid")
    combatant: Key
    direction: Literal["up", "down"] = Field(..., description="Up is earlier in the order.")


@router.post(
    "/campaigns/{id}/encounters/{eid}/order",
    response=GM_RESPONSES,
    summary="Move a combatant in the initiative order (GM)",
    description="The combatant swaps places with the next one up or down (a tie settled, or the GM's ruling), in the "
    "roll log; the turn stays with the place. Before initiative, or past either end, a 409.",
)
def move_in_order(request: HttpRequest, id: PathId, eid: PathId, body: OrderMoveIn) -> dict[str, Any]:
    campaign = access.campaign_for(request.user, id, gm=True)
    encounters.move_in_order(
        campaign_id=campaign.pk, encounter_id=eid, by=request.user, combatant_id=body.combatant,
        direction=body.direction,
    )  # fmt: skip
    return _now(request, campaign, eid)


class RemoveIn(Schema):
    model_config = ConfigDict(extra="forbid")
    reason: Annotated[str, StringConstraints(max_length=200, pattern=ONE_LINE)] = Field(
        "", description="Why it leaves (fled, captured…), for the log."
    )


@router.post(
    "/campaigns/{id}/encounters/{eid}/combatants/{cid}/remove",
    response=GM_RESPONSES,
    summary="A combatant leaves the fight (GM)",
    description="Off the order and out of reach of attacks, in the roll log with the vitals it left with; the log's "
    "references to it still read. A combatant not in the fight is a 404.",
)
def remove_combatant(request: HttpRequest, id: PathId, eid: PathId, cid: PathId, body: RemoveIn) -> dict[str, Any]:
    campaign = access.campaign_for(request.user, id, gm=True)
    encounters.remove_combatant(
        campaign_id=campaign.pk, encounter_id=eid, by=request.user, combatant_id=cid, reason=body.reason
    )
    return _now(request, campaign, eid)


@router.post(
    "/campaigns/{id}/encounters/{eid}/end",
    response=responses({200: EncounterSummary}, 403, 404, 409),
    summary="End the encounter (GM)",
    description="The encounter ends: it joins the list of ended encounters, and another may start. Ended already, "
    "a 409.",
)
def end_encounter(request: HttpRequest, id: PathId, eid: PathId) -> dict[str, Any]:
    campaign = access.campaign_for(request.user, id, gm=True)
    ended = encounters.end_encounter(campaign_id=campaign.pk, encounter_id=eid, by=request.user)
    return _summary(ended, Combatant.objects.filter(encounter=ended).count())
