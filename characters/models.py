"""A character of any rules system, its sheet history, and its ledger of the system's currencies.

A character's sheet is one JSON document that its system describes and validates (the limits
of the rule text live in the system's sheet model, ``rules/systems/<key>/``); the row keeps
what every system shares. ``version`` rises with every save; a save made from an older
version is refused (see ``characters.sheets``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Final

from django.conf import settings
from django.db import connection, connections, models
from django.db.models import Exists, OuterRef, Q, Subquery
from django.db.transaction import TransactionManagementError
from django.utils import timezone

from campaigns.models import AppendOnlyModel, AppendOnlyQuerySet, Campaign, Membership
from rules import systems
from rules.systems.base import Currency, RulesSystem
from web.kept import Kept
from web.prepared import Prepared, fetch_together


class JSONObjectAgg(models.Aggregate):
    """A group's rows as one JSON object, ``{key: value, …}`` (SQLite's ``json_group_object``,
    PostgreSQL's ``jsonb_object_agg``): Django 5.2 has no such aggregate for both."""

    function = "JSON_GROUP_OBJECT"
    output_field = models.JSONField()

    def as_postgresql(self, compiler: Any, connection: Any, **extra_context: Any) -> Any:
        return super().as_sql(compiler, connection, function="JSONB_OBJECT_AGG", **extra_context)


class CharacterQuerySet(models.QuerySet["Character"]):
    def annotate_role(self, user: Any) -> CharacterQuerySet:
        """Adds ``viewer_role``: the user's role in each character's campaign (or None)."""
        role = Membership.objects.filter(campaign=OuterRef("campaign"), user=user).values("role")[:1]
        return self.annotate(viewer_role=Subquery(role))

    def lock(self, pk: int, read: Reader | None = None, *, viewer: int | None = None) -> Character | None:
        """The character, locked for a write, with its campaign (locked first) selected, in two queries:
        the campaign locked (found by the character's row), then the character (on PostgreSQL both sent at
        once: ``web.prepared.fetch_together``).

        Every write that locks a campaign and one of its characters takes the campaign first
        (the roll log and encounters do too), so two such writes queue instead of deadlocking.
        ``read``: what else the caller reads with the character (annotations), under the campaign's lock;
        ``viewer``: a user whose role in the campaign is read with it (``viewer_role``, :meth:`annotate_role`),
        and who must be able to see the character at all for anything to be locked (None otherwise).
        """
        if not self.query.has_filters():
            # Both queries compiled once per database (and ``read``): building them cost more than the rest of
            # a move. A compiled lock no longer passes Django's check that it is made in a transaction: here it is.
            database = connections[self.db]
            if database.get_autocommit() and database.features.supports_transactions:
                raise TransactionManagementError("A character is locked only in a transaction.")
            prepared = _LOCKED_READS.get(read or "plain", lambda: Prepared(Character, _locked_rows(read)))
            # Sent together, answered in one trip (the second query, run once the first holds the lock, reads
            # what the campaign's other writes committed before it).
            ids = {"character": pk} if viewer is None else {"character": pk, "viewer": viewer}
            campaign, found = fetch_together((_CAMPAIGN_LOCK, ids), (prepared, ids))
            return found.instance(0) if campaign and found else None
        seen = self.filter(pk=pk).filter(_seen_by(viewer)) if viewer is not None else self.filter(pk=pk)
        campaign_of = seen.order_by().values("campaign_id")[:1]
        if not list(Campaign.objects.select_for_update().filter(pk=Subquery(campaign_of)).values_list("pk", flat=True)):
            return None
        rows = self.select_for_update(of=("self",)).select_related("campaign").filter(pk=pk)
        rows = rows.filter(_seen_by(viewer)).annotate_role(viewer) if viewer is not None else rows
        return (read(rows) if read is not None else rows).first()

    def active(self) -> CharacterQuerySet:
        """Finished characters in play: not drafts, not archived."""
        return self.filter(status=Character.Status.ACTIVE)

    def with_newest_entry(self) -> CharacterQuerySet:
        """Adds ``newest_entry``: the id of each character's newest ledger entry (None before any), read in
        the same query by the per-character index, as :meth:`LedgerEntryQuerySet.newest_of` reads it."""
        newest = (
            LedgerEntry.objects.filter(character_id__gte=OuterRef("pk"), character_id__lte=OuterRef("pk"))
            .order_by("character_id", "-id")
            .values("id")[:1]
        )
        return self.annotate(newest_entry=Subquery(newest))

    def with_balances(self) -> CharacterQuerySet:
        """Adds ``balances_held``: each currency's balance by key (None when nothing has moved),
        read in the same query, so that a page of characters shows their balances at no cost."""
        held = (
            Balance.objects.filter(character=OuterRef("pk"))
            .values("character")
            .annotate(held=JSONObjectAgg("currency", "amount"))
            .values("held")
        )
        return self.annotate(balances_held=Subquery(held, output_field=models.JSONField()))


#: What a caller reads with a character it locks (:meth:`CharacterQuerySet.lock`): annotations on its rows.
Reader = Callable[[CharacterQuerySet], CharacterQuerySet]


def _seen_by(viewer: int) -> Q:
    """The characters ``viewer`` may see at all: those of a campaign they are a member of, and their own (a
    player who left still sees theirs; ``characters.access``). A lock taken for a viewer is taken on these
    alone: an outsider's write is a 404 that locked nothing, rather than one that queued behind the
    campaign's writes and held up the next."""
    member = Membership.objects.filter(campaign=OuterRef("campaign_id"), user=viewer)
    return Q(Exists(member)) | Q(owner=viewer)


def _campaign_lock_rows(*, character: int, viewer: int | None = None) -> models.QuerySet[Campaign]:
    """:meth:`CharacterQuerySet.lock`'s first query: the character's campaign, locked (found by the character's row;
    with ``viewer``, only where they may see the character: :func:`_seen_by`)."""
    found = Character.objects.filter(pk=character)
    found = found.filter(_seen_by(viewer)) if viewer is not None else found
    campaign_of = found.order_by().values("campaign_id")[:1]
    return Campaign.objects.select_for_update().filter(pk=Subquery(campaign_of)).order_by().only("pk")


#: Compiled once per database: every write on a character takes this lock first.
_CAMPAIGN_LOCK: Final = Prepared(Campaign, _campaign_lock_rows)


def _locked_rows(
    read: Callable[[CharacterQuerySet], CharacterQuerySet] | None,
) -> Callable[..., CharacterQuerySet]:
    """:meth:`CharacterQuerySet.lock`'s second query, with what ``read`` adds: the character, locked, with its
    campaign (and the role of ``viewer`` in it, when given)."""

    def rows(*, character: int, viewer: int | None = None) -> CharacterQuerySet:
        locked = Character.objects.select_for_update(of=("self",)).select_related("campaign").filter(pk=character)
        locked = locked.filter(_seen_by(viewer)).annotate_role(viewer) if viewer is not None else locked
        return read(locked) if read is not None else locked

    return rows


#: The second query compiled for each ``read`` a caller gives (a function of its module: a handful).
_LOCKED_READS: Final[Kept[Prepared[Character]]] = Kept(limit=32)

#: Sheets read into their system's documents, by their system and their content as JSON text: a sheet is
#: read on its page, in a move and its announcement, on the dashboard's card, each from a row of its own.
#: Documents are frozen and shared, as every page that shows a sheet shares them (``characters.sheets``).
KEPT_DOCUMENTS: Final = 256
DOCUMENTS: Final[Kept[Any]] = Kept(limit=KEPT_DOCUMENTS)


def read_document(rules: RulesSystem, sheet: Any) -> Any:
    """``rules.read_sheet(sheet)``, kept for the process by the system (the very one: a system registered
    again reads afresh) and the sheet's content. A sheet the system refuses is refused every time."""
    text = json.dumps(sheet, separators=(",", ":"), sort_keys=True, default=str)
    return DOCUMENTS.get((rules.key, id(rules), text), lambda: rules.read_sheet(sheet))


@dataclass(frozen=True, slots=True)
class Holding:
    """A balance as a page shows it: the currency (its key, name and abbreviation) and the amount."""

    currency: Currency
    amount: int


#: The annotation a query reads a character's sheet as, as text, with the field deferred: decoded only when the
#: sheet is first asked for (:meth:`Character.refresh_from_db`).
SHEET_TEXT: Final = "sheet_text"


class Character(models.Model):
    """What every system's character shares; the rest is its ``sheet``, a document its system
    validates (``rules.systems.get(system).read_sheet``). Every change of the sheet goes through
    ``characters.write.write`` (the one write path), which records it in :class:`SheetChange`."""

    class Status(models.TextChoices):
        DRAFT = "draft", "Draft"
        ACTIVE = "active", "Active"
        ARCHIVED = "archived", "Archived"

    campaign = models.ForeignKey("campaigns.Campaign", on_delete=models.PROTECT, related_name="characters")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="characters")
    name = models.CharField(max_length=120)
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.DRAFT)
    #: The rules system the sheet follows: the campaign's, copied so that the row says what its document is.
    system = models.CharField(max_length=20, editable=False)
    #: The whole sheet as its system's document (``schema_version`` inside).
    sheet = models.JSONField(default=dict)

    #: Rises with every save of the sheet; a save made from an older version is refused.
    version = models.PositiveIntegerField(default=1)
    #: The version at which each section of the sheet last changed: a save from an open
    #: section form is refused only if that section changed since the form was shown.
    section_versions = models.JSONField(default=dict, blank=True)
    #: How many of the sheet's items wait for the GM's approval (``rules.awaiting``), kept by the write
    #: path: the campaign page and the dashboard find what waits by an index, not by reading sheets.
    awaiting = models.PositiveSmallIntegerField(default=0)
    #: An import from elsewhere that waits for the GM's decision (``characters.exchange``): the status it
    #: arrived with, the campaign it came from and whether this server vouched for its rolls; the
    #: character is a draft until the GM approves it as it stands or has it checked as a fresh creation.
    arrival = models.JSONField(null=True, blank=True, default=None)
    created_at = models.DateTimeField(auto_now_add=True)
    updated_at = models.DateTimeField(auto_now=True)

    objects = CharacterQuerySet.as_manager()

    class Meta:
        ordering = ["name", "pk"]
        #: The party and the campaign page's lists are read a page at a time by (name, id) within
        #: a campaign and a status: in this index's order, stopping at the page's end, with no sort
        #: of the campaign's characters (PostgreSQL's plan: Index Scan, then Limit).
        indexes = [
            models.Index(fields=["campaign", "status", "name", "id"], name="characters_by_campaign_name"),
            models.Index(fields=["campaign", "name", "id"], name="characters_awaiting_gm", condition=Q(awaiting__gt=0)),
        ]
        constraints = [
            models.CheckConstraint(condition=~Q(name=""), name="characters_character_name_not_blank"),
            models.CheckConstraint(condition=Q(version__gte=1), name="characters_character_version_positive"),
            models.CheckConstraint(
                condition=Q(status__in=["draft", "active", "archived"]), name="characters_character_status"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self.system:  # a new character follows its campaign's system
            self.system = self.campaign.system
        super().save(*args, **kwargs)

    @property
    def rules(self) -> RulesSystem:
        return systems.get(self.system)

    def refresh_from_db(self, using: str | None = None, fields: Any = None, from_queryset: Any = None) -> None:
        """Django's, but for a sheet read as text and not yet decoded (:data:`SHEET_TEXT`, with the field
        deferred: a page that may not need the document spares decoding it), which is decoded from that
        text when first asked for, as the field decodes what the database sends, with no query."""
        if fields is not None and list(fields) == ["sheet"] and SHEET_TEXT in self.__dict__:
            field = self._meta.get_field("sheet")
            self.sheet = field.from_db_value(self.__dict__[SHEET_TEXT], None, connections[self._state.db or "default"])
            return
        super().refresh_from_db(using=using, fields=fields, from_queryset=from_queryset)

    @property
    def counted_by(self) -> dict[str, Any]:
        """The options the sheet is checked by: the campaign's; an import that waits for the GM is still
        counted as it was where it came from (the options it carried, ``arrival["origin"]``), until the
        GM's decision takes it in by this campaign's."""
        origin = (self.arrival or {}).get("origin")
        settings = self.campaign.settings
        return {**settings, **origin} if origin else settings

    @property
    def document(self) -> Any:
        """The sheet as its system's document (read once per instance; ``sheets.write`` resets it), and once
        per process for each content of a sheet (:data:`DOCUMENTS`)."""
        cached = self.__dict__.get("_document")
        if cached is None or cached[0] is not self.sheet:
            cached = (self.sheet, read_document(self.rules, self.sheet))
            self.__dict__["_document"] = cached
        return cached[1]

    @property
    def holdings(self) -> list[Holding]:
        """The balance in each currency of the character's system, in the system's order (0 where
        nothing has moved yet), then any other currency its ledger holds: from ``with_balances``
        when the character was loaded with it, otherwise in one query."""
        if "balances_held" in self.__dict__:
            held = dict(self.__dict__["balances_held"] or {})
        else:
            held = dict(self.balances.values_list("currency", "amount"))
        declared = [Holding(c, held.pop(c.key, 0)) for c in self.rules.currencies]
        return declared + [Holding(Currency(key, key, key), amount) for key, amount in sorted(held.items())]


class SheetChangeQuerySet(AppendOnlyQuerySet):
    def newest_of(self, character_id: int, *, before: int | None = None) -> SheetChangeQuerySet:
        """The character's changes, newest first (older than change ``before`` when given), in the
        order of ``characters_sheetchange_recent``: a range on the character, for the reason
        :meth:`LedgerEntryQuerySet.newest_of` gives."""
        rows = self.filter(character_id__gte=character_id, character_id__lte=character_id)
        if before is not None:
            rows = rows.filter(pk__lt=before)
        return rows.order_by("character_id", "-id")

    def discard_draft(self, character: Character) -> None:
        """A deleted draft takes its history with it (the only rows of this table ever removed)."""
        with connection.cursor() as cursor:
            cursor.execute("DELETE FROM characters_sheetchange WHERE character_id = %s", [character.pk])


class SheetChange(AppendOnlyModel):
    """One change of a character's sheet: who, when, what (in words), the sheet before and after.
    Written once by the write path; never changed (code and a PostgreSQL trigger refuse)."""

    #: No index of its own: ``characters_sheetchange_recent`` and the one-per-version constraint lead with it.
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="sheet_changes", db_index=False)
    #: The character's version this change made.
    version = models.PositiveIntegerField()
    what = models.CharField(max_length=200)
    sections = models.JSONField(default=list)
    before = models.JSONField()
    after = models.JSONField()
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    objects = SheetChangeQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        indexes = [models.Index(fields=["character", "-id"], name="characters_sheetchange_recent")]
        constraints = [
            models.UniqueConstraint(fields=["character", "version"], name="characters_sheetchange_one_per_version"),
        ]

    def __str__(self) -> str:
        return f"{self.character_id} v{self.version}: {self.what}"


class CreationDice(models.Model):
    """The server's dice of one creation step, kept with the player and the campaign: a draft that
    is deleted leaves them here (``character`` becomes null), and the player's next draft in the
    campaign rolls that step with them again, so starting over never rolls anew. ``draws`` are the
    random source's draws in order (see ``characters.creation_dice``)."""

    campaign = models.ForeignKey(Campaign, on_delete=models.CASCADE, related_name="+")
    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    step = models.CharField(max_length=40)
    character = models.ForeignKey(Character, on_delete=models.SET_NULL, null=True, related_name="+")
    draws = models.JSONField(default=list)
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        indexes = [models.Index(fields=["campaign", "owner", "step", "id"], name="characters_creationdice_kept")]
        constraints = [
            models.UniqueConstraint(
                fields=["character", "step"], name="characters_creationdice_one_per_step",
                condition=Q(character__isnull=False),
            ),
        ]  # fmt: skip

    def __str__(self) -> str:
        return f"{self.owner_id} in {self.campaign_id}: {self.step}"


# --- The ledger (Lucky 13: Adventure Points) and reputation: append-only histories --------------

MAX_ENTRY: Final = 1000
"""The largest amount one ledger entry may move, either way."""
#: The longest currency key a system may declare (the columns' width).
MAX_CURRENCY: Final = 20


class Balance(models.Model):
    """A character's balance in one currency of its system: the sum of its ledger entries in that
    currency, changed only with one (``characters.ledger``), under the character's row lock.

    A row exists once the ledger has moved that currency (or a migrated balance was not 0); no
    row reads as 0, so a draft that never earned anything has none and can still be deleted.
    """

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="balances")
    currency = models.CharField(max_length=MAX_CURRENCY)
    amount = models.PositiveIntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["character", "currency"], name="characters_balance_one_per_currency"),
            models.CheckConstraint(condition=Q(amount__gte=0), name="characters_balance_not_negative"),
            models.CheckConstraint(condition=~Q(currency=""), name="characters_balance_currency_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.character_id}: {self.amount} {self.currency}"


class LedgerEntryQuerySet(AppendOnlyQuerySet):
    def for_character(self, character: Character) -> LedgerEntryQuerySet:
        return self.filter(character=character).select_related("by", "reverses", "reversed_by")

    def newest_of(self, character_id: int, *, before: int | None = None) -> LedgerEntryQuerySet:
        """The character's entries, newest first (older than entry ``before`` when given): a page is
        read in the order of the per-character index and stops at its end, however large the table.

        Written as a range on the character (``>= id AND <= id``) ordered by (character, −id), the
        index's own order: an equality would let PostgreSQL drop the character from the ordering
        and walk the primary key backwards instead, filtering out every newer entry of every other
        character (a character with a long ledger looks, to the planner, as if its entries were
        spread evenly along the table). Nothing but ``characters_ledger_by_character`` gives this
        order, so the plan is that index, then Limit."""
        rows = self.filter(character_id__gte=character_id, character_id__lte=character_id)
        if before is not None:
            rows = rows.filter(pk__lt=before)
        return rows.order_by("character_id", "-id")


class LedgerEntry(AppendOnlyModel):
    """One movement of a character's balance in one currency of its system (Lucky 13: Adventure
    Points). Written once, never changed or removed: a mistake is put right by a correction, which
    reverses an earlier entry by reference, in the same currency.

    ``balance`` is the character's balance in ``currency`` after this entry, kept under the
    character's row lock (see ``characters.ledger``), so the history shows a running balance
    without a sum.
    """

    class Kind(models.TextChoices):
        AWARD = "award", "Award"
        SPEND = "spend", "Spend"
        CORRECTION = "correction", "Correction"

    #: No index of its own: ``characters_ledger_by_character`` leads with it (a second one only
    #: tempted the planner into reading a character's whole ledger and sorting it).
    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="ledger_entries", db_index=False)
    kind = models.CharField(max_length=10, choices=Kind.choices)
    #: The key of one of the system's currencies (``RulesSystem.currencies``).
    currency = models.CharField(max_length=MAX_CURRENCY)
    amount = models.IntegerField()
    balance = models.PositiveIntegerField()
    reason = models.CharField(max_length=200)
    adventure = models.CharField(max_length=120, blank=True)
    #: A correction names the entry it reverses; an entry is reversed at most once.
    reverses = models.OneToOneField("self", on_delete=models.PROTECT, null=True, blank=True, related_name="reversed_by")
    #: What a spend bought, as the engine's Purchase: {"kind", "skill", "name", "ability", "before", "after"}.
    purchase = models.JSONField(default=dict, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    objects = LedgerEntryQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        verbose_name_plural = "ledger entries"
        indexes = [models.Index(fields=["character", "-id"], name="characters_ledger_by_character")]
        constraints = [
            models.CheckConstraint(
                condition=Q(amount__gte=-MAX_ENTRY, amount__lte=MAX_ENTRY) & ~Q(amount=0),
                name="characters_ledgerentry_amount_bounds",
            ),
            models.CheckConstraint(condition=Q(balance__gte=0), name="characters_ledgerentry_balance_not_negative"),
            models.CheckConstraint(
                condition=~Q(kind="award") | Q(amount__gt=0), name="characters_ledgerentry_award_adds"
            ),
            models.CheckConstraint(
                condition=~Q(kind="spend") | Q(amount__lt=0), name="characters_ledgerentry_spend_takes"
            ),
            models.CheckConstraint(
                condition=Q(kind="correction", reverses__isnull=False)
                | (~Q(kind="correction") & Q(reverses__isnull=True)),
                name="characters_ledgerentry_correction_reverses",
            ),
            models.CheckConstraint(
                condition=Q(kind__in=["award", "spend", "correction"]), name="characters_ledgerentry_kind"
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="characters_ledgerentry_reason_not_blank"),
            models.CheckConstraint(condition=~Q(currency=""), name="characters_ledgerentry_currency_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.amount:+d} {self.currency} for {self.character_id}: {self.reason}"


class AdventureTallyQuerySet(models.QuerySet["AdventureTally"]):
    def add(self, tallies: Iterable[AdventureTally]) -> None:
        """Add each of ``tallies`` (unsaved) to its adventure's row, by character, currency and
        adventure: what it earned and spent is added to the row's, and a row not there yet is begun
        with it (its ``began`` and its campaign), in one ``INSERT … ON CONFLICT DO UPDATE`` for all
        (PostgreSQL's and SQLite's upsert; more only past the database's limit on parameters). Two of
        the same adventure are summed first, as one statement may change a row only once. Adding
        never reads a row, so it counts right under the ledger's lock of the character and without."""
        merged: dict[tuple[int, str, str], AdventureTally] = {}
        for tally in tallies:
            key = (tally.character_id, tally.currency, tally.adventure)
            if key in merged:
                kept = merged[key]
                kept.earned, kept.spent = kept.earned + tally.earned, kept.spent + tally.spent
                kept.began = min(kept.began, tally.began)
            else:
                merged[key] = tally
        if not merged:
            return
        database = connections[self.db]
        meta, quote = self.model._meta, database.ops.quote_name
        fields = [
            meta.get_field(name)
            for name in ("character", "campaign", "currency", "adventure", "began", "earned", "spent")
        ]
        table, columns = quote(meta.db_table), [quote(field.column) for field in fields]
        key_columns = ", ".join(quote(meta.get_field(name).column) for name in ("character", "currency", "adventure"))
        added = ", ".join(f"{column} = {table}.{column} + EXCLUDED.{column}" for column in columns[-2:])
        rows = list(merged.values())
        size = max(database.ops.bulk_batch_size(fields, rows), 1)
        # Written by hand because the ORM cannot add on conflict: bulk_create(update_conflicts=True,
        # unique_fields=…, update_fields=…) takes field names only and sets each to the new row's value
        # (``col = EXCLUDED.col``), with no expression such as ``F(col) + EXCLUDED.col`` (Django 5.2;
        # ticket #36567). What is put into the SQL below is only names quoted by the database's own
        # ``quote_name``, from the model's metadata, and ``%s`` placeholders: every value is a parameter,
        # prepared by its field as the ORM prepares it.
        with database.cursor() as cursor:
            for start in range(0, len(rows), size):
                batch = rows[start : start + size]
                values = ", ".join(["(" + ", ".join(["%s"] * len(fields)) + ")"] * len(batch))
                cursor.execute(
                    f"INSERT INTO {table} ({', '.join(columns)}) VALUES {values} "  # noqa: S608
                    f"ON CONFLICT ({key_columns}) DO UPDATE SET {added}",
                    [
                        field.get_db_prep_save(getattr(tally, field.attname), connection=database)
                        for tally in batch
                        for field in fields
                    ],
                )


class AdventureTally(models.Model):
    """A character's points in one currency in one adventure (``""``: no adventure named): what was
    earned and what was spent, and the entry that began it (the adventure's first). The sum of its
    ledger entries, kept by ``characters.ledger`` in the transaction that writes each entry, under
    the character's row lock, as :class:`Balance` is; so the ledger's chart reads the latest
    adventures a few rows at a time, by an index, instead of grouping every entry the character
    ever had. A correction counts as what it reverses: taking back an award lowers what was
    earned, refunding a purchase lowers what was spent."""

    character = models.ForeignKey(Character, on_delete=models.PROTECT, related_name="+", db_index=False)
    #: The character's campaign, kept here so that the adventures a campaign has named (the award
    #: form's suggestions) are read by an index of their own, not through every character's.
    campaign = models.ForeignKey(Campaign, on_delete=models.PROTECT, related_name="+", db_index=False)
    currency = models.CharField(max_length=MAX_CURRENCY)
    adventure = models.CharField(max_length=120, blank=True)
    #: The id of the adventure's first entry: the chart's order, the order the adventures began.
    began = models.BigIntegerField()
    earned = models.IntegerField(default=0)
    spent = models.IntegerField(default=0)

    objects = AdventureTallyQuerySet.as_manager()

    class Meta:
        #: The chart reads a character's latest adventures in one currency in the first index's order; the
        #: award form the adventures its campaign named last in the second's.
        indexes = [
            models.Index(fields=["character", "currency", "-began"], name="characters_tally_latest"),
            models.Index(fields=["campaign", "-began"], name="characters_tally_campaign"),
        ]
        constraints = [
            models.UniqueConstraint(
                fields=["character", "currency", "adventure"], name="characters_adventuretally_one_per_adventure"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.character_id} {self.currency} {self.adventure!r}: +{self.earned} −{self.spent}"


class ReputationChangeQuerySet(AppendOnlyQuerySet):
    def newest_of(self, character_id: int, *, before: int | None = None) -> ReputationChangeQuerySet:
        """The character's changes, newest first (older than change ``before`` when given), in the
        order of ``characters_reputation_recent``: a range on the character, for the reason
        :meth:`LedgerEntryQuerySet.newest_of` gives."""
        rows = self.filter(character_id__gte=character_id, character_id__lte=character_id)
        if before is not None:
            rows = rows.filter(pk__lt=before)
        return rows.order_by("character_id", "-id")


class ReputationChange(AppendOnlyModel):
    """One change of a character's reputation (−5 … +5), with why: written once, never changed."""

    #: No index of its own: ``characters_reputation_recent`` leads with it.
    character = models.ForeignKey(
        Character, on_delete=models.PROTECT, related_name="reputation_changes", db_index=False
    )
    change = models.SmallIntegerField()
    reputation = models.SmallIntegerField()  # after the change
    reason = models.CharField(max_length=200)
    adventure = models.CharField(max_length=120, blank=True)
    by = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.PROTECT, related_name="+")
    created_at = models.DateTimeField(default=timezone.now)

    objects = ReputationChangeQuerySet.as_manager()

    class Meta:
        ordering = ["-pk"]
        #: A character's changes, newest first, a page at a time (``ReputationChangeQuerySet.newest_of``).
        indexes = [models.Index(fields=["character", "-id"], name="characters_reputation_recent")]
        constraints = [
            models.CheckConstraint(
                condition=Q(change__gte=-10, change__lte=10) & ~Q(change=0), name="characters_reputationchange_change"
            ),
            models.CheckConstraint(
                condition=Q(reputation__gte=-5, reputation__lte=5), name="characters_reputationchange_range"
            ),
            models.CheckConstraint(condition=~Q(reason=""), name="characters_reputationchange_reason_not_blank"),
        ]

    def __str__(self) -> str:
        return f"{self.change:+d} reputation for {self.character_id}: {self.reason}"
