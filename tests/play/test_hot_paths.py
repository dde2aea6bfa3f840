"""The table's hot paths at any size: a roll from the sheet, a move, the dashboard and the roll log
cost the same queries whatever the party and the log hold; and the fragments the pages keep
(``play/templatetags/kept.py``) are the bytes a fresh render makes, drawn again whenever what they show
changes."""

from __future__ import annotations

import random
import re
from collections.abc import Callable

import pytest
from django.db import connection
from django.template import Context, Template
from django.test.utils import CaptureQueriesContext
from django.urls import reverse
from django.utils.safestring import SafeString

from campaigns.models import Campaign
from characters.models import Balance, Character
from play import live, requests, rolls
from play.models import Roll
from play.roll_views import roll_entry
from play.templatetags import kept
from tests.campaigns.helpers import make_character
from tests.play.test_requests import SNEAK_HARD
from web import kept as kept_parts
from web.templatetags import kept_blocks

pytestmark = pytest.mark.django_db


def grow(campaign: Campaign, owners: list, party: int, log: int) -> None:
    """``party`` more characters in play, each with a long sheet of notes, and ``log`` more free rolls."""
    for i in range(party):
        make_character(campaign, owners[i % len(owners)], f"Hero {i:02}", notes="A long story. " * 500)
    for i in range(log):
        rolls.roll_free(campaign_id=campaign.pk, by=owners[0], text="2d6", explode=False, secret=False,
                        rng=random.Random(i))  # fmt: skip


def queries(request: Callable[[], int]) -> int:
    """The queries of one request, which must succeed (a 200, or a 302 after a POST)."""
    with CaptureQueriesContext(connection) as captured:
        status = request()
    assert status in (200, 302), status
    return len(captured)


def same_at_two_sizes(campaign: Campaign, owners: list, request: Callable[[], int]) -> int:
    """``request`` costs the same queries with a party of two and a short log as with a party of 25
    (a page of the dashboard's party and more), long sheets, and a log longer than a page."""
    grow(campaign, owners, 1, 3)
    small = queries(request)
    grow(campaign, owners, 24, 40)
    assert queries(request) == small
    return small


def test_a_roll_from_the_sheet_costs_the_same_queries_at_any_size(client, campaign, player, other_player) -> None:
    hero = make_character(campaign, player, "Brunella")
    client.force_login(player)
    url = reverse("play:sheet-roll", args=[hero.pk])
    situation = {"skill": hero.document.skills[0].id, "difficulty": "moderate"}
    # On PostgreSQL the campaign's lock, the reads under it (the roller's role, the log's head, the character's
    # status) and the roll are one statement, in no transaction of its own (play_roll_append; the log's head
    # known from the rolls before).
    pinned = 9 if connection.vendor == "postgresql" else 14
    rolled = same_at_two_sizes(campaign, [player, other_player], lambda: client.post(url, situation).status_code)
    assert rolled == pinned
    assert Roll.objects.filter(campaign=campaign, character=hero).count() == 2


def test_answering_the_gms_call_costs_the_same_queries_at_any_size(client, campaign, gm, player, other_player) -> None:
    heroes = [make_character(campaign, player, name) for name in ("Brunella", "Casimir")]
    call = {"kind": "check", "skill": "Sneaking", "difficulty": "difficult", "ability_roll": "background"}
    # A call for each: every answer is the last its call waits for, and closes it.
    waiting = [requests.call_for_roll(campaign_id=campaign.pk, by=gm, call=call, characters=[hero.pk],
                                      secret=False).asked.get() for hero in heroes]  # fmt: skip
    client.force_login(player)

    def answer() -> int:
        asked = waiting.pop(0)
        return client.post(reverse("play:request-answer", args=[asked.character_id, asked.pk])).status_code

    # On PostgreSQL the campaign's lock, the reads under it (the roller's role, the log's head, the character's
    # status) and the roll are one statement, in no transaction of its own (play_roll_append; the log's head
    # known from the rolls before).
    pinned = 11 if connection.vendor == "postgresql" else 16
    assert same_at_two_sizes(campaign, [player, other_player], answer) == pinned
    assert Roll.objects.filter(campaign=campaign, character__in=heroes).count() == 2


def test_a_move_costs_the_same_queries_at_any_size(client, campaign, gm, player, other_player) -> None:
    campaign.options = {**campaign.options, "resting": "quarter_hours"}
    campaign.save()
    hero = make_character(campaign, player, "Brunella", hit_points=10)
    client.force_login(player)
    url = reverse("play:move", args=[hero.pk, "rest"])

    def rest() -> int:
        version = Character.objects.get(pk=hero.pk).version
        return client.post(url, {"version": str(version), "minutes": "15"}).status_code

    # The character read once, locked, for the access check, the player's checks (no decision open: none is
    # read) and the move, and announced as saved; the sheet, the campaign's last activity and the sheet's
    # history written in one statement on PostgreSQL.
    pinned = 7 if connection.vendor == "postgresql" else 9
    assert same_at_two_sizes(campaign, [player, other_player], rest) == pinned
    assert Character.objects.get(pk=hero.pk).document.hit_points == 12


@pytest.mark.parametrize("viewer", ["gm", "player"])
@pytest.mark.parametrize("name", ["play:dashboard", "play:rolls", "campaigns:detail"])
def test_the_table_pages_cost_the_same_queries_at_any_size(client, campaign, request, viewer, name) -> None:
    player, other_player = request.getfixturevalue("player"), request.getfixturevalue("other_player")
    client.force_login(request.getfixturevalue(viewer))
    url = reverse(name, args=[campaign.pk])
    same_at_two_sizes(campaign, [player, other_player], lambda: client.get(url).status_code)


# --- Kept fragments ----------------------------------------------------------------------------------


def feed(client, campaign: Campaign) -> str:
    return client.get(reverse("play:dashboard", args=[campaign.pk])).text


def log_of(page: str) -> str:
    """The page's list of rolls, but for the CSRF token of a Reveal button (a new one each time)."""
    found = re.search(r'<ol[^>]*class="roll-log".*?</ol>', page, re.DOTALL)
    assert found is not None
    return re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "csrf", found.group())


def test_a_kept_row_is_what_a_fresh_render_draws(client, campaign, gm, player) -> None:
    hero = make_character(campaign, player, "Brunella")
    client.force_login(player)
    client.post(reverse("play:sheet-roll", args=[hero.pk]), {"skill": hero.document.skills[0].id})
    for i in range(3):
        rolls.roll_free(campaign_id=campaign.pk, by=gm, text="3d6", explode=True, secret=i == 1,
                        rng=random.Random(i))  # fmt: skip
    for viewer in (gm, player):
        client.force_login(viewer)
        for url in (reverse("play:dashboard", args=[campaign.pk]), reverse("play:rolls", args=[campaign.pk])):
            kept.rows.clear()
            fresh = log_of(client.get(url).text)
            assert len(kept.rows) > 0
            assert log_of(client.get(url).text) == fresh


def test_a_renamed_character_and_a_renamed_player_show_in_the_feed_at_once(client, campaign, gm, player) -> None:
    hero = make_character(campaign, player, "Brunella")
    client.force_login(player)
    client.post(reverse("play:sheet-roll", args=[hero.pk]), {"skill": hero.document.skills[0].id})
    assert "for Brunella" in feed(client, campaign)
    Character.objects.filter(pk=hero.pk).update(name="Brunhilde")
    player.username = "bruni"
    player.save()
    page = feed(client, campaign)
    assert "for Brunhilde" in page
    assert "for Brunella" not in page
    assert "<strong>bruni</strong> for Brunhilde" in page


def test_a_revealed_roll_shows_revealed_in_every_feed(client, campaign, gm, player) -> None:
    secret = rolls.roll_free(campaign_id=campaign.pk, by=gm, text="d20", explode=False, secret=True,
                             rng=random.Random(3))  # fmt: skip
    client.force_login(gm)
    assert "Secret, revealed" not in feed(client, campaign)
    client.force_login(player)
    assert f'id="roll-{secret.seq}"' not in feed(client, campaign)
    rolls.reveal_roll(campaign_id=campaign.pk, seq=secret.seq, by=gm)
    assert "Secret, revealed" in feed(client, campaign)
    client.force_login(gm)
    assert "Secret, revealed" in feed(client, campaign)


def test_the_call_form_is_drawn_again_when_the_party_or_the_options_change(client, campaign, gm, player) -> None:
    make_character(campaign, player, "Brunella")
    client.force_login(gm)
    assert "Brunella" in feed(client, campaign)
    assert len(kept.call_forms) > 0
    make_character(campaign, player, "Casimir")
    assert feed(client, campaign).count("Casimir") >= 2  # the party, and the form's box to tick
    skills = [{**skill, "name": "Swimming" if i == 0 else skill["name"]}
              for i, skill in enumerate(campaign.settings["skills"])]  # fmt: skip
    Campaign.objects.filter(pk=campaign.pk).update(options={**campaign.options, "skills": skills})
    assert ">Swimming</option>" in feed(client, campaign)


def test_a_call_sent_back_with_errors_keeps_what_was_typed(client, campaign, gm, player) -> None:
    make_character(campaign, player, "Brunella")
    client.force_login(gm)
    feed(client, campaign)  # the unsent form, kept
    response = client.post(reverse("play:request-call", args=[campaign.pk]), {"difficulty": "moderate"})
    assert response.status_code == 400
    assert "Choose who rolls." in response.text


def test_a_kept_feed_row_works_out_nothing_of_its_roll(client, campaign, gm, player) -> None:
    """The feed's entries are worked out only for rows drawn: those kept need the roll alone, and an
    entry worked out in full is the roll log's entry of the roll, without the Reveal button."""
    for i in range(3):
        rolls.roll_free(campaign_id=campaign.pk, by=gm, text="3d6", explode=True, secret=i == 1,
                        rng=random.Random(i))  # fmt: skip
    draw = Template("{% load kept %}{% for entry in entries %}{% roll_row entry %}{% endfor %}")
    for viewer, gm_sees in ((gm, True), (player, False)):
        client.force_login(viewer)
        page = feed(client, campaign)
        entries = [live.feed_entry(roll, gm=gm_sees) for roll in live.feed_rolls(campaign.pk, gm=gm_sees)]
        assert draw.render(Context({"entries": entries})) in page
        assert not any(entry.complete for entry in entries)
        for entry in entries:
            assert dict(entry) == {"roll": entry["roll"], "hidden": entry["hidden"], "can_reveal": False}
            assert entry["roll"].pk  # present from the start: nothing worked out
            assert not entry.complete
            with pytest.raises(KeyError):
                entry["no such thing"]
            assert dict(entry) == {**roll_entry(entry["roll"], gm=gm_sees), "can_reveal": False}


def test_the_dashboards_feed_keys_its_rows_as_the_full_rolls_do_and_makes_no_roll_it_kept(
    client, campaign, gm, player, monkeypatch
) -> None:
    """The dashboard's entries (live.feed_entries) key each row from the values of the row as read: the same
    key kept.row_key gives the whole roll (a secret one hidden or not, revealed, with and without a
    character), so the feed, the roll log and the socket share each kept row; and a dashboard whose rows
    are all kept makes no roll."""
    hero = make_character(campaign, player, "Brunella")
    client.force_login(player)
    client.post(reverse("play:sheet-roll", args=[hero.pk]), {"skill": hero.document.skills[0].id})
    for i in range(3):
        rolls.roll_free(campaign_id=campaign.pk, by=gm, text="3d6", explode=True, secret=i > 0,
                        rng=random.Random(i))  # fmt: skip
    revealed = Roll.objects.filter(campaign=campaign, secret=True).order_by("seq").first()
    rolls.reveal_roll(campaign_id=campaign.pk, seq=revealed.seq, by=gm)
    made: list[int] = []
    real = Roll.from_db.__func__
    monkeypatch.setattr(Roll, "from_db", classmethod(lambda cls, *args: made.append(1) or real(cls, *args)))
    for viewer, gm_sees in ((gm, True), (player, False)):
        entries, last_seq = live.feed_entries(campaign.pk, gm=gm_sees)
        whole = [live.feed_entry(roll, gm=gm_sees) for roll in live.feed_rolls(campaign.pk, gm=gm_sees)]
        assert [kept.row_key(entry) for entry in entries] == [kept.row_key(entry) for entry in whole]
        assert all(key is not None for key in map(kept.row_key, entries))
        assert last_seq == whole[0]["roll"].seq
        assert [entry["hidden"] for entry in entries] == [entry["hidden"] for entry in whole]
        client.force_login(viewer)
        kept.rows.clear()
        drawn = feed(client, campaign)
        made.clear()
        assert log_of(feed(client, campaign)) == log_of(drawn)
        assert made == []


def party_of(page: str) -> str:
    """The page's list of the party's cards, to the end of its section."""
    found = re.search(r'<ul class="party">.*?</section>', page, re.DOTALL)
    assert found is not None
    return found.group()


PARTY_PAGES = ["play:dashboard", "campaigns:detail"]


@pytest.mark.parametrize("name", PARTY_PAGES)
def test_a_kept_card_is_what_a_fresh_render_draws(client, campaign, gm, player, name) -> None:
    make_character(campaign, player, "Brunella", hit_points=-1, ap_balance=4, concept="Smuggler")
    make_character(campaign, gm, "Casimir")
    url = reverse(name, args=[campaign.pk])
    for viewer in (gm, player):
        client.force_login(viewer)
        kept.cards.clear()
        fresh = party_of(client.get(url).text)
        assert len(kept.cards) == 2
        assert party_of(client.get(url).text) == fresh
        assert "Smuggler" in fresh
        assert "Dying" in fresh


def test_the_campaign_pages_card_is_the_one_it_always_drew(client, campaign, player) -> None:
    """The campaign page's card, now a template of its own, draws the bytes its list drew inline."""
    brunella = make_character(campaign, player, "Brunella", ap_balance=4, concept="Smuggler")
    inline = Template(
        '{% for row in party %}{% with character=row.character %}\n    <li class="party-member">\n      '
        "<h3><a href=\"{% url 'characters:sheet' character.pk %}\">{{ character.name }}</a></h3>\n      "
        '<p class="sheet-meta">played by {{ character.owner.get_username }}{% if row.summary.concept %} · '
        "{{ row.summary.concept }}{% endif %}</p>\n      "
        '{% include "characters/_standing.html" with vitals=row.vitals holdings=character.holdings %}\n'
        "    </li>{% endwith %}{% endfor %}"
    )
    character = Character.objects.with_balances().get(pk=brunella.pk)
    row = {"character": character, "summary": character.rules.summary(character.document),
           "vitals": character.rules.vitals(character.document, campaign.settings)}  # fmt: skip
    client.force_login(player)
    page = party_of(client.get(reverse("campaigns:detail", args=[campaign.pk])).text)
    assert page.startswith(f'<ul class="party">{inline.render(Context({"party": [row]}))}\n  </ul>')


@pytest.mark.parametrize("name", PARTY_PAGES)
def test_a_card_shows_every_change_at_once(client, campaign, gm, player, name) -> None:
    """Whatever changes what a card shows is seen on the next load, even a sheet changed outside the
    write path (its version the same): the sheet, the names, a balance, the campaign's options."""
    brunella = make_character(campaign, player, "Brunella", ap_balance=4)
    client.force_login(gm)
    url = reverse(name, args=[campaign.pk])
    assert "30 of 30" in party_of(client.get(url).text)
    Character.objects.filter(pk=brunella.pk).update(sheet={**brunella.sheet, "hit_points": 17})
    assert "17 of 30" in party_of(client.get(url).text)
    Character.objects.filter(pk=brunella.pk).update(name="Brunhilde")
    player.username = "bruni"
    player.save()
    Balance.objects.filter(character=brunella).update(amount=9)
    party = party_of(client.get(url).text)
    assert ">Brunhilde</a>" in party
    assert "played by bruni" in party
    assert "<dd>9</dd>" in party
    Campaign.objects.filter(pk=campaign.pk).update(options={**campaign.options, "hit_points_per_step": 5})
    assert "17 of 15" in party_of(client.get(url).text)


def test_a_kept_card_reads_no_sheet_and_the_socket_sends_it(client, campaign, gm, player) -> None:
    brunella = make_character(campaign, player, "Brunella")
    client.force_login(gm)
    page = party_of(client.get(reverse("play:dashboard", args=[campaign.pk])).text)
    (row,) = live.party(campaign)
    card = live.party_row_html(row)
    assert "_document" not in row.character.__dict__  # kept: the sheet never read into its document
    assert card in page
    assert card.startswith(f'<li class="party-member" id="party-{brunella.pk}">')
    kept.cards.clear()
    assert live.party_row_html(live.party(campaign)[0]) == card


def test_the_kept_fragments_are_bounded() -> None:
    few = kept.Kept(2)
    for key in "abc":
        few.get(key, lambda key=key: SafeString(key))
    assert len(few) == 2
    assert few.get("a", lambda: SafeString("drawn again")) == "drawn again"  # the oldest was dropped
    assert few.get(None, lambda: SafeString("never kept")) == "never kept"
    assert len(few) == 2
    # Read without making, and put in the place of what was kept: the most recently used kept, the oldest dropped.
    assert few.peek("zzz") is None
    assert few.peek("c") == "c"
    few.put("c", SafeString("put"))
    few.put("d", SafeString("d"))
    assert len(few) == 2
    assert (few.peek("a"), few.peek("c"), few.peek("d")) == (None, "put", "d")


def sections_of(page: str) -> list[str]:
    """The dashboard's party and feed sections, the CSRF token of a form in them aside."""
    found = re.findall(
        r'<section class="campaign-section" id="dashboard-(?:party|rolls)".*?</section>', page, re.DOTALL
    )
    return [re.sub(r'name="csrfmiddlewaretoken" value="[^"]*"', "csrf", section) for section in found]


@pytest.mark.parametrize("viewer", ["gm", "player"])
def test_the_dashboards_kept_sections_are_what_a_fresh_render_draws(client, campaign, player, viewer, request,
                                                                     settings) -> None:  # fmt: skip
    """The party and the feed, kept whole (``{% kept %}``), as a server shows them (the tests' check of every
    kept part aside): the same bytes as drawn afresh, and drawn again when what they show changes."""
    settings.KEPT_CHECKED = False
    hero = make_character(campaign, player, "Brunella")
    rolls.roll_free(campaign_id=campaign.pk, by=player, text="3d6", explode=False, secret=False, rng=random.Random(1))
    client.force_login(request.getfixturevalue(viewer))
    url = reverse("play:dashboard", args=[campaign.pk])
    for change in (None, "roll", "rename"):
        if change == "roll":
            rolls.roll_free(campaign_id=campaign.pk, by=player, text="d20", explode=False, secret=False,
                            rng=random.Random(2))  # fmt: skip
        if change == "rename":
            Character.objects.filter(pk=hero.pk).update(name="Brunhilde")
        kept_parts.forget_all()
        fresh = sections_of(client.get(url).text)
        assert len(fresh) == 2
        assert len(kept_blocks.blocks) > 0
        assert sections_of(client.get(url).text) == fresh
    assert "Brunhilde" in fresh[0]
    assert fresh[1].count('class="roll') >= 2


class Form:
    is_bound, offered, made_from = False, True, ("lucky13", "{}", ((1, "Brunella"),), "[]")


@pytest.mark.parametrize("under_way", [*kept.UNDER_WAY, "awaiting", "bound form"])
def test_the_quiet_sections_are_drawn_every_time_while_something_is_under_way(campaign, under_way) -> None:
    """The requests, the call, the approvals and the initiative are kept only while nothing is under way:
    a request open, a proposal, an answer, an encounter, a character waiting for approval, a form sent back."""
    form = Form()
    quiet = {"campaign": campaign, "is_gm": True, "call_form": form, "awaiting": {"rows": [], "next_url": None}}
    assert kept.quiet_sections_key(Context(quiet)) == (True, campaign.pk, form.made_from, True)
    assert kept.quiet_sections_key(Context({**quiet, "is_gm": False})) == (False, campaign.pk)
    if under_way == "awaiting":
        busy = {**quiet, "awaiting": {"rows": ["a row"]}}
    elif under_way == "bound form":
        form.is_bound = True
        busy = quiet
    else:
        busy = {**quiet, under_way: ["something"]}
    assert kept.quiet_sections_key(Context(busy)) is None


def test_a_request_shows_on_the_dashboard_and_leaves_it_when_closed(client, campaign, gm, player) -> None:
    hero = make_character(campaign, player, "Brunella")
    client.force_login(gm)
    url = reverse("play:dashboard", args=[campaign.pk])
    assert "No open requests." in client.get(url).text
    asked = requests.call_for_roll(campaign_id=campaign.pk, by=gm, call=SNEAK_HARD, characters=[hero.pk],
                                   secret=False)  # fmt: skip
    page = client.get(url).text
    assert f'id="request-{asked.pk}"' in page
    assert "No open requests." not in page
    requests.cancel(campaign_id=campaign.pk, request_id=asked.pk, by=gm)
    assert "No open requests." in client.get(url).text


def test_a_card_read_from_its_row_is_keyed_as_one_of_the_whole_character_and_makes_none(campaign, gm, player) -> None:
    """The dashboard's party is read as rows (``PartyCard.read``): each card's key is the key of the card of
    the whole character, so both find the same kept card, and no character is made for a kept card."""
    for name, points in (("Casimir", 0), ("Brunella", 4)):
        make_character(campaign, player, name, ap_balance=points)
    cards, next_key, offered = live.party_page(campaign, first=requests.MAX_ASKED)
    options = campaign.settings
    whole = [live.party_row(c, options, kept.options_digest(campaign), kept.how_shown())
             for c in live.party_characters(campaign.pk).order_by("name", "pk")]  # fmt: skip
    assert [card.card_values for card in cards] == [row.card_values for row in whole]
    # The card a change announces (no digest given: its campaign's) holds the page's digest of the options.
    announced = [live.party_row(row.character, options) for row in whole]
    assert {row.options_digest for row in announced} == {card.options_digest for card in cards}
    assert all("character" not in card.__dict__ for card in cards)
    assert next_key is None
    assert offered == [(row.character.pk, row.character.name) for row in whole]
    assert [live.party_row_html(card) for card in cards] == [live.party_row_html(row) for row in whole]
