"""On PostgreSQL, the roll log refuses UPDATE and DELETE in the database itself, whoever asks
(see ``campaigns.append_only``)."""

from django.db import migrations

from campaigns import append_only

FUNCTION = "campaigns_refuse_change"
TABLES = ("campaigns_roll", "campaigns_rollreveal")
HINT = "Rolls are never changed or removed; record a new row instead."


def create_triggers(apps, schema_editor) -> None:
    append_only.create_triggers(schema_editor, FUNCTION, TABLES, HINT)


def drop_triggers(apps, schema_editor) -> None:
    append_only.drop_triggers(schema_editor, FUNCTION, TABLES)


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0002_roll_log")]

    operations = [migrations.RunPython(create_triggers, drop_triggers, elidable=False)]
