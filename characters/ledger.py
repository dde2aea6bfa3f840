"""Adventure Points and reputation: the GM's awards, purchases by the rulebook, corrections.

Every point earned or spent is a :class:`LedgerEntry`, written once. The balance on the
character is the sum of its entries, changed in the same transaction as the entry while the
character's row is locked, so two requests can never both spend the same points; the
database's CHECK constraints (balance ≥ 0, on the character and on each entry) are the last
line behind the lock. Every function here checks who asks and refuses with a
:class:`~campaigns.operations.Refused` (its ``status`` says 400, 403, 404 or 409) before
anything is written; the views and the API call these and nothing else writes those rows.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass
from typing import Any, Final

from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction

from campaigns.models import Campaign, Membership
from campaigns.operations import ARCHIVED, Conflict, NotAllowed, NotFound, Refused
from characters.creation import MAX_ROWS
from characters.models import MAX_ENTRY, Character, LedgerEntry, ReputationChange, Skill, Specialization
from characters.operations import mark_changed, sentence
from rules.dice import StepDie
from rules.systems import lucky13
from rules.systems.lucky13 import Purchase, PurchaseKind, SheetError

#: "Characters are typically expected to be able to earn between 10 and 20 Adventure Points per adventure."
TYPICAL_AWARD: Final = (10, 20)
#: The reasons the rule text gives for awarding points ("Skill advancement / Adventure Points").
SUGGESTED_REASONS: Final = (
    "Completing the mission",
    "A heroic act",
    "Saving another character's life",
    "Discovering vital intel",
)
MAX_REASON: Final = 200
MAX_ADVENTURE: Final = 120


class NotEnoughPoints(Conflict):
    code = "not_enough_points"

    def __init__(self, character: Character, *, needed: int) -> None:
        have = character.ap_balance
        super().__init__(f"{character.name} has {have} Adventure Points; this needs {needed}.")
        self.needed, self.have = needed, have


class StaleSheet(Conflict):
    """The part of the sheet a purchase changes was changed since the buyer looked at it."""

    code = "stale_sheet"


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
            else "Only the GM awards and corrects Adventure Points."
        )
    _writable(character)
    return character, is_gm


def _append(
    character: Character,
    *,
    kind: LedgerEntry.Kind,
    amount: int,
    reason: str,
    adventure: str,
    by: AbstractBaseUser,
    reverses: LedgerEntry | None = None,
    purchase: Mapping[str, Any] | None = None,
) -> LedgerEntry:
    """Write one entry and move the balance with it; the caller holds the character's row lock."""
    balance = character.ap_balance + amount
    if balance < 0:
        raise NotEnoughPoints(character, needed=-amount)
    entry = LedgerEntry.objects.create(
        character=character,
        kind=kind,
        amount=amount,
        balance=balance,
        reason=reason,
        adventure=adventure,
        reverses=reverses,
        purchase=dict(purchase or {}),
        by=by,
    )
    character.ap_balance = balance
    return entry


# --- GM awards ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Award:
    """Points (and a reputation change) for one character from the end-of-adventure form."""

    character_id: int
    amount: int = 0
    reputation: int = 0
    reason: str = ""  # "" takes the form's reason


@dataclass(frozen=True, slots=True)
class Awarded:
    entries: list[LedgerEntry]
    reputation: list[ReputationChange]


@transaction.atomic
def award(
    *, campaign_id: int, awards: Sequence[Award], reason: str, adventure: str = "", by: AbstractBaseUser
) -> Awarded:
    """The GM's end-of-adventure awards: Adventure Points (1 … 1000 each; 0 gives none) and
    reputation changes (the reputation stays within −5 … +5, "Reputation") for any of the
    campaign's characters in play, all written at once or not at all."""
    campaign = Campaign.objects.select_for_update().filter(pk=campaign_id).first()  # the campaign first, always
    role = Membership.objects.filter(campaign=campaign, user_id=by.pk).values_list("role", flat=True).first()
    if campaign is None or role is None:
        raise NotFound("No such campaign.")
    if role != Membership.Role.GM:
        raise NotAllowed("Only the GM awards Adventure Points.")
    if campaign.archived_at is not None:
        raise Conflict(ARCHIVED)
    reason = _text(reason, "reason", MAX_REASON, required=False)
    adventure = _text(adventure, "adventure", MAX_ADVENTURE, required=False)
    ids = [a.character_id for a in awards]
    if len(set(ids)) != len(ids):
        raise Refused("Each character can appear only once in an award.")
    errors: dict[str, str] = {}
    for a in awards:
        try:
            whole_number(a.amount, "points", low=0, high=MAX_ENTRY)
            whole_number(a.reputation, "reputation change", low=-10, high=10)
        except Refused as problem:
            errors.setdefault(str(a.character_id), problem.message)
        if (a.amount or a.reputation) and not (a.reason or reason):
            errors["reason"] = "Give a reason for the award."
    if not any(a.amount or a.reputation for a in awards):
        errors.setdefault("amount", "Give at least one character some points or a reputation change.")
    # One lock per character, taken in a fixed order so that two awards never wait on each other.
    characters = {
        c.pk: c
        for c in Character.objects.select_for_update(of=("self",))
        .select_related("campaign")
        .filter(pk__in=ids, campaign=campaign, status=Character.Status.ACTIVE)
        .order_by("pk")
    }
    for a in awards:
        character = characters.get(a.character_id)
        if character is None:
            errors.setdefault(str(a.character_id), "That character is not in play in this campaign.")
        elif isinstance(a.reputation, int) and not -5 <= character.reputation + a.reputation <= 5:
            errors.setdefault(
                str(a.character_id),
                (
                    f"{character.name}'s reputation is {character.reputation:+d}; a change of {a.reputation:+d} "
                    "would take it past the limits of −5 and +5."
                ),
            )
    if errors:
        raise Refused(next(iter(errors.values())), errors=errors)
    entries, changes = [], []
    for a in awards:
        character = characters[a.character_id]
        why = _text(a.reason, "reason", MAX_REASON, required=False) or reason
        fields, sections = [], []
        if a.amount:
            entries.append(
                _append(character, kind=LedgerEntry.Kind.AWARD, amount=a.amount, reason=why, adventure=adventure, by=by)
            )
            fields.append("ap_balance")
        if a.reputation:
            character.reputation += a.reputation
            changes.append(
                ReputationChange.objects.create(
                    character=character,
                    change=a.reputation,
                    reputation=character.reputation,
                    reason=why,
                    adventure=adventure,
                    by=by,
                )
            )
            fields.append("reputation")
            sections.append("reputation")  # an open reputation form is now out of date
        if fields:
            mark_changed(character, *sections, fields=fields)
    return Awarded(entries, changes)


# --- Corrections ----------------------------------------------------------------------------------


@transaction.atomic
def correct(*, character_id: int, entry_id: int, reason: str, by: AbstractBaseUser) -> LedgerEntry:
    """The GM reverses an earlier entry: a new entry of the opposite amount that names it.

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
    if -entry.amount + character.ap_balance < 0:
        raise Conflict(
            f"{character.name} has already spent those points: reversing this award would take the balance "
            f"from {character.ap_balance} below zero."
        )
    sections = []
    if entry.kind == LedgerEntry.Kind.SPEND:
        sections = [_undo(character, entry.purchase)]
    correction = _append(
        character,
        kind=LedgerEntry.Kind.CORRECTION,
        amount=-entry.amount,
        reason=reason,
        adventure=entry.adventure,
        by=by,
        reverses=entry,
    )
    mark_changed(character, *sections, fields=_fields(sections))
    return correction


def _fields(sections: Sequence[str]) -> list[str]:
    fields = ["ap_balance"]
    if "abilities" in sections:
        fields += [*lucky13.ABILITY_KEYS, "hit_points"]
    return fields


def _undo(character: Character, bought: Mapping[str, Any]) -> str:
    """Take back a purchase still on the sheet; returns the section it changed."""
    kind = bought.get("kind")
    if kind == PurchaseKind.ABILITY:
        key, before, after = bought["ability"], bought["before"], bought["after"]
        if getattr(character, key) != after:
            raise Conflict("The ability is no longer the die this purchase bought: correct the sheet first.")
        setattr(character, key, before)
        if key == "pulse":
            maximum = lucky13.max_hit_points(StepDie(before), character.campaign.settings["hit_points_per_step"])
            character.hit_points = min(character.hit_points, maximum)
        return "abilities"
    spec = Specialization.objects.filter(
        skill__character=character, skill__name=bought.get("skill"), name=bought.get("name")
    ).first()
    if spec is None or spec.level != bought.get("after"):
        raise Conflict("The specialization is no longer as this purchase left it: correct the sheet first.")
    if kind == PurchaseKind.SPECIALIZATION:
        spec.delete()
    else:
        spec.level = bought["before"]
        spec.save(update_fields=["level"])
    return "specializations"


# --- Purchases ------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Order:
    """What a buyer asks for: a new specialization (skill, name), a level (skill, name), an ability.

    ``before`` is what the buyer saw (the level, or the ability's rung); if the sheet no longer
    shows it, nothing is bought, so that a second click or a second tab never buys twice.
    """

    kind: str
    skill: str = ""
    name: str = ""
    ability: str = ""
    before: int | None = None


#: The section of the sheet each kind of purchase changes.
SECTION_OF: Final = {
    PurchaseKind.SPECIALIZATION: "specializations",
    PurchaseKind.LEVEL: "specializations",
    PurchaseKind.ABILITY: "abilities",
}


def price(character: Character, order: Order) -> tuple[Purchase, Skill | None, Specialization | None]:
    """The engine's :class:`Purchase` for ``order`` on this sheet, or a refusal that says why not."""
    try:
        kind = PurchaseKind(order.kind)
    except ValueError:
        raise Refused("Choose what to buy: a specialization, a level, or an ability.") from None
    try:
        if kind == PurchaseKind.ABILITY:
            if order.ability not in lucky13.ABILITY_KEYS:
                raise Refused(f"{order.ability!r} is not an ability.", errors={"ability": "Choose an ability."})
            return lucky13.buy_ability(order.ability, StepDie(getattr(character, order.ability))), None, None
        skill = character.skills.filter(name=order.skill).first()
        if skill is None:
            raise Refused(f"{character.name} has no skill called {order.skill!r}.", errors={"skill": "Choose a skill."})
        names = list(skill.specializations.values_list("name", flat=True))
        if kind == PurchaseKind.SPECIALIZATION:
            if Specialization.objects.filter(skill__character=character).count() >= MAX_ROWS:
                raise Conflict(f"{character.name} has {MAX_ROWS} specializations, the most a sheet holds.")
            return lucky13.buy_specialization(skill.name, order.name, names), skill, None
        spec = skill.specializations.filter(name=order.name).first()
        if spec is None:
            raise Refused(f"{skill.name} has no specialization called {order.name!r}.", errors={"name": "Choose one."})
        return lucky13.buy_level(skill.name, spec.name, spec.level), skill, spec
    except SheetError as problem:
        message = sentence(problem.message)
        if problem.field in ("level", "ability"):  # at the top already
            raise Conflict(message) from None
        raise Refused(message, errors={problem.field: message}) from None
    except ValueError as problem:  # clean_name: a missing or overlong name
        raise Refused(sentence(str(problem)), errors={"name": sentence(str(problem))}) from None


def _now(purchase: Purchase, character: Character) -> str:
    if purchase.kind == PurchaseKind.ABILITY:
        names = dict(zip(lucky13.ABILITY_KEYS, character.campaign.settings["ability_names"], strict=True))
        return f"{names[purchase.ability]} is {StepDie(purchase.before)} now"
    return f"{purchase.name} is at level {purchase.before} now"


def describe(purchase: Purchase, names: Mapping[str, str]) -> str:
    """What a purchase buys, for the ledger: "Teleport (Spellcasting) 2 → 3", "Will d6 → d8"."""
    if purchase.kind == PurchaseKind.ABILITY:
        return f"{names[purchase.ability]} {StepDie(purchase.before)} → {StepDie(purchase.after)}"
    if purchase.kind == PurchaseKind.SPECIALIZATION:
        return f"New specialization {purchase.name} ({purchase.skill})"
    return f"{purchase.name} ({purchase.skill}) {purchase.before} → {purchase.after}"


@transaction.atomic
def buy(*, character_id: int, order: Order, by: AbstractBaseUser, adventure: str = "") -> LedgerEntry:
    """Spend Adventure Points by the rulebook ("Skill advancement / Adventure Points"): a new
    specialization (4, at level 1), one more level (4, at most 5), or the next ability die
    (its size × 4, up to d12). The sheet change and the ledger entry are one transaction.

    If the sheet no longer shows what the buyer saw (``order.before``), nothing is bought
    (:class:`StaleSheet`).
    """
    character, _ = _lock(character_id, by, spend=True)
    adventure = _text(adventure, "adventure", MAX_ADVENTURE, required=False)
    purchase, skill, spec = price(character, order)
    section = SECTION_OF[purchase.kind]
    if order.before is not None and order.before != purchase.before:
        raise StaleSheet(f"{_now(purchase, character)}: the sheet changed since you looked, so nothing was bought.")
    if purchase.cost > character.ap_balance:
        raise NotEnoughPoints(character, needed=purchase.cost)
    if purchase.kind == PurchaseKind.ABILITY:
        setattr(character, purchase.ability, purchase.after)
        if purchase.ability == "pulse":  # the new row of hit point slots comes filled
            character.hit_points += character.campaign.settings["hit_points_per_step"]
    elif purchase.kind == PurchaseKind.SPECIALIZATION:
        Specialization.objects.create(skill=skill, name=purchase.name, level=purchase.after)
    else:
        spec.level = purchase.after
        spec.save(update_fields=["level"])
    names = dict(zip(lucky13.ABILITY_KEYS, character.campaign.settings["ability_names"], strict=True))
    entry = _append(
        character,
        kind=LedgerEntry.Kind.SPEND,
        amount=-purchase.cost,
        reason=describe(purchase, names),
        adventure=adventure,
        by=by,
        purchase={key: value for key, value in asdict(purchase).items() if value != ""},
    )
    mark_changed(character, section, fields=_fields([section]))
    return entry
