"""The protocol every rules system follows, so that campaigns, sheets, the ledger, the roll log,
encounters, the JSON API and the command line are written once for all of them.

A system is one package under ``rules/systems/<key>/`` that exports one object, ``SYSTEM``,
following :class:`RulesSystem`. The apps reach it only through the registry
(``rules.systems.get(key)``), never by name (ARCHITECTURE.md, "The system protocol").
:class:`rules.systems.defaults.SystemDefaults` gives what most systems would otherwise repeat.

:class:`RulesSystem` is composed of one protocol per capability, each in its own module with the
values it speaks in:

- :mod:`~rules.systems.protocol.system`: the system's identity, and the whole protocol;
- :mod:`~rules.systems.protocol.errors`: what every capability refuses with (a bad field, an invalid sheet);
- :mod:`~rules.systems.protocol.options`: the campaign's options (:class:`CampaignOptions`);
- :mod:`~rules.systems.protocol.sheets`: the sheet document and what pages show of it (:class:`SheetDocuments`);
- :mod:`~rules.systems.protocol.creation`: guided creation (:class:`Creation`);
- :mod:`~rules.systems.protocol.editing`: edits of a finished sheet and what waits for the GM (:class:`Editing`);
- :mod:`~rules.systems.protocol.rolls`: roll kinds, sheet rolls and the GM's calls (:class:`Rolls`, :class:`Calls`);
- :mod:`~rules.systems.protocol.table`: moves, log kinds and the table (:class:`TableMoves`);
- :mod:`~rules.systems.protocol.advancement`: currencies, standing, purchases (:class:`Advancement`);
- :mod:`~rules.systems.protocol.exchange`: export, import and arrivals (:class:`Exchange`);
- :mod:`~rules.systems.protocol.combat`: what a system gives the generic encounter (:class:`Combat`, :class:`Fights`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from rules.lazy import exports

if TYPE_CHECKING:
    from rules.document import Problem
    from rules.systems.protocol.advancement import Advancement, Currency, Effect, Offer, Standing
    from rules.systems.protocol.combat import (
        AttackPlan,
        AttackRoll,
        Combat,
        CombatAction,
        CombatRefused,
        Defence,
        Fighter,
        Fights,
        Harm,
        Initiative,
        Logged,
    )
    from rules.systems.protocol.creation import Creation, CreationStep, StartField
    from rules.systems.protocol.editing import Awaiting, Editing, EditRefused, EditSection, Role
    from rules.systems.protocol.errors import SheetInvalid, SpecError
    from rules.systems.protocol.exchange import Arrival, Exchange, LegacyRead
    from rules.systems.protocol.kinds import Recorded, RollKind
    from rules.systems.protocol.options import CampaignOptions, Option, OptionsChange, OptionsError
    from rules.systems.protocol.rolls import (
        Calls,
        Kept,
        Other,
        Others,
        Rolls,
        SheetRoll,
        Totals,
        Worded,
        nobody,
    )
    from rules.systems.protocol.sheets import SheetDocuments, Summary, Track, Vitals
    from rules.systems.protocol.system import Identity, RulesSystem
    from rules.systems.protocol.table import TableMoves

__all__ = [
    "Advancement",
    "Arrival",
    "AttackPlan",
    "AttackRoll",
    "Awaiting",
    "Calls",
    "CampaignOptions",
    "Combat",
    "CombatAction",
    "CombatRefused",
    "Creation",
    "CreationStep",
    "Currency",
    "Defence",
    "EditRefused",
    "EditSection",
    "Editing",
    "Effect",
    "Exchange",
    "Fighter",
    "Fights",
    "Harm",
    "Identity",
    "Initiative",
    "Kept",
    "LegacyRead",
    "Logged",
    "Offer",
    "Option",
    "OptionsChange",
    "OptionsError",
    "Other",
    "Others",
    "Problem",
    "Recorded",
    "Role",
    "RollKind",
    "Rolls",
    "RulesSystem",
    "SheetDocuments",
    "SheetInvalid",
    "SheetRoll",
    "SpecError",
    "Standing",
    "StartField",
    "Summary",
    "TableMoves",
    "Totals",
    "Track",
    "Vitals",
    "Worded",
    "nobody",
]

#: Where each name lives: a part is imported when one of its names is first used (:mod:`rules.lazy`), so the
#: chance interface, which needs only :mod:`.errors` and :mod:`.kinds`, loads no sheet model.
_PARTS: Final = {
    "rules.document": ("Problem",),
    "rules.systems.protocol.advancement": ("Advancement", "Currency", "Effect", "Offer", "Standing"),
    "rules.systems.protocol.combat": (
        "AttackPlan",
        "AttackRoll",
        "Combat",
        "CombatAction",
        "CombatRefused",
        "Defence",
        "Fighter",
        "Fights",
        "Harm",
        "Initiative",
        "Logged",
    ),
    "rules.systems.protocol.creation": ("Creation", "CreationStep", "StartField"),
    "rules.systems.protocol.editing": ("Awaiting", "Editing", "EditRefused", "EditSection", "Role"),
    "rules.systems.protocol.errors": ("SheetInvalid", "SpecError"),
    "rules.systems.protocol.exchange": ("Arrival", "Exchange", "LegacyRead"),
    "rules.systems.protocol.kinds": ("Recorded", "RollKind"),
    "rules.systems.protocol.options": ("CampaignOptions", "Option", "OptionsChange", "OptionsError"),
    "rules.systems.protocol.rolls": (
        "Calls",
        "Kept",
        "Other",
        "Others",
        "Rolls",
        "SheetRoll",
        "Totals",
        "Worded",
        "nobody",
    ),
    "rules.systems.protocol.sheets": ("SheetDocuments", "Summary", "Track", "Vitals"),
    "rules.systems.protocol.system": ("Identity", "RulesSystem"),
    "rules.systems.protocol.table": ("TableMoves",),
}

__getattr__, __dir__ = exports(__name__, _PARTS)
