"""The whole protocol: a system's identity, and every capability a system's ``SYSTEM`` object gives the apps."""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from rules.systems.protocol.advancement import Advancement
from rules.systems.protocol.combat import Fights
from rules.systems.protocol.creation import Creation
from rules.systems.protocol.editing import Editing
from rules.systems.protocol.exchange import Exchange
from rules.systems.protocol.options import CampaignOptions
from rules.systems.protocol.rolls import Calls, Rolls
from rules.systems.protocol.sheets import SheetDocuments
from rules.systems.protocol.table import TableMoves

__all__ = ["Identity", "RulesSystem"]


class Identity(Protocol):
    """A system's identity, and what its license asks the product to say (shown on that system's pages,
    never another's)."""

    key: str
    name: str
    attribution: str
    disclaimer: str
    license_name: str
    license_file: str


@runtime_checkable
class RulesSystem(
    Identity,
    CampaignOptions,
    SheetDocuments,
    Creation,
    Editing,
    Rolls,
    Calls,
    TableMoves,
    Advancement,
    Exchange,
    Fights,
    Protocol,
):
    """What a system's ``SYSTEM`` object gives the apps (ARCHITECTURE.md, "The system protocol"): every
    capability, each its own protocol.

    Sheets go in and out as JSON-ready dicts (``document``) or as the system's own frozen model
    (``sheet``); the apps never look inside either except through these methods.
    """
