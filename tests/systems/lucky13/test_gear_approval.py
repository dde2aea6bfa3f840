"""Gear and assets in play (the GM's calls): what a player adds above level 1 — an asset of level 2 or
more, a weapon, an armor — waits for the GM's approval and steps no die until then; the GM's save
approves; a campaign may let players add them freely. A rename keeps an approval; a change of dice does not."""

from __future__ import annotations

import pytest

from rules.systems import get
from rules.systems.base import Role, SpecError
from rules.systems.lucky13.encounter import COMBAT
from tests.characters.conftest import FIGHTING, LONGSWORD, OLD_MAP, SCHOLARSHIP, UNCLE_OTTO, brunella_sheet

SYSTEM = get("lucky13")


def sheet_and_options(**options):
    return SYSTEM.read_sheet(brunella_sheet()), SYSTEM.validate_options(options)


def equipment(sheet, **changes):
    value = {
        key: [item.model_dump(mode="json") for item in getattr(sheet, key)] for key in ("assets", "weapons", "armor")
    }
    for key, items in changes.items():
        value[key] = value[key] + items
    return value


def test_a_players_asset_above_level_1_weapon_and_armor_wait_for_the_gm() -> None:
    sheet, options = sheet_and_options()
    value = equipment(
        sheet,
        assets=[{"name": "Lockpicks", "level": 3, "skills": [FIGHTING]}, {"name": "Rope", "level": 1}],
        weapons=[{"name": "Axe", "accuracy": "d6", "damage": "d10"}],
        armor=[{"name": "Mail", "defense": "d8"}],
    )
    edited = SYSTEM.edit(sheet, "equipment", value, role=Role.OWNER, options=options)
    state = {item.name: item.approved for item in (*edited.assets, *edited.weapons, *edited.armor)}
    assert state == {"Old map": True, "Uncle Otto": True, "Lockpicks": False, "Rope": True, "Longsword": True,
                     "Axe": False, "Leather": True, "Mail": False}  # fmt: skip
    assert SYSTEM.sheet_view(edited, options)["gear_pending"] is True

    lockpicks = next(a for a in edited.assets if a.name == "Lockpicks")
    with pytest.raises(SpecError, match="asset"):
        SYSTEM.sheet_roll(edited, {"skill": FIGHTING, "asset": lockpicks.id}, options)
    joined = COMBAT.joins(edited, options)
    assert (joined.accuracy, joined.damage, joined.armor) == ("d8", "d8", "d4")  # the Longsword, the Leather

    approved = SYSTEM.edit(edited, "equipment", equipment(edited), role=Role.GM, options=options)
    assert all(item.approved for item in (*approved.assets, *approved.weapons, *approved.armor))
    assert (
        SYSTEM.sheet_roll(approved, {"skill": FIGHTING, "asset": lockpicks.id}, options).spec["skill"] == "d12+d6"
    )  # d10 three steps up
    assert COMBAT.joins(approved, options).armor == "d8"


def test_a_rename_keeps_an_approval_and_a_raised_level_does_not() -> None:
    sheet, options = sheet_and_options()
    value = equipment(sheet)
    value["weapons"][0]["name"] = "Old Longsword"
    value["assets"][0]["level"] = 3  # the Old map, level 2 → 3
    edited = SYSTEM.edit(sheet, "equipment", value, role=Role.OWNER, options=options)
    assert next(w for w in edited.weapons if w.id == LONGSWORD).approved is True
    assert next(a for a in edited.assets if a.id == OLD_MAP).approved is False
    assert next(a for a in edited.assets if a.id == UNCLE_OTTO).approved is True
    # The player cannot approve it by sending it approved.
    again = equipment(edited)
    for asset in again["assets"]:
        asset["approved"] = True
    still = SYSTEM.edit(edited, "equipment", again, role=Role.OWNER, options=options)
    assert next(a for a in still.assets if a.id == OLD_MAP).approved is False
    with pytest.raises(SpecError):
        SYSTEM.sheet_roll(still, {"skill": SCHOLARSHIP, "asset": OLD_MAP}, options)


def test_a_campaign_may_let_players_add_gear_freely() -> None:
    sheet, options = sheet_and_options(gear="free")
    value = equipment(sheet, weapons=[{"name": "Axe", "accuracy": "d6", "damage": "d10"}])
    edited = SYSTEM.edit(sheet, "equipment", value, role=Role.OWNER, options=options)
    assert all(w.approved for w in edited.weapons)
    assert SYSTEM.sheet_view(edited, options)["gear_pending"] is False
