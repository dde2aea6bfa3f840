"""On PostgreSQL, the Adventure-Point ledger and the reputation history refuse UPDATE and
DELETE in the database itself, whoever asks (see ``campaigns.append_only``)."""

from django.db import migrations

from campaigns import append_only

FUNCTION = "characters_refuse_change"
TABLES = ("characters_ledgerentry", "characters_reputationchange")
HINT = "Ledger and reputation entries are never changed or removed; record a correcting entry instead."


def create_triggers(apps, schema_editor) -> None:
    append_only.create_triggers(schema_editor, FUNCTION, TABLES, HINT)


def drop_triggers(apps, schema_editor) -> None:
    append_only.drop_triggers(schema_editor, FUNCTION, TABLES)


class Migration(migrations.Migration):
    dependencies = [("characters", "0003_ledger")]

    operations = [migrations.RunPython(create_triggers, drop_triggers, elidable=False)]
