"""What a write costs, for every system: a free roll posted to the dice box and a sheet move made with htmx,
each on its system's demo campaign (as ``bench/served.py`` posts them), in a number of queries pinned here
(none read again once the transaction commits: the live feed is sent what the request holds)."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.core.management import call_command
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from campaigns.models import Campaign, Membership
from characters import ledger
from characters import views as characters_views
from characters.models import Character
from play import live, move_views, moves, rolls
from play.models import Roll
from play.templatetags import kept
from rules import systems

pytestmark = pytest.mark.django_db

HTMX = {"HTTP_HX_REQUEST": "true"}

#: A move of each system with moves, made by the GM, and what is posted with it.
MOVES: dict[str, tuple[str, dict[str, str]]] = {
    "lucky13": ("rest", {"minutes": "15"}),
    "d6": ("spend-luck", {"kind": "escape", "explanation": "Out of the window."}),
    "d13": ("d13-mark", {"marks": "1"}),
}


@pytest.fixture
def demo() -> None:
    call_command("demo", stdout=open("/dev/null", "w"))  # noqa: SIM115 (a test's stdout)


def demo_campaign(system: str) -> tuple[Campaign, Any, Character]:
    """The system's demo campaign, its GM, and its first character in play that the GM does not own."""
    campaign = Campaign.objects.filter(system=system).order_by("pk").first()
    assert campaign is not None
    gm = Membership.objects.get(campaign=campaign, role=Membership.Role.GM).user
    hero = Character.objects.active().filter(campaign=campaign).exclude(owner=gm).order_by("pk").first()
    assert hero is not None
    return campaign, gm, hero


def posted(client, url: str, body: dict[str, str], capture: Any) -> tuple[Any, list[str]]:
    """The response to ``body`` posted with htmx, and the queries it made, those of what it announces once
    its transaction commits included (the test's transaction stands for the server's: its savepoint and its
    release are the BEGIN and COMMIT a server sends)."""
    with CaptureQueriesContext(connection) as captured, capture(execute=True):
        response = client.post(url, body, **HTMX)
    return response, [q["sql"] for q in captured.captured_queries]


@pytest.mark.parametrize("system", systems.KEYS)
def test_a_free_roll_posted_costs_two_queries_on_postgresql_six_elsewhere(
    client, demo, system, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    campaign, _, hero = demo_campaign(system)
    client.force_login(hero.owner)
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(live, "_send_each", lambda campaign_id, sends: sent.extend(event for _, event in sends))
    url = reverse("play:free-roll", args=[campaign.pk])
    rolls.heads.clear()
    response, queries = posted(client, url, {"expression": "2d6+1"}, django_capture_on_commit_callbacks)
    assert response.status_code == 200
    # On PostgreSQL, the first roll this process makes into the log reads its head first (play_roll_append, which
    # locks the campaign and reads it with the roller's role and the last roll's number and hash), then sends the
    # roll made for it; every later one is sent at once.
    assert len(queries) == (3 if connection.vendor == "postgresql" else 6), queries
    sent.clear()
    before = Roll.objects.filter(campaign=campaign).count()
    response, queries = posted(client, url, {"expression": "2d6+1"}, django_capture_on_commit_callbacks)
    assert response.status_code == 200
    assert "2d6+1" in response.text
    # The session with its user; on PostgreSQL one statement (play_roll_append): the campaign locked, read with the
    # roller's role (the access check) and its log's head under the lock, the roll written if that is the head it
    # was made for (its last activity moved to the roll's moment). Elsewhere: BEGIN; the campaign's row locked by
    # moving its last activity, then the campaign with the role and the head; the roll; COMMIT. The live feed is
    # sent the roll as written: nothing is read after the commit.
    assert len(queries) == (2 if connection.vendor == "postgresql" else 6), queries
    if connection.vendor != "postgresql":
        assert queries[-1].startswith("RELEASE SAVEPOINT")
    assert Roll.objects.filter(campaign=campaign).count() == before + 1
    # What the feed was sent, from the roll as written, is what the roll read back from the log draws.
    roll = Roll.objects.select_related("campaign", "by", "character", "reveal").get(campaign=campaign, seq=before + 1)
    (event,) = sent
    assert event["gm_frame"] == live.roll_frame(roll.seq, live.roll_html(roll, gm=True))
    assert event["player_frame"] == live.roll_frame(roll.seq, live.roll_html(roll, gm=False))


def test_a_roll_for_all_to_see_draws_the_same_row_for_the_gm_and_the_players(demo) -> None:
    """The announcement sends a roll that is not secret with the GM's row as the players' too (play.live):
    every such roll of every system's demo (sheet rolls, moves, cards, free rolls) draws one row for both."""
    shown = Roll.objects.filter(secret=False).select_related("campaign", "by", "character", "reveal")
    assert shown.values("campaign__system").distinct().count() == len(systems.KEYS)
    for roll in shown:
        assert live.roll_html(roll, gm=True) == live.roll_html(roll, gm=False), roll


@pytest.mark.parametrize("system", systems.KEYS)
def test_a_row_the_announcement_draws_and_keeps_is_the_row_the_pages_draw(client, demo, system) -> None:
    """The announcement keeps the row it draws (live.roll_html), and the roll log, the dashboard and the
    dice box's answer show the kept row: drawn alone, each row of the demo's log is the row its page draws,
    for the GM and for a player."""
    campaign, gm, hero = demo_campaign(system)
    for viewer, gm_sees in ((gm, True), (hero.owner, False)):
        client.force_login(viewer)
        kept.rows.clear()
        page = client.get(reverse("play:rolls", args=[campaign.pk])).text
        shown = Roll.objects.filter(campaign=campaign).for_viewer(gm=gm_sees, filtered=True).newest_first()
        drawn = 0
        for roll in shown.select_related("campaign", "by", "character", "reveal")[:10]:
            if gm_sees and roll.secret and roll.revealed_at is None:
                continue  # the GM's Reveal button: drawn every time, with the page's token
            kept.rows.clear()
            assert live.roll_html(roll, gm=gm_sees) in page, roll
            drawn += 1
        assert drawn


@pytest.mark.parametrize("system", [key for key in systems.KEYS if key in MOVES])
def test_a_move_made_with_htmx_costs_pinned_queries(
    client, demo, system, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    _, gm, hero = demo_campaign(system)
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(live, "_send_each", lambda campaign_id, sends: sent.extend(event for _, event in sends))
    key, body = MOVES[system]
    if system == "lucky13":  # resting offered, and something to heal
        Campaign.objects.filter(pk=hero.campaign_id).update(
            options={**hero.campaign.options, "resting": "quarter_hours"}
        )
        Character.objects.filter(pk=hero.pk).update(sheet={**hero.sheet, "hit_points": 10})
    client.force_login(gm)
    version = Character.objects.get(pk=hero.pk).version
    url = reverse("play:move", args=[hero.pk, key])
    response, queries = posted(client, url, {**body, "version": str(version)}, django_capture_on_commit_callbacks)
    assert response.status_code == 200, response.text[:500]
    assert Character.objects.get(pk=hero.pk).version == version + 1
    # The session with its user. BEGIN; the campaign locked (found by the character's row); the character
    # locked, with the viewer's role (the access check, which found the GM: the page's checks ask no more,
    # and the GM makes any decision, so none is read), its owner, its balances, its campaign's GM and any
    # open decision; the sheet saved, the campaign's last activity, the sheet's
    # history, in one statement on PostgreSQL (web.prepared.write_together), three elsewhere; COMMIT. The
    # region is drawn, and every announcement made (its open sheets, the party's card, a running encounter),
    # from the character as the move saved it, read under the lock with all they show: not read again.
    assert len(queries) == (6 if connection.vendor == "postgresql" else 8), queries
    # Its open sheets hear the new version, the dashboards the party's card as a fresh read draws it.
    saved = Character.objects.select_related("owner", "campaign").with_balances().get(pk=hero.pk)
    card = live.party_row_html(live.party_row(saved, saved.campaign.settings))
    assert {"type": "party.changed", "id": f"party-{hero.pk}", "html": card} in sent
    assert {"type": "sheet.changed", "version": version + 1} in sent


def test_a_move_announced_as_saved_is_followed_by_a_later_write_of_its_transaction(
    demo, django_capture_on_commit_callbacks, monkeypatch
) -> None:
    """A move announces its character as it saved it; an award later in the same transaction announces the
    character from a read, after it: the party's card the dashboards keep is the one with the award."""
    campaign, gm, hero = demo_campaign("d13")
    sent: list[dict[str, Any]] = []
    monkeypatch.setattr(live, "_send_each", lambda campaign_id, sends: sent.extend(event for _, event in sends))
    with django_capture_on_commit_callbacks(execute=True), transaction.atomic():
        moves.make(character_id=hero.pk, key="d13-mark", version=moves.made_from(hero, moves.move_of(hero, "d13-mark")),
                   given={"marks": 1}, by=gm)  # fmt: skip
        ledger.award(campaign_id=campaign.pk, awards=[ledger.Award(hero.pk, 7)], reason="Bravery", by=gm)
    cards = [event["html"] for event in sent if event.get("id") == f"party-{hero.pk}"]
    saved = Character.objects.select_related("owner", "campaign").with_balances().get(pk=hero.pk)
    assert len(cards) == 2
    assert cards[0] != cards[1]
    assert cards[-1] == live.party_row_html(live.party_row(saved, saved.campaign.settings))


@pytest.mark.parametrize("system", [key for key in systems.KEYS if key in MOVES])
def test_the_region_a_move_draws_from_its_saved_character_is_what_a_fresh_read_draws(
    client, demo, system, monkeypatch
) -> None:
    """The move's page draws the saved region from the character as the move saved it (read under its lock
    with its owner and balances), not read again: the same bytes as the region drawn from a fresh read
    (but for the CSRF token of a form, masked anew each time)."""
    _, gm, hero = demo_campaign(system)
    key, body = MOVES[system]
    if system == "lucky13":
        Campaign.objects.filter(pk=hero.campaign_id).update(
            options={**hero.campaign.options, "resting": "quarter_hours"}
        )
        Character.objects.filter(pk=hero.pk).update(sheet={**hero.sheet, "hit_points": 10})
    drawn: list[tuple[Any, ...]] = []

    def kept(request, character, section, *, notice="", saved=None):
        response = characters_views.saved_region(request, character, section, notice=notice, saved=saved)
        drawn.append((request, character, section, notice, saved, response.content))
        return response

    monkeypatch.setattr(move_views, "saved_region", kept)
    client.force_login(gm)
    version = Character.objects.get(pk=hero.pk).version
    response = client.post(reverse("play:move", args=[hero.pk, key]), {**body, "version": str(version)}, **HTMX)
    assert response.status_code == 200
    ((request, character, section, notice, saved, content),) = drawn
    assert saved is not None
    assert saved.version == version + 1
    fresh = characters_views.saved_region(request, character, section, notice=notice)
    assert unmasked(content) == unmasked(fresh.content)


def unmasked(html: bytes) -> bytes:
    """``html`` but for the CSRF tokens of its forms (masked anew each time one is drawn)."""
    return re.sub(rb'name="csrfmiddlewaretoken" value="[^"]*"', b"csrf", html)
