"""The ledger and reputation: the GM's awards, purchases by the rulebook, corrections.

The ledger is kept in the currencies the character's system declares (``RulesSystem.currencies``;
Lucky 13 has one, Adventure Points, ``ap``); a function given no currency uses the system's first,
and one the system does not declare is a 400 that names it. Every amount earned or spent is a
:class:`LedgerEntry` in one currency, written once. The character's :class:`Balance` in that
currency is the sum of its entries, changed in the same transaction as the entry while the
character's row is locked (the campaign's first), so two requests can never both spend the same
points. The balance row is read ``FOR UPDATE`` as well, under that lock: the character's lock is
what queues the writers (and the only guard when the row does not exist yet and is created), the
row's own lock a second line for a writer that forgot it; the database's CHECK constraints
(amount ≥ 0 on the balance, balance ≥ 0 on each entry) are the last line. Every writer goes
through one function (``_enter``) that writes the entries, the balances and the adventures' tallies
in a statement each, so an award to a whole party costs the queries an award to one character
does. Every function here checks who asks and refuses with a
:class:`~campaigns.operations.Refused` (its ``status`` says 400, 403, 404 or 409) before anything
is written; the views and the API call these and nothing else writes those rows.

What a purchase buys, what it costs, the words and the record the ledger keeps of it, and how it
is taken back are the system's (``offers``, ``offer_fields``, ``buy``, ``receipt``, ``refund``; an
offer is named by its key, such as Lucky 13's ``level:<specialization id>``): nothing here knows
what a system sells. The sheet a purchase leaves is saved through the one write path
(:mod:`characters.write`) in the same transaction as the spend, and so is a reputation award and
a correction's undoing.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.db.models import Case, F, Min, Q, Sum, Value, When
from django.utils import timezone

from campaigns.errors import Conflict, NotAllowed, NotFound, Refused
from campaigns.models import Campaign, Membership
from campaigns.operations import ARCHIVED
from characters import write
from characters.models import (
    MAX_CURRENCY,
    MAX_ENTRY,
    AdventureTally,
    Balance,
    Character,
    LedgerEntry,
    ReputationChange,
)
from characters.write import mark_changed, sentence
from rules.systems.base import Currency, RulesSystem, SheetInvalid, SpecError

MAX_REASON: Final = 200
MAX_ADVENTURE: Final = 120
#: The longest offer key a buyer may send (a kind and an item id, such as "specialization:" and an id).
MAX_OFFER: Final = 80
#: The largest "what you saw" (``Order.before``) a buyer may send: the system's number for an offer
#: (a level, a die's rung, a code in pips), bounded for every system; the system checks it against
#: the sheet.
MAX_BEFORE: Final = 10_000
#: What a buyer may give with an offer besides its key, when the system's ``offer_fields`` asks for it.
CHOICES: Final = ("name",)


class NotEnoughPoints(Conflict):
    code = "not_enough_points"

    def __init__(self, character: Character, currency: Currency, *, have: int, needed: int) -> None:
        super().__init__(f"{character.name} has {have} {currency.name}; this needs {needed}.")
        self.currency, self.needed, self.have = currency.key, needed, have


# --- Currencies and balances ----------------------------------------------------------------------


def currency_of(system: RulesSystem, key: str | None = None) -> Currency:
    """The system's currency ``key``, its first when ``key`` is None or empty; one the system does
    not declare is refused (400), naming it and the ones it has."""
    if not system.currencies:
        raise Refused(f"{system.name} keeps no ledger: it declares no currency.")
    if key is None or key == "":
        return system.currencies[0]
    found = next((c for c in system.currencies if c.key == key), None)
    if found is None:
        known = ", ".join(f"{c.key} ({c.name})" for c in system.currencies)
        message = f"{system.name} has no currency {str(key)[:MAX_CURRENCY]!r}; its currencies are {known}."
        raise Refused(message, errors={"currency": message})
    return found


def named(system: RulesSystem, key: str) -> Currency:
    """The currency an existing entry is in, with its words if the system still declares it
    (an entry is never refused for the currency it was written in)."""
    return next((c for c in system.currencies if c.key == key), Currency(key, key, key))


def balances(character: Character) -> dict[str, int]:
    """The character's balance in each currency, by key: its system's, in order (0 where nothing
    has moved yet), then any other its ledger holds. No query if the character was loaded
    ``with_balances()``; one otherwise. For pages: a write reads its balance under the lock."""
    return {held.currency.key: held.amount for held in character.holdings}


def balance(character: Character, currency: str | None = None) -> int:
    """The character's balance in ``currency`` (the system's first by default); see :func:`balances`."""
    return balances(character)[currency_of(character.rules, currency).key]


def _held(character: Character, currency: Currency) -> Balance:
    """The character's balance row in ``currency``, locked, or a new one at 0 (saved by :func:`_append`);
    the caller holds the character's row lock."""
    row = Balance.objects.select_for_update().filter(character=character, currency=currency.key).first()
    return row if row is not None else Balance(character=character, currency=currency.key, amount=0)


# --- Checks shared by every write -----------------------------------------------------------------


def _text(value: Any, what: str, limit: int, *, required: bool) -> str:
    text = " ".join(str(value if value is not None else "").split())
    if required and not text:
        raise Refused(f"Give a {what}.", errors={what: f"Give a {what}."})
    if len(text) > limit:
        raise Refused(f"Keep the {what} under {limit} characters.", errors={what: f"Keep it under {limit} characters."})
    return text


def whole_number(value: Any, what: str, *, low: int, high: int) -> int:
    """``value`` as a whole number from ``low`` to ``high``, or a refusal that says so."""
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        message = f"{what} must be a whole number from {low} to {high}."
        raise Refused(sentence(message), errors={what: sentence(message)})
    return value


def _writable(character: Character) -> None:
    if character.campaign.archived_at is not None:
        raise Conflict(ARCHIVED)
    if character.status != Character.Status.ACTIVE:
        raise Conflict(f"{character.name} is not in play (a draft or archived), so their points cannot change.")


def _lock(character_id: int, user: AbstractBaseUser, *, spend: bool) -> tuple[Character, bool]:
    """The character, locked, and whether ``user`` is the GM; refused unless the user may do this:
    the GM awards and corrects, the owner or the GM spends; anyone else outside the campaign gets 404."""
    character = Character.objects.lock(character_id)
    if character is None:
        raise NotFound("No such character.")
    membership = Membership.objects.filter(campaign_id=character.campaign_id, user_id=user.pk).first()
    if membership is None:
        raise NotFound("No such character.")
    is_gm = membership.role == Membership.Role.GM
    if not is_gm and not (spend and character.owner_id == user.pk):
        raise NotAllowed(
            "Only the character's player and the GM can spend their points."
            if spend
            else "Only the GM awards and corrects points."
        )
    _writable(character)
    return character, is_gm


def _append(
    character: Character,
    held: Balance,
    currency: Currency,
    *,
    kind: LedgerEntry.Kind,
    amount: int,
    reason: str,
    adventure: str,
    by: AbstractBaseUser,
    reverses: LedgerEntry | None = None,
    purchase: Mapping[str, Any] | None = None,
) -> LedgerEntry:
    """Write one entry in ``currency`` and move the balance (``held``, from :func:`_held`) with it;
    the caller holds the character's row lock."""
    entry = LedgerEntry(
        character=character,
        kind=kind,
        currency=currency.key,
        amount=amount,
        reason=reason,
        adventure=adventure,
        reverses=reverses,
        purchase=dict(purchase or {}),
        by=by,
    )
    (written,) = _enter([(entry, held)], currency)
    return written


def _enter(moves: Sequence[tuple[LedgerEntry, Balance]], currency: Currency) -> list[LedgerEntry]:
    """Write each unsaved entry in ``currency`` and move its character's balance (its ``Balance``, read
    under the lock, or a new one at 0) and its adventure's tally with it: three statements for any
    number of entries (the entries, the balances, the tallies). The caller holds the characters' row
    locks. Each entry's running ``balance`` is its balance's amount after it, in the order given; one
    that would take a balance below zero refuses them all (:class:`NotEnoughPoints`) before anything
    is written."""
    kept: dict[tuple[int, str], Balance] = {}
    for entry, held in moves:
        after = held.amount + entry.amount
        if after < 0:
            raise NotEnoughPoints(entry.character, currency, have=held.amount, needed=-entry.amount)
        entry.balance = held.amount = after
        kept[entry.character_id, entry.currency] = held
    written = LedgerEntry.objects.bulk_create([entry for entry, _ in moves])
    # Each balance as it now stands, under the lock: an UPDATE of a row that exists, an INSERT of one
    # that does not yet (the character's first points in the currency), in one statement.
    Balance.objects.bulk_create(
        [
            Balance(character_id=character_id, currency=key, amount=held.amount)
            for (character_id, key), held in kept.items()
        ],
        update_conflicts=True,
        unique_fields=["character", "currency"],
        update_fields=["amount"],
    )
    AdventureTally.objects.add([_tally(entry) for entry in written])
    return written


def _tally(entry: LedgerEntry) -> AdventureTally:
    """What ``entry`` adds to its adventure's :class:`AdventureTally` (and begins it with, if it is
    the adventure's first): a correction counts as what it reverses."""
    as_award = (entry.reverses.kind if entry.reverses is not None else entry.kind) == LedgerEntry.Kind.AWARD
    earned, spent = (entry.amount, 0) if as_award else (0, -entry.amount)
    return AdventureTally(
        character_id=entry.character_id, campaign_id=entry.character.campaign_id, currency=entry.currency,
        adventure=entry.adventure, began=entry.pk, earned=earned, spent=spent,
    )  # fmt: skip


@transaction.atomic
def recount_adventures(character_ids: Iterable[int]) -> None:
    """Count these characters' :class:`AdventureTally` rows again from their entries: for entries
    appended some other way than this module's writers (a bulk load, a restore). The ledger's
    writers keep them otherwise; this never changes an entry."""
    ids = list(character_ids)
    AdventureTally.objects.filter(character_id__in=ids).delete()
    as_award = Q(reverses__kind=LedgerEntry.Kind.AWARD) | Q(reverses__isnull=True, kind=LedgerEntry.Kind.AWARD)
    counted = (
        LedgerEntry.objects.filter(character_id__in=ids)
        .order_by()
        .values("character_id", "currency", "adventure", campaign_id=F("character__campaign_id"))
        .annotate(
            began=Min("pk"),
            earned=Sum(Case(When(as_award, then=F("amount")), default=Value(0))),
            spent=Sum(Case(When(as_award, then=Value(0)), default=-F("amount"))),
        )
    )
    AdventureTally.objects.bulk_create(AdventureTally(**row) for row in counted)


def _save(
    character: Character, sheet: Any, *, by: AbstractBaseUser, what: str, sections: Sequence[str],
    campaign_moved: bool = False, announced: bool = True,
) -> None:  # fmt: skip
    """Save the sheet in the transaction of the entry (the caller holds the lock), marking the edit
    ``sections`` it changes; a sheet its system refuses is a 400 and, the transaction undone, no
    entry is written either. ``campaign_moved``: the caller moves the campaign's last activity itself;
    not ``announced``: the caller announces the character (:func:`characters.write.announce_all`)."""
    try:
        write.write(character, sheet, by=by, what=what, sections=sections, campaign_moved=campaign_moved,
                    announced=announced)  # fmt: skip
    except SheetInvalid as invalid:
        raise write.refusal(invalid) from None


# --- GM awards ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Award:
    """Points (and a reputation change) for one character from the end-of-adventure form."""

    character_id: int
    amount: int | None = 0  # None: refused before (a form's field said why), so left unchecked
    reputation: int | None = 0
    reason: str | None = ""  # "" takes the form's reason


@dataclass(frozen=True, slots=True)
class Awarded:
    entries: list[LedgerEntry]
    reputation: list[ReputationChange]


@transaction.atomic
def award(
    *,
    campaign_id: int,
    awards: Sequence[Award],
    reason: str,
    adventure: str = "",
    currency: str | None = None,
    ends_adventure: bool = False,
    by: AbstractBaseUser,
) -> Awarded:
    """The GM's end-of-adventure awards: points in ``currency`` (the system's first by default;
    1 … 1000 each, 0 gives none) and reputation changes (the reputation stays within −5 … +5,
    "Reputation") for any of the campaign's characters in play, all written at once or not at all.
    ``ends_adventure``: the adventure ends for each of them, as their system says (its
    ``end_adventure``)."""
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()  # the campaign first, always
    role = Membership.objects.filter(campaign=campaign, user_id=by.pk).values_list("role", flat=True).first()
    if campaign is None or role is None:
        raise NotFound("No such campaign.")
    if role != Membership.Role.GM:
        raise NotAllowed("Only the GM awards points.")
    if campaign.archived_at is not None:
        raise Conflict(ARCHIVED)
    paid_in = currency_of(campaign.rules, currency)
    reason = _text(reason, "reason", MAX_REASON, required=False)
    adventure = _text(adventure, "adventure", MAX_ADVENTURE, required=False)
    ids = [a.character_id for a in awards]
    if len(set(ids)) != len(ids):
        raise Refused("Each character can appear only once in an award.")
    if any(None in (a.amount, a.reputation, a.reason) for a in awards):
        raise Refused("Each award needs its points, its reputation change and its reason, even if empty.")
    # One lock per character, taken in a fixed order so that two awards never wait on each other.
    characters = {
        c.pk: c
        for c in Character.objects.select_for_update(of=("self",))
        .select_related("campaign")
        .filter(pk__in=ids, campaign=campaign, status=Character.Status.ACTIVE)
        .order_by("pk")
    }
    errors = award_problems(awards, reason, characters)
    for a in awards:
        if a.character_id not in characters:
            errors.setdefault(str(a.character_id), "That character is not in play in this campaign.")
    if errors:
        raise Refused(next(iter(errors.values())), errors=errors)
    # Their balances, locked after the characters, in the same order, in one query.
    held = {
        b.character_id: b
        for b in Balance.objects.select_for_update()
        .filter(character__in=list(characters), currency=paid_in.key)
        .order_by("character_id")
    }
    why = {a.character_id: _text(a.reason, "reason", MAX_REASON, required=False) or reason for a in awards}
    # Every entry, balance and tally in three statements, whatever the size of the party.
    entries = _enter(
        [
            (
                LedgerEntry(
                    character=characters[a.character_id], kind=LedgerEntry.Kind.AWARD, currency=paid_in.key,
                    amount=a.amount, reason=why[a.character_id], adventure=adventure, by=by,
                ),
                held.get(a.character_id) or Balance(character_id=a.character_id, currency=paid_in.key, amount=0),
            )
            for a in awards
            if a.amount
        ],
        paid_in,
    )  # fmt: skip
    changes, paid, changed = [], [], []
    for a in awards:
        character = characters[a.character_id]
        if a.reputation:
            standing = character.rules.standing
            reputation = standing_of(character) + a.reputation
            sheet = character.document.model_copy(update={standing.field: reputation})
            what = f"{standing.label} {a.reputation:+d}: {why[a.character_id]}"
            _save(character, sheet, by=by, what=what, sections=[standing.section], campaign_moved=True,
                  announced=False)  # fmt: skip
            changed.append(character.pk)
            changes.append(
                ReputationChange(
                    character=character,
                    change=a.reputation,
                    reputation=reputation,
                    reason=why[a.character_id],
                    adventure=adventure,
                    by=by,
                )
            )
        elif a.amount:
            paid.append(character)  # a new version: open pages hear of the new balance
            changed.append(character.pk)
    ReputationChange.objects.bulk_create(changes)
    _mark_paid(paid)
    if ends_adventure:
        for character in characters.values():
            ended = character.rules.end_adventure(character.document, campaign.settings)
            if ended is not None:
                sheet, what = ended
                sections = changed_sections(character, sheet)
                _save(character, sheet, by=by, what=what, sections=sections, campaign_moved=True, announced=False)
                changed.append(character.pk)
    Campaign.objects.filter(pk=campaign.pk).update(last_activity_at=timezone.now())  # once for the party
    # Open pages hear of each character the award changed once, all at once, after commit.
    write.announce_all(changed)
    return Awarded(entries, changes)


def _mark_paid(characters: Sequence[Character]) -> None:
    """A new version of each of ``characters`` (locked by the caller), whose balance moved and nothing
    else: what :func:`characters.write.mark_changed` does for one character (no section changes, so
    no open form of the sheet turns stale), in one UPDATE for all; the caller moves the campaign's
    last activity and announces them (:func:`characters.write.announce_all`)."""
    if not characters:
        return
    now = timezone.now()
    Character.objects.filter(pk__in=[c.pk for c in characters]).update(version=F("version") + 1, updated_at=now)
    for character in characters:
        character.version += 1
        character.updated_at = now


def award_problems(awards: Sequence[Award], reason: str | None, characters: Mapping[int, Character]) -> dict[str, str]:
    """Every problem of an award at once, by where it shows: a character's points (the character's id,
    as text), their reputation change (``reputation-<id>``), the ``reason``, or the ``amount`` as a
    whole. An amount, change or reason given as ``None`` was refused before (its own message says
    why): the checks that read it keep quiet. A character not in ``characters`` is not looked at."""
    errors: dict[str, str] = {}
    unknown = False
    for a in awards:
        try:
            if a.amount is not None:
                whole_number(a.amount, "points", low=0, high=MAX_ENTRY)
        except Refused as problem:
            errors.setdefault(str(a.character_id), problem.message)
        change = f"reputation-{a.character_id}"
        try:
            if a.reputation is not None:
                whole_number(a.reputation, "reputation change", low=-10, high=10)
        except Refused as problem:
            errors[change] = problem.message
        gives = bool(a.amount) or bool(a.reputation)
        unknown = unknown or (not gives and None in (a.amount, a.reputation))
        if gives and a.reason is not None and reason is not None and not (a.reason or reason):
            errors["reason"] = "Give a reason for the award."
        character = characters.get(a.character_id)
        if character is None or change in errors or not isinstance(a.reputation, int) or not a.reputation:
            continue  # a sheet without reputation takes points too
        standing = character.rules.standing
        if standing is None:
            errors[change] = f"{character.name}'s sheet keeps no reputation."
            continue
        now = standing_of(character)
        if not standing.low <= now + a.reputation <= standing.high:
            errors[change] = (
                f"{character.name}'s {standing.label.lower()} is {now:+d}; a change of {a.reputation:+d} "
                f"would take it past the limits of {signed(standing.low)} and {signed(standing.high)}."
            )
    if not unknown and not any(a.amount or a.reputation for a in awards):
        errors.setdefault("amount", "Give at least one character some points or a reputation change.")
    return errors


def changed_sections(character: Character, sheet: Any) -> list[str]:
    """The edit sections of ``character``'s sheet that ``sheet`` changes (their open forms go stale)."""
    before = character.document
    return [
        section.key
        for section in character.rules.edit_sections
        if any(getattr(before, field, None) != getattr(sheet, field, None) for field in section.replaces)
    ]


def signed(number: int) -> str:
    """A bound as the page writes it: +5, −5 (a minus sign, not a hyphen)."""
    return f"{number:+d}".replace("-", "\u2212")


def standing_of(character: Character) -> int:
    """The character's standing (Lucky 13's reputation); 0 when the sheet of their system keeps none."""
    standing = character.rules.standing
    return int(getattr(character.document, standing.field)) if standing is not None else 0


# --- Corrections ----------------------------------------------------------------------------------


@transaction.atomic
def correct(*, character_id: int, entry_id: int, reason: str, by: AbstractBaseUser) -> LedgerEntry:
    """The GM reverses an earlier entry: a new entry of the opposite amount, in its currency, that names it.

    Reversing a spend also takes back what it bought, if the sheet still shows it as bought
    (otherwise the GM corrects the sheet first); reversing an award whose points were spent
    is refused, since the balance would go below zero.
    """
    character, _ = _lock(character_id, by, spend=False)
    reason = _text(reason, "reason", MAX_REASON, required=True)
    entry = LedgerEntry.objects.filter(pk=entry_id, character=character).first()
    if entry is None:
        raise NotFound("That entry is not in this character's ledger.")
    if entry.kind == LedgerEntry.Kind.CORRECTION:
        raise Conflict("A correction cannot itself be reversed; record a new award or purchase instead.")
    if LedgerEntry.objects.filter(reverses=entry).exists():
        raise Conflict("That entry has already been reversed.")
    currency = named(character.rules, entry.currency)
    held = _held(character, currency)
    if held.amount - entry.amount < 0:
        raise Conflict(
            f"{character.name} has already spent those points: reversing this award would take the balance "
            f"from {held.amount} {currency.abbreviation} below zero."
        )
    undone = _undo(character, entry.purchase) if entry.kind == LedgerEntry.Kind.SPEND else None
    correction = _append(
        character,
        held,
        currency,
        kind=LedgerEntry.Kind.CORRECTION,
        amount=-entry.amount,
        reason=reason,
        adventure=entry.adventure,
        by=by,
        reverses=entry,
    )
    if undone is None:
        mark_changed(character)
    else:
        sheet, sections = undone
        _save(character, sheet, by=by, what=f"Reversed: {entry.reason}", sections=sections)
    return correction


def _undo(character: Character, bought: Mapping[str, Any]) -> tuple[Any, tuple[str, ...]]:
    """The sheet with a purchase still on it taken back by its system, and the edit sections that
    change; refused (409) when the sheet no longer shows the purchase as it left it."""
    rules = character.rules
    try:
        sheet = rules.refund(character.document, bought, character.campaign.settings)
    except SheetInvalid:
        raise Conflict("The sheet cannot take this purchase back as it stands: correct the sheet first.") from None
    except SpecError as problem:
        raise Conflict(sentence(problem.message)) from None
    return sheet, rules.purchase_sections(bought)


# --- Purchases ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Order:
    """What a buyer asks for: an offer of the system by its key (Lucky 13: ``ability:will``,
    ``level:<specialization id>``, ``specialization:<skill id>``) and, for an offer that asks for
    one (the system's ``offer_fields``; Lucky 13: a new specialization), its ``name``.

    ``before`` is what the buyer saw (``offer_fields``; Lucky 13: the specialization's level, 0
    for a new one, or the ability's rung, 1 d4 … 5 d12); if the sheet no longer shows it, nothing
    is bought, so that a second click or a second tab never buys twice.
    """

    offer: str
    name: str = ""
    before: int | None = None


@transaction.atomic
def buy(*, character_id: int, order: Order, by: AbstractBaseUser, adventure: str = "") -> LedgerEntry:
    """Spend points on one of the system's offers (Lucky 13: "Skill advancement / Adventure
    Points"), as the system's ``buy`` makes it, in the currency of its offer (``Offer.currency``).
    The sheet change and the ledger entry are one transaction, under the character's row lock.

    An offer the sheet does not have, or a choice it does not ask for, is the buyer's mistake
    (400, naming the field); one the sheet cannot take now (at the top already, full) is a 409;
    if the sheet no longer shows what the buyer saw (``order.before``), nothing is bought
    (:class:`characters.write.StaleSheet`).
    """
    character, _ = _lock(character_id, by, spend=True)
    adventure = _text(adventure, "adventure", MAX_ADVENTURE, required=False)
    rules, sheet, settings = character.rules, character.document, character.campaign.settings
    try:
        fields = rules.offer_fields(sheet, order.offer, settings)
    except SpecError as problem:
        message = sentence(problem.message)
        raise Refused(message, errors={"offer": message}) from None
    if order.name and "name" not in fields:
        message = "This purchase takes no name."
        raise Refused(message, errors={"name": message})
    choice: dict[str, Any] = {key: getattr(order, key) for key in CHOICES if key in fields}
    if order.before is not None:
        choice["before"] = order.before
    try:
        after, offer = rules.buy(sheet, order.offer, settings, choice)
    except SheetInvalid as invalid:
        raise write.refusal(invalid) from None
    except SpecError as problem:
        message = sentence(problem.message)
        if problem.field == "before":
            raise write.StaleSheet(
                character, f"{message.rstrip('.')}: the sheet changed since you looked, so nothing was bought."
            ) from None
        if problem.field == "offer" or problem.field in fields:  # what the buyer sent
            raise Refused(message, errors={problem.field: message}) from None
        raise Conflict(message) from None  # the sheet cannot take it now
    currency = currency_of(rules, offer.currency)
    held = _held(character, currency)
    if offer.cost > held.amount:
        raise NotEnoughPoints(character, currency, have=held.amount, needed=offer.cost)
    reason, bought = rules.receipt(sheet, after, offer, settings)
    entry = _append(
        character,
        held,
        currency,
        kind=LedgerEntry.Kind.SPEND,
        amount=-offer.cost,
        reason=reason[:MAX_REASON],
        adventure=adventure,
        by=by,
        purchase=bought,
    )
    _save(character, after, by=by, what=offer.label, sections=rules.purchase_sections(bought))
    return entry
