"""Every registered system, and the tests' own Coin system, follows the system protocol: the
apps can create, read, check, edit, roll for and advance any sheet without naming its system."""

from __future__ import annotations

import json
from collections.abc import Iterator
from fractions import Fraction
from pathlib import Path
from random import Random
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import systems
from rules.__main__ import main
from rules.systems.base import (
    AttackPlan,
    AttackRoll,
    Combat,
    EditRefused,
    Fighter,
    Initiative,
    Logged,
    Offer,
    Role,
    RulesSystem,
    SheetInvalid,
    SheetRoll,
    SpecError,
    Vitals,
)
from tests.systems.coin import system as coin
from tests.systems.lucky13.reference import PROPERTY

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(autouse=True, scope="module")
def coin_registered() -> Iterator[None]:
    systems.register(coin.SYSTEM)
    yield
    systems.unregister(coin.SYSTEM.key)


def finished(system: RulesSystem) -> tuple[Any, dict[str, Any], dict[str, Any]]:
    """A finished sheet of ``system``, the campaign's options, and a situation to roll in."""
    options = system.default_options()
    draft = system.new_draft(options)
    for step in system.creation_steps:
        if step.server_rolls and (step.key != "skills" or options.get("skill_method") == "random"):
            draft = system.roll_step(draft, step.key, options, Random(7))
    document = draft.model_dump(mode="json")
    if system.key == "lucky13":
        for skill in document["skills"]:
            skill["die"] = document["abilities"][skill["ability"]] if skill["ability"] else "d4"
        document["skills"][0]["specializations"] = [{"id": document["next_id"], "name": "Teleport", "level": 2}]
        document["next_id"] += 1
        document["hit_points"] = 10 * ["d4", "d6", "d8", "d10", "d12"].index(document["abilities"]["pulse"]) + 10
        document["creation"]["step"] = ""
        situation = {"skill": document["skills"][0]["id"], "difficulty": "moderate"}
    elif system.key == "d6":  # 18d among six stats: 3d each; Dodge two pips above Dexterity
        stats = {str(stat["id"]): "3d" for stat in document["stats"]}
        draft = system.fill_step(draft, "stats", {"stats": stats}, options)
        draft = system.fill_step(draft, "skills", {"skills": {str(document["skills"][0]["id"]): "3d+2"}}, options)
        draft = system.fill_step(draft, "review", {"concept": "Scavenger"}, options)
        sheet = system.finish(draft, options)
        return sheet, options, {"item": document["skills"][0]["id"], "difficulty": 15}
    elif system.key == "d13":  # 12 ability points, 3 each; 10 skill points
        draft = system.fill_step(draft, "abilities", {"brawn": 3, "grace": 3, "wits": 3, "will": 3}, options)
        rated = [{"id": skill["id"], "rating": 2} for skill in document["skills"][:5]]
        draft = system.fill_step(draft, "skills", {"skills": rated}, options)
        sheet = system.finish(draft, options)
        options["experience"] = True  # experience is a campaign's option: this one plays with it
        return sheet, options, {"level": "average", "ability": "wits", "skill": document["skills"][0]["id"]}
    else:
        document["step"] = ""
        situation = {"need": 1}
    return system.read_sheet(document), options, situation


def every_system() -> list[Any]:
    return [pytest.param(key, id=key) for key in (*systems.KEYS, "coin")]


@pytest.mark.parametrize("key", every_system())
def test_a_system_follows_the_protocol(key: str) -> None:
    system = systems.get(key)
    assert isinstance(system, RulesSystem)
    assert system.key == key
    assert system.name
    assert system.attribution
    if system.license_file:
        assert (ROOT / "LICENSES" / system.license_file).is_file()
    assert len({step.key for step in system.creation_steps}) == len(system.creation_steps)
    assert len({section.key for section in system.edit_sections}) == len(system.edit_sections)
    assert system.currencies
    assert system.roll_kinds


@pytest.mark.parametrize("key", every_system())
def test_options_default_and_validate_to_themselves(key: str) -> None:
    system = systems.get(key)
    defaults = system.default_options()
    assert system.validate_options(defaults) == defaults
    system.options_model.model_validate(defaults)
    assert {option.key for option in system.option_fields} <= set(defaults)


@pytest.mark.parametrize("key", every_system())
def test_a_sheet_round_trips_as_json(key: str) -> None:
    system = systems.get(key)
    sheet, options, _ = finished(system)
    document = json.loads(json.dumps(sheet.model_dump(mode="json")))
    assert document["schema_version"] == system.sheet_version
    assert system.read_sheet(document) == sheet
    assert system.validate(sheet, options, finished=True) == ()
    assert system.migrate(document, system.sheet_version) == document
    with pytest.raises(ValueError, match="version"):
        system.migrate(document, system.sheet_version + 1)


@pytest.mark.parametrize("key", every_system())
def test_a_sheet_is_frozen_and_refuses_unknown_fields(key: str) -> None:
    system = systems.get(key)
    sheet, _, _ = finished(system)
    with pytest.raises(ValueError, match="frozen"):
        sheet.notes = "changed"  # type: ignore[misc]
    with pytest.raises(SheetInvalid) as refused:
        system.read_sheet({**sheet.model_dump(mode="json"), "flying": True})
    assert [p.field for p in refused.value.problems] == ["flying"]


@pytest.mark.parametrize("key", every_system())
def test_a_draft_starts_unfinished_and_the_server_rolls_its_steps(key: str) -> None:
    system = systems.get(key)
    options = system.default_options()
    draft = system.new_draft(options)
    assert system.validate(draft, options, finished=True)  # something is missing
    first = system.creation_steps[0]
    assert system.check_step(draft, first.key, options)
    assert system.check_step(draft, "no-such-step", options)[0].field == "step"
    rolled = [step for step in system.creation_steps if step.server_rolls]
    if not rolled:  # a system whose creation rolls nothing (D6: the player spends dice) refuses to
        with pytest.raises(SpecError):
            system.roll_step(draft, first.key, options, Random(3))
        return
    once = system.roll_step(draft, rolled[0].key, options, Random(3))
    assert once != draft
    assert system.roll_step(draft, rolled[0].key, options, Random(3)) == once  # the dice come from the rng
    assert system.roll_step(once, rolled[0].key, options, Random(4)) == once  # a roll on record stays


@pytest.mark.parametrize("key", every_system())
def test_edits_follow_who_may_change_what(key: str) -> None:
    system = systems.get(key)
    sheet, options, _ = finished(system)
    gm_only = [s for s in system.edit_sections if Role.OWNER not in s.editors]
    for section in gm_only:
        with pytest.raises(EditRefused):
            system.edit(sheet, section.key, {}, role=Role.OWNER, options=options)
    notes = system.edit(sheet, "notes", {"notes": "Owes the ferryman."}, role=Role.OWNER, options=options)
    assert notes.notes == "Owes the ferryman."
    with pytest.raises(SheetInvalid):
        system.edit(sheet, "notes", {"notes": "bell \x07"}, role=Role.OWNER, options=options)
    with pytest.raises(SheetInvalid):
        system.edit(sheet, "no-such-section", {}, role=Role.GM, options=options)


@pytest.mark.parametrize("key", every_system())
def test_vitals_and_a_sheet_roll_with_its_exact_chance(key: str) -> None:
    system = systems.get(key)
    sheet, options, situation = finished(system)
    vitals = system.vitals(sheet, options)
    assert isinstance(vitals, Vitals)
    assert vitals.can_act
    assert vitals.tracks
    roll = system.sheet_roll(sheet, situation, options)
    assert isinstance(roll, SheetRoll)
    assert roll.label
    kind = system.roll_kinds[roll.kind]
    chance = kind.chance_json(roll.spec)
    p = Fraction(chance["p_success"])
    assert 0 <= p <= 1
    result = kind.roll(kind.parse(roll.spec), Random(1))
    assert isinstance(result.success, bool)


@pytest.mark.parametrize("key", every_system())
def test_a_roll_said_as_a_call_is_the_same_roll(key: str) -> None:
    """A player's proposal: the situation said as a call (``situation_call``), which the GM's call
    fixes again (``call_situation``) to the very roll the situation makes."""
    system = systems.get(key)
    sheet, options, situation = finished(system)
    call = system.situation_call(sheet, situation, options)
    assert isinstance(call, system.call_model)
    assert system.call_model.model_validate(call.model_dump(mode="json")) == call  # it travels as JSON
    fixed = system.call_situation(sheet, call, options)
    assert set(fixed) <= system.called_situation
    assert system.sheet_roll(sheet, fixed, options).spec == system.sheet_roll(sheet, situation, options).spec
    assert system.call_words(call, options)


@pytest.mark.parametrize("key", every_system())
def test_every_offer_can_be_bought(key: str) -> None:
    system = systems.get(key)
    sheet, options, _situation = finished(system)
    offers = system.offers(sheet, options, {})
    assert offers
    currencies = {c.key for c in system.currencies}
    for offer in offers:
        assert isinstance(offer, Offer)
        assert offer.cost > 0
        assert offer.currency in currencies
        bought, what = system.buy(sheet, offer.key, options, {"name": "Brand New"})
        assert what.cost == offer.cost
        assert bought != sheet
        assert system.read_sheet(bought.model_dump(mode="json")) == bought
    with pytest.raises(ValueError, match="offer"):
        system.buy(sheet, "nothing:0", options, {})


def test_the_registry_refuses_a_second_system_of_a_key() -> None:
    with pytest.raises(ValueError, match="already"):
        systems.register(coin.SYSTEM)
    with pytest.raises(systems.UnknownSystem):
        systems.get("chess")


def test_the_systems_command_describes_each_system(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["systems"]) == 0
    described = json.loads(capsys.readouterr().out)
    assert [s["key"] for s in described] == [*systems.KEYS, "coin"]
    lucky = described[0]
    assert lucky["name"] == "Lucky 13"
    assert [k["key"] for k in lucky["roll_kinds"]] == ["check", "opposed"]
    assert lucky["currencies"] == [{"key": "ap", "name": "Adventure Points", "abbreviation": "AP"}]
    assert lucky["sheet_schema"]["properties"]["schema_version"]["const"] == 1
    assert systems.describe_all() == described


def test_a_coin_document_of_version_1_is_migrated() -> None:
    sheet = coin.SYSTEM.read_sheet({"schema_version": 1, "courage": 3, "luck": 4})
    assert sheet.nerve == 3
    assert sheet.schema_version == 2


@PROPERTY
@given(nerve=st.integers(1, 6), need=st.integers(0, 6))
def test_the_coin_chance_is_exact(nerve: int, need: int) -> None:
    """Brute force over every sequence of faces."""
    from itertools import product

    if need > nerve:
        return
    wins = sum(1 for faces in product((0, 1), repeat=nerve) if sum(faces) >= need)
    assert coin.flip_chance(coin.Flip(nerve, need)) == Fraction(wins, 2**nerve)


def fighting_systems() -> list[Any]:
    """The systems with encounters (the protocol's ``combat`` is None for a system without fights)."""
    return [param for param in every_system() if param.values[0] == "coin" or systems.get(param.values[0]).combat]


@pytest.mark.parametrize("key", fighting_systems())
def test_a_fight_from_the_sheet_and_an_npc(key: str) -> None:
    """Every system's combat: a character joins from its sheet, an NPC from the GM's form; initiative
    orders both; an attack has its exact chance before the roll and logs what it rolled; harm changes
    the vitals where they live; the blocks round-trip as JSON."""
    system = systems.get(key)
    combat = system.combat
    assert isinstance(combat, Combat)
    sheet, options, _ = finished(system)
    form = {"lucky13": {"reflex": "d6", "combat": "d4", "accuracy": "d4", "damage": "d6", "pulse": "d4"},
            "coin": {"nerve": "2", "luck": "3"},
            "d6": {"attack": "4d+1", "defence": "3d", "initiative": "3d+2", "weapon": "Club"}}[key]  # fmt: skip
    npc_block = combat.npc(form, options)
    hero_block = combat.joins(sheet, options)
    for block in (npc_block, hero_block):
        assert combat.read_block(json.loads(json.dumps(block.model_dump(mode="json")))) == block
    with pytest.raises(SheetInvalid):
        combat.npc({}, options)
    hero = Fighter(key=1, name="Hero", block=hero_block, sheet=sheet, sheet_key=7)
    npc = Fighter(key=2, name="Foe", block=npc_block)
    rolled = combat.initiative([[hero], [npc]], options, Random(3))
    assert isinstance(rolled, Initiative)
    assert sorted(rolled.order) == [1, 2]
    assert all(isinstance(logged, Logged) and logged.label for logged in rolled.logged)
    plan = combat.plan_attack(hero, npc, {}, options)
    assert isinstance(plan, AttackPlan)
    assert 0 < plan.chance < 1
    assert plan.label
    if plan.defences:  # the target's choice first (D6: a dodge, a parry or none), each with its exact chance
        assert plan.defence_field in combat.attack_fields
        assert all(0 < d.chance < 1 for d in plan.defences)
        plan = combat.plan_attack(hero, npc, {plan.defence_field: plan.defences[-1].value}, options)
        assert not plan.defences
    attack = combat.roll_attack(plan, options, Random(4))
    assert isinstance(attack, AttackRoll)
    assert attack.logged.chance == plan.chance
    with pytest.raises(SpecError):
        combat.plan_attack(hero, hero, {}, options)
    hurt = combat.harm(npc, -1, options)
    assert hurt.sheet is None
    assert hurt.change == -1
    healed = combat.harm(hero, -1, options)
    assert healed.sheet is not None
    assert healed.block == hero_block
    assert combat.vitals(hero, options).can_act


@pytest.mark.parametrize("key", every_system())
def test_unchanged_options_change_no_sheet(key: str) -> None:
    """A campaign saved with the options it has: nothing conflicts, no character's sheet changes."""
    system = systems.get(key)
    sheet, options, _ = finished(system)
    change = system.change_options(options, options, {}, [("Hero", sheet)])
    assert dict(change.conflicts) == {}
    assert change.sheets == (None,)


@pytest.mark.parametrize("key", every_system())
def test_the_first_page_asks_the_start_fields_and_a_step_offers_only_its_own_rolls(key: str) -> None:
    system = systems.get(key)
    options = system.default_options()
    given = {field.key: "A line" for field in system.start_fields}
    draft = system.start_draft(options, {**given, "name": "Ada"})
    document = draft.model_dump(mode="json")
    assert {field.key: document[field.key] for field in system.start_fields} == given
    for step in system.creation_steps:
        with pytest.raises((SpecError, SheetInvalid)):
            system.roll_at(draft, step.key, "no-such-roll", {}, options, Random(1))


def test_a_spec_error_of_any_kind_crosses_to_another_process_as_itself() -> None:
    """A spec worked out in a worker process (web.heavy) raises its error in the server's: pickled and rebuilt
    whatever its kind's constructor takes (UnknownSystem takes the key alone)."""
    import pickle

    from rules.systems import UnknownSystem
    from rules.systems.protocol.errors import SpecError

    for error in (SpecError("dice", "at most 50 dice"), UnknownSystem("no-such")):
        rebuilt = pickle.loads(pickle.dumps(error))
        assert type(rebuilt) is type(error)
        assert (rebuilt.field, rebuilt.message, str(rebuilt)) == (error.field, error.message, str(error))
