"""A sheet page's view of its campaign's table, kept by what it is made of (``play.table_rows.VIEWS``): read
with the sheet's character (the table's version, the viewer's characters in play), it is the view read
afresh from the table's row, for every viewer, before the table has a row and after each change of it."""

from __future__ import annotations

import random

import pytest
from django.db import transaction
from django.urls import reverse

from characters import access
from characters.models import Character
from play import table_rows
from play.models import Table
from rules.systems.d13 import table as d13_table
from tests.characters.conftest import make_character
from tests.systems.d13.helpers import campaign_of, made

pytestmark = pytest.mark.django_db


@pytest.fixture
def parish(gm, player, other_player):
    return campaign_of(gm, player, other_player)


def kept_and_fresh(user, character: Character):
    """The view a sheet page shows ``user`` (kept by what its query read) and the one read afresh."""
    read = access.sheet_character(user, character.pk)
    known = table_rows.table_read_of(read)
    assert known is not None
    kept = table_rows.seen(read.campaign, user, read.viewer_role, known=known)
    fresh = table_rows.seen(read.campaign, user, read.viewer_role)
    return kept, fresh, known


def drawn_into_the_hand(campaign, character: Character, by) -> str:
    """A card drawn into ``character``'s hand, saved as a move saves the table; the card."""
    with transaction.atomic():
        table = table_rows.row(campaign, lock=True)
        state = table_rows.read(campaign, table)
        after, card, _ = d13_table.draw(state, character.pk, random.Random(7), character.name)
        table_rows.save(campaign, table, after, parts=["hands", "draw"], move="test", words="a card drawn", by=by)
    assert card is not None
    return card


def test_the_kept_view_is_the_fresh_one_for_every_viewer_before_and_after_each_change(
    parish, gm, player, other_player
) -> None:
    maud = made(parish, player)
    made(parish, other_player, "Ezra")
    for user in (gm, player, other_player):
        for _ in range(2):  # drawn, then kept
            kept, fresh, known = kept_and_fresh(user, maud)
            assert kept == fresh
            assert known.version is None  # no row yet: the new table of the campaign's options
    assert not Table.objects.filter(campaign=parish).exists()  # a page that only looks writes nothing
    drawn_into_the_hand(parish, maud, gm)
    drawn_into_the_hand(parish, maud, gm)
    for user in (gm, player, other_player):
        kept, fresh, known = kept_and_fresh(user, maud)
        assert kept == fresh
        assert known.version == 2
        (hand,) = kept[0]["hands"]
        assert hand["count"] == 2
        assert (hand["cards"] is None) is (user == other_player)  # another player's hand: how many, not which


def test_the_viewers_characters_in_play_are_read_with_the_sheet(parish, player, other_player) -> None:
    maud = made(parish, player)
    ezra = made(parish, player, "Ezra")
    ida = made(parish, other_player, "Ida")
    read = access.sheet_character(player, maud.pk)
    assert table_rows.table_read_of(read) == table_rows.TableRead(None, frozenset({maud.pk, ezra.pk}))
    Character.objects.filter(pk=ezra.pk).update(status=Character.Status.ARCHIVED)
    read = access.sheet_character(player, maud.pk)
    assert table_rows.table_read_of(read) == table_rows.TableRead(None, frozenset({maud.pk}))
    # on another player's sheet, their own characters: whose hands they see
    assert table_rows.table_read_of(access.sheet_character(other_player, maud.pk)).in_play == frozenset({ida.pk})
    assert table_rows.table_read_of(Character.objects.get(pk=maud.pk)) is None  # read without it: nothing known


def test_a_players_sheet_shows_the_card_drawn_into_their_hand_after_the_kept_view(client, parish, gm, player) -> None:
    maud = made(parish, player)
    client.force_login(player)
    sheet = reverse("characters:sheet", args=[maud.pk])
    before = client.get(sheet)
    assert before.status_code == 200
    drawn_into_the_hand(parish, maud, gm)
    shown = d13_table.view(
        table_rows.read(parish, Table.objects.get(campaign=parish)), table_rows.viewer(parish, player), parish.settings
    )["hands"][0]["cards"][0]
    after = client.get(sheet)
    assert after.status_code == 200
    assert shown["name"] in after.text
    assert shown["name"] not in before.text


def test_a_sheet_of_a_system_that_keeps_no_table_reads_nothing_of_one(campaign, player) -> None:
    hero = make_character(campaign, player)  # Lucky 13: no table
    read = access.sheet_character(player, hero.pk)
    assert (read.table_version, read.in_play_ids) == (None, None)
    assert table_rows.seen(read.campaign, player, read.viewer_role, known=table_rows.table_read_of(read)) is None
