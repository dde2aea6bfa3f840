"""Fragments of the table's pages drawn once and kept: ``{% roll_row entry %}``, ``{% call_fields form %}``
and ``{% party_card row template %}``.

A roll is append-only: what its row of the log (``play/_roll.html``) shows never changes but for its
reveal, the name its roller goes by and the name of its character. So a row is drawn once per process for
each of those (and for each way of seeing it: a player's placeholder of a secret roll, or its dice) and
kept; the dashboard's feed, the roll log and an encounter's history show the kept row thereafter, the
same bytes a fresh render makes. A row with the GM's Reveal button is drawn every time: its form carries
the page's CSRF token and depends on the campaign's state.

The fields of the GM's call for a roll (``play/dashboard_call.html#call-fields``) are a pure function of
what the form is made from (:attr:`play.request_views.CallForm.made_from`: the system, the campaign's
options, the characters offered, the values it starts with) while nobody has sent it: their widgets are
drawn once for each, and a form sent back with errors is drawn every time.

A card of the party (the dashboard's ``play/dashboard_party_row.html``, the campaign page's
``play/campaign_party_card.html``) shows a pure function of the character's sheet, name and balances, its
player's name and the campaign's options: it is drawn once for each (the sheet by a digest of its content,
so a sheet changed any way at all is drawn again) and kept, which spares the page reading every sheet into
its system's document on every load. The dashboard's socket sends the same kept card (``play.live``).

Each kind keeps a bounded number of fragments (:data:`KEPT_ROWS`, :data:`KEPT_CALL_FORMS`,
:data:`KEPT_CARDS`) in a :class:`web.kept.Kept`, the least recently shown dropped first."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any, Final

from django import forms, template
from django.template.loader import get_template
from django.utils import timezone, translation
from django.utils.safestring import SafeString

from campaigns.models import Campaign
from play import party_cards, roll_rows
from web.kept import Kept
from web.templatetags.kept_blocks import key_of

register = template.Library()

ROW_TEMPLATE: Final = "play/_roll.html"
CALL_FIELDS_TEMPLATE: Final = "play/dashboard_call.html#call-fields"
#: Rows of the log kept per process (some 2 KB each: a few MB), and call forms (some 10 KB each: one a
#: campaign whose GM has its dashboard open).
KEPT_ROWS: Final = 4096
KEPT_CALL_FORMS: Final = 256
#: Cards of the party kept per process (some 1 KB each): a card for each way each character is shown.
KEPT_CARDS: Final = 4096


rows: Kept[SafeString] = Kept(KEPT_ROWS)
call_forms: Kept[SafeString] = Kept(KEPT_CALL_FORMS)
cards: Kept[SafeString] = Kept(KEPT_CARDS)


def how_shown() -> tuple[str, str | None]:
    """What every fragment depends on beyond its data: the time zone and language the page is in."""
    return timezone.get_current_timezone_name(), translation.get_language()


def row_key(entry: dict[str, Any]) -> tuple[Any, ...] | None:
    """What a row's bytes depend on beyond its template, or None for a row that is drawn every time
    (one with the Reveal button, or a roll not saved). The hash covers every recorded field of the roll
    (``play.chain``); the rest is what a roll points at, and how the page is shown. An entry that knows
    its key already (``play.live.KeptFeedEntry``, from the row as read) gives it."""
    if hasattr(entry, "kept_key"):
        return entry.kept_key  # type: ignore[no-any-return]
    roll = entry["roll"]
    if entry.get("can_reveal") or not roll.pk or not roll.hash:
        return None
    return (
        roll.pk,
        roll.hash,
        bool(entry.get("hidden")),
        roll.revealed_at,
        roll.by.get_username(),
        roll.character.name if roll.character_id is not None else None,
        *how_shown(),
    )


def _drawn(context: template.Context, name: str, **values: Any) -> Callable[[], SafeString]:
    """Drawing the template (or partial) ``name`` in ``context`` with ``values``, as an include does."""

    def draw() -> SafeString:
        with context.push(**values):
            drawn: SafeString = get_template(name).template.render(context)  # type: ignore[attr-defined]
        return drawn

    return draw


def row_of(entry: dict[str, Any], template: Callable[[], str] | None = None) -> SafeString:
    """The log's row of ``entry``, kept (:data:`rows`, by :func:`row_key`), drawn by ``play.roll_rows.row`` (with
    ``template``: that drawing of the template, for a row with the Reveal button and the tests' check)."""
    return rows.get(row_key(entry), lambda: roll_rows.row(entry, template=template))


@register.simple_tag(takes_context=True)
def roll_row(context: template.Context, entry: dict[str, Any]) -> SafeString:
    """The log's row of ``entry`` (``play.roll_views.roll_entry``), as ``{% include "play/_roll.html" %}``
    would draw it in this context."""
    return row_of(entry, _drawn(context, ROW_TEMPLATE, entry=entry))


@register.simple_tag(takes_context=True)
def call_fields(context: template.Context, form: forms.Form) -> SafeString:
    """The fields of the GM's call for a roll, kept while the form is unsent (``form.made_from``)."""
    made_from = getattr(form, "made_from", None)
    key = None if form.is_bound or made_from is None else (made_from, *how_shown())
    return call_forms.get(key, _drawn(context, CALL_FIELDS_TEMPLATE, call_form=form))


def digest(document: Any) -> bytes:
    """A short digest of a JSON document's content (a sheet) to key a fragment by: the same content in the same
    order gives the same digest; another order only draws the fragment again."""
    return text_digest(json.dumps(document, separators=(",", ":"), default=str))


def options_digest(campaign: Campaign) -> bytes:
    """A short digest of the campaign's options as its system reads them (``Campaign.settings``), to key a fragment
    by: worked out from what they are read from (``Campaign.settings_key``), with no dump of them. The same options
    held, the same digest; the same options held in another order only draw the fragment again."""
    return text_digest("\n".join(campaign.settings_key))


def text_digest(text: str) -> bytes:
    """A short digest of a document's text as stored (a sheet read as text): the same text, the same digest."""
    return hashlib.blake2b(text.encode(), digest_size=16).digest()


def card_key(template_name: str, row: Any) -> tuple[Any, ...]:
    """What a card of the party (``play.live.PartyCard``) shows beyond its template: the character (its
    id and system), its sheet's content, name and balances, its player's name, the campaign's options,
    and how the page is shown (asked once for a page of cards, when the row carries it). None of it needs
    the sheet read into its system's document. The row works the rest out once (``PartyCard.card_values``)."""
    return (template_name, *row.card_values)


def card_values(row: Any) -> tuple[Any, ...]:
    """:func:`card_key` but for the template, from a row's character as any page reads it."""
    character = row["character"]
    return (
        character.pk,
        character.system,
        character.name,
        character.owner.get_username(),
        row.sheet_digest,
        tuple((held.currency.key, held.currency.name, held.amount) for held in row["holdings"]),
        row["options_digest"],
        *(getattr(row, "how_shown", None) or how_shown()),
    )


def party_card_html(template_name: str, row: Any, context: template.Context | None = None) -> SafeString:
    """The card of ``row`` drawn with ``template_name`` (in ``context``, as an include would, or on its
    own, as ``render_to_string`` would), kept by :func:`card_key`."""
    if context is None:
        context = template.Context(autoescape=True)
    by_template = _drawn(context, template_name, row=row)
    return cards.get(card_key(template_name, row), lambda: party_cards.card(template_name, row, template=by_template))


@register.simple_tag(takes_context=True)
def party_card(context: template.Context, row: Any, template_name: str) -> SafeString:
    """The card of ``row`` (``play.live.PartyCard``) as ``{% include template_name %}`` would draw it."""
    return party_card_html(template_name, row, context)


# --- The dashboard's sections, kept whole ({% kept %}: web/templatetags/kept_blocks.py) ----------------------


@key_of("dashboard-top")
def top_key(context: template.Context) -> tuple[Any, ...] | None:
    """The dashboard's title and its head: the campaign (its name, the socket it opens), the newest roll the
    page shows, the feed's length, and the page of the party it is on."""
    campaign = context.get("campaign")
    if campaign is None:
        return None
    return campaign.pk, campaign.name, context.get("last_seq"), context.get("feed_size"), context.get("party_after")


@key_of("dashboard-party")
def party_section_key(context: template.Context) -> tuple[Any, ...] | None:
    """The dashboard's party: what each card on it shows (``card_key``: the names of the first and the last
    among them), and the links to the pages of the party beside it."""
    party = context.get("party")
    if party is None:
        return None
    return tuple(row.card_values for row in party), context.get("party_first_url"), context.get("party_next_url")


@key_of("dashboard-feed")
def feed_section_key(context: template.Context) -> tuple[Any, ...] | None:
    """The dashboard's feed of rolls: each row's key (``row_key``), and the campaign whose log it links to;
    drawn every time when one of its rows is (a row with the GM's Reveal button)."""
    entries, campaign = context.get("entries"), context.get("campaign")
    if entries is None or campaign is None:
        return None
    keys = tuple(row_key(entry) for entry in entries)
    return None if None in keys else (campaign.pk, keys)


#: What the dashboard's requests, call, approvals and initiative show while something is under way (a request
#: open, a proposal, an answer just given, an encounter running, a form sent back): while any of it is there,
#: those sections are drawn every time.
UNDER_WAY: Final = ("open_requests", "proposals", "waiting", "rolled", "called", "proposal_error", "oob",
                    "current_encounter", "rows")  # fmt: skip


@key_of("dashboard-quiet")
def quiet_sections_key(context: template.Context) -> tuple[Any, ...] | None:
    """The dashboard's requests, call for a roll, approvals and initiative while nothing is under way
    (:data:`UNDER_WAY`): who looks (the GM or a player) and at which campaign, and, for the GM, what the
    unsent call form is made from (``CallForm.made_from``: its fields are those ``call_fields`` keeps) and
    that nothing waits for approval. None (drawn every time) otherwise."""
    campaign = context.get("campaign")
    if campaign is None or any(context.get(name) for name in UNDER_WAY):
        return None
    if not context.get("is_gm"):
        return False, campaign.pk
    awaiting = context.get("awaiting") or {}
    form = context.get("call_form")
    made_from = getattr(form, "made_from", None)
    if any(awaiting.get(name) for name in ("rows", "first_url", "next_url")) or made_from is None or form.is_bound:
        return None
    return True, campaign.pk, made_from, bool(form.offered)
