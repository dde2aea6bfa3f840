"""Signing the roll log (play.0013) keeps every old roll as it was, both ways, and records where its unkeyed rolls
end; a round trip finds each signed roll's key again. On PostgreSQL the log stays append-only."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.db import DatabaseError, connection, transaction

from play import chain, rolls
from play.models import ChainCheckpoint, Roll
from tests.migrations import latest, migrate
from tests.play.test_rolls import record

BEFORE = [("play", "0012_encounter_pending")]


def fill_unkeyed(old_apps: Any, campaign: Any, gm: Any, n: int) -> None:
    """``n`` rolls as the log held them before it was signed, written with the model as it stood then."""
    old_roll = old_apps.get_model("play", "Roll")
    prev_hash, moment = rolls.GENESIS, datetime(2026, 11, 22, 1, 55, 0, 123456, tzinfo=UTC)
    for seq in range(1, n + 1):
        roll = old_roll(
            campaign_id=campaign.pk, by_id=gm.pk, kind="free", system="lucky13", label="2d6+1",
            spec={"expression": "2d6+1"}, dice=[], total=seq, outcome={}, chance="7/12", chance_of="total ≥ 8",
            created_at=moment + timedelta(seconds=seq), seq=seq, prev_hash=prev_hash,
        )  # fmt: skip
        roll.hash = prev_hash = rolls.content_hash(roll)
        roll.save()


def hashes() -> list[tuple[int, str, str]]:
    """Every roll's number, previous hash and hash, straight from the table."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT seq, prev_hash, hash FROM play_roll ORDER BY seq")
        return cursor.fetchall()


@pytest.mark.django_db(transaction=True)
def test_signing_keeps_the_old_rolls_and_a_round_trip_finds_each_key_again(campaign, gm) -> None:
    try:
        old_apps = migrate(BEFORE)
        fill_unkeyed(old_apps, campaign, gm, 3)
        before = hashes()

        migrate(latest())
        assert hashes() == before  # nothing re-signed
        assert set(Roll.objects.values_list("key_id", flat=True)) == {chain.UNKEYED}
        head = ChainCheckpoint.objects.get(campaign=campaign)
        assert (head.kind, head.seq, head.hash, head.key_id) == ("unkeyed", 3, before[-1][2], "dev")
        assert rolls.check_chain(campaign) == rolls.ChainReport(count=3, broken=None)
        record(campaign, gm)
        signed = hashes()

        migrate(BEFORE)
        assert hashes() == signed
        migrate(latest())
        assert hashes() == signed
        assert list(Roll.objects.order_by("seq").values_list("key_id", flat=True)) == ["", "", "", "dev"]
        assert ChainCheckpoint.objects.get(campaign=campaign, kind="unkeyed").seq == 3
        assert rolls.check_chain(campaign, full=True) == rolls.ChainReport(count=4, broken=None)
        if connection.vendor == "postgresql":  # the trigger switched off for the round trip is on again
            with (
                pytest.raises(DatabaseError, match="append-only"),
                transaction.atomic(),
                connection.cursor() as cursor,
            ):
                cursor.execute("UPDATE play_roll SET total = 12 WHERE seq = 2")
    finally:
        migrate(latest())
