"""PostgreSQL triggers that make a table append-only, for migrations to install.

The models and their QuerySets refuse UPDATE and DELETE in code (``AppendOnlyModel``); the
trigger also stops raw SQL, another client, or a future bug. SQLite has no such guard here
(the embedded default trusts its one process), so there these functions do nothing.
TRUNCATE is left alone: it needs the table owner, and the test runner uses it to empty
tables between transactional tests.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any


def create_triggers(schema_editor: Any, function: str, tables: Sequence[str], hint: str) -> None:
    """Create ``function`` (refusing any change, with ``hint`` for whoever tried) and a trigger per table."""
    if schema_editor.connection.vendor != "postgresql":
        return
    hint = hint.replace("'", "''")
    schema_editor.execute(
        f"""
CREATE OR REPLACE FUNCTION {function}() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% is append-only: % refused', TG_TABLE_NAME, TG_OP
        USING ERRCODE = 'restrict_violation',
              HINT = '{hint}';
END;
$$;
""",
        params=None,  # None: the "%" of RAISE is not a placeholder
    )
    for table in tables:
        schema_editor.execute(
            f"CREATE TRIGGER {table}_append_only BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {function}();"
        )


def drop_triggers(schema_editor: Any, function: str, tables: Sequence[str]) -> None:
    if schema_editor.connection.vendor != "postgresql":
        return
    for table in tables:
        schema_editor.execute(f"DROP TRIGGER IF EXISTS {table}_append_only ON {table};")
    schema_editor.execute(f"DROP FUNCTION IF EXISTS {function}();")
