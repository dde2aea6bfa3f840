"""On PostgreSQL, the roll log refuses UPDATE and DELETE in the database itself, whoever asks.

The model and its QuerySet already refuse in code; the trigger also stops raw SQL,
another client, or a future bug. SQLite has no such guard here (the embedded
default trusts its one process), so there the operations do nothing.
TRUNCATE is left alone: it needs the table owner, and the test runner uses it to
empty tables between transactional tests.
"""

from django.db import migrations

TABLES = ("campaigns_roll", "campaigns_rollreveal")

CREATE_FUNCTION = """
CREATE OR REPLACE FUNCTION campaigns_refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation',
              HINT = 'Rolls are never changed or removed; record a new row instead.';
END;
$$;
"""


def create_triggers(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    schema_editor.execute(CREATE_FUNCTION, params=None)  # None: the "%" of RAISE is not a placeholder
    for table in TABLES:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            "FOR EACH ROW EXECUTE FUNCTION campaigns_refuse_change();"
        )


def drop_triggers(apps, schema_editor) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in TABLES:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};")
    schema_editor.execute("DROP FUNCTION IF EXISTS campaigns_refuse_change();")


class Migration(migrations.Migration):
    dependencies = [("campaigns", "0002_roll_log")]

    operations = [migrations.RunPython(create_triggers, drop_triggers, elidable=False)]
