"""What a refused request must leave as it was: a fingerprint of the table's data, cheap enough to take
around every fuzzed request.

The rows a table keeps (campaigns, members, invitations, characters and their balances, encounters and
their combatants, table states, requests, proposals, prompts) are read whole, so any field a refused
request changed shows; the append-only logs (rolls, ledger entries, sheet and table history, reveals)
only grow, so their count and highest id show any row a refused request added."""

from __future__ import annotations

from typing import Any, Final

from django.apps import apps
from django.db import models

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


def _rows(model: type[models.Model]) -> Any:
    if model._meta.label in APPEND_ONLY:
        return model.objects.aggregate(rows=models.Count("pk"), last=models.Max("pk"))
    return list(model.objects.order_by("pk").values_list())


def fingerprint() -> dict[str, Any]:
    """Every data model's rows (or, for a log, its size and last id), by the model's label."""
    return {model._meta.label: _rows(model) for app in DATA_APPS for model in apps.get_app_config(app).get_models()}


def changes(before: dict[str, Any], after: dict[str, Any]) -> list[str]:
    """The labels of the models whose data differ: empty when nothing changed."""
    return [label for label in before if before[label] != after[label]]
