"""Advancement: the currencies a system's characters earn and spend, the standing the GM awards, what can be
bought now and how it changes the odds, and what an adventure's end gives back."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol

from pydantic import BaseModel

from rules.systems.protocol.options import Option

__all__ = [
    "Advancement",
    "Currency",
    "Effect",
    "Offer",
    "Standing",
]


@dataclass(frozen=True, slots=True)
class Currency:
    """What a system's characters earn and spend (Lucky 13: Adventure Points), and what the rule text
    says of awarding it: the usual award per adventure (``typical_award``, low and high) and the
    reasons it gives, which the GM's award form offers."""

    key: str
    name: str
    abbreviation: str
    typical_award: tuple[int, int] | None = None
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Standing:
    """A number a sheet keeps that the GM moves with an award, within bounds (Lucky 13's reputation,
    −5 … +5): the sheet's top-level ``field``, in the edit ``section`` that holds it; its history is
    kept beside the ledger."""

    field: str
    section: str
    label: str
    low: int
    high: int


@dataclass(frozen=True, slots=True)
class Effect:
    """How a purchase changes one roll: the exact chance before and after."""

    label: str
    before: Fraction
    after: Fraction

    @property
    def gain(self) -> Fraction:
        return self.after - self.before


@dataclass(frozen=True, slots=True)
class Offer:
    """Something a character can buy now: its key (it names sheet items by id), a label for a
    player, its cost in a currency, and how it changes the odds."""

    key: str
    label: str
    currency: str
    cost: int
    effects: tuple[Effect, ...] = ()


class Advancement(Protocol):
    """A system's advancement: what its characters earn, what they can buy with it, and what an adventure's
    end gives back."""

    currencies: tuple[Currency, ...]
    #: The standing the GM awards beside the points (None: the sheet keeps none).
    standing: Standing | None
    #: What ``offers`` compares the odds at: each part of the situation with its choices (the values a
    #: form sends, as text) and its default (Lucky 13: the difficulty, Moderate to begin).
    offer_situation: tuple[Option, ...]

    def offers(self, sheet: BaseModel, options: Mapping[str, Any], situation: Mapping[str, Any]) -> tuple[Offer, ...]:
        """Everything the sheet can buy now, each labelled with what it buys in a player's words
        ("Teleport (Spellcasting) 2 → 3"), with its cost and how it changes the odds in ``situation``
        (keys of ``offer_situation``; each effect's label says at what)."""
        ...

    def offer_fields(self, sheet: BaseModel, offer: str, options: Mapping[str, Any]) -> dict[str, Any]:
        """What a buy form sends with ``offer``'s key, by name: ``before``, a whole number for what the
        buyer sees now (Lucky 13: the level or the die's rung), which :meth:`buy` checks so that a second
        click buys nothing; and, as None, each choice the buyer gives (Lucky 13: a new specialization's
        ``name``). :class:`SpecError` on ``offer`` when the sheet has no such offer, buyable now or not."""
        ...

    def offer_note(self, sheet: BaseModel, offer: str, options: Mapping[str, Any]) -> str:
        """A few words on what ``offer`` does that its effects do not show ("" when they say it all)."""
        ...

    def buy(
        self, sheet: BaseModel, offer: str, options: Mapping[str, Any], choice: Mapping[str, Any] | None = None
    ) -> tuple[BaseModel, Offer]:
        """The sheet after buying ``offer`` (a key from :meth:`offers`), and what was bought (its label:
        the sheet history's words). ``choice`` holds the fields of :meth:`offer_fields`; a ``before``
        left out is not checked. :class:`SpecError` on ``offer`` or a choice is the buyer's mistake; on
        ``before``, the sheet shows something else now (the message says what); on anything else, the
        sheet cannot take the purchase now (at the top already, full)."""
        ...

    def receipt(
        self, before: BaseModel, after: BaseModel, offer: Offer, options: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        """What the ledger keeps of a purchase (the sheets before and after :meth:`buy`): its words
        and a JSON record naming what it bought by id, with its words at the time, which :meth:`refund`
        and :meth:`purchase_sections` read back."""
        ...

    def purchase_sections(self, purchase: Mapping[str, Any]) -> tuple[str, ...]:
        """The edit sections (keys of ``edit_sections``) a purchase, as :meth:`receipt` recorded it, changes."""
        ...

    def refund(self, sheet: BaseModel, purchase: Mapping[str, Any], options: Mapping[str, Any]) -> BaseModel:
        """The sheet with a purchase (as :meth:`receipt` recorded it) taken back; :class:`SpecError` if
        the sheet no longer shows it as the purchase left it, :class:`SheetInvalid` if the sheet cannot
        take it back as it stands."""
        ...

    def end_adventure(self, sheet: BaseModel, options: Mapping[str, Any]) -> tuple[BaseModel, str] | None:
        """The sheet when the GM ends the adventure (D6: the heroic and dramatic luck points spent come
        back, with the extra ones the GM granted), and the words its history keeps; None when the end of
        an adventure changes nothing on it."""
        ...
