"""An index for reading a character's reputation changes newest first, a page at a time, in place of
the character's own single-column index; and no single-column index either for the character of a
ledger entry or a sheet change, whose composite indexes lead with it (and which only tempted the
planner into reading a character's whole ledger and sorting it).

On PostgreSQL the index is built ``CONCURRENTLY`` (so the migration is not atomic): a plain
``CREATE INDEX`` would hold off every write to the table while it reads the whole of it, which on a
large installation is seconds of awards that wait. Elsewhere (SQLite, the embedded default) it is a
plain ``CREATE INDEX``. A build that fails part way on PostgreSQL leaves an invalid index of this
name: drop it, and migrate again. The old index is dropped after the new one is built, so no reader
is left without one. Each single-column index goes with a plain ``DROP INDEX``, each in its own
transaction (this migration is not atomic): it holds the table's exclusive lock only to unlink the
index, a moment, rather than until the end of a longer migration.
"""

import django.db.models.deletion
from django.contrib.postgres.operations import AddIndexConcurrently
from django.db import migrations, models
from django.db.migrations.operations import AddIndex


class AddIndexConcurrentlyOnPostgreSQL(AddIndexConcurrently):
    """``CREATE INDEX CONCURRENTLY`` on PostgreSQL, a plain ``CREATE INDEX`` on any other database."""

    def database_forwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_forwards(app_label, schema_editor, from_state, to_state)
        else:
            AddIndex.database_forwards(self, app_label, schema_editor, from_state, to_state)

    def database_backwards(self, app_label, schema_editor, from_state, to_state):
        if schema_editor.connection.vendor == "postgresql":
            super().database_backwards(app_label, schema_editor, from_state, to_state)
        else:
            AddIndex.database_backwards(self, app_label, schema_editor, from_state, to_state)


class Migration(migrations.Migration):

    atomic = False

    dependencies = [('characters', '0012_adventure_tallies')]

    operations = [
        AddIndexConcurrentlyOnPostgreSQL(
            model_name='reputationchange',
            index=models.Index(fields=['character', '-id'], name='characters_reputation_recent'),
        ),
        migrations.AlterField(
            model_name='reputationchange',
            name='character',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='reputation_changes', to='characters.character'),
        ),
        migrations.AlterField(
            model_name='ledgerentry',
            name='character',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='ledger_entries', to='characters.character'),
        ),
        migrations.AlterField(
            model_name='sheetchange',
            name='character',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.PROTECT, related_name='sheet_changes', to='characters.character'),
        ),
    ]
