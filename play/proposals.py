"""A player proposing a roll to the GM, where the GM calls the rolls ("The GM's calls", rules README).

Without a call a player sees the odds of a roll but cannot make it; instead they may propose it:
what their character would roll, said as the system's call (``situation_call``), with what only the
sheet adds beside it (Lucky 13: a specialization, an asset, a helper) and a short note of why
(:func:`propose`), so that the GM sees, and calls, the same roll at the same chance. The GM sees
the open proposals beside the requests, and calls one (:func:`call_proposal`: an ordinary roll
request of that character, as proposed or changed first) or declines it (:func:`decline`); the
player may withdraw one while it waits (:func:`withdraw`). A proposal is never deleted: the player
sees what became of it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Q, QuerySet
from django.utils import timezone

from campaigns.errors import Conflict, NotAllowed, NotFound, Refused
from campaigns.models import Membership
from campaigns.operations import gm_of
from characters.models import Character
from play import requests, sheet_rolls
from play.models import RollProposal, RollRequest
from rules.systems.base import SpecError

__all__ = ["call_proposal", "decline", "propose", "withdraw"]

#: The longest note a player may add to say why.
NOTE_LENGTH: Final = 200
#: A character's open proposals at most: the GM's list stays short, and a player cannot flood it.
MAX_OPEN: Final = 5
#: The proposals a list shows, newest first.
SHOWN: Final = 20
#: How long an answered proposal stays in its player's list, so they see it called or declined.
ANSWERED_SHOWN_FOR: Final = timedelta(hours=12)

NOT_FOUND: Final = "There is no such roll proposal."


def _note(note: str) -> str:
    note = note.strip()
    if len(note) > NOTE_LENGTH:
        message = f"At most {NOTE_LENGTH} characters."
        raise Refused(message, errors={"note": message})
    if any(ord(c) < 32 or 127 <= ord(c) < 160 for c in note):
        message = "Keep it on one line, without control characters."
        raise Refused(message, errors={"note": message})
    return note


def _announce(campaign_id: int) -> None:
    # The proposals are listed with the requests: the same fragment, read again by every dashboard.
    transaction.on_commit(lambda: requests.requests_changed.send(sender=RollProposal, campaign_id=campaign_id))


@transaction.atomic
def propose(*, character_id: int, by: AbstractBaseUser, situation: Mapping[str, Any], note: str = "") -> RollProposal:
    """``by``, the player of a character in play, proposes the roll ``situation`` makes from its sheet
    (as the sheet's roll page or the API builds one) to the GM, with ``note`` saying why. Only where
    the GM calls the rolls. Refused, with nothing proposed: by anyone but the character's player (403);
    in a campaign where players call their own rolls, for a character not in play, beyond
    :data:`MAX_OPEN` open proposals or for one already open (409); a situation the sheet cannot roll
    or a call cannot say, or a bad note (400, naming the field)."""
    character = Character.objects.select_for_update().select_related("campaign").filter(pk=character_id).first()
    if character is None:
        raise NotFound("There is no such character.")
    campaign = character.campaign
    role = Membership.objects.filter(campaign=campaign, user=by).values_list("role", flat=True).first()
    if role is None:
        raise NotFound("There is no such character.")
    if role == Membership.Role.GM:
        raise NotAllowed("The GM calls rolls: call this one from the dashboard.")
    if character.owner_id != by.pk:
        raise NotAllowed(f"Only {character.name}’s player can propose {character.name}’s rolls.")
    if campaign.archived_at is not None:
        raise Conflict("This campaign is archived.")
    if character.status != Character.Status.ACTIVE:
        raise Conflict("Only a character in play can propose a roll.")
    if campaign.players_call_rolls:
        raise Conflict("In this campaign players call their own rolls: roll it.")
    text = _note(note)
    system = character.rules
    helpers = sheet_rolls.helpers_for(character, helper=sheet_rolls.named_in(character, situation), limit=0)
    try:
        sheet_rolls.build(character, helpers, situation, gm=False)  # all of it as the page built it
        said = system.situation_call(character.document, situation, campaign.settings)
    except SpecError as error:
        message = f"This roll cannot be proposed: {error.message}."
        raise Refused(message, errors={error.field or "situation": message}) from None
    call = requests.parse_call(campaign, said.model_dump(mode="json"))
    document = call.model_dump(mode="json")
    added = {k: v for k, v in situation.items() if k not in system.called_situation and v is not None}
    try:  # the GM's view of it: the call with what the sheet adds, the same roll the page built
        sheet_rolls.build_proposed(character, document, added)
    except SpecError as error:
        message = f"This roll cannot be proposed: {error.message}."
        raise Refused(message, errors={error.field or "situation": message}) from None
    waiting = list(RollProposal.objects.open().filter(character=character).values_list("call", "added"))
    if (document, added) in waiting:
        raise Conflict("This roll is proposed already: it waits for the GM.")
    if len(waiting) >= MAX_OPEN:
        raise Conflict(f"{character.name} has {MAX_OPEN} proposals waiting for the GM already.")
    made = RollProposal.objects.create(
        campaign=campaign,
        character=character,
        by=by,
        call=document,
        added=added,
        label=system.call_words(call, campaign.settings)[:200],
        note=text,
    )
    _announce(campaign.pk)
    return made


def _locked(campaign_id: int, proposal_id: int) -> RollProposal:
    proposal = (
        RollProposal.objects.select_for_update()
        .select_related("character")
        .filter(campaign_id=campaign_id, pk=proposal_id)
        .first()
    )
    if proposal is None:
        raise NotFound(NOT_FOUND)
    if proposal.state == RollProposal.State.CALLED:
        raise Conflict("The GM has called this roll already.")
    if proposal.state == RollProposal.State.DECLINED:
        raise Conflict("The GM has declined this roll already.")
    if proposal.state == RollProposal.State.WITHDRAWN:
        raise Conflict("This proposal was withdrawn.")
    return proposal


def _close(proposal: RollProposal, state: str, request: RollRequest | None = None) -> RollProposal:
    proposal.state, proposal.closed_at, proposal.request = state, timezone.now(), request
    proposal.save(update_fields=["state", "closed_at", "request"])
    _announce(proposal.campaign_id)
    return proposal


@transaction.atomic
def call_proposal(
    *,
    campaign_id: int,
    proposal_id: int,
    by: AbstractBaseUser,
    call: Mapping[str, Any] | None = None,
    characters: Sequence[int] | None = None,
    secret: bool = False,
) -> RollRequest:
    """The GM calls a proposed roll: an ordinary roll request (:func:`play.requests.call_for_roll`) of
    the proposal's character for what it proposed, or for ``call`` and ``characters`` where the GM
    changed them first; the proposal closes as called. Its character's answer starts from what its
    player added from the sheet (a specialization, an asset, a helper), so the roll called is the roll
    proposed, at the same chance; where the GM's change leaves no room for them (another skill),
    the player adds what fits when answering. Refused as a call is, and once the proposal is answered
    or withdrawn (409)."""
    gm_of(campaign_id, by)
    proposal = _locked(campaign_id, proposal_id)
    made = requests.call_for_roll(
        campaign_id=campaign_id,
        by=by,
        call=proposal.call if call is None else call,
        characters=[proposal.character_id] if characters is None else characters,
        secret=secret,
        added={proposal.character_id: proposal.added},
    )
    asked = made.asked.filter(character_id=proposal.character_id).select_related("request").first()
    if asked is not None and sheet_rolls.added_of(proposal.character, asked):
        try:
            sheet_rolls.as_asked(proposal.character, asked)
        except SpecError:
            asked.situation = sheet_rolls.called(proposal.character, asked)
            asked.save(update_fields=["situation"])
    _close(proposal, RollProposal.State.CALLED, made)
    return made


@transaction.atomic
def decline(*, campaign_id: int, proposal_id: int, by: AbstractBaseUser) -> RollProposal:
    """The GM declines a proposed roll: nothing is asked, and its player sees it declined."""
    gm_of(campaign_id, by)
    return _close(_locked(campaign_id, proposal_id), RollProposal.State.DECLINED)


@transaction.atomic
def withdraw(*, campaign_id: int, proposal_id: int, by: AbstractBaseUser) -> RollProposal:
    """The player takes back a proposal that still waits for the GM (only their own: anyone else's is a 404)."""
    proposal = _locked(campaign_id, proposal_id)
    if proposal.by_id != by.pk:
        raise NotFound(NOT_FOUND)
    return _close(proposal, RollProposal.State.WITHDRAWN)


# --- What the pages list ---------------------------------------------------------------------------


def open_proposals(campaign_id: int) -> QuerySet[RollProposal]:
    """The GM's view: the newest :data:`SHOWN` open proposals, with their characters and players."""
    rows = RollProposal.objects.open().filter(campaign_id=campaign_id)
    return rows.select_related("character", "by").order_by("-pk")[:SHOWN]


def proposals_of(user: AbstractBaseUser, campaign_id: int) -> QuerySet[RollProposal]:
    """A player's view: their newest :data:`SHOWN` proposals that wait, or were called or declined in
    the last :data:`ANSWERED_SHOWN_FOR` (one range of the (campaign, by, id) index)."""
    since = timezone.now() - ANSWERED_SHOWN_FOR
    answered = Q(state__in=[RollProposal.State.CALLED, RollProposal.State.DECLINED], closed_at__gte=since)
    rows = RollProposal.objects.filter(campaign_id=campaign_id, by=user.pk)
    shown = rows.filter(Q(state=RollProposal.State.OPEN) | answered)
    return shown.select_related("character", "request", "by").order_by("-pk")[:SHOWN]
