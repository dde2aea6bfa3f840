"""What the tests of data migrations share: moving the test database to a state and back again."""

from __future__ import annotations

from typing import Any

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets: list[tuple[str, str | None]]) -> Any:
    """Migrate the test database to ``targets``; the project state there, for its models."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    executor.loader.build_graph()
    return executor.loader.project_state(targets).apps


def latest() -> list[tuple[str, str]]:
    """Every app's newest migration: where a test leaves the database when it is done."""
    return MigrationExecutor(connection).loader.graph.leaf_nodes()
