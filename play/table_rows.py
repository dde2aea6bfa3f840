"""A campaign's table row: read (made the first time it is needed) and saved, for the table's own moves
(:mod:`play.table`) and for a sheet move that also changes the table (:mod:`play.moves`: a card drawn
into a hand on a roll's doubles). Saving validates the new document by its model, counts the version,
marks the parts it changed, appends the change to the table's history and, after commit, tells every
open page the table changed (each fetches its own view: nothing hidden travels in the announcement).
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from typing import Any, Final, NamedTuple

import django.dispatch
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Aggregate, Case, IntegerField, OuterRef, QuerySet, Subquery, TextField, Value, When
from pydantic import BaseModel, ValidationError

from campaigns.errors import NotFound, Refused
from campaigns.models import Campaign, Membership
from characters.models import Character
from play.models import Table, TableChange
from rules import systems
from rules.systems.base import Role, RulesSystem
from rules.systems.moves import TableRules, Viewer
from web.kept import Kept
from web.prepared import Prepared, fetch_together

__all__ = [
    "UNREAD", "TableRead", "read", "row", "rules_of", "save", "seen", "table_changed", "table_read_of", "version_of",
    "viewer", "with_table_read",
]  # fmt: skip

#: Sent after commit with ``campaign_id`` and ``version`` whenever a campaign's table changes: open pages listen.
table_changed = django.dispatch.Signal()


class _Unread(enum.Enum):
    UNREAD = "unread"


#: The viewer's role in the campaign is not known yet: read it.
UNREAD: Final = _Unread.UNREAD


def viewer(campaign: Campaign, user: AbstractBaseUser, role: str | _Unread | None = UNREAD) -> Viewer | None:
    """The user as the table sees them (the GM, or a player, with their characters in play), or None for
    someone outside the campaign. ``role``: their membership's role as the caller read it (None: not a
    member), or read here."""
    role = role_of(campaign, user, role)
    if role is None:
        return None
    return _viewer(user, role, (c.pk for c in characters_in_play(campaign=campaign.pk, owner=user.pk)))


def role_of(campaign: Campaign, user: AbstractBaseUser, role: str | _Unread | None = UNREAD) -> str | None:
    """The user's role in the campaign (None: not a member): ``role`` when the caller read it."""
    if role is UNREAD:
        return Membership.objects.filter(campaign=campaign, user_id=user.pk).values_list("role", flat=True).first()
    return role


def _viewer(user: AbstractBaseUser, role: str, characters: Iterable[int]) -> Viewer:
    """The user as the table sees them, a member with ``role`` and the ids of their characters in play."""
    return Viewer(Role.GM if role == Membership.Role.GM else Role.PLAYER, user.pk, frozenset(characters))


#: A member's characters in play in a campaign (their ids), compiled once: every sheet page with a table asks.
characters_in_play = Prepared(
    Character,
    lambda campaign, owner: Character.objects.active().filter(campaign_id=campaign, owner_id=owner).only("pk"),
)
#: The campaign's table row, compiled once: every sheet page with a table reads it.
table_row = Prepared(Table, lambda campaign: Table.objects.filter(campaign_id=campaign)[:1])


def rules_of(campaign: Campaign) -> TableRules:
    """The campaign's table rules, or :class:`NotFound` when its system keeps no table."""
    rules: RulesSystem = campaign.rules
    if rules.table is None:
        raise NotFound(f"{rules.name} keeps no table of its own.")
    return rules.table


def row(campaign: Campaign, *, lock: bool) -> Table:
    """The campaign's table row. Read before anything was done at the table, it is a new table for the
    campaign's options, not saved (a page that only looks writes nothing); locked for a move, it is made."""
    if lock:
        found = Table.objects.select_for_update().filter(campaign=campaign).first()
    else:
        found = next(iter(table_row(campaign=campaign.pk)), None)
    if found is None:
        if not lock:
            return unsaved_row(campaign)
        document = rules_of(campaign).new(campaign.settings).model_dump(mode="json")
        found, _ = Table.objects.get_or_create(campaign=campaign, defaults={"system": campaign.system,
                                                                           "document": document})  # fmt: skip
        found = Table.objects.select_for_update().get(pk=found.pk)
    return found


def unsaved_row(campaign: Campaign) -> Table:
    """The table of a campaign that has no row yet, as a page that only looks sees it: new, not saved."""
    document = rules_of(campaign).new(campaign.settings).model_dump(mode="json")
    return Table(campaign=campaign, system=campaign.system, document=document)


def version_of(campaign_id: int) -> int:
    """The version of the campaign's table (0 before its row is first needed), without making the row."""
    return Table.objects.filter(campaign_id=campaign_id).values_list("version", flat=True).first() or 0


def read(campaign: Campaign, table: Table) -> Any:
    """The row's document read through the system's table model."""
    return rules_of(campaign).read(table.document)


def save(
    campaign: Campaign, table: Table, state: BaseModel, *, parts: Iterable[str], move: str, words: str,
    by: AbstractBaseUser,
) -> None:  # fmt: skip
    """Save ``state`` as the campaign's table (the row locked by the caller): validated by its model (a
    :class:`Refused` when it cannot be left so), its version counted, ``parts`` marked changed at it, the
    change in the table's history, and open pages told after commit."""
    try:
        after = rules_of(campaign).model.model_validate(state.model_dump(mode="json"))
    except ValidationError as error:
        raise Refused(f"The table cannot be left like this: {error.errors()[0]['msg']}.") from None
    before, document = table.document, after.model_dump(mode="json")
    table.version += 1
    table.document = document
    table.part_versions = {**table.part_versions, **dict.fromkeys(parts, table.version)}
    table.save(update_fields=["version", "document", "part_versions"])
    TableChange.objects.create(campaign=campaign, version=table.version, by=by, move=move, what=words[:500],
                               before=before, after=document)  # fmt: skip
    campaign_id, version = campaign.pk, table.version
    transaction.on_commit(
        lambda: table_changed.send(sender=Table, campaign_id=campaign_id, version=version), robust=True
    )


def seen(
    campaign: Campaign, user: AbstractBaseUser, role: str | _Unread | None = UNREAD, *, known: TableRead | None = None
) -> tuple[Mapping[str, Any], int] | None:
    """What ``user`` may see of the campaign's table (a sheet page shows the character's hand from it) and
    the table's version, or None when its system keeps no table or the user is not a member (``role`` as
    :func:`viewer` takes it). ``known``: what that view is made of, read by the caller with the character
    (:func:`with_table_read`): the view is then the one kept for it (:data:`VIEWS`), the table read only
    when none is. The view is shared by the pages that show it: read it, never change it."""
    if campaign.rules.table is None:
        return None
    role = role_of(campaign, user, role)
    if role is None:
        return None
    if known is not None:
        who = _viewer(user, role, known.in_play)
        key = (campaign.pk, campaign.created_at, known.version, who, campaign.settings_key)
        return VIEWS.get(key, lambda: _view_read(campaign, who))
    # The viewer's characters and the table's row, in one trip to the database.
    characters, rows = fetch_together(
        (characters_in_play, {"campaign": campaign.pk, "owner": user.pk}), (table_row, {"campaign": campaign.pk})
    )
    who = _viewer(user, role, (pk for (pk,) in characters.columns(Character._meta.pk)))
    return _view(campaign, rows.instance(0) if len(rows) else None, who)


def _view_read(campaign: Campaign, who: Viewer) -> tuple[Mapping[str, Any], int]:
    """The view of the table as it is now, for ``who``, and its version: its row read."""
    return _view(campaign, next(iter(table_row(campaign=campaign.pk)), None), who)


def _view(campaign: Campaign, table: Table | None, who: Viewer) -> tuple[Mapping[str, Any], int]:
    """``who``'s view of the table ``table`` (None: the campaign has no row yet, and its table is the new one of
    its options) and the table's version."""
    table = table or unsaved_row(campaign)
    return rules_of(campaign).view(read(campaign, table), who, campaign.settings), table.version


#: Views of tables as :func:`seen` shows them, kept by what each is made of: the campaign (its id, and when it
#: was made: an id SQLite gives again after a deletion is another campaign), the version of its table (None
#: before it has a row: the new table of its options), the viewer (their role, their id, their characters in
#: play) and the campaign's options. A table changes only through :func:`save`, which counts
#: its version; a row made by a move is the new table of the options until then, whose view is the same.
VIEWS: Final[Kept[tuple[Mapping[str, Any], int]]] = Kept(2048)


class TableRead(NamedTuple):
    """What a viewer's view of a campaign's table is made of, read with a sheet's character: the table's
    version (None before it has a row) and the ids of the viewer's characters in play in the campaign."""

    version: int | None
    in_play: frozenset[int]


class IdsText(Aggregate):
    """The ids of a group as one text, separated by commas, in no particular order (SQLite's
    ``GROUP_CONCAT``, PostgreSQL's ``STRING_AGG``)."""

    function = "GROUP_CONCAT"
    output_field = TextField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra_context: Any) -> Any:
        return self.as_sql(
            compiler, connection, function="STRING_AGG", template="%(function)s((%(expressions)s)::text, ',')",
            **extra_context,
        )  # fmt: skip


def with_table_read(characters: QuerySet[Character], viewer: int) -> QuerySet[Character]:
    """Adds what ``viewer``'s view of each character's campaign's table is made of (:func:`table_read_of`):
    ``table_version``, the version of the table's row (None: no row yet), and ``in_play_ids``, the viewer's
    characters in play there (their ids, as text). Read with a sheet's character, so that its page reads
    no more of the table than its kept view (:func:`seen`). Neither is read for a character of a shipped
    system that keeps no table (both None: its sheet shows none)."""
    version = Table.objects.filter(campaign=OuterRef("campaign")).values("version")[:1]
    in_play = (
        Character.objects.active()
        .filter(campaign=OuterRef("campaign"), owner_id=viewer)
        .order_by()
        .values("campaign")
        .annotate(ids=IdsText("pk"))
        .values("ids")
    )
    tableless = [key for key in systems.KEYS if systems.get(key).table is None]

    def unless_tableless(read: Subquery, field: IntegerField | TextField) -> Case:
        return Case(When(campaign__system__in=tableless, then=Value(None)), default=read, output_field=field)

    return characters.annotate(
        table_version=unless_tableless(Subquery(version), IntegerField()),
        in_play_ids=unless_tableless(Subquery(in_play), TextField()),
    )


def table_read_of(character: Character) -> TableRead | None:
    """What :func:`with_table_read` read with ``character``, or None when it was read without it."""
    read = character.__dict__
    if "table_version" not in read or "in_play_ids" not in read:
        return None
    ids = read["in_play_ids"]
    return TableRead(read["table_version"], frozenset(int(pk) for pk in ids.split(",")) if ids else frozenset())
