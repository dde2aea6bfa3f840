"""The roll log: recording a roll and revealing a secret one.

Every roll made in a campaign (from a sheet, an encounter, the free dice box)
goes through :func:`record_roll`, and nothing else writes :class:`~play.models.Roll`
rows. How a caller fills it in:

- ``kind``: a :class:`~play.models.RollKind` value.
- ``label``: what was rolled, in words, as the table would say it: a sheet roll's label
  ("Reflex + Fighting (Longsword 1) vs Difficult"), the dice box's expression ("2d6+1"), an
  encounter's "Brunella attacks Goblin with Longsword". Stored with the campaign's ``system``.
- ``spec``: what was rolled, in full, enough to roll it again: ``{"expression": "2d6+1"}``,
  or the fields of a check (the same JSON as ``python -m rules chance``).
- ``dice``: every die as rolled. Free rolls store a list of groups, each
  ``{"label", "dice": [{"sides", "faces", "value", "imploded", "exploded", "kept"}], "total"}``;
  checks and opposed rolls store :func:`rules.systems.lucky13.record.check_roll_view` /
  ``opposed_roll_view`` (their pools show with ``pages/_pool.html``).
- ``total``, ``outcome``: the result; ``outcome`` holds success/hit/margin/dilemma as the kind has them.
- ``chance`` and ``chance_of``: the exact chance computed before the roll (a Fraction or "p/q")
  and what it is the chance of ("success", "hit", "total ≥ 9"); None when there is no exact,
  finite answer (``chance_of`` then says why, e.g. "unbounded").

After the transaction commits, :data:`roll_recorded` is sent with the roll, for the live feed;
revealing a secret roll sends :data:`roll_revealed` the same way.

JSON content may hold only objects, arrays, strings, integers, booleans and null: no
floats, so that the canonical form (:func:`play.chain.canonical`) is the same on every database and
machine. The chain itself (signing each roll, verifying the log) is :mod:`play.chain`; its names are
also read from here, where they were first.
"""

from __future__ import annotations

import functools
import json
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from fractions import Fraction
from typing import Any, Final

import django.dispatch
from django.contrib.auth.models import AbstractBaseUser
from django.db import connections, router, transaction
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from campaigns.models import Campaign, Membership, moved
from campaigns.operations import ARCHIVED, Conflict, NotAllowed, NotFound, Refused
from characters.models import Character
from play import chain
from play.chain import GENESIS as GENESIS
from play.chain import ChainReport as ChainReport
from play.chain import canonical as canonical
from play.chain import check_chain as check_chain
from play.chain import content_hash as content_hash
from play.chain import verify_chain as verify_chain
from play.models import CHANCE_LENGTH, Roll, RollKind, RollReveal
from rules import expressions, systems
from rules.dice import die_view
from rules.expressions import Constant, ExpressionError, ExpressionRoll
from rules.systems.base import SpecError, Worded
from web import heavy
from web.kept import Kept
from web.prepared import Compiled, Fetched, Prepared, insert, inserted

#: The longest label a roll keeps (the column's length); longer words are cut with an ellipsis.
LABEL_LENGTH: Final = Roll._meta.get_field("label").max_length

#: The longest words a chance is said to be the chance of (the column's length).
CHANCE_OF_LENGTH: Final = Roll._meta.get_field("chance_of").max_length

#: Sent after commit with ``roll``: the live dashboard listens.
roll_recorded = django.dispatch.Signal()

#: Sent after commit with ``roll`` when the GM reveals it: the players' dashboards get it at last.
roll_revealed = django.dispatch.Signal()


def _plain(value: Any, where: str) -> Any:
    """``value`` as the row holds it and reads it back (plain lists and dicts, in a copy of its own), walked once;
    :class:`TypeError` for anything but integers, strings, booleans and None in lists and string-keyed objects."""
    if value is None or type(value) in (bool, int, str):
        return value
    if isinstance(value, (bool, int, str)):  # a subclass (an enum's member): its plain value, as JSON keeps it
        return bool(value) if isinstance(value, bool) else int(value) if isinstance(value, int) else str.__str__(value)
    if isinstance(value, Mapping):
        plain = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise TypeError(f"{where}: object keys must be strings, not {key!r}")
            plain[key] = _plain(item, where)
        return plain
    if isinstance(value, (list, tuple)):
        return [_plain(item, where) for item in value]
    raise TypeError(f"{where}: {type(value).__name__} is not allowed in a roll (integers, strings, booleans only)")


#: The denominator a chance is rounded to when its exact "p/q" would not fit the column: 60 digits,
#: far past what any page shows (a percentage with two decimals).
ROUNDED_DENOMINATOR: Final = 10**60

#: Added to what a chance is the chance of when it was kept rounded, so the log never claims exactness.
ROUNDED: Final = " (rounded)"


def _ratio(chance: Fraction | str | None) -> tuple[str | None, bool]:
    """The chance as the log keeps it, "p/q", and whether it had to be rounded to fit its column.

    Every bounded input gives a fraction that fits (:data:`play.models.CHANCE_LENGTH`); one that
    did not would be kept as the nearest fraction over at most :data:`ROUNDED_DENOMINATOR` and said
    to be rounded, rather than refuse the roll.
    """
    if chance is None:
        return None, False
    p = Fraction(chance)
    if not 0 <= p <= 1:
        raise ValueError(f"a chance is between 0 and 1, not {p}")
    text = f"{p.numerator}/{p.denominator}"
    if len(text) <= CHANCE_LENGTH:
        return text, False
    near = p.limit_denominator(ROUNDED_DENOMINATOR)
    return f"{near.numerator}/{near.denominator}", True


#: Why a character that is not in play cannot roll, by its status.
NOT_IN_PLAY = {
    Character.Status.DRAFT: "A draft cannot roll until it is finished: only its creation rolls are made.",
    Character.Status.ARCHIVED: "This character is archived and no longer rolls.",
}


def record_roll(
    *,
    campaign_id: int,
    by: AbstractBaseUser,
    character_id: int | None = None,
    kind: str,
    spec: Mapping[str, Any],
    dice: Sequence[Any] | Mapping[str, Any],
    total: int | None,
    outcome: Mapping[str, Any],
    chance: Fraction | str | None,
    chance_of: str = "",
    secret: bool = False,
    called_secret: bool = False,
    label: str = "",
    follows: int | None = None,
    locked: Character | None = None,
) -> Roll:
    """Append a roll to the campaign's log, chained to the one before it, with the campaign's
    system and the caller's ``label`` (cut to :data:`LABEL_LENGTH`; every caller says what it
    rolls, and a caller with no words gets the ones its spec gives, :func:`label_from_spec`).

    The campaign row is locked first, so that concurrent rolls take turns: each
    reads the true last roll and no two get the same ``seq`` or fork the chain.
    Refused (:class:`~campaigns.operations.Refused`) for a non-member (as for a campaign that does not
    exist: :class:`~campaigns.operations.NotFound`), an archived campaign, a character of another campaign,
    and a secret roll by anyone but the GM, unless the GM called for it in secret (``called_secret``: a player
    answering a secret roll request); nothing is written then.
    ``locked``: the character ``character_id`` as the caller locked it in this transaction
    (``characters.write.lock``), whose campaign and status are then known and not read again.

    On PostgreSQL the roll is made for the head of the log this process last knew (:data:`heads`) and sent in
    one statement that writes it only if that is still the head, reading the character's status under the same
    lock when the caller did not lock it (:func:`_appended`); elsewhere the campaign is locked and read, then
    the roll written, in a transaction (:func:`_recorded`).
    """
    # What the caller gives is checked and made into the row's values before the lock is taken: the campaign's
    # other rolls wait only for what needs its head.
    ratio, rounded = _ratio(chance)
    if ratio is not None and not chance_of:
        raise ValueError("say what the chance is the chance of")
    if rounded:
        chance_of = chance_of[: CHANCE_OF_LENGTH - len(ROUNDED)] + ROUNDED
    spec, dice, outcome = _plain(spec, "spec"), _plain(dice, "dice"), _plain(outcome, "outcome")
    if total is not None and (isinstance(total, bool) or not isinstance(total, int)):
        raise TypeError("total is an integer or None")
    now = timezone.now()
    fields = {
        "campaign_id": campaign_id, "by": by, "character_id": character_id, "kind": kind, "spec": spec, "dice": dice,
        "total": total, "outcome": outcome, "chance": ratio, "chance_of": chance_of, "secret": secret,
        "created_at": now, "follows": follows,
    }  # fmt: skip
    made = functools.partial(_made, fields, label)
    # Who may make it: a secret roll only the GM, unless the GM called for it in secret.
    roles = (Membership.Role.GM,) if secret and not called_secret else tuple(Membership.Role)
    db = router.db_for_write(Roll)
    if connections[db].vendor == "postgresql":
        # A reroll is made for the head the database reads: whether it follows an earlier roll depends on it.
        roll = _appended(db, made, roles, campaign_id=campaign_id, by=by, guess=follows is None,
                         character_id=character_id, locked=locked)  # fmt: skip
    else:
        with transaction.atomic(using=db):
            roll = _recorded(db, made, roles, campaign_id=campaign_id, by=by, now=now, character_id=character_id,
                             locked=locked)  # fmt: skip
        heads.put((db, campaign_id), Head(roll.system, roll.seq, roll.hash))
    if locked is not None and locked.pk == character_id:
        roll.character = locked  # the live feed names it: no need to read it again
    transaction.on_commit(lambda: roll_recorded.send(sender=Roll, roll=roll), using=db)
    return roll


@dataclass(frozen=True, slots=True)
class Head:
    """A campaign's system and the number and hash of the last roll of its log (None and None: an empty log)."""

    system: str
    seq: int | None
    hash: str | None


#: How many campaigns' heads a process keeps (:data:`heads`).
HEADS_KEPT: Final = 4096

#: The head of each campaign's log as this process last wrote or read it, by database and campaign: a roll is
#: made for it and sent once (:func:`_appended`). Another process's roll since, or a transaction rolled back,
#: leaves it behind: the roll is then made again for the head the database read.
heads: Final[Kept[Head]] = Kept(HEADS_KEPT)

#: How many times a roll is sent for the head the database last read before it takes the campaign's lock first
#: (:func:`_appended`): each miss means another roll was written in between.
APPEND_TRIES: Final = 3


def _made(fields: dict[str, Any], label: str, head: Head) -> Roll:
    """The roll of ``fields``, next after ``head`` in its log, labelled (with ``label`` or its spec's words for
    the head's system) and signed."""
    kind, spec, follows = fields["kind"], fields["spec"], fields["follows"]
    if kind not in log_kinds(head.system):
        raise ValueError(f"unknown kind of roll: {kind!r}")
    seq, prev_hash = (head.seq + 1, head.hash) if head.seq is not None else (1, GENESIS)
    if follows is not None and not 1 <= follows < seq:
        raise ValueError(f"a roll follows an earlier one of its campaign, not #{follows}")
    words = _fit(label) or _fit(label_from_spec(kind, spec, head.system))
    roll = Roll(**fields, system=head.system, label=words, seq=seq, prev_hash=prev_hash)
    chain.seal(roll)
    return roll


def head_of(campaign: Campaign) -> Head:
    """The head of the log of ``campaign`` as :func:`append` or :func:`locked_with_head` read it."""
    return Head(campaign.system, campaign.last_seq, campaign.last_hash)  # type: ignore[attr-defined]


def _refuse(campaign: Campaign | None, roles: tuple[str, ...]) -> None:
    """Raises why the roll may not be made in ``campaign`` (as :func:`append` read it; None: there is
    no such campaign) by a user of the role read, when only ``roles`` may make it."""
    role = campaign.roller_role if campaign is not None else None  # type: ignore[attr-defined]
    if campaign is None or role is None:
        raise NotFound("There is no such campaign.")  # to an outsider, as every page of it is
    if campaign.archived_at:
        raise Conflict(ARCHIVED)
    if role not in roles:
        raise NotAllowed("Only the GM can roll in secret.")


def _character_refusal(character_id: int | None, campaign_id: int, status: str | None) -> Refused | None:
    """Why character ``character_id`` (None: no character), of ``status`` in the campaign (None: not in it), may
    not roll there, or None."""
    if character_id is None:
        return None
    if status is None:
        return NotFound("That character is not in this campaign.")
    if status != Character.Status.ACTIVE:
        # Nothing of a draft reaches the table's log (its creation rolls stay on its sheet), and
        # an archived character has left play.
        return Conflict(NOT_IN_PLAY[status])
    return None


def _status_of(locked: Character, campaign_id: int) -> str | None:
    """The status of the character the caller locked in the campaign (None: it is not in it): as it is until the
    caller's transaction ends."""
    return locked.status if locked.campaign_id == campaign_id else None


def _appended(
    db: str, made: Callable[[Head], Roll], roles: tuple[str, ...], *, campaign_id: int, by: AbstractBaseUser,
    guess: bool, character_id: int | None, locked: Character | None,
) -> Roll:  # fmt: skip
    """On PostgreSQL, the roll written in one statement (:func:`append`) when this process knows the head of its log
    (:data:`heads`; only if ``guess``), in two when it learns it from the first; in the caller's transaction, if
    any (a move's, whose first statement then holds the lock for the second), or each in one of its own. When
    other rolls keep coming first, the campaign is locked and read in a transaction, and the roll written under
    the lock. Its character's status is read by the same statement, unless the caller locked it (``locked``)."""
    known = locked is not None and locked.pk == character_id
    refusal = _character_refusal(character_id, campaign_id, _status_of(locked, campaign_id)) if known else None
    read = None if known else character_id

    def sent(head: Head | None) -> tuple[Campaign, Roll | None]:
        """The roll made for ``head`` (None: the head is not known, nothing is sent but the read) and sent: the
        campaign as read, and the roll if it was written; refused, nothing written, when it may not be made."""
        roll = made(head) if head is not None and refusal is None else None
        campaign, status, roll_id = append(db, campaign_id, by, roles, head, roll, character_id=read)
        if roll is not None and roll_id is not None:
            inserted(roll, roll_id)
            roll.campaign = campaign
            return campaign, roll
        _refuse(campaign, roles)
        assert campaign is not None
        why = refusal if known else _character_refusal(character_id, campaign_id, status)
        if why is not None:
            raise why
        return campaign, None

    with _turn(db, campaign_id):
        head = heads.peek((db, campaign_id)) if guess else None
        for _ in range(APPEND_TRIES):
            campaign, roll = sent(head)
            if roll is not None:
                break
            head = head_of(campaign)
        else:
            with transaction.atomic(using=db):
                campaign, _ = sent(None)  # the campaign locked until the roll is written
                campaign, roll = sent(head_of(campaign))
            if roll is None:  # the lock was held: nothing can have come first
                raise RuntimeError(f"the roll was not written under the lock of campaign {campaign_id}")
        heads.put((db, campaign_id), Head(roll.system, roll.seq, roll.hash))  # before the next roll's turn
    return roll


#: The locks that give this process's rolls into one log their turns (:func:`_turn`), a log's by its key's hash.
TURNS: Final = tuple(threading.Lock() for _ in range(256))


@contextmanager
def _turn(db: str, campaign_id: int) -> Iterator[None]:
    """A roll of this process sent into the log of ``campaign_id`` on its own, outside a transaction: its turn
    waited for, so that it is made for the head the roll before it wrote (:data:`heads`) and sent once, where
    rolls sent at once all made for one head would each be sent again, one more trip for each that came first.

    Inside a transaction the roll takes no turn: its transaction may hold the campaign's lock in the database
    (an earlier roll of it, a move's) while a roll whose turn it is waits for that lock, and a turn waited for then
    would never come. A roll on its turn waits on the database alone: for its statement, and, after
    :data:`APPEND_TRIES` misses, for the campaign's lock in a transaction of its own. No transaction waits on a
    turn, so no turn waits for one that waits for it. Two logs may share a lock (256 of them): each waits at most
    for the other's roll."""
    if connections[db].in_atomic_block:
        yield
        return
    with TURNS[hash((db, campaign_id)) % len(TURNS)]:
        yield


def _recorded(
    db: str, made: Callable[[Head], Roll], roles: tuple[str, ...], *, campaign_id: int, by: AbstractBaseUser,
    now: datetime, character_id: int | None, locked: Character | None,
) -> Roll:  # fmt: skip
    """Elsewhere than on PostgreSQL, the roll in the caller's transaction: the campaign locked and read
    (:func:`locked_with_head`), the roll refused or made for the head read, its character (unless the caller
    locked it: ``locked``) read under the lock, then written; the campaign's last activity moved to ``now``, the
    roll's moment."""
    campaign = locked_with_head(db, campaign_id, by, now)
    _refuse(campaign, roles)
    assert campaign is not None
    if character_id is not None:
        if locked is not None and locked.pk == character_id:  # its row is locked: as it is until we commit
            status = _status_of(locked, campaign_id)
        else:
            rows = Character.objects.using(db).filter(pk=character_id, campaign=campaign)
            status = rows.values_list("status", flat=True).first()
        refusal = _character_refusal(character_id, campaign_id, status)
        if refusal is not None:
            raise refusal
    roll = made(head_of(campaign))
    insert(roll)
    roll.campaign = campaign
    return roll


def locked_with_head(db: str, campaign_id: int, by: AbstractBaseUser, now: datetime) -> Campaign | None:
    """Elsewhere than on PostgreSQL (whose function ``play_roll_append`` locks and reads in one statement:
    :func:`append`), the campaign, its row locked for the caller's transaction by moving its last activity to
    ``now`` (an UPDATE), then read (:data:`campaign_with_head`), so that the read sees what was committed while
    the lock was waited for: with ``roller_role``, the role of ``by`` in it (None for an outsider), and
    ``last_seq`` and ``last_hash``, those of its last roll (None for an empty log); None when there is no such
    campaign."""
    ids = {"campaign": campaign_id, "user": by.pk}
    compiled = campaign_with_head.compiled(ids)
    rows = compiled.fetch(ids) if moved(campaign_id, now) else []
    return Fetched(compiled, rows).instance(0) if rows else None


def append(
    db: str, campaign_id: int, by: AbstractBaseUser, roles: tuple[str, ...], head: Head | None, roll: Roll | None,
    *, character_id: int | None = None,
) -> tuple[Campaign | None, str | None, int | None]:  # fmt: skip
    """One call of ``play_roll_append`` (migration play.0016) on PostgreSQL: the campaign locked and read as
    :data:`campaign_with_head` reads it (None: there is no such campaign), the status of character
    ``character_id`` in it (None: it is not in it, or none was asked for), and ``roll``, made for ``head``, written
    if that is still the head, ``by`` may make it (``roles``, the campaign not archived) and the character is in
    play: the new row's id (None: nothing was written), its campaign's last activity moved to when it was made."""
    ids = {"campaign": campaign_id, "user": by.pk}
    compiled = campaign_with_head.compiled(ids)
    row = None
    if roll is not None and head is not None:
        row = json.dumps({field.attname: _json_value(getattr(roll, field.attname)) for field in ROW_FIELDS})
    made_at = roll.created_at if roll is not None else None
    expected = [head.system, head.seq, head.hash] if head is not None else [None, None, None]
    parameters = [campaign_id, by.pk, made_at, [str(r) for r in roles], character_id, str(Character.Status.ACTIVE)]
    with connections[db].cursor() as cursor:
        cursor.execute(_append_call(compiled), [*parameters, *expected, row])
        rows = cursor.fetchall()
    if not rows:
        return None, None, None
    *read, status, roll_id = rows[0]
    return Fetched(compiled, [tuple(read)]).instance(0), status, roll_id


#: The roll's fields the function writes from the row it is sent (the others it sets itself).
ROW_FIELDS: Final = tuple(field for field in Roll._meta.concrete_fields if not field.primary_key)


def _json_value(value: Any) -> Any:
    return value.isoformat() if isinstance(value, datetime) else value


def _with_head(campaign: int, user: int) -> QuerySet[Campaign]:
    rolls = Roll.objects.filter(campaign=OuterRef("pk")).order_by("-seq")
    role = Membership.objects.filter(campaign=OuterRef("pk"), user=user).values("role")[:1]
    return Campaign.objects.annotate(
        roller_role=Subquery(role),
        last_seq=Subquery(rolls.values("seq")[:1]),
        last_hash=Subquery(rolls.values("hash")[:1]),
    ).filter(pk=campaign)[:1]


#: The campaign with the roller's role and its last roll's number and hash, compiled once: every roll reads it
#: (building it cost more than the rest of a free roll's writing).
campaign_with_head = Prepared(Campaign, _with_head)


@functools.cache
def _append_call(compiled: Compiled) -> str:
    """The call of ``play_roll_append`` that reads the columns of ``compiled`` (:data:`campaign_with_head` on a
    PostgreSQL database) in their places, then the new roll's id: the campaign's from the row the function
    returns, each annotation from the column of its name; its rows are then made into the campaign as the
    query's would be."""
    quote = connections[compiled.db].ops.quote_name
    named = {position: name for name, position in compiled.compiler.annotation_col_map.items()}
    columns = []
    for position, (expression, *_) in enumerate(compiled.compiler.select[: compiled.col_count]):
        if position in named:
            columns.append(f"h.{quote(named[position])}")
        else:
            columns.append(f"(h.campaign).{quote(expression.target.column)}")
    # Names from the model's meta and the query's annotations, quoted; the values are parameters.
    return (
        f"SELECT {', '.join(columns)}, h.character_status, h.roll_id FROM play_roll_append(%s::bigint, %s::integer, "  # noqa: S608
        "%s::timestamptz, %s::varchar[], %s::bigint, %s::varchar, %s::varchar, %s::integer, %s::varchar, %s::jsonb) h"
    )


@transaction.atomic
def reveal_roll(*, campaign_id: int, seq: int, by: AbstractBaseUser) -> RollReveal:
    """The GM shows a secret roll to every member. Revealing is recorded as a row of its own."""
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()
    if campaign is None:
        raise NotFound("There is no such campaign.")
    if not Membership.objects.filter(campaign=campaign, user=by, role=Membership.Role.GM).exists():
        raise NotAllowed("Only the GM can reveal a secret roll.")
    if campaign.archived_at:
        raise Conflict(ARCHIVED)
    roll = Roll.objects.filter(campaign=campaign, seq=seq).select_related("reveal").first()
    if roll is None:
        raise NotFound("There is no such roll.")
    if not roll.secret:
        raise Conflict(f"Roll #{seq} was never secret.")
    if roll.revealed_at is not None:
        raise Conflict(f"Roll #{seq} is already revealed.")
    reveal = RollReveal.objects.create(roll=roll, by=by, created_at=timezone.now())
    transaction.on_commit(lambda: roll_revealed.send(sender=Roll, roll=roll))
    return reveal


# --- Saying what was rolled ------------------------------------------------------------------------


def _fit(words: str) -> str:
    """Words on one line, cut to the column: a sheet's names can make a label longer than it holds."""
    words = " ".join(str(words).split())
    return words if len(words) <= LABEL_LENGTH else words[: LABEL_LENGTH - 1] + "…"


def _names(value: Any) -> str:
    return ", ".join(map(str, value)) if isinstance(value, list) else str(value)


def _track_label(system_key: str) -> str:
    """What the system's fights call the track a GM's change moves (``Combat.track_label``); "" for
    a system not known here or without fights."""
    try:
        combat = systems.get(system_key).combat
    except SpecError:
        return ""
    return combat.track_label if combat else ""


def _encounter_words(kind: str, spec: Mapping[str, Any], system_key: str) -> str:
    """The words :mod:`play.encounters` labels its rolls with, said again from their spec."""
    if kind == RollKind.INITIATIVE and spec.get("reorder"):
        return f"{spec.get('combatant')} moves {spec.get('direction')} the initiative order"
    if kind == RollKind.INITIATIVE and spec.get("roll_off"):
        return f"Initiative roll-off for {_names(spec.get('for'))}"
    if kind == RollKind.INITIATIVE:
        return f"Initiative for {_names(spec.get('for'))}"
    if kind == RollKind.ATTACK:
        weapon = f" with {spec['weapon']}" if spec.get("weapon") else ""
        return f"{spec.get('attacker')} attacks {spec.get('target')}{weapon}"
    if kind == RollKind.DAMAGE:
        return f"Damage to {spec.get('target')}"
    if kind == RollKind.ADJUSTMENT and spec.get("amount") == 0:
        return f"{spec.get('combatant')} is {spec.get('reason')}"
    if kind == RollKind.ADJUSTMENT:
        track = _track_label(system_key)
        return f"{track} of {spec.get('combatant')}: {spec.get('reason')}" if track else ""
    if kind == RollKind.REMOVAL:
        return f"{spec.get('combatant')} leaves the fight"
    return ""


def _system_words(kind: str, spec: Mapping[str, Any], system_key: str) -> str:
    """A check or an opposed roll said by its system's roll kind (``describe``), or named by it."""
    try:
        system = systems.get(system_key or spec.get("system"))
    except SpecError:
        return ""
    key = spec.get("roll") or (RollKind.OPPOSED if kind == RollKind.OPPOSED else RollKind.CHECK)
    roll_kind = system.roll_kinds.get(key) if isinstance(key, str) else None
    if roll_kind is None:
        return ""
    try:
        # Only the kind's own fields: a stored spec also holds what the log keeps beside them.
        words = roll_kind.describe(roll_kind.parse({k: v for k, v in spec.items() if k in roll_kind.fields}))
    except (SpecError, TypeError):  # a spec of an older version: a log page must still show
        words = ""
    return words or roll_kind.label


def label_from_spec(kind: str, spec: Any, system: str) -> str:
    """What a roll's spec says was rolled, in words: a sheet roll's stored label, a free roll's
    expression, an encounter's roll as :mod:`play.encounters` words it, a check or an opposed roll
    as its system describes it; "" when the spec does not say. For rows written before labels were
    stored, and for a caller of :func:`record_roll` without words of its own."""
    if not isinstance(spec, Mapping):
        return ""
    if isinstance(spec.get("label"), str) and spec["label"].strip():
        return spec["label"]
    if isinstance(spec.get("expression"), str):
        return spec["expression"]
    if "encounter" in spec:
        return _encounter_words(kind, spec, system)
    if kind in (RollKind.CHECK, RollKind.REACTION, RollKind.OPPOSED):
        return _system_words(kind, spec, system)
    return ""


def label_of(roll: Roll) -> str:
    """The words a roll is shown with: its own, or for a row written before labels were stored,
    the words its spec gives. As secret as the roll: callers show it only where they show the dice.

    Only an old check or opposed roll whose spec names no system, or an old change by the GM (said
    in its system's words), reads its campaign's system (a query, unless the caller set
    ``roll.campaign``)."""
    if roll.label:
        return roll.label
    words = label_from_spec(roll.kind, roll.spec, roll.system)
    system_words = (RollKind.CHECK, RollKind.REACTION, RollKind.OPPOSED, RollKind.ADJUSTMENT)
    if not words and not roll.system and roll.kind in system_words:
        words = label_from_spec(roll.kind, roll.spec, system_of(roll))
    return _fit(words)


def system_of(roll: Roll) -> str:
    """The roll's rules system; for a row written before it was stored, its campaign's (which never
    changes). Load the campaign with the rolls (or set ``roll.campaign``) to spare a query."""
    return roll.system or roll.campaign.system


# --- The free dice box -----------------------------------------------------------------------------


def free_roll_dice(rolled: ExpressionRoll) -> list[dict[str, Any]]:
    """The dice of a free roll as the log stores them: one group per term, every die with ``kept``."""
    groups = []
    for term in rolled.terms:
        if isinstance(term.term, Constant):
            continue
        sign = "-" if term.term.sign < 0 else ""
        groups.append(
            {
                "label": f"{sign}{term.term}",
                "dice": [{**die_view(d), "kept": k} for d, k in zip(term.dice, term.kept, strict=True)],
                "total": term.value,
            }
        )
    return groups


def roll_free(*, campaign_id: int, by: AbstractBaseUser, text: str, explode: bool, secret: bool, rng: Any) -> Roll:
    """Parse, roll and record a free dice expression. A bad expression is refused (400) before anything is written.

    The chance stored is P(total ≥ the rolled total), exact, when it is finite and within the
    engine's budget (:func:`rules.expressions.chance_at_least`); with exploding dice there is none
    ("unbounded").
    """
    try:
        expression = expressions.parse(text, explode=explode)
    except ExpressionError as error:
        raise Refused(f"Cannot roll {text.strip()[:40]!r}: {error}.") from error
    rolled = expressions.roll(expression, rng)
    # Off the server's own process, cached by the parsed expression and the total (web/heavy.py).
    chance = heavy.compute(expressions.chance_at_least, expression, rolled.total)
    return record_roll(
        campaign_id=campaign_id,
        by=by,
        kind=RollKind.FREE,
        spec={"expression": str(expression), "typed": text, "explode": explode},
        dice=free_roll_dice(rolled),
        total=rolled.total,
        label=str(expression),
        outcome={"modifier": expression.modifier},
        chance=chance,
        chance_of=(
            f"total ≥ {rolled.total}"
            if chance is not None
            else "unbounded"
            if expression.explodes
            else "too costly to compute exactly"
        ),
        secret=secret,
    )


@functools.cache
def _own_kinds() -> dict[str, str]:
    """The platform's kinds of roll with their words (:class:`~play.models.RollKind`): fixed in the code."""
    return dict(RollKind.choices)


def log_kinds(system: str) -> dict[str, str]:
    """Every kind of roll a campaign of ``system`` logs, by key, with the words the log gives it: the
    platform's own (:class:`~play.models.RollKind`) and the system's (its ``log_kinds``), the system's
    words first where both name a kind."""
    own = _own_kinds()
    try:
        theirs = dict(systems.get(system).log_kinds)
    except systems.UnknownSystem:  # a row of a system no longer installed keeps the platform's words
        theirs = {}
    return {**own, **theirs}


def kind_label(roll: Roll) -> str:
    """The words the log gives a roll's kind, as its campaign's system says them."""
    return log_kinds(roll.system or roll.campaign.system).get(roll.kind, roll.kind)


def worded(roll: Roll) -> Worded | None:
    """A roll's outcome in its system's words (:meth:`RulesSystem.outcome_words`), else the platform's: a
    success or a failure, a hit or a miss; None for a roll with no outcome to word (a free roll)."""
    outcome = roll.outcome if isinstance(roll.outcome, dict) else {}
    spec = roll.spec if isinstance(roll.spec, dict) else {}
    try:
        said = systems.get(roll.system or roll.campaign.system).outcome_words(roll.kind, spec, outcome)
    except systems.UnknownSystem:
        said = None
    if said is not None:
        return said
    if outcome.get("success") is not None:
        return Worded("Success", "success") if outcome["success"] else Worded("Failure", "failure")
    if outcome.get("hit") is None:
        return None
    tone = "success" if outcome["hit"] or outcome.get("winner") == "attacker" else "failure"
    if not outcome["hit"] and (outcome.get("winner") == "" or outcome.get("draw")):
        tone = "draw"
    sheet = spec.get("sheet")
    if not (isinstance(sheet, dict) and sheet.get("contest")):
        return Worded("Hit" if outcome["hit"] else "Miss", tone)
    return Worded(contest_words(outcome), tone)


def contest_words(outcome: Mapping[str, Any]) -> str:
    """An opposed roll from its side, as the log says it: the higher total wins; a draw holds for the side
    that resists, and with no side resisting (a race) it is a draw."""
    if outcome.get("hit"):
        return "Wins"
    if outcome.get("margin"):
        return "Loses"
    holds = {"attacker": "A draw: this side holds", "defender": "A draw: the other side holds"}
    return holds.get(outcome.get("winner") or "", "A draw")
