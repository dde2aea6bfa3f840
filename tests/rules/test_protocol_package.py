"""The system protocol is split by capability (``rules/systems/protocol/``), and ``rules.systems.base``
still gives every one of its names, so the imports that name it keep working."""

from __future__ import annotations

import typing
from itertools import combinations

import rules.systems.base as base
import rules.systems.protocol as protocol
from rules.systems.protocol import system

#: The capability protocols :class:`~rules.systems.protocol.RulesSystem` is composed of.
CAPABILITIES = (
    protocol.Identity,
    protocol.CampaignOptions,
    protocol.SheetDocuments,
    protocol.Creation,
    protocol.Editing,
    protocol.Rolls,
    protocol.Calls,
    protocol.TableMoves,
    protocol.Advancement,
    protocol.Exchange,
    protocol.Fights,
)


def _members(cls: type) -> set[str]:
    """What a protocol and those it is composed of declare: their attributes and methods."""
    return {
        name
        for klass in cls.__mro__
        if klass not in (object, typing.Protocol, typing.Generic)
        for name in (*vars(klass), *vars(klass).get("__annotations__", {}))
        if not name.startswith("_")
    }


def test_base_re_exports_every_name_of_the_protocol() -> None:
    assert set(protocol.__all__) <= set(base.__all__)
    assert all(getattr(base, name) is getattr(protocol, name) for name in protocol.__all__)


def test_the_system_protocol_is_its_capabilities_and_nothing_else() -> None:
    assert system.RulesSystem.__bases__[: len(CAPABILITIES)] == CAPABILITIES
    assert _members(system.RulesSystem) == set().union(*(_members(c) for c in CAPABILITIES))
    assert len(_members(system.RulesSystem)) == 73  # every member of the protocol before the split, and no other


def test_each_member_belongs_to_one_capability() -> None:
    shared = {
        (a.__name__, b.__name__): _members(a) & _members(b)
        for a, b in combinations(CAPABILITIES, 2)
        if _members(a) & _members(b)
    }
    assert shared == {}
