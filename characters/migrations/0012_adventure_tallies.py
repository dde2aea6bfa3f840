"""Each character's points per adventure kept as they are written (:class:`AdventureTally`), so that
the ledger's chart reads its latest adventures by an index instead of grouping every entry.

The tallies are counted once here from the entries, in one INSERT … SELECT (a few seconds for
millions of entries; the ledger's writers keep them from then on). Run it with the writers of the
ledger stopped, as every migration here is run: an entry written by the old code after the count
would be missing from its adventure's bars (``characters.ledger.recount_adventures`` counts again).

Nothing here builds an index on a table that holds rows: the new table's indexes are made with the
table, empty; the count only reads the ledger (no lock that holds off its readers or writers).
"""

import django.db.models.deletion
from django.db import migrations, models

#: What each adventure's bars show, from the entries: a correction counts as the entry it reverses.
#: Plain SQL that SQLite and PostgreSQL both run (``characters.ledger.RECOUNT`` is the same count).
COUNT = """
INSERT INTO characters_adventuretally (character_id, campaign_id, currency, adventure, began, earned, spent)
SELECT e.character_id, c.campaign_id, e.currency, e.adventure, MIN(e.id),
       SUM(CASE WHEN COALESCE(r.kind, e.kind) = 'award' THEN e.amount ELSE 0 END),
       SUM(CASE WHEN COALESCE(r.kind, e.kind) = 'award' THEN 0 ELSE -e.amount END)
FROM characters_ledgerentry e
JOIN characters_character c ON c.id = e.character_id
LEFT JOIN characters_ledgerentry r ON r.id = e.reverses_id
GROUP BY e.character_id, c.campaign_id, e.currency, e.adventure
"""


class Migration(migrations.Migration):

    dependencies = [('campaigns', '0001_initial'), ('characters', '0011_arrival')]

    operations = [
        migrations.CreateModel(
            name='AdventureTally',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('currency', models.CharField(max_length=20)),
                ('adventure', models.CharField(blank=True, max_length=120)),
                ('began', models.BigIntegerField()),
                ('earned', models.IntegerField(default=0)),
                ('spent', models.IntegerField(default=0)),
                ('character', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='characters.character')),
                ('campaign', models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='+', to='campaigns.campaign')),
            ],
            options={
                'indexes': [
                    models.Index(fields=['character', 'currency', '-began'], name='characters_tally_latest'),
                    models.Index(fields=['campaign', '-began'], name='characters_tally_campaign'),
                ],
                'constraints': [models.UniqueConstraint(fields=('character', 'currency', 'adventure'), name='characters_adventuretally_one_per_adventure')],
            },
        ),
        # Backwards the table is dropped with its rows, which the entries can always count again.
        migrations.RunSQL(COUNT, reverse_sql=migrations.RunSQL.noop),
    ]
