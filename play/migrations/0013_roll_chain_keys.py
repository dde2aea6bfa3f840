"""Rolls are signed with the server's key (play.chain): a ``key_id`` on every roll, and signed checkpoints.

The rolls already written keep their plain SHA-256 (``key_id`` ""): they are not re-signed, which would need the
append-only trigger switched off and would bless whatever they hold. Instead the last unkeyed roll of each
campaign's log is recorded, signed (an ``unkeyed`` checkpoint): unkeyed rolls are accepted up to there and no
further, and the roll there must keep its hash, so that the old rolls cannot be rewritten unseen from now on.

Back, the key ids and checkpoints go with their column and table (the code of before then calls any signed roll
broken). Forward again, each signed roll's key is found once more by trying the server's keys on it, so a round
trip loses nothing: only then are rows updated, with PostgreSQL's append-only trigger off for that moment. Each
roll is hashed once on the way (seconds for a few hundred thousand).
"""

from collections.abc import Iterator
from contextlib import contextmanager

import django.db.models.deletion
from django.db import migrations, models

from play import chain

#: Rows read, and rows updated, per query.
BATCH = 2000


def signer(row, keyring):
    """The id of the key that signed the row: "" for a plain SHA-256, and for a row no key matches (changed
    since, which Verify reports)."""
    if row.hash == chain.content_hash(row):
        return chain.UNKEYED
    for key_id in keyring:
        row.key_id = key_id
        if chain.expected_hash(row, keyring) == row.hash:
            return key_id
    row.key_id = chain.UNKEYED
    return chain.UNKEYED


@contextmanager
def trigger_off(schema_editor) -> Iterator[None]:
    """The append-only trigger off, inside the migration's transaction only."""
    postgresql = schema_editor.connection.vendor == "postgresql"
    if postgresql:
        schema_editor.execute("ALTER TABLE play_roll DISABLE TRIGGER play_roll_append_only")
    yield
    if postgresql:
        schema_editor.execute("ALTER TABLE play_roll ENABLE TRIGGER play_roll_append_only")


def sign_unkeyed_heads(apps, schema_editor):
    """Find each roll's key (none, for all of them the first time), then sign where each log's unkeyed rolls end."""
    rows = apps.get_model("play", "Roll").objects.using(schema_editor.connection.alias)
    checkpoint = apps.get_model("play", "ChainCheckpoint")
    keyring = chain.keys()
    signed: dict[str, list[int]] = {}
    heads: dict[int, tuple[int, str]] = {}
    for row in rows.order_by("campaign_id", "seq").iterator(chunk_size=BATCH):
        if key_id := signer(row, keyring):
            signed.setdefault(key_id, []).append(row.pk)
        else:
            heads[row.campaign_id] = (row.seq, row.hash)
    if signed:
        with trigger_off(schema_editor):
            for key_id, pks in signed.items():
                for start in range(0, len(pks), BATCH):
                    rows.filter(pk__in=pks[start : start + BATCH]).update(key_id=key_id)
    for campaign_id, head in heads.items():
        chain.mark_unkeyed_head(campaign_id, head, checkpoint=checkpoint)


class Migration(migrations.Migration):
    dependencies = [
        ("campaigns", "0010_players_call_rolls"),
        ("play", "0012_encounter_pending"),
    ]

    operations = [
        migrations.AddField(
            model_name="roll",
            name="key_id",
            field=models.CharField(blank=True, default="", max_length=16),
        ),
        migrations.CreateModel(
            name="ChainCheckpoint",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                (
                    "kind",
                    models.CharField(
                        choices=[
                            ("unkeyed", "head of the log before it was signed"),
                            ("head", "head of the log when last verified"),
                            ("verified", "point Verify goes on from"),
                        ],
                        max_length=10,
                    ),
                ),
                ("seq", models.PositiveIntegerField()),
                ("hash", models.CharField(max_length=64)),
                ("key_id", models.CharField(max_length=16)),
                ("mac", models.CharField(max_length=64)),
                ("created_at", models.DateTimeField()),
                (
                    "campaign",
                    models.ForeignKey(
                        on_delete=django.db.models.deletion.CASCADE,
                        related_name="chain_checkpoints",
                        to="campaigns.campaign",
                    ),
                ),
            ],
            options={
                "constraints": [
                    models.UniqueConstraint(fields=("campaign", "kind"), name="play_chaincheckpoint_one_of_each_kind"),
                    models.CheckConstraint(
                        condition=models.Q(("seq__gte", 1)), name="play_chaincheckpoint_seq_positive"
                    ),
                ],
            },
        ),
        migrations.RunPython(sign_unkeyed_heads, migrations.RunPython.noop, elidable=False),
    ]
