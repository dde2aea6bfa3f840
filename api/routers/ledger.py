"""The ledger (Lucky 13: Adventure Points): a character's entries and balances in the currencies
its system declares, the GM's awards and corrections, and purchases.

Every change goes through :mod:`characters.ledger`, as the pages' do: it checks who asks and
refuses with a status (400 bad input, 403 not yours, 404 not found, 409 not now: too few points,
a maxed die, a sheet that changed since ``before``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Annotated, Any, Final

from django.http import HttpRequest
from ninja import Body, Field, Query, Router, Schema, Status
from pydantic import ConfigDict, Discriminator, StrictInt, Tag

from api.errors import responses
from api.params import MAX_ID, ONE_LINE, PathId
from characters import access, ledger
from characters.models import MAX_CURRENCY, MAX_ENTRY, LedgerEntry
from rules.document import MAX_NAME

router = Router(tags=["Adventure Points"])

Reason = Annotated[str, Field(max_length=ledger.MAX_REASON, pattern=ONE_LINE, description="Why, for the ledger.")]
Adventure = Annotated[
    str, Field(max_length=ledger.MAX_ADVENTURE, pattern=ONE_LINE, description="The adventure it belongs to.")
]
Name = Annotated[str, Field(max_length=MAX_NAME, pattern=ONE_LINE)]
#: What the buyer saw: the system's number for the offer (its ``offer_fields``' ``before``).
BEFORE_WORDS: Final = (
    "What you saw: the number the system's offer showed (a level, a die's rung, a code in pips); a purchase "
    "made from an older number buys nothing."
)
Before = Annotated[StrictInt | None, Field(ge=0, le=ledger.MAX_BEFORE, description=BEFORE_WORDS)]
#: An offer's key: its kind and the item it names (an ability, or a sheet item's id).
OFFER_KEY: Final = r"^[a-z_]+:[a-z0-9_]+$"

AWARD_EXAMPLE: Final = {"amount": 12, "reason": "Completing the mission", "adventure": "The Drowned Abbey"}
CORRECTION_EXAMPLE: Final = {"reverses": 41, "reason": "Awarded twice by mistake"}
PURCHASE_EXAMPLES: Final = [
    {"offer": "level:6", "before": 2},
    {"offer": "specialization:5", "name": "Shield wall", "adventure": "The Drowned Abbey"},
    {"offer": "ability:will", "before": 2},
]


class Forbid(Schema):
    model_config = ConfigDict(extra="forbid")


class AwardIn(Forbid):
    """The GM awards points (1 … 1000) in one of the system's currencies."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [AWARD_EXAMPLE]})

    amount: StrictInt = Field(..., ge=1, le=MAX_ENTRY)
    reason: Reason
    adventure: Adventure = ""
    currency: Annotated[str, Field(min_length=1, max_length=MAX_CURRENCY, pattern=ONE_LINE)] | None = Field(
        None,
        description="The key of one of the system's currencies (`GET /systems` lists them); its first "
        "(Lucky 13: `ap`) if left out. One the system does not declare is a 400.",
    )
    ends_adventure: bool = Field(
        False,
        description="The adventure ends for the character: what its system gives back then comes back.",
    )


class CorrectionIn(Forbid):
    """The GM reverses an earlier entry: a new entry of the opposite amount that names it."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [CORRECTION_EXAMPLE]})

    reverses: StrictInt = Field(..., ge=1, le=MAX_ID, description="The id of the entry to reverse.")
    reason: Reason


class PurchaseIn(Forbid):
    """Spend Adventure Points on something the sheet can buy now, named as the system names it."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": PURCHASE_EXAMPLES})

    offer: Annotated[str, Field(min_length=3, max_length=ledger.MAX_OFFER, pattern=OFFER_KEY)] = Field(
        ...,
        description="What to buy: `ability:<ability>` (its next die), `level:<specialization id>` (one more "
        "level) or `specialization:<skill id>` (a new specialization of the skill, with its `name`).",
    )
    name: Name | None = Field(None, description="The name of a new specialization (only for one).")
    before: Before = None
    adventure: Adventure = ""


def _change_kind(body: Any) -> str | None:
    if isinstance(body, dict):
        return "correction" if "reverses" in body else "award"
    return None


#: An award, or a correction (a body that names the entry it ``reverses``).
ChangeIn = Annotated[
    Annotated[AwardIn, Tag("award")] | Annotated[CorrectionIn, Tag("correction")], Discriminator(_change_kind)
]


class EntryOut(Schema):
    id: int
    kind: LedgerEntry.Kind
    currency: str = Field(..., description="The key of the currency the entry moves (Lucky 13: `ap`).")
    amount: int
    balance: int = Field(..., description="The balance in the entry's currency after this entry.")
    reason: str
    adventure: str
    by: str = Field(..., description="Who made the entry: a username.")
    created_at: datetime
    reverses: int | None = Field(..., description="For a correction, the id of the entry it reverses.")
    reversed_by: int | None = Field(..., description="The id of the correction that reversed this entry, if any.")
    purchase: dict[str, Any] = Field(..., description="What a spend bought.")


class BalanceOut(Schema):
    currency: str = Field(..., description="The currency's key.")
    name: str
    abbreviation: str
    amount: int


#: Entries on one page of the ledger unless the client asks for fewer (or up to MAX_LIMIT).
DEFAULT_LIMIT: Final = 100
MAX_LIMIT: Final = 500


class LedgerOut(Schema):
    entries: list[EntryOut] = Field(..., description="Newest first: one page, `limit` at most.")
    next: int | None = Field(
        ..., description="Pass as `before` for the next (older) page; null when this page reached the first entry."
    )
    balance: int = Field(..., description="The balance in the system's first currency (`currency`).")
    currency: str = Field(..., description="The key of the system's first currency.")
    balances: list[BalanceOut] = Field(..., description="The balance in each of the system's currencies, in order.")


class Written(Schema):
    entry: EntryOut
    balance: int = Field(..., description="The balance in the entry's currency after it.")
    currency: str


def entry_out(entry: LedgerEntry) -> dict[str, Any]:
    reversed_by = getattr(entry, "reversed_by", None)  # a reverse one-to-one raises when there is none
    return {
        "id": entry.pk,
        "kind": entry.kind,
        "currency": entry.currency,
        "amount": entry.amount,
        "balance": entry.balance,
        "reason": entry.reason,
        "adventure": entry.adventure,
        "by": entry.by.get_username(),
        "created_at": entry.created_at,
        "reverses": entry.reverses_id,
        "reversed_by": reversed_by.pk if reversed_by is not None else None,
        "purchase": entry.purchase,
    }


def _written(entry: LedgerEntry) -> Status[dict[str, Any]]:
    return Status(201, {"entry": entry_out(entry), "balance": entry.balance, "currency": entry.currency})


@router.get(
    "/characters/{id}/ledger",
    response=responses({200: LedgerOut}, 404),
    summary="A character's ledger (Lucky 13: Adventure Points)",
    description="The awards, spends and corrections, newest first, a page at a time (follow `next` as `before` "
    "until it is null), each in its currency with the balance in that currency after it; and the balance in each "
    "of the system's currencies. The campaign's members see it; anyone else gets 404.",
)
def ledger_of(
    request: HttpRequest,
    id: PathId,
    before: int = Query(
        MAX_ID, ge=1, le=MAX_ID, description="The id of the oldest entry you have; omit for the newest."
    ),
    limit: int = Query(DEFAULT_LIMIT, ge=1, le=MAX_LIMIT, description="Entries on the page."),
) -> dict[str, Any]:
    character = access.character_for(request.user, id)
    # One query by the (character, -id) index, one more than asked to know whether there is a next page.
    entries = LedgerEntry.objects.newest_of(character.pk, before=before).select_related("by", "reverses", "reversed_by")
    page = list(entries[: limit + 1])
    more = len(page) > limit
    page = page[:limit]
    holdings = character.holdings
    return {
        "entries": [entry_out(e) for e in page],
        "next": page[-1].pk if more else None,
        "balance": holdings[0].amount,
        "currency": holdings[0].currency.key,
        "balances": [
            {
                "currency": h.currency.key,
                "name": h.currency.name,
                "abbreviation": h.currency.abbreviation,
                "amount": h.amount,
            }
            for h in holdings
        ],
    }


@router.post(
    "/characters/{id}/ledger",
    response=responses({201: Written}, 400, 403, 404, 409, 413),
    summary="Award points (Lucky 13: Adventure Points), or correct an entry",
    description='GM only. An award: `{"amount": 12, "reason": …, "adventure": …}` (1 … 1000 points), in the '
    'system\'s first currency or the one named by `"currency"` (a currency the system does not declare is a 400). '
    'A correction: `{"reverses": <entry id>, "reason": …}` writes the opposite amount in the entry\'s currency and '
    "takes back what a spend bought; reversing points already spent is a 409. Other members get 403, anyone "
    "else 404.",
)
def write_entry(request: HttpRequest, id: PathId, change: Body[ChangeIn]) -> Status[dict[str, Any]]:
    character = access.character_for(request.user, id)
    if isinstance(change, CorrectionIn):
        entry = ledger.correct(character_id=character.pk, entry_id=change.reverses, reason=change.reason,
                               by=request.user)  # fmt: skip
        return _written(entry)
    awarded = ledger.award(
        campaign_id=character.campaign_id,
        awards=[ledger.Award(character.pk, change.amount)],
        reason=change.reason,
        adventure=change.adventure,
        currency=change.currency,
        ends_adventure=change.ends_adventure,
        by=request.user,
    )
    return _written(awarded.entries[0])


@router.post(
    "/characters/{id}/purchases",
    response=responses({201: Written}, 400, 403, 404, 409, 413),
    summary="Spend points (Lucky 13: Adventure Points)",
    description="The owner or the GM buys, by the rulebook, one of the things the sheet can buy now "
    '(the page "What should I buy?" lists them): an ability\'s next die (`{"offer": "ability:will"}`, its size × 4 '
    'points), one more level of a specialization (`{"offer": "level:<specialization id>"}`, 4 points) or a new '
    'specialization of a skill (`{"offer": "specialization:<skill id>", "name": …}`, 4 points). With `before` (the '
    "level or die rung you saw) a sheet changed since is a 409 `stale_version` (with the character `now`) and "
    "nothing is bought; too few points is a 409 `not_enough_points`; an offer the sheet does not have is a 400. "
    "A purchase spends the currency of its offer.",
)
def buy(request: HttpRequest, id: PathId, order: PurchaseIn) -> Status[dict[str, Any]]:
    character = access.character_for(request.user, id, write=True)
    wanted = ledger.Order(order.offer, name=order.name or "", before=order.before)
    entry = ledger.buy(character_id=character.pk, order=wanted, by=request.user, adventure=order.adventure)
    return _written(entry)
