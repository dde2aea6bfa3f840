"""Live campaign events: what the dashboard shows, and announcing changes to its open sockets.

Every member's socket joins the campaign's group (:func:`group_name`), and a group of that
member's own (:func:`member_group_name`) that hears when their membership changes; an open
sheet page joins its character's group (:func:`sheet_group_name`), which hears its new version.
A saved sheet of a character in the running encounter is announced as a change of the encounter too.
A recorded roll and a saved sheet are announced after their transaction commits (in a request the server
serves, sent by its event loop while the request goes on: ``web.asgi.leave_to_loop``), as ready-made HTML
fragments: the same templates the pages use, so a swapped fragment is exactly what a reload
would show. A roll is rendered twice, once as the GM sees it and once as players do; a secret
roll not yet revealed goes to the GM's sockets only, and to everyone's when the GM reveals it.
Publishing never breaks the write that caused it: the row is committed already, and a page
catches up on reload (or on reconnecting).
"""

from __future__ import annotations

import functools
import json
import logging
from collections.abc import Iterable
from functools import cached_property
from typing import Any, Final

from asgiref.sync import async_to_sync
from channels.layers import get_channel_layer
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.contrib.auth.signals import user_logged_out
from django.db.models import BigIntegerField, Func, QuerySet, TextField, Value
from django.db.models.functions import Cast
from django.dispatch import receiver
from django.template.loader import render_to_string

from campaigns.models import Campaign, Membership
from campaigns.operations import membership_changed
from campaigns.presenters import NameKey, page_by_name
from characters.models import SHEET_TEXT, Character, Holding
from characters.write import character_changed, characters_changed
from play.announced import read_as_announced
from play.encounter_views import combatant_row
from play.encounters import encounter_changed
from play.models import Combatant, Encounter, Roll
from play.request_views import LIST_TEMPLATE, Offered, requests_context
from play.requests import requests_changed
from play.roll_views import hidden_from, roll_entry
from play.rolls import roll_recorded, roll_revealed
from play.table import table_changed
from play.templatetags import kept
from rules.systems.protocol import Summary, Vitals
from web import asgi
from web.prepared import Fetched, Prepared, fetch_together

logger = logging.getLogger(__name__)

#: Rolls in the dashboard's feed.
FEED_SIZE: Final = 20
#: Characters on a page of the dashboard's party: two dozen fit a screen or two of cards.
PARTY_PAGE_SIZE: Final = 24
#: The dashboard's card of a member of the party, on the page and as its socket swaps it in.
PARTY_CARD_TEMPLATE: Final = "play/dashboard_party_row.html"
#: What a card reads of a character besides its sheet (read as text) and its owner's name.
CARD_FIELDS: Final = ("id", "campaign_id", "owner_id", "name", "status", "system", "version")


def group_name(campaign_id: int) -> str:
    return f"campaign-{campaign_id}"


def member_group_name(campaign_id: int, user_id: int) -> str:
    """One member's sockets on one campaign's dashboard: told when their membership changes."""
    return f"campaign-{campaign_id}-user-{user_id}"


def table_group_name(campaign_id: int) -> str:
    """The open sheet pages of one campaign's characters: told the table's new version (a hand on it)."""
    return f"campaign-{campaign_id}-table"


def sheet_group_name(character_id: int) -> str:
    """The open sheet pages of one character: told its new version whenever it is saved."""
    return f"character-{character_id}"


def role_of(user: AbstractBaseUser | AnonymousUser | None, campaign_id: int) -> str | None:
    """The user's role in the campaign, or None for an outsider and for anyone logged out."""
    if user is None or not user.is_authenticated:
        return None
    return Membership.objects.filter(campaign_id=campaign_id, user_id=user.pk).values_list("role", flat=True).first()


class PartyCard:
    """One member of the party as a card shows them (``play/dashboard_party_row.html``, the campaign page's
    ``play/campaign_party_card.html``): the character, its balances (no query if the character was loaded
    ``with_balances()``), and, read from its sheet document only when a card is drawn (a kept card,
    ``play.templatetags.kept``, never reads it), its system's summary and vitals (the tracks with their
    slots, the condition, the facts beside them). Read by key as well as by attribute: ``row["character"]``."""

    def __init__(
        self,
        character: Character,
        options: dict[str, Any],
        options_digest: bytes | None = None,
        how_shown: tuple[Any, ...] | None = None,
    ) -> None:
        self.character = character
        self.options = options
        #: The campaign's options as a card's key holds them: worked out once for a page of cards.
        self.options_digest = kept.options_digest(character.campaign) if options_digest is None else options_digest
        #: How the page is shown (``kept.how_shown``), as a card's key holds it: asked once for a page of
        #: cards, or by the key itself.
        self.how_shown = how_shown

    @classmethod
    def read(
        cls,
        fetched: Fetched[Character],
        index: int,
        values: tuple[Any, ...],
        options: dict[str, Any],
        options_digest: bytes,
        how_shown: tuple[Any, ...],
    ) -> PartyCard:
        """The card of a row of the party as the database sent it (:func:`party_page`): its key worked out
        from a few of its values (:data:`CARD_KEY_COLUMNS`), its character made only when the card is drawn."""
        pk, system, name, username, sheet_text, held = values
        card = cls.__new__(cls)
        card.options, card.options_digest, card.how_shown = options, options_digest, how_shown
        card.fetched = (fetched, index)
        digest = kept.text_digest(sheet_text)
        # As ``card_values`` works them out of the character (its fast way): the same key, the same kept card.
        balances = tuple(sorted((held or {}).items()))
        values = (pk, system, name, username, digest, balances, options_digest, *how_shown)
        card.__dict__.update(sheet_digest=digest, card_values=values)
        return card

    @cached_property
    def character(self) -> Character:
        """The character of a card read from its row (:meth:`read`), made when first asked for."""
        fetched, index = self.fetched
        return fetched.instance(index)

    def __getitem__(self, name: str) -> Any:
        try:
            return getattr(self, name)
        except AttributeError:
            raise KeyError(name) from None

    @cached_property
    def sheet(self) -> Any:
        # Read as text (:func:`party_characters`): decoded only now that a card is drawn.
        return self.character.document

    @cached_property
    def sheet_digest(self) -> bytes:
        """A digest of the sheet's content for the card's key (``kept.card_key``): of its text as the
        database gives it when it was read as text, which spares decoding the document."""
        text = self.character.__dict__.get(SHEET_TEXT)
        return kept.digest(self.character.sheet) if text is None else kept.text_digest(text)

    @cached_property
    def holdings(self) -> list[Holding]:
        return self.character.holdings

    @cached_property
    def card_values(self) -> tuple[Any, ...]:
        """What the card shows beyond its template (``kept.card_key``). Read straight from a character as
        :func:`party_characters` reads it: its balances by currency as read (its holdings are a function of
        them and of its system, which the key holds too), its owner as read with it."""
        character = self.character
        read = character.__dict__
        owner = character._state.fields_cache.get("owner")
        if "balances_held" not in read or owner is None or self.how_shown is None:
            return kept.card_values(self)
        return (
            read["id"],
            read["system"],
            read["name"],
            owner.get_username(),
            self.sheet_digest,
            tuple(sorted((read["balances_held"] or {}).items())),
            self.options_digest,
            *self.how_shown,
        )

    @cached_property
    def summary(self) -> Summary:
        return self.character.rules.summary(self.sheet)

    @cached_property
    def vitals(self) -> Vitals:
        return self.character.rules.vitals(self.sheet, self.options)


def party_row(
    character: Character,
    options: dict[str, Any],
    options_digest: bytes | None = None,
    how_shown: tuple[Any, ...] | None = None,
) -> PartyCard:
    """One member of the party, its sheet read only if its card is drawn (:class:`PartyCard`)."""
    return PartyCard(character, options, options_digest, how_shown)


def party_row_html(row: PartyCard) -> str:
    """The dashboard's card of ``row``: the kept one the page shows, so a swapped card is what a reload shows."""
    return kept.party_card_html(PARTY_CARD_TEMPLATE, row)


def party_characters(campaign_id: int, *, sheets: bool = True) -> QuerySet[Character]:
    """The active characters with their owners' names and their balances, each sheet read as text
    (``sheet_text``): a card kept (``kept.card_key``) needs only a digest of it, and the document is
    decoded from the text when a card is drawn (:attr:`PartyCard.sheet`). Without ``sheets``, for what only
    tells a change, on PostgreSQL (``play.dashboard_views.shown_mark``): each sheet's hash (:class:`JsonbHash`)
    in place of its text (written out, the text cost the database more than the rest of the query)."""
    sheet = {SHEET_TEXT: Cast("sheet", TextField())} if sheets else {"sheet_hash": JsonbHash("sheet", Value(0))}
    return (
        Character.objects.active()
        .filter(campaign_id=campaign_id)
        .select_related("owner")
        .only(*CARD_FIELDS, "owner__username")
        .annotate(**sheet)
        .with_balances()
    )


class JsonbHash(Func):
    """PostgreSQL's own 64-bit hash of a ``jsonb`` value with a seed (``jsonb_hash_extended``, which its hash
    indexes and partitions use), taken from the stored document without writing it out as text. Two documents
    that differ hash the same once in 2**64 changes."""

    function = "jsonb_hash_extended"
    output_field = BigIntegerField()


@functools.cache
def first_of_party(size: int, sheets: bool = True) -> Prepared[Character]:
    """The first ``size`` characters of the party by name (:func:`party_characters`), compiled once for each
    size and kind asked."""
    return Prepared(Character, lambda campaign: party_characters(campaign, sheets=sheets).order_by("name", "pk")[:size])


#: The columns of the party's rows a card's key is made of, in the order :meth:`PartyCard.read` takes them.
CARD_KEY_COLUMNS: Final = (
    Character._meta.pk,
    Character._meta.get_field("system"),
    Character._meta.get_field("name"),
    get_user_model()._meta.get_field(get_user_model().USERNAME_FIELD),
    SHEET_TEXT,
    "balances_held",
)


def first_of_party_read(
    campaign_id: int, first: int = 0, *, sheets: bool = True
) -> tuple[Prepared[Character], dict[str, int]]:
    """The query of the party's first page (one more than a page: is there a next one?), as many as ``first``
    asks, and its ids: for :func:`party_page`, or for :func:`dashboard_reads` with the feed's (``sheets``: as
    :func:`party_characters` takes it)."""
    return first_of_party(max(first, PARTY_PAGE_SIZE + 1), sheets), {"campaign": campaign_id}


def party_page(
    campaign: Campaign, after: NameKey | None = None, *, first: int = 0, fetched: Fetched[Character] | None = None
) -> tuple[list[PartyCard], NameKey | None, list[Offered]]:
    """A page of the active characters with their owners and balances, by name then id, from just
    after ``after`` (from the first without it), in one query; the key of the next page, if any; and
    on the first page, the first ``first`` characters by name (the GM's call form offers them), read
    in the same query (``fetched``: its rows, read already by :func:`dashboard_reads`). On the first page no
    character is made whose card is kept (:meth:`PartyCard.read`)."""
    options = campaign.settings
    options_digest, how_shown = kept.options_digest(campaign), kept.how_shown()
    if after is None:
        if fetched is None:
            prepared, ids = first_of_party_read(campaign.pk, first)
            fetched = prepared.fetch(**ids)
        read = fetched.columns(*CARD_KEY_COLUMNS)
        cards = [PartyCard.read(fetched, index, values, options, options_digest, how_shown)
                 for index, values in enumerate(read[:PARTY_PAGE_SIZE])]  # fmt: skip
        last = read[PARTY_PAGE_SIZE - 1] if len(read) > PARTY_PAGE_SIZE else None
        next_key = NameKey(name=last[2], pk=last[0]) if last is not None else None
        return cards, next_key, [Offered(pk, name) for pk, _, name, *_ in read[:first]]
    page, next_key = page_by_name(party_characters(campaign.pk), after, PARTY_PAGE_SIZE)
    return [party_row(c, options, options_digest, how_shown) for c in page], next_key, []


def party(campaign: Campaign, after: NameKey | None = None) -> list[PartyCard]:
    """The rows of one page of the party, the first unless ``after``: what a reconnecting page
    is sent again (it swaps only the rows it shows; see :func:`announce_character`)."""
    return party_page(campaign, after)[0]


def running_encounters(campaign: Any) -> QuerySet[Encounter]:
    """The campaign's running encounter (one at a time): ``campaign`` its id, or an expression of it."""
    return Encounter.objects.filter(campaign_id=campaign).running()


#: The campaign's running encounter, compiled once: every dashboard load asks.
running_encounter = Prepared(Encounter, lambda campaign: running_encounters(campaign).order_by("pk")[:1])


def no_encounter() -> dict[str, Any]:
    """No encounter running, as :func:`initiative` says it."""
    return {"current_encounter": None, "rows": [], "acting": None}


def initiative(campaign: Campaign, *, any_running: bool = True) -> dict[str, Any]:
    """The running encounter, its initiative order and who acts, in two queries (the encounter;
    its combatants with their characters), as the encounter page presents them; none when the caller
    knows that none runs (``any_running``, read by :func:`running_encounters`)."""
    if not any_running:
        return no_encounter()
    running = running_encounter(campaign=campaign.pk)
    encounter = running[0] if running else None
    if encounter is None:
        return no_encounter()
    combatants = (
        Combatant.objects.filter(encounter=encounter, removed=False).select_related("character").order_by("order", "pk")
    )
    rows = [combatant_row(campaign, c, encounter.initiative_rolled and c.order == encounter.turn) for c in combatants]
    acting = next((r["combatant"] for r in rows if r["turn"]), None)
    return {"current_encounter": encounter, "rows": rows, "acting": acting}


def initiative_html(campaign: Campaign) -> str:
    context = {"campaign": campaign, **initiative(campaign)}
    return render_to_string("play/dashboard_initiative.html", context)


def requests_html(campaign_id: int, user: AbstractBaseUser | AnonymousUser, *, gm: bool) -> str:
    """The roll requests as ``user`` sees them: the GM every open one, a player what is asked of theirs."""
    campaign = Campaign.objects.get(pk=campaign_id)
    return render_to_string(LIST_TEMPLATE, requests_context(user, campaign, gm=gm))


def feed_rolls(campaign_id: int, *, gm: bool) -> list[Roll]:
    """The newest rolls the viewer may see, newest first, in one query. Players never get a
    secret roll before it is revealed, not even as a placeholder: the feed is what the socket sends."""
    return (feed_of_gm if gm else feed_of_player)(campaign=campaign_id)


#: Every field of a roll, by name.
ROLL_FIELDS: Final = tuple(field.name for field in Roll._meta.concrete_fields)


def feed_query(campaign_id: int, *, gm: bool, keys_only: bool = False) -> QuerySet[Roll]:
    """The newest rolls the viewer may see, newest first, as :func:`as_shown` reads them."""
    rows = Roll.objects.filter(campaign_id=campaign_id).for_viewer(gm=gm, filtered=True)
    return as_shown(rows, keys_only=keys_only).newest_first()[:FEED_SIZE]


def as_shown(rolls: QuerySet[Roll], *, keys_only: bool = False) -> QuerySet[Roll]:
    """``rolls`` read as a row of the feed shows them: every field of the roll (``keys_only``: only what its
    kept row's key is made of, :data:`FEED_KEY_COLUMNS`) and, of who rolled and their character, the names a
    row shows (not a character's whole sheet per row)."""
    own = ("pk", "hash", "seq", "secret", "by", "character", "reveal") if keys_only else ROLL_FIELDS
    return rolls.select_related("by", "character", "reveal").only(
        *own, "by__username", "character__name", "reveal__created_at"
    )


#: The feed as the GM sees it and as players do, each compiled once: the dashboard reads it on every load.
feed_of_gm = Prepared(Roll, lambda campaign: feed_query(campaign, gm=True))
feed_of_player = Prepared(Roll, lambda campaign: feed_query(campaign, gm=False))
#: The same rows, of each only its kept row's key: what a dashboard reads on every load, the rest of a roll
#: (its dice, its words) read only for a row not kept (:class:`FeedRolls`).
feed_keys_of_gm = Prepared(Roll, lambda campaign: feed_query(campaign, gm=True, keys_only=True))
feed_keys_of_player = Prepared(Roll, lambda campaign: feed_query(campaign, gm=False, keys_only=True))


class FeedEntry(dict[str, Any]):
    """A roll of the feed as ``play/_roll.html`` reads it (:func:`play.roll_views.roll_entry`), with no
    Reveal button: revealing is done from the roll log, the feed only shows. The roll and whether the
    viewer sees only its placeholder are there at once, and all a kept row needs (``kept.row_key``); the
    rest (its words, its dice as the page shows them) is worked out the first time the row's template
    asks for any of it, so a row drawn once and kept costs nothing more on each load of the dashboard."""

    def __init__(self, roll: Roll, *, gm: bool) -> None:
        super().__init__(roll=roll, hidden=hidden_from(roll, gm=gm), can_reveal=False)
        self.gm = gm
        self.complete = False

    def __missing__(self, key: str) -> Any:
        if self.complete:
            raise KeyError(key)
        self.complete = True
        self.update(roll_entry(self["roll"], gm=self.gm), can_reveal=False)
        return self[key]


def feed_entry(roll: Roll, *, gm: bool) -> FeedEntry:
    return FeedEntry(roll, gm=gm)


class FeedRolls:
    """The whole rolls of a feed read by their keys alone (:data:`feed_keys_of_gm`), read by their ids in one
    query the first time one of them is asked for: only a row that is not kept is drawn from its roll."""

    def __init__(self, ids: list[int]) -> None:
        self.ids = ids
        self._read: dict[int, Roll] | None = None

    def roll(self, pk: int) -> Roll:
        if self._read is None:
            self._read = {roll.pk: roll for roll in as_shown(Roll.objects.filter(pk__in=self.ids))}
        return self._read[pk]


class KeptFeedEntry(FeedEntry):
    """A roll of the feed as the dashboard reads it (:func:`feed_entries`): the key its kept row is drawn
    under (``kept.row_key``) worked out from a few values of the row as the database sent it, and the roll
    read (:class:`FeedRolls`) only when the row must be drawn, so a dashboard whose rows are all kept reads
    and makes none."""

    def __init__(self, rolls: FeedRolls, values: tuple[Any, ...], *, gm: bool, how_shown: tuple[Any, ...]) -> None:
        dict.__init__(self)
        self.gm, self.complete = gm, False
        self.rolls = rolls
        pk, roll_hash, _, secret, revealed_at, by, character_id, character = values
        self.pk = pk
        revealed_at = revealed_at if secret else None
        self["hidden"] = hidden = bool(not gm and secret and revealed_at is None)
        self["can_reveal"] = False
        shown_character = character if character_id is not None else None
        self.kept_key = (pk, roll_hash, hidden, revealed_at, by, shown_character, *how_shown) if roll_hash else None

    def __missing__(self, key: str) -> Any:
        if key == "roll":
            roll = self["roll"] = self.rolls.roll(self.pk)
            return roll
        return super().__missing__(key)


#: The columns of the feed's rows a kept row's key is made of (``kept.row_key`` reads them of the roll),
#: in the order :class:`KeptFeedEntry` takes them; the second is the roll's number.
FEED_KEY_COLUMNS: Final = (
    Roll._meta.pk,
    Roll._meta.get_field("hash"),
    Roll._meta.get_field("seq"),
    Roll._meta.get_field("secret"),
    Roll._meta.get_field("reveal").related_model._meta.get_field("created_at"),
    get_user_model()._meta.get_field(get_user_model().USERNAME_FIELD),
    Roll._meta.get_field("character"),
    Character._meta.get_field("name"),
)


def feed_entries(
    campaign_id: int, *, gm: bool, fetched: Fetched[Roll] | None = None
) -> tuple[list[KeptFeedEntry], int]:
    """The feed as :func:`feed_rolls` reads it, by its keys (``fetched``: its rows, read already by
    :func:`dashboard_reads`), as the dashboard's entries; with the number of the newest roll (0 without any).
    No roll is read whose row is kept; those that are not, in one more query."""
    if fetched is None:
        fetched = (feed_keys_of_gm if gm else feed_keys_of_player).fetch(campaign=campaign_id)
    how_shown = kept.how_shown()
    read = fetched.columns(*FEED_KEY_COLUMNS)
    rolls = FeedRolls([values[0] for values in read])
    entries = [KeptFeedEntry(rolls, values, gm=gm, how_shown=how_shown) for values in read]
    return entries, read[0][2] if read else 0


def dashboard_reads(
    campaign: Campaign, after: NameKey | None, *, gm: bool, first: int = 0
) -> tuple[tuple[list[PartyCard], NameKey | None, list[Offered]], tuple[list[KeptFeedEntry], int]]:
    """:func:`party_page` and :func:`feed_entries` of a dashboard: on the party's first page, their two
    queries sent together and read in one trip to the database (``web.prepared.fetch_together``)."""
    if after is not None:
        return party_page(campaign, after, first=first), feed_entries(campaign.pk, gm=gm)
    party, feed = fetch_together(
        first_of_party_read(campaign.pk, first),
        (feed_keys_of_gm if gm else feed_keys_of_player, {"campaign": campaign.pk}),
    )
    return party_page(campaign, first=first, fetched=party), feed_entries(campaign.pk, gm=gm, fetched=feed)


def roll_html(roll: Roll, *, gm: bool) -> str:
    """The feed's row of ``roll``, kept (``kept.roll_row``): the dashboards that load it next, and the dice
    box's answer to the roll just announced, show the row drawn here."""
    entry = feed_entry(roll, gm=gm)
    return kept.row_of(entry, lambda: render_to_string(kept.ROW_TEMPLATE, {"entry": entry, "campaign": roll.campaign}))


def roll_frame(seq: int, html: str) -> str:
    """The socket's message for a roll of the feed, as JSON text (play.consumers says what it holds)."""
    return json.dumps({"type": "roll", "seq": seq, "html": html})


def _send(campaign_id: int, event: dict[str, Any], group: str | None = None) -> None:
    _send_each(campaign_id, [(group or group_name(campaign_id), event)])


def _send_each(campaign_id: int, sends: list[tuple[str, dict[str, Any]]]) -> None:
    """Each event to its group, in order, in one trip to the event loop (each trip costs more than a send).
    In a request the server serves, the trip is left to the loop (``web.asgi.leave_to_loop``), made after
    what the process's requests left before it: the request's thread goes on at once."""
    layer = get_channel_layer()
    if layer is None or not sends:
        return

    async def send_all() -> None:
        for group, event in sends:
            try:
                await layer.group_send(group, event)
            except Exception:  # the write stands; the pages catch up on reconnecting
                logger.exception("Could not announce %s to campaign %s", event["type"], campaign_id)

    if asgi.leave_to_loop(send_all):
        return
    try:
        async_to_sync(send_all)()
    except Exception:  # no loop to send from (a thread that runs one itself): the write stands all the same
        logger.exception("Could not announce %s to campaign %s", ", ".join(e["type"] for _, e in sends), campaign_id)


def _announce_roll(event_type: str, roll: Roll, *, as_recorded: bool = False) -> None:
    """``as_recorded``: ``roll`` is the row as :func:`play.rolls.record_roll` wrote it, with its campaign, who
    rolled and their character at hand, and is sent as it is; a secret one is read again, as the GM may
    have revealed it in the same transaction. Otherwise it is read with all it shows."""
    if not (as_recorded and not roll.secret):
        roll = Roll.objects.select_related("campaign", "by", "character", "reveal").get(pk=roll.pk)
    hidden = roll.secret and roll.revealed_at is None
    # The frames each socket sends, encoded here once: a process holding 250 of the campaign's sockets
    # would otherwise encode the same row 250 times (consumers.CampaignConsumer.roll_recorded).
    event = {
        "type": event_type,
        "seq": roll.seq,
        "gm_frame": roll_frame(roll.seq, roll_html(roll, gm=True)),
        "player_frame": None,
    }
    if not roll.secret:  # a roll for all to see: the GM's row is the players' (no placeholder, no Reveal)
        event["player_frame"] = event["gm_frame"]
    elif not hidden:
        event["player_frame"] = roll_frame(roll.seq, roll_html(roll, gm=False))
    _send(roll.campaign_id, event)


@receiver(roll_recorded, dispatch_uid="play.live.announce_roll")
def announce_roll(sender: Any, roll: Roll, **kwargs: Any) -> None:
    _announce_roll("roll.recorded", roll, as_recorded=True)


@receiver(roll_revealed, dispatch_uid="play.live.announce_reveal")
def announce_reveal(sender: Any, roll: Roll, **kwargs: Any) -> None:
    """A revealed roll goes to every socket again: players see it for the first time, in its place
    by number; the GM's row is swapped for one marked "Secret, revealed"."""
    _announce_roll("roll.revealed", roll)


def announced_characters(character_ids: Iterable[int]) -> QuerySet[Character]:
    """The characters as their announcements show them (:func:`play.announced.read_as_announced`), in one query."""
    return read_as_announced(Character.objects.filter(pk__in=list(character_ids))).order_by("pk")


#: :func:`announced_characters` of one character, compiled once per database: every saved sheet is announced,
#: and building the query cost more than the rest of the announcement.
announced_character = Prepared(Character, lambda character: announced_characters([character]))


def _announce_saved(character: Character) -> None:
    _send_each(character.campaign_id, [*party_card_sends(character), *sheet_sends(character)])
    announce_combatant(character)


@receiver(character_changed, dispatch_uid="play.live.announce_character")
def announce_character(sender: Any, character_id: int, saved: Character | None = None, **kwargs: Any) -> None:
    """A saved sheet, announced from one read of its character (:func:`announced_characters`), or from
    ``saved``, the character as its write saved it, read under its lock with all its announcement shows
    (:func:`play.announced.read_as_announced`): to its open sheets (:func:`sheet_sends`) and to the
    dashboards' party (:func:`party_card_sends`), in one trip to the event loop, and, while it fights, as a
    change of the encounter (:func:`announce_combatant`). A character deleted since is not announced: an
    open sheet finds out when it next asks."""
    for character in [saved] if saved is not None else announced_character(character=character_id):
        _announce_saved(character)


@receiver(characters_changed, dispatch_uid="play.live.announce_characters")
def announce_characters(sender: Any, character_ids: Iterable[int], **kwargs: Any) -> None:
    """Many sheets saved at once (an award to a party), each announced as :func:`announce_character`
    announces one, from one read of them all: what it costs does not grow with the party."""
    for character in announced_characters(character_ids):
        _announce_saved(character)


def party_card_sends(character: Character) -> list[tuple[str, dict[str, Any]]]:
    """Every dashboard of the campaign hears of the change, whichever page of the party it shows:
    a page swaps the row if it shows it (by its id, ``party-<pk>``) and ignores it otherwise, so a
    change never adds a row to a page, and a renamed character keeps their place until a reload.
    ``character``: read with its owner, its campaign and its balances."""
    if character.status != Character.Status.ACTIVE:
        return []
    event = {
        "type": "party.changed",
        "id": f"party-{character.pk}",
        "html": party_row_html(party_row(character, character.campaign.settings)),
    }
    return [(group_name(character.campaign_id), event)]


def sheet_sends(character: Character) -> list[tuple[str, dict[str, Any]]]:
    """The character's open sheets hear its new version, and nothing else: each page fetches
    itself again (through the sheet's own access check) and swaps the regions it is not editing
    (``sheet_consumers.SheetConsumer``). Drafts and archived characters too: their sheets are open."""
    return [(sheet_group_name(character.pk), {"type": "sheet.changed", "version": character.version})]


@receiver(encounter_changed, dispatch_uid="play.live.announce_encounter")
def announce_encounter(sender: Any, campaign_id: int, **kwargs: Any) -> None:
    _announce_encounter(Campaign.objects.get(pk=campaign_id))


def _announce_encounter(campaign: Campaign) -> None:
    # Every member sees the same order: the dashboard swaps it in. An open encounter page hears the same
    # fragment and fetches its own body again, as its member sees it (static/js/encounter-live.js).
    _send(campaign.pk, {"type": "encounter.changed", "id": "initiative", "html": initiative_html(campaign)})


def announce_combatant(character: Character) -> None:
    """A sheet saved while its character fights in the campaign's running encounter changes what the
    encounter shows of them, wherever it was saved (the GM's edit on the sheet page, the player's own
    save, a rest): every member hears the encounter changed, as after the encounter's own moves, and an
    open encounter page fetches its body again. An encounter's move that writes a sheet is heard twice,
    once as the encounter's and once as the sheet's; a page that hears both fetches once more.
    ``character``: read with ``fighting_in``, the campaign of the running encounter it fights in (or None)."""
    if character.fighting_in is None:  # type: ignore[attr-defined]
        return
    if character.fighting_in == character.campaign_id:  # type: ignore[attr-defined]
        _announce_encounter(character.campaign)
    else:
        announce_encounter(sender=Character, campaign_id=character.fighting_in)  # type: ignore[attr-defined]


@receiver(requests_changed, dispatch_uid="play.live.announce_requests")
def announce_requests(sender: Any, campaign_id: int, **kwargs: Any) -> None:
    # Each socket renders its own member's view (consumers.CampaignConsumer.requests_changed).
    _send(campaign_id, {"type": "requests.changed"})


@receiver(membership_changed, dispatch_uid="play.live.announce_membership")
def announce_membership(sender: Any, campaign_id: int, user_id: int, **kwargs: Any) -> None:
    # Only that member's sockets hear it; each checks the membership again (consumers.CampaignConsumer).
    _send(campaign_id, {"type": "membership.changed"}, member_group_name(campaign_id, user_id))


@receiver(user_logged_out, dispatch_uid="play.live.announce_logout")
def announce_logout(sender: Any, request: Any, user: Any, **kwargs: Any) -> None:
    """Logging out closes that browser's dashboards at once (not the user's other browsers)."""
    session_key = getattr(getattr(request, "session", None), "session_key", None)
    if user is None or not session_key:
        return
    close_sessions(user.pk, [session_key])


def close_sessions(user_id: int, session_keys: Iterable[str]) -> None:
    """Closes the user's open dashboards and sheets of these sessions (ended by logging out, or by a new
    password): each of the user's sockets hears which session ended and compares it with its own."""
    keys = list(session_keys)
    # The campaigns they are in, and those of their characters: an owner who left still follows their sheets.
    member_of = Membership.objects.filter(user_id=user_id).values_list("campaign_id", flat=True)
    owner_in = Character.objects.filter(owner_id=user_id).values_list("campaign_id", flat=True)
    for campaign_id in set(member_of) | set(owner_in):
        for key in keys:
            _send(campaign_id, {"type": "session.ended", "session_key": key}, member_group_name(campaign_id, user_id))


@receiver(table_changed, dispatch_uid="play.live.announce_table")
def announce_table(sender: Any, campaign_id: int, version: int, **kwargs: Any) -> None:
    """Every member's open pages hear the table's new version, and nothing of what changed: each fetches
    its own view (what one member may see is not what another may)."""
    _send(campaign_id, {"type": "table.changed", "version": version})
    _send(campaign_id, {"type": "table.changed", "version": version}, table_group_name(campaign_id))
