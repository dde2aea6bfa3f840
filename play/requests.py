"""Roll requests: the GM calls for a roll ("The GM's calls", rules README).

The GM names what is rolled and against what — in the system's words, a document of its
``call_model`` — and asks it of one character or several in play (:func:`call_for_roll`). Each
player sees the request with its exact chance and rolls it from the dashboard or the sheet
(:func:`play.sheet_rolls.roll` with the :class:`~play.models.RollAsked`), adding only what the call
leaves to the sheet (Lucky 13: a specialization, an asset, a helper). Each character's row keeps the
call resolved on their sheet, its items by id (Lucky 13's skill), so renaming a skill leaves an open
request as it was. The log keeps who called each roll. A request closes when the last character
has rolled, or when the GM cancels what is left; a secret request's answers are secret rolls until
the GM reveals them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import F, Prefetch, Q, QuerySet
from django.dispatch import Signal
from django.utils import timezone
from pydantic import ValidationError

from campaigns.errors import Conflict, NotFound, Refused

__all__ = ["Conflict", "NotFound", "Refused", "call_for_roll", "cancel"]
from campaigns.models import Campaign
from campaigns.operations import gm_of
from characters.models import Character
from play.models import Roll, RollAsked, RollRequest
from rules.systems.base import SpecError
from web.prepared import Prepared

#: The most characters one request asks (the award form's bound: a page of the party).
MAX_ASKED: Final = 30
#: The open requests a page lists, newest first (a GM rarely has more than a few open).
SHOWN: Final = 20

#: How long a player's answer to a secret request stays listed for them, until the GM reveals it.
SECRET_SHOWN_FOR: Final = timedelta(hours=12)

#: Sent once a request is made, answered or closed, after the commit: open dashboards read theirs again.
requests_changed = Signal()


def _problem(error: ValidationError) -> dict[str, str]:
    """A call's validation errors by field, in a player's words."""
    out: dict[str, str] = {}
    for item in error.errors():
        field = str(item["loc"][0]) if item["loc"] else "call"
        out.setdefault(field, _words(item["type"], item.get("ctx") or {}))
    return out


def _words(kind: str, ctx: Mapping[str, Any]) -> str:
    if kind in ("enum", "literal_error"):
        return "Choose one of the choices offered."
    if kind == "less_than_equal":
        return f"At most {ctx['le']}."
    if kind == "greater_than_equal":
        return f"At least {ctx['ge']}."
    if kind.startswith("int") or kind.startswith("float"):
        return "A whole number, please."
    if kind == "string_too_long":
        return f"At most {ctx['max_length']} characters."
    if kind == "string_too_short":
        return "This cannot be empty."
    if kind == "extra_forbidden":
        return "This is not part of a call."
    return "This value is not allowed here."


def parse_call(campaign: Campaign, call: Mapping[str, Any]) -> Any:
    """The call as its system reads it, each campaign-dependent choice checked (a 400 naming the field)."""
    system = campaign.rules
    try:
        parsed = system.call_model.model_validate(dict(call))
    except ValidationError as error:
        errors = _problem(error)
        raise Refused(" ".join(errors.values()), errors=errors) from None
    for key, choices in system.call_choices(campaign.settings).items():
        value = getattr(parsed, key, None)
        value = getattr(value, "value", value)
        if value is not None and str(value) not in {str(choice) for choice, _ in choices}:
            message = "Choose one of the campaign's choices."
            raise Refused(message, errors={key: message})
    return parsed


@transaction.atomic
def call_for_roll(
    *,
    campaign_id: int,
    by: AbstractBaseUser,
    call: Mapping[str, Any],
    characters: Sequence[int],
    secret: bool,
    added: Mapping[int, Mapping[str, Any]] | None = None,
) -> RollRequest:
    """The GM asks ``characters`` (ids of characters in play, at most :data:`MAX_ASKED`) to roll what
    ``call`` names, resolved on each sheet (its items by id); ``added`` gives, by character, what the
    answer starts from of the sheet's own parts (a called proposal's). Refused, with nothing asked: by
    anyone but the GM (403); a bad call or a character not in play, or one whose sheet cannot make the
    roll (400, naming it: Lucky 13, a skill linked to no ability where the call names none)."""
    campaign = gm_of(campaign_id, by)
    parsed = parse_call(campaign, call)
    wanted = list(dict.fromkeys(characters))
    if not wanted:
        raise Refused("Choose who rolls.", errors={"characters": "Choose who rolls."})
    if len(wanted) > MAX_ASKED:
        message = f"A request asks at most {MAX_ASKED} characters."
        raise Refused(message, errors={"characters": message})
    found = {c.pk: c for c in Character.objects.filter(campaign=campaign, pk__in=wanted).active()}
    if len(found) != len(wanted):
        message = "Only characters in play can be asked to roll."
        raise Refused(message, errors={"characters": message})
    system = campaign.rules
    situations: dict[int, dict[str, Any]] = {}
    for pk, character in found.items():
        try:
            fixed = system.call_situation(character.document, parsed, campaign.settings)
        except SpecError as error:
            message = f"{character.name} cannot make this roll: {error.message}."
            raise Refused(message, errors={error.field or "characters": message}) from None
        own = {k: v for k, v in (added or {}).get(pk, {}).items() if k not in system.called_situation}
        situations[pk] = {**own, **fixed}
        if secret and _made_by_a_move(campaign, character, situations[pk]):
            message = DECIDED_IN_SIGHT.format(name=character.name)
            raise Refused(message, errors={"secret": message})
    request = RollRequest.objects.create(
        campaign=campaign,
        by=by,
        call=parsed.model_dump(mode="json"),
        label=system.call_words(parsed, campaign.settings)[:200],
        secret=secret,
    )
    RollAsked.objects.bulk_create(
        [RollAsked(request=request, character_id=pk, situation=situations[pk]) for pk in wanted]
    )
    transaction.on_commit(lambda: requests_changed.send(sender=RollRequest, campaign_id=campaign.pk))
    return request


#: Why a roll whose dice leave a decision is never called in secret: the decision waits on the sheet, in sight.
DECIDED_IN_SIGHT: Final = (
    "{name}'s roll leaves a decision after its dice, which waits on the sheet for everyone at the table to see, "
    "so it cannot be called in secret."
)


def _made_by_a_move(campaign: Campaign, character: Character, situation: Mapping[str, Any]) -> bool:
    """Whether the roll the situation makes from the character's sheet is made by a move (its dice leave a
    decision: :attr:`rules.systems.base.SheetRoll.move`)."""
    try:
        return campaign.rules.sheet_roll(character.document, situation, campaign.settings).move is not None
    except SpecError:
        return False


@transaction.atomic
def cancel(*, campaign_id: int, request_id: int, by: AbstractBaseUser) -> RollRequest:
    """The GM closes a request: whoever has not rolled it yet no longer can (their rolls stay as made)."""
    campaign = gm_of(campaign_id, by)
    request = RollRequest.objects.select_for_update().filter(campaign=campaign, pk=request_id).first()
    if request is None:
        raise NotFound("There is no such roll request.")
    if not request.is_open:
        raise Conflict("This roll request is closed already.")
    request.closed_at = timezone.now()
    request.save(update_fields=["closed_at"])
    transaction.on_commit(lambda: requests_changed.send(sender=RollRequest, campaign_id=campaign.pk))
    return request


def lock_open(asked_id: int, character: Character) -> RollAsked:
    """The request's row for ``character``, locked, while it still waits for the roll (in the caller's
    transaction); 409 once answered or closed."""
    asked = (
        RollAsked.objects.select_for_update()
        .select_related("request__by")
        .filter(pk=asked_id, character_id=character.pk, request__campaign_id=character.campaign_id)
        .first()
    )
    if asked is None:
        raise NotFound("There is no such roll request for this character.")
    if asked.roll_id is not None:
        raise Conflict("This roll request has been rolled already.")
    if not asked.request.is_open:
        raise Conflict("The GM has closed this roll request.")
    return asked


def answered(asked: RollAsked, roll: Roll) -> None:
    """Mark ``asked`` (locked by :func:`lock_open`) answered by ``roll``; the request closes with its last answer."""
    asked.roll = roll
    asked.save(update_fields=["roll"])
    request = asked.request
    if not RollAsked.objects.filter(request=request, roll__isnull=True).exists():
        RollRequest.objects.filter(pk=request.pk).update(closed_at=timezone.now())
    transaction.on_commit(lambda: requests_changed.send(sender=RollRequest, campaign_id=request.campaign_id))


def asked_of(user: AbstractBaseUser, asked_id: int, character: Character) -> RollAsked:
    """An open request's row for ``character`` (loaded for ``user`` by the caller's access check)."""
    asked = (
        RollAsked.objects.select_related("request__by")
        .filter(pk=asked_id, character_id=character.pk, roll__isnull=True, request__closed_at__isnull=True)
        .first()
    )
    if asked is None:
        raise NotFound("This roll request is not open for this character.")
    return asked


# --- What the pages list ---------------------------------------------------------------------------


def open_requests_of(campaign_id: Any) -> QuerySet[RollRequest]:
    """The GM's view: the newest :data:`SHOWN` open requests, each with what it asks of whom and the answers,
    in two queries (the requests; what they ask, with each character's name and each answer's number in the
    log, what the list shows of them). ``campaign_id``: the campaign's id, or an expression of it."""
    asked = RollAsked.objects.select_related("character", "roll").only(
        "request_id", "character_id", "roll_id", "character__name", "roll__seq"
    )
    return (
        RollRequest.objects.open()
        .filter(campaign_id=campaign_id)
        .select_related("by")
        .prefetch_related(Prefetch("asked", queryset=asked.order_by("pk")))
        .order_by("-pk")[:SHOWN]
    )


#: :func:`open_requests_of`, compiled once (the GM's dashboard reads it on every load).
open_requests_prepared = Prepared(RollRequest, lambda campaign: open_requests_of(campaign))


def open_requests(campaign_id: int) -> list[RollRequest]:
    """The GM's view: the newest :data:`SHOWN` open requests, each with its characters and answers."""
    return open_requests_prepared(campaign=campaign_id)


def asked_of_player(user: AbstractBaseUser, campaign_id: int) -> list[RollAsked]:
    """A player's dashboard, in one query: what the open requests still ask of ``user``'s characters, and
    their answers to secret requests of the last :data:`SECRET_SHOWN_FOR` that the GM has not revealed
    yet (the feed shows them nothing, so the list says they were rolled); waiting ones first, newest
    first, at most :data:`SHOWN`."""
    since = timezone.now() - SECRET_SHOWN_FOR
    waiting = Q(roll__isnull=True, request__closed_at__isnull=True)
    hidden = Q(roll__secret=True, roll__reveal__isnull=True, roll__created_at__gte=since)
    rows = RollAsked.objects.filter(waiting | hidden, request__campaign_id=campaign_id, character__owner=user)
    rows = rows.select_related("request__by", "character__campaign", "roll")
    return list(rows.order_by(F("roll").asc(nulls_first=True), "-request_id", "pk")[:SHOWN])


def waiting_for(user: AbstractBaseUser, campaign_id: int) -> QuerySet[RollAsked]:
    """A player's view: what the open requests still ask of ``user``'s characters, newest first,
    at most :data:`SHOWN`."""
    return (
        RollAsked.objects.filter(
            request__campaign_id=campaign_id,
            request__closed_at__isnull=True,
            roll__isnull=True,
            character__owner=user,
        )
        .select_related("request__by", "character__campaign")
        .order_by("-request_id", "pk")[:SHOWN]
    )
