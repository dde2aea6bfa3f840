"""Who may see and change a character: the campaign's members see it; its owner and
the campaign's GM change it; anyone else gets a 404. Views load characters only through here."""

from __future__ import annotations

import operator
from functools import reduce
from typing import Any

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.core.exceptions import PermissionDenied
from django.db import connections
from django.db.models import Q, QuerySet, TextField
from django.db.models.functions import Cast
from django.http import Http404

from campaigns.access import is_gm
from campaigns.models import Campaign, Membership
from characters import exchange, sheets
from characters.lifecycle import finished
from characters.models import SHEET_TEXT, Character, Reader
from rules.systems.base import Awaiting
from web.prepared import Prepared

#: What a player who left or was removed reads of the table through their own character: nothing.
NOT_AT_THE_TABLE = (
    "You are no longer in this campaign: your character's sheet is still yours to read, but not the table."
)


def character_for(
    user: AbstractBaseUser | AnonymousUser, pk: int, *, write: bool = False, at_table: bool = False
) -> Character:
    """The character ``pk`` as ``user`` may see it, with ``can_edit`` set; 404 or 403 otherwise.
    ``at_table``: a page that shows the rest of the party too (its rolls, its dice as helpers or
    opponents), which only the campaign's members see."""
    if not user.is_authenticated:
        raise Http404("No such character")
    found = _CHARACTER_QUERY(pk=pk, viewer=user.pk)
    return _as_seen(found[0] if found else None, user, write=write, at_table=at_table)


def locked_for(user: AbstractBaseUser | AnonymousUser, pk: int, read: Reader) -> Character:
    """The character ``pk`` as :func:`character_for` gives it to ``user`` for a write (the same 404s and
    403s), locked for that write in the caller's transaction (``Character.objects.lock``, the lock
    :func:`characters.write.lock` takes) and read with what ``read`` adds: a write whose checks and whose
    change read the character once, under its lock."""
    if not user.is_authenticated:
        raise Http404("No such character")
    return _as_seen(Character.objects.lock(pk, read, viewer=user.pk), user, write=True, at_table=False)


def sheet_character(user: AbstractBaseUser | AnonymousUser, pk: int) -> Character:
    """The character ``pk`` as :func:`character_for` gives it to ``user`` (the same 404s), read for its
    sheet page in one query (:func:`_sheet_rows`, compiled once): with ``newest_entry``, the id of its
    newest ledger entry (None before any), which names the latest entries the page shows without reading
    them, and what the apps above this one read with it (``sheets.also_read``)."""
    if not user.is_authenticated:
        raise Http404("No such character")
    found = _SHEET_QUERY(pk=pk, viewer=user.pk)
    return _as_seen(found[0] if found else None, user, write=False, at_table=False)


def _sheet_rows(*, pk: int, viewer: int) -> QuerySet[Character]:
    """The sheet page's one query: the character, its campaign and owner, the viewer's role, its balances,
    its newest ledger entry, the digest of its sheet's content (``sheets.with_content_key``) and what the apps
    above read with it."""
    rows = Character.objects.select_related("campaign", "owner").filter(pk=pk).annotate_role(viewer)
    # The sheet as text, decoded only if the page is drawn (``Character.refresh_from_db``): a page shown again
    # from what was kept finds its sheet by the digest the database works out of it.
    rows = rows.defer("sheet").annotate(**{SHEET_TEXT: Cast("sheet", TextField())})
    return sheets.read_with(sheets.with_content_key(rows.with_balances().with_newest_entry()), viewer)


#: Compiled once per database and read with each page's ids: building and compiling it through the ORM
#: cost more than running it, as much as the rest of the page together (its subqueries are resolved and
#: copied anew on every build).
_SHEET_QUERY = Prepared(Character, _sheet_rows)


def _character_rows(*, pk: int, viewer: int) -> QuerySet[Character]:
    """:func:`character_for`'s one query: the character, its campaign and owner, the viewer's role and its
    balances."""
    return Character.objects.select_related("campaign", "owner").filter(pk=pk).annotate_role(viewer).with_balances()


#: Compiled once per database, as :data:`_SHEET_QUERY` is: every page and action on a character reads it first.
_CHARACTER_QUERY = Prepared(Character, _character_rows)


def _as_seen(character: Character | None, user: AbstractBaseUser, *, write: bool, at_table: bool) -> Character:
    """The checks of :func:`character_for` on the character it read (None: no such character)."""
    # Members see the campaign's characters; a player who left or was removed still sees their own.
    if character is None or (character.viewer_role is None and character.owner_id != user.pk):
        raise Http404("No such character")
    is_gm = character.viewer_role == Membership.Role.GM
    is_owner = character.owner_id == user.pk
    # A draft is the owner's work in progress: the GM may look, other players may not.
    if character.status == Character.Status.DRAFT and not (is_owner or is_gm):
        raise Http404("No such character")
    # ... and stays theirs when archived before it was ever finished (a departing player's draft).
    if character.status == Character.Status.ARCHIVED and not (is_owner or is_gm) and not finished(character):
        raise Http404("No such character")
    archived = character.status == Character.Status.ARCHIVED or character.campaign.archived_at is not None
    member = character.viewer_role is not None
    if at_table and not member:
        raise PermissionDenied(NOT_AT_THE_TABLE)
    character.can_edit = (is_owner or is_gm) and member and not archived
    character.viewer_is_gm = is_gm
    if write and not character.can_edit:
        if character.campaign.archived_at is not None:
            raise PermissionDenied("This campaign is archived: its sheets can be read but not changed.")
        if character.status == Character.Status.ARCHIVED:
            raise PermissionDenied("This character is archived and can no longer be changed.")
        raise PermissionDenied("Only the character's player and the GM can change this sheet.")
    return character


# --- The campaign's characters a member may see, a page or a choice at a time -------------------


def _shown_by_status(campaign: Campaign, user: AbstractBaseUser | AnonymousUser) -> list[Q]:
    """Which of the campaign's characters ``user`` may see, one part per status: every active
    character, the viewer's own drafts, and (for the GM) every draft, with the server's rolls in
    it, and the archived ones. Each part is one range of the index on (campaign, status, name, id)."""
    if is_gm(user, campaign):
        return [Q(status=status) for status in Character.Status.values]
    return [Q(status=Character.Status.ACTIVE), Q(status=Character.Status.DRAFT, owner=user.pk)]


def listed_characters(campaign: Campaign, user: AbstractBaseUser | AnonymousUser) -> QuerySet[Character]:
    """The characters the campaign page lists for ``user``, with their owners, in order of name: every
    active character, the viewer's own drafts, and (for the GM) every draft, with the server's
    rolls in it, and the archived ones. A query, to be read a page at a time."""
    shown = reduce(operator.or_, _shown_by_status(campaign, user))
    return Character.objects.filter(shown, campaign=campaign).select_related("owner").order_by("name", "pk")


def character_choices(
    campaign: Campaign, user: AbstractBaseUser | AnonymousUser, *, limit: int, name_starts: str = ""
) -> list[Character]:
    """The first ``limit`` characters by (name, id) of those :func:`listed_characters` gives
    ``user``, only those whose name starts with ``name_starts`` (in any case) if it is given: what a
    page offers to choose from. Only their ids and names are loaded.

    One query however large the campaign: for each status the viewer may see, the index on
    (campaign, status, name, id) is read in order and stops after ``limit`` rows, and only those
    few are merged (UNION ALL) and cut to ``limit``; no sort of the whole party. A name start is
    matched as the index is read (the index orders names as they are, not case-folded), so a start
    that few names have reads further along it."""
    rows = Character.objects.filter(campaign=campaign).only("name")
    if name_starts:
        rows = rows.filter(name__istartswith=name_starts)
    parts = [rows.filter(shown).order_by("name", "pk")[:limit] for shown in _shown_by_status(campaign, user)]
    if not connections[rows.db].features.supports_slicing_ordering_in_compound:
        # SQLite takes no LIMIT in a member of a UNION: there each member is its first ids, looked up by key.
        parts = [Character.objects.filter(pk__in=part.values("pk")).only("name").order_by() for part in parts]
    return list(parts[0].union(*parts[1:], all=True).order_by("name", "pk")[:limit])


def character_choice(campaign: Campaign, user: AbstractBaseUser | AnonymousUser, pk: int) -> Character | None:
    """The character ``pk`` if it is one of the campaign's that :func:`listed_characters` gives
    ``user`` (None otherwise), with only its id and name loaded: one query, by its key."""
    shown = reduce(operator.or_, _shown_by_status(campaign, user))
    return Character.objects.filter(shown, campaign=campaign, pk=pk).only("pk", "name").first()


# --- What waits for the GM ---------------------------------------------------------------------


def awaiting_gm(campaign: Campaign) -> QuerySet[Character]:
    """The campaign's characters (drafts and the party) with items waiting for the GM's approval, by
    name: a query, read a page at a time on the partial index of those that wait."""
    return (
        Character.objects.filter(campaign=campaign, awaiting__gt=0)
        .exclude(status=Character.Status.ARCHIVED)
        .select_related("owner")
    )


#: The item of the GM's list that stands for an imported character waiting for the GM's decision.
ARRIVAL_ITEM = "arrival"


def awaiting_row(character: Character) -> dict[str, Any]:
    """A character as the GM's list of what waits shows it: an import that waits for the GM's decision,
    then each waiting item, in its system's words."""
    items = list(character.rules.awaiting(character.document))
    if character.arrival:
        items.insert(0, Awaiting(item=ARRIVAL_ITEM, words=exchange.arrival_words(character)))
    return {"character": character, "items": items}
