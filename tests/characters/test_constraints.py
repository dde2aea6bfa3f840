"""The database keeps the sheet's limits even when the ORM goes around the forms and operations."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from characters.models import Asset, Character, Skill, Specialization, Weapon

pytestmark = pytest.mark.django_db


def refused(write) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        write()


def test_levels_run_1_to_5(brunella) -> None:
    teleport = Specialization.objects.get(skill__character=brunella, name="Teleport")
    refused(lambda: Specialization.objects.filter(pk=teleport.pk).update(level=6))
    refused(lambda: Specialization.objects.filter(pk=teleport.pk).update(level=0))
    refused(lambda: Asset.objects.filter(character=brunella).update(level=6))
    assert Specialization.objects.get(pk=teleport.pk).level == 2


def test_reputation_runs_minus_5_to_plus_5(brunella) -> None:
    refused(lambda: Character.objects.filter(pk=brunella.pk).update(reputation=6))
    refused(lambda: Character.objects.filter(pk=brunella.pk).update(reputation=-6))
    assert Character.objects.get(pk=brunella.pk).reputation == 1


@pytest.mark.parametrize("ability", ["will", "charm", "pulse", "intellect", "reflex"])
def test_ability_dice_run_d4_to_d12(brunella, ability) -> None:
    refused(lambda: Character.objects.filter(pk=brunella.pk).update(**{ability: 6}))
    refused(lambda: Character.objects.filter(pk=brunella.pk).update(**{ability: 0}))


def test_skill_and_weapon_dice_run_d4_to_d12(brunella) -> None:
    refused(lambda: Skill.objects.filter(character=brunella).update(die=6))
    refused(lambda: Weapon.objects.filter(character=brunella).update(damage=6))


def test_a_skill_has_one_specialization_of_a_name(brunella) -> None:
    spellcasting = brunella.skills.get(name="Spellcasting")
    refused(lambda: Specialization.objects.create(skill=spellcasting, name="Teleport", level=1))
    Specialization.objects.create(skill=brunella.skills.get(name="Sneaking"), name="Teleport", level=1)


def test_names_are_never_blank(brunella) -> None:
    refused(lambda: Character.objects.filter(pk=brunella.pk).update(name=""))
    refused(lambda: Specialization.objects.filter(skill__character=brunella).update(name=""))


def test_an_active_character_is_complete(brunella) -> None:
    refused(lambda: Character.objects.filter(pk=brunella.pk).update(hit_points=None))
    refused(lambda: Character.objects.filter(pk=brunella.pk).update(pulse=None))
