"""A rules system that exists only for the tests: Coin, a game of flipping coins.

It follows the system protocol (``rules.systems.base.RulesSystem``) with nothing borrowed from
Lucky 13, to prove that the protocol is all a system needs. A character has Nerve (how many
coins they flip, 1 … 6), Luck hit points and a list of tricks; a flip succeeds with at least as
many heads as the task needs. Tokens buy Nerve and new tricks.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb
from random import Random
from typing import Annotated, Any, ClassVar, Final, Literal

from pydantic import Field, model_validator

from rules.document import Document, ItemId, LongText, Name, Problem, require_unique, with_new_ids
from rules.systems.base import (
    CreationStep,
    Currency,
    EditRefused,
    EditSection,
    Effect,
    Offer,
    Option,
    OptionsChange,
    Others,
    Recorded,
    Role,
    RollKind,
    SheetInvalid,
    SheetRoll,
    SpecError,
    Summary,
    Totals,
    Track,
    Vitals,
    Worded,
    nobody,
)
from rules.systems.defaults import SystemDefaults
from tests.systems.coin import dare as coin_dare
from tests.systems.coin import pocket as coin_pocket
from tests.systems.coin import table as coin_table
from tests.systems.coin.combat import COMBAT

MAX_NERVE: Final = 6


class Trick(Document):
    id: ItemId
    name: Name


class Sheet(Document):
    schema_version: Literal[2] = 2
    nerve: Annotated[int, Field(ge=1, le=MAX_NERVE, strict=True)] | None = None
    luck: Annotated[int, Field(ge=0, le=coin_dare.MAX_LUCK, strict=True)] = 5
    tricks: tuple[Trick, ...] = ()
    notes: LongText = ""
    step: Literal["", "nerve", "tricks"] = "nerve"
    next_id: Annotated[int, Field(ge=1, strict=True)] = 1
    #: A dare's coins that wait for a decision (``coin_dare``).
    dare: coin_dare.Dare | None = None
    #: The number in the log of a coin tossed in secret that waits for the GM to show it (``coin_pocket``).
    tossed: Annotated[int, Field(ge=1, strict=True)] | None = None

    @model_validator(mode="after")
    def _unique(self) -> Sheet:
        require_unique(self.tricks, "tricks")
        return self


class Situation(Document):
    """A flip from the sheet: how many heads it needs; or a dare (two coins on Luck, made by the dare move,
    whose coins leave a decision), left out of the document when it is not one."""

    need: Annotated[int, Field(ge=0, le=MAX_NERVE, strict=True)] = 1
    dare: bool = Field(False, title="Dare fate", description="Two coins on Luck instead: double heads wins a point.",
                       exclude_if=lambda dare: not dare)  # fmt: skip


class Options(Document):
    """Coin's options, in one model: what a form shows of each (title, help, bounds) is read from it."""

    luck: Annotated[int, Field(ge=1, le=20, strict=True)] = Field(5, title="Starting Luck")
    #: Tricks the GM suggests: a list option, which the generated form takes one a line.
    trick_ideas: tuple[Annotated[Name, Field(min_length=1)], ...] = Field(
        default=("Coin Walk", "Double Heads"), max_length=20, title="Trick ideas",
        description="Tricks the players may take.",
    )  # fmt: skip


@dataclass(frozen=True, slots=True)
class Flip:
    coins: int
    need: int


@dataclass(frozen=True, slots=True)
class Flipped:
    flip: Flip
    faces: tuple[str, ...]

    @property
    def success(self) -> bool:
        return self.faces.count("heads") >= self.flip.need


def parse_flip(spec: Mapping[str, Any]) -> Flip:
    for field in spec:
        if field not in ("system", "roll", "coins", "need"):
            raise SpecError(str(field), "is not a field of this roll")
    coins, need = spec.get("coins"), spec.get("need", 1)
    if isinstance(coins, bool) or not isinstance(coins, int) or not 1 <= coins <= MAX_NERVE:
        raise SpecError("coins", f"flip 1 to {MAX_NERVE} coins")
    if isinstance(need, bool) or not isinstance(need, int) or not 0 <= need <= coins:
        raise SpecError("need", "need 0 heads up to the number of coins")
    return Flip(coins, need)


def flip_chance(flip: Flip) -> Fraction:
    """P(at least ``need`` heads of ``coins`` fair coins), by counting."""
    return Fraction(sum(comb(flip.coins, k) for k in range(flip.need, flip.coins + 1)), 2**flip.coins)


def flip_coins(flip: Flip, rng: Random) -> Flipped:
    return Flipped(flip, tuple(rng.choice(("heads", "tails")) for _ in range(flip.coins)))


def _chance_json(spec: Mapping[str, Any]) -> dict[str, Any]:
    p = flip_chance(parse_flip(spec))
    return {"p_success": f"{p.numerator}/{p.denominator}"}


FLIP: Final = RollKind(
    key="flip",
    label="Flip",
    fields=frozenset({"system", "roll", "coins", "need"}),
    parse=parse_flip,
    roll=flip_coins,
    chance=flip_chance,
    record=lambda flipped: Recorded(
        list(flipped.faces), flipped.faces.count("heads"), {"success": flipped.success, "need": flipped.flip.need}
    ),
    success=lambda chance: chance,
    chance_json=_chance_json,
    describe=lambda flip: f"{flip.coins} coins, {flip.need} heads needed",
)
TOKENS: Final = Currency("tokens", "Tokens", "T")


def _need(situation: Mapping[str, Any]) -> int:
    """The heads a flip needs, from a situation (a form sends it as text)."""
    need = situation.get("need", 1)
    if isinstance(need, str) and need.isascii() and need.isdigit() and len(need) == 1:
        need = int(need)
    if isinstance(need, bool) or not isinstance(need, int) or not 1 <= need <= MAX_NERVE:
        raise SpecError("need", f"need 1 to {MAX_NERVE} heads")
    return need


#: What the offers compare a purchase at: the heads a flip needs.
NEED: Final = Option(
    "need", "Heads needed", "1", choices=tuple((str(n), f"{n} head{'s' if n > 1 else ''}") for n in range(1, 7))
)


def migrate(document: dict[str, Any], from_version: int) -> dict[str, Any]:
    """Version 2 renamed ``courage`` to ``nerve``."""
    if from_version > 2 or from_version < 1:
        raise ValueError(f"there is no sheet version {from_version}")
    if from_version < 2:
        document = {**document, "schema_version": 2}
        if "courage" in document:
            document["nerve"] = document.pop("courage")
    return document


class Coin(SystemDefaults):
    key: Final = "coin"
    name: Final = "Coin"
    attribution: Final = "Coin is a test game."
    disclaimer: Final = ""
    license_name: Final = ""
    license_file: Final = ""
    options_model: ClassVar = Options
    moves: Final = coin_table.MOVES + coin_dare.MOVES + coin_pocket.MOVES
    log_kinds: Final = {"check": "Flip", "flip": "Flip at the table", "dare": "Dare", "toss": "A coin in secret"}
    table: Final = coin_table.TABLE
    sheet_model: ClassVar = Sheet
    sheet_version: Final = 2
    creation_steps: Final = (
        CreationStep("nerve", "Nerve", server_rolls=True),
        CreationStep("tricks", "Tricks", fields=("tricks", "notes")),
    )
    edit_sections: Final = (
        EditSection("notes", "notes"),
        EditSection("luck", "Luck", frozenset({Role.GM}), region="coins", note="only the GM can change the Luck"),
        EditSection("tricks", "tricks"),
    )
    roll_kinds: Final = {"flip": FLIP}
    currencies: Final = (TOKENS,)
    standing: Final = None
    offer_situation: Final = (NEED,)
    combat: Final = COMBAT

    def outcome_words(self, kind: str, spec: Mapping[str, Any], outcome: Mapping[str, Any]) -> Worded | None:
        """A flip at the table and a dare win with double heads."""
        if kind in ("flip", "dare") and outcome.get("success") is not None:
            return Worded("Double heads", "success") if outcome["success"] else Worded("No double heads", "failure")
        return None

    def change_options(
        self,
        before: Mapping[str, Any],
        after: Mapping[str, Any],
        renames: Mapping[str, str],
        characters: Sequence[tuple[str, Sheet]],
    ) -> OptionsChange:
        """Starting Luck is for new characters: no sheet changes with it."""
        return OptionsChange(conflicts={}, sheets=tuple(None for _ in characters))

    def sheet_view(self, sheet: Sheet, options: Mapping[str, Any]) -> dict[str, Any]:
        """Nothing beyond the document: Coin's templates read it as it is."""
        return {}

    def options_summary(self, options: Mapping[str, Any]) -> list[dict[str, Any]]:
        return [{"label": "Starting Luck", "value": options["luck"]}]

    def migrate(self, document: dict[str, Any], from_version: int) -> dict[str, Any]:
        return migrate(document, from_version)

    def validate(self, sheet: Sheet, options: Mapping[str, Any], *, finished: bool) -> tuple[Problem, ...]:
        if finished and sheet.nerve is None:
            return (Problem(field="nerve", message="flip for Nerve first"),)
        return ()

    def new_draft(self, options: Mapping[str, Any]) -> Sheet:
        return Sheet(luck=options["luck"])

    def check_step(self, sheet: Sheet, step: str, options: Mapping[str, Any]) -> tuple[Problem, ...]:
        if step not in ("nerve", "tricks"):
            return (Problem(field="step", message=f"there is no creation step {step!r}"),)
        return self.validate(sheet, options, finished=True)

    def roll_step(self, sheet: Sheet, step: str, options: Mapping[str, Any], rng: Random) -> Sheet:
        if step != "nerve":
            raise SpecError("step", f"the server rolls nothing at the {step} step")
        if sheet.nerve is not None:
            return sheet
        return sheet.model_copy(update={"nerve": rng.randint(1, 3), "step": "tricks"})

    def fill_step(self, sheet: Sheet, step: str, value: Mapping[str, Any], options: Mapping[str, Any]) -> Sheet:
        if step != "tricks":
            raise SheetInvalid([Problem(field="step", message=f"nothing is filled in at the {step} step")])
        if set(value) - {"tricks", "notes"}:
            raise SheetInvalid(
                [Problem(field=sorted(set(value) - {"tricks", "notes"})[0], message="is not part of it")]
            )
        if sheet.nerve is None:
            raise SheetInvalid([Problem(field="nerve", message="flip for Nerve first")])
        filled = self.read_sheet(with_new_ids(sheet.model_dump(mode="json"), value))
        if len(filled.tricks) > 3:
            raise SheetInvalid([Problem(field="tricks", message="a new character knows at most 3 tricks")])
        return filled

    def finish(self, sheet: Sheet, options: Mapping[str, Any]) -> Sheet:
        problems = self.validate(sheet, options, finished=True)
        if problems:
            raise SheetInvalid(problems)
        return sheet.model_copy(update={"step": ""})

    def edit(
        self, sheet: Sheet, section: str, value: Mapping[str, Any], *, role: Role, options: Mapping[str, Any]
    ) -> Sheet:
        spec = next((s for s in self.edit_sections if s.key == section), None)
        if spec is None:
            raise SheetInvalid([Problem(field="section", message=f"there is no section {section!r}")])
        if role not in spec.editors:
            raise EditRefused(section, f"only the GM can change the {spec.label}")
        if set(value) - {section}:
            raise SheetInvalid([Problem(field=sorted(set(value) - {section})[0], message="is not part of it")])
        return self.read_sheet(with_new_ids(sheet.model_dump(mode="json"), value))

    def vitals(self, sheet: Sheet, options: Mapping[str, Any]) -> Vitals:
        luck = Track("luck", "Luck", sheet.luck, maximum=20, minimum=0)
        if sheet.luck == 0:
            return Vitals((luck,), "out", can_act=False, why_not="out of Luck")
        return Vitals((luck,), "up")

    def summary(self, sheet: Sheet) -> Summary:
        return Summary(step=sheet.step, rolls=(f"Nerve {sheet.nerve}",) if sheet.nerve is not None else ())

    gm_situation: Final = frozenset()
    situation_model: ClassVar = Situation
    situation_characters: Final = frozenset()

    def situation_choices(self, sheet: Sheet, options: Mapping[str, Any]) -> Mapping[str, Sequence[tuple[Any, str]]]:
        """Nothing to offer: a flip's heads are typed as a number (the page's free number path)."""
        return {}

    call_model: ClassVar = Situation
    called_situation: Final = frozenset({"need", "dare"})

    def call_choices(self, options: Mapping[str, Any]) -> Mapping[str, Sequence[tuple[str, str]]]:
        return {}

    def call_situation(self, sheet: Sheet, call: Situation, options: Mapping[str, Any]) -> dict[str, Any]:  # type: ignore[override]
        if sheet.nerve is None:
            raise SpecError("nerve", "the character has no Nerve yet")
        return {"need": call.need, **({"dare": True} if call.dare else {})}

    def call_words(self, call: Situation, options: Mapping[str, Any]) -> str:  # type: ignore[override]
        return "A dare: two coins on Luck" if call.dare else f"A flip needing {call.need} heads"

    def situation_call(self, sheet: Sheet, situation: Mapping[str, Any], options: Mapping[str, Any]) -> Situation:  # type: ignore[override]
        return Situation.model_validate({"need": situation.get("need", 1), "dare": bool(situation.get("dare"))})

    def sheet_roll(
        self,
        sheet: Sheet,
        situation: Mapping[str, Any],
        options: Mapping[str, Any],
        others: Others = nobody,
        table: Mapping[str, Any] | None = None,
    ) -> SheetRoll:
        """A flip of the sheet's Nerve needing the situation's heads; made while coins lie in the pot (what the
        table holds for the sheet), it is made for the pot. A dare is two coins needing double heads, made by
        the dare move (its coins leave a decision)."""
        if sheet.nerve is None:
            raise SpecError("nerve", "the character has no Nerve yet")
        if situation.get("dare"):
            spec = {"system": self.key, "roll": "flip", "coins": 2, "need": 2}
            return SheetRoll("flip", spec, "A dare: two coins on Luck, double heads wins", move=("dare", {}))
        flip = parse_flip({"coins": sheet.nerve, "need": situation.get("need", 1)})
        spec = {"system": self.key, "roll": "flip", "coins": flip.coins, "need": flip.need}
        heads = tuple((h, Fraction(comb(flip.coins, h), 2**flip.coins)) for h in range(flip.coins + 1))
        totals = Totals(heads, flip.need, succeeds=frozenset(range(flip.need, flip.coins + 1)), value="Heads",
                        caption=f"Chance of each number of heads; the highlighted bars have the {flip.need} needed.",
                        expectation=Fraction(flip.coins, 2))  # fmt: skip
        label = f"Nerve ({flip.coins} coins) needing {flip.need} heads"
        pot = (table or {}).get("pot", 0)
        if pot:
            return SheetRoll("flip", spec, f"{label}, for a pot of {pot}", details={"pot": pot}, totals=totals)
        return SheetRoll("flip", spec, label, totals=totals)

    def offers(self, sheet: Sheet, options: Mapping[str, Any], situation: Mapping[str, Any]) -> tuple[Offer, ...]:
        """A new trick (1 token), and one more coin of Nerve (twice the Nerve) while it is below 6,
        with how it changes a flip that needs the situation's heads."""
        need = _need(situation)
        out = [Offer("trick", "A new trick", TOKENS.key, 1)]
        if sheet.nerve is not None and sheet.nerve < MAX_NERVE:
            before = flip_chance(Flip(sheet.nerve, need)) if need <= sheet.nerve else Fraction(0)
            after = flip_chance(Flip(sheet.nerve + 1, need))
            label = f"Nerve {sheet.nerve} → {sheet.nerve + 1}"
            flip = Effect(f"A flip needing {need} head{'s' if need > 1 else ''}", before, after)
            out.append(Offer("nerve", label, TOKENS.key, 2 * sheet.nerve, (flip,)))
        return tuple(out)

    def offer_fields(self, sheet: Sheet, offer: str, options: Mapping[str, Any]) -> dict[str, Any]:
        if offer == "trick":
            return {"before": 0, "name": None}
        if offer == "nerve" and sheet.nerve is not None:
            return {"before": sheet.nerve}
        raise SpecError("offer", f"there is no purchase {offer!r} on this sheet")

    def offer_note(self, sheet: Sheet, offer: str, options: Mapping[str, Any]) -> str:
        self.offer_fields(sheet, offer, options)
        return "A trick is for the story: it changes no flip." if offer == "trick" else ""

    def buy(
        self, sheet: Sheet, offer: str, options: Mapping[str, Any], choice: Mapping[str, Any] | None = None
    ) -> tuple[Sheet, Offer]:
        choice = choice or {}
        before = self.offer_fields(sheet, offer, options)["before"]
        found = next((o for o in self.offers(sheet, options, {}) if o.key == offer), None)
        if found is None:
            raise SpecError("nerve", f"Nerve stops at {MAX_NERVE}")
        if offer == "nerve":
            bought = self.read_sheet({**sheet.model_dump(mode="json"), "nerve": sheet.nerve + 1})
        else:
            name = " ".join(str(choice.get("name") or "").split())
            if not name:
                raise SpecError("name", "a new trick needs a name")
            document = sheet.model_dump(mode="json")
            document.update(
                tricks=[*document["tricks"], {"id": sheet.next_id, "name": name}], next_id=sheet.next_id + 1
            )
            bought = self.read_sheet(document)
        if "before" in choice and choice["before"] != before:
            raise SpecError("before", f"Nerve is {sheet.nerve} now")
        return bought, found

    def receipt(
        self, before: Sheet, after: Sheet, offer: Offer, options: Mapping[str, Any]
    ) -> tuple[str, dict[str, Any]]:
        if offer.key == "nerve":
            kept = {"offer": "nerve", "cost": offer.cost, "before": before.nerve, "after": after.nerve}
            return f"Nerve {before.nerve} → {after.nerve}", kept
        trick = after.tricks[-1]
        return f"A new trick: {trick.name}", {
            "offer": "trick",
            "cost": offer.cost,
            "trick_id": trick.id,
            "name": trick.name,
        }

    def purchase_sections(self, purchase: Mapping[str, Any]) -> tuple[str, ...]:
        return ("tricks",) if purchase.get("offer") == "trick" else ()

    def refund(self, sheet: Sheet, purchase: Mapping[str, Any], options: Mapping[str, Any]) -> Sheet:
        document = sheet.model_dump(mode="json")
        if purchase.get("offer") == "nerve":
            if sheet.nerve != purchase.get("after"):
                raise SpecError("purchase", "Nerve is no longer what this purchase bought: correct the sheet first")
            return self.read_sheet({**document, "nerve": purchase.get("before")})
        tricks = [t for t in document["tricks"] if t["id"] != purchase.get("trick_id")]
        if len(tricks) == len(document["tricks"]):
            raise SpecError("purchase", "the trick is no longer on the sheet: correct the sheet first")
        return self.read_sheet({**document, "tricks": tricks})

    # --- Export and import -----------------------------------------------------------------

    #: Coin has no export format older than the envelope.
    legacy_formats: Final = ()

    def fresh_problems(
        self, sheet: Sheet, options: Mapping[str, Any], *, campaign: str, rolls_verified: bool
    ) -> tuple[Problem, ...]:
        """Nerve is flipped on the server at creation (1 to 3 coins): a document nobody vouches for
        cannot bring it, and a vouched-for fresh creation has at most 3."""
        if sheet.nerve is None:
            return ()
        if not rolls_verified:
            return (
                Problem(
                    field="signature",
                    message="this Nerve was not flipped by this Dicehall, or the document was changed since; coins "
                    "are flipped on the server only: leave Nerve out and flip for it in the campaign",
                ),
            )
        if sheet.nerve > 3:
            return (Problem(field="nerve", message=f"a fresh character flips 1 to 3 coins, not {sheet.nerve}"),)
        return ()

    def afresh(self, sheet: Sheet, options: Mapping[str, Any], *, finished: bool) -> tuple[Sheet, tuple[str, ...]]:
        """A fresh start: Luck at the campaign's starting Luck."""
        if sheet.luck == options["luck"]:
            return sheet, ()
        fresh = self.read_sheet({**sheet.model_dump(mode="json"), "luck": options["luck"]})
        return fresh, (f"Luck from {sheet.luck} to {options['luck']}",)

    carried_options: Final = ()

    def fresh_rules(self, options: Mapping[str, Any]) -> tuple[str, ...]:
        return (
            "Nerve is flipped on the server: a changed document cannot bring it, so leave it out and flip in the "
            "campaign.",
            f"Such a character starts its play afresh: Luck {options['luck']}, no Tokens.",
        )


SYSTEM: Final = Coin()
