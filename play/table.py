"""A campaign's table: the document its system keeps for everyone at once (a deck and the hands, a party's
checklist, coin and supplies), each member shown only their own view of it, and the table's moves.

A table move takes the steps every move takes (:func:`play.moves.perform`) around the table's own:
the campaign's table row locked, the maker's role checked (the GM, or a player of the campaign), the
parts it is made from checked against the version the maker read (a 409 :class:`StaleTable` with the
maker's view of the table as it is now; nothing written), the new document validated by its model and
saved with its version and each changed part's, the change appended to the table's history (the GM
reads it), and every open page told the table changed (each fetches its own view: nothing hidden ever
travels in the announcement). The engine removes what a viewer must not see (:attr:`TableRules.view`)
before anything reaches a template, a socket or the API.
"""

from __future__ import annotations

import secrets
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from campaigns.errors import Conflict, NotAllowed, NotFound, Refused
from campaigns.models import Campaign
from characters.write import sentence
from play import table_rows
from play.models import Table, TableChange
from play.moves import perform, record
from play.table_rows import table_changed, viewer
from rules.systems.base import Role
from rules.systems.moves import Made, Move, Prompt, Scope, Situation, Viewer, find

__all__ = [
    "OfferedAtTable",
    "StaleTable",
    "make",
    "offered",
    "prompt_for",
    "table_changed",
    "view_for",
    "viewer",
]


class StaleTable(Conflict):
    """A part of the table the move is made from changed since the version its maker read: nothing was
    done. ``now`` is the maker's view of the table as it is now."""

    code = "stale_version"

    def __init__(self, move: Move, now: Mapping[str, Any], version: int) -> None:
        super().__init__(
            f"The table changed since the version this {move.label.lower()} was made from, so nothing was done. "
            "This is how it stands now."
        )
        self.now = dict(now)
        self.version = version


@dataclass(frozen=True, slots=True)
class Seen:
    """A member's view of the table: what the engine lets them see, its version, and the decision that
    waits for them, if any."""

    view: Mapping[str, Any]
    version: int
    prompt: Prompt | None


def view_for(campaign: Campaign, user: AbstractBaseUser) -> Seen:
    """What ``user`` may see of the campaign's table; :class:`NotFound` for someone outside it."""
    who = viewer(campaign, user)
    if who is None:
        raise NotFound("No such campaign.")
    rules = table_rows.rules_of(campaign)
    row = table_rows.row(campaign, lock=False)
    state = rules.read(row.document)
    waiting = rules.prompt(state, who)
    # A decision is shown only to the one it waits for, whatever a system's prompt returns.
    return Seen(
        rules.view(state, who, campaign.settings), row.version, waiting if waiting and waiting.to == who.user else None
    )


def _table_moves(campaign: Campaign) -> tuple[Move, ...]:
    options = campaign.settings
    return tuple(m for m in campaign.rules.moves if m.scope is Scope.TABLE and m.offered(options))


def _forbidden(campaign: Campaign, move: Move, who: Viewer | None) -> str | None:
    if who is None:
        return "Only the campaign's members play at its table."
    if campaign.archived_at is not None:
        return "This campaign is archived: its table can be read but not changed."
    if who.role not in move.who:
        return sentence(move.note or f"only the GM can do this: {move.label.lower()}")
    return None


def _made_from(row: Table, move: Move) -> int:
    return max((int(row.part_versions.get(part, 0)) for part in move.parts), default=row.version)


@dataclass(frozen=True, slots=True)
class OfferedAtTable:
    """A table move as a member sees it now: the move, why they may not make it (None: they may), and
    the version to make it from."""

    move: Move
    why_not: str | None
    version: int


def offered(campaign: Campaign, user: AbstractBaseUser) -> list[OfferedAtTable]:
    """Every table move the campaign offers, each with why ``user`` may not make it now."""
    if campaign.rules.table is None:
        return []
    who = viewer(campaign, user)
    row = table_rows.row(campaign, lock=False)
    state = table_rows.read(campaign, row)
    out = []
    for move in _table_moves(campaign):
        why = _forbidden(campaign, move, who)
        if why is None and who is not None:
            said = move.why_not(Situation(state, campaign.settings, who.role, who))
            why = sentence(said) if said else None
        out.append(OfferedAtTable(move, why, _made_from(row, move)))
    return out


def prompt_for(campaign: Campaign, user: AbstractBaseUser) -> Prompt | None:
    """The decision that waits for ``user`` at the table, if any."""
    return view_for(campaign, user).prompt


@transaction.atomic
def make(*, campaign_id: int, key: str, version: int, given: Mapping[str, Any], by: AbstractBaseUser) -> Made:
    """Make the table move ``key`` in the campaign, as ``by``, from the table ``version`` they read, with
    ``given`` for its input. Raises :class:`NotFound` (no such campaign for them, or no such move),
    :class:`NotAllowed` (why, for them), :class:`StaleTable` (409), or :class:`Refused` (400: the input,
    or the rules, with the reason by its field); nothing is written then."""
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    who = viewer(campaign, by) if campaign is not None else None
    if campaign is None or who is None:
        raise NotFound("No such campaign.")
    move = find(_table_moves(campaign), key)
    if move is None:
        raise NotFound("There is no such move at this campaign's table.")
    forbidden = _forbidden(campaign, move, who)
    if forbidden is not None:
        raise NotAllowed(forbidden)
    rules = table_rows.rules_of(campaign)
    row = table_rows.row(campaign, lock=True)
    state = rules.read(row.document)
    if version > row.version or _made_from(row, move) > version:
        raise StaleTable(move, rules.view(state, who, campaign.settings), row.version)
    situation = Situation(state, campaign.settings, who.role, who, secrets.SystemRandom())
    not_now = move.why_not(situation)
    if not_now:
        raise Refused(sentence(not_now))
    made = perform(move, situation, given)
    logged = record(made, campaign_id=campaign.pk, by=by)
    state = made.state if made.then is None else made.then(made.state, tuple(r.seq for r in logged))
    table_rows.save(campaign, row, state, parts=made.changed or move.parts, move=move.key, words=made.words, by=by)
    return made


def history(campaign: Campaign, user: AbstractBaseUser, *, before: int | None = None, size: int = 50) -> list[Any]:
    """The table's changes, newest first, ``size`` at most, older than version ``before`` when given: the
    GM's to read (they hold what the table hides); :class:`NotAllowed` for a player."""
    who = viewer(campaign, user)
    if who is None:
        raise NotFound("No such campaign.")
    if who.role is not Role.GM:
        raise NotAllowed("Only the GM reads the table's history: it holds what the table hides.")
    rows = TableChange.objects.filter(campaign=campaign).select_related("by").order_by("-version")
    if before is not None:
        rows = rows.filter(version__lt=before)
    return list(rows[:size])
