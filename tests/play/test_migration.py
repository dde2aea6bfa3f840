"""The table's move from ``campaigns`` to ``play`` (campaigns.0008, play.0001): every row is kept,
both ways, and on PostgreSQL the roll log stays append-only under its new name."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
from django.contrib.contenttypes.models import ContentType
from django.db import DatabaseError, connection, transaction
from django.db.migrations.executor import MigrationExecutor

from play import rolls
from play.models import Encounter, Roll
from tests.migrations import latest, migrate

BEFORE = [("campaigns", "0007_encounter_log_range")]
#: The table as it stood right after the move (before the combatants' stat blocks, play.0003).
MOVED = [("play", "0002_roll_system_label")]
MODELS = ["Roll", "RollReveal", "Encounter", "Combatant"]


#: Columns added after the move (play.0002): not in the old tables, so not compared across the move.
ADDED_SINCE = {"system", "label"}


def rows(model: Any, table: str) -> list[tuple[Any, ...]]:  # the model as it stood at the migration
    """Every row of the model's table, its columns in the model's order (SQLite may reorder them):
    the columns the tables had at the move, those added since left out."""
    fields = [f for f in model._meta.concrete_fields if f.column not in ADDED_SINCE]
    columns = ", ".join(connection.ops.quote_name(f.column) for f in fields)
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT {columns} FROM {table} ORDER BY id")
        return cursor.fetchall()


def all_rows(app: str) -> dict[str, list[tuple[Any, ...]]]:
    """Every row of the table's four tables in ``app``, their columns as they stood right after the
    move (the combatants' columns went into stat blocks later, play.0003)."""
    apps = MigrationExecutor(connection).loader.project_state(MOVED).apps
    found = {}
    for name in MODELS:
        model = apps.get_model("play", name)
        found[model._meta.model_name] = rows(model, f"{app}_{model._meta.model_name}")
    return found


def triggers() -> list[tuple[str, str, str]]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tgname, tgrelid::regclass::text, tgfoid::regproc::text FROM pg_trigger "
            "WHERE NOT tgisinternal AND tgname LIKE %s ORDER BY tgname",
            ["%roll%"],
        )
        return cursor.fetchall()


def fill_the_old_tables(old_apps: Any, campaign: Any, gm: Any, character: Any) -> None:
    """A log of three rolls (one secret and revealed), an ended fight and a running one, written
    with the models as they stood in ``campaigns`` before the move."""
    old_roll = old_apps.get_model("campaigns", "Roll")
    prev_hash, moment = rolls.GENESIS, datetime(2026, 11, 22, 1, 55, 0, 123456, tzinfo=UTC)
    for seq, (kind, secret) in enumerate([("free", False), ("check", False), ("free", True)], start=1):
        roll = old_roll(
            campaign_id=campaign.pk,
            by_id=gm.pk,
            character_id=character.pk if kind == "check" else None,
            kind=kind,
            spec={"expression": "2d6+1"},
            dice=[{"label": "2d6", "dice": [{"sides": 6, "faces": [3, 4]}], "total": 7}],
            total=8,
            outcome={},
            chance="7/12",
            chance_of="total ≥ 8",
            secret=secret,
            created_at=moment + timedelta(seconds=seq),
            seq=seq,
            prev_hash=prev_hash,
        )
        roll.hash = prev_hash = rolls.content_hash(roll)
        roll.save()
    old_apps.get_model("campaigns", "RollReveal").objects.create(roll=roll, by_id=gm.pk)
    old_encounter = old_apps.get_model("campaigns", "Encounter")
    old_combatant = old_apps.get_model("campaigns", "Combatant")
    for name, ended_at in (("Bridge ambush", moment), ("Crypt", None)):
        encounter = old_encounter.objects.create(
            campaign_id=campaign.pk, name=name, created_by_id=gm.pk, ended_at=ended_at, round=1, log_after=0
        )
        old_combatant.objects.create(
            encounter=encounter, character_id=character.pk, name="Brunella", reflex=3, combat=2, accuracy=3,
            damage=4, pulse=3, initiative=9, order=0, weapon="Broadsword",
        )  # fmt: skip
        old_combatant.objects.create(
            encounter=encounter, name="Goblin", reflex=2, combat=1, accuracy=1, damage=1, pulse=1, hit_points=10,
            group=1, initiative=4, order=1,
        )  # fmt: skip


@pytest.mark.django_db(transaction=True)
def test_the_move_keeps_every_row_both_ways(campaign, gm, character) -> None:
    try:
        old_apps = migrate(BEFORE)
        fill_the_old_tables(old_apps, campaign, gm, character)
        before = all_rows("campaigns")
        assert [len(before[m]) for m in ("roll", "rollreveal", "encounter", "combatant")] == [3, 1, 2, 4]

        migrate(MOVED)
        assert all_rows("play") == before
        migrate(latest())
        assert set(Roll.objects.values_list("system", "label")) == {("", "")}  # nothing written to old rows
        assert rolls.check_chain(campaign) == rolls.ChainReport(count=3, broken=None)
        assert Roll.objects.get(seq=3).revealed_at is not None
        assert Encounter.objects.running().get().combatants.count() == 2
        ContentType.objects.clear_cache()
        assert ContentType.objects.get_for_model(Roll).app_label == "play"
        if connection.vendor == "postgresql":
            assert triggers() == [
                ("play_roll_append_only", "play_roll", "play_refuse_change"),
                ("play_rollreveal_append_only", "play_rollreveal", "play_refuse_change"),
            ]
            with (
                pytest.raises(DatabaseError, match="append-only"),
                transaction.atomic(),
                connection.cursor() as cursor,
            ):
                cursor.execute("UPDATE play_roll SET total = 12 WHERE seq = 2")

        old_apps = migrate(BEFORE)
        assert all_rows("campaigns") == before
        if connection.vendor == "postgresql":
            assert triggers() == [
                ("campaigns_roll_append_only", "campaigns_roll", "campaigns_refuse_change"),
                ("campaigns_rollreveal_append_only", "campaigns_rollreveal", "campaigns_refuse_change"),
            ]
        migrate(MOVED)
        assert all_rows("play") == before
    finally:
        migrate(latest())
