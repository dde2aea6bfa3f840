"""What a refused request must leave as it was: a fingerprint of the table's data, cheap enough to take
around every fuzzed request.

The rows a table keeps (campaigns, members, invitations, characters and their balances, encounters and
their combatants, table states, requests, proposals, prompts) are read whole, so any field a refused
request changed shows; the append-only logs (rolls, ledger entries, sheet and table history, reveals)
only grow, so their count and highest id show any row a refused request added."""

from __future__ import annotations

from functools import cache
from typing import Any, Final

from django.apps import apps
from django.db import connection, models

#: The apps that hold a table's data.
DATA_APPS: Final = ("campaigns", "characters", "play")
#: Append-only logs: rows are only ever added, so a count and the highest id say all.
APPEND_ONLY: Final = frozenset(
    {
        "characters.SheetChange",
        "characters.CreationDice",
        "characters.LedgerEntry",
        "characters.ReputationChange",
        "play.Roll",
        "play.RollReveal",
        "play.RollAsked",
        "play.TableChange",
    }
)


def _query(model: type[models.Model]) -> str:
    """What reads a model's rows: every column of every row in the order of its key (or, for a log, its
    size and last key), in plain SQL. Taken around each of thousands of fuzzed requests, the reads skip
    the ORM's compiling of the same statement and building of its values each time: they were most of
    the fuzzing's time, where the requests themselves were less."""
    quote = connection.ops.quote_name
    table, key = quote(model._meta.db_table), quote(model._meta.pk.column)
    if model._meta.label in APPEND_ONLY:
        return f"SELECT COUNT({key}), MAX({key}) FROM {table}"
    columns = ", ".join(quote(field.column) for field in model._meta.concrete_fields)
    return f"SELECT {columns} FROM {table} ORDER BY {key}"


@cache
def _queries(vendor: str) -> tuple[tuple[str, str], ...]:
    return tuple(
        (model._meta.label, _query(model)) for app in DATA_APPS for model in apps.get_app_config(app).get_models()
    )


def fingerprint() -> dict[str, Any]:
    """Every data model's rows (or, for a log, its size and last id), by the model's label."""
    found = {}
    with connection.cursor() as cursor:
        for label, query in _queries(connection.vendor):
            cursor.execute(query)
            found[label] = cursor.fetchall()
    return found


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The labels of the models whose data differ: empty when nothing changed."""
    return [label for label in before if before[label] != after[label]]
