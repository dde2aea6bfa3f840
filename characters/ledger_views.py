"""Adventure Points on the pages: the ledger, the GM's end-of-adventure awards, corrections,
and spending with "What should I buy?".

Every change goes through ``characters.ledger``, which checks who asks and refuses with a
message and a status (400 bad input, 403 not yours, 404 not found, 409 not now: too few
points, a maxed die, a sheet that changed). The forms are plain POSTs that redirect, so
the pages work without JavaScript; on "What should I buy?" htmx swaps the comparison
when the situation (Lucky 13: the difficulty) changes. What a system sells, and the situation
its odds are compared at, are the system's (``offer_situation``, ``offers``, ``offer_fields``,
``offer_note``); these pages name no system.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Final

from django import forms
from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_http_methods, require_POST, require_safe
from django.views.decorators.vary import vary_on_headers

from campaigns import access as campaign_access
from campaigns.errors import Refused
from characters import access, ledger
from characters.models import MAX_CURRENCY, MAX_ENTRY, AdventureTally, Character, LedgerEntry, ReputationChange
from rules.document import MAX_NAME
from rules.systems.base import Currency, Option, RulesSystem, Standing
from web.fields import ChoiceField, TextField, WholeNumberField, name_start, whole_key
from web.presenters import CHART_WIDTH, LABEL_HEIGHT, PLOT_HEIGHT

NO_ADVENTURE: Final = "No adventure named"
#: Widest an adventure's pair of bars is drawn, in the chart's units.
MAX_GROUP_WIDTH: Final = 64


def _adventures(campaign_id: int) -> list[str]:
    """The adventures the campaign's ledger already names, the latest to begin first, for the form's
    suggestions: the campaign's latest tallies, by their index, never by walking the ledger back
    from its newest entry past every other campaign's."""
    seen = (
        AdventureTally.objects.filter(campaign_id=campaign_id)
        .exclude(adventure="")
        .order_by("-began")
        .values_list("adventure", flat=True)[:200]
    )
    return list(dict.fromkeys(seen))[:20]


# --- The ledger page ------------------------------------------------------------------------------

#: Entries on a page of the ledger, and changes on a page of the reputation history.
PAGE_SIZE: Final = 25
#: The most adventures the chart draws: the latest ones to begin. More would not fit its width.
CHART_ADVENTURES: Final = 6
#: A label's characters per chart unit (the axis text is 7 units high, about 4 wide a character).
LABEL_CHARS_PER_UNIT: Final = 1 / 4
#: The query's keys: the page of the entries and the page of the reputation history, independent.
PAGE_KEYS: Final = ("before", "reputation_before")


@dataclass(frozen=True, slots=True)
class AdventureTotal:
    """Points earned and spent in one adventure; a correction counts against what it reverses."""

    adventure: str
    earned: int
    spent: int


def adventure_totals(character: Character, *, limit: int, currency: str | None = None) -> list[AdventureTotal]:
    """Each adventure's points in ``currency`` (the system's first by default), for the ``limit``
    latest adventures to begin, in the order they began (an adventure begins with its first entry):
    ``limit`` rows of the tallies the ledger keeps as it writes (:class:`AdventureTally`), read by
    their index, however many entries and adventures the character has."""
    key = ledger.currency_of(character.rules, currency).key
    rows = AdventureTally.objects.filter(character=character, currency=key).order_by("-began")[:limit]
    return [AdventureTotal(r.adventure or NO_ADVENTURE, r.earned, r.spent) for r in reversed(rows)]


def ledger_chart(totals: list[AdventureTotal], *, more: bool = False) -> dict[str, Any]:
    """Points earned and spent per adventure, in the order the adventures began: two bars each.
    ``more`` says there are older adventures than these, left out."""
    highest = max((max(t.earned, t.spent) for t in totals), default=0) or 1
    step = min(CHART_WIDTH / max(len(totals), 1), MAX_GROUP_WIDTH)  # a lone adventure does not fill the width
    bar = step * 0.35
    room = PLOT_HEIGHT - 12  # headroom for the number above the tallest bar
    fits = min(14, max(4, int(step * LABEL_CHARS_PER_UNIT)))  # labels that do not run into each other
    groups = []
    for i, total in enumerate(totals):
        left = i * step + step * 0.15
        adventure, earned, spent = total.adventure, total.earned, total.spent
        groups.append(
            {
                "adventure": adventure,
                "earned": earned,
                "spent": spent,
                "bars": [
                    {
                        "x": round(x, 3),
                        "height": round(h, 3),
                        "y": round(PLOT_HEIGHT - h, 3),
                        "kind": kind,
                        "value": v,
                        "text_x": round(x + bar / 2, 3),
                        "text_y": round(PLOT_HEIGHT - h - 2, 3),
                    }
                    for x, h, kind, v in (
                        (left, room * max(earned, 0) / highest, "earned", earned),
                        (left + bar, room * max(spent, 0) / highest, "spent", spent),
                    )
                ],
                "text_x": round(left + bar, 3),
                "label": adventure if len(adventure) <= fits else adventure[: fits - 1] + "…",
            }
        )
    return {
        "groups": groups,
        "more": more,
        "bar_width": round(bar, 3),
        "width": CHART_WIDTH,
        "plot_height": PLOT_HEIGHT,
        "height": PLOT_HEIGHT + LABEL_HEIGHT,
        "label_y": PLOT_HEIGHT + LABEL_HEIGHT - 4,
    }


def _page_key(request: HttpRequest, name: str, what: str) -> int | None:
    """The query's ``name`` (a page's ``before``) as a key, ``None`` when absent; a bad one is refused."""
    value = request.GET.get(name, "")
    if not value:
        return None
    key = whole_key(value)
    if key is None:
        raise Refused(f"The page of {what} must be given as a whole number of 1 or more, not {value[:20]!r}.")
    return key


def _page_urls(request: HttpRequest, name: str, older: int | None, anchor: str) -> tuple[str | None, str | None]:
    """The links to the next older page (``older``: the key it starts before) and to the newest one,
    each keeping the rest of the query (the other list's page) and going to ``anchor``."""
    keep = {k: v for k, v in request.GET.items() if k in PAGE_KEYS and k != name}
    older_url = f"?{urlencode({**keep, name: older})}#{anchor}" if older is not None else None
    newest_url = f"?{urlencode(keep)}#{anchor}" if request.GET.get(name) else None
    return older_url, newest_url


@require_safe
def ledger_page(request: HttpRequest, pk: int) -> HttpResponse:
    """A character's points, newest first, a page at a time, with the running balance; their points
    per adventure (the latest adventures, summed in the database); and their reputation's changes,
    a page at a time. Each page is read by key (``?before=<entry id>``, ``?reputation_before=<id>``),
    never by OFFSET, so an old page costs what the newest does: five queries however long the ledger
    (the session with its user, access with the balances, the page of entries, the totals per adventure
    in the system's first currency, the page of reputation changes)."""
    character = access.character_for(request.user, pk)
    try:
        before = _page_key(request, "before", "ledger entries")
        reputation_before = _page_key(request, "reputation_before", "reputation changes")
    except Refused as refused:
        return _refusal(request, character, refused.message, refused.status)
    entries = LedgerEntry.objects.newest_of(character.pk, before=before).select_related("by", "reverses", "reversed_by")
    entries = list(entries[: PAGE_SIZE + 1])
    older = entries[PAGE_SIZE - 1].pk if len(entries) > PAGE_SIZE else None
    entries = entries[:PAGE_SIZE]
    shown = {e.pk for e in entries}
    holdings = character.holdings
    units = {held.currency.key: held.currency.abbreviation for held in holdings}
    for entry in entries:  # what a correction reverses may be on an older page
        entry.unit = units.get(entry.currency, entry.currency)
        if entry.reverses_id is not None:
            page = "" if entry.reverses_id in shown else f"?{urlencode({'before': entry.reverses_id + 1})}"
            entry.reverses_url = f"{page}#entry-{entry.reverses_id}"
    changes = ReputationChange.objects.newest_of(character.pk, before=reputation_before).select_related("by")
    reputation = list(changes[: PAGE_SIZE + 1])
    older_reputation = reputation[PAGE_SIZE - 1].pk if len(reputation) > PAGE_SIZE else None
    totals = adventure_totals(character, limit=CHART_ADVENTURES + 1)
    older_url, newest_url = _page_urls(request, "before", older, "entries-heading")
    older_reputation_url, newest_reputation_url = _page_urls(
        request, "reputation_before", older_reputation, "reputation-heading"
    )
    context = {
        "character": character,
        "holdings": holdings,
        "entries": entries,
        "older_url": older_url,
        "newest_url": newest_url,
        "chart": ledger_chart(totals[-CHART_ADVENTURES:], more=len(totals) > CHART_ADVENTURES) if totals else None,
        "reputation": reputation[:PAGE_SIZE],
        "older_reputation_url": older_reputation_url,
        "newest_reputation_url": newest_reputation_url,
        "can_correct": character.viewer_is_gm and character.can_edit,
        "points": " and ".join(held.currency.name for held in holdings) or "Points",
        "standing": character.rules.standing,
        "standing_now": ledger.standing_of(character),
        "limits": _limits(character.rules.standing),
    }
    return render(request, "characters/ledger.html", context)


def _limits(standing: Standing | None) -> tuple[str, ...]:
    """A standing's bounds as the page writes them (−5, +5)."""
    return (ledger.signed(standing.low), ledger.signed(standing.high)) if standing else ()


# --- Corrections ----------------------------------------------------------------------------------


class CorrectionForm(forms.Form):
    reason = TextField(label="Why", max_length=ledger.MAX_REASON)


@require_http_methods(["GET", "HEAD", "POST"])
def correct_entry(request: HttpRequest, pk: int, entry_pk: int) -> HttpResponse:
    """The GM reverses an entry, after seeing what that will do."""
    character = access.character_for(request.user, pk)
    entry = LedgerEntry.objects.for_character(character).filter(pk=entry_pk).first()
    if entry is None:
        return _refusal(request, character, "That entry is not in this character's ledger.", 404)
    if not character.viewer_is_gm:
        return _refusal(request, character, "Only the GM corrects the ledger.", 403)
    currency = ledger.named(character.rules, entry.currency)
    form = CorrectionForm(request.POST if request.method == "POST" else None)
    status = 200
    if request.method == "POST":
        if form.is_valid():
            try:
                ledger.correct(character_id=character.pk, entry_id=entry.pk, reason=form.cleaned_data["reason"],
                               by=request.user)  # fmt: skip
            except Refused as refused:
                return _refusal(request, character, refused.message, refused.status)
            messages.success(request, f"Reversed: {entry.reason} ({-entry.amount:+d} {currency.abbreviation}).")
            return redirect("characters:ledger", pk=character.pk)
        status = 400
    context = {"character": character, "entry": entry, "form": form, "reversal": -entry.amount, "currency": currency}
    return render(request, "characters/ledger_correct.html", context, status=status)


def _refusal(request: HttpRequest, character: Character, message: str, status: int) -> HttpResponse:
    context = {"character": character, "message": message}
    return render(request, "characters/edit_refused.html", context, status=status)


# --- What should I buy? ---------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Offer:
    """A purchase as the page shows it: what it is, its cost, the form's hidden fields and the ones
    the buyer fills in, what it changes."""

    title: str
    cost: int
    currency: Currency
    affordable: bool
    fields: dict[str, Any]
    asks: list[str]
    effects: list[dict[str, Any]]
    best_gain: Fraction
    note: str


def offers(character: Character, situation: dict[str, Any]) -> list[Offer]:
    """Every purchase the sheet allows (the system's offers), with its effect on the exact chances
    it touches in ``situation`` (the system's ``offer_situation``)."""
    rules, sheet, settings = character.rules, character.document, character.campaign.settings
    held = ledger.balances(character)
    out = []
    for offer in rules.offers(sheet, settings, situation):
        fields = rules.offer_fields(sheet, offer.key, settings)
        effects = [{"check": e.label, "before": e.before, "after": e.after, "gain": e.gain} for e in offer.effects]
        out.append(
            Offer(
                title=offer.label,
                cost=offer.cost,
                currency=ledger.named(rules, offer.currency),
                affordable=offer.cost <= held.get(offer.currency, 0),
                fields={"offer": offer.key, **{k: v for k, v in fields.items() if v is not None}},
                asks=[k for k, v in fields.items() if v is None and k in ledger.CHOICES],
                effects=effects,
                best_gain=max((e.gain for e in offer.effects), default=Fraction(0)),
                note=rules.offer_note(sheet, offer.key, settings),
            )
        )
    return out


class AdviceForm(forms.Form):
    """The situation the odds are compared at: one choice per part the system names."""

    def __init__(self, *args: Any, parts: tuple[Option, ...], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        for part in parts:
            self.fields[part.key] = ChoiceField(label=part.label, choices=part.choices, initial=part.default)

    def situation(self, parts: tuple[Option, ...]) -> dict[str, Any]:
        """The chosen situation; a part left out or not one of its choices falls back to its default."""
        chosen: dict[str, Any] = {}
        if self.is_bound:
            self.is_valid()  # keeps the parts that are valid in cleaned_data
            chosen = self.cleaned_data
        return {part.key: chosen.get(part.key) or part.default for part in parts}


def _advance_page(request: HttpRequest, character: Character, *, status: int = 200, error: str = "") -> HttpResponse:
    parts = character.rules.offer_situation
    form = AdviceForm(request.GET or None, parts=parts)
    everything = offers(character, form.situation(parts))
    affordable = sorted((o for o in everything if o.affordable), key=lambda o: (-o.best_gain / o.cost, o.cost))
    later = sorted((o for o in everything if not o.affordable), key=lambda o: o.cost)
    context = {
        "character": character,
        "form": form if form.is_bound else AdviceForm(parts=parts),
        "affordable": affordable,
        "later": later,
        "cheapest": later[0] if later and not affordable else None,
        "error": error,
        "adventures": _adventures(character.campaign_id),
        "url": reverse("characters:advance", args=[character.pk]),
        "max_name": MAX_NAME,
    }
    template = "characters/advance.html" + ("#offers" if request.htmx and not error else "")
    return render(request, template, context, status=status)


@require_safe
@vary_on_headers("HX-Request")
def advance(request: HttpRequest, pk: int) -> HttpResponse:
    """ "What should I buy?": each purchase the character can afford, and how it changes the
    exact chance of the checks it touches, at the difficulty the player picks."""
    character = access.character_for(request.user, pk, write=True)
    return _advance_page(request, character)


class BuyForm(forms.Form):
    offer = TextField(label="What to buy", max_length=ledger.MAX_OFFER)
    name = TextField(required=False, max_length=MAX_NAME, label="Name")
    before = WholeNumberField(label="What you saw", required=False, min_value=0, max_value=ledger.MAX_BEFORE)
    adventure = TextField(label="Adventure", required=False, max_length=ledger.MAX_ADVENTURE)


@require_POST
def buy(request: HttpRequest, pk: int) -> HttpResponse:
    character = access.character_for(request.user, pk, write=True)
    form = BuyForm(request.POST)
    if not form.is_valid():
        problems = "; ".join(f"{form.fields[field].label}: {' '.join(errors)}" for field, errors in form.errors.items())
        return _advance_page(request, character, status=400, error=problems)
    data = form.cleaned_data
    order = ledger.Order(data["offer"], name=data["name"], before=data["before"])
    try:
        entry = ledger.buy(character_id=character.pk, order=order, by=request.user, adventure=data["adventure"])
    except Refused as refused:
        return _advance_page(request, character, status=refused.status, error=refused.message)
    unit = ledger.named(character.rules, entry.currency).abbreviation
    messages.success(request, f"Bought: {entry.reason} for {-entry.amount} {unit}. {entry.balance} {unit} left.")
    return redirect("characters:advance", pk=character.pk)


# --- The GM's end-of-adventure awards -------------------------------------------------------------


#: The characters the award form lists, each with its own amount, reason and standing: the first by
#: name, or those whose name starts as searched. Everyone else in play may take the party's award.
AWARD_ROWS: Final = 30
#: The awards the message after an award names, one by one; the rest are counted.
AWARDS_SAID: Final = 12
#: A row's field as posted (``amount-12``): the character's id after the field's name.
ROW_FIELD: Final = re.compile(r"^(include|amount|reason|reputation)-([0-9]{1,12})$")


class AwardForm(forms.Form):
    adventure = TextField(label="Adventure", required=False, max_length=ledger.MAX_ADVENTURE)
    currency = TextField(label="Currency", required=False, max_length=MAX_CURRENCY, strip=False)
    amount = WholeNumberField(label="Points for each", required=False, min_value=0, max_value=MAX_ENTRY)
    reason = TextField(label="Reason", required=False, max_length=ledger.MAX_REASON)
    rest = forms.BooleanField(label="Everyone else in play too", required=False, initial=True)
    ends_adventure = forms.BooleanField(
        label="This ends the adventure",
        required=False,
        help_text="What the campaign's rules give back at an adventure's end comes back to each character awarded.",
    )

    def __init__(
        self, *args: Any, characters: list[Character], rules: RulesSystem, chosen: str | None = None,
        others: list[int] = (), **kwargs: Any,
    ) -> None:  # fmt: skip
        super().__init__(*args, **kwargs)
        self.characters = characters
        #: The ids of the characters in play the form does not list: the party's award goes to them too
        #: when ``rest`` is ticked.
        self.others = list(others)
        self.rules = rules
        self.currencies = rules.currencies
        self.fields["currency"].initial = chosen or (self.currencies[0].key if self.currencies else "")
        # The label follows the chosen currency: the one sent, if it is the system's, else the first.
        sent = self.data.get("currency") if self.is_bound else self.fields["currency"].initial
        chosen_currency = next((c for c in self.currencies if c.key == sent), None) or next(iter(self.currencies), None)
        self.currency_key = chosen_currency.key if chosen_currency else ""
        if chosen_currency is not None:
            self.fields["amount"].label = f"{chosen_currency.name} for each"
        for character in characters:
            self.fields[f"include-{character.pk}"] = forms.BooleanField(
                label=f"Award {character.name}", required=False, initial=True
            )
            self.fields[f"amount-{character.pk}"] = WholeNumberField(
                label="Points instead", required=False, min_value=0, max_value=MAX_ENTRY
            )
            self.fields[f"reason-{character.pk}"] = TextField(
                label="Reason instead", required=False, max_length=ledger.MAX_REASON
            )
            self.fields[f"reputation-{character.pk}"] = WholeNumberField(
                label="Reputation change", required=False, min_value=-10, max_value=10, initial=0
            )

    def clean_currency(self) -> Currency:
        """One of the system's currencies, by key; its first when none is sent."""
        try:
            return ledger.currency_of(self.rules, self.cleaned_data["currency"])
        except Refused as refused:
            raise forms.ValidationError(refused.message, code="currency") from None

    def rows(self) -> list[dict[str, Any]]:
        return [
            {
                "character": c,
                "include": self[f"include-{c.pk}"],
                "amount": self[f"amount-{c.pk}"],
                "reason": self[f"reason-{c.pk}"],
                "reputation": self[f"reputation-{c.pk}"],
                "standing": ledger.standing_of(c),
            }
            for c in self.characters
        ]

    def clean(self) -> dict[str, Any]:
        """Every message at once: the fields', and the award's rules on every value the fields could
        read. A value its field refused goes to the rules as None, which keeps the checks that read it
        quiet (the field's own message says what is wrong)."""
        cleaned = super().clean() or {}
        if self.rules.standing is None:
            self._no_reputation(cleaned)
        refused = set(self.errors)
        reason = None if "reason" in refused else cleaned.get("reason", "")
        problems = ledger.award_problems(self.awards(refused), reason, {c.pk: c for c in self.characters})
        for key, message in problems.items():
            field = f"amount-{key}" if key.isdigit() else key
            if field not in refused:
                self.add_error(field if field in self.fields else None, message)
        return cleaned

    def _no_reputation(self, cleaned: dict[str, Any]) -> None:
        """A system whose sheets keep no reputation shows no reputation fields: a change posted anyway
        (well formed or not) is said at the top of the form, once for each character it names."""
        for c in self.characters:
            field = f"reputation-{c.pk}"
            if field in self.errors or cleaned.get(field):
                self.errors.pop(field, None)
                cleaned[field] = 0
                self.add_error(None, f"{c.name}'s sheet keeps no reputation.")

    def awards(self, refused: set[str] = frozenset()) -> list[ledger.Award]:
        """The awards the form gives; a value of one of the ``refused`` fields is None."""
        data = self.cleaned_data

        def read(field: str, empty: Any) -> Any:
            if field in refused:
                return None
            value = data.get(field)
            return empty if value is None else value

        party = read("amount", 0)
        rows = []
        for c in self.characters:
            if not data.get(f"include-{c.pk}"):
                continue
            own = read(f"amount-{c.pk}", None)
            amount = None if f"amount-{c.pk}" in refused else (own if own is not None else party)
            rows.append(ledger.Award(c.pk, amount, read(f"reputation-{c.pk}", 0), read(f"reason-{c.pk}", "")))
        if data.get("rest") and party != 0:
            rows += [ledger.Award(pk, party, 0, "") for pk in self.others]
        return rows


def _award_rows(in_play: Any, posted: QueryDict | None, name: str) -> list[Character]:
    """The characters the form lists: those a posted form listed (its rows' fields name them; at most
    :data:`AWARD_ROWS`, each still in play, or :class:`Refused`), else the first by name (whose name
    starts with ``name`` when it is given), with their owners and balances, in one query."""
    rows = in_play.select_related("owner").with_balances().order_by("name", "pk")
    if posted is None:
        return list((rows.filter(name__istartswith=name) if name else rows)[:AWARD_ROWS])
    ids = {int(match[2]) for key in posted if (match := ROW_FIELD.match(key))}
    if len(ids) > AWARD_ROWS:
        raise Refused(f"An award form lists at most {AWARD_ROWS} characters; nothing was awarded.")
    found = list(rows.filter(pk__in=ids)) if ids else []
    if len(found) != len(ids):
        raise Refused("A character on this form is no longer in play; nothing was awarded. Open the form again.")
    return found


@require_http_methods(["GET", "HEAD", "POST"])
@vary_on_headers("HX-Request")
def award(request: HttpRequest, campaign_pk: int) -> HttpResponse:
    """The GM's end-of-adventure form: points in one of the system's currencies (the first to begin;
    ``?currency=<key>`` picks another) for the party, one amount and reason for all with
    per-character overrides, and reputation changes, written in one go. With htmx, choosing the
    currency swaps in the amount's label only."""
    campaign = campaign_access.campaign_for(request.user, campaign_pk, gm=True)
    rules = campaign.rules
    in_play = Character.objects.active().filter(campaign=campaign)
    status, error, chosen = 200, "", None
    posted = request.POST if request.method == "POST" else None
    name = name_start(request.GET.get("name", ""), MAX_NAME) if posted is None else ""
    try:
        if name is None:
            raise Refused(f"Find a character by the start of their name: one line of at most {MAX_NAME} characters.")
        characters = _award_rows(in_play, posted, name)
    except Refused as refused:  # the form as it first stands, with what was wrong
        status, error, name, posted = 400, refused.message, "", None
        characters = _award_rows(in_play, None, "")
    shown = [c.pk for c in characters]
    # The others in play: only counted for the page; their ids are read only when the award is made.
    others = list(in_play.exclude(pk__in=shown).values_list("pk", flat=True)) if posted is not None else []
    if request.method != "POST" and request.GET.get("currency"):
        try:
            chosen = ledger.currency_of(rules, request.GET["currency"]).key
        except Refused as refused:
            status, error = refused.status, refused.message
    form = AwardForm(posted, characters=characters, rules=rules, chosen=chosen, others=others)
    if posted is not None:
        if form.is_valid():
            currency = form.cleaned_data["currency"]
            try:
                awarded = ledger.award(
                    campaign_id=campaign.pk,
                    awards=form.awards(),
                    reason=form.cleaned_data["reason"],
                    adventure=form.cleaned_data["adventure"],
                    currency=currency.key,
                    ends_adventure=form.cleaned_data["ends_adventure"],
                    by=request.user,
                )
            except Refused as refused:
                status, error = refused.status, refused.message
                for key, message in refused.errors.items():
                    field = f"amount-{key}" if key.isdigit() else key
                    form.add_error(field if field in form.fields else None, message)
            else:
                said = [f"{e.character.name} {e.amount} {currency.abbreviation}" for e in awarded.entries]
                if rules.standing is not None:
                    label = rules.standing.label.lower()
                    said += [f"{c.character.name} {label} {c.change:+d}" for c in awarded.reputation]
                if len(said) > AWARDS_SAID:  # a large party's award is told in a line, not a page
                    said = [*said[: AWARDS_SAID - 1], f"and {len(said) - AWARDS_SAID + 1} more"]
                messages.success(request, f"Awarded: {', '.join(said)}. Everyone sees it now.")
                return redirect("campaigns:detail", pk=campaign.pk)
        else:
            status = 400
            if "currency" in form.errors:
                error = f"{form.fields['currency'].label}: {' '.join(form.errors['currency'])}"
    context = {
        "campaign": campaign,
        "form": form,
        "error": error,
        "currency": next((c for c in rules.currencies if c.key == form.currency_key), None),
        "adventures": _adventures(campaign.pk),
        "standing": rules.standing,
        "limits": _limits(rules.standing),
        "name": name,
        "others": len(others) if posted is not None else in_play.exclude(pk__in=shown).count(),
        "searched": bool(name),
    }
    swap = request.htmx and request.method != "POST" and status == 200
    return render(request, "characters/award.html" + ("#amount-label" if swap else ""), context, status=status)
