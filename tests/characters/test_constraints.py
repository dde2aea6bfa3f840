"""The sheet keeps its limits whatever the edge: the system's document refuses impossible values
(``rules.read_sheet``, which every stored, imported or edited sheet passes), and the one write
path refuses a finished character that is not complete. The row keeps its own (a name)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from django.db import IntegrityError, transaction

from characters import write
from characters.models import Character
from rules.systems.base import SheetInvalid
from tests.characters.conftest import FIGHTING, SNEAKING, SPELLCASTING, TELEPORT

pytestmark = pytest.mark.django_db


def read_refused(character: Character, change: Any) -> tuple[str, ...]:
    """The fields of the problems the system finds in the character's document after ``change(document)``."""
    document = copy.deepcopy(character.sheet)
    change(document)
    with pytest.raises(SheetInvalid) as refused:
        character.rules.read_sheet(document)
    return tuple(problem.field for problem in refused.value.problems)


def write_refused(character: Character, **changes: Any) -> tuple[str, ...]:
    """The fields of the problems the write path finds in the sheet with ``changes``; nothing is written."""
    before = Character.objects.get(pk=character.pk)
    with transaction.atomic():
        locked = write.lock(character.pk)
        sheet = locked.document.model_copy(update=changes)  # built without validation, as a bug would
        with pytest.raises(SheetInvalid) as refused:
            write.write(locked, sheet, by=None, what="Around the forms")
    after = Character.objects.get(pk=character.pk)
    assert (after.sheet, after.version) == (before.sheet, before.version)
    return tuple(problem.field for problem in refused.value.problems)


def skill(document: dict, skill_id: int) -> dict:
    return next(s for s in document["skills"] if s["id"] == skill_id)


def test_levels_run_1_to_5(brunella) -> None:
    def teleport(level: int):
        return lambda d: skill(d, SPELLCASTING)["specializations"][0].update(level=level)

    assert read_refused(brunella, teleport(6)) == ("skills.0.specializations.0.level",)
    assert read_refused(brunella, teleport(0)) == ("skills.0.specializations.0.level",)
    assert read_refused(brunella, lambda d: d["assets"][0].update(level=6)) == ("assets.0.level",)
    assert brunella.document.specialization(TELEPORT)[1].level == 2


def test_reputation_runs_minus_5_to_plus_5(brunella) -> None:
    assert read_refused(brunella, lambda d: d.update(reputation=6)) == ("reputation",)
    assert read_refused(brunella, lambda d: d.update(reputation=-6)) == ("reputation",)
    assert Character.objects.get(pk=brunella.pk).document.reputation == 1


@pytest.mark.parametrize("ability", ["will", "charm", "pulse", "intellect", "reflex"])
def test_ability_dice_run_d4_to_d12(brunella, ability) -> None:
    assert read_refused(brunella, lambda d: d["abilities"].update({ability: "d12+d4"})) == (f"abilities.{ability}",)
    assert read_refused(brunella, lambda d: d["abilities"].update({ability: "d2"})) == (f"abilities.{ability}",)
    # No die at all is a draft's, never a finished character's.
    abilities = brunella.document.abilities.model_copy(update={ability: None})
    assert write_refused(brunella, abilities=abilities) == (f"abilities.{ability}",)


def test_skill_and_weapon_dice_run_d4_to_d12(brunella) -> None:
    assert read_refused(brunella, lambda d: skill(d, FIGHTING).update(die="d12+d4")) == ("skills.4.die",)
    assert read_refused(brunella, lambda d: d["weapons"][0].update(damage="d12+d4")) == ("weapons.0.damage",)


def test_a_skill_has_one_specialization_of_a_name(brunella) -> None:
    def add(skill_id: int, name: str):
        return lambda d: skill(d, skill_id)["specializations"].append({"id": 99, "name": name, "level": 1})

    assert read_refused(brunella, add(SPELLCASTING, "teleport")) == ("skills.0",)
    document = copy.deepcopy(brunella.sheet)
    add(SNEAKING, "Teleport")(document)
    document["next_id"] = 100
    assert brunella.rules.read_sheet(document).skill(SNEAKING).specializations[0].name == "Teleport"


def test_names_are_never_blank(brunella) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        Character.objects.filter(pk=brunella.pk).update(name="")

    def blank(d: dict) -> None:
        skill(d, SPELLCASTING)["specializations"][0].update(name=" ")

    assert read_refused(brunella, blank) == ("skills.0.specializations.0.name",)
    assert read_refused(brunella, lambda d: d["weapons"][0].update(name="")) == ("weapons.0.name",)


def test_an_active_character_is_complete(brunella) -> None:
    assert write_refused(brunella, hit_points=None) == ("hit_points",)
    abilities = brunella.document.abilities.model_copy(update={"pulse": None})
    assert write_refused(brunella, abilities=abilities) == ("abilities.pulse",)
