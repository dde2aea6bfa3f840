"""Moves and the table: what a system does at the table besides building and rolling a sheet
(:mod:`rules.systems.moves`), the kinds of roll it logs, and the campaign-wide document its members share."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from rules.systems.moves import Move, TableRules

__all__ = [
    "TableMoves",
]


class TableMoves(Protocol):
    """A system's moves and its table."""

    # Everything a player or the GM does with the rules besides building and rolling a sheet
    # (:mod:`rules.systems.moves`), performed by the table's one pipeline.
    moves: tuple[Move[Any], ...]
    # The kinds of roll the system puts in the campaign's log, by key, with the words the log gives them
    # (the platform's own, such as a free roll or an attack, are the table app's).
    log_kinds: Mapping[str, str]
    # The campaign's table: a document every member shares, each seeing only their part (None: none).
    table: TableRules | None
