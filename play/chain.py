"""The roll log's chain: each roll signed with a key the database does not hold, and checked incrementally.

Every roll's ``hash`` is the HMAC-SHA256 of its canonical content (:func:`canonical`, which holds the
previous roll's ``hash``) with one of the server's keys (``settings.ROLL_CHAIN_KEYS``), named by the
roll's ``key_id``. A changed, removed or inserted roll breaks the chain from there on, and someone who
can write the database but does not hold the key cannot compute a ``hash`` that matches again.

Keys rotate: the first key of ``ROLL_CHAIN_KEYS`` signs new rolls and the others only verify the rolls
and checkpoints they signed, so a campaign begun under an old key keeps verifying. A roll whose key the
server no longer has cannot be checked: Verify says so, at that roll.

Rolls written before the log was signed keep their plain SHA-256 (``key_id`` :data:`UNKEYED`): anybody can
compute one, so the marker alone would let a forger write unkeyed rows anywhere. Migration play.0013 therefore
signed, per campaign, where its unkeyed rolls end (an ``unkeyed`` :class:`~play.models.ChainCheckpoint`): an
unkeyed roll is accepted only at or before that ``seq``, and the roll at that ``seq`` must still have the
``hash`` recorded then, so that rewriting any of the old rolls (and recomputing the plain chain after it) is
found at that ``seq``. The old rows were not re-signed: re-signing would have meant switching off the
append-only trigger and would have blessed whatever the rows held, tampered or not; the checkpoint freezes them
as they were, and every roll after them is signed.

Each successful Verify signs the head it reached (a ``head`` checkpoint: the log must still reach it,
unchanged) and the last roll it passed at a multiple of :data:`CHECKPOINT_EVERY` (a ``verified`` checkpoint).
The next Verify checks that roll's hash and hashes only the rolls after it, read as plain values a chunk at a
time: the cost follows the new rolls (and at most :data:`CHECKPOINT_EVERY` recent ones), not the log. A log cut
short below the head, or rewritten (every ``hash`` recomputed, with the key) up to a checkpoint, no longer
matches it and Verify says where.

What this finds and what it cannot (see ``docs/roll-log.md``): without the key, no change, insertion,
removal or reordering of rolls goes unseen; nor a cut tail below the last head, nor a forged or
altered checkpoint. Someone holding both the database and a signing key can rewrite the log and its
checkpoints alike: the key is what is trusted. Removing the checkpoints as well as the rolls after them is
not seen (nothing in the database can prove what the database no longer holds); nor is a change to a roll
already verified and behind the ``verified`` checkpoint, until a full check (``check_chain(full=True)``,
``manage.py verify_rolls``) hashes it again.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, Final, Protocol

from django.conf import settings
from django.db import IntegrityError, transaction
from django.utils import timezone

from campaigns.models import Campaign
from play.models import ChainCheckpoint, Roll
from web.heavy import Busy

#: The ``prev_hash`` of a campaign's first roll.
GENESIS: Final = "0" * 64

#: The ``key_id`` of a roll written before the log was signed: its ``hash`` is a plain SHA-256.
UNKEYED: Final = ""

#: Rolls read per query when verifying: enough that a query's cost is spread, few enough to stay small in memory.
CHUNK: Final = 2000

#: Said of a roll or a checkpoint signed with a key missing from ``ROLL_CHAIN_KEYS``: it was removed too early.
KEY_GONE: Final = "which this server no longer holds: it cannot be checked until that key is listed again."

#: The checkpoint Verify goes on from stands at a multiple of this: each Verify hashes again up to this many of the
#: latest rolls besides the new ones, so that a recent roll changed after it was verified is still found.
CHECKPOINT_EVERY: Final = 1000

#: The most rolls one Verify from a page or the API hashes (a multiple of :data:`CHECKPOINT_EVERY`): a log
#: with a longer stretch not yet verified is checked over several Verifies, each going on from the checkpoint
#: the one before it signed, so that no request costs more than this whatever the log's length.
VERIFY_BUDGET: Final = 20 * CHECKPOINT_EVERY

#: Verifies from pages and the API under way at once in one server process. Hashing holds the interpreter, which
#: every other request of the process shares: one Verify at a time leaves the light pages their turn.
VERIFY_AT_ONCE: Final = 1
#: The slots of Verifies under way (:func:`verify`).
VERIFYING: Final = threading.BoundedSemaphore(VERIFY_AT_ONCE)

#: The columns a roll is verified from, read as plain values (no model instances).
COLUMNS: Final = (
    "seq", "campaign_id", "by_id", "character_id", "kind", "system", "label", "spec", "dice", "total",
    "outcome", "chance", "chance_of", "secret", "created_at", "prev_hash", "follows", "key_id", "hash",
)  # fmt: skip


class Signed(Protocol):
    """A roll as the chain reads it: a :class:`~play.models.Roll`, a migration's historical one, or a row of values."""

    campaign_id: int
    seq: int
    by_id: int
    character_id: int | None
    kind: str
    spec: Any
    dice: Any
    total: int | None
    outcome: Any
    chance: str | None
    chance_of: str
    secret: bool
    created_at: datetime
    prev_hash: str


def _timestamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def canonical(roll: Signed) -> bytes:
    """The bytes a roll's hash is taken over.

    A JSON object with exactly these keys: ``campaign`` (id), ``seq``, ``by`` (user
    id), ``character`` (id or null), ``kind``, ``spec``, ``dice``, ``total`` (integer
    or null), ``outcome``, ``chance`` ("p/q" or null), ``chance_of``, ``secret``,
    ``created_at`` and ``prev_hash``; ``follows`` (a reroll: the number of the roll it replaces) when
    set; ``system`` and ``label`` when they are not empty
    (rows written before they were stored have them empty, and their hashes were taken
    without them, so those chains verify unchanged; a new row always has both, so its hash
    covers them and blanking either breaks it as changing it does); and ``key``, the id of the key
    that signed it, on every signed row (never on an unkeyed one, whose hash was taken without it).
    ``created_at`` is ISO 8601 in UTC with
    microseconds and a ``Z``: ``2026-11-22T01:55:00.123456Z``. Serialised with keys
    sorted at every level, no whitespace (``","`` and ``":"`` separators), non-ASCII
    characters as themselves, encoded as UTF-8; numbers are integers only.
    ``hash`` is the lowercase hex HMAC-SHA256 of these bytes with that key (plain SHA-256 when unkeyed).
    """
    content = {
        "campaign": roll.campaign_id,
        "seq": roll.seq,
        "by": roll.by_id,
        "character": roll.character_id,
        "kind": roll.kind,
        "spec": roll.spec,
        "dice": roll.dice,
        "total": roll.total,
        "outcome": roll.outcome,
        "chance": roll.chance,
        "chance_of": roll.chance_of,
        "secret": roll.secret,
        "created_at": _timestamp(roll.created_at),
        "prev_hash": roll.prev_hash,
    }
    # getattr with a default: a migration's historical model from before these fields hashes as it did.
    for name, column in (("system", "system"), ("label", "label"), ("key", "key_id")):
        if value := getattr(roll, column, ""):
            content[name] = value
    if (follows := getattr(roll, "follows", None)) is not None:  # a reroll: which roll it replaces
        content["follows"] = follows
    return json.dumps(content, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False).encode()


def content_hash(roll: Signed) -> str:
    """The plain SHA-256 of a roll's content: the ``hash`` of a roll written before the log was signed."""
    return hashlib.sha256(canonical(roll)).hexdigest()


# --- Keys ------------------------------------------------------------------------------------------


def keys() -> dict[str, bytes]:
    """Every key the server holds, by id, the signing key first (``settings.ROLL_CHAIN_KEYS``)."""
    return {key_id: secret.encode() for key_id, secret in settings.ROLL_CHAIN_KEYS}


def signing_key_id() -> str:
    """The id of the key new rolls and checkpoints are signed with: the first of ``ROLL_CHAIN_KEYS``."""
    return str(settings.ROLL_CHAIN_KEYS[0][0])


def _same(stored: str, expected: str) -> bool:
    """A stored signature is the one expected, compared in constant time. As bytes: ``compare_digest`` refuses
    text with other than ASCII in it, and a row written straight into the database may hold anything."""
    return hmac.compare_digest(stored.encode(), expected.encode())


def _mac(key: bytes, message: bytes) -> str:
    return hmac.new(key, message, hashlib.sha256).hexdigest()


def seal(roll: Roll) -> None:
    """Sign a roll about to be written: its ``key_id`` is the signing key's and its ``hash`` the HMAC of its content."""
    key_id = signing_key_id()
    roll.key_id = key_id
    roll.hash = _mac(keys()[key_id], canonical(roll))


def expected_hash(roll: Signed, keyring: dict[str, bytes]) -> str | None:
    """The ``hash`` a roll must have: the HMAC with its key, a plain SHA-256 for an unkeyed roll; None when the
    server no longer holds its key."""
    key_id = getattr(roll, "key_id", UNKEYED)
    if key_id == UNKEYED:
        return content_hash(roll)
    key = keyring.get(key_id)
    return None if key is None else _mac(key, canonical(roll))


# --- Checkpoints -----------------------------------------------------------------------------------


def checkpoint_mac(mark: ChainCheckpoint, key: bytes) -> str:
    """The HMAC of a checkpoint's campaign, kind, ``seq``, ``hash``, key id and time, as canonical JSON."""
    content = {
        "campaign": mark.campaign_id,
        "kind": mark.kind,
        "seq": mark.seq,
        "hash": mark.hash,
        "key": mark.key_id,
        "created_at": _timestamp(mark.created_at),
    }
    return _mac(key, json.dumps(content, sort_keys=True, separators=(",", ":")).encode())


def sign_checkpoint(mark: ChainCheckpoint) -> None:
    mark.key_id = signing_key_id()
    mark.created_at = timezone.now()
    mark.mac = checkpoint_mac(mark, keys()[mark.key_id])


def checkpoint_problem(mark: ChainCheckpoint, keyring: dict[str, bytes]) -> str:
    """Why a checkpoint cannot be trusted, in words; "" when its MAC holds."""
    key = keyring.get(mark.key_id)
    if key is None:
        return f"The {mark.get_kind_display()} (#{mark.seq}) is signed with key {mark.key_id!r}, {KEY_GONE}"
    if not _same(mark.mac, checkpoint_mac(mark, key)):
        return f"The {mark.get_kind_display()} (#{mark.seq}) was altered: it does not match its signature."
    return ""


def mark_unkeyed_head(campaign_id: int, head: tuple[int, str], *, checkpoint: Any = ChainCheckpoint) -> None:
    """Record, signed, the head (``seq``, ``hash``) of a log written before rolls were signed: the unkeyed rolls
    end there. Migration play.0013 calls it (with its historical model) for every campaign with rolls."""
    mark = checkpoint(campaign_id=campaign_id, kind=ChainCheckpoint.Kind.UNKEYED, seq=head[0], hash=head[1])
    sign_checkpoint(mark)
    mark.save()


def _advance(campaign: Campaign, kind: str, head: tuple[int, str], mark: ChainCheckpoint | None) -> None:
    """Sign where a whole Verify reached (``head``: ``seq`` and ``hash``) as the campaign's checkpoint of ``kind``.
    Never moves back: a slower Verify that read fewer rolls leaves a newer checkpoint alone. A checkpoint signed
    with an older key is signed again with the current one."""
    if mark is not None and (mark.seq, mark.hash) == head and mark.key_id == signing_key_id():
        return
    with transaction.atomic():
        current = ChainCheckpoint.objects.select_for_update().filter(campaign=campaign, kind=kind).first()
        if current is not None and current.seq > head[0]:
            return
        current = current or ChainCheckpoint(campaign=campaign, kind=kind)
        current.seq, current.hash = head
        sign_checkpoint(current)
        try:
            with transaction.atomic():
                current.save()
        except IntegrityError:  # another Verify wrote the first checkpoint at the same moment: it stands
            return


# --- Verifying -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class ChainReport:
    count: int
    #: The first roll that does not match (or the first missing number); None when all do.
    broken: int | None
    #: What is wrong at ``broken``, in words; "" when the chain holds.
    reason: str = field(default="", compare=False)
    #: How many rolls this check hashed (the others were verified before, up to the last checkpoint).
    hashed: int = field(default=0, compare=False)
    #: False when the check stopped at its budget with rolls still to check: ``count`` rolls are whole so far,
    #: and the next check goes on from there.
    complete: bool = field(default=True, compare=False)


def rows_from(campaign: Campaign, after: int) -> Iterator[Any]:
    """The campaign's rolls numbered after ``after``, by ``seq``, as plain named rows, :data:`CHUNK` at a time
    by keyset: never all in memory, and one query a chunk whatever the log's length."""
    chunk = CHUNK
    while True:
        page = list(
            Roll.objects.filter(campaign=campaign, seq__gt=after)
            .order_by("seq")
            .values_list(*COLUMNS, named=True)[:chunk]
        )
        yield from page
        if len(page) < chunk:
            return
        after = page[-1].seq


@dataclass(slots=True)
class _Walk:
    """The state of one pass along the chain: the next ``seq`` expected, the hash it must follow."""

    expected: int
    prev_hash: str
    hashed: int = 0
    #: The ``hash`` of each checkpointed ``seq`` as found on the way.
    seen: dict[int, str] = field(default_factory=dict)
    #: The last roll passed with a ``seq`` a multiple of :data:`CHECKPOINT_EVERY`: where the next Verify goes on from.
    resume: tuple[int, str] | None = None
    #: Whether the pass stopped at its budget with rolls still after it.
    stopped: bool = False

    @property
    def count(self) -> int:
        return self.expected - 1


def _link_problem(row: Any, walk: _Walk, keyring: dict[str, bytes], unkeyed: ChainCheckpoint | None) -> str:
    """Why a roll does not hold its place in the chain, in words; "" when it does."""
    if row.seq != walk.expected:
        return f"Roll #{walk.expected} is missing."
    if row.prev_hash != walk.prev_hash:
        return f"Roll #{row.seq} does not follow the roll before it."
    if row.key_id == UNKEYED and (unkeyed is None or row.seq > unkeyed.seq):
        return f"Roll #{row.seq} claims to be from before the log was signed, but the signed log begins earlier."
    walk.hashed += 1
    wanted = expected_hash(row, keyring)
    if wanted is None:
        return f"Roll #{row.seq} is signed with key {row.key_id!r}, {KEY_GONE}"
    if not _same(row.hash, wanted):
        return f"Roll #{row.seq} does not match its signature: it was changed."
    if unkeyed is not None and row.seq == unkeyed.seq and row.hash != unkeyed.hash:
        return (
            f"The rolls up to #{unkeyed.seq}, written before the log was signed, are not the ones recorded then: "
            "one of them was changed."
        )
    return ""


def _walk(
    campaign: Campaign,
    walk: _Walk,
    keyring: dict[str, bytes],
    unkeyed: ChainCheckpoint | None,
    marks: set[int],
    budget: int | None = None,
) -> ChainReport | None:
    """Follow the chain from ``walk.expected`` to the end, or to the first checkpoint's place past ``budget``
    rolls hashed (``walk.stopped``); the report of the first broken link, or None."""
    for row in rows_from(campaign, walk.count):
        if problem := _link_problem(row, walk, keyring, unkeyed):
            return ChainReport(count=walk.expected, broken=walk.expected, reason=problem, hashed=walk.hashed)
        if row.seq in marks:
            walk.seen[row.seq] = row.hash
        if row.seq % CHECKPOINT_EVERY == 0:
            walk.resume = (row.seq, row.hash)
        walk.expected, walk.prev_hash = row.seq + 1, row.hash
        if budget is not None and walk.hashed >= budget and walk.resume == (row.seq, row.hash):
            walk.stopped = Roll.objects.filter(campaign=campaign, seq__gt=row.seq).exists()
            if walk.stopped:
                return None
    return None


def _against_marks(walk: _Walk, marks: list[ChainCheckpoint]) -> ChainReport | None:
    """A whole chain that still falls short of a checkpoint (a cut tail) or differs from it (rewritten); a pass
    stopped at its budget is held to the checkpoints it went past."""
    for mark in sorted(marks, key=lambda m: m.seq):
        when = _timestamp(mark.created_at)[:10]
        if walk.stopped and mark.seq > walk.count:
            break
        if walk.count < mark.seq:
            reason = f"The log ends at #{walk.count}, but it held #{mark.seq} on {when}: rolls were removed."
            return ChainReport(count=walk.count, broken=walk.count + 1, reason=reason, hashed=walk.hashed)
        if walk.seen.get(mark.seq, mark.hash) != mark.hash:
            reason = f"Roll #{mark.seq} is not the roll it was on {when}: the log was rewritten."
            return ChainReport(count=walk.count, broken=mark.seq, reason=reason, hashed=walk.hashed)
    return None


def _resume(campaign: Campaign, mark: ChainCheckpoint) -> _Walk | None:
    """Where to go on from a ``verified`` checkpoint: past its roll, if that roll is still the one it signed."""
    found = Roll.objects.filter(campaign=campaign, seq=mark.seq).values_list("hash", flat=True).first()
    return _Walk(expected=mark.seq + 1, prev_hash=mark.hash) if found == mark.hash else None


def _by_kind(marks: list[ChainCheckpoint], kind: str) -> ChainCheckpoint | None:
    return next((m for m in marks if m.kind == kind), None)


def check_chain(campaign: Campaign, *, full: bool = False, budget: int | None = None) -> ChainReport:
    """Check the campaign's log: every roll follows the one before it and matches its signature, the unkeyed rolls
    end where the log was signed, and the log still reaches, unchanged, the head the last Verify found.

    From the last ``verified`` checkpoint on, unless ``full`` (or that checkpoint's roll is gone or changed): only
    the rolls after it are hashed, a query a :data:`CHUNK`. A whole log is checkpointed for the next time. A
    checkpoint that is not as it was signed is reported after the rolls (at the first broken one, if any).

    With a ``budget`` (pages and the API: :data:`VERIFY_BUDGET`) at most about that many rolls are hashed: a longer
    stretch ends at a checkpoint's place, signed as ``verified``, and the report says it is not ``complete``. A
    broken log keeps the progress made before the break too, so asking again never hashes the same rolls twice.
    """
    keyring = keys()
    found = list(ChainCheckpoint.objects.filter(campaign=campaign))
    problems = {m.pk: problem for m in found if (problem := checkpoint_problem(m, keyring))}
    good = [m for m in found if m.pk not in problems]
    unkeyed = _by_kind(good, ChainCheckpoint.Kind.UNKEYED)
    verified = _by_kind(good, ChainCheckpoint.Kind.VERIFIED)
    walk = None if full or problems or verified is None else _resume(campaign, verified)
    walk = walk or _Walk(expected=1, prev_hash=GENESIS)
    # The checkpoints the rolls still to hash must match: every one on a whole pass, the later ones when going on.
    marks = [m for m in good if m.seq > walk.count or m.kind == ChainCheckpoint.Kind.UNKEYED]
    report = _walk(campaign, walk, keyring, unkeyed, {m.seq for m in marks}, budget) or _against_marks(walk, marks)
    report = report or ChainReport(count=walk.count, broken=None, hashed=walk.hashed, complete=not walk.stopped)
    if report.broken is None and problems:
        bad = next(m for m in found if m.pk in problems)
        where = max(1, min(bad.seq, report.count + 1))
        return ChainReport(count=report.count, broken=where, reason=problems[bad.pk], hashed=report.hashed)
    if not problems and walk.resume is not None and (report.broken is None or walk.resume[0] < report.broken):
        _advance(campaign, ChainCheckpoint.Kind.VERIFIED, walk.resume, verified)
    if report.broken is None and report.complete and walk.count:
        _advance(
            campaign, ChainCheckpoint.Kind.HEAD, (walk.count, walk.prev_hash), _by_kind(good, ChainCheckpoint.Kind.HEAD)
        )
    return report


def verify_chain(campaign: Campaign) -> int | None:
    """The ``seq`` of the first broken link of the campaign's log, or None when the chain holds."""
    return check_chain(campaign).broken


def verify(campaign: Campaign) -> ChainReport:
    """The Verify of the log page and the API: :func:`check_chain` within :data:`VERIFY_BUDGET`, at most
    :data:`VERIFY_AT_ONCE` in this process. One that finds another under way waits ``settings.CHANCE_WAIT``
    seconds for it, then is refused as :class:`~web.heavy.Busy` (a 503 with ``Retry-After``)."""
    if not VERIFYING.acquire(timeout=settings.CHANCE_WAIT):
        raise Busy(doing="checking another roll log")
    try:
        return check_chain(campaign, budget=VERIFY_BUDGET)
    finally:
        VERIFYING.release()
