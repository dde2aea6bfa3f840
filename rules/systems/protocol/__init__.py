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

from rules.lazy import exports, names

if TYPE_CHECKING:
    from rules.document import Problem  # noqa: F401
    from rules.systems.protocol.advancement import Advancement, Currency, Effect, Offer, Standing  # noqa: F401
    from rules.systems.protocol.combat import (  # noqa: F401
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
    from rules.systems.protocol.creation import Creation, CreationStep, StartField  # noqa: F401
    from rules.systems.protocol.editing import Awaiting, Editing, EditRefused, EditSection, Role  # noqa: F401
    from rules.systems.protocol.errors import SheetInvalid, SpecError  # noqa: F401
    from rules.systems.protocol.exchange import Arrival, Exchange, LegacyRead  # noqa: F401
    from rules.systems.protocol.kinds import Recorded, RollKind  # noqa: F401
    from rules.systems.protocol.options import CampaignOptions, Option, OptionsChange, OptionsError  # noqa: F401
    from rules.systems.protocol.rolls import (  # noqa: F401
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
    from rules.systems.protocol.sheets import SheetDocuments, Summary, Track, Vitals  # noqa: F401
    from rules.systems.protocol.system import Identity, RulesSystem  # noqa: F401
    from rules.systems.protocol.table import TableMoves  # noqa: F401

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

__all__ = names(_PARTS)
__getattr__, __dir__ = exports(__name__, _PARTS)
