"""Rows of the append-only histories, appended the way the models keep them, for the benches' data
(:mod:`bench.page_data` on either database, :mod:`bench.big` on PostgreSQL): the rows are built here, and
each bench writes them its own way (``bulk_create``, or PostgreSQL's COPY for a million).

- a ledger entry carries its running balance, and the character's ``Balance`` is set to the last;
- a roll carries its ``seq`` and the previous roll's hash, and is signed as ``play.rolls.record_roll``
  signs it (:func:`play.chain.seal`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple

from characters import ledger
from characters.models import Balance, LedgerEntry
from play import chain
from play.models import Roll


class Award(NamedTuple):
    amount: int
    reason: str
    adventure: str


def append_awards(
    character_id: int,
    by_id: int,
    currency: str,
    awards: Sequence[Award],
    write: Callable[[list[LedgerEntry]], object],
) -> int:
    """Append ``awards`` to the character's ledger in ``currency`` after the entries it has, each with its
    running balance, through ``write``; then set the character's balance to the last and recount the
    adventure chart's tallies, which the ledger's writers keep. Returns the rows written."""
    if not awards:
        return 0
    last = LedgerEntry.objects.filter(character_id=character_id, currency=currency).order_by("-pk").first()
    balance = last.balance if last is not None else 0
    rows = []
    for award in awards:
        balance += award.amount
        rows.append(
            LedgerEntry(
                character_id=character_id,
                kind=LedgerEntry.Kind.AWARD,
                currency=currency,
                amount=award.amount,
                balance=balance,
                reason=award.reason,
                adventure=award.adventure,
                by_id=by_id,
            )
        )
    write(rows)
    Balance.objects.update_or_create(character_id=character_id, currency=currency, defaults={"amount": balance})
    ledger.recount_adventures([character_id])
    return len(rows)


def chained_rolls(
    campaign_id: int, like: Sequence[Roll], seqs: range, *, prev_hash: str, start: datetime
) -> Iterator[Roll]:
    """Copies of the rolls ``like``, numbered ``seqs`` in the campaign's log and each chained to the one
    before (the first to ``prev_hash``) and signed: roll ``seq`` copies ``like[seq % len(like)]``, made
    ``seq`` seconds after ``start``. A model's ``follows`` is read as a distance back (``bench.big`` keeps it
    so); a copy follows the roll that far before it, if there is one."""
    for seq in seqs:
        model = like[seq % len(like)]
        follows = None if model.follows is None else seq - model.follows
        roll = Roll(
            campaign_id=campaign_id,
            by_id=model.by_id,
            character_id=model.character_id,
            kind=model.kind,
            system=model.system,
            label=model.label,
            spec=model.spec,
            dice=model.dice,
            total=model.total,
            outcome=model.outcome,
            chance=model.chance,
            chance_of=model.chance_of,
            secret=model.secret,
            created_at=start + timedelta(seconds=seq),
            seq=seq,
            follows=follows if follows is not None and follows >= 1 else None,
            prev_hash=prev_hash,
        )
        chain.seal(roll)
        prev_hash = roll.hash
        yield roll
